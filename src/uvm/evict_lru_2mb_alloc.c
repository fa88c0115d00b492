/* lru-2mb-alloc: the NVIDIA driver (uvm_pmm_gpu.c; research/uvm-anchors.md
 * 1.4). The unit is the 2 MB root chunk, in allocation order: a chunk
 * moves to the tail of the used list whenever frames are allocated in it
 * (a subchunk unpinned after allocation), never on access ("Bug 1765193").
 * The victim is the head: all of its resident pages. */
#include "uvm/evict.h"

static int alloc_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	struct uvm_lru *l = st;
	if (uvm_lru_reserve(l, sp->n))
		return -1;
	uvm_lru_touch(l, b->index);
	return 0;
}

static void alloc_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	if (!b->resident_count)
		uvm_lru_remove(st, b->index);
}

static struct uvm_block *alloc_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (l->head == UVM_LRU_NIL)
		return NULL;
	struct uvm_block *b = sp->blocks[l->head];
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		mask[w] = b->resident[w];
	return b;
}

const struct uvm_evict_ops uvm_evict_lru_2mb_alloc = {
	.name = "lru-2mb-alloc",
	.help = "NVIDIA driver: whole 2 MB blocks, least recently allocated first",
	.create = uvm_evict_lru_create,
	.destroy = uvm_evict_lru_destroy,
	.on_fill = alloc_fill,
	.on_evicted = alloc_evicted,
	.pick = alloc_pick,
};
