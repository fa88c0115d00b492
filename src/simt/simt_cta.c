/* The SIMT executor's CTAs (simt_internal.h): a CTA's threads, warp
 * buffers and shared memory from its first warp's begin to its last
 * warp's end; what its threads' RED_ADD / ST_ORDERED logged, handed to
 * the launch's thread-order commit (simt_red.h) when it ends; the eager
 * run at its first barrier (every thread to each barrier in turn, each
 * column within SIMT_EAGER_SLOTS) and the run of its threads up to a
 * barrier one of them is to pass (simt_exec.c's file comment). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt/simt_internal.h"

void simt_cta_free(struct simt_cta *c)
{
	struct simt_launch *l = c->launch;
	if (c->prev)
		c->prev->next = c->next;
	else
		l->live = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (l->last == c)
		l->last = NULL;
	for (uint32_t i = 0; i < c->nthreads; i++) {
		struct simt_lane *ln = &c->lanes[i];
		if (ln->co) { /* suspended mid-body: teardown after an error */
			coro_free(ln->co);
			free(ln->co);
		}
	}
	uint32_t warps = (c->nthreads + GPUVM_WARP_LANES - 1) / GPUVM_WARP_LANES;
	for (uint32_t i = 0; i < warps; i++)
		simt_wbuf_shrink(&c->wbufs[i]);
	struct simt_red_log *spare = &l->prog->red_spare;
	if (c->red.block && !c->red.cur && !spare->block) {
		*spare = c->red; /* applied: its blocks empty */
	} else {
		simt_red_log_free(&c->red);
	}
	free(c->wbufs);
	free(c->lanes);
	free(c->shared);
	free(c);
}

/* The most slots per lane any warp buffer reached (simt_internal.h). */
static _Atomic uint32_t peak_slots;

uint32_t simt_buffer_peak_slots_take(void)
{
	return atomic_exchange_explicit(&peak_slots, 0, memory_order_relaxed);
}

void simt_note_peak_slots(uint32_t cap)
{
	uint32_t p = atomic_load_explicit(&peak_slots, memory_order_relaxed);
	while (cap > p && !atomic_compare_exchange_weak_explicit(&peak_slots, &p, cap,
								 memory_order_relaxed,
								 memory_order_relaxed))
		;
}

void simt_wbuf_shrink(struct simt_wbuf *wb)
{
	free(wb->row);
	free(wb->e);
	free(wb->chain);
	wb->row = NULL;
	wb->e = NULL;
	wb->chain = NULL;
	wb->cap = 0;
}

void simt_launch_reset(struct simt_launch *l)
{
	while (l->live)
		simt_cta_free(l->live);
	l->last = NULL;
}

struct simt_cta *simt_cta_new(struct simt_launch *l, uint32_t id)
{
	struct simt_cta *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->launch = l;
	c->id = id;
	c->nthreads = l->threads_per_cta;
	c->warps_live = gpuvm_kernel_warps_per_cta(&l->k);
	c->lanes = calloc(c->nthreads, sizeof *c->lanes);
	/* each header on a line of its own (struct simt_wbuf) */
	c->wbufs = aligned_alloc(64, c->warps_live * sizeof *c->wbufs);
	if (c->wbufs)
		memset(c->wbufs, 0, c->warps_live * sizeof *c->wbufs);
	if (!c->lanes || !c->wbufs) {
		free(c->lanes);
		free(c->wbufs);
		free(c);
		return NULL;
	}
	const struct gpuvm_kernel *k = &l->k;
	struct simt_dim3 bidx = {id % k->grid[0], id / k->grid[0] % k->grid[1],
				 id / k->grid[0] / k->grid[1]};
	for (uint32_t i = 0; i < c->nthreads; i++) {
		struct simt_lane *ln = &c->lanes[i];
		ln->cta = c;
		ln->wb = &c->wbufs[i / GPUVM_WARP_LANES];
		ln->lane = i % GPUVM_WARP_LANES;
		ln->t.thread_idx.x = i % k->block[0];
		ln->t.thread_idx.y = i / k->block[0] % k->block[1];
		ln->t.thread_idx.z = i / k->block[0] / k->block[1];
		ln->t.block_idx = bidx;
		ln->t.block_dim = simt_dim3(k->block[0], k->block[1], k->block[2]);
		ln->t.grid_dim = simt_dim3(k->grid[0], k->grid[1], k->grid[2]);
		ln->wb->live |= 1u << ln->lane;
	}
	c->next = l->live;
	if (l->live)
		l->live->prev = c;
	l->live = c;
	return c;
}

void simt_cta_reach_barrier(struct simt_cta *c, uint32_t n)
{
	struct simt_launch *l = c->launch;
	if (c->reached >= n)
		return;
	/* the threads not there yet record their way to it whole: the
	 * thread waiting to pass cannot until they arrive, and their warps
	 * may not drain them before (the engine pulls a warp at a time) */
	c->to_barrier = 1;
	for (uint32_t i = 0; i < c->nthreads && !l->failed; i++) {
		struct simt_lane *ln = &c->lanes[i];
		while (ln->bars < n && ln->state != LANE_DONE && ln->state != LANE_ABORTED &&
		       !l->failed) {
			/* its warp's lanes now refill one by one, out of step */
			if (ln->wb->lockstep)
				simt_wbuf_unlock(ln->wb);
			/* at an earlier barrier, which every thread reached before
			 * a thread could pass it to reach this one */
			if (ln->state == LANE_BARRIER)
				ln->state = LANE_FULL;
			simt_lane_resume(ln);
		}
	}
	c->to_barrier = 0;
	if (!l->failed)
		c->reached = n;
}

void simt_cta_run_eager(struct simt_cta *c)
{
	struct simt_launch *l = c->launch;
	c->eager = c->eager_tried = 1;
	/* lanes now refill one by one, out of step */
	uint32_t warps = (c->nthreads + GPUVM_WARP_LANES - 1) / GPUVM_WARP_LANES;
	for (uint32_t i = 0; i < warps; i++)
		if (c->wbufs[i].lockstep)
			simt_wbuf_unlock(&c->wbufs[i]);
	for (;;) {
		int full = 0, waiting = 0;
		uint32_t n = 0;
		for (uint32_t i = 0; i < c->nthreads && !l->failed; i++) {
			struct simt_lane *ln = &c->lanes[i];
			if (ln->state == LANE_IDLE || ln->state == LANE_FULL)
				simt_lane_resume(ln);
			/* FULL again: its column is at the cap */
			full |= ln->state == LANE_FULL;
		}
		if (l->failed || full)
			break;
		for (uint32_t i = 0; i < c->nthreads; i++)
			if (c->lanes[i].state == LANE_BARRIER) {
				c->lanes[i].state = LANE_FULL; /* released: runnable */
				n = c->lanes[i].bars;
				waiting = 1;
			}
		if (!waiting)
			break;
		c->reached = n; /* (every live thread was at its n-th) */
	}
	c->eager = 0;
}

int simt_cta_end(struct simt_cta *c)
{
	struct simt_launch *l = c->launch;
	/* its threads are done: their RED_ADDs and ST_ORDEREDs, in thread order */
	int lost = l->red && simt_red_cta_end(l->red, c->id, &c->red);
	simt_cta_free(c);
	if (lost) {
		l->failed = 1;
		snprintf(l->errmsg, sizeof l->errmsg, "out of memory holding a block's reductions");
		return -1;
	}
	return 0;
}
