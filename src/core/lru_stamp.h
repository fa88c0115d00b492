/* LRU bookkeeping for small sets (TLB sets, L2 cache sets): each way has a
 * 32-bit last-use stamp; the victim is the way with the smallest stamp
 * (never-used ways have 0). No shifting on a hit, and the victim search is
 * four SSE4.1 min operations for 16 ways. Stamps come from a counter per
 * structure; when it wraps (after 2^32 uses) the caller resets every stamp,
 * forgetting recency once. */
#ifndef GPUVM_LRU_STAMP_H
#define GPUVM_LRU_STAMP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __SSE4_1__
#include <smmintrin.h>
#endif

/* Advances a structure's stamp clock and returns the new stamp. When it
 * wraps, all n stamps are cleared, forgetting recency once. */
static inline uint32_t lru_tick(uint32_t *clock, uint32_t *stamps, size_t n)
{
	if (++*clock == 0) {
		memset(stamps, 0, n * sizeof *stamps);
		*clock = 1;
	}
	return *clock;
}

#ifdef __SSE4_1__
/* lru_oldest for 16 stamps (16-way L2 sets, 16-entry TLBs), unrolled. */
static inline uint32_t lru_oldest16(const uint32_t *s)
{
	__m128i a = _mm_loadu_si128((const __m128i *)s);
	__m128i b = _mm_loadu_si128((const __m128i *)(s + 4));
	__m128i c = _mm_loadu_si128((const __m128i *)(s + 8));
	__m128i d = _mm_loadu_si128((const __m128i *)(s + 12));
	__m128i m = _mm_min_epu32(_mm_min_epu32(a, b), _mm_min_epu32(c, d));
	m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
	m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
	unsigned at = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, m))) |
		      (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(b, m))) << 4 |
		      (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(c, m))) << 8 |
		      (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(d, m))) << 12;
	return (uint32_t)__builtin_ctz(at);
}

/* A 16-way set's ways in recency order, one byte each, least recent
 * first: kept beside the stamps, ordered by (stamp, way), it is the order
 * lru_oldest16 picks victims in, so a miss takes ord[0] with no scan. The
 * owner resets it to way order whenever the stamps are cleared. This
 * moves way w (the hit way, or the victim ord[0]) to the most recent end:
 * the bytes after its position shift down one, with no branch. */
static inline void lru_order16_use(uint8_t *ord, uint32_t w)
{
	__m128i o = _mm_loadu_si128((const __m128i *)ord);
	uint32_t p = (uint32_t)__builtin_ctz(
		(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(o, _mm_set1_epi8((char)w))));
	__m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	/* byte i takes byte i + (i >= p) */
	__m128i from = _mm_sub_epi8(iota, _mm_cmpgt_epi8(iota, _mm_set1_epi8((char)(p - 1))));
	o = _mm_insert_epi8(_mm_shuffle_epi8(o, from), (int)w, 15);
	_mm_storeu_si128((__m128i *)ord, o);
}
#else
static inline void lru_order16_use(uint8_t *ord, uint32_t w)
{
	uint32_t p = 0;
	while (ord[p] != w)
		p++;
	memmove(ord + p, ord + p + 1, 15 - p);
	ord[15] = (uint8_t)w;
}
#endif

/* Way order 0..15 (the recency order of all-zero stamps). */
static inline void lru_order16_reset(uint8_t *ord)
{
	for (uint32_t i = 0; i < 16; i++)
		ord[i] = (uint8_t)i;
}

/* Index of the smallest of s[0..n). */
static inline uint32_t lru_oldest(const uint32_t *s, uint32_t n)
{
	uint32_t i = 0, best = 0;
#ifdef __SSE4_1__
	if (n == 16)
		return lru_oldest16(s);
	if (n >= 8) {
		__m128i m = _mm_loadu_si128((const __m128i *)s);
		for (i = 4; i + 4 <= n; i += 4)
			m = _mm_min_epu32(m, _mm_loadu_si128((const __m128i *)(s + i)));
		m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
		m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
		uint32_t v = (uint32_t)_mm_cvtsi128_si32(m);
		uint32_t tail = i;
		for (; i < n; i++) /* tail not covered by the vector loop */
			if (s[i] < v)
				v = s[i];
		/* Where the minimum sits: every group's equality mask gathered,
		 * no branch per group (its position is random). */
		__m128i vv = _mm_set1_epi32((int)v);
		uint64_t at = 0;
		for (i = 0; i < tail && i < 64; i += 4) {
			__m128i eq = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(s + i)), vv);
			at |= (uint64_t)_mm_movemask_ps(_mm_castsi128_ps(eq)) << i;
		}
		if (at)
			return (uint32_t)__builtin_ctzll(at);
		for (; s[i] != v; i++)
			;
		return i;
	}
#endif
	for (i = 1; i < n; i++)
		if (s[i] < s[best])
			best = i;
	return best;
}

#endif
