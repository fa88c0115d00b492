#include "engine/event_heap.h"

#include <stdlib.h>

static inline bool before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int event_heap_init(struct event_heap *q, uint32_t cap)
{
	q->h = malloc((size_t)(cap ? cap : 1) * sizeof *q->h);
	q->n = 0;
	q->cap = cap ? cap : 1;
	q->seq = 0;
	return q->h ? 0 : -1;
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
	struct event last = q->h[--q->n];
	uint32_t i = 0, n = q->n;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(&q->h[c + 1], &q->h[c]))
			c++;
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
