/* lfu-ac: the access-counter LFU of Ganguly et al. (seeds/004 IV,
 * "Access Counter Based Page Replacement"): whole 2 MB large pages, the
 * coldest first by the same access counters that drive delayed migration
 * (the sum of the 64 KB blocks' 27-bit counts, halved on saturation and
 * counting local and remote accesses), read-only pages first on ties, and
 * LRU when the counts are equal ("falls back to the LRU policy" for
 * regular applications). It differs from lfu-2mb, which keeps its own
 * 64-bit per-block count that is never halved and counts only accesses to
 * resident pages. */
#include "uvm/evict.h"
#include "uvm/migrate.h"

#include <stdlib.h>

struct lfu_ac_state {
	uint64_t *stamp; /* [cap] per block: last fill or access */
	uint32_t cap;
	uint64_t clock;
};

static int lfu_ac_create(void **st)
{
	*st = calloc(1, sizeof(struct lfu_ac_state));
	return *st ? 0 : -1;
}

static void lfu_ac_destroy(void *st)
{
	struct lfu_ac_state *s = st;
	if (!s)
		return;
	free(s->stamp);
	free(s);
}

static int lfu_ac_fill(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	struct lfu_ac_state *s = st;
	if (sp->n > s->cap) {
		uint32_t cap = s->cap ? s->cap : 256;
		while (cap < sp->n)
			cap *= 2;
		uint64_t *t = realloc(s->stamp, cap * sizeof *t);
		if (!t)
			return -1;
		s->stamp = t;
		for (uint32_t i = s->cap; i < cap; i++)
			s->stamp[i] = 0;
		s->cap = cap;
	}
	s->stamp[b->index] = ++s->clock;
	return 0;
}

static void lfu_ac_touch(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	struct lfu_ac_state *s = st;
	if (b->index < s->cap)
		s->stamp[b->index] = ++s->clock;
}

static struct uvm_block *lfu_ac_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct lfu_ac_state *s = st;
	struct uvm_block *best = NULL;
	uint64_t cw = 0;
	bool ro_w = false;
	for (uint32_t i = 0; i < sp->n; i++) {
		struct uvm_block *b = sp->blocks[i];
		if (!b->resident_count || (b == sp->filling && sp->resident_pages > b->resident_count))
			continue;
		uint64_t cb = uvm_ac_block_count(b);
		bool ro_b = mask_empty(b->written_ever);
		uint64_t sb = i < s->cap ? s->stamp[i] : 0, sw = best && best->index < s->cap ? s->stamp[best->index] : 0;
		if (!best || cb < cw || (cb == cw && ro_b && !ro_w) || (cb == cw && ro_b == ro_w && sb < sw)) {
			best = b;
			cw = cb;
			ro_w = ro_b;
		}
	}
	if (best)
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			mask[w] = best->resident[w];
	return best;
}

const struct uvm_evict_ops uvm_evict_lfu_ac = {
	.name = "lfu-ac",
	.help = "Ganguly's access-counter LFU: whole 2 MB blocks, lowest access-counter sum first "
		"(read-only, then LRU, on ties)",
	.create = lfu_ac_create,
	.destroy = lfu_ac_destroy,
	.on_fill = lfu_ac_fill,
	.on_access = lfu_ac_touch,
	.pick = lfu_ac_pick,
	.uses_access_counters = true,
};
