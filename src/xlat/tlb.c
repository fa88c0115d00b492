/* One TLB instance (tlb.h).
 *
 * Invariants (tlb_check verifies them, naming the number; the unit tests
 * call it after every operation, debug engines at kernel boundaries):
 *
 *   T1  Every valid entry (key != 0) sits in the set its tag maps to
 *       (tlb_set_of(key - 1)); a fully associative TLB has one set.
 *   T2  No key is held twice: not within a set, and in hash mode not
 *       anywhere (an entry in two places would hit twice and be evicted
 *       once).
 *   T3  Scan mode: no stamp is newer than the clock (a victim search
 *       relies on stamps being past uses).
 *   T4  16-way sets: order[] is a permutation of the ways, sorted by
 *       (stamp, way) ascending - exactly the order lru_oldest would pick
 *       victims in, so order[0] is the LRU way.
 *   T5  Hash mode: the LRU list runs from mru to lru_tail over exactly
 *       `used` distinct entries, with prev/next mirroring each other;
 *       entries at or past `used` were never filled (key 0).
 *   T6  Hash mode: the index holds exactly the valid entries: every valid
 *       entry is found by its key in its bucket's chain, and the chains
 *       hold no invalid entry.
 */
#include "xlat/tlb.h"

#include <stdlib.h>
#include <string.h>

/* Fully associative TLBs above this size get a hash index; below it a
 * SIMD scan over two cache lines of tags is faster. */
#define TLB_SCAN_MAX_WAYS 16

/* Way w of set has just had its stamp cleared: in the set's order, by
 * ascending (stamp, way) as lru_oldest picks victims (ties - zero stamps -
 * to the lowest way), it now goes among the ways of stamp zero at the
 * front, in way order; the others keep their places. 16 steps where
 * re-sorting the set took ~120 (far faults invalidate an entry right
 * after each fill the resident range cannot back). */
static void order_zeroed(struct tlb *t, uint32_t set, uint32_t w)
{
	uint8_t *ord = &t->order[set * 16];
	const uint32_t *st = &t->stamp[set * 16];
	uint8_t rest[15];
	uint32_t n = 0;
	for (uint32_t i = 0; i < 16; i++)
		if (ord[i] != w)
			rest[n++] = ord[i];
	uint32_t z = 0;
	while (z < 15 && st[rest[z]] == 0 && rest[z] < w)
		z++;
	memcpy(ord, rest, z);
	ord[z] = (uint8_t)w;
	memcpy(ord + z + 1, rest + z, 15 - z);
}

static void order_reset(struct tlb *t)
{
	for (uint32_t i = 0; i < t->entries; i += 16)
		lru_order16_reset(&t->order[i]);
}

void tlb_clock_wrapped(struct tlb *t)
{
	memset(t->stamp, 0, t->entries * sizeof *t->stamp);
	t->clock = 1;
	if (t->order)
		order_reset(t);
}

int tlb_init(struct tlb *t, uint32_t entries, uint32_t ways)
{
	memset(t, 0, sizeof *t);
	if (!entries)
		return -1;
	t->entries = entries;
	if (ways == 0 || ways >= entries) {
		t->sets = 1;
		t->ways = entries;
		t->hashed = entries > TLB_SCAN_MAX_WAYS;
	} else {
		if (entries % ways)
			return -1;
		t->sets = entries / ways;
		t->ways = ways;
	}
	t->sets_pow2 = (t->sets & (t->sets - 1)) == 0;
	t->set_mask = t->sets - 1;
	t->key = calloc(entries, sizeof *t->key);
	t->ready = calloc(entries, sizeof *t->ready);
	t->started = calloc(entries, sizeof *t->started);
	if (t->hashed) {
		/* four buckets an entry: a lookup rarely walks past one other
		 * key, and each such step is a host branch miss */
		uint32_t cap = 1;
		while (cap < 4 * entries)
			cap <<= 1;
		t->bucket = calloc(cap, sizeof *t->bucket);
		t->chain = calloc(entries, sizeof *t->chain);
		t->prev = calloc(entries, sizeof *t->prev);
		t->next = calloc(entries, sizeof *t->next);
		t->index_mask = cap - 1;
		if (!t->bucket || !t->chain || !t->prev || !t->next)
			goto fail;
	} else {
		t->stamp = calloc(entries, sizeof *t->stamp);
		if (!t->stamp)
			goto fail;
		if (t->ways == 16) {
			t->order = malloc(entries);
			if (!t->order)
				goto fail;
		}
	}
	if (!t->key || !t->ready || !t->started)
		goto fail;
	tlb_flush(t);
	return 0;
fail:
	tlb_free(t);
	return -1;
}

void tlb_free(struct tlb *t)
{
	free(t->key);
	free(t->ready);
	free(t->started);
	free(t->bucket);
	free(t->chain);
	free(t->prev);
	free(t->next);
	free(t->stamp);
	free(t->order);
	memset(t, 0, sizeof *t);
}

void tlb_flush(struct tlb *t)
{
	memset(t->key, 0, t->entries * sizeof *t->key);
	if (t->hashed) {
		memset(t->bucket, 0, (size_t)(t->index_mask + 1) * sizeof *t->bucket);
		t->mru = t->lru_tail = TLB_NIL;
		t->used = 0;
	} else {
		memset(t->stamp, 0, t->entries * sizeof *t->stamp);
		t->clock = 0;
		if (t->order)
			order_reset(t);
	}
}

/* ---- hash mode ---------------------------------------------------- */

static void list_unlink(struct tlb *t, uint32_t id)
{
	uint32_t p = t->prev[id], n = t->next[id];
	if (p != TLB_NIL)
		t->next[p] = n;
	else
		t->mru = n;
	if (n != TLB_NIL)
		t->prev[n] = p;
	else
		t->lru_tail = p;
}

static void list_push_front(struct tlb *t, uint32_t id)
{
	t->prev[id] = TLB_NIL;
	t->next[id] = t->mru;
	if (t->mru != TLB_NIL)
		t->prev[t->mru] = id;
	t->mru = id;
	if (t->lru_tail == TLB_NIL)
		t->lru_tail = id;
}

/* Unlinks entry id (in the index) from its bucket's chain. */
static void index_remove(struct tlb *t, uint32_t id)
{
	uint32_t *link = &t->bucket[tlb_tag_hash(t->key[id]) & t->index_mask];
	while (*link != id + 1)
		link = &t->chain[*link - 1];
	*link = t->chain[id];
}

static void index_insert(struct tlb *t, uint32_t id)
{
	uint32_t *head = &t->bucket[tlb_tag_hash(t->key[id]) & t->index_mask];
	t->chain[id] = *head;
	*head = id + 1;
}

uint32_t tlb_hashed_fill(struct tlb *t, uint64_t key)
{
	uint32_t id;
	if (__builtin_expect(t->used < t->entries, 0)) {
		id = t->used++;
		list_push_front(t, id);
	} else {
		/* Full: the LRU entry goes. A hashed TLB has more than 16
		 * entries, so the victim has a predecessor and the list stays
		 * non-empty. */
		id = t->lru_tail;
		if (t->key[id]) /* 0: dropped by tlb_invalidate, not in the index */
			index_remove(t, id);
		if (id != t->mru) {
			uint32_t p = t->prev[id];
			t->next[p] = TLB_NIL;
			t->lru_tail = p;
			t->prev[id] = TLB_NIL;
			t->next[id] = t->mru;
			t->prev[t->mru] = id;
			t->mru = id;
		}
	}
	t->key[id] = key;
	index_insert(t, id);
	return id;
}

/* ---- both modes --------------------------------------------------- */

void tlb_invalidate(struct tlb *t, uint64_t tag)
{
	uint64_t key = tag + 1;
	if (t->hashed) {
		uint32_t v = tlb_index_find(t, key);
		if (!v)
			return;
		uint32_t id = v - 1;
		index_remove(t, id);
		t->key[id] = 0;
		/* to the LRU end, so the next miss reuses it */
		list_unlink(t, id);
		t->prev[id] = t->lru_tail;
		t->next[id] = TLB_NIL;
		if (t->lru_tail != TLB_NIL)
			t->next[t->lru_tail] = id;
		else
			t->mru = id;
		t->lru_tail = id;
		return;
	}
	uint32_t base = tlb_set_of(t, tag) * t->ways;
	uint32_t w = find_u64(&t->key[base], t->ways, key);
	if (w < t->ways) {
		t->key[base + w] = 0;
		t->stamp[base + w] = 0;
		if (t->order)
			order_zeroed(t, base / 16, w);
	}
}

/* ---- invariants (numbered at the top of this file) ----------------- */

#include "core/invariant.h"

#define violated(why, len, n, ...) gpuvm_violated(why, len, "TLB", "T", n, __VA_ARGS__)

static int check_hashed(const struct tlb *t, char *why, size_t len)
{
	/* T5: walk the list from mru; count, mirror, no repeats (a walk longer
	 * than the entries has a cycle) */
	uint32_t n = 0, prev = TLB_NIL;
	for (uint32_t id = t->mru; id != TLB_NIL; id = t->next[id]) {
		if (id >= t->entries || n >= t->entries)
			return violated(why, len, 5, "LRU list runs past %u entries", t->entries);
		if (t->prev[id] != prev)
			return violated(why, len, 5, "entry %u's prev is %u, the list has %u before it",
					id, t->prev[id], prev);
		prev = id;
		n++;
	}
	if (n != t->used || prev != t->lru_tail)
		return violated(why, len, 5, "LRU list holds %u entries ending at %u; used = %u, "
				"lru_tail = %u", n, prev, t->used, t->lru_tail);
	for (uint32_t id = t->used; id < t->entries; id++)
		if (t->key[id])
			return violated(why, len, 5, "entry %u past used (%u) holds a key", id, t->used);
	/* T2, T6: every valid entry found under its key, no other holds it;
	 * the chains' length equals the valid entries */
	uint32_t valid = 0, chained = 0;
	for (uint32_t id = 0; id < t->used; id++) {
		if (!t->key[id])
			continue;
		valid++;
		/* a key held twice is found for one of its entries only (T2) */
		if (tlb_index_find(t, t->key[id]) != id + 1)
			return violated(why, len, 6, "entry %u (key %#llx) is not found in the index "
					"(or another entry holds its key)", id,
					(unsigned long long)t->key[id]);
	}
	for (uint32_t b = 0; b <= t->index_mask; b++)
		for (uint32_t v = t->bucket[b]; v; v = t->chain[v - 1]) {
			if (v > t->entries || ++chained > t->entries)
				return violated(why, len, 6, "bucket %u's chain is malformed", b);
			if (!t->key[v - 1])
				return violated(why, len, 6, "invalid entry %u is in bucket %u's chain", v - 1, b);
		}
	if (chained != valid)
		return violated(why, len, 6, "the index chains %u entries, %u are valid", chained, valid);
	return 0;
}

int tlb_check(const struct tlb *t, char *why, size_t len)
{
	if (why && len)
		why[0] = 0;
	if (t->hashed)
		return check_hashed(t, why, len);
	for (uint32_t set = 0; set < t->sets; set++) {
		uint32_t base = set * t->ways;
		for (uint32_t w = 0; w < t->ways; w++) {
			uint64_t key = t->key[base + w];
			if (t->stamp[base + w] > t->clock)
				return violated(why, len, 3, "set %u way %u has stamp %u past the clock %u",
						set, w, t->stamp[base + w], t->clock);
			if (!key)
				continue;
			if (tlb_set_of(t, key - 1) != set)
				return violated(why, len, 1, "key %#llx sits in set %u, maps to set %u",
						(unsigned long long)key, set, tlb_set_of(t, key - 1));
		}
		uint32_t w, o;
		if (gpuvm_find_duplicate(&t->key[base], sizeof t->key[0], t->ways, &w, &o))
			return violated(why, len, 2, "key %#llx in ways %u and %u of set %u",
					(unsigned long long)t->key[base + w], w, o, set);
		if (!t->order)
			continue;
		const uint8_t *ord = &t->order[base];
		uint32_t seen = 0;
		for (uint32_t i = 0; i < 16; i++) {
			if (ord[i] >= 16 || (seen >> ord[i] & 1))
				return violated(why, len, 4, "set %u's order is not a permutation of the ways", set);
			seen |= 1u << ord[i];
			if (i) {
				uint32_t a = ord[i - 1], b = ord[i];
				uint32_t sa = t->stamp[base + a], sb = t->stamp[base + b];
				if (sa > sb || (sa == sb && a > b))
					return violated(why, len, 4, "set %u's order has way %u (stamp %u) before "
							"way %u (stamp %u)", set, a, sa, b, sb);
			}
		}
	}
	return 0;
}
