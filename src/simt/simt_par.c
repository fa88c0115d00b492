/* Functional execution of SIMT kernels on worker threads, ahead of the
 * timing model.
 *
 * A kernel declared SIMT_ANY_ORDER produces the same per-warp item
 * streams, and leaves the same memory, whatever order its CTAs and warps
 * run in (no thread reads what another CTA's or warp's thread writes in
 * the launch, barriers aside; atomics only as commutative updates whose
 * value is unused). So its threads need not run when the engine pulls
 * their warp: worker threads run them ahead, each with its own copy of
 * the launch, coroutine pool and run stack, driving the executor
 * (simt_exec.c) exactly as the engine would, and hand each warp's items
 * to the engine in chunks (item_chunk.h). The engine sees the items the
 * single-threaded run makes, so every result and statistic is the same
 * at any thread count.
 *
 * Scheduling (one mutex, taken by a worker once per chunk, by the engine
 * once per PAR_NOTE_BATCH chunks or when it must wait):
 * - Launches: the workers run the newest launch the host program posted
 *   (par->posted). The program posts the next only once the workers have
 *   run every thread of this one, so a launch's threads never meet the
 *   next's; the engine may still be timing one or two launches before it
 *   (each in its own par_run, by the program's launch slot), whose
 *   streams wait whole in their warps' queues (simt_host.c).
 * - CTAs: the engine begins them in id order. A CTA gets a record when a
 *   worker with no near warp of its own to fill claims it ahead (at most
 *   PAR_CTAS_AHEAD past the last one the engine began, or
 *   PAR_CTAS_AHEAD_MAX while the budget lasts) or, if none has, when the
 *   engine begins it: then it waits, owned by no worker, until the first
 *   free one takes it (the oldest, or the one the engine waits on). Once
 *   its owner has begun it in the executor its coroutines stay with that
 *   owner (a copying coroutine's frames hold addresses on its owner's run
 *   stack). Taking work only when idle keeps the workers' shares even and
 *   lets them end a launch together.
 * - Warps: a warp with fewer than SIMT_PAR_READY_CHUNKS chunks waiting, not
 *   ended and not being filled, sits in its owner's near list; the owner
 *   fills one chunk at a time, oldest first, except that the warp the
 *   engine is blocked on goes first. A warp with more waiting sits in the
 *   deep list while the budget (GPUVM_SIMT_BUFFER_MIB, PAR_BUFFER_MIB) has
 *   chunks left, filled only when there is no near warp and no CTA to
 *   claim: the workers then run a launch to its end long before the
 *   engine has timed it (a hub vertex's warp holds a thousand chunks),
 *   and the program can post the next. An owner asleep is woken for
 *   PAR_WAKE_BATCH near warps, a warp with none waiting or a deep warp;
 *   one dozing looks again by itself within PAR_DOZE_US, and is woken
 *   only by the engine blocking (or a launch).
 * - Chunks: each warp's waiting chunks are a queue (item_fifo) the worker
 *   pushes under the mutex and the engine pops without it; the engine
 *   tells the owners that warps have room, and gives read chunks back,
 *   in batches.
 * GPUVM_THREADS_PROFILE=1 prints each thread's CPU time, waits and sleeps,
 * and the parallelism reached, on stderr at the end (docs/simt.md).
 * Memory: the budget, and beyond it SIMT_PAR_READY_CHUNKS + 1 chunks per
 * resident warp and per warp of the CTAs claimed ahead, beyond what the
 * executor holds. */
#include "simt/simt_par.h"

#include "par/thread_profile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "simt/simt_par_internal.h"
#include "core/env_knob.h"

/* ---- the engine's side ---------------------------------------------- */

/* The engine's warp state: its read position kept here, in the state the
 * engine prefetches, not in the record the workers write. */
struct par_ref {
	struct par_warp *pw;
	struct item_chunk *cur;
	uint32_t rd, len;
	int ended;
};

/* Under the mutex, as the engine begins the program's first launch (L):
 * with GPUVM_SIMT_ENGINE_HOLD_MS set it waits, up to that long, for the
 * workers to run L as far ahead as the rules let them (par_hold_over).
 * How far they get otherwise depends on the cores the host gives them;
 * held, it does not, so a test can ask that they ran ahead to the
 * budget (and the budget's reach can be measured). The results are the
 * same either way: only when the workers run changes. It ends early only
 * if the workers can get to the launch's tail (a grid of at most
 * PAR_CTAS_AHEAD_MAX CTAs, claimed before the engine has begun any) and
 * only at the first launch: at a later one they may stop short, with
 * warps left waiting for the engine (a warp that had its chunks while the
 * budget was spent is offered for more only when the engine next reads
 * from it). Then it waits the whole time. */
static void engine_hold(struct simt_par *par, const struct par_run *L)
{
	/* engine_cv's clock */
	struct timespec until = par_time_after(CLOCK_REALTIME, par->hold_ms * 1000000u);
	par->hold_ms = 0; /* once */
	par->holding = L;
	par_runnable_change(par, 1, -1);
	while (!par_hold_over(par) &&
	       pthread_cond_timedwait(&par->engine_cv, &par->mu, &until) == 0)
		;
	par_runnable_change(par, 1, +1);
	par->holding = NULL;
}

static void pk_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct par_run *L = k->impl;
	struct simt_par *par = L->par;
	struct par_ref *ref = state;
	memset(ref, 0, sizeof *ref);
	if (warp == 0 || !L->engine_cta || L->engine_cta->id != cta) {
		struct par_cta *c = NULL;
		pthread_mutex_lock(&par->mu);
		if (cta == 0 && warp == 0 && par->hold_ms)
			engine_hold(par, L); /* before L->begun moves: see may_claim */
		if (cta + 1 > L->begun) {
			L->begun = cta + 1;
			/* the window ahead moved: idle workers claim, woken
			 * once it has room for a batch of CTAs */
			if (par->sleeping && L->claimed < L->ctas &&
			    L->claimed + PAR_WAKE_BATCH <= L->begun + PAR_CTAS_AHEAD)
				for (uint32_t i = 0; i < par->nworkers; i++)
					par_wake(&par->w[i], 0);
		}
		if (cta == 0 && warp == 0)
			par->launches_ready += L->pending_head && L->pending_head->id == 0;
		if (L->pending_head && L->pending_head->id == cta) {
			c = L->pending_head;
			L->pending_head = c->next;
			if (!L->pending_head)
				L->pending_tail = NULL;
		} else if (!L->pending_head && L->claimed == cta) {
			/* no worker got to it yet: the first free one takes it */
			c = par_claim(par, L, NULL);
			par->oom |= !c;
			if (c) {
				if (L->unowned_tail)
					L->unowned_tail->next = c;
				else
					L->unowned_head = c;
				L->unowned_tail = c;
				par_wake_any(par, 0);
			}
		}
		pthread_mutex_unlock(&par->mu);
		L->engine_cta = c; /* NULL: out of memory or out of order, failed in pk_next */
	}
	if (L->engine_cta && warp < L->engine_cta->nwarps)
		ref->pw = &L->engine_cta->warps[warp];
}

static int pk_fail(const struct par_run *L, struct gpuvm_error *err)
{
	const struct simt_par *par = L->par;
	const struct simt_launch *l = &L->snap;
	return gpuvm_fail(err, l->prog->name, 0, l->k.name, "%s",
			  par->oom ? "out of memory for the worker threads' items"
				   : "CTAs begun out of order (the worker threads need them in order)");
}

/* Under the mutex: the chunks the engine read go back to the pool, and
 * the segments it read past. */
static void engine_give_back(struct simt_par *par)
{
	int spent = !par_budget_left(par);
	for (uint32_t i = 0; i < par->n_read; i++)
		par_chunk_put(par, par->read[i]);
	par->n_read = 0;
	if (spent && par_budget_left(par) && par->sleeping) /* warps can run ahead again */
		for (uint32_t i = 0; i < par->nworkers; i++)
			if (par->w[i].todo_head[TODO_DEEP])
				par_wake(&par->w[i], 0);
	while (par->left_segs) {
		struct item_seg *g = par->left_segs;
		par->left_segs = g->next;
		par_seg_put(par, g);
	}
}

/* A segment the engine read past: given back with its read chunks. */
static void engine_left(struct simt_par *par, struct item_seg *g)
{
	if (g) {
		g->next = par->left_segs;
		par->left_segs = g;
	}
}

/* Under the mutex: the engine's read chunks go back, and its noted warps
 * to their owners' to-do lists. */
static void engine_flush(struct simt_par *par)
{
	engine_give_back(par);
	for (uint32_t i = 0; i < par->n_noted; i++)
		par_want_work(par->noted[i]);
	par->n_noted = 0;
}

/* The engine is done with the chunk it read (NULL: none yet) and takes
 * pw's next one, waiting for it if need be; NULL at the end of pw's
 * stream. After the END item, also its CTA's record goes back when every
 * warp has ended. */
static struct item_chunk *next_chunk(struct simt_par *par, struct par_warp *pw,
				     struct item_chunk *done, int ended)
{
	struct item_chunk *c;
	struct item_seg *left = NULL;
	if (!ended && (c = item_fifo_pop(&pw->ready, &left))) {
		engine_left(par, left);
		/* a chunk was waiting: no lock unless a batch is due */
		par->engine_chunks++;
		pw->held = c;
		if (done)
			par->read[par->n_read++] = done;
		par->noted[par->n_noted++] = pw;
		if (par->n_noted == PAR_NOTE_BATCH || item_fifo_count(&pw->ready) == 0) {
			pthread_mutex_lock(&par->mu);
			engine_flush(par);
			pthread_mutex_unlock(&par->mu);
		}
		return c;
	}
	pthread_mutex_lock(&par->mu);
	engine_flush(par); /* first: a CTA record may go back below */
	par_chunk_put(par, done);
	pw->held = NULL;
	if (ended) {
		/* its stream is over: the queue empty, the owner done */
		par_seg_put(par, item_fifo_release(&pw->ready));
		struct par_cta *cta = pw->cta;
		if (--cta->open == 0) {
			cta->next = par->free_ctas;
			par->free_ctas = cta;
		}
		pthread_mutex_unlock(&par->mu);
		return NULL;
	}
	double t0 = 0;
	par->engine_chunks++;
	while (!(c = item_fifo_pop(&pw->ready, &left)) && !pw->ended && !par->oom) {
		if (par->profile && !t0) {
			t0 = par_now_s(CLOCK_MONOTONIC);
			par->engine_waits++;
		}
		par->urgent = pw;
		if (pw->cta->owner)
			par_wake(pw->cta->owner, 1);
		else
			par_wake_any(par, 1);
		par_runnable_change(par, 1, -1);
		pthread_cond_wait(&par->engine_cv, &par->mu);
		par_runnable_change(par, 1, +1);
	}
	if (t0)
		par->engine_wait_s += par_now_s(CLOCK_MONOTONIC) - t0;
	par_seg_put(par, left);
	if (par->urgent == pw)
		par->urgent = NULL;
	pw->held = c;
	par_want_work(pw);
	pthread_mutex_unlock(&par->mu);
	return c;
}

static int pk_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		   struct gpuvm_error *err)
{
	struct par_run *L = k->impl;
	struct simt_par *par = L->par;
	struct par_ref *ref = state;
	if (ref->ended) {
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
	int turned = ref->rd == ref->len; /* to the warp's next chunk */
	if (turned) {
		if (!ref->pw)
			return pk_fail(L, err);
		ref->cur = next_chunk(par, ref->pw, ref->cur, 0);
		ref->rd = 0;
		ref->len = ref->cur ? ref->cur->len : 0;
		if (!ref->cur) {
			/* the stream ended early: an error, or no memory */
			if (!ref->pw->failed)
				return pk_fail(L, err);
			*err = ref->pw->err;
			return -1;
		}
		__builtin_prefetch(ref->cur->data + 64);
	}
	item_chunk_get(ref->cur, &ref->rd, it);
	__builtin_prefetch(ref->cur->data + ref->rd + 64);
	if (it->kind == GPUVM_ITEM_END) {
		next_chunk(par, ref->pw, ref->cur, 1);
		ref->cur = NULL;
		ref->ended = turned = 1;
	}
	/* the workers ended the posted launch: the host program may go on
	 * to its next (this item was read: the engine needs nothing here).
	 * Looked at once a chunk, not once an item: the flag shares a line
	 * with fields the workers write under the mutex. */
	if (turned &&
	    __builtin_expect(atomic_load_explicit(&par->host_wake, memory_order_relaxed), 0)) {
		atomic_store_explicit(&par->host_wake, 0, memory_order_relaxed);
		simt_host_run_ahead(par->prog);
	}
	return 0;
}

/* The engine's hint that this warp's next item is read soon: the chunk
 * was written on another core, and a line prefetched when the item
 * before was read has left the engine's caches by then (3,584 warps in
 * turn; the first load of an item was 57 % of item_chunk_get). */
static void pk_prefetch(struct gpuvm_kernel *k, const void *state)
{
	(void)k;
	const struct par_ref *ref = state;
	if (ref->cur && ref->rd < ref->len) {
		__builtin_prefetch(ref->cur->data + ref->rd);
		__builtin_prefetch(ref->cur->data + ref->rd + 63);
	}
}

static const struct gpuvm_kernel_ops par_kernel_ops = {
	.warp_state_bytes = sizeof(struct par_ref),
	.warp_begin = pk_begin,
	.warp_next = pk_next,
	.warp_prefetch = pk_prefetch,
};

/* ---- setup and teardown --------------------------------------------- */

/* GPUVM_SIMT_BUFFER_MIB: the chunks' budget (docs/simt.md), default
 * PAR_BUFFER_MIB; 0 keeps every warp to SIMT_PAR_READY_CHUNKS. */
static uint64_t budget_chunks(void)
{
	uint64_t mib = env_knob_u64("GPUVM_SIMT_BUFFER_MIB", PAR_BUFFER_MIB, 0, 1ull << 20);
	return (mib << 20) / (sizeof(struct item_chunk) + PAR_CHUNK_BYTES);
}

static struct simt_par *par_new(struct simt_program *p, uint32_t nworkers)
{
	struct simt_par *par = calloc(1, sizeof *par);
	if (!par)
		return NULL;
	par->w = calloc(nworkers, sizeof *par->w);
	if (!par->w) {
		free(par);
		return NULL;
	}
	pthread_mutex_init(&par->mu, NULL);
	pthread_cond_init(&par->engine_cv, NULL);
	par->prog = p;
	par->budget = budget_chunks();
	par->hold_ms = env_knob_u64("GPUVM_SIMT_ENGINE_HOLD_MS", 0, 0, 3600000);
	for (int i = 0; i < SIMT_LAUNCH_SLOTS; i++)
		par->run[i].par = par;
	par->profile = thread_profile_printing();
	if (par->profile) {
		par->start_cpu_s = par_now_s(CLOCK_THREAD_CPUTIME_ID);
		if (pthread_getcpuclockid(pthread_self(), &par->engine_clk))
			par->engine_clk = CLOCK_THREAD_CPUTIME_ID; /* then read on the engine's own calls only */
		par->last_change_s = par_now_s(CLOCK_MONOTONIC);
		par->engine_on = 1;
		par->workers_on = nworkers; /* each counts itself out when it sleeps */
	}
	item_chunk_pool_init(&par->pool, PAR_CHUNK_BYTES);
	for (uint32_t i = 0; i < nworkers; i++) {
		struct par_worker *wk = &par->w[i];
		wk->par = par;
		pthread_condattr_t ca; /* dozes are timed on the monotonic clock */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&wk->cv, &ca);
		pthread_condattr_destroy(&ca);
		if (pthread_create(&wk->tid, NULL, par_worker_main, wk)) {
			pthread_cond_destroy(&wk->cv);
			break;
		}
		par->nworkers++;
	}
	if (par->nworkers < nworkers) {
		simt_par_free(par);
		return NULL;
	}
	return par;
}

int simt_par_launch(struct simt_program *p, struct simt_launch *l, uint32_t slot)
{
	if (!p->par && !(p->par = par_new(p, p->exec_threads)))
		return -1;
	struct simt_par *par = p->par;
	struct par_run *L = &par->run[slot % SIMT_LAUNCH_SLOTS];
	pthread_mutex_lock(&par->mu);
	l->k.ops = &par_kernel_ops;
	l->k.impl = L;
	l->k.items_ahead = true;
	L->gen = ++par->gen;
	par->launches++;
	L->snap = *l;
	if (l->zip)
		L->zip = *l->zip;
	L->bufs = p->bufs;
	L->nbufs = p->nbufs;
	L->ctas = gpuvm_kernel_ctas(&l->k);
	L->warps_per_cta = gpuvm_kernel_warps_per_cta(&l->k);
	L->warps_open = L->ctas * L->warps_per_cta;
	L->failed = 0;
	L->claimed = L->begun = 0;
	L->pending_head = L->pending_tail = NULL;
	L->unowned_head = L->unowned_tail = NULL;
	L->engine_cta = NULL;
	par->posted = L;
	atomic_store_explicit(&par->host_wake, 0, memory_order_relaxed);
	for (uint32_t i = 0; i < par->nworkers; i++)
		par_wake(&par->w[i], 1);
	pthread_mutex_unlock(&par->mu);
	return 0;
}

int simt_par_ahead_done(struct simt_par *par)
{
	pthread_mutex_lock(&par->mu);
	const struct par_run *L = par->posted;
	int done = L && L->warps_open == 0 && !L->failed && !par->oom;
	pthread_mutex_unlock(&par->mu);
	return done;
}

void simt_par_free(struct simt_par *par)
{
	if (!par)
		return;
	pthread_mutex_lock(&par->mu);
	par->stop = 1;
	engine_give_back(par);
	par->n_noted = 0; /* the owners need no telling now */
	/* the profile's intervals end here, under the mutex as every change
	 * is (the workers wake to stop and would otherwise race this) */
	par_runnable_change(par, 1, 0);
	par->profile_closed = 1;
	for (uint32_t i = 0; i < par->nworkers; i++)
		pthread_cond_signal(&par->w[i].cv);
	pthread_mutex_unlock(&par->mu);
	double engine_cpu_s = par_now_s(CLOCK_THREAD_CPUTIME_ID);
	if (par->profile) {
		/* the engine's thread giving up its core (its waits, and
		 * whatever else blocks it) and having it taken (preempted) */
		struct rusage ru;
		memset(&ru, 0, sizeof ru);
		getrusage(RUSAGE_THREAD, &ru);
		fprintf(stderr,
			"threads-profile: engine cpu %.3f s (%.3f s before the workers), waited %.3f s in %llu of %llu chunks; "
			"context switches %ld given up, %ld preempted\n",
			engine_cpu_s, par->start_cpu_s, par->engine_wait_s,
			(unsigned long long)par->engine_waits, (unsigned long long)par->engine_chunks,
			ru.ru_nvcsw, ru.ru_nivcsw);
	}
	if (par->profile)
		fprintf(stderr,
			"threads-profile: CTAs: %llu claimed ahead by a worker, %llu begun by the engine and "
			"taken by the first free worker; %llu of %llu launches begun with their first CTA "
			"claimed\n",
			(unsigned long long)par->ctas_ahead, (unsigned long long)par->ctas_adopted,
			(unsigned long long)par->launches_ready, (unsigned long long)par->launches);
	double workers_cpu_s = 0;
	for (uint32_t i = 0; i < par->nworkers; i++) {
		struct par_worker *wk = &par->w[i];
		pthread_join(wk->tid, NULL);
		if (par->profile)
			fprintf(stderr,
				"threads-profile: worker %u cpu %.3f s, asleep %.3f s in %llu sleeps, %llu chunks, nice +%d\n",
				i, wk->cpu_s, wk->asleep_s, (unsigned long long)wk->sleeps,
				(unsigned long long)wk->fills, wk->nice_added);
		workers_cpu_s += wk->cpu_s;
		simt_launch_reset(&wk->launch);
		simt_pool_free(&wk->prog);
		pthread_cond_destroy(&wk->cv);
	}
	if (par->profile) {
		double *r = par->runnable_s, busy = r[1] + r[2];
		double p = busy > 0 ? (r[1] + 2 * r[2]) / busy : 1;
		double cpu = engine_cpu_s + workers_cpu_s;
		/* two idle cores, from CPU times only (other processes slow
		 * these, not their sum): the serial part (the engine before
		 * the workers and while they all sleep), then the rest on two
		 * cores, no faster than the busiest worker */
		double serial = par->start_cpu_s + par->engine_alone_cpu_s;
		double rest = cpu - serial, half = rest / 2;
		for (uint32_t i = 0; i < par->nworkers; i++)
			if (par->w[i].cpu_s > half)
				half = par->w[i].cpu_s;
		fprintf(stderr,
			"threads-profile: wall s with 0/1/2+ runnable %.3f / %.3f / %.3f (engine alone %.3f, "
			"its cpu %.3f s); parallelism %.2f; cpu %.3f s; at that parallelism %.3f s; "
			"predicted 2-core wall %.3f s\n",
			r[0], r[1], r[2], par->engine_alone_s, par->engine_alone_cpu_s, p, cpu,
			par->start_cpu_s + (cpu - par->start_cpu_s) / p, serial + half);
	}
	while (par->all) {
		struct par_cta *c = par->all;
		par->all = c->all_next;
		for (uint32_t i = 0; i < c->cap_warps && c->warps; i++) {
			struct par_warp *pw = &c->warps[i];
			if (i < c->nwarps) {
				par_chunk_put(par, pw->held);
				struct item_chunk *ch;
				do {
					struct item_seg *left = NULL;
					ch = item_fifo_pop(&pw->ready, &left);
					par_seg_put(par, left);
					par_chunk_put(par, ch);
				} while (ch);
				par_seg_put(par, item_fifo_release(&pw->ready));
			}
		}
		free(c->warps);
		free(c->exec);
		free(c);
	}
	while (par->free_segs) {
		struct item_seg *g = par->free_segs;
		par->free_segs = g->next;
		free(g);
	}
	item_chunk_pool_free(&par->pool);
	pthread_cond_destroy(&par->engine_cv);
	pthread_mutex_destroy(&par->mu);
	free(par->w);
	free(par);
}

uint64_t simt_par_launches_ready(struct simt_par *par)
{
	pthread_mutex_lock(&par->mu);
	uint64_t n = par->launches_ready;
	pthread_mutex_unlock(&par->mu);
	return n;
}

uint64_t simt_par_chunks_made(struct simt_par *par)
{
	pthread_mutex_lock(&par->mu);
	uint64_t n = par->pool.allocated;
	pthread_mutex_unlock(&par->mu);
	return n;
}
