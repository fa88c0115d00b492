/* The worker threads of simt_par.c: their to-do lists, claiming and
 * adopting CTAs, and filling chunks (the rules: simt_par.c's opening
 * comment). */
#include "simt/simt_par_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/env_knob.h"
#include "par/thread_profile.h"

/* Under the mutex: the engine (engine 1) or a worker (0) stops (d = -1)
 * or starts (+1). */
void par_runnable_change(struct simt_par *par, int engine, int d)
{
	if (!par->profile || par->profile_closed)
		return;
	double t = par_now_s(CLOCK_MONOTONIC), dt = t - par->last_change_s;
	uint32_t r = par->engine_on + par->workers_on;
	par->runnable_s[r > 2 ? 2 : r] += dt;
	int alone = par->engine_on && !par->workers_on;
	if (alone)
		par->engine_alone_s += dt;
	par->last_change_s = t;
	if (engine)
		par->engine_on = (uint32_t)((int)par->engine_on + d);
	else
		par->workers_on = (uint32_t)((int)par->workers_on + d);
	int alone_now = par->engine_on && !par->workers_on;
	if (alone || alone_now) {
		double cpu = par_now_s(par->engine_clk);
		if (alone)
			par->engine_alone_cpu_s += cpu - par->alone_mark_s;
		par->alone_mark_s = cpu;
	}
}

static size_t exec_stride(void)
{
	return (simt_kernel_ops.warp_state_bytes + 15) & ~(size_t)15;
}

/* ---- under the mutex ------------------------------------------------ */

/* Wakes wk if it sleeps, or also if it dozes when the engine cannot go
 * on without it (urgent). */
void par_wake(struct par_worker *wk, int urgent)
{
	if (wk->sleeping == WORKER_ASLEEP || (urgent && wk->sleeping))
		pthread_cond_signal(&wk->cv);
}

void par_wake_any(struct simt_par *par, int urgent)
{
	for (uint32_t i = 0; par->sleeping && i < par->nworkers; i++)
		if (par->w[i].sleeping == WORKER_ASLEEP || (urgent && par->w[i].sleeping)) {
			pthread_cond_signal(&par->w[i].cv);
			return;
		}
}

struct item_chunk *par_chunk_get(struct simt_par *par)
{
	struct item_chunk *c = item_chunk_pool_get(&par->pool);
	par->in_use += c != NULL;
	return c;
}

void par_chunk_put(struct simt_par *par, struct item_chunk *c)
{
	if (!c)
		return;
	item_chunk_pool_put(&par->pool, c);
	par->in_use--;
}

struct item_seg *par_seg_get(struct simt_par *par)
{
	struct item_seg *g = par->free_segs;
	if (g)
		par->free_segs = g->next;
	else
		g = malloc(sizeof *g);
	return g;
}

void par_seg_put(struct simt_par *par, struct item_seg *g)
{
	if (!g)
		return;
	g->next = par->free_segs;
	par->free_segs = g;
}

/* Whether the budget has chunks left for warps to run further ahead
 * than SIMT_PAR_READY_CHUNKS. */
int par_budget_left(const struct simt_par *par)
{
	return par->in_use < par->budget;
}

int par_hold_over(const struct simt_par *par)
{
	const struct par_run *L = par->holding;
	return !L || L->warps_open == 0 || L->failed || par->oom || !par_budget_left(par);
}

/* Whether pw's launch is at its tail, every CTA claimed: its warps may
 * then run further ahead while the budget lasts, so that the workers
 * end the launch long before the engine has timed it and go on to the
 * next one the host program posts. Earlier it would gain nothing (the
 * launch's last CTAs wait for the engine to begin others) and cost
 * memory (bfs:graph=rmat:scale=18 at --threads 2: 425 MB resident with
 * every warp allowed at any time, 296 MB with this, 272 MB without
 * running ahead). */
static int at_tail(const struct par_warp *pw)
{
	const struct par_run *r = pw->cta->run;
	return r->claimed == r->ctas;
}

static void todo_unlink(struct par_worker *wk, struct par_warp *pw)
{
	int q = pw->queued - 1;
	if (pw->prev)
		pw->prev->next = pw->next;
	else
		wk->todo_head[q] = pw->next;
	if (pw->next)
		pw->next->prev = pw->prev;
	else
		wk->todo_tail[q] = pw->prev;
	pw->prev = pw->next = NULL;
	pw->queued = 0;
	wk->ntodo -= q != TODO_DEEP;
}

/* Puts pw on its owner's to-do list if it can take a chunk (a CTA no
 * worker owns yet waits in the unowned list instead). */
void par_want_work(struct par_warp *pw)
{
	struct par_worker *wk = pw->cta->owner;
	uint32_t n = item_fifo_count(&pw->ready);
	if (wk && pw->queued - 1 == TODO_DEEP && n < SIMT_PAR_READY_CHUNKS)
		todo_unlink(wk, pw); /* the engine caught up: near again */
	if (wk && pw->queued && n == 0)
		par_wake(wk, 0); /* queued while it had a chunk waiting: now it has none */
	int q = n >= SIMT_PAR_READY_CHUNKS ? TODO_DEEP
		: atomic_load_explicit(&pw->ready.tail, memory_order_relaxed) == 0 ? TODO_FIRST
										 : TODO_NEAR;
	if (!wk || pw->ended || pw->busy || pw->queued ||
	    (q == TODO_DEEP && !(par_budget_left(pw->cta->run->par) && at_tail(pw))))
		return;
	pw->queued = q + 1;
	pw->queued_seq = wk->queue_seq++;
	pw->next = NULL;
	pw->prev = wk->todo_tail[q];
	if (wk->todo_tail[q])
		wk->todo_tail[q]->next = pw;
	else
		wk->todo_head[q] = pw;
	wk->todo_tail[q] = pw;
	/* an owner asleep (not dozing) is woken for a batch of near warps,
	 * one with none waiting, or any warp to run further ahead (it has
	 * nothing else to do, or it would not sleep) */
	if (q == TODO_DEEP || ++wk->ntodo >= PAR_WAKE_BATCH || n == 0)
		par_wake(wk, 0);
}

/* Whether a worker may claim L's next CTA ahead of the engine: up to
 * PAR_CTAS_AHEAD past the last it began, or, before it has begun any (the
 * host program posted L while the engine times an earlier launch), up
 * to PAR_CTAS_AHEAD_MAX while the budget lasts, so that the engine finds
 * the first chunks of all the CTAs it begins at once. */
static int may_claim(const struct simt_par *par, const struct par_run *L)
{
	return L->claimed < L->ctas &&
	       (L->claimed < L->begun + PAR_CTAS_AHEAD ||
		(!L->begun && par_budget_left(par) && L->claimed < PAR_CTAS_AHEAD_MAX));
}

/* L's last CTA was claimed: its warps with chunks to spare may now run
 * further ahead (want_work left them off the lists). */
static void tail_claimed(struct simt_par *par, const struct par_run *L)
{
	for (struct par_cta *c = par->all; c; c = c->all_next)
		if (c->run == L)
			for (uint32_t i = 0; i < c->nwarps; i++)
				par_want_work(&c->warps[i]);
}

/* A record for L's next CTA (id L->claimed), owned by wk (NULL: none
 * yet); NULL on out of memory. */
struct par_cta *par_claim(struct simt_par *par, struct par_run *L, struct par_worker *wk)
{
	uint32_t nw = L->warps_per_cta;
	size_t stride = exec_stride();
	struct par_cta *c = par->free_ctas;
	if (c) {
		par->free_ctas = c->next;
	} else {
		c = calloc(1, sizeof *c);
		if (!c)
			return NULL;
		c->all_next = par->all;
		par->all = c;
	}
	if (c->cap_warps < nw) {
		struct par_warp *w = realloc(c->warps, nw * sizeof *w);
		unsigned char *e = w ? realloc(c->exec, nw * stride) : NULL;
		if (w)
			c->warps = w;
		if (e)
			c->exec = e;
		if (!w || !e) {
			c->next = par->free_ctas; /* kept for teardown */
			par->free_ctas = c;
			return NULL;
		}
		c->cap_warps = nw;
	}
	c->run = L;
	c->id = L->claimed++;
	c->owner = wk;
	c->nwarps = c->open = nw;
	c->exec_begun = 0;
	c->next = NULL;
	memset(c->warps, 0, nw * sizeof *c->warps);
	for (uint32_t i = 0; i < nw; i++) {
		c->warps[i].cta = c;
		item_fifo_init(&c->warps[i].ready);
		c->warps[i].exec = c->exec + i * stride;
	}
	if (L->claimed == L->ctas)
		tail_claimed(par, L);
	return c;
}

/* wk takes c, which no worker owned, off the unowned list (c is near
 * its head: the engine needs CTAs in about the order it began them). */
static void adopt(struct simt_par *par, struct par_worker *wk, struct par_cta *c)
{
	struct par_run *L = c->run;
	struct par_cta **pp = &L->unowned_head, *prev = NULL;
	while (*pp != c) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = c->next;
	if (L->unowned_tail == c)
		L->unowned_tail = prev;
	c->next = NULL;
	c->owner = wk;
	par->ctas_adopted++;
	for (uint32_t i = 0; i < c->nwarps; i++)
		par_want_work(&c->warps[i]);
}

/* ---- workers -------------------------------------------------------- */

/* The launch as this worker runs it: the executor's own ops on a copy
 * whose CTAs, pool and failure are the worker's. */
static void worker_take_launch(struct par_worker *wk, const struct par_run *L)
{
	simt_launch_reset(&wk->launch); /* CTAs left by a failed launch */
	wk->launch = L->snap;
	wk->launch.prog = &wk->prog;
	wk->launch.k.ops = &simt_kernel_ops;
	wk->launch.k.impl = &wk->launch;
	wk->launch.live = wk->launch.last = NULL;
	wk->launch.failed = 0;
	if (L->snap.zip) {
		wk->zip = L->zip;
		wk->launch.zip = &wk->zip;
	}
	snprintf(wk->prog.name, sizeof wk->prog.name, "%s", L->snap.prog->name);
	wk->prog.bufs = L->bufs;
	wk->prog.nbufs = L->nbufs;
	wk->prog.last_buf = 0;
	wk->gen = L->gen;
}

/* Fills chunk with pw's next items (outside the mutex). */
static void fill(struct par_worker *wk, struct par_warp *pw, struct item_chunk *chunk,
		 int *ended, int *failed)
{
	struct gpuvm_kernel *k = &wk->launch.k;
	struct par_cta *c = pw->cta;
	if (!c->exec_begun) {
		/* the executor begins a CTA's warps together, warp 0 first */
		for (uint32_t i = 0; i < c->nwarps; i++)
			k->ops->warp_begin(k, c->warps[i].exec, (uint32_t)c->id, i);
		c->exec_begun = 1;
	}
	struct gpuvm_warp_item it;
	for (;;) {
		gpuvm_item_reset_timing(&it);
		if (k->ops->warp_next(k, pw->exec, &it, &pw->err) < 0) {
			/* this warp's stream ends in the error, where the engine
			 * would have met it; the worker's other warps go on */
			*failed = *ended = 1;
			wk->launch.failed = 0;
			return;
		}
		if (item_chunk_put(chunk, &it)) { /* not a SIMT item: cannot happen */
			gpuvm_fail(&pw->err, wk->prog.name, 0, k->name, "warp item not carried");
			*failed = *ended = 1;
			return;
		}
		if (it.kind == GPUVM_ITEM_END) {
			*ended = 1;
			return;
		}
		if (item_chunk_full(chunk))
			return;
	}
}

/* The own warp to fill next, NULL to look at CTAs: the oldest queued of
 * those never filled and those with fewer than SIMT_PAR_READY_CHUNKS
 * waiting, except while the engine has begun CTAs that no worker owns.
 * Then their warps' first chunks are wanted before any top-up: the
 * engine begins a wave of CTAs at once (the SIMT triad's 448 at a
 * launch's start) and reads each warp's first chunk in turn, while the
 * chunk it topped up holds dozens of iterations it reads much later. */
struct par_warp *par_near_warp(const struct par_worker *wk, const struct par_run *L)
{
	struct par_warp *first = wk->todo_head[TODO_FIRST], *near = wk->todo_head[TODO_NEAR];
	if (first && (!near || first->queued_seq < near->queued_seq))
		return first;
	if (L && L->unowned_head)
		return first;
	return near;
}

/* The thread's nice value; -1 if it cannot be read. */
static int thread_nice(id_t tid, int *nice)
{
	errno = 0;
	*nice = getpriority(PRIO_PROCESS, tid);
	return *nice == -1 && errno ? -1 : 0;
}

/* The workers run ahead of the engine, which is the critical path: on a
 * machine with fewer cores than the simulation's threads (--threads N
 * runs N workers beside the engine) the scheduler should give the engine
 * its core and the workers the rest. A worker thread's nice value is its
 * process's plus PAR_WORKER_NICE (GPUVM_SIMT_WORKER_NICE; Linux keeps a
 * nice value per thread, and raising one needs no privilege; at most
 * 19): CFS then weighs the engine 3:1 against a worker (1024 against 335,
 * kernel/sched/core.c sched_prio_to_weight). Measured on the 2-core host
 * (docs/parallel.md): the SIMT triad at two threads 1.15-1.24 -> 1.06-1.16
 * s wall, bfs R-MAT 18 3.76-4.04 -> 3.64-3.69 s. Returns the levels
 * added (the profile prints them). */
static int worker_yield_to_engine(void)
{
	int add = (int)env_knob_u64("GPUVM_SIMT_WORKER_NICE", PAR_WORKER_NICE, 0, 19);
	id_t tid = (id_t)syscall(SYS_gettid);
	int was, now;
	if (!add || thread_nice(tid, &was))
		return 0;
	(void)setpriority(PRIO_PROCESS, tid, was + add > 19 ? 19 : was + add);
	return thread_nice(tid, &now) ? 0 : now - was;
}

void *par_worker_main(void *arg)
{
	struct par_worker *wk = arg;
	struct simt_par *par = wk->par;
	pthread_setname_np(pthread_self(), "gpuvm-simt"); /* for top and perf */
	wk->nice_added = worker_yield_to_engine();
	pthread_mutex_lock(&par->mu);
	while (!par->stop) {
		struct par_run *L = par->posted; /* NULL before the first launch */
		if (L && wk->gen != L->gen)
			worker_take_launch(wk, L);
		struct par_warp *pw = NULL;
		struct par_warp *u = par->urgent;
		if (u && !u->cta->owner && u->cta->run == L) {
			adopt(par, wk, u->cta); /* the engine waits on it: mine now */
			continue;
		} else if (u && u->cta->owner == wk && u->queued) {
			pw = u;
			todo_unlink(wk, pw);
		} else if ((pw = par_near_warp(wk, L))) {
			/* own warps first: a worker takes a CTA only when it has
			 * no chunk to fill, so the busier one takes fewer
			 * (claiming first let whichever woke first take the whole
			 * window: lud's and pathfinder's workers split 2:1, 3:2) */
			todo_unlink(wk, pw);
		} else if (L && L->unowned_head) {
			/* the oldest CTA the engine began that no worker has:
			 * who takes it is decided only now, so the workers end
			 * a launch together (owners assigned in turn when the
			 * engine began them left one worker alone for the last
			 * 15 % of each of pathfinder's launches) */
			adopt(par, wk, L->unowned_head);
			continue;
		} else if (L && may_claim(par, L)) {
			struct par_cta *c = par_claim(par, L, wk);
			if (!c) {
				par->oom = 1;
				pthread_cond_signal(&par->engine_cv);
				goto sleep;
			}
			par->ctas_ahead++;
			if (L->pending_tail)
				L->pending_tail->next = c;
			else
				L->pending_head = c;
			L->pending_tail = c;
			for (uint32_t i = 0; i < c->nwarps; i++)
				par_want_work(&c->warps[i]);
			continue;
		} else if (wk->todo_head[TODO_DEEP] && par_budget_left(par)) {
			/* nothing nearer: run a warp further ahead */
			pw = wk->todo_head[TODO_DEEP];
			todo_unlink(wk, pw);
		}
		if (!pw)
			goto sleep;
		wk->empty_dozes = 0;
		struct item_chunk *chunk = par_chunk_get(par);
		struct item_seg *seg = NULL;
		if (chunk && item_fifo_needs_seg(&pw->ready) && !(seg = par_seg_get(par))) {
			par_chunk_put(par, chunk);
			chunk = NULL;
		}
		if (!chunk) {
			par->oom = 1;
			pthread_cond_signal(&par->engine_cv);
			goto sleep;
		}
		pw->busy = 1;
		pthread_mutex_unlock(&par->mu);
		int ended = 0, failed = 0;
		fill(wk, pw, chunk, &ended, &failed);
		pthread_mutex_lock(&par->mu);
		wk->fills++;
		pw->busy = 0;
		pw->ended = ended;
		pw->failed = failed;
		if (chunk->len)
			item_fifo_push(&pw->ready, chunk, &seg);
		else
			par_chunk_put(par, chunk);
		par_seg_put(par, seg); /* not needed after all */
		if (ended) {
			struct par_run *r = pw->cta->run;
			r->failed |= failed;
			if (--r->warps_open == 0)
				atomic_store_explicit(&par->host_wake, 1, memory_order_relaxed);
		}
		if (par->urgent == pw || (par->holding && par_hold_over(par)))
			pthread_cond_signal(&par->engine_cv);
		par_want_work(pw);
		continue;
	sleep:
		wk->sleeping = wk->empty_dozes < PAR_DOZE_MAX ? WORKER_DOZING : WORKER_ASLEEP;
		par->sleeping++;
		double t0 = par->profile ? par_now_s(CLOCK_MONOTONIC) : 0;
		par_runnable_change(par, 0, -1);
		if (wk->sleeping == WORKER_DOZING) {
			struct timespec until = par_time_after(CLOCK_MONOTONIC, PAR_DOZE_US * 1000u);
			wk->empty_dozes++; /* back to 0 once it finds work */
			pthread_cond_timedwait(&wk->cv, &par->mu, &until);
		} else {
			pthread_cond_wait(&wk->cv, &par->mu);
		}
		par_runnable_change(par, 0, +1);
		if (par->profile) {
			wk->asleep_s += par_now_s(CLOCK_MONOTONIC) - t0;
			wk->sleeps++;
		}
		wk->sleeping = 0;
		par->sleeping--;
	}
	wk->cpu_s = par_now_s(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_unlock(&par->mu);
	thread_profile_exit(); /* gpuvm bench --profile */
	return NULL;
}
