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
 *
 * Why two pools (this one and mem/long_pool.h), not one with a parameter.
 * They are one calendar -- the same slots, capacity and rule for where a
 * request starts, and the same results bit for bit (test_long_pool runs
 * both over random mixes of short and long holds and compares every
 * start) -- kept in two representations because their holds cost the
 * opposite way round:
 *  - here a hold is added to each slot it covers when it is booked. The
 *    pools on the hot path (TLB MSHRs, walkers, DRAM and PCIe channels:
 *    a start and a consume per TLB miss or memory access, holds of one
 *    to a few slots) then cost a ring read and an add, inlined at the
 *    caller (server_pool_start_at, server_pool_consume_at);
 *  - long_pool books a hold as an interval of whole slots in a min-heap
 *    and adds it to a slot lazily, when the slot is next read. The
 *    far-fault MSHRs (uvm_fault.c: one start and one consume per far
 *    fault, holds of 5-500 slots of 2048 cycles behind a saturated PCIe
 *    lane) then cost O(log holds) a hold instead of a walk of up to a
 *    ring of slots (server_pool_consume_long).
 * Folding long_pool's intervals in here would put a heap check on every
 * slot read of the hot path; folding this walk into long_pool would make
 * every far fault walk its slots. A change to the calendar's rule is
 * made in both, and test_long_pool holds them to one another.
 *
 * Spec and state: struct server_pool_spec (slot length, its inverse,
 * capacity, ring mask; both pools') is set by init and never written by
 * a request, which writes only the ring, newest and frontier (and
 * long_pool's holds); init seals it (core/spec_seal.h) and free checks
 * the seal in checking builds. */
#ifndef GPUVM_SERVER_POOL_H
#define GPUVM_SERVER_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct pool_slot {
	int64_t tag;  /* absolute slot this ring entry holds, -1 = none */
	double used;  /* server time consumed in it */
};

/* A pool's spec: set once by server_pool_init (or long_pool_init, the
 * same calendar) and never written by a request; the rest of the pool is
 * its state. It sits first, where these fields sat before they were a
 * struct, so the hot path reads the same cache line. */
struct server_pool_spec {
	double slot_cycles, inv_slot, capacity; /* capacity = servers x slot_cycles */
	uint32_t mask; /* ring slots - 1 */
};

struct server_pool {
	struct server_pool_spec spec;
	int64_t newest;
	int64_t frontier; /* first slot the last saturated scan found open */
	struct pool_slot *slot; /* [ring] */
	uint64_t spec_seal; /* core/spec_seal.h, taken at init */
};

/* The spec of a pool of servers with calendar slots of slot_cycles and a
 * ring of ring_slots (padding cleared, for core/spec_seal.h). */
struct server_pool_spec server_pool_spec_make(double servers, double slot_cycles,
					      uint32_t ring_slots);

/* servers: how many; slot_cycles: calendar resolution (a few times
 * smaller than typical hold times is right); ring_slots: power of two. */
int server_pool_init(struct server_pool *p, double servers, double slot_cycles,
		     uint32_t ring_slots);
void server_pool_free(struct server_pool *p);
/* Whether p's spec is what init set (tests; checking builds check it in
 * server_pool_free). */
bool server_pool_spec_intact(const struct server_pool *p);

/* Whether the ring still keeps t's slot. A request older than that is
 * served as if it arrived at the oldest kept slot (right for MSHRs and
 * channels, whose queue it joins); a port whose contention matters only
 * among requests close in time can serve it at its own time instead, so
 * that one request booked far ahead (after a far fault) does not push the
 * present ones a ring's length into the future. */
static inline bool server_pool_keeps(const struct server_pool *p, double t)
{
	return (int64_t)(t * p->spec.inv_slot) >= p->newest - (int64_t)p->spec.mask;
}

/* Slow paths (saturated slot, stale ring entry, spill): server_pool.c. */
double server_pool_start_slow(struct server_pool *p, double t);
void server_pool_consume_slow(struct server_pool *p, double start, double hold);

/* When a request arriving at t can start; *slot receives the absolute
 * slot of the returned time, for server_pool_consume_at. */
static inline double server_pool_start_at(struct server_pool *p, double t, int64_t *slot)
{
	int64_t s = (int64_t)(t * p->spec.inv_slot);
	const struct pool_slot *e = &p->slot[(uint32_t)s & p->spec.mask];
	/* Common case: t's own slot is current and has room. */
	/* (one unsigned compare for newest - mask <= s <= newest) */
	if (e->tag == s && (uint64_t)(p->newest - s) <= p->spec.mask) {
		if (e->used < p->spec.capacity) {
			*slot = s;
			return t;
		}
		/* Saturated, as MSHRs behind a deep queue: the request waits
		 * for the slot the last scan found open, when that is still
		 * open (what server_pool_start_slow would find first). */
		if (s < p->frontier) {
			const struct pool_slot *f = &p->slot[(uint32_t)p->frontier & p->spec.mask];
			if (f->tag == p->frontier && f->used < p->spec.capacity) {
				if (p->frontier > p->newest)
					p->newest = p->frontier;
				*slot = p->frontier;
				/* t lies before the frontier's slot */
				return (double)p->frontier * p->spec.slot_cycles;
			}
		}
	}
	double start = server_pool_start_slow(p, t);
	*slot = (int64_t)(start * p->spec.inv_slot);
	return start;
}

static inline double server_pool_start(struct server_pool *p, double t)
{
	int64_t slot;
	return server_pool_start_at(p, t, &slot);
}

/* Consumes hold cycles of server time from the slot of start (a value
 * server_pool_start returned) on. Requests whose hold is only known after
 * they started (an MSHR held until the level below answers) call the two
 * halves separately; nothing else may use the pool in between. */
static inline void server_pool_consume(struct server_pool *p, double start, double hold)
{
	int64_t s = (int64_t)(start * p->spec.inv_slot);
	struct pool_slot *e = &p->slot[(uint32_t)s & p->spec.mask];
	/* Common case: current slot, and the hold ends inside it. */
	if (e->tag == s && s >= p->newest - (int64_t)p->spec.mask &&
	    start + hold <= (double)(s + 1) * p->spec.slot_cycles) {
		e->used += hold;
		return;
	}
	server_pool_consume_slow(p, start, hold);
}

/* server_pool_consume for holds that may be far longer than the ring (far
 * faults queued behind long migrations): the same result, in time
 * proportional to the ring rather than to the hold. */
void server_pool_consume_long(struct server_pool *p, double start, double hold);

/* server_pool_consume for a start just returned by server_pool_start_at
 * with its slot, the pool untouched since: that slot is current and in
 * the ring, so only whether the hold ends inside it is left to test. */
static inline void server_pool_consume_at(struct server_pool *p, int64_t slot, double start,
					  double hold)
{
	if (start + hold <= (double)(slot + 1) * p->spec.slot_cycles) {
		p->slot[(uint32_t)slot & p->spec.mask].used += hold;
		return;
	}
	server_pool_consume_slow(p, start, hold);
}

static inline double server_pool_reserve(struct server_pool *p, double t, double hold)
{
	int64_t slot;
	double start = server_pool_start_at(p, t, &slot);
	server_pool_consume_at(p, slot, start, hold);
	return start;
}

#endif
