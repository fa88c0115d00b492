/* The GPU's L2 data cache: set associative, sectored (a 128 B line holds
 * four 32 B sectors filled independently, as on NVIDIA parts since Fermi),
 * LRU, write-back. Physically indexed in hardware; the model uses the
 * virtual address because it maps pages one to one. Each set keeps its
 * ways in recency order (move to front, evict the last), in separate tag
 * and sector-bit arrays so a set's tags share cache lines. */
#ifndef GPUVM_L2_CACHE_H
#define GPUVM_L2_CACHE_H

#include <stdbool.h>
#include <stdint.h>

struct l2_cache {
	uint32_t sets, ways;
	uint32_t line_shift, sector_shift, sectors_per_line;
	uint64_t *tag;     /* [sets * ways] line address + 1, 0 = invalid */
	uint8_t *valid;    /* [sets * ways] sector bitmaps */
	uint8_t *dirty;
};

enum l2_result { L2_HIT, L2_MISS };

int l2_cache_init(struct l2_cache *c, uint64_t bytes, uint32_t ways,
		  uint32_t line_bytes, uint32_t sector_bytes);
void l2_cache_free(struct l2_cache *c);

/* Accesses one sector. A miss allocates it (writes allocate without a
 * fetch). *writeback_sectors receives the number of dirty sectors the
 * eviction pushed out. */
enum l2_result l2_cache_access(struct l2_cache *c, uint64_t addr, bool write,
			       uint32_t *writeback_sectors);

#endif
