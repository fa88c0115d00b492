/* locality (Zheng et al. HPCA'16 4: the locality-aware prefetcher moves
 * 128 x 4 KB = 512 KB starting at the fault).
 * Clipped to the fault's 2 MB VA block, as every prefetch in this model
 * (the driver's rule: uvm_perf_prefetch.c max_prefetch_region). */
#include "uvm/prefetch.h"
#include "gpuvm/module.h"

static const struct gpuvm_module_param locality_params[] = {
	{.key = "pages", .def = 128, .min = 1, .max = UVM_BLOCK_PAGES, .integer = true, .unit = "pages",
	 .help = "4 KB pages moved from each fault on (Zheng et al. HPCA'16 section 4: 128 x 4 KB = 512 KB)"},
};

static void locality_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	uint32_t pages = (uint32_t)uvm_prefetch_param(c, locality_params, 0);
	for (uint32_t p = 0; p < UVM_BLOCK_PAGES; p++) {
		if (!mask_test(c->faulted, p))
			continue;
		uint32_t hi = p + pages < UVM_BLOCK_PAGES ? p + pages : UVM_BLOCK_PAGES;
		mask_set_range(out, p, hi);
	}
}

static const struct uvm_prefetch_ops ops = {
	.compute = locality_compute,
};

const struct gpuvm_module gpuvm_module_prefetch_locality = {
	.kind = GPUVM_MODULE_PREFETCH,
	.name = "locality",
	.help = "`pages` (default 128 = 512 KB) from each fault on, inside its 2 MB block (Zheng's locality-aware)",
	.params = locality_params,
	.n_params = sizeof locality_params / sizeof locality_params[0],
	.ops = &ops,
};
