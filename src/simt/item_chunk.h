/* Warp items in transit between the threads that execute a SIMT kernel
 * (simt_par.c) and the engine: packed into fixed-size chunks, a warp's
 * chunks queued in order.
 *
 * A packed item keeps what the engine reads of a source item without
 * register operands (every SIMT item): kind, gap, chain, class, space,
 * cache operator, operation, width, mask, and the active lanes' addresses,
 * in as few bytes as it can (item_chunk.c): a one-lane access or a
 * compute gap 16, a coalesced access 28 (a base and a stride), a full
 * warp scattered within 2 GiB 144 (a base and 32-bit distances), one
 * scattered wider 268.
 * The pool does not lock: the caller serialises it. */
#ifndef GPUVM_SIMT_ITEM_CHUNK_H
#define GPUVM_SIMT_ITEM_CHUNK_H

#include <stdatomic.h>
#include <stdint.h>

#include "gpuvm/stream.h"

/* the largest packed item: a head, counts, width, mask and 32 addresses */
#define ITEM_CHUNK_MAX_ITEM_BYTES (24u + 8u * GPUVM_WARP_LANES)

struct item_chunk {
	struct item_chunk *next; /* in a FIFO or the pool */
	uint32_t len, cap;       /* bytes used / of data[] */
	_Alignas(8) unsigned char data[];
};

/* Appends it if it fits (returns 0), else returns -1 and leaves the chunk
 * as it was. Items with register operands are not carried (-1). */
int item_chunk_put(struct item_chunk *c, const struct gpuvm_warp_item *it);
/* Unpacks the item at *off into *it (only the fields put carried; the
 * addresses of inactive lanes are left as they were) and advances *off. */
void item_chunk_get(const struct item_chunk *c, uint32_t *off, struct gpuvm_warp_item *it);
/* Whether put can no longer take the largest item. */
static inline int item_chunk_full(const struct item_chunk *c)
{
	return c->cap - c->len < ITEM_CHUNK_MAX_ITEM_BYTES;
}

/* A warp's chunks in order, as many as the caller lets wait: a queue
 * with one producer and one consumer, in segments of ITEM_SEG_SLOTS
 * pointers (a warp of a hub vertex runs a thousand chunks ahead, the
 * others a few). The producer (the warp's owner, serialised by the
 * caller) pushes; the consumer (the engine) pops without a lock. Chunks
 * put and taken are counted from the launch on, so the count waiting is
 * tail - head, read on either side. A slot, and a full segment's link to
 * the next, are written before the release store of tail and read after
 * the acquire load, so the consumer sees a chunk's items whole and never
 * follows a link not yet written; the producer never touches a segment
 * again once it has linked the next, so the consumer may give a segment
 * it left back (through the caller). */
#define ITEM_SEG_SLOTS 16u
struct item_seg {
	struct item_seg *next;
	struct item_chunk *slot[ITEM_SEG_SLOTS];
};
struct item_fifo {
	struct item_seg first; /* a warp's first chunks need no segment */
	struct item_seg *wseg; /* the producer's segment */
	struct item_seg *rseg; /* the consumer's segment */
	_Atomic uint32_t head; /* chunks taken (the consumer's) */
	_Atomic uint32_t tail; /* chunks put (the producer's) */
};

static inline void item_fifo_init(struct item_fifo *f)
{
	f->first.next = NULL;
	f->wseg = f->rseg = &f->first;
	atomic_init(&f->head, 0);
	atomic_init(&f->tail, 0);
}
/* Chunks waiting. */
static inline uint32_t item_fifo_count(const struct item_fifo *f)
{
	return atomic_load_explicit(&f->tail, memory_order_acquire) -
	       atomic_load_explicit(&f->head, memory_order_acquire);
}
/* Whether the next push needs a new segment (producer only). */
static inline int item_fifo_needs_seg(const struct item_fifo *f)
{
	uint32_t t = atomic_load_explicit(&f->tail, memory_order_relaxed);
	return t && t % ITEM_SEG_SLOTS == 0;
}
/* Appends c (producer only); seg: a new segment, used (and then taken)
 * when item_fifo_needs_seg said so. */
static inline void item_fifo_push(struct item_fifo *f, struct item_chunk *c, struct item_seg **seg)
{
	uint32_t t = atomic_load_explicit(&f->tail, memory_order_relaxed);
	if (t && t % ITEM_SEG_SLOTS == 0) {
		struct item_seg *s = *seg;
		*seg = NULL;
		s->next = NULL;
		f->wseg->next = s;
		f->wseg = s;
	}
	f->wseg->slot[t % ITEM_SEG_SLOTS] = c;
	atomic_store_explicit(&f->tail, t + 1, memory_order_release);
}
/* The oldest chunk, or NULL when none is waiting (consumer only). A
 * segment the consumer left for the next goes to *left (the warp's first
 * never does), to be given back by the caller. */
static inline struct item_chunk *item_fifo_pop(struct item_fifo *f, struct item_seg **left)
{
	uint32_t h = atomic_load_explicit(&f->head, memory_order_relaxed);
	if (h == atomic_load_explicit(&f->tail, memory_order_acquire))
		return NULL;
	if (h && h % ITEM_SEG_SLOTS == 0) {
		struct item_seg *old = f->rseg;
		f->rseg = old->next;
		if (old != &f->first)
			*left = old;
	}
	struct item_chunk *c = f->rseg->slot[h % ITEM_SEG_SLOTS];
	atomic_store_explicit(&f->head, h + 1, memory_order_release);
	return c;
}
/* The segment the consumer reads, when it is not the first: once the
 * queue is empty and the producer done, for the caller to give back; the
 * queue is then as item_fifo_init left it. */
static inline struct item_seg *item_fifo_release(struct item_fifo *f)
{
	struct item_seg *s = f->rseg != &f->first ? f->rseg : NULL;
	item_fifo_init(f);
	return s;
}

/* Recycled chunks of one size, carved from slabs of ITEM_CHUNK_SLAB_BYTES
 * (2 MiB aligned, huge-page backed where the kernel allows): the engine
 * reads thousands of warps' chunks in turn, and with a 4 KiB page each
 * nearly every item it read missed the TLB (2dconv:n=2048 at --threads 2:
 * a software prefetch of the next item stalled on its page walk). */
#define ITEM_CHUNK_SLAB_BYTES (2u << 20)
struct item_chunk_pool {
	struct item_chunk *free;
	uint32_t chunk_bytes; /* of data[] */
	uint64_t allocated;   /* chunks in existence (in use or free) */
	void *slabs;          /* list of slabs (each starts with the link) */
	unsigned char *carve; /* the newest slab's first chunk not handed out yet */
	uint32_t carve_left;  /* chunks left to carve there */
};

void item_chunk_pool_init(struct item_chunk_pool *p, uint32_t chunk_bytes);
/* An empty chunk, or NULL on out of memory. */
struct item_chunk *item_chunk_pool_get(struct item_chunk_pool *p);
void item_chunk_pool_put(struct item_chunk_pool *p, struct item_chunk *c);
/* Frees the pool's chunks (those handed out must have come back). */
void item_chunk_pool_free(struct item_chunk_pool *p);

#endif
