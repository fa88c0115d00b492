#include "mem/l2_cache.h"

#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"

/* Every 16-way set's recency order to way order (the order of all-zero
 * stamps). */
static void l2_reset_orders(struct l2_cache *c)
{
	if (c->ways != 16)
		return;
	for (uint32_t s = 0; s < c->sets; s++)
		lru_order16_reset(l2_set_order16(c->sets_mem + (size_t)s * c->set_bytes));
}

int l2_cache_init(struct l2_cache *c, uint64_t bytes, uint32_t ways,
		  uint32_t line_bytes, uint32_t sector_bytes)
{
	memset(c, 0, sizeof *c);
	if (!ways || ways > 4096 || !gpuvm_is_pow2(line_bytes) || !gpuvm_is_pow2(sector_bytes) ||
	    line_bytes < sector_bytes || line_bytes / sector_bytes > 8 ||
	    bytes < (uint64_t)ways * line_bytes)
		return -1;
	c->ways = ways;
	c->sets = (uint32_t)(bytes / ((uint64_t)ways * line_bytes));
	c->set_mask = gpuvm_is_pow2(c->sets) ? c->sets - 1 : 0;
	c->line_shift = gpuvm_log2_ceil(line_bytes);
	c->sector_shift = gpuvm_log2_ceil(sector_bytes);
	c->sectors_per_line = line_bytes / sector_bytes;
	/* 8 + 4 + 1 + 1 bytes a way, rounded up to whole 64 B host lines */
	c->set_bytes = (ways * 14 + 63) & ~63u;
	c->sets_mem = aligned_alloc(64, (size_t)c->sets * c->set_bytes);
	if (!c->sets_mem)
		return -1;
	memset(c->sets_mem, 0, (size_t)c->sets * c->set_bytes);
	l2_reset_orders(c);
	return 0;
}

void l2_cache_free(struct l2_cache *c)
{
	free(c->sets_mem);
	memset(c, 0, sizeof *c);
}

/* The LRU clock wrapped: every stamp is cleared (recency is forgotten
 * once in 2^32 accesses). */
void l2_cache_clock_wrapped(struct l2_cache *c)
{
	for (uint32_t s = 0; s < c->sets; s++)
		memset(l2_set_stamps(c->sets_mem + (size_t)s * c->set_bytes, c->ways), 0,
		       c->ways * sizeof(uint32_t));
	l2_reset_orders(c);
	c->clock = 1;
}

enum l2_result l2_cache_access_fresh(struct l2_cache *c, uint64_t addr, bool write,
				     uint32_t *writeback_sectors, uint32_t block_through,
				     const uint32_t *page_through, uint32_t *stale_sectors,
				     uint32_t *stale_dirty)
{
	unsigned char *set = l2_cache_set(c, addr);
	uint32_t *stamp = l2_set_stamps(set, c->ways);
	uint32_t w = find_u64(l2_set_tags(set), c->ways, (addr >> c->line_shift) + 1);
	if (w < c->ways && stamp[w] <= block_through && stamp[w] <= *page_through) {
		uint8_t *valid = l2_set_valid(set, c->ways), *dirty = l2_set_dirty(set, c->ways);
		*stale_sectors = (uint32_t)__builtin_popcount(valid[w]);
		*stale_dirty = (uint32_t)__builtin_popcount(dirty[w]);
		uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
		stamp[w] = l2_cache_tick(c);
		if (c->ways == 16)
			lru_order16_use(l2_set_order16(set), w);
		valid[w] = bit;
		dirty[w] = write ? bit : 0;
		*writeback_sectors = *stale_dirty;
		return L2_MISS;
	}
	*stale_sectors = *stale_dirty = 0;
	return l2_cache_access(c, addr, write, writeback_sectors);
}
