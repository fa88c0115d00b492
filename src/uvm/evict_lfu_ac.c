/* lfu-ac: the access-counter LFU of Ganguly et al. (seeds/004 IV,
 * "Access Counter Based Page Replacement"): whole 2 MB large pages,
 * sorted by the same access counters that drive delayed migration into
 * cold and hot ("cold pages are prioritized over hot pages"; a large page
 * is hot once one of its 64 KB blocks has counted t_s accesses, the
 * paper's automatic hot/cold categorisation), read-only pages first among
 * the cold ones, and LRU within a class, so that "where pages are accessed
 * with almost the same frequency, our framework automatically falls back
 * to the LRU policy". Why classes and not the raw count order of
 * UVMSmart's LFU-2MB (sort by the root's count, then RW, then age): with
 * counts that only grow, the large page a stream is filling always has
 * the lowest count and goes first (measured at 125 %: backprop 1.56x,
 * fdtd-2d 1.39x slower than LRU, UVMSmart's ra 14x slower); and with
 * classes, read-only-first among hot pages evicts nw's reference matrix
 * that every kernel reads (4.4x slower). Not UVMSmart's order, then: the
 * paper's words, and a choice of ours where they are silent.
 * It differs from lfu-2mb, which keeps its own 64-bit per-block count
 * that is never halved and counts only accesses to resident pages. */
#include "uvm/evict.h"
#include "gpuvm/module.h"
#include "uvm/migrate.h"

#include <stdlib.h>

/* Hot: some 64 KB block of b has been accessed t_s times (the threshold
 * that makes a block hot for delayed migration, seeds/004 IV). */
static bool block_hot(const struct uvm_block *b, uint32_t ts)
{
	for (uint32_t c = 0; c < UVM_BLOCK_CHUNKS; c++)
		if (uvm_ac_count(b->ac[c]) >= ts)
			return true;
	return false;
}

/* cold (0) before hot (1); a hot block counts as written, so read-only
 * first applies among the cold ones; LRU within (uvm_evict_pick_least).
 * The block a fault is filling is kept (its pages are reserved by the
 * in-flight access, as UVMSmart never evicts those). */
static uint64_t lfu_ac_rank(const void *st, const struct uvm_space *sp, const struct uvm_block *b,
			    bool *written)
{
	(void)st;
	bool hot = block_hot(b, sp->ac_hot);
	*written = hot;
	return hot;
}

static struct uvm_block *lfu_ac_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	return uvm_evict_pick_least(st, st, sp, true, lfu_ac_rank, mask);
}

static const struct uvm_evict_ops ops = {
	.create = uvm_evict_marks_create,
	.destroy = uvm_evict_marks_destroy,
	.on_fill = uvm_evict_marks_fill,
	.on_access = uvm_evict_marks_touch,
	.on_write = uvm_evict_marks_write,
	.pick = lfu_ac_pick,
	.uses_access_counters = true,
};

const struct gpuvm_module gpuvm_module_evict_lfu_ac = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "lfu-ac",
	.help = "Ganguly's access-counter LFU: whole 2 MB blocks, cold ones (no 64 KB block counted "
		"t_s accesses) first, read-only first among them, LRU within",
	.ops = &ops,
};
