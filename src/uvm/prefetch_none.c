/* none: only the faulted pages move (UVMSmart -hardware_prefetch 0;
 * gpu-sim.cc do_hardware_prefetch moves only the faulted page). */
#include "uvm/prefetch.h"
#include "gpuvm/module.h"

static void none_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	(void)c;
	(void)out;
}

static const struct uvm_prefetch_ops ops = {
	.compute = none_compute,
};

const struct gpuvm_module gpuvm_module_prefetch_none = {
	.kind = GPUVM_MODULE_PREFETCH,
	.name = "none",
	.help = "on-demand only: each fault migrates its own 4 KB page",
	.ops = &ops,
};
