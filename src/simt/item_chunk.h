/* Warp items in transit between the threads that execute a SIMT kernel
 * (simt_par.c) and the engine: packed into fixed-size chunks, a warp's
 * chunks queued in order, at most a fixed number of them waiting.
 *
 * A packed item keeps what the engine reads of a source item without
 * register operands (every SIMT item): kind, gap, chain, class, space,
 * cache operator, operation, width, mask, and the active lanes' addresses:
 * a base and a stride when they are evenly spaced (a coalesced access:
 * 40 bytes in all), else one per active lane (a one-lane access: 32).
 * The pool does not lock: the caller serialises it. */
#ifndef GPUVM_SIMT_ITEM_CHUNK_H
#define GPUVM_SIMT_ITEM_CHUNK_H

#include <stdatomic.h>
#include <stdint.h>

#include "gpuvm/stream.h"

/* the largest packed item: a header and 32 addresses */
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

/* A warp's chunks in order, at most `bound` (< ITEM_FIFO_SLOTS) of them:
 * a ring with one producer and one consumer. The producer (the warp's
 * owner, serialised by the caller) pushes; the consumer (the engine) pops
 * without a lock. Chunks put and taken are counted from the launch on, so
 * the count waiting is tail - head, read on either side. The slot is
 * written before the release store of tail and read after the acquire
 * load, so the consumer sees a chunk's items whole; the producer learns
 * of room through the caller (simt_par.c tells the owner after a pop). */
#define ITEM_FIFO_SLOTS 4u
struct item_fifo {
	struct item_chunk *slot[ITEM_FIFO_SLOTS];
	_Atomic uint32_t head; /* chunks taken (the consumer's) */
	_Atomic uint32_t tail; /* chunks put (the producer's) */
	uint32_t bound;
};

/* Chunks waiting. */
static inline uint32_t item_fifo_count(const struct item_fifo *f)
{
	return atomic_load_explicit(&f->tail, memory_order_acquire) -
	       atomic_load_explicit(&f->head, memory_order_acquire);
}
static inline int item_fifo_has_room(const struct item_fifo *f)
{
	return item_fifo_count(f) < f->bound;
}
/* Appends c; the caller checked has_room (producer only). */
static inline void item_fifo_push(struct item_fifo *f, struct item_chunk *c)
{
	uint32_t t = atomic_load_explicit(&f->tail, memory_order_relaxed);
	f->slot[t % ITEM_FIFO_SLOTS] = c;
	atomic_store_explicit(&f->tail, t + 1, memory_order_release);
}
/* The oldest chunk, or NULL when none is waiting (consumer only). */
static inline struct item_chunk *item_fifo_pop(struct item_fifo *f)
{
	uint32_t h = atomic_load_explicit(&f->head, memory_order_relaxed);
	if (h == atomic_load_explicit(&f->tail, memory_order_acquire))
		return NULL;
	struct item_chunk *c = f->slot[h % ITEM_FIFO_SLOTS];
	atomic_store_explicit(&f->head, h + 1, memory_order_release);
	return c;
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
