#include "event/event_heap.h"

#include <math.h>
#include <stdlib.h>

#ifdef __SSE4_1__
#include <smmintrin.h>
#endif

#define ARITY 4

/* Without branches: which child comes first is a coin toss, and a
 * mispredicted branch per heap level cost more than the compare. */
static inline bool before(const struct event *a, const struct event *b)
{
	return (a->t < b->t) | ((a->t == b->t) & (a->seq < b->seq));
}

/* Slots past the last event hold one that sorts after every real one, so
 * the sift-down may always read all four children. */
static const struct event sentinel = {INFINITY, UINT32_MAX, 0};

static void fill_sentinels(struct event_heap *q)
{
	for (uint32_t i = q->n; i < q->cap + ARITY; i++)
		q->h[i] = sentinel;
}

int event_heap_init(struct event_heap *q, uint32_t cap)
{
	q->cap = cap ? cap : 1;
	q->h = malloc(((size_t)q->cap + ARITY) * sizeof *q->h);
	q->n = 0;
	if (!q->h)
		return -1;
	fill_sentinels(q);
	return 0;
}

void event_heap_free(struct event_heap *q)
{
	free(q->h);
	q->h = NULL;
}

/* Index of the earliest of h[c..c+3]. With SSE4.1 the four times are
 * compared at once, then the sequence numbers of those tied for the
 * earliest time (ties are common: many latencies are constants), with no
 * branch. */
static inline uint32_t earliest_of_four(const struct event *h, uint32_t c)
{
#ifdef __SSE4_1__
	/* an event's 16 bytes: the time (low double), seq, warp */
	__m128i e0 = _mm_loadu_si128((const __m128i *)&h[c]);
	__m128i e1 = _mm_loadu_si128((const __m128i *)&h[c + 1]);
	__m128i e2 = _mm_loadu_si128((const __m128i *)&h[c + 2]);
	__m128i e3 = _mm_loadu_si128((const __m128i *)&h[c + 3]);
	__m128d t01 = _mm_castsi128_pd(_mm_unpacklo_epi64(e0, e1));
	__m128d t23 = _mm_castsi128_pd(_mm_unpacklo_epi64(e2, e3));
	__m128d m = _mm_min_pd(t01, t23);
	m = _mm_min_pd(m, _mm_shuffle_pd(m, m, 1));
	/* one 32-bit lane per child: all ones where its time is the earliest */
	__m128i tied = _mm_packs_epi32(_mm_castpd_si128(_mm_cmpeq_pd(t01, m)),
				       _mm_castpd_si128(_mm_cmpeq_pd(t23, m)));
	__m128i seq = _mm_unpacklo_epi64(_mm_unpackhi_epi32(e0, e1), _mm_unpackhi_epi32(e2, e3));
	seq = _mm_or_si128(seq, _mm_andnot_si128(tied, _mm_set1_epi32(-1)));
	__m128i s = _mm_min_epu32(seq, _mm_shuffle_epi32(seq, _MM_SHUFFLE(1, 0, 3, 2)));
	s = _mm_min_epu32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
	unsigned at = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(seq, s)));
	return c + (uint32_t)__builtin_ctz(at);
#else
	uint32_t a = c + before(&h[c + 1], &h[c]);
	uint32_t b = c + 2 + before(&h[c + 3], &h[c + 2]);
	return before(&h[b], &h[a]) ? b : a;
#endif
}

/* Capacity is the number of resident warps; each warp has at most one event. */
void event_heap_insert(struct event_heap *q, struct event ev)
{
	uint32_t i = q->n++;
	while (i) {
		uint32_t parent = (i - 1) / ARITY;
		if (!before(&ev, &q->h[parent]))
			break;
		q->h[i] = q->h[parent];
		i = parent;
	}
	q->h[i] = ev;
}

uint32_t event_heap_pop(struct event_heap *q, double *t)
{
	struct event top = q->h[0];
	uint32_t n = --q->n;
	struct event last = q->h[n];
	q->h[n] = sentinel;
	uint32_t i = 0;
	for (;;) {
		uint32_t c = ARITY * i + 1;
		if (c >= n)
			break;
		/* the earliest of the four (slots from n on are sentinels) */
		c = earliest_of_four(q->h, c);
		if (!before(&q->h[c], &last))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (n)
		q->h[i] = last;
	*t = top.t;
	return top.warp;
}

void event_heap_clear(struct event_heap *q)
{
	q->n = 0;
	fill_sentinels(q);
}
