/* The SMs' L1 data caches: one instance per SM, set associative,
 * sectored (a line of l1.line_size holds sectors of l2.sector_size that
 * fill independently: a miss fetches only the sectors addressed, never
 * the whole line, as on NVIDIA parts since Pascal: NVIDIA developer forum
 * thread "pascal-l1-cache", answer 14). The replacement policy is a module
 * (l1.replacement: lru, the default and the only one before the key; fifo;
 * srrip), an ops table in src/mem/l1_repl_NAME.c (l1_repl.h) that owns the
 * per-line stamp: recency, insertion order or re-reference prediction.
 *
 * Each sector keeps the cycle its data arrives, so a hit on a sector
 * whose fill is still on its way waits for that fill (the MSHR merge of
 * a real L1) instead of returning early. Policies are the caller's:
 * global loads allocate (or not, per part and cache operator), global
 * stores write through without allocating, local accesses allocate and
 * are written back when evicted (local data is private to its thread). */
#ifndef GPUVM_L1_CACHE_H
#define GPUVM_L1_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/find_u64.h"

struct l1_repl_ops;

struct l1_cache {
	uint32_t instances, sets, ways;
	uint32_t max_sets; /* allocated; sets <= max_sets (l1_cache_resize) */
	uint32_t line_shift, sector_shift, sectors_per_line;
	uint64_t *tag;     /* [instances * sets * ways] line address + 1, 0 = empty */
	uint32_t *stamp;   /* the replacement policy's per-line state (LRU: last use; 0 = evict first) */
	uint8_t *valid, *dirty; /* sector bitmaps */
	double *ready;     /* [.. * sectors_per_line] cycle each sector's data is there */
	/* [instances]: each instance's own recency clock, so that instances
	 * touched by different threads (the split barrier's SM groups,
	 * src/sm/sm_split.c) share nothing; a set's stamps are its own
	 * instance's, so recency within it is as one shared clock gave */
	uint32_t *clock;
	/* [instances]: 1 once the instance allocated a line since the last
	 * invalidation, so that l1_cache_invalidate clears only those (a
	 * launch invalidates every SM's L1, and most runs of one SM's probe
	 * or a small grid leave most of them empty: the memset was a tenth
	 * of a TLB probe's time) */
	uint8_t *filled;
	const struct l1_repl_ops *repl; /* lru unless l1_cache_set_replacement() */
};

enum l1_result { L1_HIT, L1_MISS };

int l1_cache_init(struct l1_cache *c, uint32_t instances, uint64_t bytes, uint32_t ways,
		  uint32_t line_bytes, uint32_t sector_bytes);
void l1_cache_free(struct l1_cache *c);
/* Chooses the replacement module named name (l1.replacement); before any
 * access. 0, or -1 for an unknown name. */
int l1_cache_set_replacement(struct l1_cache *c, const char *name);

/* The way holding addr's line in instance sm, or NULL; *base receives
 * the index of the set's first way. */
static inline uint64_t l1_cache_set_base(const struct l1_cache *c, uint32_t sm, uint64_t addr)
{
	uint64_t line = addr >> c->line_shift;
	/* hashed index, so strided footprints spread over the sets */
	uint64_t h = (line * 0x9E3779B97F4A7C15ull) >> 32;
	return ((uint64_t)sm * c->sets + h % c->sets) * c->ways;
}

/* Looks addr's sector up in instance sm. A hit returns L1_HIT with
 * *ready the cycle its data is there (possibly still in flight). A miss
 * returns L1_MISS; with allocate, the sector is allocated (its line's
 * victim chosen by the replacement policy; evict_first leaves the line first in line for
 * eviction, as .CS loads do) and *slot points at its arrival time for
 * the caller to fill in, and *writeback_sectors counts dirty sectors the
 * victim pushed out. With write (local stores), the sector is marked
 * dirty and is ready at once. */
enum l1_result l1_cache_access(struct l1_cache *c, uint32_t sm, uint64_t addr, bool allocate,
			       bool evict_first, bool write, double *ready, double **slot,
			       uint32_t *writeback_sectors);

/* Drops every line: the L1s are not coherent, so the hardware
 * invalidates them when a kernel starts (dirty local data is dead by
 * then: locals live only as long as their thread). */
void l1_cache_invalidate(struct l1_cache *c);

/* A unified L1/shared array's L1 part for the next kernel: bytes of data
 * capacity (whole sets, at least one, at most what init allocated), every
 * line dropped. */
void l1_cache_resize(struct l1_cache *c, uint64_t bytes);

/* A global store: write-through, no allocation; a cached copy of the
 * sector stays valid (it now holds the stored data). Returns whether the
 * sector was present. */
bool l1_cache_write_through(struct l1_cache *c, uint32_t sm, uint64_t addr, double t);

/* Checks the invariants numbered at the top of l1_cache.c: 0 when they
 * hold, else the number of the first one violated, with why (may be NULL)
 * saying where. Walks every line: for tests and debug builds. */
int l1_cache_check(const struct l1_cache *c, char *why, size_t len);

#endif
