#include "mem/l2_cache.h"

#include <stdlib.h>
#include <string.h>

#include "core/find_u64.h"
#include "core/lru_stamp.h"
#include "gpuvm/units.h"

static inline uint64_t *set_tags(unsigned char *set)
{
	return (uint64_t *)(void *)set;
}

static inline uint32_t *set_stamps(unsigned char *set, uint32_t ways)
{
	return (uint32_t *)(void *)(set + (size_t)ways * sizeof(uint64_t));
}

static inline uint8_t *set_valid(unsigned char *set, uint32_t ways)
{
	return set + (size_t)ways * (sizeof(uint64_t) + sizeof(uint32_t));
}

static inline uint8_t *set_dirty(unsigned char *set, uint32_t ways)
{
	return set_valid(set, ways) + ways;
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
	return 0;
}

void l2_cache_free(struct l2_cache *c)
{
	free(c->sets_mem);
	memset(c, 0, sizeof *c);
}

/* Advances the LRU clock; when it wraps, every stamp is cleared (recency
 * is forgotten once in 2^32 accesses). */
static uint32_t l2_tick(struct l2_cache *c)
{
	if (++c->clock == 0) {
		for (uint32_t s = 0; s < c->sets; s++)
			memset(set_stamps(c->sets_mem + (size_t)s * c->set_bytes, c->ways), 0,
			       c->ways * sizeof(uint32_t));
		c->clock = 1;
	}
	return c->clock;
}

enum l2_result l2_cache_access(struct l2_cache *c, uint64_t addr, bool write,
			       uint32_t *writeback_sectors)
{
	uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
	unsigned char *set = l2_cache_set(c, addr);
	uint64_t *tag = set_tags(set);
	uint32_t *stamp = set_stamps(set, c->ways);
	uint8_t *valid = set_valid(set, c->ways), *dirty = set_dirty(set, c->ways);
	uint64_t key = (addr >> c->line_shift) + 1;
	uint32_t w = find_u64(tag, c->ways, key);
	uint32_t now = l2_tick(c);
	if (w < c->ways) {
		stamp[w] = now;
		enum l2_result r = (valid[w] & bit) ? L2_HIT : L2_MISS;
		valid[w] |= bit;
		if (write)
			dirty[w] |= bit;
		*writeback_sectors = 0;
		return r;
	}
	w = lru_oldest(stamp, c->ways);
	*writeback_sectors = (uint32_t)__builtin_popcount(dirty[w]);
	tag[w] = key;
	stamp[w] = now;
	valid[w] = bit;
	dirty[w] = write ? bit : 0;
	return L2_MISS;
}

enum l2_result l2_cache_access_fresh(struct l2_cache *c, uint64_t addr, bool write,
				     uint32_t *writeback_sectors, uint32_t block_through,
				     const uint32_t *page_through, uint32_t *stale_sectors,
				     uint32_t *stale_dirty)
{
	unsigned char *set = l2_cache_set(c, addr);
	uint32_t *stamp = set_stamps(set, c->ways);
	uint32_t w = find_u64(set_tags(set), c->ways, (addr >> c->line_shift) + 1);
	if (w < c->ways && stamp[w] <= block_through && stamp[w] <= *page_through) {
		uint8_t *valid = set_valid(set, c->ways), *dirty = set_dirty(set, c->ways);
		*stale_sectors = (uint32_t)__builtin_popcount(valid[w]);
		*stale_dirty = (uint32_t)__builtin_popcount(dirty[w]);
		uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
		stamp[w] = l2_tick(c);
		valid[w] = bit;
		dirty[w] = write ? bit : 0;
		*writeback_sectors = *stale_dirty;
		return L2_MISS;
	}
	*stale_sectors = *stale_dirty = 0;
	return l2_cache_access(c, addr, write, writeback_sectors);
}
