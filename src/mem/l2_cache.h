/* The GPU's L2 data cache: set associative, sectored (a 128 B line holds
 * four 32 B sectors filled independently, as on NVIDIA parts since Fermi),
 * LRU, write-back. Physically indexed in hardware; the model uses the
 * virtual address because it maps pages one to one. LRU by 32-bit
 * stamps; tags, stamps and sector bits are separate arrays so a set's tags
 * share host cache lines. */
#ifndef GPUVM_L2_CACHE_H
#define GPUVM_L2_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct l2_cache {
	uint32_t sets, ways;
	uint32_t set_mask;  /* sets - 1 when sets is a power of two, else 0 */
	uint32_t line_shift, sector_shift, sectors_per_line;
	uint64_t *tag;     /* [sets * ways] line address + 1, 0 = invalid */
	uint8_t *valid;    /* [sets * ways] sector bitmaps */
	uint8_t *dirty;
	uint32_t *stamp;   /* [sets * ways] last use */
	uint32_t clock;
};

enum l2_result { L2_HIT, L2_MISS };

static inline size_t l2_cache_set_base(const struct l2_cache *c, uint64_t addr)
{
	/* Hashed set index, as GPU L2 slices hash addresses to spread strides. */
	uint64_t h = ((addr >> c->line_shift) * 0x9E3779B97F4A7C15ull) >> 32;
	return (size_t)(c->set_mask ? (h & c->set_mask) : h % c->sets) * c->ways;
}

/* Starts loading the tags of addr's set into the host cache: the engine
 * calls it for a whole warp instruction before serving it, so the host's
 * cache misses on the model's arrays overlap. */
static inline void l2_cache_prefetch(const struct l2_cache *c, uint64_t addr)
{
	__builtin_prefetch(&c->tag[l2_cache_set_base(c, addr)]);
}

int l2_cache_init(struct l2_cache *c, uint64_t bytes, uint32_t ways,
		  uint32_t line_bytes, uint32_t sector_bytes);
void l2_cache_free(struct l2_cache *c);

/* Accesses one sector. A miss allocates it (writes allocate without a
 * fetch). *writeback_sectors receives the number of dirty sectors the
 * eviction pushed out. */
enum l2_result l2_cache_access(struct l2_cache *c, uint64_t addr, bool write,
			       uint32_t *writeback_sectors);

/* l2_cache_access for an address whose frame may have changed: a cached
 * line last used at or before stamp *page_through belongs to the old
 * frame, so it is dropped first (*stale_sectors valid sectors, of them
 * *stale_dirty dirty, which are added to *writeback_sectors: written back
 * as from any victim) and the access misses. block_through (>= any
 * *page_through of the line's block) is checked first, so the page's
 * stamp is read only for hits on lines that may be stale. */
enum l2_result l2_cache_access_fresh(struct l2_cache *c, uint64_t addr, bool write,
				     uint32_t *writeback_sectors, uint32_t block_through,
				     const uint32_t *page_through, uint32_t *stale_sectors,
				     uint32_t *stale_dirty);

#endif
