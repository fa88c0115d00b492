/* Threads as coroutines (simt_internal.h): a pool of coroutine stacks
 * reused across CTAs, and one thread's run until it fills its buffer,
 * reaches a barrier or ends; and which of a warp's lanes issue before a
 * barrier (simt_wbuf_before_barrier). */
#include <stdio.h>
#include <stdlib.h>

#include "simt/simt_internal.h"

static void lane_entry(void *arg)
{
	struct simt_lane *ln = arg;
	struct simt_launch *l = ln->cta->launch;
	l->body(&ln->t, l->args);
	simt_wb_lane_tail(ln->wb, ln->lane, ln->t.compute, ln->t.chain, ln->t.chain_class);
	ln->state = LANE_DONE;
}

static struct coro *pool_get(struct simt_program *p, struct simt_lane *ln)
{
	if (p->pool_n) {
		struct coro *c = p->pool[--p->pool_n];
		coro_rearm(c, lane_entry, ln);
		return c;
	}
	struct coro *c = malloc(sizeof *c);
#ifdef CORO_HAVE_SHARED
	/* one run stack, 8x a thread stack of the other mode (only the
	 * frames in use are copied off it; untouched pages cost nothing) */
	if (!p->run_stack.base && coro_stack_init(&p->run_stack, 8 * SIMT_STACK_BYTES)) {
		free(c);
		return NULL;
	}
	if (!c || coro_init_shared(c, &p->run_stack, lane_entry, ln)) {
#else
	if (!c || coro_init(c, SIMT_STACK_BYTES, lane_entry, ln)) {
#endif
		free(c);
		return NULL;
	}
	return c;
}

static void pool_put(struct simt_program *p, struct coro *c)
{
	if (p->pool_n == p->pool_cap) {
		size_t cap = p->pool_cap ? 2 * p->pool_cap : 64;
		struct coro **n = realloc(p->pool, cap * sizeof *n);
		if (!n) {
			coro_free(c);
			free(c);
			return;
		}
		p->pool = n;
		p->pool_cap = cap;
	}
	p->pool[p->pool_n++] = c;
}

void simt_pool_free(struct simt_program *p)
{
	for (size_t i = 0; i < p->pool_n; i++) {
		coro_free(p->pool[i]);
		free(p->pool[i]);
	}
	free(p->pool);
	p->pool = NULL;
	p->pool_n = p->pool_cap = 0;
	simt_red_log_free(&p->red_spare);
#ifdef CORO_HAVE_SHARED
	coro_stack_free(&p->run_stack);
#endif
}

/* Runs a thread until it fills its buffer, reaches a barrier or ends. */
void simt_lane_resume(struct simt_lane *ln)
{
	struct simt_launch *l = ln->cta->launch;
	if (ln->state == LANE_IDLE && l->no_yield) {
		/* nothing to suspend for: the body runs here, on this stack */
		ln->state = LANE_RUNNING;
		lane_entry(ln);
		ln->wb->live &= ~(1u << ln->lane);
		return;
	}
	if (ln->state == LANE_IDLE) {
		ln->co = pool_get(l->prog, ln);
		if (!ln->co) {
			l->failed = 1;
			snprintf(l->errmsg, sizeof l->errmsg, "out of memory for thread stacks");
			ln->state = LANE_ABORTED;
			return;
		}
	}
	ln->state = LANE_RUNNING;
	coro_resume(ln->co);
	if (ln->co->oom) {
		l->failed = 1;
		snprintf(l->errmsg, sizeof l->errmsg, "out of memory for thread stacks");
		ln->state = LANE_ABORTED;
		ln->wb->live &= ~(1u << ln->lane);
		return;
	}
	if (ln->co->finished) {
		pool_put(l->prog, ln->co);
		ln->co = NULL;
	}
	if (ln->state == LANE_DONE || ln->state == LANE_ABORTED)
		ln->wb->live &= ~(1u << ln->lane);
}

uint32_t simt_wbuf_before_barrier(const struct simt_wbuf *wb, uint32_t barrier, uint32_t lane)
{
	uint32_t at = 0;
	for (uint32_t m = wb->nonempty; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		if (wb->col[i].key == barrier)
			at |= 1u << i;
	}
	uint32_t best = UINT32_MAX;
	for (uint32_t m = wb->nonempty & ~at; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		uint32_t site = wb->col[i].key >> 16;
		if (site < best) {
			best = site;
			lane = i;
		}
	}
	return lane;
}
