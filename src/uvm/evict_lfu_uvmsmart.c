/* lfu-uvmsmart: UVMSmart's LFU-2MB as its code orders blocks
 * (-eviction_policy 4, the policy of every oversubscribed run in the logs
 * behind Ganguly et al.'s IPDPS'20 Figs. 6-8). gpu-sim.cc sort_valid_pages
 * sorts the 2 MB trees by their root's access_counter, then read-only
 * before written (RW), then least recently used; inc_bb_access_counter,
 * called by ldst_unit::access_cycle for every managed access before the
 * TLB is looked at, bumps every node on the path from the root to the
 * accessed 64 KB basic block. So the root counts every access to the tree,
 * to pages resident or not, and keeps its count when the tree is evicted
 * (only build_lp_tree and reset_lp_tree_node clear it; a saturating leaf
 * halves them all). Here that count is the sum of the block's 64 KB access
 * counters (migrate.h), which count the same accesses, one per coalesced
 * access, and are halved together the same way; round trips are the
 * leaves' field, outside the root's count. It differs from lfu-2mb, which
 * keeps its own count of accesses to resident pages only (measured
 * 2026-11-30: with lfu-2mb for every scheme at 125 %, as the logs ran,
 * ra's baseline took 305 ms against UVMSmart's 33.69). */
#include "uvm/evict.h"
#include "gpuvm/module.h"
#include "uvm/migrate.h"

/* The state is the marks (evict.h); UVMSmart refreshes a tree's LRU
 * position on every TLB hit (shader.cc ldst_unit::access_cycle
 * refresh_valid_pages): uvm_evict_marks_touch. */

/* the root's access_counter: every access to the block */
static uint64_t root_count(const void *st, const struct uvm_space *sp, const struct uvm_block *b,
			   bool *written)
{
	(void)st;
	(void)sp;
	(void)written; /* the marks' written flag */
	return uvm_ac_block_count(b);
}

static struct uvm_block *lfu_u_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	return uvm_evict_pick_least(st, st, sp, false, root_count, mask);
}

static const struct uvm_evict_ops ops = {
	.create = uvm_evict_marks_create,
	.destroy = uvm_evict_marks_destroy,
	.on_fill = uvm_evict_marks_fill,
	.on_access = uvm_evict_marks_touch,
	.on_write = uvm_evict_marks_write,
	.pick = lfu_u_pick,
	.uses_access_counters = true,
};

const struct gpuvm_module gpuvm_module_evict_lfu_uvmsmart = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "lfu-uvmsmart",
	.help = "UVMSmart's LFU-2MB as its code orders blocks: fewest accesses to the block (resident "
		"or not, kept across evictions) first, read-only first on ties, then LRU",
	.ops = &ops,
};
