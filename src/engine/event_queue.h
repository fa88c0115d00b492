/* The engine's queue of warp events, in (time, push order).
 *
 * A calendar of short time buckets holds the near future: a push appends
 * to its bucket's list (or sorts into a short one), a pop unlinks the head
 * of the earliest bucket, each a few instructions. The four-ary heap takes
 * what the calendar does not: events past its horizon, earlier than its
 * window, or out of order into a crowded bucket. A pop takes the earlier
 * of the two fronts, and one counter numbers both, so events leave in
 * exactly the order the heap alone gives: (time, sequence number).
 *
 * Each warp has at most one event, so the calendar's list links live in
 * an array indexed by warp slot. */
#ifndef GPUVM_EVENT_QUEUE_H
#define GPUVM_EVENT_QUEUE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/event_heap.h"

/* 2 cycles a bucket: random sampling on p100 queues ~0.4 events per
 * simulated cycle, so a bucket holds about one; a bandwidth-bound stream
 * (triad) brings thousands of warps back within a few hundred cycles,
 * and with 8-cycle buckets and sorting into at most 8 events, 46 % of
 * its pushes went to the heap (2-cycle buckets, 16: 3 % fewer host
 * instructions; what leaves when is the same). 32768 buckets reach 65 K
 * cycles ahead, past the few thousand cycles of a queued memory access;
 * slower events (far faults, migrations) wait in the heap. */
#define EVQ_BUCKET_SHIFT 1
#define EVQ_BUCKETS 32768u
/* An out-of-order push is sorted into a bucket of fewer events than this;
 * into a longer one it goes to the heap, so no push walks far. */
#define EVQ_SORT_MAX 16u
/* Times from here on (2^52 cycles) are not bucketed: the bucket number
 * must fit an int64 exactly. */
#define EVQ_T_MAX 4503599627370496.0

struct evq_node {
	double t;
	uint32_t seq;
	uint32_t next; /* warp slot of the next event in its bucket's ring */
};

struct evq_bucket {
	uint32_t last;  /* warp slot + 1 of the bucket's latest event, 0 = empty */
	uint32_t count; /* events in the bucket */
};

struct event_queue {
	struct evq_node *node;     /* [cap], by warp slot */
	struct evq_bucket *bucket; /* [EVQ_BUCKETS], ring of absolute buckets */
	uint64_t *nonempty;        /* [EVQ_BUCKETS / 64] bitmap of the ring */
	int64_t base;              /* no queued event lies in an earlier bucket */
	int64_t front;             /* the calendar's earliest bucket, when n_cal */
	uint32_t n_cal, cap, seq;
	struct event_heap far;
	struct event *scratch;     /* [cap] for event_queue_renumber */
};

int event_queue_init(struct event_queue *q, uint32_t cap);
void event_queue_free(struct event_queue *q);
void event_queue_clear(struct event_queue *q);

/* Gives the queued events sequence numbers 0..n-1 in their order, which
 * keeps every comparison's outcome; event_queue_push calls it before the
 * 32-bit counter would wrap. */
void event_queue_renumber(struct event_queue *q);

/* Out of line: the bucket after a drained front (a bitmap scan), and the
 * sorted insertion of an out-of-order push. */
int64_t event_queue_next_bucket(const struct event_queue *q, int64_t from);
bool event_queue_sort_in(struct event_queue *q, uint32_t pos, uint32_t warp);

static inline bool event_queue_empty(const struct event_queue *q)
{
	return q->n_cal == 0 && event_heap_empty(&q->far);
}

static inline const struct evq_node *evq_front_node(const struct event_queue *q, uint32_t *warp)
{
	uint32_t last = q->bucket[(uint32_t)q->front & (EVQ_BUCKETS - 1)].last - 1;
	*warp = q->node[last].next;
	return &q->node[*warp];
}

/* Whether the calendar's front comes before the heap's (or the heap is
 * empty); only with n_cal. */
static inline bool evq_calendar_first(const struct event_queue *q, const struct evq_node *c)
{
	if (event_heap_empty(&q->far))
		return true;
	const struct event *h = &q->far.h[0];
	return c->t < h->t || (c->t == h->t && c->seq < h->seq);
}

/* The warp of the earliest event; the queue must not be empty. */
static inline uint32_t event_queue_front_warp(const struct event_queue *q)
{
	if (q->n_cal) {
		uint32_t w;
		const struct evq_node *c = evq_front_node(q, &w);
		if (evq_calendar_first(q, c))
			return w;
	}
	return q->far.h[0].warp;
}

/* The earliest event's time; the queue must not be empty. */
static inline double event_queue_front_time(const struct event_queue *q)
{
	double t = event_heap_empty(&q->far) ? INFINITY : event_heap_top_time(&q->far);
	if (q->n_cal) {
		uint32_t w;
		double c = evq_front_node(q, &w)->t;
		t = c < t ? c : t;
	}
	return t;
}

/* The absolute bucket of t, for times that have one. */
static inline bool evq_bucket_of(double t, int64_t *b)
{
	if (!(t >= 0 && t < EVQ_T_MAX))
		return false;
	*b = (int64_t)t >> EVQ_BUCKET_SHIFT;
	return true;
}

static inline void event_queue_push(struct event_queue *q, double t, uint32_t warp)
{
	if (__builtin_expect(q->seq == UINT32_MAX, 0))
		event_queue_renumber(q);
	uint32_t seq = q->seq++;
	int64_t b;
	if (evq_bucket_of(t, &b)) {
		/* (one unsigned compare for base <= b < base + EVQ_BUCKETS) */
		if ((uint64_t)(b - q->base) < EVQ_BUCKETS) {
			uint32_t pos = (uint32_t)b & (EVQ_BUCKETS - 1);
			struct evq_bucket *bk = &q->bucket[pos];
			struct evq_node *n = &q->node[warp];
			n->t = t;
			n->seq = seq;
			if (!bk->last) {
				n->next = warp;
				bk->last = warp + 1;
				bk->count = 1;
				q->nonempty[pos >> 6] |= 1ull << (pos & 63);
				if (!q->n_cal || b < q->front)
					q->front = b;
				q->n_cal++;
				return;
			}
			struct evq_node *l = &q->node[bk->last - 1];
			if (l->t <= t) { /* in order (seq is the newest): append */
				n->next = l->next;
				l->next = warp;
				bk->last = warp + 1;
				bk->count++;
				q->n_cal++;
				return;
			}
			if (event_queue_sort_in(q, pos, warp))
				return;
		}
	}
	event_heap_insert(&q->far, (struct event){t, seq, warp});
}

static inline uint32_t event_queue_pop(struct event_queue *q, double *t)
{
	if (q->n_cal) {
		uint32_t w;
		const struct evq_node *c = evq_front_node(q, &w);
		if (evq_calendar_first(q, c)) {
			uint32_t pos = (uint32_t)q->front & (EVQ_BUCKETS - 1);
			struct evq_bucket *bk = &q->bucket[pos];
			*t = c->t;
			q->base = q->front;
			q->n_cal--;
			if (--bk->count) {
				q->node[bk->last - 1].next = c->next;
			} else {
				bk->last = 0;
				q->nonempty[pos >> 6] &= ~(1ull << (pos & 63));
				if (q->n_cal)
					q->front = event_queue_next_bucket(q, q->front + 1);
			}
			return w;
		}
	}
	uint32_t w = event_heap_pop(&q->far, t);
	int64_t b;
	if (evq_bucket_of(*t, &b) && b > q->base)
		q->base = b;
	return w;
}

#endif
