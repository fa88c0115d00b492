#include "engine/event_queue.h"

#include <stdlib.h>
#include <string.h>

int event_queue_init(struct event_queue *q, uint32_t cap)
{
	memset(q, 0, sizeof *q);
	q->cap = cap ? cap : 1;
	q->node = calloc(q->cap, sizeof *q->node);
	q->bucket = calloc(EVQ_BUCKETS, sizeof *q->bucket);
	q->nonempty = calloc(EVQ_BUCKETS / 64, sizeof *q->nonempty);
	q->scratch = malloc(q->cap * sizeof *q->scratch);
	if (!q->node || !q->bucket || !q->nonempty || !q->scratch ||
	    event_heap_init(&q->far, q->cap)) {
		event_queue_free(q);
		return -1;
	}
	return 0;
}

void event_queue_free(struct event_queue *q)
{
	free(q->node);
	free(q->bucket);
	free(q->nonempty);
	free(q->scratch);
	event_heap_free(&q->far);
	memset(q, 0, sizeof *q);
}

void event_queue_clear(struct event_queue *q)
{
	memset(q->bucket, 0, EVQ_BUCKETS * sizeof *q->bucket);
	memset(q->nonempty, 0, EVQ_BUCKETS / 64 * sizeof *q->nonempty);
	q->n_cal = 0;
	event_heap_clear(&q->far);
}

/* Every calendar event lies in [from, base + EVQ_BUCKETS), which the ring
 * holds once each, so the first set bit from from's position on is the
 * earliest bucket. */
int64_t event_queue_next_bucket(const struct event_queue *q, int64_t from)
{
	for (int64_t b = from;;) {
		uint32_t pos = (uint32_t)b & (EVQ_BUCKETS - 1);
		uint64_t bits = q->nonempty[pos >> 6] >> (pos & 63);
		if (bits)
			return b + __builtin_ctzll(bits);
		b += 64 - (pos & 63);
	}
}

/* warp's node (time and seq set) goes before the bucket's latest event:
 * walked in from the earliest, after every event not later than it (equal
 * times included: its seq is the newest). */
bool event_queue_sort_in(struct event_queue *q, uint32_t pos, uint32_t warp)
{
	struct evq_bucket *bk = &q->bucket[pos];
	if (bk->count >= EVQ_SORT_MAX)
		return false;
	struct evq_node *n = &q->node[warp];
	uint32_t prev = bk->last - 1, cur = q->node[prev].next;
	while (q->node[cur].t <= n->t) {
		prev = cur;
		cur = q->node[cur].next;
	}
	n->next = cur;
	q->node[prev].next = warp;
	bk->count++;
	q->n_cal++;
	return true;
}

/* Drains the queue in order and pushes it back numbered from 0. The drain
 * moves base forward; it is put back so the events return to the
 * calendar where they were. */
void event_queue_renumber(struct event_queue *q)
{
	int64_t base = q->base;
	uint32_t n = 0;
	while (!event_queue_empty(q)) {
		struct event *ev = &q->scratch[n++];
		ev->warp = event_queue_pop(q, &ev->t);
	}
	q->base = base;
	q->seq = 0;
	for (uint32_t i = 0; i < n; i++)
		event_queue_push(q, q->scratch[i].t, q->scratch[i].warp);
}
