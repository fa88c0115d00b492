/* lru-2mb-access: UVMSmart's LRU-2MB (-eviction_policy 0): the oldest
 * entry's whole 2 MB tree, with the LRU position refreshed on every TLB
 * hit and replay (research/uvm-anchors.md 2.4); here on every access to
 * managed memory. */
#include "uvm/evict.h"

static int access_fill(void *st, const struct uvm_space *sp, struct uvm_block *b,
		       const uint64_t *mask)
{
	(void)mask;
	struct uvm_lru *l = st;
	if (uvm_lru_reserve(l, sp->n))
		return -1;
	uvm_lru_touch(l, b->index);
	return 0;
}

static void access_touch(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	uvm_lru_touch(st, b->index);
}

static void access_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	if (!b->resident_count)
		uvm_lru_remove(st, b->index);
}

static struct uvm_block *access_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (l->head == UVM_LRU_NIL)
		return NULL;
	struct uvm_block *b = sp->blocks[l->head];
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		mask[w] = b->resident[w];
	return b;
}

const struct uvm_evict_ops uvm_evict_lru_2mb_access = {
	.name = "lru-2mb-access",
	.help = "UVMSmart LRU-2MB: whole 2 MB blocks, least recently accessed first",
	.create = uvm_evict_lru_create,
	.destroy = uvm_evict_lru_destroy,
	.on_fill = access_fill,
	.on_access = access_touch,
	.on_evicted = access_evicted,
	.pick = access_pick,
};
