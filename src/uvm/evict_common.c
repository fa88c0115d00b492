/* Pieces several eviction policies share. */
#include "uvm/evict.h"

#include <stdlib.h>

int uvm_evict_lru_create(void **st)
{
	*st = calloc(1, sizeof(struct uvm_lru));
	return *st ? 0 : -1;
}

void uvm_evict_lru_destroy(void *st)
{
	if (st)
		uvm_lru_free(st);
	free(st);
}

int uvm_evict_block_lru_fill(void *st, const struct uvm_space *sp, struct uvm_block *b,
			     const uint64_t *mask)
{
	(void)mask;
	struct uvm_lru *l = st;
	if (uvm_lru_reserve(l, sp->n))
		return -1;
	uvm_lru_touch(l, b->index);
	return 0;
}

void uvm_evict_block_lru_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	if (!b->resident_count)
		uvm_lru_remove(st, b->index);
}

struct uvm_block *uvm_evict_block_lru_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (l->head == UVM_LRU_NIL)
		return NULL;
	struct uvm_block *b = sp->blocks[l->head];
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		mask[w] = b->resident[w];
	return b;
}
