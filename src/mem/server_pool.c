#include "mem/server_pool.h"

#include "core/spec_seal.h"

#include <stdlib.h>
#include <string.h>

struct server_pool_spec server_pool_spec_make(double servers, double slot_cycles,
					      uint32_t ring_slots)
{
	struct server_pool_spec s;
	memset(&s, 0, sizeof s);
	s.slot_cycles = slot_cycles;
	s.inv_slot = 1.0 / slot_cycles;
	s.capacity = (servers > 0 ? servers : 1) * slot_cycles;
	s.mask = ring_slots - 1;
	return s;
}

int server_pool_init(struct server_pool *p, double servers, double slot_cycles,
		     uint32_t ring_slots)
{
	p->spec = server_pool_spec_make(servers, slot_cycles, ring_slots);
	p->spec_seal = spec_seal(&p->spec, sizeof p->spec);
	p->newest = 0;
	p->frontier = 0;
	p->slot = malloc(ring_slots * sizeof *p->slot);
	if (!p->slot)
		return -1;
	for (uint32_t i = 0; i < ring_slots; i++) {
		p->slot[i].tag = -1;
		p->slot[i].used = 0;
	}
	return 0;
}

bool server_pool_spec_intact(const struct server_pool *p)
{
	return p->spec_seal == spec_seal(&p->spec, sizeof p->spec);
}

void server_pool_free(struct server_pool *p)
{
	spec_seal_verify(p->spec_seal, spec_seal(&p->spec, sizeof p->spec), "server_pool");
	free(p->slot);
	p->slot = NULL;
}

/* Ring entry of absolute slot s, recycled when it last held an older slot. */
static inline double *slot_used(struct server_pool *p, int64_t s)
{
	struct pool_slot *e = &p->slot[(uint32_t)s & p->spec.mask];
	if (e->tag != s) {
		e->tag = s;
		e->used = 0;
	}
	return &e->used;
}

double server_pool_start_slow(struct server_pool *p, double t)
{
	int64_t s = (int64_t)(t * p->spec.inv_slot);
	int64_t oldest = p->newest - (int64_t)p->spec.mask;
	if (s < oldest) {
		s = oldest;
		t = (double)s * p->spec.slot_cycles;
	}
	if (*slot_used(p, s) >= p->spec.capacity) {
		/* A full slot: the queue runs at least to the frontier, the first
		 * slot the last scan found open, so skip there rather than walk
		 * a deep queue slot by slot. */
		if (s < p->frontier)
			s = p->frontier;
		while (*slot_used(p, s) >= p->spec.capacity)
			s++;
		p->frontier = s;
	}
	if (s > p->newest)
		p->newest = s;
	double slot_start = (double)s * p->spec.slot_cycles;
	return t > slot_start ? t : slot_start;
}

void server_pool_consume_slow(struct server_pool *p, double start, double hold)
{
	int64_t s = (int64_t)(start * p->spec.inv_slot);
	int64_t oldest = p->newest - (int64_t)p->spec.mask;
	if (s < oldest) {
		s = oldest;
		start = (double)s * p->spec.slot_cycles;
	}
	/* A hold longer than the ring (a slow link, a huge latency): the long
	 * form gives the same result in time bounded by the ring, not by the
	 * hold, so no accepted value makes one request cost more than that. */
	if (hold > (double)(p->spec.mask + 8) * p->spec.slot_cycles) {
		server_pool_consume_long(p, start, hold);
		return;
	}
	/* One server's time: at most the rest of each slot it overlaps. A slot
	 * may go over capacity; later arrivals then wait past it. */
	/* end advances by slot_cycles: exact, as (s + 1) * slot_cycles is for
	 * the integer slot_cycles of every pool and slots below 2^45 */
	double end = (double)(s + 1) * p->spec.slot_cycles;
	for (;;) {
		double take = end - start;
		double *u = slot_used(p, s);
		if (hold <= take) {
			*u += hold;
			break;
		}
		*u += take;
		hold -= take;
		start = end;
		end += p->spec.slot_cycles;
		s++;
	}
	if (s > p->newest)
		p->newest = s;
}

void server_pool_consume_long(struct server_pool *p, double start, double hold)
{
	int64_t s = (int64_t)(start * p->spec.inv_slot);
	if (s < p->newest - (int64_t)p->spec.mask || hold <= 4 * p->spec.slot_cycles) {
		server_pool_consume(p, start, hold);
		return;
	}
	/* After the first, partial slot, the full slots whose ring entries a
	 * later slot of the same hold rewrites are skipped, and the rest are
	 * taken whole. Same result as server_pool_consume: with integer
	 * slot_cycles (all pools here) each full slot's take is exactly
	 * slot_cycles, so the subtractions are exact. */
	double end = (double)(s + 1) * p->spec.slot_cycles;
	*slot_used(p, s) += end - start;
	hold -= end - start;
	s++;
	int64_t skip = (int64_t)(hold * p->spec.inv_slot) - 3 - (int64_t)p->spec.mask;
	if (skip > 0) {
		s += skip;
		hold -= (double)skip * p->spec.slot_cycles;
	}
	for (; hold > p->spec.slot_cycles; s++) {
		*slot_used(p, s) += p->spec.slot_cycles;
		hold -= p->spec.slot_cycles;
	}
	if (s > p->newest)
		p->newest = s;
	server_pool_consume(p, (double)s * p->spec.slot_cycles, hold);
}
