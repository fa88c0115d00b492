#include "mem/l2_cache.h"

#include <stdlib.h>
#include <string.h>

#include "core/find_u64.h"
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
	c->line_shift = gpuvm_log2_ceil(line_bytes);
	c->sector_shift = gpuvm_log2_ceil(sector_bytes);
	c->sectors_per_line = line_bytes / sector_bytes;
	size_t n = (size_t)c->sets * ways;
	c->tag = calloc(n, sizeof *c->tag);
	c->valid = calloc(n, 1);
	c->dirty = calloc(n, 1);
	if (!c->tag || !c->valid || !c->dirty) {
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
	memset(c, 0, sizeof *c);
}

enum l2_result l2_cache_access(struct l2_cache *c, uint64_t addr, bool write,
			       uint32_t *writeback_sectors)
{
	uint64_t line = addr >> c->line_shift;
	uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
	/* Hashed set index, as GPU L2 slices hash addresses to spread strides. */
	uint64_t h = line * 0x9E3779B97F4A7C15ull;
	size_t base = (size_t)((h >> 32) % c->sets) * c->ways;
	uint64_t key = line + 1;
	uint64_t *tag = &c->tag[base];
	uint8_t *valid = &c->valid[base], *dirty = &c->dirty[base];
	uint32_t last = c->ways - 1;
	uint32_t w = find_u64(tag, c->ways, key);
	enum l2_result r;
	uint8_t v, d;
	if (w <= last) {
		r = (valid[w] & bit) ? L2_HIT : L2_MISS;
		v = valid[w] | bit;
		d = dirty[w] | (write ? bit : 0);
		*writeback_sectors = 0;
	} else { /* the last, least recently used way is the victim */
		w = last;
		r = L2_MISS;
		v = bit;
		d = write ? bit : 0;
		*writeback_sectors = (uint32_t)__builtin_popcount(dirty[w]);
	}
	memmove(&tag[1], &tag[0], w * sizeof *tag);
	memmove(&valid[1], &valid[0], w);
	memmove(&dirty[1], &dirty[0], w);
	tag[0] = key;
	valid[0] = v;
	dirty[0] = d;
	return r;
}
