#include "engine/event_heap.h"

#include <math.h>
#include <stdlib.h>

/* Without branches: which child comes first is a coin toss, and a
 * mispredicted branch per heap level cost more than the compare. */
static inline bool before(const struct event *a, const struct event *b)
{
	return (a->t < b->t) | ((a->t == b->t) & (a->seq < b->seq));
}

/* The slot past the last event holds one that sorts after every real one,
 * so the sift-down may always read two children. */
static const struct event sentinel = {INFINITY, UINT64_MAX, 0};

int event_heap_init(struct event_heap *q, uint32_t cap)
{
	q->cap = cap ? cap : 1;
	q->h = malloc(((size_t)q->cap + 1) * sizeof *q->h);
	q->n = 0;
	q->seq = 0;
	if (!q->h)
		return -1;
	q->h[0] = sentinel;
	return 0;
}

void event_heap_free(struct event_heap *q)
{
	free(q->h);
	q->h = NULL;
}

/* Capacity is the number of resident warps; each warp has at most one event. */
void event_heap_push(struct event_heap *q, double t, uint32_t warp)
{
	struct event ev = {t, q->seq++, warp};
	uint32_t i = q->n++;
	q->h[q->n] = sentinel;
	while (i) {
		uint32_t parent = (i - 1) / 2;
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
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		c += before(&q->h[c + 1], &q->h[c]); /* h[n] is the sentinel */
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
	q->h[0] = sentinel;
}
