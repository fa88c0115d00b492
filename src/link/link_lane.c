/* Busy-interval lanes of the host link (link_lane.h holds the
 * contract); moved from the UVM driver's migration lanes (uvm.c), which
 * now book on these. */
#include "link/link_lane.h"

#include <stdlib.h>
#include <string.h>

double link_lane_book(struct link_lane *l, double t, double hold, bool *oom)
{
	if (t < l->floor)
		t = l->floor; /* older than what is kept: as busy up to floor */
	uint32_t lo = 0, hi = l->n; /* first interval ending after t */
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (l->iv[mid].e <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	double start = t;
	uint32_t i = lo;
	while (i < l->n && l->iv[i].s < start + hold) {
		if (l->iv[i].e > start)
			start = l->iv[i].e;
		i++;
	}
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
				if (i < k) /* its gap is gone: after the floor instead */
					return link_lane_book(l, l->floor, hold, oom);
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

void link_lane_free(struct link_lane *l)
{
	free(l->iv);
	l->iv = NULL;
	l->n = l->cap = 0;
}
