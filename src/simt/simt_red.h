/* Float reductions (RED_ADD) and racing stores (ST_ORDERED) committed in
 * thread order.
 *
 * Owns: each CTA's logged additions and stores until they are applied,
 * and the launch's commit point (the next CTA id to apply).
 * Calls: nothing beyond libc and pthreads.
 * Guarantees: a launch's RED_ADD additions reach memory as if its threads
 * had run one after another in global thread-id order (CTA id, then
 * thread within the CTA, each thread's additions in program order),
 * whatever order the timing model or the worker threads (simt_par.c) ran
 * them in. Float addition is not associative, so an atomicAdd applied
 * "at once, in execution order" gives sums that depend on the timing
 * model (another preset, managed memory, a different L2) and, on worker
 * threads, on scheduling; these do not. Likewise stores to one element
 * from several threads: the highest thread id's store is the one left,
 * not the one the timing ran last. The price is the contract of RED_ADD
 * and ST_ORDERED (include/gpuvm/simt.h): no thread of the launch reads a
 * target; a target's value is final when the launch ends.
 *
 * A CTA's additions are applied when the CTA ends, right away if every
 * lower id has been applied, else parked until they have; so what is
 * held is bounded by the CTAs resident or claimed ahead, not by the
 * launch. Thread-safe across CTAs: worker threads end CTAs concurrently
 * (one CTA's log is written by one thread at a time). */
#ifndef GPUVM_SIMT_RED_H
#define GPUVM_SIMT_RED_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* What an entry does to its target (held in the target address's low
 * two bits: targets are 4-byte aligned). */
enum simt_red_kind { SIMT_RED_ADD_F32, SIMT_RED_ADD_F64, SIMT_RED_STORE_4, SIMT_RED_STORE_8 };

/* One logged addition or store: the target | kind, and the addend (a
 * float's exactly, widened) or the stored bytes. */
struct simt_red_entry {
	uintptr_t at;
	union {
		double add;
		uint64_t bits;
	} v;
};

/* Threads' logs are chains of chunks numbered across the CTA, held in
 * blocks that never move: an append is a store, a thread's first
 * addition costs one chunk, the log grows without copying (one array
 * doubling to ~100 KiB per pagerank CTA cost 1 % of the run), and a CTA
 * ending out of turn is parked by moving the log, not copying it.
 * 7 entries and the links: 120 bytes. */
#define SIMT_RED_CHUNK 7
#define SIMT_RED_BLOCK_CHUNKS 64
struct simt_red_chunk {
	struct simt_red_entry e[SIMT_RED_CHUNK];
	uint32_t n, next; /* next: chunk number + 1, 0 at the chain's end */
};

/* One CTA's additions. */
struct simt_red_log {
	struct simt_red_chunk **block; /* SIMT_RED_BLOCK_CHUNKS chunks each */
	uint32_t nblocks, cap_blocks;
	uint32_t nchunks; /* in use, numbered 1.. */
	uint32_t nthreads;
	/* per thread: the chunk appended to (NULL none) and the first
	 * chunk's number (0 none); one allocation, cur first */
	struct simt_red_chunk **cur;
	uint32_t *head;
};

static inline struct simt_red_chunk *simt_red_chunk_at(const struct simt_red_log *log, uint32_t num)
{
	return &log->block[(num - 1) / SIMT_RED_BLOCK_CHUNKS][(num - 1) % SIMT_RED_BLOCK_CHUNKS];
}

/* A ring slot: a CTA that ended before a lower id did, and its log. */
struct simt_red_parked {
	struct simt_red_log log;
	bool ended;
};

struct simt_red_order {
	pthread_mutex_t mu;
	uint64_t next;                /* the lowest CTA id not yet applied */
	struct simt_red_parked *ring; /* ids next .. next + cap - 1 */
	uint32_t cap;                 /* a power of two, 0 before the first park */
	int ready;                  /* mu initialised */
};

int simt_red_log_grow(struct simt_red_log *log, uint32_t thread);

/* Appends thread's entry to its CTA's log (allocated for nthreads at the
 * first); -1 on out of memory. */
static inline int simt_red_log_add(struct simt_red_log *log, uint32_t nthreads, uint32_t thread,
				   void *target, enum simt_red_kind kind, struct simt_red_entry e)
{
	if (!log->cur) {
		log->cur = calloc(nthreads, sizeof *log->cur + sizeof *log->head);
		if (!log->cur)
			return -1;
		log->head = (uint32_t *)(log->cur + nthreads);
		log->nthreads = nthreads;
	}
	struct simt_red_chunk *c = log->cur[thread];
	if (!c || c->n == SIMT_RED_CHUNK) {
		if (simt_red_log_grow(log, thread))
			return -1;
		c = log->cur[thread];
	}
	e.at = (uintptr_t)target | (uintptr_t)kind;
	c->e[c->n++] = e;
	return 0;
}
void simt_red_log_free(struct simt_red_log *log);

int simt_red_order_init(struct simt_red_order *o);
/* A new launch: CTA 0 is next; drops what a failed launch left parked. */
void simt_red_order_begin(struct simt_red_order *o);
void simt_red_order_free(struct simt_red_order *o);

/* CTA `cta` ended with `log` (empty if it logged nothing): applies it
 * (and every parked CTA it unblocks), leaving the caller its blocks
 * empty for reuse (nchunks 0, cur NULL), or parks it (the caller's log
 * is then zeroed). Returns -1 on out of memory (nothing applied: the
 * launch must fail). */
int simt_red_cta_end(struct simt_red_order *o, uint64_t cta, struct simt_red_log *log);

#endif
