/* Float reductions and racing stores committed in thread order
 * (simt_red.h). */
#include "simt/simt_red.h"

#include <stdlib.h>
#include <string.h>

/* A new chunk at the end of thread's chain. */
int simt_red_log_grow(struct simt_red_log *log, uint32_t thread)
{
	if (log->nchunks == log->nblocks * SIMT_RED_BLOCK_CHUNKS) {
		if (log->nblocks == log->cap_blocks) {
			uint32_t cap = log->cap_blocks ? 2 * log->cap_blocks : 4;
			struct simt_red_chunk **b =
				cap > log->cap_blocks ? realloc(log->block, cap * sizeof *b) : NULL;
			if (!b)
				return -1;
			log->block = b;
			log->cap_blocks = cap;
		}
		log->block[log->nblocks] = malloc(SIMT_RED_BLOCK_CHUNKS * sizeof **log->block);
		if (!log->block[log->nblocks])
			return -1;
		log->nblocks++;
	}
	uint32_t num = ++log->nchunks;
	struct simt_red_chunk *c = simt_red_chunk_at(log, num);
	c->n = 0;
	c->next = 0;
	if (log->cur[thread])
		log->cur[thread]->next = num;
	else
		log->head[thread] = num;
	log->cur[thread] = c;
	return 0;
}

void simt_red_log_free(struct simt_red_log *log)
{
	for (uint32_t i = 0; i < log->nblocks; i++)
		free(log->block[i]);
	free(log->block);
	free(log->cur); /* head shares its allocation */
	*log = (struct simt_red_log){0};
}

int simt_red_order_init(struct simt_red_order *o)
{
	memset(o, 0, sizeof *o);
	if (pthread_mutex_init(&o->mu, NULL))
		return -1;
	o->ready = 1;
	return 0;
}

static void drop_parked(struct simt_red_order *o)
{
	for (uint32_t i = 0; i < o->cap; i++) {
		simt_red_log_free(&o->ring[i].log);
		o->ring[i].ended = false;
	}
}

void simt_red_order_begin(struct simt_red_order *o)
{
	drop_parked(o);
	o->next = 0;
}

void simt_red_order_free(struct simt_red_order *o)
{
	if (!o->ready)
		return;
	drop_parked(o);
	free(o->ring);
	pthread_mutex_destroy(&o->mu);
	memset(o, 0, sizeof *o);
}

/* Each thread's chain in thread order. The float sum is the one the
 * atomic's "old + v" gives in float (C11 evaluates float + float in float
 * where FLT_EVAL_METHOD is 0, as on x86-64 and AArch64); v holds the
 * float addend exactly. A store copies its bytes (of a float or int the
 * same bits as the plain store). */
static void apply(struct simt_red_log *log)
{
	for (uint32_t t = 0; t < log->nthreads; t++) {
		for (uint32_t i = log->head[t]; i; i = simt_red_chunk_at(log, i)->next) {
			const struct simt_red_chunk *c = simt_red_chunk_at(log, i);
			for (uint32_t k = 0; k < c->n; k++) {
				void *p = (void *)(c->e[k].at & ~(uintptr_t)3);
				switch ((enum simt_red_kind)(c->e[k].at & 3u)) {
				case SIMT_RED_ADD_F32:
					*(float *)p = *(float *)p + (float)c->e[k].v.add;
					break;
				case SIMT_RED_ADD_F64:
					*(double *)p = *(double *)p + c->e[k].v.add;
					break;
				case SIMT_RED_STORE_4:
					memcpy(p, &c->e[k].v.bits, 4);
					break;
				case SIMT_RED_STORE_8:
					memcpy(p, &c->e[k].v.bits, 8);
					break;
				}
			}
		}
	}
}

/* Room for id in the ring (ids next .. next + cap - 1). */
static int ring_fit(struct simt_red_order *o, uint64_t id)
{
	if (id - o->next < o->cap)
		return 0;
	uint32_t cap = o->cap ? o->cap : 64;
	while (id - o->next >= cap) {
		if (cap > UINT32_MAX / 2)
			return -1;
		cap *= 2;
	}
	struct simt_red_parked *ring = calloc(cap, sizeof *ring);
	if (!ring)
		return -1;
	for (uint64_t k = o->next; k < o->next + o->cap; k++)
		ring[k & (cap - 1)] = o->ring[k & (o->cap - 1)];
	free(o->ring);
	o->ring = ring;
	o->cap = cap;
	return 0;
}

int simt_red_cta_end(struct simt_red_order *o, uint64_t cta, struct simt_red_log *log)
{
	int rc = 0;
	pthread_mutex_lock(&o->mu);
	if (cta == o->next) {
		apply(log);
		/* the blocks stay with the caller, empty, for reuse */
		free(log->cur);
		log->cur = NULL;
		log->head = NULL;
		log->nchunks = log->nthreads = 0;
		o->next++;
		/* the CTAs that ended early, now in turn */
		while (o->cap && o->ring[o->next & (o->cap - 1)].ended) {
			struct simt_red_parked *p = &o->ring[o->next & (o->cap - 1)];
			apply(&p->log);
			simt_red_log_free(&p->log);
			p->ended = false;
			o->next++;
		}
	} else if (ring_fit(o, cta)) {
		rc = -1;
	} else {
		struct simt_red_parked *p = &o->ring[cta & (o->cap - 1)];
		p->log = *log; /* moved, not copied */
		p->ended = true;
		*log = (struct simt_red_log){0};
	}
	pthread_mutex_unlock(&o->mu);
	return rc;
}
