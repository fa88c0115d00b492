/* lru-4kb: UVMSmart LRU-4KB (-eviction_policy 5): one page at a time,
 * least recently accessed first (UVMSmart gpu-sim.cc page_eviction_procedure). */
#include "uvm/evict.h"
#include "gpuvm/module.h"

static int page_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (uvm_lru_reserve(l, sp->n * UVM_BLOCK_PAGES))
		return -1;
	for (uint32_t p = 0; p < UVM_BLOCK_PAGES; p++)
		if (mask_test(mask, p))
			uvm_lru_touch(l, b->index * UVM_BLOCK_PAGES + p);
	return 0;
}

static void page_touch(void *st, struct uvm_block *b, uint32_t page)
{
	uvm_lru_touch(st, b->index * UVM_BLOCK_PAGES + page);
}

static void page_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	for (uint32_t p = 0; p < UVM_BLOCK_PAGES; p++)
		if (mask_test(mask, p))
			uvm_lru_remove(st, b->index * UVM_BLOCK_PAGES + p);
}

static struct uvm_block *page_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (l->head == UVM_LRU_NIL)
		return NULL;
	mask_set(mask, l->head % UVM_BLOCK_PAGES);
	return sp->blocks[l->head / UVM_BLOCK_PAGES];
}

static const struct uvm_evict_ops ops = {
	.create = uvm_evict_lru_create,
	.destroy = uvm_evict_lru_destroy,
	.on_fill = page_fill,
	.on_access = page_touch,
	.on_evicted = page_evicted,
	.pick = page_pick,
};

const struct gpuvm_module gpuvm_module_evict_lru_4kb = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "lru-4kb",
	.help = "UVMSmart LRU-4KB: single 4 KB pages, least recently accessed first",
	.ops = &ops,
};
