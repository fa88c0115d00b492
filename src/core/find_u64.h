/* Index of key in a[0..n), or n: the tag compare of every set-associative
 * structure in the model (TLB sets, L2 cache sets). Two 64-bit compares
 * per SSE4.1 instruction when the build targets x86-64-v2. */
#ifndef GPUVM_FIND_U64_H
#define GPUVM_FIND_U64_H

#include <stdint.h>

#ifdef __SSE4_1__
#include <smmintrin.h>
#endif

static inline uint32_t find_u64(const uint64_t *a, uint32_t n, uint64_t key)
{
	uint32_t i = 0;
#ifdef __SSE4_1__
	__m128i k = _mm_set1_epi64x((long long)key);
	for (; i + 4 <= n; i += 4) {
		__m128i e0 = _mm_cmpeq_epi64(_mm_loadu_si128((const __m128i *)(a + i)), k);
		__m128i e1 = _mm_cmpeq_epi64(_mm_loadu_si128((const __m128i *)(a + i + 2)), k);
		int m = _mm_movemask_pd(_mm_castsi128_pd(e0)) |
			(_mm_movemask_pd(_mm_castsi128_pd(e1)) << 2);
		if (m)
			return i + (uint32_t)__builtin_ctz((unsigned)m);
	}
#endif
	for (; i < n; i++)
		if (a[i] == key)
			return i;
	return n;
}

#endif
