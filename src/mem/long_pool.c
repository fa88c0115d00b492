/* The far-fault MSHR calendar without slot walks: see long_pool.h. Each
 * function below is the server_pool.c function of the same role, with
 * every ring-entry access going through slot_used(), which first adds
 * the pending whole-slot holds. */
#include "mem/long_pool.h"

#include <math.h>
#include <stdlib.h>

/* Live holds covering absolute slot s: those with a <= s <= b, counted
 * over the heap's array. A far-fault pool keeps a few of them live (7 on
 * average, 92 at most, on a managed 125 % run of 16 MSHRs per SM), so
 * the scan reads one or two host cache lines, where a tree over the
 * ring's slots read and wrote ~100 KB per SM. No hold reaches past
 * newest (a request may arrive long after); the bounds below are those
 * the earlier Fenwick tree's window had, kept so the answer is the same
 * in every case: a live hold's points lie in [newest - 3 x ring,
 * newest + 1] (a hold leaves once it ends before the ring's oldest slot,
 * and began at most a ring before its end; newest moves at most ring +
 * 8 slots between drops, or jumps at the end of a call). */
static int64_t covering(const struct long_pool *p, int64_t s)
{
	if (!p->hold_n || s > p->newest || s < p->newest - 4 * ((int64_t)p->mask + 1))
		return 0;
	int64_t c = 0;
	const struct long_pool_hold *h = p->hold;
	for (uint32_t i = 0; i < p->hold_n; i++)
		c += (h[i].a <= s) & (s <= h[i].b);
	return c;
}

/* The live holds are a binary min-heap on their last slot b. */
static void heap_down(struct long_pool *p, uint32_t i)
{
	struct long_pool_hold *h = p->hold;
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < p->hold_n && h[l].b < h[m].b)
			m = l;
		if (l + 1 < p->hold_n && h[l + 1].b < h[m].b)
			m = l + 1;
		if (m == i)
			return;
		struct long_pool_hold x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

/* Drops the holds that end before the ring's oldest slot: they cover no
 * slot that can still be read, and dropping them keeps the live ones
 * within [newest - 2 x ring, newest + 1] and their number small. Run
 * whenever newest may have moved far. */
static void holds_drop_old(struct long_pool *p)
{
	int64_t oldest = p->newest - (int64_t)p->mask;
	while (p->hold_n && p->hold[0].b < oldest) {
		p->hold[0] = p->hold[--p->hold_n];
		heap_down(p, 0);
	}
}

static int holds_push(struct long_pool *p, int64_t a, int64_t b)
{
	if (p->hold_n == p->hold_cap) {
		uint32_t cap = p->hold_cap ? 2 * p->hold_cap : 64;
		struct long_pool_hold *h = realloc(p->hold, cap * sizeof *h);
		if (!h)
			return -1;
		p->hold = h;
		p->hold_cap = cap;
	}
	uint32_t i = p->hold_n++;
	while (i && p->hold[(i - 1) / 2].b > b) {
		p->hold[i] = p->hold[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	p->hold[i] = (struct long_pool_hold){a, b};
	return 0;
}

int long_pool_init(struct long_pool *p, double servers, double slot_cycles, uint32_t ring_slots)
{
	int ex;
	if (frexp(slot_cycles, &ex) != 0.5 || !ring_slots || (ring_slots & (ring_slots - 1)))
		return -1; /* hold / slot_cycles must be exact */
	*p = (struct long_pool){0};
	p->slot_cycles = slot_cycles;
	p->inv_slot = 1.0 / slot_cycles;
	p->capacity = (servers > 0 ? servers : 1) * slot_cycles;
	p->mask = ring_slots - 1;
	p->slot = malloc(ring_slots * sizeof *p->slot);
	if (!p->slot) {
		long_pool_free(p);
		return -1;
	}
	for (uint32_t i = 0; i < ring_slots; i++)
		p->slot[i] = (struct long_pool_slot){.tag = -1};
	return 0;
}

void long_pool_free(struct long_pool *p)
{
	free(p->slot);
	free(p->hold);
	*p = (struct long_pool){0};
}

/* server_pool.c's slot_used: the ring entry of absolute slot s, recycled
 * when it held an older slot, with the holds covering s (c of them)
 * added. */
static double *slot_used_covered(struct long_pool *p, int64_t s, int64_t c)
{
	struct long_pool_slot *e = &p->slot[(uint32_t)s & p->mask];
	if (e->tag != s) {
		e->tag = s;
		e->used = (double)c * p->slot_cycles;
	} else {
		for (int64_t k = e->mark; k < c; k++)
			e->used += p->slot_cycles;
	}
	e->mark = c;
	return &e->used;
}

static double *slot_used(struct long_pool *p, int64_t s)
{
	return slot_used_covered(p, s, covering(p, s));
}

/* Whether the walk would have left s's entry holding s (server_pool's
 * fast paths test the tag): touched, or covered by a hold. */
static int holds_slot(const struct long_pool *p, int64_t s)
{
	return p->slot[(uint32_t)s & p->mask].tag == s || covering(p, s) > 0;
}

double long_pool_start(struct long_pool *p, double t)
{
	holds_drop_old(p);
	/* server_pool_start_at's fast paths give what this slow path gives */
	int64_t s = (int64_t)(t * p->inv_slot);
	int64_t oldest = p->newest - (int64_t)p->mask;
	if (s < oldest) {
		s = oldest;
		t = (double)s * p->slot_cycles;
	}
	if (*slot_used(p, s) >= p->capacity) {
		if (s < p->frontier)
			s = p->frontier;
		while (*slot_used(p, s) >= p->capacity)
			s++;
		p->frontier = s;
	}
	if (s > p->newest)
		p->newest = s;
	double slot_start = (double)s * p->slot_cycles;
	return t > slot_start ? t : slot_start;
}

static void consume_long(struct long_pool *p, double start, double hold);

/* server_pool_consume and server_pool_consume_slow */
static void consume(struct long_pool *p, double start, double hold)
{
	int64_t s = (int64_t)(start * p->inv_slot);
	/* the inline fast path: a different rounding of the fit test */
	if (s >= p->newest - (int64_t)p->mask && s <= p->newest && holds_slot(p, s) &&
	    start + hold <= (double)(s + 1) * p->slot_cycles) {
		*slot_used(p, s) += hold;
		return;
	}
	int64_t oldest = p->newest - (int64_t)p->mask;
	if (s < oldest) {
		s = oldest;
		start = (double)s * p->slot_cycles;
	}
	if (hold > (double)(p->mask + 8) * p->slot_cycles) {
		consume_long(p, start, hold);
		return;
	}
	for (;;) {
		double end = (double)(s + 1) * p->slot_cycles;
		double take = end - start;
		double *u = slot_used(p, s);
		if (hold <= take) {
			*u += hold;
			break;
		}
		*u += take;
		hold -= take;
		start = end;
		s++;
	}
	if (s > p->newest)
		p->newest = s;
}

/* server_pool_consume_long */
static void consume_long(struct long_pool *p, double start, double hold)
{
	int64_t s = (int64_t)(start * p->inv_slot);
	if (s < p->newest - (int64_t)p->mask || hold <= 4 * p->slot_cycles) {
		consume(p, start, hold);
		return;
	}
	double end = (double)(s + 1) * p->slot_cycles;
	*slot_used(p, s) += end - start;
	hold -= end - start;
	s++;
	int64_t skip = (int64_t)(hold * p->inv_slot) - 3 - (int64_t)p->mask;
	if (skip > 0) {
		s += skip;
		hold -= (double)skip * p->slot_cycles;
	}
	/* The walk `while (hold > slot_cycles) take a whole slot` runs n
	 * times; hold / slot_cycles is exact (a power of two), and so is
	 * hold - n x slot_cycles (an integer multiple of slot_cycles off a
	 * larger double). */
	double q = floor(hold * p->inv_slot);
	int64_t n = (int64_t)q - (hold == q * p->slot_cycles ? 1 : 0);
	if (n > 0) {
		hold -= (double)n * p->slot_cycles;
		int64_t fin = s + n, a = s;
		/* slots the walk wrote that its own later slots push out of
		 * the ring: never read again */
		if (a < fin - (int64_t)p->mask)
			a = fin - (int64_t)p->mask;
		if (holds_push(p, a, fin - 1))
			p->oom = 1; /* the hold is lost; the caller fails the run */
		s = fin;
	}
	if (s > p->newest) {
		p->newest = s;
		holds_drop_old(p); /* a hold moves newest by up to its length */
	}
	consume(p, (double)s * p->slot_cycles, hold);
}

int long_pool_consume(struct long_pool *p, double start, double hold)
{
	holds_drop_old(p);
	consume_long(p, start, hold);
	return p->oom ? -1 : 0;
}
