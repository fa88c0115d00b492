/* The worker threads' scheduling state of simt_par.c, shared by the
 * engine's side (simt_par.c: the hand-off, setup and teardown) and the
 * workers' (simt_par_worker.c: the to-do lists, claiming CTAs, filling
 * chunks). Private to those two files; the scheduling rules are in
 * simt_par.c's opening comment. Everything here is under par->mu unless
 * a field says otherwise. */
#ifndef GPUVM_SIMT_PAR_INTERNAL_H
#define GPUVM_SIMT_PAR_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "simt/item_chunk.h"
#include "simt/simt_internal.h"
#include "simt/simt_par.h"

#define PAR_CHUNK_BYTES (4u << 10) /* ~100 coalesced accesses, 14 scattered */
#define PAR_CTAS_AHEAD 64
/* CTAs claimed of a launch the engine has not begun, while the budget
 * lasts (may_claim) */
#define PAR_CTAS_AHEAD_MAX 1024
/* How much lower the workers' scheduling priority is than the engine's
 * (nice levels; simt_par_worker.c worker_yield_to_engine). */
#define PAR_WORKER_NICE 5

/* The chunks' budget (GPUVM_SIMT_BUFFER_MIB): the workers run a launch
 * ahead of the engine as far as it lasts. */
#define PAR_BUFFER_MIB 64
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
struct par_run;

enum { WORKER_DOZING = 1, WORKER_ASLEEP = 2 };
enum { TODO_NEAR, TODO_DEEP, TODO_FIRST, TODO_LISTS };

struct par_warp {
	struct par_cta *cta;
	struct par_warp *prev, *next; /* in the owner's to-do list */
	struct item_fifo ready;
	int queued; /* 0, or on its owner's list TODO_NEAR / DEEP / FIRST + 1 */
	uint64_t queued_seq; /* its owner's count of warps queued, when queued */
	int busy, ended, failed;
	struct gpuvm_error err;   /* failed: what the executor said */
	struct item_chunk *held;  /* the chunk the engine reads (for teardown) */
	void *exec;               /* the executor's warp state (owner side) */
};

struct par_cta {
	struct par_run *run;      /* the launch it belongs to */
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
	/* warps to fill: those never filled (TODO_FIRST), those with fewer
	 * than SIMT_PAR_READY_CHUNKS waiting (TODO_NEAR), and those the
	 * budget lets run further ahead (TODO_DEEP), taken only when no CTA
	 * is left to claim */
	struct par_warp *todo_head[TODO_LISTS], *todo_tail[TODO_LISTS];
	uint32_t ntodo;     /* on TODO_NEAR or TODO_FIRST */
	uint64_t queue_seq; /* warps queued so far (FIFO across the two) */
	/* GPUVM_THREADS_PROFILE: seconds asleep, CPU at exit, sleeps */
	double asleep_s, cpu_s;
	uint64_t sleeps, fills;
	int nice_added; /* the nice levels it runs below its process */
};

/* One launch as posted, in the program's launch slot: the engine may
 * still be timing the one before while the workers run this one (the
 * host program ran ahead: simt_host.c). */
struct par_run {
	struct simt_par *par;
	uint64_t gen;
	/* the launch (workers copy it, never the host's, which the engine
	 * writes while they run) */
	struct simt_launch snap;
	/* the body's buffer-layout record when posted: the program's may
	 * change for its next launch while a late worker takes this one */
	struct simt_zip_stats zip;
	struct simt_buffer *bufs;
	size_t nbufs;
	uint64_t ctas, claimed, begun;
	uint32_t warps_per_cta;
	uint64_t warps_open; /* warps whose stream no worker has ended yet */
	int failed;          /* a warp's stream ended in an error */
	struct par_cta *pending_head, *pending_tail; /* claimed ahead, in id order */
	struct par_cta *unowned_head, *unowned_tail; /* begun by the engine, for any worker */
	struct par_cta *engine_cta; /* whose warps the engine is beginning */
};

struct simt_par {
	pthread_mutex_t mu;
	pthread_cond_t engine_cv;
	struct par_warp *urgent;  /* the warp the engine waits for */
	uint32_t nworkers, sleeping;
	struct par_worker *w;
	int stop;
	struct simt_program *prog;
	uint64_t gen;
	struct par_run run[SIMT_LAUNCH_SLOTS];
	struct par_run *posted;   /* the newest launch: the workers' */
	/* set by the worker that ended the posted launch's last warp; the
	 * engine then lets the host program go on (simt_host_run_ahead) */
	_Atomic int host_wake;
	struct par_cta *free_ctas, *all;
	struct item_chunk_pool pool;
	/* chunks out of the pool (filled, waiting or read), and how many may
	 * be out before a warp with SIMT_PAR_READY_CHUNKS waiting stops
	 * being filled and no CTA is claimed past PAR_CTAS_AHEAD */
	uint64_t in_use, budget;
	struct item_seg *free_segs;
	struct item_seg *left_segs; /* the engine's: segments it read past */
	/* the engine's alone: warps it took a chunk from without the mutex,
	 * whose owners are not told yet, and the chunks it read meanwhile */
	struct par_warp *noted[PAR_NOTE_BATCH];
	struct item_chunk *read[PAR_NOTE_BATCH];
	uint32_t n_noted, n_read;
	int oom;
	/* GPUVM_SIMT_ENGINE_HOLD_MS: how long the engine may hold at the
	 * first launch's first CTA for the workers to run it as far ahead as
	 * they may (0: never, or held already), and the launch it holds at
	 * (NULL: none) */
	uint64_t hold_ms;
	const struct par_run *holding;
	int profile;                /* GPUVM_THREADS_PROFILE set: report at the end */
	int profile_closed;         /* its intervals ended (simt_par_free): no more changes */
	double engine_wait_s;       /* engine blocked for items (wall) */
	uint64_t engine_waits, engine_chunks;
	uint64_t ctas_ahead, ctas_adopted; /* claimed ahead by a worker / begun by the engine */
	/* launches whose first CTA a worker had claimed when the engine
	 * began it, and all launches */
	uint64_t launches_ready, launches;
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

static inline double par_now_s(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The time delay_ns from now on clk: a deadline for
 * pthread_cond_timedwait on a condition variable of that clock. */
static inline struct timespec par_time_after(clockid_t clk, uint64_t delay_ns)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	ts.tv_sec += (time_t)(delay_ns / 1000000000u);
	ts.tv_nsec += (long)(delay_ns % 1000000000u);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* ---- simt_par_worker.c, for the engine's side ------------------------ */

/* Under the mutex: the engine (engine 1) or a worker (0) stops (d = -1)
 * or starts (+1) running (GPUVM_THREADS_PROFILE). */
void par_runnable_change(struct simt_par *par, int engine, int d);
/* Wakes wk if it sleeps, or also if it dozes when the engine cannot go
 * on without it (urgent); par_wake_any: the first such worker. */
void par_wake(struct par_worker *wk, int urgent);
void par_wake_any(struct simt_par *par, int urgent);
/* Chunks and queue segments from and back to the pool (counted against
 * the budget: par_budget_left). */
struct item_chunk *par_chunk_get(struct simt_par *par);
void par_chunk_put(struct simt_par *par, struct item_chunk *c);
struct item_seg *par_seg_get(struct simt_par *par);
void par_seg_put(struct simt_par *par, struct item_seg *g);
int par_budget_left(const struct simt_par *par);
/* Under the mutex: whether the engine, holding at par->holding's first
 * CTA (simt_par.c, engine_hold), may go on: the workers ended every
 * warp of it, spent the budget, or failed. */
int par_hold_over(const struct simt_par *par);
/* Puts pw on its owner's to-do list if it can take a chunk. */
void par_want_work(struct par_warp *pw);
/* The owner's warp to fill next (not unlinked), NULL to look at CTAs
 * (simt_par_worker.c). */
struct par_warp *par_near_warp(const struct par_worker *wk, const struct par_run *L);
/* A record for L's next CTA, owned by wk (NULL: none yet); NULL on out
 * of memory. */
struct par_cta *par_claim(struct simt_par *par, struct par_run *L, struct par_worker *wk);
/* A worker thread's body (arg: its struct par_worker). */
void *par_worker_main(void *arg);

#endif
