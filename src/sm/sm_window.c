/* core.window (sm.h holds the contract): a window's global and local
 * memory instructions, recorded as they issue with what they write marked
 * pending, and applied at the window's barrier in the order of (issue
 * cycle, SM, sequence), each through the code that serves it at issue
 * (sm_serve_memory). docs/parallel.md says why the window is safe and
 * what the order changes. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cache_line.h"
#include "core/vec.h"
#include "gpuvm/counters.h"
#include "par/spin_wait.h"
#include "par/window_profile.h"
#include "par/thread_profile.h"
#include "sm/sm.h"
#include "xlat/xlat.h"

double sm_window_cycles(const struct gpuvm_config *cfg)
{
	/* the L2 round trip: the crossbar out (load_base / 2, sm_layer's
	 * crossbar_cycles) and back (memsys_after_l2), the L2's hit */
	double w = cfg->load_base_latency_cycles + cfg->l2_hit_latency_cycles;
	/* a load the L1 holds: tx + l1_hit (sm_issue.c l1_sector), tx no
	 * earlier than the issue */
	if (cfg->l1_bytes > 0 && cfg->l1_hit_latency_cycles < w)
		w = cfg->l1_hit_latency_cycles;
	return w >= 1 ? w : 1;
}

int sm_defer_instruction(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
			 const struct gpuvm_warp_item *it, double start)
{
	/* room in the list (a partition's: src/system/partition.h) */
	if (VEC_RESERVE(sl->req, sl->cap_req, sl->n_req + 1)) {
		sl->window_oom = true;
		return -1;
	}
	struct sm_request *r = &sl->req[sl->n_req++];
	r->start = start;
	r->seq = ++sl->req_seq;
	r->sm = w->sm;
	r->wslot = wslot;
	r->item = *it;
	w->pending++;
	if (it->op == GPUVM_OP_STORE)
		return 0; /* a store writes no register */
	double mark = -(double)r->seq;
	if (it->has_regs) {
		double *rr = sl->reg_ready + (size_t)wslot * GPUVM_REGS;
		uint8_t *rm = sl->reg_mem + (size_t)wslot * GPUVM_REGS;
		for (uint32_t i = 0; i < it->n_dst && i < GPUVM_ITEM_MAX_DST; i++) {
			uint16_t d = it->dst[i];
			if (d < GPUVM_REGS) {
				rr[d] = mark;
				rm[d] = 1;
			}
		}
		w->regs_used = true;
	} else if (sm_item_load_indep(it)) {
		w->loads_pending++;
		w->implicit_mem = true;
	} else {
		w->implicit_ready = mark;
		w->implicit_loads = 0;
		w->implicit_mem = true;
	}
	return 0;
}

/* A memory instruction's result where its issue left its marks: what
 * sm_step_item does with a result, for one applied at the barrier. */
void sm_deliver(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
		const struct gpuvm_warp_item *it, uint64_t seq, double result, double ack)
{
	if (sl->exit_waits_stores && it->op == GPUVM_OP_STORE && ack > w->drain)
		w->drain = ack;
	if (result > w->drain)
		w->drain = result;
	w->pending--;
	if (it->op == GPUVM_OP_STORE)
		return;
	double mark = -(double)seq;
	if (it->has_regs) {
		double *rr = sl->reg_ready + (size_t)wslot * GPUVM_REGS;
		/* a later instruction may have written the register since (it
		 * then holds that one's time or mark) */
		for (uint32_t i = 0; i < it->n_dst && i < GPUVM_ITEM_MAX_DST; i++) {
			uint16_t d = it->dst[i];
			if (d < GPUVM_REGS && rr[d] == mark)
				rr[d] = result;
		}
	} else if (sm_item_load_indep(it)) {
		if (result > w->implicit_loads)
			w->implicit_loads = result;
		w->loads_pending--;
	} else if (w->implicit_ready == mark) {
		w->implicit_ready = result;
	}
}

static inline bool req_key_less(const struct sm_req_key *x, const struct sm_req_key *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->sm != y->sm)
		return x->sm < y->sm;
	return x->seq < y->seq;
}

static int req_key_cmp(const void *a, const void *b)
{
	const struct sm_req_key *x = a, *y = b;
	return req_key_less(x, y) ? -1 : req_key_less(y, x);
}

/* Sorts a[0, n) by insertion while that moves at most 4 keys per key
 * (a nearly sorted run: a few ties out of SM order), else by qsort. */
static void sort_run(struct sm_req_key *a, size_t n)
{
	size_t moves = 0;
	for (size_t i = 1; i < n; i++) {
		if (!req_key_less(&a[i], &a[i - 1]))
			continue;
		struct sm_req_key x = a[i];
		size_t j = i;
		do {
			a[j] = a[j - 1];
			j--;
			moves++;
		} while (j > 0 && req_key_less(&x, &a[j - 1]));
		a[j] = x;
		if (moves > 4 * n) { /* far from sorted: a[] is still a permutation */
			qsort(a, n, sizeof *a, req_key_cmp);
			return;
		}
	}
}

/* The window's keys in key order into out[0, n): each partition's list is
 * nearly in key order already (its events run in time order; ties between
 * its SMs and instructions issued after their event's cycle come out of
 * order), so each run is sorted by insertion and the runs are merged
 * (qsort of the whole window was 4 % of a windowed pagerank's
 * instructions). in[] holds the runs, run f at [at[f], at[f + 1]). */
static void sort_keys(struct sm_req_key *out, struct sm_req_key *in, const size_t *at,
		      uint32_t runs)
{
	/* the runs with keys left (a window's work often sits in one or two
	 * partitions): pos, end */
	size_t pos[GPUVM_MAX_SMS], end[GPUVM_MAX_SMS];
	uint32_t live = 0;
	for (uint32_t f = 0; f < runs; f++) {
		if (at[f + 1] == at[f])
			continue;
		sort_run(in + at[f], at[f + 1] - at[f]);
		pos[live] = at[f];
		end[live++] = at[f + 1];
	}
	size_t k = 0;
	while (live > 1) {
		uint32_t best = 0;
		for (uint32_t f = 1; f < live; f++)
			if (req_key_less(&in[pos[f]], &in[pos[best]]))
				best = f;
		out[k++] = in[pos[best]++];
		if (pos[best] == end[best]) { /* run done: the last takes its place */
			live--;
			pos[best] = pos[live];
			end[best] = end[live];
		}
	}
	if (live)
		memcpy(out + k, in + pos[0], (end[0] - pos[0]) * sizeof *out);
#ifndef NDEBUG /* the order the barrier relies on (this project builds with asserts) */
	for (size_t i = 1; i < at[runs]; i++)
		assert(req_key_less(&out[i - 1], &out[i]));
#endif
}

/* ---- the barrier on two threads (--threads N > 1) ----------------------
 *
 * A memory instruction is two requests in turn: its translation (the
 * coalescer, the TLB levels, the walkers: src/xlat) and its sectors' data
 * (the L1, the SM's L2 port, the memory partitions, the host link). When
 * no state couples them, the first stage can run every instruction of the
 * window ahead of the second: with page-table reads in the walk latency
 * (tlb pte_reads = none) a walk reads nothing of the memory partitions,
 * and without managed memory no data access moves a page, shoots down a
 * TLB entry or blocks an SM's translations. The main thread then
 * translates the window's instructions in key order, handing each one's
 * sectors over as it goes (published), while a second thread serves them
 * in the same order and writes their results; each component sees the
 * same requests in the same order as on one thread, so the results are
 * identical by construction (tests/test_window.c compares them). */

/* Which windows go to two threads (the results are the same either
 * way; this only picks the faster). The second stage's work is the
 * sectors', the first's mostly the translations': only where a warp's
 * lanes translate apart (scattered access: about a translation a lane)
 * is the first stage as heavy as the second, and the two threads
 * balance. Where a warp's lanes share a translation (coalesced access,
 * graph kernels' one or two sectors) the first stage is light, the
 * second runs behind it alone and the hand-over (every planned sector
 * and instruction crosses to the other core's cache) makes the barrier
 * slower than on one thread: measured on the 2-core host, a triad
 * 0.63x, random sampling 1.54x. The last window's translation units
 * per instruction decide; a window of one instruction stays here. */
#define PIPE_MIN_REQUESTS 2
#define PIPE_MIN_UNITS_PER_REQUEST 8

/* Host time, for choosing where a lagged window is served (never for a
 * result). */
static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The counters each thread writes sit on cache lines of their own, so a
 * write by one does not take the line from the other at every sector. */
struct sm_pipe {
	struct sm_layer *sl;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t to_stage2, to_stage1; /* the sleeping thread's wake-up */
	size_t n;                   /* the round's instructions, in key order */
	/* core.window = lagged (sm_window_serve_begin's rounds): the results
	 * are kept in the requests, not delivered; whole: the second stage
	 * serves every instruction itself (no plan) */
	bool keep, whole;
	/* set while the engine serves its windows itself: the thread then
	 * sleeps at once between rounds instead of spinning on a core the
	 * SIMT workers or the engine could use */
	atomic_bool doze;
	double window_end;
	struct sm_plan plan;
	size_t *part_end;           /* [cap_part_end]: instruction i's parts end */
	size_t cap_part_end;
	_Alignas(64) _Atomic uint64_t round; /* barriers handed over */
	atomic_bool quit;
	atomic_int stage2_sleeps;  /* the second stage sleeps (or is about to) */
	_Alignas(64) _Atomic size_t published; /* instructions of the round planned */
	_Alignas(64) _Atomic uint64_t served;  /* the last round the second stage finished */
	atomic_int stage1_sleeps;
	_Alignas(64) struct gpuvm_stats counts; /* plan.counts */
};

/* What a stage waits for (sequentially consistent loads: with the
 * sleeps counters below they make the lost wake-up impossible). */
static bool round_began(void *ctx, uint64_t seen)
{
	struct sm_pipe *p = ctx;
	return atomic_load(&p->round) != seen || atomic_load(&p->quit);
}
static bool planned(void *ctx, uint64_t i)
{
	struct sm_pipe *p = ctx;
	return atomic_load(&p->published) > i;
}
static bool round_served(void *ctx, uint64_t round)
{
	struct sm_pipe *p = ctx;
	return atomic_load(&p->served) == round;
}

/* The pipe's waits (par/spin_wait.h): each stage sleeps on its own
 * condition variable, counted in its own sleepers. */
static void pipe_wait(struct sm_pipe *p, pthread_cond_t *cv, atomic_int *sleeps,
		      spin_ready_fn *ready, uint64_t arg)
{
	spin_wait(&p->mu, cv, sleeps, ready, p, arg);
}
static void pipe_wake(struct sm_pipe *p, pthread_cond_t *cv, atomic_int *sleeps)
{
	spin_wake(&p->mu, cv, sleeps, false);
}

/* The second stage of one round: each instruction once planned, served
 * and its result written where its marks are. */
static void pipe_serve_round(struct sm_pipe *p)
{
	struct sm_layer *sl = p->sl;
	const struct sm_req_key *key = sl->req_key;
	size_t ready = 0, first_part = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (ready <= i) {
			pipe_wait(p, &p->to_stage2, &p->stage2_sleeps, planned, i);
			ready = atomic_load(&p->published);
		}
		const struct sm_request *r = key[i].r;
		struct warp_rt *w = &sl->warp[r->wslot];
		double result = sm_serve_plan(sl, r->sm, &r->item, r->start, &p->plan, first_part,
					      p->part_end[i]);
		first_part = p->part_end[i];
		if (p->keep) {
			struct sm_request *kr = key[i].r;
			kr->result = result;
			kr->ack = sl->store_ack;
			continue;
		}
		if (r->item.op != GPUVM_OP_STORE && result < p->window_end)
			sl->window_early++;
		sm_deliver(sl, w, r->wslot, &r->item, r->seq, result, sl->store_ack);
	}
}

/* core.window = lagged: serves the outstanding window's instructions in
 * key order, keeping each result for sm_window_serve_end (nothing of a
 * warp is written here: the engine's thread runs the next window). */
static void serve_out(struct sm_layer *sl)
{
	const struct sm_req_key *key = sl->req_key;
	for (size_t i = 0; i < sl->n_out; i++) {
		struct sm_request *r = key[i].r;
		r->result = sm_serve_memory(sl, &sl->warp[r->wslot], r->wslot, &r->item, r->start);
		r->ack = sl->store_ack;
	}
}

static void *pipe_thread(void *arg)
{
	struct sm_pipe *p = arg;
	uint64_t seen = 0;
	for (;;) {
		spin_wait_dozing(&p->mu, &p->to_stage2, &p->stage2_sleeps, round_began, p, seen,
				 &p->doze);
		if (atomic_load(&p->quit)) {
			thread_profile_exit(); /* gpuvm bench --profile: its CPU time */
			return NULL;
		}
		seen = atomic_load(&p->round);
		if (p->whole)
			serve_out(p->sl);
		else
			pipe_serve_round(p);
		atomic_store(&p->served, seen);
		pipe_wake(p, &p->to_stage1, &p->stage1_sleeps);
	}
}

bool sm_barrier_stages_apart(const struct sm_layer *sl)
{
	return !sl->port.uvm && xlat_self_contained(sl->port.xlat);
}

/* Whether this window's barrier may run on two threads: asked for, no
 * state shared between the stages, worth the hand-over. */
static bool pipe_fits(const struct sm_layer *sl, size_t n)
{
	return sl->threads > 1 && n >= PIPE_MIN_REQUESTS &&
	       (sl->pipe_every_window ||
		sl->window_units_per_request >= PIPE_MIN_UNITS_PER_REQUEST) &&
	       sm_barrier_stages_apart(sl);
}

static struct sm_pipe *pipe_start(struct sm_layer *sl)
{
	struct sm_pipe *p = gpuvm_calloc_lines(1, sizeof *p);
	if (!p)
		return NULL;
	p->sl = sl;
	p->plan.counts = &p->counts;
	if (pthread_mutex_init(&p->mu, NULL)) {
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->to_stage2, NULL)) {
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	if (pthread_cond_init(&p->to_stage1, NULL)) {
		pthread_cond_destroy(&p->to_stage2);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	if (pthread_create(&p->thread, NULL, pipe_thread, p)) {
		pthread_cond_destroy(&p->to_stage1);
		pthread_cond_destroy(&p->to_stage2);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	return p;
}

void sm_window_pipe_free(struct sm_layer *sl)
{
	struct sm_pipe *p = sl->pipe;
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->quit, true);
	pthread_cond_signal(&p->to_stage2);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->to_stage1);
	pthread_cond_destroy(&p->to_stage2);
	pthread_mutex_destroy(&p->mu);
	free(p->plan.sec);
	free(p->plan.part);
	free(p->part_end);
	free(p);
	sl->pipe = NULL;
}

/* Room in the plan for the round's n instructions (the second stage reads
 * it while the first writes, so it must not move during a round). */
static int pipe_reserve(struct sm_pipe *p, const struct sm_layer *sl, size_t n)
{
	size_t parts, secs = sm_plan_room(sl, n, &parts);
	if (sm_plan_reserve(&p->plan, secs, parts) || VEC_RESERVE(p->part_end, p->cap_part_end, n))
		return -1;
	return 0;
}

/* The barrier's first stage on this thread: starts the pipe's round and
 * plans the n instructions in key order, the second stage serving behind
 * (keep: keeping the results in the requests). false when the pipe could
 * not be had (the caller serves them on this thread: the same results). */
static bool plan_on_threads(struct sm_layer *sl, size_t n, double window_end, bool keep)
{
	if (!sl->pipe && !(sl->pipe = pipe_start(sl))) {
		sl->threads = 1; /* no thread to be had: one thread from now on */
		return false;
	}
	struct sm_pipe *p = sl->pipe;
	if (pipe_reserve(p, sl, n))
		return false;
	p->n = n;
	p->window_end = window_end;
	p->keep = keep;
	p->whole = false;
	p->plan.n_sec = p->plan.n_part = 0;
	atomic_store(&p->published, 0);
	uint64_t round = atomic_load(&p->round) + 1;
	atomic_store(&p->round, round);
	pipe_wake(p, &p->to_stage2, &p->stage2_sleeps);
	const struct sm_req_key *key = sl->req_key;
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = key[i].r;
		sm_plan_memory(sl, &sl->warp[r->wslot], r->wslot, &r->item, r->start, &p->plan);
		p->part_end[i] = p->plan.n_part;
		atomic_store(&p->published, i + 1);
		pipe_wake(p, &p->to_stage2, &p->stage2_sleeps);
	}
	return true;
}

/* Waits for the pipe's round to be served; a planned round's counts
 * (its translations, sectors and lines) go into the run's. */
static void pipe_finish(struct sm_layer *sl, size_t n)
{
	struct sm_pipe *p = sl->pipe;
	pipe_wait(p, &p->to_stage1, &p->stage1_sleeps, round_served, atomic_load(&p->round));
	if (p->whole)
		return;
	struct gpuvm_stats *c = p->plan.counts;
	sl->window_units_per_request = (double)c->xlat_units / (double)n;
	/* every registered counter, not a hand list (gpuvm/counters.h) */
	gpuvm_counters_merge(sl->stats_rows, sl->stats, c);
}

/* The barrier on two threads: this one plans in key order, the pipe's
 * thread serves and delivers behind it. false when the pipe could not be
 * had (the caller applies the window on this thread: the same results). */
static bool apply_on_threads(struct sm_layer *sl, size_t n, double window_end)
{
	if (!plan_on_threads(sl, n, window_end, false))
		return false;
	pipe_finish(sl, n);
	return true;
}

/* Whether this window's barrier serves its memory side a memory
 * partition per task (sm_split.c) rather than as one stage. The results
 * are the same either way. Opt-in (GPUVM_WINDOW_SPLIT=1; never with =0):
 * on the 2-core host it loses, the phase's records and the pool's rounds
 * costing more than half the memory side saves (docs/parallel.md, "The
 * memory side by partition"). At one thread it runs only for bench
 * --profile --window, which times its tasks to predict the partitioned
 * model. GPUVM_WINDOW_THREADS=all alternates it with the two stages. */
static bool split_now(struct sm_layer *sl, size_t n)
{
	if (n < PIPE_MIN_REQUESTS || sl->split_mode == 0 || !sm_split_fits(sl))
		return false;
	if (sl->threads <= 1)
		return window_profile_enabled();
	if (sl->split_mode > 0)
		return true;
	return sl->pipe_every_window && (sl->split_rounds++ & 1);
}

/* The n requests of the lists from[0 .. n_from) (out: the outstanding
 * ones, req_out) as keys in key order in sl->req_key[0, n). -1 (and
 * window_oom) when out of memory. */
static int sort_requests(struct sm_layer *sl, struct sm_layer *const *from, uint32_t n_from,
			 size_t n, bool out)
{
	/* the runs at [n, 2n), merged into [0, n) */
	if (VEC_RESERVE(sl->req_key, sl->cap_key, 2 * n)) {
		sl->window_oom = true;
		return -1;
	}
	struct sm_req_key *key = sl->req_key, *runs = key + n;
	size_t k = 0, at[GPUVM_MAX_SMS + 1];
	for (uint32_t f = 0; f < n_from; f++) {
		at[f] = k;
		struct sm_request *list = out ? from[f]->req_out : from[f]->req;
		size_t len = out ? from[f]->n_req_out : from[f]->n_req;
		for (size_t i = 0; i < len; i++) {
			struct sm_request *r = &list[i];
			runs[k++] = (struct sm_req_key){.start = r->start, .seq = r->seq, .sm = r->sm,
							.r = r};
		}
	}
	at[n_from] = k;
	sort_keys(key, runs, at, n_from);
	return 0;
}

void sm_window_apply(struct sm_layer *sl, double window_end, struct sm_layer *const *from,
		     uint32_t n_from)
{
	size_t n = 0;
	for (uint32_t f = 0; f < n_from; f++)
		n += from[f]->n_req;
	if (!n)
		return; /* no keys yet (and qsort's base must not be NULL) */
	if (sort_requests(sl, from, n_from, n, false))
		return;
	const struct sm_req_key *key = sl->req_key;
	if (split_now(sl, n) && sm_window_apply_split(sl, n, window_end)) {
		/* served a memory partition per task */
	} else if (!(pipe_fits(sl, n) && apply_on_threads(sl, n, window_end))) {
		uint64_t units0 = sl->stats->xlat_units;
		for (size_t i = 0; i < n; i++) {
			const struct sm_request *r = key[i].r;
			struct warp_rt *w = &sl->warp[r->wslot];
			double result = sm_serve_memory(sl, w, r->wslot, &r->item, r->start);
			if (r->item.op != GPUVM_OP_STORE && result < window_end)
				sl->window_early++;
			sm_deliver(sl, w, r->wslot, &r->item, r->seq, result, sl->store_ack);
		}
		sl->window_units_per_request = (double)(sl->stats->xlat_units - units0) / (double)n;
	}
	for (uint32_t f = 0; f < n_from; f++)
		from[f]->n_req = 0;
}

/* ---- lagged barriers (core.window = lagged) ------------------------------
 *
 * A window's requests are served while the next window runs: that window
 * ends no later than the earliest of their results can be due (the first
 * issue plus sm_window_cycles: kernel_run.c sets it), so no warp of it
 * could have used one. Serving writes only what the window's run never
 * reads (the L1s, the SMs' L2 ports, the TLBs, the memory side, the run's
 * statistics: the partitions count into their own), and the results
 * are written into the requests, not the warps: the engine's thread
 * delivers them at sm_window_serve_end, after the window. So the pipe's
 * thread and the engine's share nothing while both run, and one thread
 * serving at sm_window_serve_end computes the same. */

size_t sm_window_take(struct sm_layer *sl, struct sm_layer *const *from, uint32_t n_from,
		      double *first_start)
{
	size_t n = 0;
	for (uint32_t f = 0; f < n_from; f++)
		n += from[f]->n_req;
	sl->n_out = 0;
	if (!n)
		return 0;
	for (uint32_t f = 0; f < n_from; f++) {
		struct sm_layer *c = from[f];
		struct sm_request *t = c->req;
		size_t cap = c->cap_req;
		c->req = c->req_out;
		c->cap_req = c->cap_req_out;
		c->req_out = t;
		c->cap_req_out = cap;
		c->n_req_out = c->n_req;
		c->n_req = 0;
	}
	if (sort_requests(sl, from, n_from, n, true))
		return 0;
	sl->n_out = n;
	*first_start = sl->req_key[0].start;
	return n;
}

/* Where a window is served: on the pipe's thread while the next window
 * runs, or here after it (the results are the same). The thread gains
 * where a window's serving is long beside its hand-over (its requests'
 * cache lines to the other core and back, and a wake-up where the thread
 * slept). Served here (--threads 1, p100, host time a window, 2026-11-26):
 * the triad's windows take 16-32 us, random sampling's 8-32 us and more,
 * pagerank's and bfs's mostly under 2 us with a tail to 32 us (every
 * window on the thread made pagerank R-MAT 13 at --threads 2 0.85x its
 * one-thread time). So a window goes to the thread when its requests
 * times the mean host ns a request took here reach LAG_MIN_SERVE_NS; the
 * mean is kept from the windows served here, one in LAG_SAMPLE_EVERY of
 * them even where every window would go (a phase of lighter requests is
 * then seen). After LAG_DOZE_AFTER windows in a row served here the
 * thread sleeps between rounds instead of spinning, and only a window of
 * LAG_WAKE_SERVE_NS wakes it (k80's random sampling, whose 16-cycle
 * windows hold one or two requests of 32 translations, handed its
 * occasional heavier window to the sleeping thread at 0.87x). */
#define LAG_MIN_SERVE_NS 8000.0
#define LAG_SAMPLE_EVERY 64
#define LAG_DOZE_AFTER 8
#define LAG_WAKE_SERVE_NS 32000.0

/* Whether the outstanding requests may be served on the pipe's thread
 * at all: what pipe_fits asks of the two stages (serving them must write
 * nothing the run reads: no paging state the driver moves, no page-table
 * read through the L2 a walk waits on), and a kernel whose items are not
 * made on worker threads: those have the cores (--threads 2, p100,
 * alternated, medians of 3: bfs R-MAT 17 3.00 s with this thread, 2.74 s
 * without; the SIMT triad over 16 Mi elements 1.31 / 1.30 s, its gain
 * is its workers'). */
static bool lag_fits(const struct sm_layer *sl)
{
	return sl->threads > 1 && !sl->items_ahead && sm_barrier_stages_apart(sl);
}

/* Whether this window goes to the thread (lag_fits holds). */
static bool lag_on_thread(struct sm_layer *sl)
{
	if (sl->pipe_every_window)
		return true; /* tests: every window on the thread */
	if (++sl->lag_rounds % LAG_SAMPLE_EVERY == 0)
		return false;
	/* a sleeping thread first has to wake (tens of us on a loaded host) */
	double min_ns = sl->lag_here_run >= LAG_DOZE_AFTER ? LAG_WAKE_SERVE_NS : LAG_MIN_SERVE_NS;
	return (double)sl->n_out * sl->lag_ns_per_request >= min_ns;
}

void sm_window_serve_begin(struct sm_layer *sl)
{
	sl->out_on_thread = false;
	sl->out_units0 = sl->stats->xlat_units;
	size_t n = sl->n_out;
	if (!n || !lag_fits(sl) || !lag_on_thread(sl)) {
		/* a run of windows served here: nothing for the thread soon,
		 * so it sleeps rather than spins (a lone one between windows
		 * on the thread would only cost a wake-up) */
		if (sl->pipe && ++sl->lag_here_run == LAG_DOZE_AFTER)
			atomic_store_explicit(&sl->pipe->doze, true, memory_order_relaxed);
		return;
	}
	if (sl->pipe && sl->lag_here_run >= LAG_DOZE_AFTER)
		atomic_store_explicit(&sl->pipe->doze, false, memory_order_relaxed);
	sl->lag_here_run = 0;
	/* the two stages where a window's lanes translate apart (pipe_fits:
	 * the first then weighs as much as the second, and this thread has
	 * the next window to run besides), else the whole barrier there;
	 * GPUVM_WINDOW_THREADS=all alternates (tests: both paths) */
	bool stages = sl->pipe_every_window ? (sl->lag_rounds++ & 1)
					    : sl->window_units_per_request >= PIPE_MIN_UNITS_PER_REQUEST;
	if (stages) {
		sl->out_on_thread = plan_on_threads(sl, n, 0, true);
		return;
	}
	if (!sl->pipe && !(sl->pipe = pipe_start(sl))) {
		sl->threads = 1; /* no thread to be had: served at the end, here */
		return;
	}
	struct sm_pipe *p = sl->pipe;
	p->whole = true;
	p->keep = true;
	atomic_store(&p->round, atomic_load(&p->round) + 1);
	pipe_wake(p, &p->to_stage2, &p->stage2_sleeps);
	sl->out_on_thread = true;
}

void sm_window_serve_end(struct sm_layer *sl, struct sm_layer *const *from, uint32_t n_from,
			 double last_end)
{
	size_t n = sl->n_out;
	bool planned_round = false;
	if (sl->out_on_thread) {
		planned_round = !sl->pipe->whole;
		pipe_finish(sl, n); /* a planned round: measures its translations */
		sl->pipe->whole = sl->pipe->keep = false;
		sl->out_on_thread = false;
	} else {
		bool timed = n && lag_fits(sl); /* only where it decides something */
		double t0 = timed ? now_ns() : 0;
		serve_out(sl);
		if (timed) {
			double x = (now_ns() - t0) / (double)n, *mean = &sl->lag_ns_per_request;
			*mean = *mean > 0 ? *mean + (x - *mean) / 8 : x;
		}
	}
	if (n && !planned_round)
		sl->window_units_per_request =
			(double)(sl->stats->xlat_units - sl->out_units0) / (double)n;
	const struct sm_req_key *key = sl->req_key;
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = key[i].r;
		if (r->item.op != GPUVM_OP_STORE && r->result < last_end)
			sl->window_early++;
		sm_deliver(sl, &sl->warp[r->wslot], r->wslot, &r->item, r->seq, r->result, r->ack);
	}
	sl->n_out = 0;
	for (uint32_t f = 0; f < n_from; f++)
		from[f]->n_req_out = 0;
}
