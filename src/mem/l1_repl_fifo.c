/* fifo: the line allocated longest ago goes first; hits do not reorder
 * (first in, first out, as in the FIFO baseline of cache replacement
 * studies, e.g. A.J. Smith, "Cache Memories", ACM Computing Surveys 14(3),
 * 1982, section 2.4). A .CS (evict-first) fill is placed first in line. */
#include "gpuvm/module.h"
#include "mem/l1_repl.h"

static void fifo_on_hit(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first)
{
	(void)c;
	(void)i;
	(void)now;
	(void)evict_first;
}

static void fifo_on_fill(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first)
{
	c->stamp[i] = evict_first ? 0 : now;
}

static const struct l1_repl_ops ops = {
	.on_hit = fifo_on_hit,
	.on_fill = fifo_on_fill,
	.victim = l1_repl_oldest,
	.uses_clock = true,
};

const struct gpuvm_module gpuvm_module_l1_repl_fifo = {
	.kind = GPUVM_MODULE_L1_REPLACEMENT,
	.name = "fifo",
	.help = "first in, first out: the oldest allocation goes, hits do not reorder",
	.ops = &ops,
};
