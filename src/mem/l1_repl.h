/* L1 data cache replacement policies (l1.replacement), one module each:
 * src/mem/l1_repl_NAME.c holds the ops table and its descriptor
 * (gpuvm/module.h, kind GPUVM_MODULE_L1_REPLACEMENT) listed in
 * src/core/module_registry.c.
 *
 * Contract: a policy owns the per-line word c->stamp[i] and nothing else of
 * the cache. The cache calls on_hit for every lookup that finds the line
 * (evict_first: a .CS load, which must not make the line worth keeping),
 * on_fill when a line is (re)allocated, and victim only when the set has
 * no empty way. `now` is the cache's access counter, which starts at 1 and
 * is renormalised (every nonzero stamp to 1) once in 2^32 accesses when
 * uses_clock is set. */
#ifndef GPUVM_L1_REPL_H
#define GPUVM_L1_REPL_H

#include <stdbool.h>
#include <stdint.h>

#include "mem/l1_cache.h"

struct l1_repl_ops {
	void (*on_hit)(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first);
	void (*on_fill)(struct l1_cache *c, uint64_t i, uint32_t now, bool evict_first);
	/* the way (0 .. ways-1) to evict from the full set starting at base */
	uint32_t (*victim)(struct l1_cache *c, uint64_t base);
	bool uses_clock; /* stamps hold l1 clock values */
};

/* The least stamp of the set, the first such way (LRU and FIFO). */
static inline uint32_t l1_repl_oldest(struct l1_cache *c, uint64_t base)
{
	uint32_t v = 0, oldest = UINT32_MAX;
	for (uint32_t k = 0; k < c->ways; k++)
		if (c->stamp[base + k] < oldest) {
			oldest = c->stamp[base + k];
			v = k;
		}
	return v;
}

#endif
