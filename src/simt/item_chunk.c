#include "simt/item_chunk.h"

#include <stdlib.h>
#include <string.h>

/* The packed header; a MEM item's active lanes' addresses follow it. */
struct packed_item {
	uint8_t kind, op, space, cache_op, op_class, pad[3];
	uint32_t compute_insts, chain_insts;
	uint32_t bytes_per_lane, active_mask;
};
_Static_assert(sizeof(struct packed_item) + 8 * GPUVM_WARP_LANES == ITEM_CHUNK_MAX_ITEM_BYTES,
	       "ITEM_CHUNK_MAX_ITEM_BYTES is the packed header and 32 addresses");

int item_chunk_put(struct item_chunk *c, const struct gpuvm_warp_item *it)
{
	if (it->has_regs)
		return -1;
	uint32_t mask = it->kind == GPUVM_ITEM_MEM ? it->active_mask : 0;
	uint32_t need = (uint32_t)sizeof(struct packed_item) + 8u * (uint32_t)__builtin_popcount(mask);
	if (c->cap - c->len < need)
		return -1;
	struct packed_item h = {
		.kind = (uint8_t)it->kind, .op = (uint8_t)it->op, .space = it->space,
		.cache_op = it->cache_op, .op_class = it->op_class,
		.compute_insts = it->compute_insts, .chain_insts = it->chain_insts,
		.bytes_per_lane = it->bytes_per_lane, .active_mask = it->active_mask,
	};
	unsigned char *d = c->data + c->len;
	memcpy(d, &h, sizeof h);
	d += sizeof h;
	for (uint32_t m = mask; m; m &= m - 1, d += 8)
		memcpy(d, &it->addr[__builtin_ctz(m)], 8);
	c->len += need;
	return 0;
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
	it->cache_op = h.cache_op;
	it->op_class = h.op_class;
	it->compute_insts = h.compute_insts;
	it->chain_insts = h.chain_insts;
	it->bytes_per_lane = h.bytes_per_lane;
	it->active_mask = h.active_mask;
	it->has_regs = 0;
	uint32_t mask = it->kind == GPUVM_ITEM_MEM ? h.active_mask : 0;
	for (uint32_t m = mask; m; m &= m - 1, d += 8)
		memcpy(&it->addr[__builtin_ctz(m)], d, 8);
	*off = (uint32_t)(d - c->data);
}

void item_fifo_push(struct item_fifo *f, struct item_chunk *c)
{
	c->next = NULL;
	if (f->tail)
		f->tail->next = c;
	else
		f->head = c;
	f->tail = c;
	f->n++;
}

struct item_chunk *item_fifo_pop(struct item_fifo *f)
{
	struct item_chunk *c = f->head;
	if (!c)
		return NULL;
	f->head = c->next;
	if (!f->head)
		f->tail = NULL;
	f->n--;
	c->next = NULL;
	return c;
}

void item_chunk_pool_init(struct item_chunk_pool *p, uint32_t chunk_bytes)
{
	p->free = NULL;
	p->chunk_bytes = chunk_bytes < ITEM_CHUNK_MAX_ITEM_BYTES ? ITEM_CHUNK_MAX_ITEM_BYTES
								 : chunk_bytes;
	p->allocated = 0;
}

struct item_chunk *item_chunk_pool_get(struct item_chunk_pool *p)
{
	struct item_chunk *c = p->free;
	if (c) {
		p->free = c->next;
	} else {
		c = malloc(sizeof *c + p->chunk_bytes);
		if (!c)
			return NULL;
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
	while (p->free) {
		struct item_chunk *c = p->free;
		p->free = c->next;
		free(c);
		p->allocated--;
	}
}
