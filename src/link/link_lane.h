/* One direction of the host link, the lane every host transfer books:
 * zero-copy packets (link.c), the UVM driver's migrations, write-backs
 * and remote reads (uvm_lane.c, through uvm_hooks.lanes) and synchronous
 * copies (link_copy).
 *
 * Requests reach the lane in the order the simulator handles them, not in
 * the order of their times (warps are handled in issue order, faults in
 * the order the driver meets them), so the lane is a calendar, not a
 * single free time: a request takes the earliest free capacity at or
 * after its own time, and the order of issue does not decide who waits.
 * A single free time (strict arrival order) would make a request handled
 * late but due early wait behind every request handled before it.
 *
 * Two kinds of request share the calendar:
 *  - packets (a zero-copy TLP, tens of wire bytes: a few cycles) are
 *    charged to a capacity calendar of 64-cycle slots (mem/server_pool.h):
 *    a packet starts at its own time in the first slot from there that has
 *    capacity left;
 *  - bulk transfers (a migration, a write-back, a remote read, a copy:
 *    thousands of cycles) keep exact busy intervals: a transfer takes the
 *    first gap from its own time on that fits it.
 * They contend both ways: a packet whose start falls inside a bulk
 * transfer waits for its end, and a bulk transfer's interval grows by the
 * lane time packets already booked inside it. Throughput stays one
 * lane's. A lane carrying one kind only books exactly as that kind's own
 * calendar did before the link was shared (gpuvm 092df93: zero-copy on
 * server_pool, migrations on the driver's intervals).
 *
 * Contract: owned by the host link (link.h) or, without one (the UVM
 * driver's unit tests), by the driver; touches only its own state. */
#ifndef GPUVM_LINK_LINK_LANE_H
#define GPUVM_LINK_LINK_LANE_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/server_pool.h"

/* bulk intervals kept at most; beyond, the older half is forgotten
 * (counted as busy up to the floor): far more than the transfers that
 * overlap the skew between fault times handled one after another */
#define LINK_LANE_INTERVALS 4096
/* the packet calendar: 64-cycle slots, 4096 of them keep 262 K cycles of
 * reordering (a packet holds a lane a few cycles) */
#define LINK_LANE_SLOT_CYCLES 64
#define LINK_LANE_SLOTS 4096

struct link_interval {
	double s, e;
};

struct link_lane {
	struct server_pool pkt;    /* packets' capacity calendar */
	bool pkt_any;              /* a packet has been booked */
	struct link_interval *iv;  /* bulk transfers' busy intervals, sorted, disjoint */
	uint32_t n, cap;
	double floor;              /* before it the bulk side counts as busy */
};

int link_lane_init(struct link_lane *l);
void link_lane_free(struct link_lane *l);

/* A packet with bulk transfers on the lane (link_lane.c). */
double link_lane_packet_slow(struct link_lane *l, double t, double hold);

/* Books a packet holding the lane hold cycles from t on; returns its
 * start. */
static inline double link_lane_packet(struct link_lane *l, double t, double hold)
{
	l->pkt_any = true;
	if (!l->n) /* no bulk transfer: the calendar alone */
		return server_pool_reserve(&l->pkt, t, hold);
	return link_lane_packet_slow(l, t, hold);
}

/* Books a bulk transfer of *hold cycles from t on; returns its start and
 * sets *hold to the lane time it spans (its own plus the packets' booked
 * inside it). Out of memory: *oom set and the start returned, nothing
 * booked. */
double link_lane_bulk(struct link_lane *l, double t, double *hold, bool *oom);

/* The end of the last bulk interval (0: none). */
static inline double link_lane_last_end(const struct link_lane *l)
{
	return l->n ? l->iv[l->n - 1].e : 0;
}

#endif
