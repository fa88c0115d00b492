/* The SePo hash table, device side (Mokhtari thesis, seeds/001 chapter 6;
 * the author's code is rezafmk/BRB_HashTable, PVC/hashtable.cu and
 * performanceTest/hashtable.cu, whose design this follows; written anew).
 * A SIMT body header: compiled as C for the SIMT executor (every access
 * below is replayed through the engine) and as CUDA by cuda/sepo.cu.
 *
 * Closed addressing with separate chaining (§6.3): `buckets[b]` is the head
 * of a linked list of entries allocated from a heap of fixed-size pages.
 * Buckets are split into groups of contiguous buckets; a group takes a page
 * from the pool on its first malloc and chains a new page when the current
 * one is full (§6.3.1, Fig. 6.3); nothing is ever freed on the device. When
 * the pool is empty an insert is declined (SEPO_POSTPONE): the caller leaves
 * its record unmarked and the host re-processes it in a later iteration,
 * after copying the heap to host memory (§6.3.3, sepo.c).
 *
 * Pointers (§6.4.1). An entry reference is one 64-bit word that both sides
 * can follow: ref = (slot << page_shift | word offset) + 1, where `slot` is
 * the page's place in the host image (pages are numbered in the order they
 * are taken, over all iterations). The host follows a ref into its copy of
 * slot `slot`; the GPU translates it through `slot_page[slot]` (the device
 * page holding that slot now, or -1 once it has been copied out). The thesis
 * keeps two pointers per link (a GPU one and a CPU one computed from the
 * host buffer's base); one translated word serves the same purpose in 8
 * fewer bytes per link and stays right when pages leave one by one
 * (multi-valued). Entries no longer on the GPU hold keys whose records are
 * all done (§6.4.2 footnote 8), so GPU searches stop at the first one.
 *
 * Entry layouts in 8-byte words (keys and values padded to 8 bytes, §6.3):
 *   basic / combining entry: next | meta | key words | value words
 *   multi-valued key entry:  next | meta | value-list head | key words
 *   multi-valued value node: next | meta | value words      (value pages)
 *   meta = key bytes | value bytes << 16 in the low 32 bits; the high 32
 *   bits are the entry lock (combining, §6.4.2) -- unless entry_locks is
 *   set: with the heap in host-pinned memory the locks stay in device
 *   memory, one per two heap words (an entry is at least three words, so
 *   no two entries share one), as the thesis's pinned variant keeps
 *   "everything else ... in GPU memory for higher memory performance
 *   (e.g. locks)" (§6.6.4).
 *
 * Organisations (§6.3.2): basic pushes every pair at the bucket head with a
 * lock-free CAS (Fig. 6.7; duplicates kept); combining searches the GPU part
 * of the chain and merges a duplicate's value in place under the entry lock
 * (the callback, `combine` below), inserting a new key under the bucket
 * lock; multi-valued inserts a key once (bucket lock) and CAS-pushes each
 * value onto the key's value list, values on separate value pages.
 *
 * Forward progress in the SIMT executor: a warp issues the earliest source
 * line any of its lanes waits at (docs/simt.md), and a thread runs ahead
 * of its warp by up to 64 accesses, so a lock holder may still have
 * accesses buffered from before and after it took the lock. A lane that
 * spins on a lock held by a lane of its own warp must therefore spin at a
 * line no earlier than ANY line the holder may have buffered, or the
 * spinner is issued forever and the holder never is. Every lock is taken
 * in sepo_try_lock, defined at the end of this file under `#line 65000`
 * (above every line of any kernel file; sites are 16 bits), by a
 * `for (;;) { if (held) { critical section; release; break; } try; }`
 * loop, the standard deadlock-free form on pre-Volta GPUs too. */
#ifndef GPUVM_SEPO_DEV_H
#define GPUVM_SEPO_DEV_H

#include "gpuvm/simt.h"

#ifdef __CUDACC__
#define SEPO_FENCE() __threadfence()
#else
#define SEPO_FENCE() ((void)0) /* the executor runs each access at once, in order */
#endif

#define SEPO_POSTPONE 0
#define SEPO_SUCCESS 1

#define SEPO_BASIC 0
#define SEPO_MULTI 1
#define SEPO_COMBINING 2

/* combining callbacks, applied word by word to the stored value */
#define SEPO_COMB_ADD 0
#define SEPO_COMB_OR 1
#define SEPO_COMB_MIN 2
#define SEPO_COMB_MAX 3
#define SEPO_COMB_COUNT_OR 4 /* word 0 adds (a count), the others OR (flag sets): DNA */

#ifdef __CUDACC__
#define SEPO_HOSTDEV __host__ __device__ static inline
#else
#define SEPO_HOSTDEV static inline
#endif

/* Word i of a combined value: the one definition of the callbacks, for the
 * device, the CPU baseline (sepo_cpu.c) and the reference (sepo_ref.c). */
SEPO_HOSTDEV unsigned long long sepo_combine_word(unsigned int op, unsigned int i,
						  unsigned long long old, unsigned long long v)
{
	switch (op) {
	case SEPO_COMB_OR: return old | v;
	case SEPO_COMB_MIN: return v < old ? v : old;
	case SEPO_COMB_MAX: return v > old ? v : old;
	case SEPO_COMB_COUNT_OR: return i ? old | v : old + v;
	default: return old + v;
	}
}

/* counters (t->ctr[]) */
#define SEPO_CTR_FREE_TAKEN 0 /* pages taken from the free list this iteration */
#define SEPO_CTR_SLOTS 1      /* host-image slots handed out, all iterations */
#define SEPO_CTR_FAILED_GROUPS 2
#define SEPO_CTR_HALT 3       /* basic: the 50 % rule stopped the iteration */
#define SEPO_CTR_KEY_PAGES 4  /* multi-valued: key pages taken this iteration */
#define SEPO_CTR_OVERFLOW 5   /* slot table exhausted (a sizing bug: fails the run) */
#define SEPO_CTR_POSTPONED 6  /* declined inserts this iteration */
#define SEPO_CTRS 8

/* group flags (t->group_flags[]) */
#define SEPO_GF_FAILED 1 /* an allocation of this group was declined */
#define SEPO_GF_NEEDED 2 /* multi-valued: a key of this group still awaits values */

#define SEPO_MAX_KEY_WORDS 32 /* 256-byte keys */
#define SEPO_MAX_VALUE_WORDS 8

struct sepo_dev {
	unsigned long long *heap;     /* heap_pages << page_shift words */
	unsigned long long *buckets;  /* head ref per bucket (0: empty) */
	int *bucket_locks;
	int *entry_locks;  /* NULL: in the entries' meta words (see above) */
	int *group_page;   /* [2 * groups]: current key/entry page, current value page; -1 none */
	int *group_locks;  /* page lock per group */
	int *group_flags;
	unsigned int *page_used; /* words handed out per device page (may overshoot) */
	int *page_prev;    /* the group's previous page (the chain of Fig. 6.3) */
	int *page_owner;   /* group * 2 + kind of each taken page */
	int *page_slot;    /* host-image slot of each device page */
	/* multi-valued, keep=pages (§6.3.3): nonzero when the key page holds a
	 * key whose value was postponed this iteration; NULL under keep=groups */
	int *page_needed;
	int *slot_page;    /* device page of each slot; -1: on the host */
	const int *free_list; /* pages free this iteration */
	unsigned int *ctr;
	unsigned int nbuckets, buckets_per_group;
	unsigned int page_shift; /* log2 of page words */
	unsigned int free_n, slot_cap;
	unsigned int org, combine_op;
	unsigned int halt_groups;    /* basic: stop once this many groups failed (0: never) */
	unsigned int key_page_cap;   /* multi-valued: key pages per iteration (half the pool) */
};

/* Arguments of the map kernels (sepo_kernels.h), set by sepo_run.c. */
struct sepo_map_args {
	struct sepo_dev t;
	const unsigned long long *recs; /* the chunk, rec_words words per record */
	unsigned int *done;             /* one bit per record of the whole input */
	unsigned int *progress;         /* word-count: words of each line already in */
	unsigned long long first, n;    /* the chunk's first record, its records */
	unsigned int rec_words;
	unsigned int key_bytes;         /* word-count: the longest word kept */
	unsigned int app;               /* SEPO_APP_* (sepo_kernels.h) */
};

/* One attempt at a spin lock (0 -> 1); defined last (see the file comment). */
SIMT_DEVFN int sepo_try_lock(SIMT_CTX_ int *locks, long long i);

/* ---- helpers ---------------------------------------------------------- */

/* The device word of ref, or -1 when its page is no longer on the GPU. */
SIMT_DEVFN long long sepo_word(SIMT_CTX_ const struct sepo_dev *t, unsigned long long ref)
{
	if (!ref)
		return -1;
	unsigned long long r = ref - 1;
	int p = LD(t->slot_page, (unsigned int)(r >> t->page_shift));
	COMPUTE(3);
	if (p < 0)
		return -1;
	return ((long long)p << t->page_shift) | (long long)(r & ((1ull << t->page_shift) - 1));
}

/* The GPU-resident entry with this key in the chain from `from` up to (not
 * including) `stop`; -1 when none. kw = key words. */
SIMT_DEVFN long long sepo_find(SIMT_CTX_ const struct sepo_dev *t, unsigned long long from,
			       unsigned long long stop, const unsigned long long *key, unsigned int kbytes,
			       unsigned int key_at)
{
	unsigned int kw = (kbytes + 7) / 8;
	unsigned long long ref = from;
	while (ref && ref != stop) {
		long long w = sepo_word(SIMT_PASS_ t, ref);
		if (w < 0)
			return -1; /* the rest of the chain is on the host, complete */
		unsigned long long meta = LD(t->heap, w + 1);
		int same = (unsigned int)(meta & 0xffff) == kbytes;
		for (unsigned int i = 0; same && i < kw; i++)
			same = LD(t->heap, w + key_at + i) == key[i];
		COMPUTE(2 + kw);
		if (same)
			return w;
		ref = LD(t->heap, w);
	}
	return -1;
}

/* n words for group g from its key (kind 0) or value (kind 1) page; sets
 * *w to the device word and returns the ref, or 0: the pool is empty
 * (the insert is postponed) */
SIMT_DEVFN unsigned long long sepo_alloc(SIMT_CTX_ const struct sepo_dev *t, unsigned int g,
					 unsigned int kind, unsigned int n, long long *w)
{
	unsigned int pw = 1u << t->page_shift;
	for (;;) {
		int cur = LD(t->group_page, 2 * g + kind);
		if (cur >= 0) {
			unsigned int off = ATOMIC_ADD(t->page_used, cur, n);
			if (off + n <= pw) {
				int slot = LD(t->page_slot, cur);
				*w = ((long long)cur << t->page_shift) | off;
				return (((unsigned long long)slot << t->page_shift) | off) + 1;
			}
		}
		/* the current page is full. Whether the group gets another
		 * page is decided under its page lock: a decline must be final
		 * for the iteration (a key declined once must not go in later,
		 * or the next iteration would store it a second time), and a
		 * thread that took the pool's last page may not have installed
		 * it yet. Once a group has been declined with the pool empty,
		 * nothing can change for it: decline without the lock. */
		if ((LD(t->group_flags, g) & SEPO_GF_FAILED) &&
		    LD(t->ctr, SEPO_CTR_FREE_TAKEN) >= t->free_n)
			return 0;
		int held = 0, again = 0;
		for (;;) {
			if (held) {
				if (LD(t->group_page, 2 * g + kind) != cur) {
					again = 1; /* another thread chained a page */
				} else if (kind == 0 && t->key_page_cap &&
					   ATOMIC_ADD(t->ctr, SEPO_CTR_KEY_PAGES, 1u) >= t->key_page_cap) {
					again = 0; /* multi-valued: keys keep half the pool for values */
				} else {
					unsigned int i = ATOMIC_ADD(t->ctr, SEPO_CTR_FREE_TAKEN, 1u);
					if (i < t->free_n) {
						int np = LD(t->free_list, i);
						unsigned int slot = ATOMIC_ADD(t->ctr, SEPO_CTR_SLOTS, 1u);
						if (slot < t->slot_cap) {
							ST(t->page_slot, np, (int)slot);
							ST(t->slot_page, slot, np);
							ST(t->page_prev, np, cur);
							ST(t->page_owner, np, (int)(2 * g + kind));
							ST(t->page_used, np, 0u);
							SEPO_FENCE();
							ST(t->group_page, 2 * g + kind, np);
							again = 1;
						} else {
							ATOMIC_OR(t->ctr, SEPO_CTR_OVERFLOW, 1u);
						}
					}
				}
				SEPO_FENCE();
				ATOMIC_EXCH(t->group_locks, g, 0);
				break;
			}
			held = sepo_try_lock(SIMT_PASS_ t->group_locks, g);
		}
		if (!again)
			return 0;
	}
}

/* A declined allocation in group g: counts failed groups for the basic
 * method's threshold (§6.3.3: stop once 50 % of the groups fail). */
SIMT_DEVFN void sepo_declined(SIMT_CTX_ const struct sepo_dev *t, unsigned int g)
{
	ATOMIC_ADD(t->ctr, SEPO_CTR_POSTPONED, 1u);
	if (ATOMIC_OR(t->group_flags, g, SEPO_GF_FAILED) & SEPO_GF_FAILED)
		return;
	unsigned int n = ATOMIC_ADD(t->ctr, SEPO_CTR_FAILED_GROUPS, 1u) + 1;
	if (t->halt_groups && n >= t->halt_groups)
		ST(t->ctr, SEPO_CTR_HALT, 1u);
}

/* The combining callback (§6.3.2): merges a duplicate key's value into the
 * stored one, word by word. */
SIMT_DEVFN void sepo_combine(SIMT_CTX_ const struct sepo_dev *t, long long vw,
			     const unsigned long long *val, unsigned int vwords)
{
	for (unsigned int i = 0; i < vwords; i++) {
		unsigned long long old = LD(t->heap, vw + i);
		COMPUTE(2);
		ST(t->heap, vw + i, sepo_combine_word(t->combine_op, i, old, val[i]));
	}
}

/* Writes a basic/combining entry (or a multi-valued key entry) at w. */
SIMT_DEVFN void sepo_write_entry(SIMT_CTX_ const struct sepo_dev *t, long long w,
				 unsigned long long next, const unsigned long long *key,
				 unsigned int kbytes, const unsigned long long *val,
				 unsigned int vbytes)
{
	unsigned int kw = (kbytes + 7) / 8, vw = (vbytes + 7) / 8;
	ST(t->heap, w, next);
	ST(t->heap, w + 1, (unsigned long long)(kbytes | vbytes << 16));
	unsigned int at = 2;
	if (t->org == SEPO_MULTI) {
		ST(t->heap, w + 2, 0ull); /* empty value list */
		at = 3;
		vw = 0;
	}
	for (unsigned int i = 0; i < kw; i++)
		ST(t->heap, w + at + i, key[i]);
	for (unsigned int i = 0; i < vw; i++)
		ST(t->heap, w + at + kw + i, val[i]);
}

/* ---- the insert ---------------------------------------------------- */

/* Pushes the entry at device word w (reference ref) onto the list whose
 * head is heads[i], lock-free (Fig. 6.7): a bucket's entries (basic) or a
 * key's values (multi-valued). */
SIMT_DEVFN void sepo_push(SIMT_CTX_ const struct sepo_dev *t, unsigned long long *heads, long long i,
			  long long w, unsigned long long ref)
{
	for (;;) {
		unsigned long long h = LD(heads, i);
		ST(t->heap, w, h);
		SEPO_FENCE();
		if (ATOMIC_CAS(heads, i, h, ref) == h)
			return;
	}
}

/* Inserts <key, val> (kbytes, vbytes > 0; key and val are register arrays
 * of whole words, zero-padded); bucket b of group g. Returns SEPO_SUCCESS
 * or SEPO_POSTPONE (§6.3.3: the caller re-processes the record later). */
SIMT_DEVFN int sepo_insert(SIMT_CTX_ const struct sepo_dev *t, unsigned int b,
			   const unsigned long long *key, unsigned int kbytes,
			   const unsigned long long *val, unsigned int vbytes)
{
	unsigned int g = b / t->buckets_per_group;
	unsigned int kw = (kbytes + 7) / 8, vw = (vbytes + 7) / 8;
	unsigned int key_at = t->org == SEPO_MULTI ? 3 : 2;
	long long w = -1;
	if (t->org == SEPO_BASIC) {
		/* lock-free push at the head (Fig. 6.7) */
		unsigned long long ref = sepo_alloc(SIMT_PASS_ t, g, 0, 2 + kw + vw, &w);
		if (!ref) {
			sepo_declined(SIMT_PASS_ t, g);
			return SEPO_POSTPONE;
		}
		sepo_write_entry(SIMT_PASS_ t, w, 0, key, kbytes, val, vbytes);
		sepo_push(SIMT_PASS_ t, t->buckets, b, w, ref);
		return SEPO_SUCCESS;
	}
	unsigned long long head0 = LD(t->buckets, b);
	long long e = sepo_find(SIMT_PASS_ t, head0, 0, key, kbytes, key_at);
	int held = 0; /* 1: the entry lock of e (combining), 2: the bucket lock */
	int rc = SEPO_SUCCESS;
	/* an entry's lock: the high half of its meta, or in entry_locks */
	int *locks32 = t->entry_locks ? t->entry_locks : (int *)t->heap;
	for (;;) {
		/* critical sections first (see the file comment) */
		if (held == 1) {
			sepo_combine(SIMT_PASS_ t, e + 2 + kw, val, vw);
			SEPO_FENCE();
			ATOMIC_EXCH(locks32, t->entry_locks ? e >> 1 : 2 * (e + 1) + 1, 0);
			break;
		}
		if (held == 2) {
			unsigned long long h = LD(t->buckets, b);
			e = sepo_find(SIMT_PASS_ t, h, head0, key, kbytes, key_at);
			if (e < 0) {
				unsigned int words = t->org == SEPO_MULTI ? 3 + kw : 2 + kw + vw;
				unsigned long long ref = sepo_alloc(SIMT_PASS_ t, g, 0, words, &w);
				if (ref) {
					sepo_write_entry(SIMT_PASS_ t, w, h, key, kbytes, val, vbytes);
					SEPO_FENCE();
					ST(t->buckets, b, ref);
					e = w;
					rc = t->org == SEPO_MULTI ? 2 : SEPO_SUCCESS; /* multi: value next */
				} else {
					sepo_declined(SIMT_PASS_ t, g);
					rc = SEPO_POSTPONE;
				}
			} else {
				rc = 3; /* found after all */
			}
			SEPO_FENCE();
			ATOMIC_EXCH(t->bucket_locks, b, 0);
			held = 0;
			if (rc == SEPO_POSTPONE || rc == SEPO_SUCCESS)
				break;
			if (t->org == SEPO_MULTI)
				break;
			rc = SEPO_SUCCESS; /* combining: merge into the entry found */
			continue;
		}
		if (e >= 0 && t->org == SEPO_MULTI)
			break; /* key present: append the value below */
		if (e >= 0)
			held = sepo_try_lock(SIMT_PASS_ locks32, t->entry_locks ? e >> 1 : 2 * (e + 1) + 1);
		else
			held = 2 * sepo_try_lock(SIMT_PASS_ t->bucket_locks, b);
	}
	if (t->org != SEPO_MULTI || rc == SEPO_POSTPONE)
		return rc;
	/* multi-valued: push the value onto the key's list (lock-free) */
	unsigned long long vref = sepo_alloc(SIMT_PASS_ t, g, 1, 2 + vw, &w);
	if (!vref) {
		/* §6.3.3: keep the key page holding e (keep=pages), or every
		 * key page of the group (keep=groups, the author's group->needed) */
		if (t->page_needed)
			ST(t->page_needed, e >> t->page_shift, 1);
		else
			ATOMIC_OR(t->group_flags, g, SEPO_GF_NEEDED);
		sepo_declined(SIMT_PASS_ t, g);
		return SEPO_POSTPONE;
	}
	ST(t->heap, w + 1, (unsigned long long)(vbytes << 16));
	for (unsigned int i = 0; i < vw; i++)
		ST(t->heap, w + 2 + i, val[i]);
	sepo_push(SIMT_PASS_ t, t->heap, e + 2, w, vref);
	return SEPO_SUCCESS;
}

/* FNV-1a over the key's bytes (rezafmk/BRB_HashTable PVC/hashtable.cu
 * hashes keys with an FNV-like function). */
SIMT_DEVFN unsigned int sepo_hash(SIMT_CTX_ const unsigned long long *key, unsigned int kbytes)
{
	unsigned int h = 2166136261u;
	for (unsigned int i = 0; i < kbytes; i++) {
		h ^= (unsigned int)(key[i / 8] >> (8 * (i % 8)) & 0xff);
		h *= 16777619u;
	}
	COMPUTE(2 * kbytes);
	return h;
}

/* Last in the file, numbered past every kernel line (see the file
 * comment): the one place a lane spins. */
#line 65000
SIMT_DEVFN int sepo_try_lock(SIMT_CTX_ int *locks, long long i)
{
	return ATOMIC_CAS(locks, i, 0, 1) == 0;
}

#endif
