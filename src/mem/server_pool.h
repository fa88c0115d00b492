/* A pool of k identical servers (MSHRs, page walkers, a DRAM or PCIe
 * channel): requests wait when it is saturated, so contention shows up as
 * waiting.
 *
 * Requests reach a pool somewhat out of time order (the engine handles
 * warps in issue order; a request's arrival is later by whatever it went
 * through first), so the pool is a capacity calendar rather than a list of
 * per-server free times: time is cut into slots of slot_cycles, each with
 * k x slot_cycles of server time. A request arriving at t starts in the
 * first slot from t on that has capacity left, and holds one server from
 * then on, through as many slots as its hold time covers. Early requests
 * handled late still find the capacity of their own time, and the pool's
 * throughput is exactly k servers'. The ring keeps the last ring_slots
 * slots; anything older is treated as arriving at the oldest kept slot.
 * Entries are cleared as the newest slot advances over them, so a slot in
 * the window is always its own entry and lookups need no tag. */
#ifndef GPUVM_SERVER_POOL_H
#define GPUVM_SERVER_POOL_H

#include <stdint.h>

struct server_pool {
	double slot_cycles, inv_slot, capacity; /* capacity = servers x slot_cycles */
	uint32_t mask;
	int64_t newest;   /* latest slot touched; the window is [newest - mask, newest] */
	int64_t frontier; /* first slot the last saturated scan found open */
	double *used;     /* [ring] server time consumed in each slot of the window */
};

/* servers: how many; slot_cycles: calendar resolution (a few times
 * smaller than typical hold times is right); ring_slots: power of two. */
int server_pool_init(struct server_pool *p, double servers, double slot_cycles,
		     uint32_t ring_slots);
void server_pool_free(struct server_pool *p);

/* Slow paths (saturated slot, stale ring entry, spill): server_pool.c. */
double server_pool_start_slow(struct server_pool *p, double t);
void server_pool_consume_slow(struct server_pool *p, double start, double hold);

/* When a request arriving at t can start. */
static inline double server_pool_start(struct server_pool *p, double t)
{
	int64_t s = (int64_t)(t * p->inv_slot);
	/* Common case: t's slot is in the window and has room. */
	if (s <= p->newest && s >= p->newest - (int64_t)p->mask &&
	    p->used[(uint32_t)s & p->mask] < p->capacity)
		return t;
	return server_pool_start_slow(p, t);
}

/* Consumes hold cycles of server time from the slot of start (a value
 * server_pool_start returned) on. Requests whose hold is only known after
 * they started (an MSHR held until the level below answers) call the two
 * halves separately; nothing else may use the pool in between. */
static inline void server_pool_consume(struct server_pool *p, double start, double hold)
{
	int64_t s = (int64_t)(start * p->inv_slot);
	/* Common case: a slot in the window, and the hold ends inside it. */
	if (s <= p->newest && s >= p->newest - (int64_t)p->mask &&
	    start + hold <= (double)(s + 1) * p->slot_cycles) {
		p->used[(uint32_t)s & p->mask] += hold;
		return;
	}
	server_pool_consume_slow(p, start, hold);
}

/* server_pool_consume for holds that may be far longer than the ring (far
 * faults queued behind long migrations): the same result, in time
 * proportional to the ring rather than to the hold. */
void server_pool_consume_long(struct server_pool *p, double start, double hold);

static inline double server_pool_reserve(struct server_pool *p, double t, double hold)
{
	double start = server_pool_start(p, t);
	server_pool_consume(p, start, hold);
	return start;
}

#endif
