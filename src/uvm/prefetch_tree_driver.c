/* tree-driver: the NVIDIA UVM driver's prefetcher (nvidia-uvm
 * uvm_perf_prefetch.c, uvm_perf_prefetch_prenotify_fault_migrations):
 *  1. first touch: nothing of the block resident and the GPU is the
 *     preferred location -> the whole block;
 *  3. leaves are 4 KB pages: resident or faulted;
 *  4. every 64 KB big page holding a fault counts as fully present;
 *  5. from each faulted page walk leaf -> root; a node qualifies when
 *     count*100 > pages*threshold (uvm_perf_prefetch_threshold, default
 *     51: the parameter row below); the highest
 *     qualifying ancestor is prefetched, a failing level in between does
 *     not stop the walk; never beyond the 2 MB block;
 *  6. faulted pages leave the mask (the caller drops them).
 * No thrashing pages exist in single-GPU runs (uvm_perf_thrashing.c:
 * thrashing_event_cb skips eviction migrations), and
 * min_faults = 1 always holds for a fault. Node sizes count only managed
 * pages of the block (the driver's region for a partial block). */
#include "uvm/prefetch.h"
#include "gpuvm/module.h"

/* nvidia-uvm uvm_perf_prefetch.c: module parameter
 * uvm_perf_prefetch_threshold, UVM_PREFETCH_THRESHOLD_DEFAULT 51, accepted
 * 1..100 (uvm_perf_prefetch_init falls back to the default outside it) */
static const struct gpuvm_module_param driver_params[] = {
	{.key = "threshold", .def = 51, .min = 1, .max = 100, .integer = true, .unit = "percent",
	 .help = "a tree node is prefetched when more than this % of its pages are resident or "
		 "faulted (nvidia-uvm uvm_perf_prefetch.c uvm_perf_prefetch_threshold, default 51)"},
};

static void driver_compute(const struct uvm_prefetch_ctx *c, uint64_t *out)
{
	uint32_t threshold_percent = (uint32_t)uvm_prefetch_param(c, driver_params, 0);
	if (c->preferred_here && mask_empty(c->resident)) {
		mask_set_range(out, c->first_page, c->end_page);
		return;
	}
	/* (a word at a time: the 64 KB chunks are 16-bit fields of a word,
	 * and the faulted pages, usually one, are found by bit scans) */
	_Static_assert(UVM_CHUNK_PAGES == 16, "four chunks per mask word");
	uvm_mask tree;
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
		uint64_t f = c->faulted[w], t = c->resident[w] | f;
		for (uint32_t k = 0; k < 64; k += UVM_CHUNK_PAGES)
			if ((f >> k) & 0xffffull)
				t |= 0xffffull << k;
		tree[w] = t;
	}
	for (uint32_t p = mask_next(c->faulted, c->first_page, true); p < c->end_page;
	     p = mask_next(c->faulted, p + 1, true)) {
		uint32_t best_lo = p, best_hi = p + 1;
		for (uint32_t size = 1; size <= UVM_BLOCK_PAGES; size *= 2) {
			uint32_t lo = p & ~(size - 1);
			uint32_t a = lo > c->first_page ? lo : c->first_page;
			uint32_t b = lo + size < c->end_page ? lo + size : c->end_page;
			uint32_t count = mask_count_range(tree, a, b);
			if (count * 100 > (b - a) * threshold_percent) {
				best_lo = a;
				best_hi = b;
			}
		}
		mask_set_range(out, best_lo, best_hi);
	}
}

static const struct uvm_prefetch_ops ops = {
	.compute = driver_compute,
};

const struct gpuvm_module gpuvm_module_prefetch_tree_driver = {
	.kind = GPUVM_MODULE_PREFETCH,
	.name = "tree-driver",
	.help = "NVIDIA driver: 4 KB leaves, faults grown to 64 KB, highest ancestor over threshold %",
	.params = driver_params,
	.n_params = sizeof driver_params / sizeof driver_params[0],
	.ops = &ops,
};
