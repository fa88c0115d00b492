/* The GPU's L2 data cache: set associative, sectored (a 128 B line holds
 * four 32 B sectors filled independently, as on NVIDIA parts since Fermi),
 * LRU, write-back. Physically indexed in hardware; the model uses the
 * virtual address because it maps pages one to one. LRU by 32-bit
 * stamps. A set's tags, stamps and sector bits sit together in one block
 * of whole host cache lines (256 B for 16 ways), so an access touches only
 * the lines of its set and they can be prefetched together. */
#ifndef GPUVM_L2_CACHE_H
#define GPUVM_L2_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct l2_cache {
	uint32_t sets, ways;
	uint32_t set_mask;  /* sets - 1 when sets is a power of two, else 0 */
	uint32_t line_shift, sector_shift, sectors_per_line;
	uint32_t set_bytes; /* one set's block: tags, stamps, valid, dirty */
	unsigned char *sets_mem;
	uint32_t clock;
};

enum l2_result { L2_HIT, L2_MISS };

/* The block of addr's set. Each block holds, per way: the line address + 1
 * (uint64_t, 0 = invalid), then the last-use stamps (uint32_t), then the
 * valid and the dirty sector bitmaps (uint8_t). */
static inline unsigned char *l2_cache_set(const struct l2_cache *c, uint64_t addr)
{
	/* Hashed set index, as GPU L2 slices hash addresses to spread strides. */
	uint64_t h = ((addr >> c->line_shift) * 0x9E3779B97F4A7C15ull) >> 32;
	size_t set = c->set_mask ? (h & c->set_mask) : h % c->sets;
	return c->sets_mem + set * c->set_bytes;
}

/* Starts loading addr's set into the host cache: the engine calls it for a
 * whole warp instruction before serving it, so the host's cache misses on
 * the model's arrays overlap. The tags' first line and the set's last
 * (stamps and sector bits for 16 ways) are what every access reads. */
static inline void l2_cache_prefetch(const struct l2_cache *c, uint64_t addr)
{
	const unsigned char *set = l2_cache_set(c, addr);
	__builtin_prefetch(set);
	__builtin_prefetch(set + c->set_bytes - 1);
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
