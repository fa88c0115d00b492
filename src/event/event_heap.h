/* Min-heap of warp events ordered by (time, sequence number). The caller
 * numbers the events (event_queue, from the one counter it shares with its
 * calendar), so ties break in push order and a run is deterministic.
 * Four-ary: half the levels of a binary heap, and a node's four children
 * share one host cache line. */
#ifndef GPUVM_EVENT_HEAP_H
#define GPUVM_EVENT_HEAP_H

#include <stdbool.h>
#include <stdint.h>

/* 16 bytes: four to a host cache line. */
struct event {
	double t;
	uint32_t seq;  /* push order, assigned by the caller */
	uint32_t warp;
};

struct event_heap {
	struct event *h; /* [cap + 4]: the slots past the last event hold sentinels */
	uint32_t n, cap;
};

int event_heap_init(struct event_heap *q, uint32_t cap);
void event_heap_free(struct event_heap *q);
void event_heap_insert(struct event_heap *q, struct event ev);
uint32_t event_heap_pop(struct event_heap *q, double *t);

static inline bool event_heap_empty(const struct event_heap *q) { return q->n == 0; }
static inline double event_heap_top_time(const struct event_heap *q) { return q->h[0].t; }
void event_heap_clear(struct event_heap *q);

#endif
