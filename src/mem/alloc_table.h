/* The allocation table: which allocation (and so which kind of memory:
 * device, managed, zero-copy host) an address belongs to. Sorted by base;
 * the last hit is cached because consecutive accesses mostly stay put. */
#ifndef GPUVM_ALLOC_TABLE_H
#define GPUVM_ALLOC_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/error.h"
#include "gpuvm/stream.h"

struct alloc_table {
	struct gpuvm_alloc *a;
	size_t n, cap;
	uint64_t hit_base, hit_end; /* cached range */
	enum gpuvm_alloc_kind hit_kind;
	uint32_t hit_peer; /* its peer_device (GPUVM_ALLOC_PEER entries) */
	/* every allocation added so far starts and ends on a multiple of
	 * 1 << block_shift (63 while there is none; a removal keeps it, a
	 * bound that stays true), so two addresses in one such block lie in
	 * the same allocation or in none (alloc_table_same_block) */
	unsigned block_shift;
};

void alloc_table_init(struct alloc_table *t);
void alloc_table_free(struct alloc_table *t);
/* Fails on overlap with a live allocation or a zero size. */
int alloc_table_add(struct alloc_table *t, const struct gpuvm_alloc *a, struct gpuvm_error *err);
void alloc_table_remove(struct alloc_table *t, uint64_t base);
const struct gpuvm_alloc *alloc_table_find(const struct alloc_table *t, uint64_t addr);

/* Whether a and b lie in one block of 1 << block_shift bytes, and so in
 * the same allocation or in none: one kind, without a lookup. (The block
 * holding UINT64_MAX meets no allocation: one would end at 2^64, which
 * alloc_table_add refuses as a wrap.) */
static inline bool alloc_table_same_block(const struct alloc_table *t, uint64_t a, uint64_t b)
{
	return ((a ^ b) >> t->block_shift) == 0;
}

/* Addresses outside every allocation count as device memory: traces often
 * omit their allocations. */
static inline enum gpuvm_alloc_kind alloc_table_kind(struct alloc_table *t, uint64_t addr)
{
	if (addr - t->hit_base < t->hit_end - t->hit_base)
		return t->hit_kind;
	const struct gpuvm_alloc *a = alloc_table_find(t, addr);
	if (!a)
		return GPUVM_ALLOC_DEVICE;
	t->hit_base = a->base;
	t->hit_end = a->base + a->bytes;
	t->hit_kind = a->kind;
	t->hit_peer = a->peer_device;
	return a->kind;
}

/* The GPU whose memory a GPUVM_ALLOC_PEER entry at addr is (its
 * peer_device): the cached hit's when addr is in it, as it is right after
 * alloc_table_kind found the entry (the SM layer's peer sectors,
 * sm_sector.h: peer_sector), else a lookup that leaves the cache as it
 * is (0 outside every allocation). */
static inline uint32_t alloc_table_peer_device(struct alloc_table *t, uint64_t addr)
{
	if (addr - t->hit_base < t->hit_end - t->hit_base)
		return t->hit_peer;
	const struct gpuvm_alloc *a = alloc_table_find(t, addr);
	return a ? a->peer_device : 0;
}

#endif
