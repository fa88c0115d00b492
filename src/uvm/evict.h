/* Eviction policies: which resident pages leave device memory when frames
 * run out. Each is a module (evict_*.c) with an ops table and a
 * descriptor (gpuvm/module.h) listed in module_registry.c; the engine never names one. A policy sees the blocks
 * (struct uvm_space) and hears of fills, accesses and evictions. */
#ifndef GPUVM_UVM_EVICT_H
#define GPUVM_UVM_EVICT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "uvm/uvm_page.h"

struct uvm_space {
	struct uvm_block **blocks; /* [n], index = block->index */
	uint32_t n;
	uint64_t resident_pages;
	uint64_t *rng;
	/* the block a fault is migrating into while frames are made for it
	 * (NULL otherwise); lfu-ac keeps it (its pages are reserved by the
	 * in-flight access, as UVMSmart never evicts those) */
	const struct uvm_block *filling;
	/* t_s (uvm.access_counter_threshold): a 64 KB block whose count
	 * reached it is hot (lfu-ac's cold/hot classes) */
	uint32_t ac_hot;
	/* uvm.evict_whole: the block modules pick only whole blocks
	 * (uvm_evict_block_whole) while one is */
	bool evict_whole;
};

/* UVMSmart's gmmu_t::is_block_evictable for b: every managed page of the
 * block resident and no fault migrating into it (sp->filling). */
static inline bool uvm_evict_block_whole(const struct uvm_space *sp, const struct uvm_block *b)
{
	return b->resident_count == (uint32_t)(b->end_page - b->first_page) && b != sp->filling;
}

struct uvm_evict_ops {
	/* name and help live in the module descriptor (gpuvm/module.h) */
	/* Private state; *st may stay NULL. 0, or -1 when out of memory. */
	int (*create)(void **st);
	void (*destroy)(void *st);
	/* Pages of mask (in b) became resident. -1: out of memory. */
	int (*on_fill)(void *st, const struct uvm_space *sp, struct uvm_block *b, const uint64_t *mask);
	/* The GPU touched page of b (every managed access; may be NULL). */
	void (*on_access)(void *st, struct uvm_block *b, uint32_t page);
	/* Page of b was written while resident: a store or atomic of the GPU,
	 * or a copy to managed memory (may be NULL). A policy that prefers
	 * read-only blocks (lfu-2mb, lfu-ac) keeps what it needs of this in
	 * its own state. -1: out of memory. */
	int (*on_write)(void *st, struct uvm_block *b, uint32_t page);
	/* Pages of mask (in b) were evicted (already cleared in b->resident). */
	void (*on_evicted)(void *st, struct uvm_block *b, const uint64_t *mask);
	/* Chooses resident pages to evict, all in one block: sets mask and
	 * returns the block, or NULL when nothing is resident. */
	struct uvm_block *(*pick)(void *st, const struct uvm_space *sp, uint64_t *mask);
	/* reads the blocks' access counters (b->ac), so the paging layer keeps them */
	bool uses_access_counters;
};

const struct uvm_evict_ops *uvm_evict_find(const char *name);

/* An LRU order over dense ids (blocks, 64 KB chunks or pages), as an
 * intrusive list: touch moves an id to the most-recent end. */
struct uvm_lru {
	uint32_t *prev, *next;
	uint32_t cap, head, tail; /* head = least recent */
};

#define UVM_LRU_NIL UINT32_MAX
#define UVM_LRU_OUT (UINT32_MAX - 1) /* prev of an id not in the list */

static inline int uvm_lru_reserve(struct uvm_lru *l, uint32_t n)
{
	if (n <= l->cap)
		return 0;
	uint32_t cap = l->cap ? l->cap : 1024;
	while (cap < n)
		cap *= 2;
	uint32_t *p = realloc(l->prev, cap * sizeof *p);
	if (!p)
		return -1;
	l->prev = p;
	uint32_t *q = realloc(l->next, cap * sizeof *q);
	if (!q)
		return -1;
	l->next = q;
	if (!l->cap)
		l->head = l->tail = UVM_LRU_NIL;
	for (uint32_t i = l->cap; i < cap; i++)
		l->prev[i] = UVM_LRU_OUT;
	l->cap = cap;
	return 0;
}

static inline void uvm_lru_free(struct uvm_lru *l)
{
	free(l->prev);
	free(l->next);
}

static inline int uvm_lru_in(const struct uvm_lru *l, uint32_t id)
{
	return id < l->cap && l->prev[id] != UVM_LRU_OUT;
}

static inline void uvm_lru_remove(struct uvm_lru *l, uint32_t id)
{
	if (!uvm_lru_in(l, id))
		return;
	uint32_t p = l->prev[id], n = l->next[id];
	if (p != UVM_LRU_NIL)
		l->next[p] = n;
	else
		l->head = n;
	if (n != UVM_LRU_NIL)
		l->prev[n] = p;
	else
		l->tail = p;
	l->prev[id] = UVM_LRU_OUT;
}

/* Moves id (< cap) to the most recent end. */
static inline void uvm_lru_touch(struct uvm_lru *l, uint32_t id)
{
	if (l->tail == id)
		return;
	uvm_lru_remove(l, id);
	l->prev[id] = l->tail;
	l->next[id] = UVM_LRU_NIL;
	if (l->tail != UVM_LRU_NIL)
		l->next[l->tail] = id;
	else
		l->head = id;
	l->tail = id;
}

/* A state holding just one LRU list (most policies). */
/* Per-block marks the LFU policies keep as their own state (not the shared
 * block's): a recency stamp (the clock at the last fill or access) and
 * whether a page of the block was ever written. Grows with the space. */
struct uvm_block_marks {
	uint64_t *stamp; /* [cap] */
	bool *written;   /* [cap] */
	uint32_t cap;
	uint64_t clock;
};
/* Room for blocks [0, n), new ones unstamped and never written. */
int uvm_block_marks_reserve(struct uvm_block_marks *m, uint32_t n);
void uvm_block_marks_free(struct uvm_block_marks *m);
/* on_fill and on_write for a policy whose state begins with its marks:
 * a fill stamps the block, a write marks it written. */
int uvm_evict_marks_fill(void *st, const struct uvm_space *sp, struct uvm_block *b,
			 const uint64_t *mask);
int uvm_evict_marks_write(void *st, struct uvm_block *b, uint32_t page);
/* A policy whose state is the marks alone (lfu-ac, lfu-uvmsmart): create,
 * destroy, and an access that makes the block the most recent. */
int uvm_evict_marks_create(void **st);
void uvm_evict_marks_destroy(void *st);
void uvm_evict_marks_touch(void *st, struct uvm_block *b, uint32_t page);
/* uvm.evict_whole: whether the block modules are to pick among whole
 * blocks only (the key is on and some block is whole) */
bool uvm_evict_pick_whole(const struct uvm_space *sp);

/* A block's rank for uvm_evict_pick_least, least first: rank, then
 * *written (read-only first), then least recent by m's stamp. */
typedef uint64_t (*uvm_evict_rank_fn)(const void *st, const struct uvm_space *sp,
				      const struct uvm_block *b, bool *written);
/* The LFU family's pick (lfu-2mb, lfu-ac, lfu-uvmsmart): among the blocks
 * with resident pages (whole ones only under uvm.evict_whole, and with
 * skip_filling not the block a fault is filling while others hold pages)
 * the least by (rank, written, stamp), the first in index order on a tie;
 * *mask = its resident pages. */
struct uvm_block *uvm_evict_pick_least(const void *st, const struct uvm_block_marks *m,
				       const struct uvm_space *sp, bool skip_filling,
				       uvm_evict_rank_fn rank, uint64_t *mask);

int uvm_evict_lru_create(void **st);
void uvm_evict_lru_destroy(void *st);

/* Whole-2 MB-block LRU (lru-2mb-alloc, lru-2mb-access): a block moves to
 * the tail when frames are filled in it, leaves the list when its last
 * page goes, and the victim is the head block with all its resident
 * pages. The two policies differ only in whether an access refreshes. */
int uvm_evict_block_lru_fill(void *st, const struct uvm_space *sp, struct uvm_block *b,
			     const uint64_t *mask);
void uvm_evict_block_lru_evicted(void *st, struct uvm_block *b, const uint64_t *mask);
struct uvm_block *uvm_evict_block_lru_pick(void *st, const struct uvm_space *sp, uint64_t *mask);

#endif
