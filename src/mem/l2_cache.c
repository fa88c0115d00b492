#include "mem/l2_cache.h"

#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"

int l2_cache_init(struct l2_cache *c, uint64_t bytes, uint32_t ways,
		  uint32_t line_bytes, uint32_t sector_bytes)
{
	memset(c, 0, sizeof *c);
	if (!ways || !gpuvm_is_pow2(line_bytes) || !gpuvm_is_pow2(sector_bytes) ||
	    line_bytes / sector_bytes > 8 || bytes < (uint64_t)ways * line_bytes)
		return -1;
	c->ways = ways;
	c->sets = (uint32_t)(bytes / ((uint64_t)ways * line_bytes));
	c->line_shift = gpuvm_log2_ceil(line_bytes);
	c->sector_shift = gpuvm_log2_ceil(sector_bytes);
	c->sectors_per_line = line_bytes / sector_bytes;
	c->lines = calloc((size_t)c->sets * ways, sizeof *c->lines);
	return c->lines ? 0 : -1;
}

void l2_cache_free(struct l2_cache *c)
{
	free(c->lines);
	c->lines = NULL;
}

static inline unsigned popcount8(uint8_t x) { return (unsigned)__builtin_popcount(x); }

enum l2_result l2_cache_access(struct l2_cache *c, uint64_t addr, bool write,
			       uint32_t *writeback_sectors)
{
	uint64_t line = addr >> c->line_shift;
	uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
	/* Hashed set index, as GPU L2 slices hash addresses to spread strides. */
	uint64_t h = line * 0x9E3779B97F4A7C15ull;
	struct l2_line *set = &c->lines[(size_t)((h >> 32) % c->sets) * c->ways];
	uint64_t tag = line + 1;
	*writeback_sectors = 0;

	struct l2_line *victim = &set[0];
	for (uint32_t w = 0; w < c->ways; w++) {
		struct l2_line *l = &set[w];
		if (l->tag == tag) {
			l->lru = ++c->stamp;
			enum l2_result r = (l->valid & bit) ? L2_HIT : L2_MISS;
			l->valid |= bit;
			if (write)
				l->dirty |= bit;
			return r;
		}
		if (l->lru < victim->lru)
			victim = l;
	}
	*writeback_sectors = popcount8(victim->dirty);
	victim->tag = tag;
	victim->lru = ++c->stamp;
	victim->valid = bit;
	victim->dirty = write ? bit : 0;
	return L2_MISS;
}
