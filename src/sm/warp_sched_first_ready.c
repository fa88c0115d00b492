/* first-ready: the warp whose operands were ready first takes its
 * scheduler's next free slot (ties: the order the warps were queued in).
 * It is the event order of the run loop (src/system/kernel_run.c), which
 * books a warp's slot when the warp is taken from the queue, so the policy
 * has no hooks. Under contention each warp waits behind those ready before
 * it, which rotates the slot over the ready warps as GPGPU-Sim's loose
 * round robin does (shader.cc lrr_scheduler::order_warps); unlike it, a
 * COMPUTE item's gap of independent instructions issues back to back
 * (sm_issue.c sm_step_item). The model before core.warp_scheduler, and
 * every preset's but gem5gpu-neidty's. */
#include "gpuvm/module.h"
#include "sm/warp_sched.h"

static const struct warp_sched_ops ops = {0};

const struct gpuvm_module gpuvm_module_warp_sched_first_ready = {
	.kind = GPUVM_MODULE_WARP_SCHEDULER,
	.name = "first-ready",
	.help = "the warp whose operands were ready first issues first (event order), close to "
		"GPGPU-Sim's loose round robin under contention",
	.ops = &ops,
};
