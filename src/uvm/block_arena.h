/* Zeroed, never individually freed memory for the paging layer's
 * per-block records (struct uvm_block, per-page eviction stamps): carved
 * from 2 MB slabs the kernel may back with transparent huge pages. Under
 * thrashing every access reads a random block's records; spread over
 * thousands of 4 KB host pages, each read also missed the host's TLB. */
#ifndef GPUVM_UVM_BLOCK_ARENA_H
#define GPUVM_UVM_BLOCK_ARENA_H

#include <stdbool.h>
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

/* The invariants numbered at the top of block_arena.c: 0 when they hold,
 * else the first one violated, with why (may be NULL) saying where. */
int block_arena_check(const struct block_arena *a, char *why, size_t len);
/* Whether [p, p + bytes) was handed out by a. */
bool block_arena_owns(const struct block_arena *a, const void *p, size_t bytes);

#endif
