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
 * slots; anything older is treated as arriving at the oldest kept slot. */
#ifndef GPUVM_SERVER_POOL_H
#define GPUVM_SERVER_POOL_H

#include <stdint.h>

struct server_pool {
	double slot_cycles, inv_slot, capacity; /* capacity = servers x slot_cycles */
	uint32_t mask;
	int64_t newest;
	int64_t frontier; /* first slot the last saturated scan found open */
	int64_t *tag;   /* [ring] absolute slot held by each ring entry */
	double *used;   /* [ring] server time consumed in that slot */
};

/* servers: how many; slot_cycles: calendar resolution (a few times
 * smaller than typical hold times is right); ring_slots: power of two. */
int server_pool_init(struct server_pool *p, double servers, double slot_cycles,
		     uint32_t ring_slots);
void server_pool_free(struct server_pool *p);

/* When a request arriving at t can start. */
double server_pool_start(struct server_pool *p, double t);

/* Consumes hold cycles of server time from the slot of start (a value
 * server_pool_start returned) on. Requests whose hold is only known after
 * they started (an MSHR held until the level below answers) call the two
 * halves separately; nothing else may use the pool in between. */
void server_pool_consume(struct server_pool *p, double start, double hold);

static inline double server_pool_reserve(struct server_pool *p, double t, double hold)
{
	double start = server_pool_start(p, t);
	server_pool_consume(p, start, hold);
	return start;
}

#endif
