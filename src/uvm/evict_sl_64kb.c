/* sl-64kb: UVMSmart SL-64KB (-eviction_policy 2, Ganguly's SLe): the
 * least recently accessed 64 KB basic block (UVMSmart gpu-sim.cc page_eviction_procedure). */
#include "uvm/evict.h"
#include "gpuvm/module.h"

static int chunk_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (uvm_lru_reserve(l, sp->n * UVM_BLOCK_CHUNKS))
		return -1;
	for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++)
		if (mask_count_range(mask, ch * UVM_CHUNK_PAGES, (ch + 1) * UVM_CHUNK_PAGES))
			uvm_lru_touch(l, b->index * UVM_BLOCK_CHUNKS + ch);
	return 0;
}

static void chunk_touch(void *st, struct uvm_block *b, uint32_t page)
{
	uvm_lru_touch(st, b->index * UVM_BLOCK_CHUNKS + page / UVM_CHUNK_PAGES);
}

static void chunk_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++) {
		uint32_t lo = ch * UVM_CHUNK_PAGES;
		if (mask_count_range(mask, lo, lo + UVM_CHUNK_PAGES) &&
		    !mask_count_range(b->resident, lo, lo + UVM_CHUNK_PAGES))
			uvm_lru_remove(st, b->index * UVM_BLOCK_CHUNKS + ch);
	}
}

static struct uvm_block *chunk_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (l->head == UVM_LRU_NIL)
		return NULL;
	struct uvm_block *b = sp->blocks[l->head / UVM_BLOCK_CHUNKS];
	uint32_t lo = (l->head % UVM_BLOCK_CHUNKS) * UVM_CHUNK_PAGES;
	for (uint32_t p = lo; p < lo + UVM_CHUNK_PAGES; p++)
		if (mask_test(b->resident, p))
			mask_set(mask, p);
	return b;
}

static const struct uvm_evict_ops ops = {
	.create = uvm_evict_lru_create,
	.destroy = uvm_evict_lru_destroy,
	.on_fill = chunk_fill,
	.on_access = chunk_touch,
	.on_evicted = chunk_evicted,
	.pick = chunk_pick,
};

const struct gpuvm_module gpuvm_module_evict_sl_64kb = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "sl-64kb",
	.help = "UVMSmart SL-64KB: the least recently accessed 64 KB basic block",
	.ops = &ops,
};
