/* The host link as the UVM driver books it: one serial lane per direction
 * (host-to-device for migrations and remote reads, device-to-host for
 * write-backs and remote writes of pinned pages), the driver's migration
 * time (the host link's rates, link/link_rate.h, or uvm.migration_gb_s)
 * and the lanes' utilisation series.
 *
 * Owns: struct uvm's h2d/d2h lanes, last_lane_start, the utilisation
 * bins and the transfer counters of gpuvm_uvm_stats. May call: the host
 * link's lane calendar (link/link_lane.h: link_lane_bulk, on the lanes
 * the system builder hands the driver, uvm_hooks.lanes) and its rates
 * (link/link_rate.h, gpuvm_uvm_transfer_seconds), libc and libm.
 * Guarantees: a lane never holds two
 * transfers at once (its busy intervals stay sorted and disjoint); a
 * transfer starts no earlier than asked; out of memory it sets u->oom
 * and still returns a time. The engine's zero-copy lanes and copy_stream
 * are separate models (issue 32: one link for all of them is the plan,
 * src/link/). */

#include "core/req_trace.h"
#include "uvm/uvm_impl.h"
#include "gpuvm/link_rate.h"
#include "link/link_rate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define UTIL_BINS 1024
#define UTIL_FIRST_BIN_CYCLES 1024.0

/* A migration's time on its lane. uvm.migration_gb_s, where set, is the
 * driver's own rate (pages the host wrote are DMA-mapped and moved by
 * the driver, slower than a pinned copy; docs/uvm.md): the flat model
 * moves at it, the curve takes it as its asymptote in place of
 * CURVE_A_PER_RAW x the link's raw rate. */
static double link_cycles(const struct uvm *u, uint64_t bytes)
{
	if (u->spec.migration_gb_s > 0) {
		double gb_s = u->spec.migration_gb_s;
		if (u->spec.curve)
			gb_s *= 2.0 / M_PI * link_curve_atan(bytes);
		return (double)bytes / (gb_s * 1e9) * u->spec.clock_hz;
	}
	return gpuvm_uvm_transfer_seconds(bytes, u->spec.bandwidth_gb_s, u->spec.curve) * u->spec.clock_hz;
}

double uvm_copy_cycles(const struct uvm *u, uint64_t bytes)
{
	return link_cycles(u, bytes);
}

/* Adds busy time [s, e) of a lane to the utilisation series; the bins
 * double in width whenever the run outgrows them. */
void uvm_util_add(struct uvm *u, bool h2d, double s, double e)
{
	struct gpuvm_uvm_stats *st = u->st;
	if (!st->util_h2d_busy_cycles) {
		st->util_h2d_busy_cycles = calloc(UTIL_BINS, sizeof(double));
		st->util_d2h_busy_cycles = calloc(UTIL_BINS, sizeof(double));
		if (!st->util_h2d_busy_cycles || !st->util_d2h_busy_cycles) {
			u->oom = true;
			return;
		}
		st->util_bins = UTIL_BINS;
		st->util_bin_cycles = UTIL_FIRST_BIN_CYCLES;
	}
	while (e > st->util_bin_cycles * UTIL_BINS) {
		for (uint32_t i = 0; i < UTIL_BINS / 2; i++) {
			st->util_h2d_busy_cycles[i] = st->util_h2d_busy_cycles[2 * i] + st->util_h2d_busy_cycles[2 * i + 1];
			st->util_d2h_busy_cycles[i] = st->util_d2h_busy_cycles[2 * i] + st->util_d2h_busy_cycles[2 * i + 1];
		}
		for (uint32_t i = UTIL_BINS / 2; i < UTIL_BINS; i++)
			st->util_h2d_busy_cycles[i] = st->util_d2h_busy_cycles[i] = 0;
		st->util_bin_cycles *= 2;
	}
	double *bins = h2d ? st->util_h2d_busy_cycles : st->util_d2h_busy_cycles;
	double w = st->util_bin_cycles;
	for (uint32_t i = (uint32_t)(s / w); i < UTIL_BINS && i * w < e; i++) {
		double lo = fmax(s, i * w), hi = fmin(e, (i + 1) * w);
		if (hi > lo)
			bins[i] += hi - lo;
	}
}

/* Transfers book the host link's lanes (link/link_lane.h): the first gap
 * from their own time that fits, lengthened by the zero-copy packets
 * booked inside it; *hold becomes the lane time taken. */
double uvm_lane_book(struct uvm *u, struct link_lane *l, double t, double *hold)
{
	REQ_TRACE_DOWN("link", "link_lane_bulk");
	double start = link_lane_bulk(l, t, hold, &u->oom);
	REQ_TRACE_UP("link", "link_lane_bulk");
	return start;
}

/* One transfer on a serial lane, not before t; returns its end. */
double uvm_lane_transfer(struct uvm *u, bool h2d, double t, uint64_t bytes)
{
	double hold = link_cycles(u, bytes);
	double s = uvm_lane_book(u, h2d ? u->h2d : u->d2h, t, &hold);
	double e = s + hold;
	u->last_lane_start = s;
	uvm_util_add(u, h2d, s, e);
	if (h2d) {
		u->st->transfers_h2d++;
		u->st->bytes_h2d += bytes;
	} else {
		u->st->transfers_d2h++;
		u->st->bytes_d2h += bytes;
	}
	return e;
}

double uvm_peer_transfer(struct uvm *u, uint32_t src, double t, uint64_t bytes)
{
	struct uvm_shared *sh = u->shared;
	double e = sh->peer_copy(sh->ctx, src, u->proc, t / u->spec.clock_hz, bytes) * u->spec.clock_hz;
	u->last_lane_start = t;
	sh->peer_pages += bytes >> UVM_PAGE_SHIFT;
	sh->peer_transfers++;
	return e > t ? e : t;
}

double uvm_peer_remote(struct uvm *u, uint32_t peer, bool write, double t, uint64_t bytes)
{
	struct uvm_shared *sh = u->shared;
	double e = (write ? sh->peer_copy(sh->ctx, u->proc, peer, t / u->spec.clock_hz, bytes)
			  : sh->peer_copy(sh->ctx, peer, u->proc, t / u->spec.clock_hz, bytes)) *
		   u->spec.clock_hz;
	sh->peer_remote_bytes += bytes;
	return e > t ? e : t;
}
