/* lru: least recently used, the L1's policy before l1.replacement existed
 * (and the default). A hit refreshes the line, except a .CS (evict-first)
 * load's, whose line stays first in line for eviction, as does a line a
 * .CS load allocates (stamp 0). */
#include "gpuvm/module.h"
#include "mem/l1_repl.h"

static void lru_on_hit(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first)
{
	if (!evict_first)
		c->stamp[i] = now;
}

static void lru_on_fill(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first)
{
	c->stamp[i] = evict_first ? 0 : now;
}

static const struct l1_repl_ops ops = {
	.on_hit = lru_on_hit,
	.on_fill = lru_on_fill,
	.victim = l1_repl_oldest,
	.uses_clock = true,
};

const struct gpuvm_module gpuvm_module_l1_repl_lru = {
	.kind = GPUVM_MODULE_L1_REPLACEMENT,
	.name = "lru",
	.help = "least recently used (default)",
	.ops = &ops,
};
