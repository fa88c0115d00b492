/* seq-local (Ganguly's SLp): the rest of each faulted page's 64 KB basic
 * block (Ganguly ISCA'19; UVMSmart -hardware_prefetch 2). */
#include "uvm/prefetch.h"
#include "gpuvm/module.h"

static void sl_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++) {
		uint32_t lo = ch * UVM_CHUNK_PAGES;
		if (mask_count_range(c->faulted, lo, lo + UVM_CHUNK_PAGES))
			mask_set_range(out, lo, lo + UVM_CHUNK_PAGES);
	}
}

static const struct uvm_prefetch_ops ops = {
	.compute = sl_compute,
};

const struct gpuvm_module gpuvm_module_prefetch_seq_local = {
	.kind = GPUVM_MODULE_PREFETCH,
	.name = "seq-local",
	.help = "the faulted page's whole 64 KB basic block (SLp)",
	.ops = &ops,
};
