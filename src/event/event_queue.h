/* The engine's queue of warp events, in (time, push order).
 *
 * A calendar of short time buckets holds the near future. A push into a
 * future bucket appends to that bucket's list, unsorted (a few
 * instructions, no compare); when the earliest bucket is needed its events
 * move into the run, an array sorted once by (time, push order), from
 * which pops take the head. A push into the bucket being drained (or an
 * earlier one) is placed into the run by binary search. The four-ary heap
 * takes what the calendar does not: events past its horizon or earlier
 * than its window. A pop takes the earlier of the run's and the heap's
 * fronts, and one counter numbers both, so events leave in exactly the
 * order the heap alone gives: (time, sequence number).
 *
 * Each warp has at most one event, so the buckets' list links live in an
 * array indexed by warp slot, and the run needs one entry per warp. */
#ifndef GPUVM_EVENT_QUEUE_H
#define GPUVM_EVENT_QUEUE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "event/event_heap.h"

/* Half a cycle a bucket (a power of two, so the bucket number is exact).
 * The suite's SIMT kernels on p100 queue thousands of warps within a few
 * hundred cycles (2dconv: 3,584): with 2-cycle buckets sorted on each
 * push, 18-50 % of pushes went to the heap as their bucket was crowded
 * and the rest walked 4-6 events each; sorted once when opened, a bucket
 * costs a compare or two per event, and a narrow one leaves fewer pushes
 * landing in the bucket being drained (the ones that need the binary
 * search). 32768 buckets reach 16 K cycles ahead, past the few thousand
 * cycles of a queued memory access; slower events (far faults,
 * migrations) wait in the heap. */
#ifndef EVQ_BUCKETS_PER_CYCLE
#define EVQ_BUCKETS_PER_CYCLE 2.0
#endif
#define EVQ_BUCKETS 32768u
/* Times from here on are not bucketed: the bucket number must fit an
 * int64 exactly (2^52 buckets). */
#define EVQ_T_MAX (4503599627370496.0 / EVQ_BUCKETS_PER_CYCLE)

struct evq_node {
	double t;
	uint32_t seq;
	uint32_t next; /* warp slot + 1 of the bucket's next older event, 0 = none */
};

struct event_queue {
	struct evq_node *node;     /* [cap], by warp slot */
	/* [EVQ_BUCKETS], ring of absolute buckets: warp slot + 1 of the
	 * bucket's newest event (its list runs newest first, so a push
	 * touches no other event), 0 = empty */
	uint32_t *bucket;
	uint64_t *nonempty;        /* [EVQ_BUCKETS / 64] bitmap of the ring */
	/* run[rh..rn): the opened buckets' events, sorted; with rh < rn each
	 * lies in a bucket <= open, and every bucket list lies after open */
	struct event *run;         /* [cap] */
	uint32_t rh, rn;
	int64_t open;
	int64_t base;              /* no bucket list lies in an earlier bucket */
	int64_t front;             /* the earliest bucket list, when n_list */
	uint32_t n_list, cap, seq;
	struct event_heap far;
	struct event *scratch;     /* [cap] for event_queue_renumber */
	struct event *sort_tmp;    /* [cap] for sorting an opened bucket */
};

int event_queue_init(struct event_queue *q, uint32_t cap);
void event_queue_free(struct event_queue *q);
void event_queue_clear(struct event_queue *q);

/* Gives the queued events sequence numbers 0..n-1 in their order, which
 * keeps every comparison's outcome; event_queue_push calls it before the
 * 32-bit counter would wrap. */
void event_queue_renumber(struct event_queue *q);

/* Out of line: the bucket after a drained front (a bitmap scan), moving
 * the earliest bucket into the (empty) run, and a push into the run's
 * middle. */
int64_t event_queue_next_bucket(const struct event_queue *q, int64_t from);
void event_queue_open(struct event_queue *q);
void event_queue_run_insert(struct event_queue *q, struct event ev);

static inline bool event_queue_empty(const struct event_queue *q)
{
	return q->rh == q->rn && q->n_list == 0 && event_heap_empty(&q->far);
}

/* Whether the run has an event, opening the earliest bucket if it has
 * none. */
static inline bool evq_run_ready(struct event_queue *q)
{
	if (q->rh < q->rn)
		return true;
	if (!q->n_list)
		return false;
	event_queue_open(q);
	return true;
}

/* Whether a comes before b. */
static inline bool evq_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* The earliest event; the queue must not be empty. */
static inline const struct event *event_queue_front(struct event_queue *q)
{
	if (evq_run_ready(q)) {
		const struct event *r = &q->run[q->rh];
		if (event_heap_empty(&q->far) || evq_before(r, &q->far.h[0]))
			return r;
	}
	return &q->far.h[0];
}

static inline uint32_t event_queue_front_warp(struct event_queue *q)
{
	return event_queue_front(q)->warp;
}

static inline double event_queue_front_time(struct event_queue *q)
{
	return event_queue_front(q)->t;
}

/* A warp likely to come after the front (the run's second event), or
 * UINT32_MAX: for prefetching only, as the heap is not consulted. */
static inline uint32_t event_queue_second_warp_hint(const struct event_queue *q)
{
	return q->rh + 1 < q->rn ? q->run[q->rh + 1].warp : UINT32_MAX;
}

/* The absolute bucket of t, for times that have one. */
static inline bool evq_bucket_of(double t, int64_t *b)
{
	if (!(t >= 0 && t < EVQ_T_MAX))
		return false;
	/* exact: a power-of-two scale */
	*b = (int64_t)(t * EVQ_BUCKETS_PER_CYCLE);
	return true;
}

static inline void event_queue_push(struct event_queue *q, double t, uint32_t warp)
{
	if (__builtin_expect(q->seq == UINT32_MAX, 0))
		event_queue_renumber(q);
	uint32_t seq = q->seq++;
	int64_t b;
	if (evq_bucket_of(t, &b)) {
		if (q->rh < q->rn && b <= q->open) {
			/* into the run: at its end when no later than its last */
			if (q->run[q->rn - 1].t <= t && q->rn < q->cap)
				q->run[q->rn++] = (struct event){t, seq, warp};
			else
				event_queue_run_insert(q, (struct event){t, seq, warp});
			return;
		}
		/* (one unsigned compare for base <= b < base + EVQ_BUCKETS) */
		if ((uint64_t)(b - q->base) < EVQ_BUCKETS) {
			uint32_t pos = (uint32_t)b & (EVQ_BUCKETS - 1);
			struct evq_node *n = &q->node[warp];
			n->t = t;
			n->seq = seq;
			n->next = q->bucket[pos];
			q->bucket[pos] = warp + 1;
			if (!n->next) {
				q->nonempty[pos >> 6] |= 1ull << (pos & 63);
				if (!q->n_list || b < q->front)
					q->front = b;
			}
			q->n_list++;
			return;
		}
	}
	event_heap_insert(&q->far, (struct event){t, seq, warp});
}

static inline uint32_t event_queue_pop(struct event_queue *q, double *t)
{
	if (evq_run_ready(q)) {
		const struct event *r = &q->run[q->rh];
		if (event_heap_empty(&q->far) || evq_before(r, &q->far.h[0])) {
			q->rh++;
			*t = r->t;
			return r->warp;
		}
	}
	uint32_t w = event_heap_pop(&q->far, t);
	int64_t b;
	if (evq_bucket_of(*t, &b) && b > q->base)
		q->base = b;
	return w;
}

#endif
