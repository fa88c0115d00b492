#include "xlat/tlb.h"

#include <stdlib.h>
#include <string.h>

/* Fully associative TLBs above this size get a hash index; below it a
 * linear scan over a few cache lines is faster. */
#define TLB_SCAN_MAX_WAYS 32

static inline uint32_t tag_hash(uint64_t tag)
{
	tag *= 0x9E3779B97F4A7C15ull;
	return (uint32_t)(tag >> 32);
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
	t->e = calloc(entries, sizeof *t->e);
	if (!t->e)
		return -1;
	if (t->hashed) {
		uint32_t cap = 1;
		while (cap < 2 * entries)
			cap <<= 1;
		t->index = calloc(cap, sizeof *t->index);
		if (!t->index) {
			free(t->e);
			return -1;
		}
		t->index_mask = cap - 1;
	}
	tlb_flush(t);
	return 0;
}

void tlb_free(struct tlb *t)
{
	free(t->e);
	free(t->index);
	memset(t, 0, sizeof *t);
}

void tlb_flush(struct tlb *t)
{
	for (uint32_t i = 0; i < t->entries; i++)
		t->e[i].valid = false;
	if (t->hashed) {
		memset(t->index, 0, (size_t)(t->index_mask + 1) * sizeof *t->index);
		t->mru = t->lru_tail = TLB_NIL;
		t->used = 0;
	}
}

/* ---- hash mode ---------------------------------------------------- */

static void list_unlink(struct tlb *t, uint32_t id)
{
	struct tlb_entry *x = &t->e[id];
	if (x->prev != TLB_NIL)
		t->e[x->prev].next = x->next;
	else
		t->mru = x->next;
	if (x->next != TLB_NIL)
		t->e[x->next].prev = x->prev;
	else
		t->lru_tail = x->prev;
}

static void list_push_front(struct tlb *t, uint32_t id)
{
	struct tlb_entry *x = &t->e[id];
	x->prev = TLB_NIL;
	x->next = t->mru;
	if (t->mru != TLB_NIL)
		t->e[t->mru].prev = id;
	t->mru = id;
	if (t->lru_tail == TLB_NIL)
		t->lru_tail = id;
}

static uint32_t *index_find(struct tlb *t, uint64_t tag)
{
	uint32_t i = tag_hash(tag) & t->index_mask;
	for (;;) {
		uint32_t v = t->index[i];
		if (!v || t->e[v - 1].tag == tag)
			return &t->index[i];
		i = (i + 1) & t->index_mask;
	}
}

/* Linear-probing delete with backward shift, so no tombstones build up. */
static void index_remove(struct tlb *t, uint32_t *slot)
{
	uint32_t mask = t->index_mask;
	uint32_t i = (uint32_t)(slot - t->index);
	uint32_t j = i;
	for (;;) {
		j = (j + 1) & mask;
		uint32_t v = t->index[j];
		if (!v)
			break;
		uint32_t home = tag_hash(t->e[v - 1].tag) & mask;
		/* Move v back to i when i lies cyclically in [home, j). */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->index[i] = v;
			i = j;
		}
	}
	t->index[i] = 0;
}

static struct tlb_entry *hashed_lookup(struct tlb *t, uint64_t tag)
{
	uint32_t v = *index_find(t, tag);
	if (!v)
		return NULL;
	uint32_t id = v - 1;
	if (t->mru != id) {
		list_unlink(t, id);
		list_push_front(t, id);
	}
	return &t->e[id];
}

static struct tlb_entry *hashed_insert(struct tlb *t, uint64_t tag)
{
	uint32_t id;
	if (t->used < t->entries) {
		id = t->used++;
	} else {
		id = t->lru_tail;
		index_remove(t, index_find(t, t->e[id].tag));
		list_unlink(t, id);
	}
	*index_find(t, tag) = id + 1;
	list_push_front(t, id);
	struct tlb_entry *x = &t->e[id];
	x->tag = tag;
	x->valid = true;
	return x;
}

/* ---- scan mode ---------------------------------------------------- */

struct tlb_entry *tlb_lookup(struct tlb *t, uint64_t tag)
{
	if (t->hashed)
		return hashed_lookup(t, tag);
	struct tlb_entry *set = &t->e[(tag % t->sets) * t->ways];
	for (uint32_t w = 0; w < t->ways; w++) {
		if (set[w].valid && set[w].tag == tag) {
			set[w].lru = ++t->stamp;
			return &set[w];
		}
	}
	return NULL;
}

struct tlb_entry *tlb_insert(struct tlb *t, uint64_t tag)
{
	if (t->hashed)
		return hashed_insert(t, tag);
	struct tlb_entry *set = &t->e[(tag % t->sets) * t->ways];
	struct tlb_entry *victim = &set[0];
	for (uint32_t w = 0; w < t->ways; w++) {
		if (!set[w].valid) {
			victim = &set[w];
			break;
		}
		if (set[w].lru < victim->lru)
			victim = &set[w];
	}
	victim->tag = tag;
	victim->valid = true;
	victim->lru = ++t->stamp;
	return victim;
}
