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
	/* Up to 64 ways are compared without an early exit: where a key sits
	 * is random, so a branch per group of four mispredicts; one test of
	 * the gathered mask does not. */
	__m128i k = _mm_set1_epi64x((long long)key);
	if (n == 16) { /* 16-way L2 sets, 16-entry TLBs */
		/* The eight compare results (0 or all ones per 64-bit lane) are
		 * narrowed by saturating packs to one byte per way, so a single
		 * movemask gathers all 16: half the instructions of a movemask
		 * per pair. */
#define FIND_U64_EQ(g) _mm_cmpeq_epi64(_mm_loadu_si128((const __m128i *)(a + (g))), k)
		__m128i p0 = _mm_packs_epi32(FIND_U64_EQ(0), FIND_U64_EQ(2));
		__m128i p1 = _mm_packs_epi32(FIND_U64_EQ(4), FIND_U64_EQ(6));
		__m128i p2 = _mm_packs_epi32(FIND_U64_EQ(8), FIND_U64_EQ(10));
		__m128i p3 = _mm_packs_epi32(FIND_U64_EQ(12), FIND_U64_EQ(14));
#undef FIND_U64_EQ
		__m128i q = _mm_packs_epi16(_mm_packs_epi16(p0, p1), _mm_packs_epi16(p2, p3));
		unsigned m = (unsigned)_mm_movemask_epi8(q) | 0x10000u;
		return (uint32_t)__builtin_ctz(m);
	}
	while (i + 4 <= n) {
		uint64_t found = 0;
		uint32_t first = i;
		for (uint32_t g = 0; g < 64 && i + 4 <= n; g += 4, i += 4) {
			__m128i e0 = _mm_cmpeq_epi64(_mm_loadu_si128((const __m128i *)(a + i)), k);
			__m128i e1 = _mm_cmpeq_epi64(_mm_loadu_si128((const __m128i *)(a + i + 2)), k);
			uint64_t m = (uint64_t)(_mm_movemask_pd(_mm_castsi128_pd(e0)) |
						(_mm_movemask_pd(_mm_castsi128_pd(e1)) << 2));
			found |= m << g;
		}
		if (found)
			return first + (uint32_t)__builtin_ctzll(found);
	}
#endif
	for (; i < n; i++)
		if (a[i] == key)
			return i;
	return n;
}

#endif
