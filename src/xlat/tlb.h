/* One TLB instance: a cache of translation entries, each covering
 * entry_bytes of virtual space, with LRU replacement.
 *
 * Small or set-associative TLBs scan their ways (stamps give LRU); large
 * fully associative ones (K80's 1032-entry L3) use a hash index plus an
 * intrusive LRU list so a lookup stays O(1). An entry carries the time its
 * fill completes: a lookup before then is a hit on a pending fill, which
 * is how misses to the same entry merge in one MSHR. */
#ifndef GPUVM_TLB_H
#define GPUVM_TLB_H

#include <stdbool.h>
#include <stdint.h>

struct tlb_entry {
	uint64_t tag;       /* virtual address / entry_bytes */
	double ready;       /* fill completion time, in cycles */
	uint64_t lru;       /* scan mode: last-use stamp */
	uint32_t prev, next;/* hash mode: LRU list links */
	bool valid;
};

struct tlb {
	uint32_t entries, sets, ways;
	bool hashed;            /* fully associative with hash index */
	struct tlb_entry *e;    /* sets * ways */
	uint64_t stamp;
	/* hash mode */
	uint32_t *index;        /* open addressing: entry id + 1, 0 = empty */
	uint32_t index_mask;
	uint32_t mru, lru_tail, used;
};

#define TLB_NIL UINT32_MAX

/* ways == 0 means fully associative. */
int tlb_init(struct tlb *t, uint32_t entries, uint32_t ways);
void tlb_free(struct tlb *t);

/* Returns the entry for tag and makes it most recently used, or NULL. */
struct tlb_entry *tlb_lookup(struct tlb *t, uint64_t tag);

/* Installs tag (not present), evicting the LRU entry of its set. */
struct tlb_entry *tlb_insert(struct tlb *t, uint64_t tag);

/* Drops every entry (e.g. between kernels when a model asks for it). */
void tlb_flush(struct tlb *t);

#endif
