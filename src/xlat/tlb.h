/* One TLB instance: a cache of translation entries, each covering
 * entry_bytes of virtual space, with LRU replacement.
 *
 * Small or set-associative TLBs compare a set's tags with SIMD and keep
 * LRU by 32-bit stamps (core/lru_stamp.h); 16-way sets also keep their
 * ways in recency order (one byte each), so a miss finds its victim
 * without scanning the stamps; large fully
 * associative ones (K80's 1032-entry L3) use a chained hash index plus an
 * intrusive LRU list so an access stays O(1). Each entry carries the time
 * its fill completes: a lookup before then is a hit on a pending fill,
 * which is how misses to the same entry merge in one MSHR; and the time
 * that fill was asked for, before which the entry does not yet exist. */
#ifndef GPUVM_TLB_H
#define GPUVM_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/find_u64.h"
#include "core/lru_stamp.h"

struct tlb {
	uint32_t entries, sets, ways;
	uint32_t set_mask;  /* sets - 1 when sets is a power of two (1 when fully associative) */
	bool sets_pow2;
	bool hashed;          /* fully associative with hash index */
	uint64_t *key;        /* [entries] tag + 1, 0 = invalid */
	double *ready;        /* [entries] fill completion time, cycles */
	/* [entries] when the fill was asked for (the missing lookup's end),
	 * cycles. Requests reach a shared level out of time order (each SM
	 * runs ahead on its own clock), so a lookup earlier than this comes
	 * before the fill in simulated time and misses (xlat.c). */
	double *started;
	uint32_t *stamp;      /* scan mode: [entries] last use */
	uint32_t clock;
	/* ways == 16 (scan mode): [sets][16] ways from least to most recently
	 * used, ordered by (stamp, way) - always the order lru_oldest would
	 * pick victims in, so order[0] is the victim. NULL otherwise. */
	uint8_t *order;
	/* hash mode */
	uint32_t *prev, *next;/* LRU list, most recent first */
	uint32_t *bucket;     /* [index_mask + 1] first entry id + 1 of the chain, 0 = none */
	uint32_t *chain;      /* [entries] next entry id + 1 in its bucket, 0 = last */
	uint32_t index_mask;
	uint32_t mru, lru_tail, used;
};

#define TLB_NIL UINT32_MAX

/* ways == 0 means fully associative. */
int tlb_init(struct tlb *t, uint32_t entries, uint32_t ways);
void tlb_free(struct tlb *t);

/* The miss of the hash mode, out of line (tlb.c): key replaces the LRU
 * entry. */
uint32_t tlb_hashed_fill(struct tlb *t, uint64_t key);

static inline uint32_t tlb_tag_hash(uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32);
}

/* The id + 1 of key's entry in the hash mode, or 0. Chains stay short:
 * there are four buckets an entry. */
static inline uint32_t tlb_index_find(const struct tlb *t, uint64_t key)
{
	uint32_t v = t->bucket[tlb_tag_hash(key) & t->index_mask];
	while (v && t->key[v - 1] != key)
		v = t->chain[v - 1];
	return v;
}

/* The hash mode's lookup: a hit moves its entry to the front of the LRU
 * list (it has a predecessor, being not the front, and the list then has
 * a front to link to). */
static inline __attribute__((always_inline)) uint32_t tlb_access_hashed(struct tlb *t,
									uint64_t tag, bool *hit)
{
	uint64_t key = tag + 1;
	uint32_t v = tlb_index_find(t, key);
	if (!v) {
		*hit = false;
		return tlb_hashed_fill(t, key);
	}
	*hit = true;
	uint32_t id = v - 1;
	if (t->mru != id) {
		uint32_t p = t->prev[id], n = t->next[id];
		t->next[p] = n;
		if (n != TLB_NIL)
			t->prev[n] = p;
		else
			t->lru_tail = p;
		t->prev[id] = TLB_NIL;
		t->next[id] = t->mru;
		t->prev[t->mru] = id;
		t->mru = id;
	}
	return id;
}

/* The stamp clock wrapped: every stamp cleared (lru_tick) and every set's
 * order reset to way order. Out of line: once per 2^32 accesses. */
void tlb_clock_wrapped(struct tlb *t);

/* A mask, not a division, for the usual power-of-two set counts. */
static inline uint32_t tlb_set_of(const struct tlb *t, uint64_t tag)
{
	return t->sets_pow2 ? (uint32_t)tag & t->set_mask : (uint32_t)(tag % t->sets);
}

/* Looks tag up and makes it most recently used. On a miss the LRU entry of
 * the set is replaced by tag (its ready time is left for the caller to
 * set). Returns the entry id; *hit tells which case happened. Inline:
 * every translation makes one access per level it reaches. */
static inline __attribute__((always_inline)) uint32_t tlb_access(struct tlb *t, uint64_t tag,
								 bool *hit)
{
	if (t->hashed)
		return tlb_access_hashed(t, tag, hit);
	uint64_t key = tag + 1;
	uint32_t base = tlb_set_of(t, tag) * t->ways;
	if (t->order) {
		/* 16 ways: the used way (hit, or the victim order[0] on a miss)
		 * moves to the most recent end of the order, with no branch on
		 * which case it was. */
		uint32_t w = find_u64(&t->key[base], 16, key);
		if (__builtin_expect(++t->clock == 0, 0))
			tlb_clock_wrapped(t);
		uint8_t *ord = &t->order[base];
		*hit = w < 16;
		w = *hit ? w : ord[0];
		lru_order16_use(ord, w);
		t->key[base + w] = key;
		t->stamp[base + w] = t->clock;
		return base + w;
	}
	uint32_t w = find_u64(&t->key[base], t->ways, key);
	uint32_t now = lru_tick(&t->clock, t->stamp, t->entries);
	*hit = w < t->ways;
	if (!*hit) {
		w = lru_oldest(&t->stamp[base], t->ways);
		t->key[base + w] = key;
	}
	t->stamp[base + w] = now;
	return base + w;
}

/* ---- peer-scheme helpers (src/xlat/peer_*.c, the slow path of xlat.c) */

/* The id of tag's entry, or TLB_NIL; no replacement state changes (a
 * neighbour reading the entry over its port, or the sharing analysis
 * looking). */
static inline uint32_t tlb_find(const struct tlb *t, uint64_t tag)
{
	uint64_t key = tag + 1;
	if (t->hashed) {
		uint32_t v = tlb_index_find(t, key);
		return v ? v - 1 : TLB_NIL;
	}
	uint32_t base = tlb_set_of(t, tag) * t->ways;
	uint32_t w = find_u64(&t->key[base], t->ways, key);
	return w < t->ways ? base + w : TLB_NIL;
}

/* The entry a miss on tag would replace now: its id in *id, and its key
 * (tag + 1; 0 when the slot is empty). tlb_access takes the same victim
 * except when the stamp clock wraps in that very access (once per 2^32
 * accesses), which the caller detects by comparing ids. */
static inline uint64_t tlb_victim(const struct tlb *t, uint64_t tag, uint32_t *id)
{
	if (t->hashed) {
		if (t->used < t->entries) {
			*id = t->used;
			return 0;
		}
		*id = t->lru_tail;
		return t->key[*id];
	}
	uint32_t base = tlb_set_of(t, tag) * t->ways;
	uint32_t w = t->order ? t->order[base] : lru_oldest(&t->stamp[base], t->ways);
	*id = base + w;
	return t->key[*id];
}

/* Drops the entry of tag if present (a TLB shootdown); it becomes the
 * set's next victim. */
void tlb_invalidate(struct tlb *t, uint64_t tag);

/* Drops every entry. */
void tlb_flush(struct tlb *t);

/* Checks the invariants numbered at the top of tlb.c: 0 when they hold,
 * else the number of the first one violated, with why (may be NULL)
 * saying where. Walks every entry: for tests and debug builds. */
int tlb_check(const struct tlb *t, char *why, size_t len);

#endif
