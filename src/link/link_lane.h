/* One direction of the host link as a list of busy intervals: every
 * transfer, whoever sends it (a zero-copy TLP, a page migration, a
 * write-back, the remote read of a delayed migration), books the first
 * gap from its own time on that fits it. Requests come in the order the
 * simulator handles them, not in time order; a single free time would
 * make a request for a later time hold back every earlier one handled
 * after it. Throughput stays exactly one lane's.
 *
 * Contract: owned by the host link (link.h); the UVM driver books its
 * transfers on it through the lanes the system builder hands it
 * (uvm_hooks.lanes), the zero-copy path through link_zero_copy. */
#ifndef GPUVM_LINK_LINK_LANE_H
#define GPUVM_LINK_LINK_LANE_H

#include <stdbool.h>
#include <stdint.h>

/* intervals kept at most; beyond, the older half is forgotten (counted as
 * busy up to the floor) */
#define LINK_LANE_INTERVALS 4096

struct link_interval {
	double s, e;
};

struct link_lane {
	struct link_interval *iv; /* busy intervals, sorted, disjoint */
	uint32_t n, cap;
	double floor; /* everything before it counts as busy */
};

/* Books hold cycles from t on; returns the start. Out of memory: *oom set
 * and the start of the gap returned (nothing booked). */
double link_lane_book(struct link_lane *l, double t, double hold, bool *oom);
void link_lane_free(struct link_lane *l);

/* The end of the last booked interval (0: none). */
static inline double link_lane_last_end(const struct link_lane *l)
{
	return l->n ? l->iv[l->n - 1].e : 0;
}

#endif
