/* locality (Zheng et al. HPCA'16 4: the locality-aware prefetcher moves
 * 128 x 4 KB = 512 KB starting at the fault).
 * Clipped to the fault's 2 MB VA block, as every prefetch in this model
 * (the driver's rule: uvm_perf_prefetch.c max_prefetch_region). */
#include "uvm/prefetch.h"

#define LOCALITY_PAGES 128 /* Zheng: 128 pages of 4 KB */

static void locality_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	for (uint32_t p = 0; p < UVM_BLOCK_PAGES; p++) {
		if (!mask_test(c->faulted, p))
			continue;
		uint32_t hi = p + LOCALITY_PAGES < UVM_BLOCK_PAGES ? p + LOCALITY_PAGES : UVM_BLOCK_PAGES;
		mask_set_range(out, p, hi);
	}
}

const struct uvm_prefetch_ops uvm_prefetch_locality = {
	.name = "locality",
	.help = "512 KB (128 pages) from each fault, inside its 2 MB block (Zheng's locality-aware)",
	.compute = locality_compute,
};
