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

static struct uvm_block *lfu_ac_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct uvm_block_marks *s = st;
	struct uvm_block *best = NULL;
	bool hot_w = false, ro_w = false;
	bool whole = uvm_evict_pick_whole(sp); /* uvm.evict_whole */
	for (uint32_t i = 0; i < sp->n; i++) {
		struct uvm_block *b = sp->blocks[i];
		if (!b->resident_count || (b == sp->filling && sp->resident_pages > b->resident_count) ||
		    (whole && !uvm_evict_block_whole(sp, b)))
			continue;
		/* cold before hot; among cold blocks read-only first; LRU within */
		bool hot_b = block_hot(b, sp->ac_hot);
		bool ro_b = !hot_b && !(i < s->cap && s->written[i]);
		uint64_t sb = i < s->cap ? s->stamp[i] : 0, sw = best && best->index < s->cap ? s->stamp[best->index] : 0;
		if (!best || (!hot_b && hot_w) || (hot_b == hot_w && ro_b && !ro_w) ||
		    (hot_b == hot_w && ro_b == ro_w && sb < sw)) {
			best = b;
			hot_w = hot_b;
			ro_w = ro_b;
		}
	}
	if (best)
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			mask[w] = best->resident[w];
	return best;
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
