#include "mem/l2_cache.h"

#include <stdlib.h>
#include <string.h>

#include "core/find_u64.h"
#include "core/lru_stamp.h"
#include "gpuvm/units.h"

int l2_cache_init(struct l2_cache *c, uint64_t bytes, uint32_t ways,
		  uint32_t line_bytes, uint32_t sector_bytes)
{
	memset(c, 0, sizeof *c);
	if (!ways || !gpuvm_is_pow2(line_bytes) || !gpuvm_is_pow2(sector_bytes) ||
	    line_bytes < sector_bytes || line_bytes / sector_bytes > 8 ||
	    bytes < (uint64_t)ways * line_bytes)
		return -1;
	c->ways = ways;
	c->sets = (uint32_t)(bytes / ((uint64_t)ways * line_bytes));
	c->set_mask = gpuvm_is_pow2(c->sets) ? c->sets - 1 : 0;
	c->line_shift = gpuvm_log2_ceil(line_bytes);
	c->sector_shift = gpuvm_log2_ceil(sector_bytes);
	c->sectors_per_line = line_bytes / sector_bytes;
	size_t n = (size_t)c->sets * ways;
	c->tag = calloc(n, sizeof *c->tag);
	c->valid = calloc(n, 1);
	c->dirty = calloc(n, 1);
	c->stamp = calloc(n, sizeof *c->stamp);
	if (!c->tag || !c->valid || !c->dirty || !c->stamp) {
		l2_cache_free(c);
		return -1;
	}
	return 0;
}

void l2_cache_free(struct l2_cache *c)
{
	free(c->tag);
	free(c->valid);
	free(c->dirty);
	free(c->stamp);
	memset(c, 0, sizeof *c);
}

enum l2_result l2_cache_access(struct l2_cache *c, uint64_t addr, bool write,
			       uint32_t *writeback_sectors)
{
	uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
	size_t base = l2_cache_set_base(c, addr);
	uint64_t key = (addr >> c->line_shift) + 1;
	uint32_t w = find_u64(&c->tag[base], c->ways, key);
	uint32_t now = lru_tick(&c->clock, c->stamp, (size_t)c->sets * c->ways);
	if (w < c->ways) {
		size_t i = base + w;
		c->stamp[i] = now;
		enum l2_result r = (c->valid[i] & bit) ? L2_HIT : L2_MISS;
		c->valid[i] |= bit;
		if (write)
			c->dirty[i] |= bit;
		*writeback_sectors = 0;
		return r;
	}
	size_t i = base + lru_oldest(&c->stamp[base], c->ways);
	*writeback_sectors = (uint32_t)__builtin_popcount(c->dirty[i]);
	c->tag[i] = key;
	c->stamp[i] = now;
	c->valid[i] = bit;
	c->dirty[i] = write ? bit : 0;
	return L2_MISS;
}

enum l2_result l2_cache_access_fresh(struct l2_cache *c, uint64_t addr, bool write,
				     uint32_t *writeback_sectors, uint32_t block_through,
				     const uint32_t *page_through, uint32_t *stale_sectors,
				     uint32_t *stale_dirty)
{
	size_t base = l2_cache_set_base(c, addr);
	uint32_t w = find_u64(&c->tag[base], c->ways, (addr >> c->line_shift) + 1);
	if (w < c->ways && c->stamp[base + w] <= block_through && c->stamp[base + w] <= *page_through) {
		size_t i = base + w;
		*stale_sectors = (uint32_t)__builtin_popcount(c->valid[i]);
		*stale_dirty = (uint32_t)__builtin_popcount(c->dirty[i]);
		uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
		c->stamp[i] = lru_tick(&c->clock, c->stamp, (size_t)c->sets * c->ways);
		c->valid[i] = bit;
		c->dirty[i] = write ? bit : 0;
		*writeback_sectors = *stale_dirty;
		return L2_MISS;
	}
	*stale_sectors = *stale_dirty = 0;
	return l2_cache_access(c, addr, write, writeback_sectors);
}
