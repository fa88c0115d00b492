/* The far-fault MSHR calendar without slot walks: see long_pool.h. Each
 * function below is the server_pool.c function of the same role, with
 * every ring-entry access going through slot_used(), which first adds
 * the pending whole-slot holds. */
#include "mem/long_pool.h"

#include "core/spec_seal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Live holds covering absolute slot s: those with a <= s <= b, counted
 * over the heap's array, and in *until the first slot after s whose
 * count may differ: the count changes only where a hold begins (a) or
 * has ended (b + 1), or where s leaves the window answered in. A
 * far-fault pool keeps a few dozen holds live (about 60 on a managed
 * 125 % run of 16 MSHRs per SM), and its slots are asked for again and
 * again between two changes of the holds (the full-slot walk of
 * long_pool_start steps through them one by one): the count of the last
 * range is kept, and a scan is made once per range, not once per slot.
 * No hold reaches past newest (a request may arrive long after), which
 * does not move while a walk runs; the bounds below are those the
 * earlier Fenwick tree's window had, kept so the answer is the same in
 * every case: a live hold's points lie in [newest - 3 x ring,
 * newest + 1] (a hold leaves once it ends before the ring's oldest slot,
 * and began at most a ring before its end; newest moves at most ring +
 * 8 slots between drops, or jumps at the end of a call). A kept range
 * ends at or before the newest it was counted under, so a later,
 * larger newest leaves it true; a larger window floor is tested. */
static int64_t covering_until(struct long_pool *p, int64_t s, int64_t *until)
{
	int64_t lo = p->newest - 4 * ((int64_t)p->spec.mask + 1);
	if (!p->hold_n || s > p->newest) {
		*until = INT64_MAX;
		return 0;
	}
	if (s < lo) {
		*until = lo;
		return 0;
	}
	if (p->count_ok && s >= p->count_from && s < p->count_until) {
		*until = p->count_until;
		return p->count;
	}
	int64_t c = 0, next = p->newest + 1;
	const struct long_pool_hold *h = p->hold;
	for (uint32_t i = 0; i < p->hold_n; i++) {
		if (h[i].a <= s && s <= h[i].b) {
			c++;
			if (h[i].b + 1 < next)
				next = h[i].b + 1;
		} else if (h[i].a > s && h[i].a < next) {
			next = h[i].a;
		}
	}
	p->count_ok = 1;
	p->count_from = s;
	p->count_until = next;
	p->count = c;
	*until = next;
	return c;
}

static int64_t covering(struct long_pool *p, int64_t s)
{
	int64_t until;
	return covering_until(p, s, &until);
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
	int64_t oldest = p->newest - (int64_t)p->spec.mask;
	while (p->hold_n && p->hold[0].b < oldest) {
		p->hold[0] = p->hold[--p->hold_n];
		heap_down(p, 0);
		p->count_ok = 0;
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
	p->count_ok = 0;
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
	p->spec = server_pool_spec_make(servers, slot_cycles, ring_slots);
	p->spec_seal = spec_seal(&p->spec, sizeof p->spec);
	p->slot = malloc(ring_slots * sizeof *p->slot);
	if (!p->slot) {
		long_pool_free(p);
		return -1;
	}
	for (uint32_t i = 0; i < ring_slots; i++)
		p->slot[i] = (struct long_pool_slot){.tag = -1};
	return 0;
}

bool long_pool_spec_intact(const struct long_pool *p)
{
	return p->spec_seal == spec_seal(&p->spec, sizeof p->spec);
}

void long_pool_free(struct long_pool *p)
{
	spec_seal_verify(p->spec_seal, spec_seal(&p->spec, sizeof p->spec), "long_pool");
	free(p->slot);
	free(p->hold);
	*p = (struct long_pool){0};
}

/* server_pool.c's slot_used: the ring entry of absolute slot s, recycled
 * when it held an older slot, with the holds covering s (c of them)
 * added. */
static double *slot_used_covered(struct long_pool *p, int64_t s, int64_t c)
{
	struct long_pool_slot *e = &p->slot[(uint32_t)s & p->spec.mask];
	if (e->tag != s) {
		e->tag = s;
		e->used = (double)c * p->spec.slot_cycles;
	} else {
		for (int64_t k = e->mark; k < c; k++)
			e->used += p->spec.slot_cycles;
	}
	e->mark = c;
	return &e->used;
}

static double *slot_used(struct long_pool *p, int64_t s)
{
	return slot_used_covered(p, s, covering(p, s));
}

double long_pool_start(struct long_pool *p, double t)
{
	holds_drop_old(p);
	/* server_pool_start_at's fast paths give what this slow path gives */
	int64_t s = (int64_t)(t * p->spec.inv_slot);
	int64_t oldest = p->newest - (int64_t)p->spec.mask;
	if (s < oldest) {
		s = oldest;
		t = (double)s * p->spec.slot_cycles;
	}
	if (*slot_used(p, s) >= p->spec.capacity) {
		if (s < p->frontier)
			s = p->frontier;
		/* while (*slot_used(p, s) >= capacity) s++, the covering
		 * counts taken once per change. Where c holds alone fill a
		 * slot, every slot up to the next change is full (an entry's
		 * used is at least c x slot_cycles: it only ever adds, and
		 * rounding a sum of non-negative terms never falls below the
		 * exact sum of its whole-slot part), so the walk jumps there
		 * without writing their entries: an entry it would have
		 * written gets the same value when next read (c x slot_cycles
		 * fresh, or the same whole-slot adds one by one), and the
		 * slot a ring below it that the write would have recycled is
		 * older than the ring, never read again. */
		int64_t until = s, c = 0;
		for (;; s++) {
			if (s >= until) {
				c = covering_until(p, s, &until);
				if ((double)c * p->spec.slot_cycles >= p->spec.capacity) {
					s = until - 1;
					continue;
				}
			}
			if (*slot_used_covered(p, s, c) < p->spec.capacity)
				break;
		}
		p->frontier = s;
	}
	if (s > p->newest)
		p->newest = s;
	double slot_start = (double)s * p->spec.slot_cycles;
	return t > slot_start ? t : slot_start;
}

static void consume_long(struct long_pool *p, double start, double hold);

/* server_pool_consume and server_pool_consume_slow */
static void consume(struct long_pool *p, double start, double hold)
{
	int64_t s = (int64_t)(start * p->spec.inv_slot);
	/* the inline fast path: a different rounding of the fit test; it
	 * takes a slot the walk would have left holding s (touched, or
	 * covered by a hold), the covering count taken once for both */
	if (s >= p->newest - (int64_t)p->spec.mask && s <= p->newest &&
	    start + hold <= (double)(s + 1) * p->spec.slot_cycles) {
		int64_t c = covering(p, s);
		if (p->slot[(uint32_t)s & p->spec.mask].tag == s || c > 0) {
			*slot_used_covered(p, s, c) += hold;
			return;
		}
	}
	int64_t oldest = p->newest - (int64_t)p->spec.mask;
	if (s < oldest) {
		s = oldest;
		start = (double)s * p->spec.slot_cycles;
	}
	if (hold > (double)(p->spec.mask + 8) * p->spec.slot_cycles) {
		consume_long(p, start, hold);
		return;
	}
	int64_t until = s, c = 0;
	for (;;) {
		double end = (double)(s + 1) * p->spec.slot_cycles;
		double take = end - start;
		if (s >= until)
			c = covering_until(p, s, &until);
		double *u = slot_used_covered(p, s, c);
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
	int64_t s = (int64_t)(start * p->spec.inv_slot);
	if (s < p->newest - (int64_t)p->spec.mask || hold <= 4 * p->spec.slot_cycles) {
		consume(p, start, hold);
		return;
	}
	double end = (double)(s + 1) * p->spec.slot_cycles;
	*slot_used(p, s) += end - start;
	hold -= end - start;
	s++;
	int64_t skip = (int64_t)(hold * p->spec.inv_slot) - 3 - (int64_t)p->spec.mask;
	if (skip > 0) {
		s += skip;
		hold -= (double)skip * p->spec.slot_cycles;
	}
	/* The walk `while (hold > slot_cycles) take a whole slot` runs n
	 * times; hold / slot_cycles is exact (a power of two), and so is
	 * hold - n x slot_cycles (an integer multiple of slot_cycles off a
	 * larger double). */
	double q = floor(hold * p->spec.inv_slot);
	int64_t n = (int64_t)q - (hold == q * p->spec.slot_cycles ? 1 : 0);
	if (n > 0) {
		hold -= (double)n * p->spec.slot_cycles;
		int64_t fin = s + n, a = s;
		/* slots the walk wrote that its own later slots push out of
		 * the ring: never read again */
		if (a < fin - (int64_t)p->spec.mask)
			a = fin - (int64_t)p->spec.mask;
		if (holds_push(p, a, fin - 1))
			p->oom = 1; /* the hold is lost; the caller fails the run */
		s = fin;
	}
	if (s > p->newest) {
		p->newest = s;
		holds_drop_old(p); /* a hold moves newest by up to its length */
	}
	consume(p, (double)s * p->spec.slot_cycles, hold);
}

int long_pool_consume(struct long_pool *p, double start, double hold)
{
	holds_drop_old(p);
	consume_long(p, start, hold);
	return p->oom ? -1 : 0;
}
