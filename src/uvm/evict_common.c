/* Pieces several eviction policies share. */
#include "uvm/evict.h"

#include <stdlib.h>

int uvm_evict_lru_create(void **st)
{
	*st = calloc(1, sizeof(struct uvm_lru));
	return *st ? 0 : -1;
}

void uvm_evict_lru_destroy(void *st)
{
	if (st)
		uvm_lru_free(st);
	free(st);
}

int uvm_evict_block_lru_fill(void *st, const struct uvm_space *sp, struct uvm_block *b,
			     const uint64_t *mask)
{
	(void)mask;
	struct uvm_lru *l = st;
	if (uvm_lru_reserve(l, sp->n))
		return -1;
	uvm_lru_touch(l, b->index);
	return 0;
}

void uvm_evict_block_lru_evicted(void *st, struct uvm_block *b, const uint64_t *mask)
{
	(void)mask;
	if (!b->resident_count)
		uvm_lru_remove(st, b->index);
}

struct uvm_block *uvm_evict_block_lru_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	struct uvm_lru *l = st;
	if (l->head == UVM_LRU_NIL)
		return NULL;
	struct uvm_block *b = sp->blocks[l->head];
	if (sp->evict_whole) /* the least recent whole block, if one is */
		for (uint32_t i = l->head; i != UVM_LRU_NIL; i = l->next[i])
			if (uvm_evict_block_whole(sp, sp->blocks[i])) {
				b = sp->blocks[i];
				break;
			}
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		mask[w] = b->resident[w];
	return b;
}

int uvm_block_marks_reserve(struct uvm_block_marks *m, uint32_t n)
{
	if (n <= m->cap)
		return 0;
	uint32_t cap = m->cap ? m->cap : 256;
	while (cap < n)
		cap *= 2;
	uint64_t *t = realloc(m->stamp, cap * sizeof *t);
	if (!t)
		return -1;
	m->stamp = t;
	bool *wr = realloc(m->written, cap * sizeof *wr);
	if (!wr)
		return -1;
	m->written = wr;
	for (uint32_t i = m->cap; i < cap; i++) {
		m->stamp[i] = 0;
		m->written[i] = false;
	}
	m->cap = cap;
	return 0;
}

void uvm_block_marks_free(struct uvm_block_marks *m)
{
	free(m->stamp);
	free(m->written);
	m->stamp = NULL;
	m->written = NULL;
	m->cap = 0;
}

int uvm_evict_marks_fill(void *st, const struct uvm_space *sp, struct uvm_block *b,
			 const uint64_t *mask)
{
	(void)mask;
	struct uvm_block_marks *m = st;
	if (uvm_block_marks_reserve(m, sp->n))
		return -1;
	m->stamp[b->index] = ++m->clock;
	return 0;
}

int uvm_evict_marks_write(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	struct uvm_block_marks *m = st;
	if (uvm_block_marks_reserve(m, b->index + 1))
		return -1;
	m->written[b->index] = true;
	return 0;
}

int uvm_evict_marks_create(void **st)
{
	*st = calloc(1, sizeof(struct uvm_block_marks));
	return *st ? 0 : -1;
}

void uvm_evict_marks_destroy(void *st)
{
	if (!st)
		return;
	uvm_block_marks_free(st);
	free(st);
}

void uvm_evict_marks_touch(void *st, struct uvm_block *b, uint32_t page)
{
	(void)page;
	struct uvm_block_marks *s = st;
	if (b->index < s->cap)
		s->stamp[b->index] = ++s->clock;
}

bool uvm_evict_pick_whole(const struct uvm_space *sp)
{
	for (uint32_t i = 0; sp->evict_whole && i < sp->n; i++)
		if (uvm_evict_block_whole(sp, sp->blocks[i]))
			return true;
	return false;
}

struct uvm_block *uvm_evict_pick_least(const void *st, const struct uvm_block_marks *m,
				       const struct uvm_space *sp, bool skip_filling,
				       uvm_evict_rank_fn rank, uint64_t *mask)
{
	struct uvm_block *best = NULL;
	uint64_t rank_w = 0, stamp_w = 0;
	bool written_w = false;
	bool whole = uvm_evict_pick_whole(sp);
	for (uint32_t i = 0; i < sp->n; i++) {
		struct uvm_block *b = sp->blocks[i];
		if (!b->resident_count ||
		    (skip_filling && b == sp->filling && sp->resident_pages > b->resident_count) ||
		    (whole && !uvm_evict_block_whole(sp, b)))
			continue;
		bool written_b = false;
		uint64_t rank_b = rank(st, sp, b, &written_b);
		written_b = written_b || (i < m->cap && m->written[i]);
		uint64_t stamp_b = i < m->cap ? m->stamp[i] : 0;
		if (!best || rank_b < rank_w || (rank_b == rank_w && !written_b && written_w) ||
		    (rank_b == rank_w && written_b == written_w && stamp_b < stamp_w)) {
			best = b;
			rank_w = rank_b;
			written_w = written_b;
			stamp_w = stamp_b;
		}
	}
	if (best)
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			mask[w] = best->resident[w];
	return best;
}
