/* core.window (sm.h holds the contract): a window's global and local
 * memory instructions, recorded as they issue with what they write marked
 * pending, and applied at the window's barrier in the order of (issue
 * cycle, SM, sequence), each through the code that serves it at issue
 * (sm_serve_memory). docs/parallel.md says why the window is safe and
 * what the order changes. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache_line.h"
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

/* The key the barrier applies a window's instructions in: no thread
 * count, host order or warp slot in it. */
struct sm_req_key {
	double start;
	uint64_t seq;
	uint32_t sm, index;
};

/* Room for one more request and its sort key (the keys grow with the
 * requests, so the barrier allocates nothing). */
static int grow_requests(struct sm_layer *sl)
{
	size_t cap = sl->cap_req ? 2 * sl->cap_req : 1024;
	struct sm_request *r = realloc(sl->req, cap * sizeof *r);
	if (!r)
		return -1;
	sl->req = r;
	struct sm_req_key *k = realloc(sl->req_key, cap * sizeof *k);
	if (!k)
		return -1;
	sl->req_key = k;
	sl->cap_req = cap;
	return 0;
}

int sm_defer_instruction(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
			 const struct gpuvm_warp_item *it, double start)
{
	if (sl->n_req == sl->cap_req && grow_requests(sl)) {
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
static void deliver(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
		    const struct gpuvm_warp_item *it, uint64_t seq, double result)
{
	if (sl->exit_waits_stores && it->op == GPUVM_OP_STORE && sl->store_ack > w->drain)
		w->drain = sl->store_ack;
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

static int req_key_cmp(const void *a, const void *b)
{
	const struct sm_req_key *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->sm != y->sm)
		return x->sm < y->sm ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
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

/* A wait that spins this many pauses before it yields or sleeps: a
 * barrier's hand-over is microseconds apart, a sleep's wake-up as long. */
#define PIPE_SPINS 20000
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

/* The counters each thread writes sit on cache lines of their own, so a
 * write by one does not take the line from the other at every sector. */
struct sm_pipe {
	struct sm_layer *sl;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;
	size_t n;                   /* the round's instructions, in key order */
	double window_end;
	struct sm_plan plan;
	size_t *part_end;           /* [cap_req]: instruction i's parts end */
	size_t cap_part_end;
	_Alignas(64) _Atomic uint64_t round; /* barriers handed over */
	atomic_bool quit;
	_Alignas(64) _Atomic size_t published; /* instructions of the round planned */
	_Alignas(64) _Atomic uint64_t served;  /* the last round the second stage finished */
	_Alignas(64) struct gpuvm_stats counts; /* plan.counts */
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The second stage of one round: each instruction once planned, served
 * and its result written where its marks are. */
static void pipe_serve_round(struct sm_pipe *p)
{
	struct sm_layer *sl = p->sl;
	const struct sm_req_key *key = sl->req_key;
	size_t ready = 0, first_part = 0;
	for (size_t i = 0; i < p->n; i++) {
		for (unsigned spin = 0; ready <= i; spin++) {
			ready = atomic_load_explicit(&p->published, memory_order_acquire);
			if (ready > i)
				break;
			if (spin < PIPE_SPINS)
				cpu_relax();
			else
				sched_yield();
		}
		const struct sm_request *r = &sl->req[key[i].index];
		struct warp_rt *w = &sl->warp[r->wslot];
		double result = sm_serve_plan(sl, r->sm, &r->item, r->start, &p->plan, first_part,
					      p->part_end[i]);
		first_part = p->part_end[i];
		if (r->item.op != GPUVM_OP_STORE && result < p->window_end)
			sl->window_early++;
		deliver(sl, w, r->wslot, &r->item, r->seq, result);
	}
}

static void *pipe_thread(void *arg)
{
	struct sm_pipe *p = arg;
	uint64_t seen = 0;
	for (;;) {
		for (unsigned spin = 0; spin < PIPE_SPINS; spin++) {
			if (atomic_load_explicit(&p->round, memory_order_acquire) != seen ||
			    atomic_load_explicit(&p->quit, memory_order_acquire))
				break;
			cpu_relax();
		}
		pthread_mutex_lock(&p->mu);
		while (atomic_load_explicit(&p->round, memory_order_acquire) == seen &&
		       !atomic_load_explicit(&p->quit, memory_order_acquire))
			pthread_cond_wait(&p->wake, &p->mu);
		pthread_mutex_unlock(&p->mu);
		if (atomic_load_explicit(&p->quit, memory_order_acquire)) {
			thread_profile_exit(); /* gpuvm bench --profile: its CPU time */
			return NULL;
		}
		seen = atomic_load_explicit(&p->round, memory_order_acquire);
		pipe_serve_round(p);
		atomic_store_explicit(&p->served, seen, memory_order_release);
	}
}

/* Whether this window's barrier may run on two threads: asked for, no
 * state shared between the stages, worth the hand-over. */
static bool pipe_fits(const struct sm_layer *sl, size_t n)
{
	return sl->threads > 1 && n >= PIPE_MIN_REQUESTS &&
	       (sl->pipe_every_window ||
		sl->window_units_per_request >= PIPE_MIN_UNITS_PER_REQUEST) &&
	       !sl->port.uvm && !sl->port.xlat->hook && !sl->port.xlat->pte_hook;
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
	if (pthread_cond_init(&p->wake, NULL)) {
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	if (pthread_create(&p->thread, NULL, pipe_thread, p)) {
		pthread_cond_destroy(&p->wake);
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
	atomic_store_explicit(&p->quit, true, memory_order_release);
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->wake);
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
	size_t secs = 0, parts = 0;
	for (size_t i = 0; i < n; i++) {
		size_t pa;
		secs += sm_plan_sectors_max(sl, &sl->req[i].item, &pa);
		parts += pa;
	}
	if (secs > p->plan.cap_sec) {
		free(p->plan.sec);
		p->plan.cap_sec = 0;
		if (!(p->plan.sec = malloc(secs * sizeof *p->plan.sec)))
			return -1;
		p->plan.cap_sec = secs;
	}
	if (parts > p->plan.cap_part) {
		free(p->plan.part);
		p->plan.cap_part = 0;
		if (!(p->plan.part = malloc(parts * sizeof *p->plan.part)))
			return -1;
		p->plan.cap_part = parts;
	}
	if (n > p->cap_part_end) {
		free(p->part_end);
		p->cap_part_end = 0;
		if (!(p->part_end = malloc(n * sizeof *p->part_end)))
			return -1;
		p->cap_part_end = n;
	}
	return 0;
}

/* The barrier on two threads: this one plans in key order, the pipe's
 * thread serves and delivers behind it. false when the pipe could not be
 * had (the caller applies the window on this thread: the same results). */
static bool apply_on_threads(struct sm_layer *sl, size_t n, double window_end)
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
	p->plan.n_sec = p->plan.n_part = 0;
	atomic_store_explicit(&p->published, 0, memory_order_relaxed);
	uint64_t round = atomic_load_explicit(&p->round, memory_order_relaxed) + 1;
	pthread_mutex_lock(&p->mu);
	atomic_store_explicit(&p->round, round, memory_order_release);
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->mu);
	const struct sm_req_key *key = sl->req_key;
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = &sl->req[key[i].index];
		sm_plan_memory(sl, &sl->warp[r->wslot], r->wslot, &r->item, r->start, &p->plan);
		p->part_end[i] = p->plan.n_part;
		atomic_store_explicit(&p->published, i + 1, memory_order_release);
	}
	for (unsigned spin = 0; atomic_load_explicit(&p->served, memory_order_acquire) != round;
	     spin++) {
		if (spin < PIPE_SPINS)
			cpu_relax();
		else
			sched_yield();
	}
	struct gpuvm_stats *c = p->plan.counts, *s = sl->stats;
	sl->window_units_per_request = (double)c->xlat_units / (double)n;
	s->sectors += c->sectors;
	s->lines += c->lines;
	s->xlat_units += c->xlat_units;
	c->sectors = c->lines = c->xlat_units = 0;
	return true;
}

void sm_window_apply(struct sm_layer *sl, double window_end)
{
	size_t n = sl->n_req;
	if (!n)
		return; /* no keys yet (and qsort's base must not be NULL) */
	struct sm_req_key *key = sl->req_key;
	for (size_t i = 0; i < n; i++)
		key[i] = (struct sm_req_key){.start = sl->req[i].start, .seq = sl->req[i].seq,
					     .sm = sl->req[i].sm, .index = (uint32_t)i};
	qsort(key, n, sizeof *key, req_key_cmp);
	if (pipe_fits(sl, n) && apply_on_threads(sl, n, window_end)) {
		sl->n_req = 0;
		return;
	}
	uint64_t units0 = sl->stats->xlat_units;
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = &sl->req[key[i].index];
		struct warp_rt *w = &sl->warp[r->wslot];
		double result = sm_serve_memory(sl, w, r->wslot, &r->item, r->start);
		if (r->item.op != GPUVM_OP_STORE && result < window_end)
			sl->window_early++;
		deliver(sl, w, r->wslot, &r->item, r->seq, result);
	}
	sl->window_units_per_request = (double)(sl->stats->xlat_units - units0) / (double)n;
	sl->n_req = 0;
}

