/* lru-2mb-access: UVMSmart's LRU-2MB (-eviction_policy 0): the oldest
 * entry's whole 2 MB tree, with the LRU position refreshed on every TLB
 * hit and replay (UVMSmart shader.cc refresh_tlb); here on every access to
 * managed memory. */
#include "uvm/evict.h"
#include "gpuvm/module.h"

static void access_touch(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	uvm_lru_touch(st, b->index);
}

static const struct uvm_evict_ops ops = {
	.create = uvm_evict_lru_create,
	.destroy = uvm_evict_lru_destroy,
	.on_fill = uvm_evict_block_lru_fill,
	.on_access = access_touch,
	.on_evicted = uvm_evict_block_lru_evicted,
	.pick = uvm_evict_block_lru_pick,
};

const struct gpuvm_module gpuvm_module_evict_lru_2mb_access = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "lru-2mb-access",
	.help = "UVMSmart LRU-2MB: whole 2 MB blocks, least recently accessed first",
	.ops = &ops,
};
