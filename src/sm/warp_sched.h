/* Warp scheduling policies (core.warp_scheduler), one module each:
 * src/sm/warp_sched_NAME.c holds the ops table and its descriptor
 * (gpuvm/module.h, kind GPUVM_MODULE_WARP_SCHEDULER) listed in
 * src/core/module_registry.c.
 *
 * Contract:
 *  - Which warp takes a scheduler's next issue slot. The run loop
 *    (src/system/kernel_run.c run_events) takes warps from the event
 *    queue in time order; a warp whose operands are ready and whose unit
 *    is free (core.busy_unit) asks the policy, through `claim`, before it
 *    issues. A policy with no ops (first-ready, the model before the key)
 *    leaves the event order to decide: the warp whose operands were ready
 *    first books the scheduler's next free slot.
 *  - A policy owns struct sched_state's `last`, `last_at`, `n_wait` and
 *    `wait` and each warp_rt's `sched_waiting` and `sched_at`, and nothing
 *    else of the SM layer; it reads warp_rt.age (the SM layer's placement
 *    count), sched_state.free and unit_free and a waiting warp's held item
 *    (sm_layer.held). sm_launch_begin clears its words.
 *  - `claim(sl, w, wslot, now)`: warp w, ready at `now`, asks for its
 *    scheduler. A negative answer: it issues at `now` (the policy notes
 *    it issued). Else the time the warp must come back at (>= now): the
 *    run loop queues it there, holding its item, and counts the wait as
 *    an issue stall. A policy must answer negative when nothing else can
 *    take the slot, so every queued warp issues in the end.
 *  - `queued(sl, w, wslot, at, ready)`: the run loop queued warp w's next
 *    event at `at`: after an issue (ready false: its next item is not
 *    made yet), or holding an item whose operands are there by `at`
 *    (ready true: it waited for its operands, its unit or a claim's
 *    answer); `popped(sl, w, wslot)`: it took that event from the queue.
 *    Warps queued elsewhere (a CTA's start, a barrier's release) are not
 *    told: a policy sees them when they claim.
 *  - Not with core.window (config_finalize refuses it): a windowed
 *    engine's warps run ahead of the barrier, so who is ready when is not
 *    known at their issue. */
#ifndef GPUVM_SM_WARP_SCHED_H
#define GPUVM_SM_WARP_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "sm/sm.h"

struct warp_sched_ops {
	double (*claim)(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot, double now);
	void (*queued)(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot, double at,
		       bool ready);
	void (*popped)(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot);
};

#endif
