/* lru-2mb-alloc: the NVIDIA driver (nvidia-uvm uvm_pmm_gpu.c
 * pick_root_chunk_to_evict). The unit is the 2 MB root chunk, in allocation order: a chunk
 * moves to the tail of the used list whenever frames are allocated in it
 * (a subchunk unpinned after allocation), never on access ("Bug 1765193").
 * The victim is the head: all of its resident pages. */
#include "uvm/evict.h"
#include "gpuvm/module.h"

static const struct uvm_evict_ops ops = {
	.create = uvm_evict_lru_create,
	.destroy = uvm_evict_lru_destroy,
	.on_fill = uvm_evict_block_lru_fill,
	.on_evicted = uvm_evict_block_lru_evicted,
	.pick = uvm_evict_block_lru_pick,
};

const struct gpuvm_module gpuvm_module_evict_lru_2mb_alloc = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "lru-2mb-alloc",
	.help = "NVIDIA driver: whole 2 MB blocks, least recently allocated first",
	.ops = &ops,
};
