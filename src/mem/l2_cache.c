/* The L2 data cache (l2_cache.h).
 *
 * Invariants (l2_cache_check verifies them, naming the number; tests call
 * it after every operation, debug engines at kernel boundaries):
 *
 *   L1  An invalid way (tag 0) has no valid and no dirty sector.
 *   L2  dirty is a subset of valid, and both lie within sectors_per_line.
 *   L3  A line sits in the set its address hashes to (l2_cache_set).
 *   L4  No line is held by two ways of a set.
 *   L5  No stamp is newer than the clock; stamps of used ways are
 *       distinct (each access takes a new tick), so recency is a total
 *       order.
 *   L6  16-way sets: the order bytes are a permutation of the ways sorted
 *       by (stamp, way) ascending, so order[0] is the way lru_oldest
 *       would evict.
 */
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

enum l2_result l2_cache_probe(struct l2_cache *c, uint64_t addr, uint32_t stale_through)
{
	unsigned char *set = l2_cache_set(c, addr);
	uint32_t *stamp = l2_set_stamps(set, c->ways);
	uint32_t w = find_u64(l2_set_tags(set), c->ways, (addr >> c->line_shift) + 1);
	if (w >= c->ways || stamp[w] <= stale_through)
		return L2_MISS;
	uint8_t bit = (uint8_t)(1u << ((addr >> c->sector_shift) & (c->sectors_per_line - 1)));
	if (!(l2_set_valid(set, c->ways)[w] & bit))
		return L2_MISS;
	stamp[w] = l2_cache_tick(c);
	if (c->ways == 16)
		lru_order16_use(l2_set_order16(set), w);
	return L2_HIT;
}

uint32_t l2_cache_fill_line(struct l2_cache *c, uint64_t line_key, uint8_t valid, uint8_t dirty)
{
	unsigned char *set = l2_cache_set(c, (line_key - 1) << c->line_shift);
	uint64_t *tag = l2_set_tags(set);
	uint32_t *stamp = l2_set_stamps(set, c->ways);
	uint8_t *v = l2_set_valid(set, c->ways), *d = l2_set_dirty(set, c->ways);
	uint32_t w = find_u64(tag, c->ways, line_key);
	uint32_t now = l2_cache_tick(c);
	uint32_t out = 0;
	if (w < c->ways) {
		v[w] |= valid;
		d[w] |= dirty;
	} else {
		w = c->ways == 16 ? l2_set_order16(set)[0] : lru_oldest(stamp, c->ways);
		out = (uint32_t)__builtin_popcount(d[w]);
		tag[w] = line_key;
		v[w] = valid;
		d[w] = dirty;
	}
	stamp[w] = now;
	if (c->ways == 16)
		lru_order16_use(l2_set_order16(set), w);
	return out;
}

/* ---- invariants (numbered at the top of this file) ----------------- */

#include "core/invariant.h"

#define violated(why, len, n, ...) gpuvm_violated(why, len, "L2", "L", n, __VA_ARGS__)

int l2_cache_check(const struct l2_cache *c, char *why, size_t len)
{
	if (why && len)
		why[0] = 0;
	uint8_t sectors = (uint8_t)((1u << c->sectors_per_line) - 1);
	for (uint32_t s = 0; s < c->sets; s++) {
		unsigned char *set = c->sets_mem + (size_t)s * c->set_bytes;
		const uint64_t *tag = l2_set_tags(set);
		const uint32_t *stamp = l2_set_stamps(set, c->ways);
		const uint8_t *valid = l2_set_valid(set, c->ways), *dirty = l2_set_dirty(set, c->ways);
		for (uint32_t w = 0; w < c->ways; w++) {
			if (stamp[w] > c->clock)
				return violated(why, len, 5, "set %u way %u: stamp %u past the clock %u", s, w,
						stamp[w], c->clock);
			if (!tag[w]) {
				if (valid[w] || dirty[w])
					return violated(why, len, 1, "set %u way %u: invalid way with sectors "
							"valid %#x dirty %#x", s, w, valid[w], dirty[w]);
				continue;
			}
			if ((dirty[w] & ~valid[w]) || (valid[w] & ~sectors))
				return violated(why, len, 2, "set %u way %u: valid %#x dirty %#x", s, w,
						valid[w], dirty[w]);
			if (l2_cache_set(c, (tag[w] - 1) << c->line_shift) != set)
				return violated(why, len, 3, "set %u way %u: line %#llx belongs in another set",
						s, w, (unsigned long long)(tag[w] - 1));
		}
		uint32_t w, o;
		if (gpuvm_find_duplicate(stamp, sizeof *stamp, c->ways, &w, &o))
			return violated(why, len, 5, "set %u: ways %u and %u share stamp %u", s, w, o,
					stamp[w]);
		if (gpuvm_find_duplicate(tag, sizeof *tag, c->ways, &w, &o))
			return violated(why, len, 4, "set %u: line %#llx in ways %u and %u", s,
					(unsigned long long)(tag[w] - 1), w, o);
		if (c->ways != 16)
			continue;
		const uint8_t *ord = l2_set_order16(set);
		uint32_t seen = 0;
		for (uint32_t i = 0; i < 16; i++) {
			if (ord[i] >= 16 || (seen >> ord[i] & 1))
				return violated(why, len, 6, "set %u: the order is not a permutation of the ways", s);
			seen |= 1u << ord[i];
			if (i && (stamp[ord[i - 1]] > stamp[ord[i]] ||
				  (stamp[ord[i - 1]] == stamp[ord[i]] && ord[i - 1] > ord[i])))
				return violated(why, len, 6, "set %u: way %u (stamp %u) ordered before way %u "
						"(stamp %u)", s, ord[i - 1], stamp[ord[i - 1]], ord[i],
						stamp[ord[i]]);
		}
	}
	return 0;
}
