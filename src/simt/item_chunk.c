#include "simt/item_chunk.h"

#include "gpuvm/simt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The packed header; a MEM item's addresses follow it: one per active
 * lane, or (affine) the first active lane's and the stride between
 * lanes, which is what a coalesced access has (16 bytes, not 256). */
struct packed_item {
	uint8_t kind, op, space, cache_op, op_class, affine, pad[2];
	uint32_t compute_insts, chain_insts;
	uint32_t bytes_per_lane, active_mask;
};
_Static_assert(sizeof(struct packed_item) + 8 * GPUVM_WARP_LANES == ITEM_CHUNK_MAX_ITEM_BYTES,
	       "ITEM_CHUNK_MAX_ITEM_BYTES is the packed header and 32 addresses");

/* Whether the active lanes' addresses are addr[l0] + (l - l0) x stride. */
static int affine(const struct gpuvm_warp_item *it, uint32_t mask, int64_t *stride)
{
	uint32_t l0 = (uint32_t)__builtin_ctz(mask), rest = mask & (mask - 1);
	*stride = 0;
	if (!rest)
		return 1;
	uint32_t l1 = (uint32_t)__builtin_ctz(rest);
	int64_t d = (int64_t)(it->addr[l1] - it->addr[l0]);
	if (d % (int64_t)(l1 - l0))
		return 0;
	*stride = d / (int64_t)(l1 - l0);
	for (uint32_t m = rest & (rest - 1); m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctz(m);
		if (it->addr[l] != it->addr[l0] + (uint64_t)(l - l0) * (uint64_t)*stride)
			return 0;
	}
	return 1;
}

int item_chunk_put(struct item_chunk *c, const struct gpuvm_warp_item *it)
{
	if (it->has_regs)
		return -1;
	uint32_t mask = it->kind == GPUVM_ITEM_MEM ? it->active_mask : 0;
	int64_t stride = 0;
	int aff = mask && affine(it, mask, &stride);
	uint32_t need = (uint32_t)sizeof(struct packed_item) +
			(aff ? 16u : 8u * (uint32_t)__builtin_popcount(mask));
	if (c->cap - c->len < need)
		return -1;
	struct packed_item h = {
		.kind = (uint8_t)it->kind, .op = (uint8_t)it->op, .space = it->space,
		.cache_op = (uint8_t)(it->cache_op | (it->load_indep ? SIMT_CACHE_INDEP : 0)),
		.op_class = it->op_class, .affine = (uint8_t)aff,
		.compute_insts = it->compute_insts, .chain_insts = it->chain_insts,
		.bytes_per_lane = it->bytes_per_lane, .active_mask = it->active_mask,
	};
	unsigned char *d = c->data + c->len;
	memcpy(d, &h, sizeof h);
	d += sizeof h;
	if (aff) {
		memcpy(d, &it->addr[__builtin_ctz(mask)], 8);
		memcpy(d + 8, &stride, 8);
	} else {
		for (uint32_t m = mask; m; m &= m - 1, d += 8)
			memcpy(d, &it->addr[__builtin_ctz(m)], 8);
	}
	c->len += need;
	return 0;
}

/* The lanes' order of an affine access, for the engine (it would find the
 * same by scanning the lanes): ascending when, in unsigned arithmetic,
 * the last active lane's offset and address do not wrap past 2^64 (a
 * negative stride wraps, unless the wrap is what makes it ascend);
 * contiguous when besides all 32 lanes are active and the stride is the
 * width. Otherwise unknown (the engine scans). */
static uint8_t affine_order(uint32_t mask, uint64_t a0, int64_t stride, uint32_t bytes_per_lane)
{
	uint64_t span = (uint64_t)(31 - __builtin_clz(mask) - __builtin_ctz(mask)), reach;
	if (__builtin_mul_overflow(span, (uint64_t)stride, &reach) ||
	    __builtin_add_overflow(a0, reach, &reach))
		return GPUVM_LANES_UNKNOWN;
	return mask == 0xffffffffu && (uint64_t)stride == bytes_per_lane ? GPUVM_LANES_CONTIGUOUS
									  : GPUVM_LANES_ASCENDING;
}

void item_chunk_get(const struct item_chunk *c, uint32_t *off, struct gpuvm_warp_item *it)
{
	struct packed_item h;
	const unsigned char *d = c->data + *off;
	memcpy(&h, d, sizeof h);
	d += sizeof h;
	it->kind = (enum gpuvm_item_kind)h.kind;
	it->op = (enum gpuvm_mem_op)h.op;
	it->space = h.space;
	it->cache_op = h.cache_op & (SIMT_CACHE_INDEP - 1);
	it->load_indep = h.cache_op & SIMT_CACHE_INDEP ? 1 : 0;
	it->op_class = h.op_class;
	it->compute_insts = h.compute_insts;
	it->chain_insts = h.chain_insts;
	it->bytes_per_lane = h.bytes_per_lane;
	it->active_mask = h.active_mask;
	it->has_regs = 0;
	it->lanes_order = GPUVM_LANES_UNKNOWN;
	uint32_t mask = it->kind == GPUVM_ITEM_MEM ? h.active_mask : 0;
	if (mask && h.affine) {
		uint64_t a0;
		int64_t stride;
		memcpy(&a0, d, 8);
		memcpy(&stride, d + 8, 8);
		d += 16;
		uint32_t l0 = (uint32_t)__builtin_ctz(mask);
		if (mask == 0xffffffffu) {
			for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
				it->addr[l] = a0 + (uint64_t)l * (uint64_t)stride; /* modulo 2^64 */
		} else {
			for (uint32_t m = mask; m; m &= m - 1) {
				uint32_t l = (uint32_t)__builtin_ctz(m);
				it->addr[l] = a0 + (uint64_t)(l - l0) * (uint64_t)stride;
			}
		}
		it->lanes_order = affine_order(h.active_mask, a0, stride, h.bytes_per_lane);
	} else {
		for (uint32_t m = mask; m; m &= m - 1, d += 8)
			memcpy(&it->addr[__builtin_ctz(m)], d, 8);
	}
	*off = (uint32_t)(d - c->data);
}

/* A chunk's footprint in a slab: header and data, whole cache lines. */
static size_t chunk_stride(const struct item_chunk_pool *p)
{
	return (sizeof(struct item_chunk) + p->chunk_bytes + 63) & ~(size_t)63;
}

void item_chunk_pool_init(struct item_chunk_pool *p, uint32_t chunk_bytes)
{
	memset(p, 0, sizeof *p);
	p->chunk_bytes = chunk_bytes < ITEM_CHUNK_MAX_ITEM_BYTES ? ITEM_CHUNK_MAX_ITEM_BYTES
								 : chunk_bytes;
}

/* A new slab: at least 8 chunks after its first line (the link). */
static int new_slab(struct item_chunk_pool *p)
{
	size_t stride = chunk_stride(p), bytes = ITEM_CHUNK_SLAB_BYTES;
	while (bytes < 64 + 8 * stride)
		bytes += ITEM_CHUNK_SLAB_BYTES;
	void *m;
	if (posix_memalign(&m, ITEM_CHUNK_SLAB_BYTES, bytes))
		return -1;
#ifdef MADV_HUGEPAGE
	madvise(m, bytes, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
#endif
	*(void **)m = p->slabs;
	p->slabs = m;
	p->carve = (unsigned char *)m + 64;
	p->carve_left = (uint32_t)((bytes - 64) / stride);
	return 0;
}

struct item_chunk *item_chunk_pool_get(struct item_chunk_pool *p)
{
	struct item_chunk *c = p->free;
	if (c) {
		p->free = c->next;
	} else {
		if (!p->carve_left && new_slab(p))
			return NULL;
		c = (struct item_chunk *)(void *)p->carve;
		p->carve += chunk_stride(p);
		p->carve_left--;
		c->cap = p->chunk_bytes;
		p->allocated++;
	}
	c->next = NULL;
	c->len = 0;
	return c;
}

void item_chunk_pool_put(struct item_chunk_pool *p, struct item_chunk *c)
{
	c->next = p->free;
	p->free = c;
}

void item_chunk_pool_free(struct item_chunk_pool *p)
{
	while (p->slabs) {
		void *m = p->slabs;
		p->slabs = *(void **)m;
		free(m);
	}
	p->free = NULL;
	p->carve = NULL;
	p->carve_left = 0;
	p->allocated = 0;
}
