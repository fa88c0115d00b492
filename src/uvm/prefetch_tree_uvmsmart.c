/* tree-uvmsmart (Ganguly's TBNp, UVMSmart -hardware_prefetch 1): a full
 * binary tree over the 2 MB block with 64 KB leaves; each faulted page's
 * 64 KB leaf becomes valid, then bottom-up every node with
 * size/2 < valid < size is filled completely, which cascades upward
 * (UVMSmart gpu-sim.cc do_hardware_prefetch, traverse_and_fill_lp_tree).
 * Node sizes count only the block's managed pages. */
#include "uvm/prefetch.h"
#include "gpuvm/module.h"

static void tbn_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	uvm_mask valid;
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		valid[w] = c->resident[w] | c->faulted[w];
	/* leaves: a faulted page's whole 64 KB block */
	for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++) {
		uint32_t lo = ch * UVM_CHUNK_PAGES;
		if (mask_count_range(c->faulted, lo, lo + UVM_CHUNK_PAGES))
			mask_set_range(valid, lo, lo + UVM_CHUNK_PAGES);
	}
	/* inner nodes, 128 KB up to 2 MB, bottom-up */
	for (uint32_t size = 2 * UVM_CHUNK_PAGES; size <= UVM_BLOCK_PAGES; size *= 2)
		for (uint32_t lo = 0; lo < UVM_BLOCK_PAGES; lo += size) {
			uint32_t a = lo > c->first_page ? lo : c->first_page;
			uint32_t b = lo + size < c->end_page ? lo + size : c->end_page;
			if (a >= b)
				continue;
			uint32_t managed = b - a, v = mask_count_range(valid, a, b);
			if (2 * v > managed && v < managed)
				mask_set_range(valid, a, b);
		}
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		out[w] = valid[w];
}

static const struct uvm_prefetch_ops ops = {
	.compute = tbn_compute,
};

const struct gpuvm_module gpuvm_module_prefetch_tree_uvmsmart = {
	.kind = GPUVM_MODULE_PREFETCH,
	.name = "tree-uvmsmart",
	.help = "UVMSmart TBNp: 64 KB leaves, fill any node over 50 % valid, cascading",
	.ops = &ops,
};
