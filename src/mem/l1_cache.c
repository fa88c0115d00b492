/* Per-SM sectored L1 data caches (l1_cache.h).
 *
 * Invariants (l1_cache_check verifies them, naming the number; tests call
 * it after every operation, debug engines at kernel boundaries). Over the
 * lines in use, instances x sets x ways (l1_cache_resize keeps the rest
 * empty):
 *
 *   C1  An empty way (tag 0) has no valid and no dirty sector.
 *   C2  A way holding a line has at least one valid sector (a miss that
 *       allocates sets the sector it fetches).
 *   C3  dirty is a subset of valid, and both lie within sectors_per_line.
 *   C4  A line sits in the set its address maps to in its own instance
 *       (l1_cache_set_base): a tag left stale by a wrong index would hit
 *       for another address.
 *   C5  No line is held by two ways of a set.
 *   C6  No stamp is newer than its instance's clock.
 *   C7  An instance not marked filled holds no line and no stamp (so
 *       l1_cache_invalidate may skip it).
 */
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
	c->clock = calloc(instances, sizeof *c->clock);
	c->filled = calloc(instances, 1);
	if (!c->tag || !c->stamp || !c->valid || !c->dirty || !c->ready || !c->clock || !c->filled) {
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
	free(c->clock);
	free(c->filled);
	memset(c, 0, sizeof *c);
}

static uint32_t l1_tick(struct l1_cache *c, uint32_t sm)
{
	if (__builtin_expect(++c->clock[sm] == 0, 0)) {
		/* forget the instance's recency once in 2^32 of its accesses
		 * (stamp 0 stays "evict first") */
		size_t lines = (size_t)c->sets * c->ways, first = (size_t)sm * lines;
		for (size_t i = first; c->repl->uses_clock && i < first + lines; i++)
			c->stamp[i] = c->stamp[i] ? 1 : 0;
		c->clock[sm] = 2;
	}
	return c->clock[sm];
}

enum l1_result l1_cache_access(struct l1_cache *c, uint32_t sm, uint64_t addr, bool allocate,
			       bool evict_first, bool write, double *ready, double **slot,
			       uint32_t *writeback_sectors)
{
	uint64_t base = l1_cache_set_base(c, sm, addr);
	uint64_t key = (addr >> c->line_shift) + 1;
	uint32_t sector = (uint32_t)(addr >> c->sector_shift) & (c->sectors_per_line - 1);
	uint8_t bit = (uint8_t)(1u << sector);
	uint32_t now = l1_tick(c, sm);
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
	c->filled[sm] = 1;
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
	/* the instances that filled a line since the last invalidation, at
	 * the layout they filled it in (before a resize changes sets): the
	 * others hold nothing (C7), so every array is zero afterwards,
	 * whatever layout comes next */
	size_t lines = (size_t)c->sets * c->ways;
	for (uint32_t sm = 0; sm < c->instances; sm++) {
		if (!c->filled[sm])
			continue;
		size_t first = (size_t)sm * lines;
		memset(c->tag + first, 0, lines * sizeof *c->tag);
		/* an empty way's stamp decides nothing (a fill sets it), but a
		 * resize hands the ways to other instances, whose clocks C6
		 * holds them to */
		memset(c->stamp + first, 0, lines * sizeof *c->stamp);
		memset(c->valid + first, 0, lines);
		memset(c->dirty + first, 0, lines);
		c->filled[sm] = 0;
	}
}

/* ---- invariants (numbered at the top of this file) ----------------- */

#include "core/invariant.h"

#define violated(why, len, n, ...) gpuvm_violated(why, len, "L1", "C", n, __VA_ARGS__)

int l1_cache_check(const struct l1_cache *c, char *why, size_t len)
{
	if (why && len)
		why[0] = 0;
	uint8_t sectors = (uint8_t)((1u << c->sectors_per_line) - 1);
	for (uint32_t sm = 0; sm < c->instances; sm++)
		for (uint32_t set = 0; set < c->sets; set++) {
			uint64_t base = ((uint64_t)sm * c->sets + set) * c->ways;
			for (uint32_t w = 0; w < c->ways; w++) {
				uint64_t i = base + w;
				if (c->stamp[i] > c->clock[sm])
					return violated(why, len, 6, "SM %u set %u way %u: stamp %u past the "
							"clock %u", sm, set, w, c->stamp[i], c->clock[sm]);
				if (!c->tag[i]) {
					if (c->valid[i] || c->dirty[i])
						return violated(why, len, 1, "SM %u set %u way %u: empty way with "
								"sectors valid %#x dirty %#x", sm, set, w,
								c->valid[i], c->dirty[i]);
					if (!c->filled[sm] && c->stamp[i])
						return violated(why, len, 7, "SM %u set %u way %u: stamp %u in an "
								"instance not marked filled", sm, set, w, c->stamp[i]);
					continue;
				}
				if (!c->valid[i])
					return violated(why, len, 2, "SM %u set %u way %u: line %#llx with no "
							"valid sector", sm, set, w,
							(unsigned long long)(c->tag[i] - 1));
				if ((c->dirty[i] & ~c->valid[i]) || (c->valid[i] & ~sectors))
					return violated(why, len, 3, "SM %u set %u way %u: valid %#x dirty %#x "
							"(%u sectors a line)", sm, set, w, c->valid[i],
							c->dirty[i], c->sectors_per_line);
				uint64_t addr = (c->tag[i] - 1) << c->line_shift;
				if (l1_cache_set_base(c, sm, addr) != base)
					return violated(why, len, 4, "SM %u set %u way %u: line %#llx belongs "
							"in another set", sm, set, w,
							(unsigned long long)(c->tag[i] - 1));
				if (!c->filled[sm])
					return violated(why, len, 7, "SM %u set %u way %u: line %#llx in an "
							"instance not marked filled", sm, set, w,
							(unsigned long long)(c->tag[i] - 1));
			}
			uint32_t w, o;
			if (gpuvm_find_duplicate(&c->tag[base], sizeof c->tag[0], c->ways, &w, &o))
				return violated(why, len, 5, "SM %u set %u: line %#llx in ways %u and %u",
						sm, set, (unsigned long long)(c->tag[base + w] - 1), w, o);
		}
	return 0;
}
