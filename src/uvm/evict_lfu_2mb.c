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
	uint64_t *count, *stamp; /* [cap] per block */
	bool *written;           /* [cap] per block: a page of it was ever written */
	uint32_t cap;
	uint64_t clock;
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
	free(s->count);
	free(s->stamp);
	free(s->written);
	free(s);
}

/* Room for blocks [0, n). */
static int lfu_reserve(struct lfu_state *s, uint32_t n)
{
	if (n <= s->cap)
		return 0;
	uint32_t cap = s->cap ? s->cap : 256;
	while (cap < n)
		cap *= 2;
	uint64_t *c = realloc(s->count, cap * sizeof *c);
	if (!c)
		return -1;
	s->count = c;
	uint64_t *t = realloc(s->stamp, cap * sizeof *t);
	if (!t)
		return -1;
	s->stamp = t;
	bool *wr = realloc(s->written, cap * sizeof *wr);
	if (!wr)
		return -1;
	s->written = wr;
	for (uint32_t i = s->cap; i < cap; i++) {
		s->count[i] = s->stamp[i] = 0;
		s->written[i] = false;
	}
	s->cap = cap;
	return 0;
}

static int lfu_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	struct lfu_state *s = st;
	if (lfu_reserve(s, sp->n))
		return -1;
	s->stamp[b->index] = ++s->clock;
	return 0;
}

static int lfu_write(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	struct lfu_state *s = st;
	if (lfu_reserve(s, b->index + 1))
		return -1;
	s->written[b->index] = true;
	return 0;
}

static void lfu_touch(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	struct lfu_state *s = st;
	s->count[b->index]++;
	s->stamp[b->index] = ++s->clock;
}

static struct uvm_block *lfu_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct lfu_state *s = st;
	struct uvm_block *best = NULL;
	for (uint32_t i = 0; i < sp->n; i++) {
		struct uvm_block *b = sp->blocks[i];
		if (!b->resident_count)
			continue;
		if (!best) {
			best = b;
			continue;
		}
		uint64_t cb = s->count[i], cw = s->count[best->index];
		bool ro_b = !s->written[i], ro_w = !s->written[best->index];
		if (cb < cw || (cb == cw && ro_b && !ro_w) ||
		    (cb == cw && ro_b == ro_w && s->stamp[i] < s->stamp[best->index]))
			best = b;
	}
	if (best)
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			mask[w] = best->resident[w];
	return best;
}

static const struct uvm_evict_ops ops = {
	.create = lfu_create,
	.destroy = lfu_destroy,
	.on_fill = lfu_fill,
	.on_access = lfu_touch,
	.on_write = lfu_write,
	.pick = lfu_pick,
};

const struct gpuvm_module gpuvm_module_evict_lfu_2mb = {
	.kind = GPUVM_MODULE_EVICT,
	.name = "lfu-2mb",
	.help = "UVMSmart LFU-2MB: whole 2 MB blocks, fewest accesses first (read-only, then LRU, on ties)",
	.ops = &ops,
};
