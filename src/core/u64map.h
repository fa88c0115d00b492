/* A map from 64-bit keys to 64-bit values: open addressing with linear
 * probing, key and value side by side so a lookup touches one host cache
 * line (the paging layer looks a VA block up on every access of managed
 * memory through it, src/uvm/uvm_map.h), and the set of touched granules of
 * trace allocation inference.
 *
 * Owns its slot array (u64map_free releases it). Calls only calloc, free and
 * memset. Guarantees:
 *  - keys 0 .. UINT64_MAX - 1 (the slot stores key + 1; 0 marks an empty
 *    slot, so a zeroed table is all empty);
 *  - the table doubles when an insert would make it more than half full, so
 *    probes stay short and a lookup of an absent key always ends;
 *  - entries never move except when the table grows: a pointer from
 *    u64map_find / u64map_insert is valid until the next insert or clear;
 *  - no removal (none of the users needs it; a tombstone-free table stays
 *    simple);
 *  - a zeroed struct u64map is a valid empty map for u64map_add and
 *    u64map_free (it allocates on first use); u64map_find and
 *    u64map_insert need u64map_init first (no NULL check on the hot path);
 *  - iteration (u64map_next): occupied slots in slot order, which depends on
 *    the hash, not on the order of insertion.
 * At most 2^31 slots: an insert that would need more fails (NULL / -1). */
#ifndef GPUVM_CORE_U64MAP_H
#define GPUVM_CORE_U64MAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct u64map_entry {
	uint64_t key; /* key + 1, 0 = empty */
	uint64_t val;
};

struct u64map {
	struct u64map_entry *e;
	uint32_t mask; /* slots - 1 (slots a power of two) */
	uint32_t n;    /* entries */
};

#define U64MAP_MIN_SLOTS 16u
#define U64MAP_MAX_SLOTS (1u << 31)

/* Fibonacci hashing: the multiply spreads every key bit into the high
 * half, whose top 32 bits pick the home slot. */
static inline uint32_t u64map_hash(uint64_t k)
{
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32);
}

/* slots_pow2: a power of two >= 2 (the initial size). 0 or -1. */
static inline int u64map_init(struct u64map *m, uint32_t slots_pow2)
{
	m->mask = slots_pow2 - 1;
	m->n = 0;
	m->e = calloc(slots_pow2, sizeof *m->e);
	return m->e ? 0 : -1;
}

static inline void u64map_free(struct u64map *m)
{
	free(m->e);
	m->e = NULL;
	m->mask = m->n = 0;
}

/* Empties the map, keeping its slots. */
static inline void u64map_clear(struct u64map *m)
{
	if (m->e)
		memset(m->e, 0, ((size_t)m->mask + 1) * sizeof *m->e);
	m->n = 0;
}

/* The entry of k, or NULL. m initialised. */
static inline struct u64map_entry *u64map_find(const struct u64map *m, uint64_t k)
{
	for (uint32_t i = u64map_hash(k) & m->mask;; i = (i + 1) & m->mask) {
		struct u64map_entry *x = &m->e[i];
		if (x->key == k + 1)
			return x;
		if (!x->key)
			return NULL;
	}
}

/* Makes room for one more entry: doubles the table (or allocates it, for a
 * zeroed map) when it would pass half full. 0 or -1 (out of memory, or
 * past U64MAP_MAX_SLOTS; the map is unchanged). */
static inline int u64map_reserve_one(struct u64map *m)
{
	uint32_t slots = m->e ? m->mask + 1 : 0;
	if (m->e && 2 * ((uint64_t)m->n + 1) <= slots)
		return 0;
	if (slots >= U64MAP_MAX_SLOTS)
		return -1;
	uint32_t cap = slots ? 2 * slots : U64MAP_MIN_SLOTS;
	struct u64map_entry *e = calloc(cap, sizeof *e);
	if (!e)
		return -1;
	for (uint32_t i = 0; i < slots; i++) {
		if (!m->e[i].key)
			continue;
		uint32_t j = u64map_hash(m->e[i].key - 1) & (cap - 1);
		while (e[j].key)
			j = (j + 1) & (cap - 1);
		e[j] = m->e[i];
	}
	free(m->e);
	m->e = e;
	m->mask = cap - 1;
	return 0;
}

/* Adds k, which must not be present, with val. The new entry, or NULL
 * when out of memory (the map unchanged). */
static inline struct u64map_entry *u64map_insert(struct u64map *m, uint64_t k, uint64_t val)
{
	if (u64map_reserve_one(m))
		return NULL;
	uint32_t i = u64map_hash(k) & m->mask;
	while (m->e[i].key)
		i = (i + 1) & m->mask;
	m->e[i].key = k + 1;
	m->e[i].val = val;
	m->n++;
	return &m->e[i];
}

/* Set-style add: 1 if k was added (with val), 0 if it was present (its
 * value unchanged), -1 out of memory. Works on a zeroed map. */
static inline int u64map_add(struct u64map *m, uint64_t k, uint64_t val)
{
	if (m->e) { /* one probe sequence when the table has room */
		uint32_t i = u64map_hash(k) & m->mask;
		for (; m->e[i].key; i = (i + 1) & m->mask)
			if (m->e[i].key == k + 1)
				return 0;
		if (2 * ((uint64_t)m->n + 1) <= (uint64_t)m->mask + 1) {
			m->e[i].key = k + 1;
			m->e[i].val = val;
			m->n++;
			return 1;
		}
	}
	return u64map_insert(m, k, val) ? 1 : -1;
}

/* Slots in the table (0 for a zeroed map); iterate with
 *   for (uint32_t i = u64map_next(m, 0); i < u64map_slots(m); i = u64map_next(m, i + 1))
 *           use m->e[i].key - 1 and m->e[i].val */
static inline uint32_t u64map_slots(const struct u64map *m)
{
	return m->e ? m->mask + 1 : 0;
}

/* The first occupied slot at or after i, or u64map_slots(m). */
static inline uint32_t u64map_next(const struct u64map *m, uint32_t i)
{
	uint32_t slots = u64map_slots(m);
	while (i < slots && !m->e[i].key)
		i++;
	return i;
}

#endif
