/* Min-heap of warp events ordered by (time, sequence number). The
 * sequence number breaks ties in push order, so a run is deterministic.
 * Four-ary: half the levels of a binary heap, and a node's four children
 * share one host cache line. */
#ifndef GPUVM_EVENT_HEAP_H
#define GPUVM_EVENT_HEAP_H

#include <stdbool.h>
#include <stdint.h>

/* 16 bytes: four to a host cache line. */
struct event {
	double t;
	uint32_t seq;  /* push order; renumbered when it would wrap */
	uint32_t warp;
};

struct event_heap {
	struct event *h; /* [cap + 4]: the slots past the last event hold sentinels */
	uint32_t n, cap;
	uint32_t seq;
};

int event_heap_init(struct event_heap *q, uint32_t cap);
void event_heap_free(struct event_heap *q);
void event_heap_push(struct event_heap *q, double t, uint32_t warp);
uint32_t event_heap_pop(struct event_heap *q, double *t);
/* Adds an event whose sequence number the caller assigned (event_queue
 * numbers its calendar's and its heap's events from one counter). */
void event_heap_insert(struct event_heap *q, struct event ev);

static inline bool event_heap_empty(const struct event_heap *q) { return q->n == 0; }
static inline double event_heap_top_time(const struct event_heap *q) { return q->h[0].t; }
void event_heap_clear(struct event_heap *q);

/* Renumbers the events' sequence numbers 0..n-1 in (time, sequence) order,
 * which keeps every comparison's outcome. event_heap_push calls it before
 * the 32-bit counter would wrap; tests call it directly. */
void event_heap_renumber(struct event_heap *q);

#endif
