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
 * - CTAs: the engine begins them in id order. A CTA gets a record when a
 *   worker with no chunk of its own to fill claims it ahead (at most
 *   PAR_CTAS_AHEAD past the last one the engine began) or, if none has,
 *   when the engine begins it: then it waits, owned by no worker, until
 *   the first free one takes it (the oldest, or the one the engine waits
 *   on). Once its owner has begun it in the executor its coroutines stay
 *   with that owner (a copying coroutine's frames hold addresses on its
 *   owner's run stack). Taking work only when idle keeps the workers'
 *   shares even and lets them end a launch together.
 * - Warps: a warp with fewer than SIMT_PAR_READY_CHUNKS chunks waiting, not
 *   ended and not being filled, sits in its owner's to-do list; the owner
 *   fills one chunk at a time, oldest first, except that the warp the
 *   engine is blocked on goes first. An owner asleep is woken for
 *   PAR_WAKE_BATCH such warps or a warp with none waiting; one dozing
 *   looks again by itself within PAR_DOZE_US, and is woken only by the
 *   engine blocking (or a launch).
 * - Chunks: each warp's waiting chunks are a ring (item_fifo) the worker
 *   pushes under the mutex and the engine pops without it; the engine
 *   tells the owners that warps have room, and gives read chunks back,
 *   in batches.
 * GPUVM_THREADS_PROFILE=1 prints each thread's CPU time, waits and sleeps,
 * and the parallelism reached, on stderr at the end (docs/simt.md).
 * Memory: SIMT_PAR_READY_CHUNKS + 1 chunks per resident warp and per warp of
 * the CTAs claimed ahead, beyond what the executor holds. */
#include "simt/simt_par.h"

#include "par/thread_profile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simt/item_chunk.h"
#include "simt/simt_internal.h"

#define PAR_CHUNK_BYTES (4u << 10) /* ~100 coalesced accesses, 14 scattered */
#define PAR_CTAS_AHEAD 64
/* A sleeping worker is woken for this many warps that can take a chunk,
 * or at once for a warp with no chunk waiting (the engine reads its
 * last): one futex wake-up per batch, not one per chunk the engine takes
 * (bfs:graph=rmat-16 at --threads 2: 18,000 sleeps, 0.35 s system time) */
#define PAR_WAKE_BATCH 8
/* The engine takes a waiting chunk without the mutex and tells the
 * owners of this many warps at once that theirs have room (and gives
 * their read chunks back to the pool), or at once when it took a warp's
 * last: bfs:graph=rmat:scale=18 at --threads 2 took the mutex for each of
 * its 294,190 chunks, 10 % of the engine thread's samples with the
 * futex wake-ups it made (perf record -e cpu-clock). */
#define PAR_NOTE_BATCH 8
/* A worker with nothing to do dozes: it looks for work again every
 * PAR_DOZE_US on its own, and only the engine blocking on a warp, a new
 * launch or the end wakes it early. After PAR_DOZE_MAX empty looks in a
 * row it sleeps until woken. A futex wake-up costs the waker 10-15 us
 * on a 2-core VM (an inter-processor interrupt), and the engine made
 * 13,500 of them on bfs:graph=rmat:scale=18 at --threads 2 (4 % of its
 * samples; perf record -e cpu-clock); dozing moves that cost to the
 * workers' core, which has time to spare. */
#define PAR_DOZE_US 200
#define PAR_DOZE_MAX 8

struct par_cta;
struct par_worker;

enum { WORKER_DOZING = 1, WORKER_ASLEEP = 2 };

struct par_warp {
	struct par_cta *cta;
	struct par_warp *prev, *next; /* in the owner's to-do list */
	struct item_fifo ready;
	int queued, busy, ended, failed;
	struct gpuvm_error err;   /* failed: what the executor said */
	struct item_chunk *held;  /* the chunk the engine reads (for teardown) */
	void *exec;               /* the executor's warp state (owner side) */
};

struct par_cta {
	uint64_t id;
	struct par_worker *owner;  /* NULL: begun by the engine, no worker took it yet */
	uint32_t nwarps, open;    /* warps, and those the engine has not seen end */
	int exec_begun;           /* the owner began its warps in the executor */
	struct par_warp *warps;
	unsigned char *exec;
	uint32_t cap_warps;
	struct par_cta *next;     /* in the pending, unowned or free list */
	struct par_cta *all_next; /* every record, for teardown */
};

struct par_worker {
	struct simt_par *par;
	pthread_t tid;
	pthread_cond_t cv;
	int sleeping;               /* 0 awake, WORKER_DOZING or WORKER_ASLEEP */
	uint32_t empty_dozes;       /* dozes in a row that found nothing */
	uint64_t gen;               /* the launch copied below */
	struct simt_program prog;   /* the buffers' view, own pool and run stack */
	struct simt_launch launch;  /* own copy: CTA list and failure */
	/* own copy of the body's buffer-layout record (only speed depends on
	 * it): the shared one would be written by every worker at once */
	struct simt_zip_stats zip;
	struct par_warp *todo_head, *todo_tail;
	uint32_t ntodo;
	/* GPUVM_THREADS_PROFILE: seconds asleep, CPU at exit, sleeps */
	double asleep_s, cpu_s;
	uint64_t sleeps, fills;
};

struct simt_par {
	pthread_mutex_t mu;
	pthread_cond_t engine_cv;
	struct par_warp *urgent;  /* the warp the engine waits for */
	uint32_t nworkers, sleeping;
	struct par_worker *w;
	int stop;
	/* the current launch, as posted (workers copy it, never the host's,
	 * which the engine writes while they run) */
	uint64_t gen;
	struct simt_launch snap;
	struct simt_buffer *bufs;
	size_t nbufs;
	uint64_t ctas, claimed, begun;
	uint32_t warps_per_cta;
	struct par_cta *pending_head, *pending_tail; /* claimed ahead, in id order */
	struct par_cta *unowned_head, *unowned_tail; /* begun by the engine, for any worker */
	struct par_cta *free_ctas, *all;
	struct par_cta *engine_cta; /* whose warps the engine is beginning */
	struct item_chunk_pool pool;
	/* the engine's alone: warps it took a chunk from without the mutex,
	 * whose owners are not told yet, and the chunks it read meanwhile */
	struct par_warp *noted[PAR_NOTE_BATCH];
	struct item_chunk *read[PAR_NOTE_BATCH];
	uint32_t n_noted, n_read;
	int oom;
	int profile;                /* GPUVM_THREADS_PROFILE set: report at the end */
	int profile_closed;         /* its intervals ended (simt_par_free): no more changes */
	double engine_wait_s;       /* engine blocked for items (wall) */
	uint64_t engine_waits, engine_chunks;
	uint64_t ctas_ahead, ctas_adopted; /* claimed ahead by a worker / begun by the engine */
	/* wall seconds with r of this simulation's threads runnable (the
	 * engine not waiting, workers not asleep), r capped at 2: the
	 * parallelism two idle cores would see, about the same when other
	 * processes slow every thread alike */
	uint32_t engine_on, workers_on;
	double last_change_s, runnable_s[3];
	double engine_alone_s;      /* every worker asleep, the engine running */
	/* the engine's CPU in those stretches: a serial part on any number of
	 * cores (clock read at each start and end of one, a few per launch) */
	clockid_t engine_clk;
	double engine_alone_cpu_s, alone_mark_s;
	double start_cpu_s;         /* the calling thread's CPU before the workers */
};

static double now_s(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Under the mutex: the engine (engine 1) or a worker (0) stops (d = -1)
 * or starts (+1). */
static void runnable_change(struct simt_par *par, int engine, int d)
{
	if (!par->profile || par->profile_closed)
		return;
	double t = now_s(CLOCK_MONOTONIC), dt = t - par->last_change_s;
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
		double cpu = now_s(par->engine_clk);
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
static void wake(struct par_worker *wk, int urgent)
{
	if (wk->sleeping == WORKER_ASLEEP || (urgent && wk->sleeping))
		pthread_cond_signal(&wk->cv);
}

static void wake_any(struct simt_par *par, int urgent)
{
	for (uint32_t i = 0; par->sleeping && i < par->nworkers; i++)
		if (par->w[i].sleeping == WORKER_ASLEEP || (urgent && par->w[i].sleeping)) {
			pthread_cond_signal(&par->w[i].cv);
			return;
		}
}

/* Puts pw on its owner's to-do list if it can take a chunk (a CTA no
 * worker owns yet waits in the unowned list instead). */
static void want_work(struct par_warp *pw)
{
	struct par_worker *wk = pw->cta->owner;
	if (wk && pw->queued && item_fifo_count(&pw->ready) == 0)
		wake(wk, 0); /* queued while it had a chunk waiting: now it has none */
	if (!wk || pw->ended || pw->busy || pw->queued || !item_fifo_has_room(&pw->ready))
		return;
	pw->queued = 1;
	pw->next = NULL;
	pw->prev = wk->todo_tail;
	if (wk->todo_tail)
		wk->todo_tail->next = pw;
	else
		wk->todo_head = pw;
	wk->todo_tail = pw;
	if (++wk->ntodo >= PAR_WAKE_BATCH || item_fifo_count(&pw->ready) == 0)
		wake(wk, 0);
}

static void todo_unlink(struct par_worker *wk, struct par_warp *pw)
{
	if (pw->prev)
		pw->prev->next = pw->next;
	else
		wk->todo_head = pw->next;
	if (pw->next)
		pw->next->prev = pw->prev;
	else
		wk->todo_tail = pw->prev;
	pw->prev = pw->next = NULL;
	pw->queued = 0;
	wk->ntodo--;
}

/* A record for the next CTA (id par->claimed), owned by wk (NULL: none
 * yet); NULL on out of memory. */
static struct par_cta *claim(struct simt_par *par, struct par_worker *wk)
{
	uint32_t nw = par->warps_per_cta;
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
	c->id = par->claimed++;
	c->owner = wk;
	c->nwarps = c->open = nw;
	c->exec_begun = 0;
	c->next = NULL;
	memset(c->warps, 0, nw * sizeof *c->warps);
	for (uint32_t i = 0; i < nw; i++) {
		c->warps[i].cta = c;
		c->warps[i].ready.bound = SIMT_PAR_READY_CHUNKS;
		c->warps[i].exec = c->exec + i * stride;
	}
	return c;
}

/* wk takes c, which no worker owned, off the unowned list (c is near
 * its head: the engine needs CTAs in about the order it began them). */
static void adopt(struct simt_par *par, struct par_worker *wk, struct par_cta *c)
{
	struct par_cta **pp = &par->unowned_head, *prev = NULL;
	while (*pp != c) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = c->next;
	if (par->unowned_tail == c)
		par->unowned_tail = prev;
	c->next = NULL;
	c->owner = wk;
	par->ctas_adopted++;
	for (uint32_t i = 0; i < c->nwarps; i++)
		want_work(&c->warps[i]);
}

/* ---- workers -------------------------------------------------------- */

/* The launch as this worker runs it: the executor's own ops on a copy
 * whose CTAs, pool and failure are the worker's. */
static void worker_take_launch(struct par_worker *wk)
{
	struct simt_par *par = wk->par;
	simt_launch_reset(&wk->launch); /* CTAs left by a failed launch */
	wk->launch = par->snap;
	wk->launch.prog = &wk->prog;
	wk->launch.k.ops = &simt_kernel_ops;
	wk->launch.k.impl = &wk->launch;
	wk->launch.live = wk->launch.last = NULL;
	wk->launch.failed = 0;
	if (par->snap.zip) {
		wk->zip = *par->snap.zip;
		wk->launch.zip = &wk->zip;
	}
	snprintf(wk->prog.name, sizeof wk->prog.name, "%s", par->snap.prog->name);
	wk->prog.bufs = par->bufs;
	wk->prog.nbufs = par->nbufs;
	wk->prog.last_buf = 0;
	wk->gen = par->gen;
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

static void *worker_main(void *arg)
{
	struct par_worker *wk = arg;
	struct simt_par *par = wk->par;
	pthread_setname_np(pthread_self(), "gpuvm-simt"); /* for top and perf */
	pthread_mutex_lock(&par->mu);
	while (!par->stop) {
		if (par->gen && wk->gen != par->gen)
			worker_take_launch(wk);
		struct par_warp *pw = NULL;
		struct par_warp *u = par->urgent;
		if (u && !u->cta->owner && wk->gen == par->gen) {
			adopt(par, wk, u->cta); /* the engine waits on it: mine now */
			continue;
		} else if (u && u->cta->owner == wk && u->queued) {
			pw = u;
			todo_unlink(wk, pw);
		} else if (wk->todo_head) {
			/* own warps first: a worker takes a CTA only when it has
			 * no chunk to fill, so the busier one takes fewer
			 * (claiming first let whichever woke first take the whole
			 * window: lud's and pathfinder's workers split 2:1, 3:2) */
			pw = wk->todo_head;
			todo_unlink(wk, pw);
		} else if (par->unowned_head && wk->gen == par->gen) {
			/* the oldest CTA the engine began that no worker has:
			 * who takes it is decided only now, so the workers end
			 * a launch together (owners assigned in turn when the
			 * engine began them left one worker alone for the last
			 * 15 % of each of pathfinder's launches) */
			adopt(par, wk, par->unowned_head);
			continue;
		} else if (wk->gen == par->gen && par->claimed < par->ctas &&
			   par->claimed < par->begun + PAR_CTAS_AHEAD) {
			struct par_cta *c = claim(par, wk);
			if (!c) {
				par->oom = 1;
				pthread_cond_signal(&par->engine_cv);
				goto sleep;
			}
			par->ctas_ahead++;
			if (par->pending_tail)
				par->pending_tail->next = c;
			else
				par->pending_head = c;
			par->pending_tail = c;
			for (uint32_t i = 0; i < c->nwarps; i++)
				want_work(&c->warps[i]);
			continue;
		}
		if (!pw)
			goto sleep;
		wk->empty_dozes = 0;
		struct item_chunk *chunk = item_chunk_pool_get(&par->pool);
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
			item_fifo_push(&pw->ready, chunk);
		else
			item_chunk_pool_put(&par->pool, chunk);
		if (par->urgent == pw)
			pthread_cond_signal(&par->engine_cv);
		want_work(pw);
		continue;
	sleep:
		wk->sleeping = wk->empty_dozes < PAR_DOZE_MAX ? WORKER_DOZING : WORKER_ASLEEP;
		par->sleeping++;
		double t0 = par->profile ? now_s(CLOCK_MONOTONIC) : 0;
		runnable_change(par, 0, -1);
		if (wk->sleeping == WORKER_DOZING) {
			struct timespec until;
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_nsec += PAR_DOZE_US * 1000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			wk->empty_dozes++; /* back to 0 once it finds work */
			pthread_cond_timedwait(&wk->cv, &par->mu, &until);
		} else {
			pthread_cond_wait(&wk->cv, &par->mu);
		}
		runnable_change(par, 0, +1);
		if (par->profile) {
			wk->asleep_s += now_s(CLOCK_MONOTONIC) - t0;
			wk->sleeps++;
		}
		wk->sleeping = 0;
		par->sleeping--;
	}
	wk->cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_unlock(&par->mu);
	thread_profile_exit(); /* gpuvm bench --profile */
	return NULL;
}

/* ---- the engine's side ---------------------------------------------- */

/* The engine's warp state: its read position kept here, in the state the
 * engine prefetches, not in the record the workers write. */
struct par_ref {
	struct par_warp *pw;
	struct item_chunk *cur;
	uint32_t rd, len;
	int ended;
};

static void pk_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct simt_par *par = k->impl;
	struct par_ref *ref = state;
	memset(ref, 0, sizeof *ref);
	if (warp == 0 || !par->engine_cta || par->engine_cta->id != cta) {
		struct par_cta *c = NULL;
		pthread_mutex_lock(&par->mu);
		if (cta + 1 > par->begun) {
			par->begun = cta + 1;
			/* the window ahead moved: idle workers claim, woken
			 * once it has room for a batch of CTAs */
			if (par->sleeping && par->claimed < par->ctas &&
			    par->claimed + PAR_WAKE_BATCH <= par->begun + PAR_CTAS_AHEAD)
				for (uint32_t i = 0; i < par->nworkers; i++)
					wake(&par->w[i], 0);
		}
		if (par->pending_head && par->pending_head->id == cta) {
			c = par->pending_head;
			par->pending_head = c->next;
			if (!par->pending_head)
				par->pending_tail = NULL;
		} else if (!par->pending_head && par->claimed == cta) {
			/* no worker got to it yet: the first free one takes it */
			c = claim(par, NULL);
			par->oom |= !c;
			if (c) {
				if (par->unowned_tail)
					par->unowned_tail->next = c;
				else
					par->unowned_head = c;
				par->unowned_tail = c;
				wake_any(par, 0);
			}
		}
		pthread_mutex_unlock(&par->mu);
		par->engine_cta = c; /* NULL: out of memory or out of order, failed in pk_next */
	}
	if (par->engine_cta && warp < par->engine_cta->nwarps)
		ref->pw = &par->engine_cta->warps[warp];
}

static int pk_fail(struct simt_par *par, struct gpuvm_error *err)
{
	const struct simt_launch *l = &par->snap;
	return gpuvm_fail(err, l->prog->name, 0, l->k.name, "%s",
			  par->oom ? "out of memory for the worker threads' items"
				   : "CTAs begun out of order (the worker threads need them in order)");
}

/* Under the mutex: the chunks the engine read go back to the pool. */
static void engine_give_back(struct simt_par *par)
{
	for (uint32_t i = 0; i < par->n_read; i++)
		item_chunk_pool_put(&par->pool, par->read[i]);
	par->n_read = 0;
}

/* Under the mutex: the engine's read chunks go back, and its noted warps
 * to their owners' to-do lists. */
static void engine_flush(struct simt_par *par)
{
	engine_give_back(par);
	for (uint32_t i = 0; i < par->n_noted; i++)
		want_work(par->noted[i]);
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
	if (!ended && (c = item_fifo_pop(&pw->ready))) {
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
	if (done)
		item_chunk_pool_put(&par->pool, done);
	pw->held = NULL;
	if (ended) {
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
	while (!(c = item_fifo_pop(&pw->ready)) && !pw->ended && !par->oom) {
		if (par->profile && !t0) {
			t0 = now_s(CLOCK_MONOTONIC);
			par->engine_waits++;
		}
		par->urgent = pw;
		if (pw->cta->owner)
			wake(pw->cta->owner, 1);
		else
			wake_any(par, 1);
		runnable_change(par, 1, -1);
		pthread_cond_wait(&par->engine_cv, &par->mu);
		runnable_change(par, 1, +1);
	}
	if (t0)
		par->engine_wait_s += now_s(CLOCK_MONOTONIC) - t0;
	if (par->urgent == pw)
		par->urgent = NULL;
	pw->held = c;
	want_work(pw);
	pthread_mutex_unlock(&par->mu);
	return c;
}

static int pk_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		   struct gpuvm_error *err)
{
	struct simt_par *par = k->impl;
	struct par_ref *ref = state;
	if (ref->ended) {
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
	if (ref->rd == ref->len) {
		if (!ref->pw)
			return pk_fail(par, err);
		ref->cur = next_chunk(par, ref->pw, ref->cur, 0);
		ref->rd = 0;
		ref->len = ref->cur ? ref->cur->len : 0;
		if (!ref->cur) {
			/* the stream ended early: an error, or no memory */
			if (!ref->pw->failed)
				return pk_fail(par, err);
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
		ref->ended = 1;
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

static struct simt_par *par_new(uint32_t nworkers)
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
	par->profile = thread_profile_printing();
	if (par->profile) {
		par->start_cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID);
		if (pthread_getcpuclockid(pthread_self(), &par->engine_clk))
			par->engine_clk = CLOCK_THREAD_CPUTIME_ID; /* then read on the engine's own calls only */
		par->last_change_s = now_s(CLOCK_MONOTONIC);
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
		if (pthread_create(&wk->tid, NULL, worker_main, wk)) {
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

int simt_par_launch(struct simt_program *p, struct simt_launch *l)
{
	if (!p->par && !(p->par = par_new(p->exec_threads)))
		return -1;
	struct simt_par *par = p->par;
	pthread_mutex_lock(&par->mu);
	par->gen++;
	l->k.ops = &par_kernel_ops;
	l->k.impl = par;
	l->k.items_ahead = true;
	par->snap = *l;
	par->bufs = p->bufs;
	par->nbufs = p->nbufs;
	par->ctas = gpuvm_kernel_ctas(&l->k);
	par->warps_per_cta = gpuvm_kernel_warps_per_cta(&l->k);
	par->claimed = par->begun = 0;
	par->pending_head = par->pending_tail = NULL;
	par->unowned_head = par->unowned_tail = NULL;
	par->engine_cta = NULL;
	par->urgent = NULL;
	for (uint32_t i = 0; i < par->nworkers; i++)
		wake(&par->w[i], 1);
	pthread_mutex_unlock(&par->mu);
	return 0;
}

static void chunk_back(struct simt_par *par, struct item_chunk *c)
{
	if (c)
		item_chunk_pool_put(&par->pool, c);
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
	runnable_change(par, 1, 0);
	par->profile_closed = 1;
	for (uint32_t i = 0; i < par->nworkers; i++)
		pthread_cond_signal(&par->w[i].cv);
	pthread_mutex_unlock(&par->mu);
	double engine_cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID);
	if (par->profile) {
		fprintf(stderr,
			"threads-profile: engine cpu %.3f s (%.3f s before the workers), waited %.3f s in %llu of %llu chunks\n",
			engine_cpu_s, par->start_cpu_s, par->engine_wait_s,
			(unsigned long long)par->engine_waits, (unsigned long long)par->engine_chunks);
	}
	if (par->profile)
		fprintf(stderr,
			"threads-profile: CTAs: %llu claimed ahead by a worker, %llu begun by the engine and "
			"taken by the first free worker\n",
			(unsigned long long)par->ctas_ahead, (unsigned long long)par->ctas_adopted);
	double workers_cpu_s = 0;
	for (uint32_t i = 0; i < par->nworkers; i++) {
		struct par_worker *wk = &par->w[i];
		pthread_join(wk->tid, NULL);
		if (par->profile)
			fprintf(stderr,
				"threads-profile: worker %u cpu %.3f s, asleep %.3f s in %llu sleeps, %llu chunks\n",
				i, wk->cpu_s, wk->asleep_s, (unsigned long long)wk->sleeps,
				(unsigned long long)wk->fills);
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
				chunk_back(par, pw->held);
				for (struct item_chunk *ch; (ch = item_fifo_pop(&pw->ready));)
					chunk_back(par, ch);
			}
		}
		free(c->warps);
		free(c->exec);
		free(c);
	}
	item_chunk_pool_free(&par->pool);
	pthread_cond_destroy(&par->engine_cv);
	pthread_mutex_destroy(&par->mu);
	free(par->w);
	free(par);
}

uint64_t simt_par_chunks_made(struct simt_par *par)
{
	pthread_mutex_lock(&par->mu);
	uint64_t n = par->pool.allocated;
	pthread_mutex_unlock(&par->mu);
	return n;
}
