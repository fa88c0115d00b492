/* An open-addressing map from 64-bit keys to 64-bit values, key and value
 * side by side so a lookup touches one host cache line (the paging layer
 * looks a block up on every access of managed memory). */
#ifndef GPUVM_UVM_MAP_H
#define GPUVM_UVM_MAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct uvm_map_entry {
	uint64_t key; /* key + 1, 0 = empty */
	uint64_t val;
};

struct uvm_map {
	struct uvm_map_entry *e;
	uint32_t mask, n;
};

static inline uint32_t uvm_map_hash(uint64_t k)
{
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40);
}

static inline int uvm_map_init(struct uvm_map *m, uint32_t slots_pow2)
{
	m->mask = slots_pow2 - 1;
	m->n = 0;
	m->e = calloc(slots_pow2, sizeof *m->e);
	return m->e ? 0 : -1;
}

static inline void uvm_map_free(struct uvm_map *m)
{
	free(m->e);
	m->e = NULL;
}

static inline void uvm_map_clear(struct uvm_map *m)
{
	memset(m->e, 0, ((size_t)m->mask + 1) * sizeof *m->e);
	m->n = 0;
}

/* The entry of k, or NULL. */
static inline struct uvm_map_entry *uvm_map_find(const struct uvm_map *m, uint64_t k)
{
	for (uint32_t i = uvm_map_hash(k) & m->mask;; i = (i + 1) & m->mask) {
		struct uvm_map_entry *x = &m->e[i];
		if (x->key == k + 1)
			return x;
		if (!x->key)
			return NULL;
	}
}

/* Adds k (not present) with val; the table doubles at half full. Returns
 * the new entry, or NULL when out of memory. */
static inline struct uvm_map_entry *uvm_map_insert(struct uvm_map *m, uint64_t k, uint64_t val)
{
	if (2 * (m->n + 1) > m->mask + 1) {
		uint32_t cap = 2 * (m->mask + 1);
		struct uvm_map_entry *e = calloc(cap, sizeof *e);
		if (!e)
			return NULL;
		for (uint32_t i = 0; i <= m->mask; i++) {
			if (!m->e[i].key)
				continue;
			uint32_t j = uvm_map_hash(m->e[i].key - 1) & (cap - 1);
			while (e[j].key)
				j = (j + 1) & (cap - 1);
			e[j] = m->e[i];
		}
		free(m->e);
		m->e = e;
		m->mask = cap - 1;
	}
	uint32_t i = uvm_map_hash(k) & m->mask;
	while (m->e[i].key)
		i = (i + 1) & m->mask;
	m->e[i].key = k + 1;
	m->e[i].val = val;
	m->n++;
	return &m->e[i];
}

#endif
