/* Thrashing detection across the processors of a system of several GPUs:
 * nvidia-uvm's uvm_perf_thrashing.c as one state per VA block shared by
 * every GPU's driver (the driver keeps one per va_block, whichever
 * processor faults), made when uvm.thrashing = on and the run has several
 * GPUs. The one-GPU module (thrashing.h) never sees two processors.
 *
 * Contract:
 *  - Owns: per 2 MB block the last migration event (time, processor)
 *    and, once two consecutive events of different processors fell
 *    within a lapse, per page: the time of its last event, its events
 *    within a lapse, the processors that migrated it (the driver's
 *    page_thrashing_info_t: processors, throttled_processors,
 *    throttling_count, do_not_throttle_processor_id, pinned,
 *    pinned_residency_id, the pin's deadline).
 *  - Requests: uvm_xthrash_event (a fault, counter or prefetch migration
 *    to a GPU: every GPU driver's MIGRATE event subscriber,
 *    uvm_thrash_mgpu.c; thrashing_event_cb), uvm_xthrash_hint (a GPU's
 *    fault on a page it does not hold, uvm_thrash_mgpu.c for
 *    uvm_fault.c; uvm_perf_thrashing_get_hint). Times are seconds from the run's start,
 *    common to the GPUs (multi_gpu.c runs them on one time line).
 *  - Guarantees: a page is thrashing after `threshold` events each within
 *    a lapse of the one before; its hint follows
 *    get_hint_for_migration_thrashing: PIN at a residency (the thrashing
 *    processors then map it there remotely), THROTTLE (the requester
 *    naps), or NONE. A pin lasts `pin` lapses, then the page's history
 *    starts again (the driver's unpin work, thrashing_unpin_page +
 *    thrashing_reset_page). Repeated calls at one time give one answer
 *    and count one throttle (the driver's state machine is so).
 *  - Simplifications: a throttled fault is served after its nap (the
 *    driver replays it and asks again); revocation events (system-wide
 *    atomics) and the lapse's self-adjustment (adjust_thrashing_lapse)
 *    are not modelled.
 *  - May call: libc, the block map (uvm_map.h), uvm_shared.h (reach,
 *    preferred location). */
#ifndef GPUVM_UVM_THRASHING_SHARED_H
#define GPUVM_UVM_THRASHING_SHARED_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/stats.h"
#include "uvm/thrashing.h"
#include "uvm/uvm_map.h"
#include "uvm/uvm_page.h"

struct uvm_shared;

struct uvm_xthrash {
	double lapse_s, nap_s, epoch_s, pin_s;
	uint32_t threshold, pin_threshold, max_resets; /* events, throttles, resets */
	struct uvm_map blocks; /* VA block number -> struct uvm_xthrash_blk * */
	const struct uvm_shared *sh; /* reach (who maps whose memory), preferred locations */
	bool oom;
};

/* params: gpuvm_module_params of gpuvm_module_thrashing_driver (row
 * order of thrashing.c), NULL for the driver's defaults. 0, or -1 out of
 * memory. */
int uvm_xthrash_init(struct uvm_xthrash *x, const struct uvm_shared *sh, const double *params);
void uvm_xthrash_free(struct uvm_xthrash *x);
/* The pages of mask in the block at base migrated to processor proc at
 * now_s (thrashing_event_cb); st: proc's counters (thrashing_pages). */
void uvm_xthrash_event(struct uvm_xthrash *x, uint64_t base, const uint64_t *mask, uint32_t proc,
		       double now_s, struct gpuvm_uvm_stats *st);
/* What to do with requester's fault on page p of the block at base at
 * now_s, the page held by closest (the processor it would come from):
 * PIN at *residency, THROTTLE until *until_s, or NONE; st: requester's
 * counters (thrash_pins, thrash_throttles). */
enum uvm_thrash_hint uvm_xthrash_hint(struct uvm_xthrash *x, uint64_t base, uint32_t p,
				      uint32_t requester, uint32_t closest, double now_s,
				      uint32_t *residency, double *until_s,
				      struct gpuvm_uvm_stats *st);

#endif
