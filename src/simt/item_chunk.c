#include "simt/item_chunk.h"

#include "gpuvm/simt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A packed item: an 8-byte head, then only what the item needs:
 * - its compute and chain counts (8 bytes), when either is not 0 (a
 *   compute gap's);
 * - its width as 32 bits when it does not fit the head's byte;
 * - its active mask, except for a memory access of one lane (the head
 *   names the lane) and items whose mask is 0;
 * - a memory item's addresses, in one of four forms: FORM_ONE, the one
 *   active lane's; FORM_AFFINE, the first active lane's and the stride
 *   between lanes, which is what a coalesced access has (16 bytes, not
 *   256); FORM_NEAR, the first active lane's and each other one's
 *   distance from it in 32 bits, which is what scattered lanes within
 *   one array of up to 2 GiB have (8 + 4 per lane after the first);
 *   FORM_LANES, one address per active lane.
 * So a one-lane access takes 16 bytes and a compute gap 16, where a
 * fixed 24-byte header made them 40 and 24: those two were 86 % of the
 * item bytes bfs on R-MAT 18 handed over (12.0 M one-lane accesses and
 * 5.3 M gaps of 19.8 M items). What it saves is the workers' packing
 * (item_chunk_put 6.1 -> 2.5 % of that run's samples) and chunks (-21 %;
 * pagerank on R-MAT 15 -28 %); the engine's reading of them (pk_next,
 * pk_prefetch, this file's get: 7.3 -> 7.2 %) is the first touch of
 * each warp's next item, whatever its size (docs/parallel.md). */
enum { FORM_LANES, FORM_AFFINE, FORM_NEAR, FORM_ONE };
enum { HEAD_COUNTS = 0x10, HEAD_WIDE = 0x20, HEAD_MASK = 0x40, HEAD_FORM = 0x0f };
struct packed_head {
	uint8_t kind, flags; /* flags: HEAD_* and the form */
	uint8_t op, space, cache_op, op_class;
	uint8_t width; /* bytes per lane, unless HEAD_WIDE */
	uint8_t lane;  /* FORM_ONE: the active lane */
};
_Static_assert(sizeof(struct packed_head) + 8 + 4 + 4 + 8 * GPUVM_WARP_LANES ==
		       ITEM_CHUNK_MAX_ITEM_BYTES,
	       "ITEM_CHUNK_MAX_ITEM_BYTES is the head, counts, width, mask and 32 addresses");

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

/* Whether every active lane's address is within 32 signed bits of the
 * first one's (FORM_NEAR). */
static int near(const struct gpuvm_warp_item *it, uint32_t mask)
{
	uint64_t a0 = it->addr[__builtin_ctz(mask)];
	for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
		int64_t d = (int64_t)(it->addr[__builtin_ctz(m)] - a0);
		if (d < INT32_MIN || d > INT32_MAX)
			return 0;
	}
	return 1;
}

int item_chunk_put(struct item_chunk *c, const struct gpuvm_warp_item *it)
{
	if (it->has_regs)
		return -1;
	uint32_t mask = it->kind == GPUVM_ITEM_MEM ? it->active_mask : 0;
	uint32_t lanes = (uint32_t)__builtin_popcount(mask);
	int64_t stride = 0;
	int form = !mask			 ? FORM_LANES
		   : lanes == 1			 ? FORM_ONE
		   : affine(it, mask, &stride) ? FORM_AFFINE
		   : near(it, mask)		 ? FORM_NEAR
						 : FORM_LANES;
	int counts = it->compute_insts || it->chain_insts;
	int wide = it->bytes_per_lane > UINT8_MAX;
	int has_mask = form != FORM_ONE && it->active_mask;
	uint32_t need = (uint32_t)sizeof(struct packed_head) + (counts ? 8u : 0u) +
			(wide ? 4u : 0u) + (has_mask ? 4u : 0u) +
			(form == FORM_ONE      ? 8u
			 : form == FORM_AFFINE ? 16u
			 : form == FORM_NEAR   ? 4u + 4u * lanes
					       : 8u * lanes);
	if (c->cap - c->len < need)
		return -1;
	struct packed_head h = {
		.kind = (uint8_t)it->kind,
		.flags = (uint8_t)(form | (counts ? HEAD_COUNTS : 0) | (wide ? HEAD_WIDE : 0) |
				   (has_mask ? HEAD_MASK : 0)),
		.op = (uint8_t)it->op, .space = it->space,
		.cache_op = (uint8_t)(it->cache_op | (it->load_indep ? SIMT_CACHE_INDEP : 0)),
		.op_class = it->op_class, .width = (uint8_t)(wide ? 0 : it->bytes_per_lane),
		.lane = (uint8_t)(form == FORM_ONE ? __builtin_ctz(mask) : 0),
	};
	unsigned char *d = c->data + c->len;
	memcpy(d, &h, sizeof h);
	d += sizeof h;
	if (counts) {
		memcpy(d, &it->compute_insts, 4);
		memcpy(d + 4, &it->chain_insts, 4);
		d += 8;
	}
	if (wide) {
		memcpy(d, &it->bytes_per_lane, 4);
		d += 4;
	}
	if (has_mask) {
		memcpy(d, &it->active_mask, 4);
		d += 4;
	}
	if (form == FORM_ONE) {
		memcpy(d, &it->addr[h.lane], 8);
	} else if (form == FORM_AFFINE) {
		memcpy(d, &it->addr[__builtin_ctz(mask)], 8);
		memcpy(d + 8, &stride, 8);
	} else if (form == FORM_NEAR) {
		uint64_t a0 = it->addr[__builtin_ctz(mask)];
		memcpy(d, &a0, 8);
		d += 8;
		for (uint32_t m = mask & (mask - 1); m; m &= m - 1, d += 4) {
			int32_t dist = (int32_t)(int64_t)(it->addr[__builtin_ctz(m)] - a0);
			memcpy(d, &dist, 4);
		}
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
	struct packed_head h;
	const unsigned char *d = c->data + *off;
	memcpy(&h, d, sizeof h);
	d += sizeof h;
	int form = h.flags & HEAD_FORM;
	it->kind = (enum gpuvm_item_kind)h.kind;
	it->op = (enum gpuvm_mem_op)h.op;
	it->space = h.space;
	it->cache_op = h.cache_op & (SIMT_CACHE_INDEP - 1);
	it->load_indep = h.cache_op & SIMT_CACHE_INDEP ? 1 : 0;
	it->op_class = h.op_class;
	it->compute_insts = it->chain_insts = 0;
	if (h.flags & HEAD_COUNTS) {
		memcpy(&it->compute_insts, d, 4);
		memcpy(&it->chain_insts, d + 4, 4);
		d += 8;
	}
	it->bytes_per_lane = h.width;
	if (h.flags & HEAD_WIDE) {
		memcpy(&it->bytes_per_lane, d, 4);
		d += 4;
	}
	it->active_mask = form == FORM_ONE ? 1u << h.lane : 0;
	if (h.flags & HEAD_MASK) {
		memcpy(&it->active_mask, d, 4);
		d += 4;
	}
	it->has_regs = 0;
	it->lanes_order = GPUVM_LANES_UNKNOWN;
	uint32_t mask = it->kind == GPUVM_ITEM_MEM ? it->active_mask : 0;
	if (form == FORM_ONE) {
		memcpy(&it->addr[h.lane], d, 8);
		d += 8;
		it->lanes_order = GPUVM_LANES_ASCENDING; /* one lane: as a stride of 0 */
	} else if (form == FORM_NEAR) {
		uint64_t a0;
		memcpy(&a0, d, 8);
		d += 8;
		it->addr[__builtin_ctz(mask)] = a0;
		for (uint32_t m = mask & (mask - 1); m; m &= m - 1, d += 4) {
			int32_t dist;
			memcpy(&dist, d, 4);
			it->addr[__builtin_ctz(m)] = a0 + (uint64_t)(int64_t)dist; /* modulo 2^64 */
		}
	} else if (form == FORM_AFFINE) {
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
		it->lanes_order = affine_order(mask, a0, stride, it->bytes_per_lane);
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
