/* The UVM driver's internal interface: what its files (src/uvm/uvm*.c)
 * share with each other and with no one else. The public interface is
 * uvm.h; a policy module sees only uvm_page.h, evict.h, migrate.h,
 * prefetch.h and uvm_events.h.
 *
 * The driver is one component split by concept:
 *   uvm.c          setup, the block table, the residency summary for wide
 *                  TLB fills, end-of-run statistics, the page-state
 *                  invariants (numbered at its top) and uvm_check;
 *   uvm_lane.c     the host link as the driver books it: one serial lane
 *                  per direction, the transfer-size curve, utilisation;
 *   uvm_evict.c    frames: capacity, eviction, write-back, device sync,
 *                  cudaFree of a managed range;
 *   uvm_migrate.c  migration of a faulted page and its prefetch, copies in;
 *   uvm_fault.c    translation (far faults, batches, remote mappings) and
 *                  the per-access bookkeeping (uvm_access);
 *   uvm_page_state.c the page life cycle's checker (uvm_page_state.h:
 *                  states, transitions, uvm_pages_transition).
 * Every function here acts on the one struct uvm it is given and on the
 * blocks it owns; none keeps state of its own. */
#ifndef GPUVM_UVM_IMPL_H
#define GPUVM_UVM_IMPL_H

#include "uvm/uvm.h"
#include "uvm/uvm_page_state.h"

/* ---- uvm.c: blocks and the residency summary ---- */

static inline struct uvm_block *block_find(struct uvm *u, uint64_t bn)
{
	const struct uvm_map_entry *x = uvm_map_find(&u->blocks, bn);
	return x ? (struct uvm_block *)(uintptr_t)x->val : NULL;
}

static inline bool block_full(const struct uvm_block *b)
{
	return b->resident_count == (uint32_t)(b->end_page - b->first_page);
}

/* Managed pages of block bn: [*first, *end); false when none. *advise:
 * the hints of the allocations in it, -1 when they differ. */
bool uvm_managed_span(const struct uvm *u, uint64_t bn, uint32_t *first, uint32_t *end,
		      int *advise);
/* The block of addr, created (not resident) on first touch; NULL out of
 * memory. */
struct uvm_block *uvm_block_get(struct uvm *u, uint64_t addr);
/* Whether page p of b is managed (widens the block's span when another
 * allocation has come to share the block). */
bool uvm_block_covers(struct uvm *u, struct uvm_block *b, uint32_t p);
void uvm_groups_clear(struct uvm *u);
/* b's residency changed: its group's bit follows (invariant U10). */
void uvm_group_update(struct uvm *u, const struct uvm_block *b);
/* The not-fully-resident bits of group g (UINT64_MAX out of memory). */
uint64_t uvm_group_notok(struct uvm *u, uint64_t g);

/* ---- uvm_batch.c: the fault handler's batches ---- */

/* When a request arriving at tf is taken by the batched serial server s
 * whose batches take latency each (polled: Zheng's handler); counts a
 * new batch in *batches. */
double uvm_batch_take(struct uvm_batcher *s, double tf, double latency, bool polled,
		      uint32_t batch_max, uint64_t *batches);

/* ---- uvm_lane.c: the PCIe lanes ---- */

/* Adds busy time [s, e) of a lane to the utilisation series. */
void uvm_util_add(struct uvm *u, bool h2d, double s, double e);
/* Books *hold cycles on lane l in its first gap from t on, lengthened by
 * the packets booked inside it (*hold becomes the lane time taken);
 * returns the start. */
double uvm_lane_book(struct uvm *u, struct link_lane *l, double t, double *hold);
/* One transfer on a serial lane, not before t; returns its end. */
double uvm_lane_transfer(struct uvm *u, bool h2d, double t, uint64_t bytes);
/* Several GPUs: a migration of bytes from GPU processor src to this GPU,
 * ready at t, over the engine's GPU-GPU route (uvm_shared.peer_copy);
 * returns its end. */
double uvm_peer_transfer(struct uvm *u, uint32_t src, double t, uint64_t bytes);
/* Several GPUs, accessed-by: bytes read from (or written to, write) GPU
 * processor peer's memory in place, over the peer route, from t; returns
 * when done. */
double uvm_peer_remote(struct uvm *u, uint32_t peer, bool write, double t, uint64_t bytes);

/* ---- uvm_evict.c: frames ---- */

/* Device memory in pages (from uvm.oversub or the device's bytes). */
uint64_t uvm_capacity_pages(const struct uvm *u);
/* Makes room for k more pages at t; returns when the frames are free. */
double uvm_ensure_frames(struct uvm *u, uint32_t k, double t);

/* ---- uvm_alloc_lookup.c ---- */

/* The hints of page p of b's own allocation (a block of mixed hints). */
uint32_t uvm_alloc_advise(const struct uvm *u, const struct uvm_block *b, uint32_t p);
/* c2c.coherent: whether page p of b is system-allocated memory and, if so,
 * whether the host touched it first (*host). */
bool uvm_system_page(const struct uvm *u, const struct uvm_block *b, uint32_t p, bool *host);
/* Where a system-allocated page not resident on this GPU is. */
enum uvm_sys_where {
	UVM_SYS_UNPLACED, /* no processor touched it: the next touch places it */
	UVM_SYS_CPU,      /* in a Grace's memory (*who: its index) */
	UVM_SYS_GPU,      /* in another GPU's HBM (*who: its processor id; several GPUs) */
};
/* c2c.coherent: whether page p of b is system-allocated memory and, if so,
 * where it is (*where, *who): on one GPU from the driver's own record
 * (uvm_host_touch: the CPU's node 0), on several from the residency the
 * GPUs share (uvm_shared_placed). Asked of pages not resident here. */
bool uvm_system_where(const struct uvm *u, const struct uvm_block *b, uint32_t p,
		      enum uvm_sys_where *where, uint32_t *who);
/* Whether the host touched 4 KiB page q of r's allocation first (it is
 * mapped in CPU memory; uvm_host_touch). */
static inline bool uvm_range_host_touched(const struct uvm_range *r, uint64_t q)
{
	return r->host_touched && ((r->host_touched[q >> 6] >> (q & 63)) & 1);
}
/* c2c.coherent: the system-allocated allocation page p of b lies in, or
 * NULL. */
const struct uvm_range *uvm_system_range(const struct uvm *u, const struct uvm_block *b, uint32_t p);

/* ---- uvm_ats.c ---- */

/* The GPU's first touch of system page p of b was serviced at ready:
 * the driver's ATS prefetch places the untouched system pages its tree
 * selects around p in device memory at ready as well (nvidia-uvm
 * uvm_ats_faults.c ats_compute_prefetch). Nothing when
 * ats_prefetch_threshold_percent is 0. */
void uvm_ats_prefetch(struct uvm *u, struct uvm_block *b, uint32_t p, double ready);
/* The GPU's first touch of untouched system page p of b at t: placed in
 * its HBM in one fault batch, with the ATS prefetch; returns when p is
 * there (uvm_ats.c). */
double uvm_system_first_touch(struct uvm *u, struct uvm_block *b, uint32_t p, double t);
/* System page p of b, not resident here: whether a CPU holds it (several
 * GPUs: one on another Grace is recorded as a route not described). */
bool uvm_system_on_cpu(struct uvm *u, const struct uvm_block *b, uint32_t p);

/* ---- uvm_thrash_mgpu.c (several GPUs, uvm.thrashing = on) ---- */

/* The subscription of GPU u's driver (ctx) to its MIGRATE events (fault,
 * counter and prefetch migrations to it, uvm_events.h): each is an
 * event of the system's detection (uvm_xthrash_event); -1 out of memory. */
struct uvm_event;
int uvm_thrash_mgpu_on_event(void *ctx, const struct uvm_event *ev);

/* This GPU's far fault on page p of b at t waits out the nap when the
 * system's thrashing detection throttles it (uvm_perf_thrashing.c
 * UVM_PERF_THRASHING_HINT_TYPE_THROTTLE): its start. */
double uvm_thrash_nap(struct uvm *u, const struct uvm_block *b, uint32_t p, double t);
/* Whether the detection pins page p of b, not resident here, at *loc,
 * another processor whose memory this GPU maps: the driver then maps it
 * here remotely instead of migrating it (uvm_perf_thrashing.c
 * thrashing_pin_page: "All thrashing processors will be mapped remotely
 * on this location"). A pin here lets the fault migrate it. */
bool uvm_thrash_pin_elsewhere(struct uvm *u, const struct uvm_block *b, uint32_t p, double t,
			      uint32_t *loc);

/* ---- uvm_migrate.c ---- */

/* Moves page p of b and what the prefetcher adds, starting once the batch
 * is handled (ready). Returns when p has arrived. */
double uvm_migrate_pages(struct uvm *u, struct uvm_block *b, uint32_t p, double ready);

#endif
