/* A host-link lane shared by packets and bulk transfers (link_lane.h
 * holds the contract). The bulk side is the UVM driver's interval lane
 * (uvm.c lane_book until gpuvm 092df93), moved here unchanged. */
#include "link/link_lane.h"

#include <stdlib.h>
#include <string.h>

int link_lane_init(struct link_lane *l)
{
	memset(l, 0, sizeof *l);
	return server_pool_init(&l->pkt, 1, LINK_LANE_SLOT_CYCLES, LINK_LANE_SLOTS);
}

void link_lane_free(struct link_lane *l)
{
	server_pool_free(&l->pkt);
	free(l->iv);
	l->iv = NULL;
	l->n = l->cap = 0;
}

/* The first bulk interval ending after t (l->n: none). */
static uint32_t first_ending_after(const struct link_lane *l, double t)
{
	uint32_t lo = 0, hi = l->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (l->iv[mid].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

double link_lane_packet_slow(struct link_lane *l, double t, double hold)
{
	for (;;) {
		int64_t slot;
		double s = server_pool_start_at(&l->pkt, t, &slot);
		uint32_t i = first_ending_after(l, s);
		if (i < l->n && l->iv[i].s <= s) {
			/* inside a bulk transfer: after it */
			t = l->iv[i].e;
			continue;
		}
		server_pool_consume_at(&l->pkt, slot, s, hold);
		return s;
	}
}

/* Lane time packets have taken of [s, e): each slot's use, in the share
 * of the slot the window covers, within the slots the calendar keeps. */
static double packet_time(const struct link_lane *l, double s, double e)
{
	const struct server_pool *p = &l->pkt;
	int64_t first = (int64_t)(s * p->spec.inv_slot), last = (int64_t)(e * p->spec.inv_slot);
	if (first < p->newest - (int64_t)p->spec.mask)
		first = p->newest - (int64_t)p->spec.mask;
	if (last > p->newest)
		last = p->newest;
	double sum = 0;
	for (int64_t k = first; k <= last; k++) {
		const struct pool_slot *slot = &p->slot[(uint32_t)k & p->spec.mask];
		if (slot->tag != k || slot->used <= 0)
			continue;
		double lo = (double)k * p->spec.slot_cycles, hi = lo + p->spec.slot_cycles;
		double cover = (e < hi ? e : hi) - (s > lo ? s : lo);
		if (cover <= 0)
			continue;
		double used = slot->used < p->spec.slot_cycles ? slot->used : p->spec.slot_cycles;
		sum += used * cover * p->spec.inv_slot;
	}
	return sum;
}

/* The first gap of the bulk intervals from t on that holds `hold`; *at
 * receives the index the new interval goes to. */
static double gap(const struct link_lane *l, double t, double hold, uint32_t *at)
{
	if (t < l->floor)
		t = l->floor; /* older than what is kept: as busy up to floor */
	double start = t;
	uint32_t i = first_ending_after(l, t);
	while (i < l->n && l->iv[i].s < start + hold) {
		if (l->iv[i].e > start)
			start = l->iv[i].e;
		i++;
	}
	*at = i;
	return start;
}

double link_lane_bulk(struct link_lane *l, double t, double *hold_io, bool *oom)
{
	double own = *hold_io, hold = own;
	uint32_t i;
	double start = gap(l, t, hold, &i);
	/* the packets already booked inside it lengthen it (their lane time is
	 * taken); a few rounds settle it: the window only grows */
	for (int round = 0; l->pkt_any && round < 8; round++) {
		double need = own + packet_time(l, start, start + hold);
		if (need <= hold)
			break;
		hold = need;
		start = gap(l, t, hold, &i);
	}
	*hold_io = hold;
	double end = start + hold;
	bool join_prev = i > 0 && l->iv[i - 1].e >= start;
	bool join_next = i < l->n && l->iv[i].s <= end;
	if (join_prev && join_next) {
		l->iv[i - 1].e = l->iv[i].e;
		memmove(&l->iv[i], &l->iv[i + 1], (l->n - i - 1) * sizeof *l->iv);
		l->n--;
	} else if (join_prev) {
		l->iv[i - 1].e = end;
	} else if (join_next) {
		l->iv[i].s = start;
	} else {
		if (l->n == l->cap) {
			if (l->cap >= LINK_LANE_INTERVALS) { /* keep the newer half */
				uint32_t k = l->n / 2;
				l->floor = l->iv[k - 1].e;
				memmove(l->iv, &l->iv[k], (l->n - k) * sizeof *l->iv);
				l->n -= k;
				if (i < k) { /* its gap is gone: after the floor instead */
					*hold_io = own;
					return link_lane_bulk(l, l->floor, hold_io, oom);
				}
				i -= k;
			} else {
				uint32_t cap = l->cap ? 2 * l->cap : 64;
				struct link_interval *p = realloc(l->iv, cap * sizeof *p);
				if (!p) {
					*oom = true;
					return start;
				}
				l->iv = p;
				l->cap = cap;
			}
		}
		memmove(&l->iv[i + 1], &l->iv[i], (l->n - i) * sizeof *l->iv);
		l->iv[i] = (struct link_interval){start, end};
		l->n++;
	}
	return start;
}
