/* The far-fault MSHR calendar without slot walks: see long_pool.h. Each
 * function below is the server_pool.c function of the same role, with
 * every ring-entry access going through slot_used(), which first adds
 * the pending whole-slot holds. */
#include "mem/long_pool.h"

#include <math.h>
#include <stdlib.h>

/* ---- Fenwick trees over absolute slots modulo wmask + 1 --------------- */

static void fw_add(int32_t *f, uint32_t n, uint32_t i, int32_t v)
{
	for (i++; i <= n; i += i & -i)
		f[i - 1] += v;
}

static int64_t fw_prefix(const int32_t *f, uint32_t i) /* positions [0, i] */
{
	int64_t s = 0;
	for (i++; i; i -= i & -i)
		s += f[i - 1];
	return s;
}

/* Live holds covering absolute slot s: the tree holds +1 at each live
 * hold's first slot a and -1 past its last, b + 1, so the sum over
 * absolute slots up to s counts them. Every live hold's points lie in
 * [newest - 3 x ring, newest + 1] (a hold leaves once it ends before the
 * ring's oldest slot, and began at most a ring before its end; newest
 * moves at most ring + 8 slots between drops, or jumps at the end of a
 * call), and s is at most newest, so the sum over [newest - 4 x ring, s]
 * counts them all, and the points outside it are at other positions of
 * the tree.
 * That sum is prefix(s) - prefix(lo - 1) whether or not the range wraps
 * around the tree, as all points sum to zero. */
static int64_t covering(const struct long_pool *p, int64_t s)
{
	/* no hold reaches past newest (a request may arrive long after) */
	if (!p->hold_n || s > p->newest)
		return 0;
	int64_t lo = p->newest - 4 * ((int64_t)p->mask + 1);
	if (s < lo)
		return 0;
	uint32_t l = (uint32_t)lo & p->wmask, h = (uint32_t)s & p->wmask;
	return fw_prefix(p->fw, h) - (l ? fw_prefix(p->fw, l - 1) : 0);
}

/* +v at tree position i, in the tree and in the plain points */
static void point_add(struct long_pool *p, uint32_t i, int32_t v)
{
	fw_add(p->fw, p->wmask + 1, i, v);
	p->point[i] += v;
}

/* covering(p, s + 1) given c = covering(p, s), for a scan of
 * consecutive slots (nothing changes the holds or newest meanwhile): the
 * sum over [lo, s + 1] is the one over [lo, s] plus the point at s + 1. */
static int64_t covering_next(const struct long_pool *p, int64_t s, int64_t c)
{
	int64_t lo = p->newest - 4 * ((int64_t)p->mask + 1);
	if (!p->hold_n || s + 1 > p->newest || s + 1 < lo)
		return 0;
	if (s + 1 == lo)
		return covering(p, s + 1);
	return c + p->point[(uint32_t)(s + 1) & p->wmask];
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
 * slot that can still be read, and dropping them keeps the live ones'
 * points within [newest - 2 x ring, newest + 1]. Run whenever newest
 * may have moved far. */
static void holds_drop_old(struct long_pool *p)
{
	int64_t oldest = p->newest - (int64_t)p->mask;
	while (p->hold_n && p->hold[0].b < oldest) {
		struct long_pool_hold *h = &p->hold[0];
		point_add(p, (uint32_t)h->a & p->wmask, -1);
		point_add(p, (uint32_t)(h->b + 1) & p->wmask, 1);
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
	point_add(p, (uint32_t)a & p->wmask, 1);
	point_add(p, (uint32_t)(b + 1) & p->wmask, -1);
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
	p->wmask = 8 * ring_slots - 1;
	p->slot = malloc(ring_slots * sizeof *p->slot);
	p->fw = calloc(p->wmask + 1, sizeof *p->fw);
	p->point = calloc(p->wmask + 1, sizeof *p->point);
	if (!p->slot || !p->fw || !p->point) {
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
	free(p->fw);
	free(p->point);
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
		for (int64_t c = covering(p, s); *slot_used_covered(p, s, c) >= p->capacity; s++)
			c = covering_next(p, s, c);
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
