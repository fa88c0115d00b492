/* Per-allocation paging accounting: which decision the paging layer took
 * for the pages of each managed allocation, and each allocation's hot or
 * cold class from the access counters (seeds/004 III-B: "working sets of
 * irregular applications can often be divided into cold and hot data
 * structures"; IV: the framework "differentiate[s] between hot and cold
 * allocations" by the counters). Decisions reach the observer here too,
 * so the engine's hot path never sees either. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uvm/migrate.h"
#include "uvm/uvm.h"

const char *const gpuvm_uvm_decision_names[GPUVM_UVM_DECISIONS] = {
	"remote", "fault", "counter", "prefetch", "evict",
};

const char *gpuvm_uvm_alloc_class(const struct gpuvm_uvm_alloc_stats *a)
{
	if (!a->counted)
		return "unclassified";
	if (!a->chunks_touched)
		return "untouched";
	return a->hot ? "hot" : "cold";
}

int uvm_alloc_stats_open(struct uvm *u, struct uvm_range *r, const char *name)
{
	struct gpuvm_uvm_stats *st = u->st;
	if (st->n_allocs == u->cap_alloc_stats) {
		size_t cap = u->cap_alloc_stats ? 2 * u->cap_alloc_stats : 8;
		struct gpuvm_uvm_alloc_stats *p = realloc(st->allocs, cap * sizeof *p);
		if (!p)
			return -1;
		st->allocs = p;
		u->cap_alloc_stats = cap;
	}
	struct gpuvm_uvm_alloc_stats *a = &st->allocs[st->n_allocs];
	memset(a, 0, sizeof *a);
	snprintf(a->name, sizeof a->name, "%s", name ? name : "");
	a->base = r->base;
	a->bytes = r->bytes;
	a->counted = u->ac_on;
	r->stat = (uint32_t)st->n_allocs++;
	return 0;
}

/* The live allocation holding addr, or NULL (the last hit first: the
 * notes of one fault or one stream of remote reads fall in one). */
static struct uvm_range *range_of(struct uvm *u, uint64_t addr)
{
	if (u->range_last < u->n_allocs) {
		struct uvm_range *r = &u->allocs[u->range_last];
		if (addr - r->base < r->bytes)
			return r;
	}
	for (uint32_t i = 0; i < u->n_allocs; i++)
		if (addr - u->allocs[i].base < u->allocs[i].bytes) {
			u->range_last = i;
			return &u->allocs[i];
		}
	return NULL;
}

void uvm_note(struct uvm *u, uint64_t addr, uint64_t bytes, enum gpuvm_uvm_decision d)
{
	struct uvm_range *r = range_of(u, addr);
	if (r)
		u->st->allocs[r->stat].decisions[d]++;
	if (u->hooks.observer.decision)
		u->hooks.observer.decision(u->hooks.observer.ctx, addr, bytes, d);
}

void uvm_note_thrashed(struct uvm *u, uint64_t addr)
{
	struct uvm_range *r = range_of(u, addr);
	if (r)
		u->st->allocs[r->stat].thrashed_pages++;
}

void uvm_note_mask(struct uvm *u, const struct uvm_block *b, const uint64_t *mask,
		   enum gpuvm_uvm_decision d)
{
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES;) {
		uint32_t q = mask_next(mask, p, false);
		uint64_t lo = b->base + ((uint64_t)p << UVM_PAGE_SHIFT);
		/* the run's pages, split where an allocation ends */
		for (uint64_t a = lo, hi = b->base + ((uint64_t)q << UVM_PAGE_SHIFT); a < hi;) {
			struct uvm_range *r = range_of(u, a);
			uint64_t end = r && r->base + r->bytes < hi ? r->base + r->bytes : hi;
			end = (end + UVM_PAGE_BYTES - 1) & ~(uint64_t)(UVM_PAGE_BYTES - 1);
			if (end <= a)
				end = a + UVM_PAGE_BYTES;
			if (r)
				u->st->allocs[r->stat].decisions[d] += (end - a) >> UVM_PAGE_SHIFT;
			a = end;
		}
		if (u->hooks.observer.decision)
			u->hooks.observer.decision(u->hooks.observer.ctx, lo,
						   (uint64_t)(q - p) << UVM_PAGE_SHIFT, d);
		p = q < UVM_BLOCK_PAGES ? mask_next(mask, q, true) : q;
	}
}

void uvm_alloc_rank(struct uvm *u)
{
	struct gpuvm_uvm_stats *st = u->st;
	uint64_t count = 0, chunks = 0;
	for (size_t i = 0; i < st->n_allocs; i++) {
		count += st->allocs[i].access_count;
		chunks += st->allocs[i].chunks_touched;
	}
	/* per touched block: a's count / a's blocks >= count / chunks */
	for (size_t i = 0; i < st->n_allocs; i++) {
		struct gpuvm_uvm_alloc_stats *a = &st->allocs[i];
		a->hot = a->chunks_touched &&
			 (double)a->access_count * (double)chunks >= (double)count * (double)a->chunks_touched;
	}
}

void uvm_alloc_classify(struct uvm *u, const struct uvm_range *r)
{
	struct gpuvm_uvm_alloc_stats *a = &u->st->allocs[r->stat];
	if (!a->counted)
		return;
	a->chunks_touched = a->chunks_hot = a->access_count = 0;
	uint64_t chunk = (uint64_t)UVM_CHUNK_PAGES << UVM_PAGE_SHIFT;
	for (uint64_t c = r->base & ~(chunk - 1); c < r->base + r->bytes; c += chunk) {
		const struct uvm_map_entry *x = uvm_map_find(&u->blocks, c >> UVM_BLOCK_SHIFT);
		const struct uvm_block *b = x ? (const struct uvm_block *)(uintptr_t)x->val : NULL;
		if (!b || !b->ac)
			continue;
		uint32_t n = uvm_ac_count(b->ac[(c >> UVM_PAGE_SHIFT) % UVM_BLOCK_PAGES / UVM_CHUNK_PAGES]);
		a->chunks_touched += n > 0;
		a->chunks_hot += n >= u->ts;
		a->access_count += n;
	}
}
