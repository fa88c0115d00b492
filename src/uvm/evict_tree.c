/* tree: UVMSmart's tree-based neighbourhood eviction (TBNe,
 * -eviction_policy 1; gpu-sim.cc page_eviction_procedure): order the 2 MB trees
 * by last access, take the least recently accessed 64 KB block of the
 * oldest tree, then traverse_and_remove_lp_tree: bottom-up, any node left
 * with 0 < valid < size/2 loses all its blocks (which cascades). Node
 * sizes count only managed pages. */
#include "uvm/evict.h"
#include "gpuvm/module.h"

#include <stdlib.h>

struct tree_state {
	struct uvm_lru blocks;  /* trees by last access */
	uint64_t *chunk_stamp;  /* [cap_chunks] last access of each 64 KB block */
	uint32_t cap_chunks;
	uint64_t clock;
};

static int tree_create(void **st)
{
	*st = calloc(1, sizeof(struct tree_state));
	return *st ? 0 : -1;
}

static void tree_destroy(void *st)
{
	struct tree_state *s = st;
	if (!s)
		return;
	uvm_lru_free(&s->blocks);
	free(s->chunk_stamp);
	free(s);
}

static int reserve_chunks(struct tree_state *s, uint32_t n)
{
	if (n <= s->cap_chunks)
		return 0;
	uint32_t cap = s->cap_chunks ? s->cap_chunks : 1024;
	while (cap < n)
		cap *= 2;
	uint64_t *p = realloc(s->chunk_stamp, cap * sizeof *p);
	if (!p)
		return -1;
	for (uint32_t i = s->cap_chunks; i < cap; i++)
		p[i] = 0;
	s->chunk_stamp = p;
	s->cap_chunks = cap;
	return 0;
}

static int tree_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	struct tree_state *s = st;
	if (uvm_lru_reserve(&s->blocks, sp->n) || reserve_chunks(s, sp->n * UVM_BLOCK_CHUNKS))
		return -1;
	uvm_lru_touch(&s->blocks, b->index);
	s->clock++;
	for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++)
		if (mask_count_range(mask, ch * UVM_CHUNK_PAGES, (ch + 1) * UVM_CHUNK_PAGES))
			s->chunk_stamp[b->index * UVM_BLOCK_CHUNKS + ch] = s->clock;
	return 0;
}

static void tree_touch(void *st, struct uvm_block *b, uint32_t page)
{
	struct tree_state *s = st;
	uvm_lru_touch(&s->blocks, b->index);
	s->chunk_stamp[b->index * UVM_BLOCK_CHUNKS + page / UVM_CHUNK_PAGES] = ++s->clock;
}

static void tree_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	struct tree_state *s = st;
	if (!b->resident_count)
		uvm_lru_remove(&s->blocks, b->index);
}

static struct uvm_block *tree_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct tree_state *s = st;
	if (s->blocks.head == UVM_LRU_NIL)
		return NULL;
	struct uvm_block *b = sp->blocks[s->blocks.head];
	uint32_t best = UVM_BLOCK_CHUNKS;
	uint64_t best_stamp = UINT64_MAX;
	for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++) {
		uint64_t stamp = s->chunk_stamp[b->index * UVM_BLOCK_CHUNKS + ch];
		if (stamp < best_stamp &&
		    mask_count_range(b->resident, ch * UVM_CHUNK_PAGES, (ch + 1) * UVM_CHUNK_PAGES)) {
			best = ch;
			best_stamp = stamp;
		}
	}
	if (best == UVM_BLOCK_CHUNKS)
		return NULL;
	uvm_mask valid;
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		valid[w] = b->resident[w];
	for (uint32_t p = best * UVM_CHUNK_PAGES; p < (best + 1) * UVM_CHUNK_PAGES; p++)
		mask_clear(valid, p);
	for (uint32_t size = 2 * UVM_CHUNK_PAGES; size <= UVM_BLOCK_PAGES; size *= 2)
		for (uint32_t lo = 0; lo < UVM_BLOCK_PAGES; lo += size) {
			uint32_t a = lo > b->first_page ? lo : b->first_page;
			uint32_t e = lo + size < b->end_page ? lo + size : b->end_page;
			if (a >= e)
				continue;
			uint32_t v = mask_count_range(valid, a, e);
			if (v > 0 && 2 * v < e - a)
				for (uint32_t p = a; p < e; p++)
					mask_clear(valid, p);
		}
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		mask[w] = b->resident[w] & ~valid[w];
	return b;
}

static const struct uvm_evict_ops ops = {
	.create = tree_create,
	.destroy = tree_destroy,
	.on_fill = tree_fill,
	.on_access = tree_touch,
	.on_evicted = tree_evicted,
	.pick = tree_pick,
};

const struct gpuvm_module gpuvm_module_evict_tree = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "tree",
	.help = "UVMSmart TBNe: oldest 64 KB of the oldest 2 MB tree, then nodes under half valid",
	.ops = &ops,
};
