/* Per-SM sectored L1 data caches (l1_cache.h). */
#include "mem/l1_cache.h"

#include <stdlib.h>
#include <string.h>

#include "gpuvm/module.h"
#include "mem/l1_repl.h"

extern const struct gpuvm_module gpuvm_module_l1_repl_lru;

int l1_cache_init(struct l1_cache *c, uint32_t instances, uint64_t bytes, uint32_t ways,
		  uint32_t line_bytes, uint32_t sector_bytes)
{
	memset(c, 0, sizeof *c);
	if (!instances || !ways || !line_bytes || !sector_bytes || line_bytes % sector_bytes ||
	    line_bytes / sector_bytes > 8 || bytes % ((uint64_t)ways * line_bytes))
		return -1;
	c->instances = instances;
	c->ways = ways;
	c->sets = (uint32_t)(bytes / ((uint64_t)ways * line_bytes));
	if (!c->sets)
		return -1;
	c->max_sets = c->sets;
	c->repl = gpuvm_module_l1_repl_lru.ops;
	c->line_shift = (uint32_t)__builtin_ctz(line_bytes);
	c->sector_shift = (uint32_t)__builtin_ctz(sector_bytes);
	c->sectors_per_line = line_bytes / sector_bytes;
	size_t lines = (size_t)instances * c->sets * ways;
	c->tag = calloc(lines, sizeof *c->tag);
	c->stamp = calloc(lines, sizeof *c->stamp);
	c->valid = calloc(lines, 1);
	c->dirty = calloc(lines, 1);
	c->ready = calloc(lines * c->sectors_per_line, sizeof *c->ready);
	if (!c->tag || !c->stamp || !c->valid || !c->dirty || !c->ready) {
		l1_cache_free(c);
		return -1;
	}
	return 0;
}

int l1_cache_set_replacement(struct l1_cache *c, const char *name)
{
	const struct gpuvm_module *m = gpuvm_module_find(GPUVM_MODULE_L1_REPLACEMENT, name);
	if (!m)
		return -1;
	c->repl = m->ops;
	return 0;
}

void l1_cache_free(struct l1_cache *c)
{
	free(c->tag);
	free(c->stamp);
	free(c->valid);
	free(c->dirty);
	free(c->ready);
	memset(c, 0, sizeof *c);
}

static uint32_t l1_tick(struct l1_cache *c)
{
	if (__builtin_expect(++c->clock == 0, 0)) {
		/* forget recency once in 2^32 accesses (stamp 0 stays "evict first") */
		size_t lines = (size_t)c->instances * c->sets * c->ways;
		for (size_t i = 0; c->repl->uses_clock && i < lines; i++)
			c->stamp[i] = c->stamp[i] ? 1 : 0;
		c->clock = 2;
	}
	return c->clock;
}

enum l1_result l1_cache_access(struct l1_cache *c, uint32_t sm, uint64_t addr, bool allocate,
			       bool evict_first, bool write, double *ready, double **slot,
			       uint32_t *writeback_sectors)
{
	uint64_t base = l1_cache_set_base(c, sm, addr);
	uint64_t key = (addr >> c->line_shift) + 1;
	uint32_t sector = (uint32_t)(addr >> c->sector_shift) & (c->sectors_per_line - 1);
	uint8_t bit = (uint8_t)(1u << sector);
	uint32_t now = l1_tick(c);
	*writeback_sectors = 0;
	*slot = NULL;
	uint32_t w = find_u64(c->tag + base, c->ways, key);
	if (w < c->ways) {
		uint64_t i = base + w;
		c->repl->on_hit(c, i, now, evict_first);
		double *r = &c->ready[i * c->sectors_per_line + sector];
		if (c->valid[i] & bit) {
			if (write)
				c->dirty[i] |= bit;
			*ready = *r;
			return L1_HIT;
		}
		if (!allocate)
			return L1_MISS;
		c->valid[i] |= bit;
		if (write)
			c->dirty[i] |= bit;
		*slot = r;
		return L1_MISS;
	}
	if (!allocate)
		return L1_MISS;
	/* victim: an empty way, else the replacement policy's */
	uint32_t v = find_u64(c->tag + base, c->ways, 0);
	if (v == c->ways)
		v = c->repl->victim(c, base);
	uint64_t i = base + v;
	if (c->tag[i])
		*writeback_sectors = (uint32_t)__builtin_popcount(c->dirty[i]);
	c->tag[i] = key;
	c->repl->on_fill(c, i, now, evict_first);
	c->valid[i] = bit;
	c->dirty[i] = write ? bit : 0;
	*slot = &c->ready[i * c->sectors_per_line + sector];
	return L1_MISS;
}

bool l1_cache_write_through(struct l1_cache *c, uint32_t sm, uint64_t addr, double t)
{
	uint64_t base = l1_cache_set_base(c, sm, addr);
	uint32_t w = find_u64(c->tag + base, c->ways, (addr >> c->line_shift) + 1);
	if (w == c->ways)
		return false;
	uint32_t sector = (uint32_t)(addr >> c->sector_shift) & (c->sectors_per_line - 1);
	uint64_t i = base + w;
	if (!(c->valid[i] & (1u << sector)))
		return false;
	(void)t; /* the line keeps its arrival time: the store updates it in place */
	return true;
}

void l1_cache_resize(struct l1_cache *c, uint64_t bytes)
{
	l1_cache_invalidate(c);
	uint64_t sets = bytes / ((uint64_t)c->ways << c->line_shift);
	c->sets = sets < 1 ? 1 : sets > c->max_sets ? c->max_sets : (uint32_t)sets;
}

void l1_cache_invalidate(struct l1_cache *c)
{
	size_t lines = (size_t)c->instances * c->sets * c->ways;
	memset(c->tag, 0, lines * sizeof *c->tag);
	memset(c->valid, 0, lines);
	memset(c->dirty, 0, lines);
}
