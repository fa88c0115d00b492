/* adaptive: the paper's dynamic threshold (seeds/004 IV, Eq. 1):
 *   t_d = t_s * allocated/total + 1     before oversubscription
 *   t_d = t_s * (r + 1) * p             after
 * with r the block's round trips and p the migration penalty. The paper's
 * example (t_s = 8): 1 below 12.5 % allocated, 8 just before full, 9 at
 * full, 16 after oversubscription with p = 2, 48 after two round trips.
 * allocated counts the pre-eviction buffer as UVMSmart's occupancy does
 * (buf% x N + allocated) / N, truncated to an integer (UVMSmart gpu-sim.cc
 * should_cause_page_migration). */
#include "uvm/migrate.h"
#include "gpuvm/module.h"

static uint32_t adaptive_threshold(const struct uvm_migrate_ctx *c)
{
	if (c->oversubscribed) {
		uint64_t t = (uint64_t)c->ts * (c->round_trips + 1u) * c->penalty;
		return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
	}
	if (!c->capacity_pages)
		return 1; /* unlimited device memory: nothing allocated of it */
	double occ = ((double)c->resident_pages + c->buffer_frac * (double)c->capacity_pages) /
		     (double)c->capacity_pages;
	if (occ > 1)
		occ = 1;
	return (uint32_t)((double)c->ts * occ + 1.0);
}

static const struct uvm_migrate_ops ops = {
	.delays = true,
	.threshold = adaptive_threshold,
};

const struct gpuvm_module gpuvm_module_migrate_adaptive = {
	.kind = GPUVM_MODULE_MIGRATE,
	.name = "adaptive",
	.help = "dynamic threshold, seeds/004 Eq. 1: t_s*alloc/total+1, then t_s*(r+1)*p",
	.ops = &ops,
};
