/* Zeroed, never individually freed memory for the paging layer's
 * per-block records (struct uvm_block, per-page eviction stamps): carved
 * from 2 MB slabs the kernel may back with transparent huge pages. Under
 * thrashing every access reads a random block's records; spread over
 * thousands of 4 KB host pages, each read also missed the host's TLB. */
#ifndef GPUVM_UVM_BLOCK_ARENA_H
#define GPUVM_UVM_BLOCK_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct block_arena {
	void **slabs;
	uint32_t n_slabs, cap_slabs;
	size_t used_bytes; /* of the last slab */
};

/* bytes of zeroed memory aligned to 64, or NULL when out of memory */
void *block_arena_alloc(struct block_arena *a, size_t bytes);
/* frees every slab; the arena is then empty and reusable */
void block_arena_free(struct block_arena *a);

#endif
