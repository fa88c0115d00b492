/* none: only the faulted pages move (UVMSmart -hardware_prefetch 0;
 * gpu-sim.cc do_hardware_prefetch moves only the faulted page). */
#include "uvm/prefetch.h"

static void none_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	(void)c;
	(void)out;
}

const struct uvm_prefetch_ops uvm_prefetch_none = {
	.name = "none",
	.help = "on-demand only: each fault migrates its own 4 KB page",
	.compute = none_compute,
};
