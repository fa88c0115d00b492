/* The GPU's L2 data cache: set associative, sectored (a 128 B line holds
 * four 32 B sectors filled independently, as on NVIDIA parts since Fermi),
 * LRU, write-back. Physically indexed in hardware; the model uses the
 * virtual address because it maps pages one to one. LRU by 32-bit
 * stamps; 16-way sets also keep their ways in recency order (one byte
 * each, core/lru_stamp.h) in the spare end of their block, so a miss
 * takes its victim without a scan of the stamps. A set's tags, stamps and sector bits sit together in one block
 * of whole host cache lines (256 B for 16 ways), so an access touches only
 * the lines of its set and they can be prefetched together. */
#ifndef GPUVM_L2_CACHE_H
#define GPUVM_L2_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/find_u64.h"
#include "core/lru_stamp.h"

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

static inline uint64_t *l2_set_tags(unsigned char *set)
{
	return (uint64_t *)(void *)set;
}

static inline uint32_t *l2_set_stamps(unsigned char *set, uint32_t ways)
{
	return (uint32_t *)(void *)(set + (size_t)ways * sizeof(uint64_t));
}

static inline uint8_t *l2_set_valid(unsigned char *set, uint32_t ways)
{
	return set + (size_t)ways * (sizeof(uint64_t) + sizeof(uint32_t));
}

static inline uint8_t *l2_set_dirty(unsigned char *set, uint32_t ways)
{
	return l2_set_valid(set, ways) + ways;
}

/* 16 ways only: the recency order, after the dirty bits (bytes 224..239 of
 * the 256-byte block). */
static inline uint8_t *l2_set_order16(unsigned char *set)
{
	return set + 16 * 14;
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

/* Advances the LRU clock (l2_cache_clock_wrapped clears every stamp when
 * it wraps, forgetting recency once in 2^32 accesses). */
void l2_cache_clock_wrapped(struct l2_cache *c);

static inline uint32_t l2_cache_tick(struct l2_cache *c)
{
	if (__builtin_expect(++c->clock == 0, 0))
		l2_cache_clock_wrapped(c);
	return c->clock;
}

/* The line a miss evicted (l2_cache_access_victim): key = line address
 * + 1 (0: the way was invalid, nothing left), its valid and dirty
 * sectors. */
struct l2_victim {
	uint64_t key;
	uint8_t valid, dirty;
};

/* l2_cache_access, and where vic is not NULL the line a miss evicted. */
static inline __attribute__((always_inline)) enum l2_result
l2_cache_access_core(struct l2_cache *c, uint64_t addr, bool write, uint32_t *writeback_sectors,
		     struct l2_victim *vic)
{
	uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
	unsigned char *set = l2_cache_set(c, addr);
	uint64_t *tag = l2_set_tags(set);
	uint32_t *stamp = l2_set_stamps(set, c->ways);
	uint8_t *valid = l2_set_valid(set, c->ways), *dirty = l2_set_dirty(set, c->ways);
	uint64_t key = (addr >> c->line_shift) + 1;
	uint32_t w = find_u64(tag, c->ways, key);
	uint32_t now = l2_cache_tick(c);
	if (w < c->ways) {
		stamp[w] = now;
		if (c->ways == 16)
			lru_order16_use(l2_set_order16(set), w);
		enum l2_result r = (valid[w] & bit) ? L2_HIT : L2_MISS;
		valid[w] |= bit;
		if (write)
			dirty[w] |= bit;
		*writeback_sectors = 0;
		if (vic)
			vic->key = 0;
		return r;
	}
	if (c->ways == 16) {
		uint8_t *ord = l2_set_order16(set);
		w = ord[0];
		lru_order16_use(ord, w);
	} else {
		w = lru_oldest(stamp, c->ways);
	}
	*writeback_sectors = (uint32_t)__builtin_popcount(dirty[w]);
	if (vic) {
		vic->key = tag[w];
		vic->valid = valid[w];
		vic->dirty = dirty[w];
	}
	tag[w] = key;
	stamp[w] = now;
	valid[w] = bit;
	dirty[w] = write ? bit : 0;
	return L2_MISS;
}

/* The slot of addr's sector, (set x ways + way) x sectors_per_line +
 * sector, for an owner that keeps a value per sector (memsys's fill
 * times, l2.in_flight = wait); the line must be here (just accessed). */
static inline uint32_t l2_cache_slot(const struct l2_cache *c, uint64_t addr)
{
	unsigned char *set = l2_cache_set(c, addr);
	uint32_t w = find_u64(l2_set_tags(set), c->ways, (addr >> c->line_shift) + 1);
	uint32_t s = (uint32_t)((size_t)(set - c->sets_mem) / c->set_bytes);
	return (s * c->ways + w) * c->sectors_per_line +
	       (uint32_t)((addr >> c->sector_shift) & (c->sectors_per_line - 1));
}

/* l2_cache_slot for a line that may have left since it was accessed
 * (a later sector of the same request evicted it): UINT32_MAX then. */
static inline uint32_t l2_cache_slot_if_here(const struct l2_cache *c, uint64_t addr)
{
	unsigned char *set = l2_cache_set(c, addr);
	uint32_t w = find_u64(l2_set_tags(set), c->ways, (addr >> c->line_shift) + 1);
	if (w >= c->ways)
		return UINT32_MAX;
	uint32_t s = (uint32_t)((size_t)(set - c->sets_mem) / c->set_bytes);
	return (s * c->ways + w) * c->sectors_per_line +
	       (uint32_t)((addr >> c->sector_shift) & (c->sectors_per_line - 1));
}

/* Accesses one sector. A miss allocates it (writes allocate without a
 * fetch). *writeback_sectors receives the number of dirty sectors the
 * eviction pushed out. Inline: the engine calls it for every sector. */
static inline __attribute__((always_inline)) enum l2_result
l2_cache_access(struct l2_cache *c, uint64_t addr, bool write, uint32_t *writeback_sectors)
{
	return l2_cache_access_core(c, addr, write, writeback_sectors, NULL);
}

/* l2_cache_access that also says which line a miss evicted (*vic), for
 * an owner that moves victims elsewhere (the far partition, memsys.h):
 * *writeback_sectors is then the victim's dirty count as before, and the
 * owner decides whether they are written back or moved. */
static inline __attribute__((always_inline)) enum l2_result
l2_cache_access_victim(struct l2_cache *c, uint64_t addr, bool write, uint32_t *writeback_sectors,
		       struct l2_victim *vic)
{
	return l2_cache_access_core(c, addr, write, writeback_sectors, vic);
}

/* Whether addr's sector is valid here, without allocating anything: a hit
 * counts as a use (the line becomes most recent); a line last used at or
 * before stale_through (a frame the page has left, l2_cache_access_fresh;
 * 0 = none) does not hit. */
enum l2_result l2_cache_probe(struct l2_cache *c, uint64_t addr, uint32_t stale_through);

/* Installs the line with key line_key (line address + 1) holding the
 * valid and dirty sectors given, as most recent: merged into the line
 * when it is here (sectors ORed), else in the set's least recent way.
 * Returns the dirty sectors of the line that made room (0 on a merge). */
uint32_t l2_cache_fill_line(struct l2_cache *c, uint64_t line_key, uint8_t valid, uint8_t dirty);

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

/* Checks the invariants numbered at the top of l2_cache.c: 0 when they
 * hold, else the number of the first one violated, with why (may be NULL)
 * saying where. Walks every set: for tests and debug builds. */
int l2_cache_check(const struct l2_cache *c, char *why, size_t len);

#endif
