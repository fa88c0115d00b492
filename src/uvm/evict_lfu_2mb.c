/* lfu-2mb: UVMSmart LFU-2MB (-eviction_policy 4, Ganguly IPDPS'20): whole
 * 2 MB trees, fewest accesses first (the root's access counter, bumped by
 * every managed access), then read-only trees first, then least recently
 * accessed (UVMSmart gpu-sim.cc sort_valid_pages). Whether a tree was ever
 * written is this module's own per-block state (on_write), not the shared
 * block's. */
#include "uvm/evict.h"
#include "gpuvm/module.h"

#include <stdlib.h>

struct lfu_state {
	struct uvm_block_marks m; /* first: the shared on_write takes the state as marks */
	uint64_t *count;          /* [count_cap] per block: accesses while resident */
	uint32_t count_cap;
};

static int lfu_create(void **st)
{
	*st = calloc(1, sizeof(struct lfu_state));
	return *st ? 0 : -1;
}

static void lfu_destroy(void *st)
{
	struct lfu_state *s = st;
	if (!s)
		return;
	uvm_block_marks_free(&s->m);
	free(s->count);
	free(s);
}

/* A fill stamps the block and makes room for its count: a block is
 * accessed (lfu_touch) only once resident, so after its fill. */
static int lfu_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	struct lfu_state *s = st;
	if (uvm_evict_marks_fill(&s->m, sp, b, mask))
		return -1;
	if (s->count_cap < s->m.cap) {
		uint64_t *c = realloc(s->count, s->m.cap * sizeof *c);
		if (!c)
			return -1;
		for (uint32_t i = s->count_cap; i < s->m.cap; i++)
			c[i] = 0;
		s->count = c;
		s->count_cap = s->m.cap;
	}
	return 0;
}

static void lfu_touch(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	struct lfu_state *s = st;
	s->count[b->index]++;
	s->m.stamp[b->index] = ++s->m.clock;
}

/* the block's own count of accesses while resident */
static uint64_t lfu_rank(const void *st, const struct uvm_space *sp, const struct uvm_block *b,
			 bool *written)
{
	(void)sp;
	(void)written; /* the marks' written flag */
	return ((const struct lfu_state *)st)->count[b->index];
}

static struct uvm_block *lfu_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	return uvm_evict_pick_least(st, &((struct lfu_state *)st)->m, sp, false, lfu_rank, mask);
}

static const struct uvm_evict_ops ops = {
	.create = lfu_create,
	.destroy = lfu_destroy,
	.on_fill = lfu_fill,
	.on_access = lfu_touch,
	.on_write = uvm_evict_marks_write,
	.pick = lfu_pick,
};

const struct gpuvm_module gpuvm_module_evict_lfu_2mb = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "lfu-2mb",
	.help = "UVMSmart LFU-2MB: whole 2 MB blocks, fewest accesses first (read-only, then LRU, on ties)",
	.ops = &ops,
};
