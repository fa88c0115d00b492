/* A server pool for holds far longer than its calendar slots: the
 * far-fault MSHRs, held 10^4-10^6 cycles (5-500 slots of 2048 cycles)
 * while a migration queues behind a saturated PCIe lane.
 *
 * Same calendar and same results, bit for bit, as server_pool_start and
 * server_pool_consume_long (mem/server_pool.h), but a hold does not walk
 * the slots it covers: the whole slots of a hold are kept as an interval
 * [a, b] (a min-heap on b of the holds that may still cover a kept
 * slot), and a slot's ring entry takes its holds' server time when it is
 * next read or written. What the slot walk did, in the order it did it:
 *  - a whole slot of a hold adds slot_cycles to the slot, after resetting
 *    a ring entry that held an older slot;
 *  - so a slot's entry, when next touched, first takes the whole-slot
 *    adds of the holds issued since it was last touched, one by one as
 *    the walk made them (equal additions, so their order among
 *    themselves does not matter), or, for an entry that held an older
 *    slot, starts at covering holds x slot_cycles (sums of integers, exact);
 *  - the first slots of a hold longer than the ring, which the walk
 *    wrote and its later slots made older than the ring (never read
 *    again), are left out.
 * A hold costs O(log holds) instead of O(hold / slot_cycles); a slot's
 * count of the live holds covering it is a scan of the live intervals
 * (a few dozen on a far-fault pool), made once per range of slots with
 * the same count, and a walk over full slots skips a range the holds
 * alone fill. Why this is a pool of its own rather than a mode of
 * server_pool: mem/server_pool.h, "Why two pools". */
#ifndef GPUVM_LONG_POOL_H
#define GPUVM_LONG_POOL_H

#include "mem/server_pool.h"

#include <stdbool.h>
#include <stdint.h>

struct long_pool_slot {
	int64_t tag;  /* absolute slot this ring entry holds, -1 = none */
	double used;  /* server time consumed in it */
	int64_t mark; /* holds covering it already added to used */
};

struct long_pool_hold {
	int64_t a, b; /* whole slots [a, b] */
};

struct long_pool {
	/* the same calendar as server_pool's, so the same spec: set once by
	 * long_pool_init, never written by a request */
	struct server_pool_spec spec;
	int64_t newest, frontier;
	struct long_pool_slot *slot; /* [ring] */
	struct long_pool_hold *hold; /* min-heap on b of holds that may cover a kept slot */
	uint32_t hold_n, hold_cap;
	/* the last covering count taken: c holds cover every slot of
	 * [from, until) while the holds stay as they are (cleared when a
	 * hold is added or dropped) */
	int64_t count_from, count_until, count;
	int count_ok;
	int oom;
	uint64_t spec_seal; /* core/spec_seal.h, taken at init */
};

/* servers, slot_cycles (a power of two) and ring_slots (a power of two)
 * as for server_pool_init. */
int long_pool_init(struct long_pool *p, double servers, double slot_cycles, uint32_t ring_slots);
void long_pool_free(struct long_pool *p);
/* = server_pool_spec_intact */
bool long_pool_spec_intact(const struct long_pool *p);

/* = server_pool_start */
double long_pool_start(struct long_pool *p, double t);
/* = server_pool_consume_long; -1 when out of memory (a few KB per pool) */
int long_pool_consume(struct long_pool *p, double start, double hold);

#endif
