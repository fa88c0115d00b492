/* next-n: one-block-lookahead prefetching on a miss, applied to far
 * faults. A.J. Smith, "Cache Memories", ACM Computing Surveys 14(3), 1982,
 * section 2.1 ("Fetch Algorithm"): prefetching "the next block" i+1 when
 * block i is referenced ("one block lookahead", OBL), in the
 * "prefetch on miss" variant that issues the prefetch only when the
 * reference missed. Here a far fault is the miss, the block is the 64 KB
 * basic block (the driver's big page, the unit seq-local and the trees
 * work in), and the lookahead is `degree` blocks: a fault in basic block c
 * migrates its own page plus the whole basic blocks c+1 .. c+degree
 * (degree = 1 is Smith's OBL). Like every prefetch in this model, never
 * past the fault's 2 MB VA block (nvidia-uvm uvm_va_block.c: a
 * migration's region is one VA block). Unlike seq-local it does not fill
 * the rest of the faulted block, so a forward stream (triad) finds the
 * next block resident while a random access pattern pays for one
 * speculative 64 KB block per fault. */
#include "gpuvm/module.h"
#include "uvm/prefetch.h"

static const struct gpuvm_module_param next_n_params[] = {
	{.key = "degree", .def = 1, .min = 1, .max = UVM_BLOCK_CHUNKS - 1, .integer = true,
	 .unit = "64KB blocks",
	 .help = "basic blocks prefetched ahead of the faulted one (Smith 1982 section 2.1: one "
		 "block lookahead, 1)"},
};

static void next_n_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	uint32_t degree = (uint32_t)uvm_prefetch_param(c, next_n_params, 0);
	for (uint32_t p = mask_next(c->faulted, 0, true); p < UVM_BLOCK_PAGES;
	     p = mask_next(c->faulted, p + 1, true)) {
		uint32_t lo = (p / UVM_CHUNK_PAGES + 1) * UVM_CHUNK_PAGES;
		uint32_t hi = lo + degree * UVM_CHUNK_PAGES;
		if (hi > UVM_BLOCK_PAGES)
			hi = UVM_BLOCK_PAGES;
		if (lo < hi)
			mask_set_range(out, lo, hi);
	}
}

static const struct uvm_prefetch_ops ops = {
	.compute = next_n_compute,
};

const struct gpuvm_module gpuvm_module_prefetch_next_n = {
	.kind = GPUVM_MODULE_PREFETCH,
	.name = "next-n",
	.help = "on a fault, the next `degree` 64 KB basic blocks of its 2 MB block (Smith's one "
		"block lookahead, prefetch on miss)",
	.params = next_n_params,
	.n_params = sizeof next_n_params / sizeof next_n_params[0],
	.ops = &ops,
};
