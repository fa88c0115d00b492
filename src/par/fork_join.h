/* A fork-join pool: rounds of the same n independent tasks, each run once
 * per round on the calling thread or one of the pool's helpers; a round
 * returns when every task has.
 *
 * Owns: its helper threads, their wake-ups and the tasks' claim stamps.
 * May call: the round's task function, on any of its threads.
 * Guarantees: fork_join_run returns after fn(ctx, i) has returned for
 * every i in [0, n), with everything each task wrote visible to the
 * caller. Task i goes first to thread i mod threads (0 the caller), so a
 * task's data tends to stay in one core's caches from round to round; a
 * thread done with its own takes what is left of the others'. Which
 * thread runs which task still depends on the host, so tasks must not
 * share state that any of them writes (the caller's results then do not
 * depend on the threads). A pool that could not start its helpers runs
 * every round on the calling thread. Waits spin briefly and then sleep:
 * the rounds of a simulation's windows are microseconds apart, and a
 * spinning thread must not keep a loaded host's other work off its core. */
#ifndef GPUVM_PAR_FORK_JOIN_H
#define GPUVM_PAR_FORK_JOIN_H

#include <stdint.h>

struct fork_join;

typedef void fork_join_task_fn(void *ctx, uint32_t task);

/* A pool of threads - 1 helpers (none for threads <= 1) for rounds of n
 * tasks; NULL when out of memory. */
struct fork_join *fork_join_new(uint32_t threads, uint32_t n);
void fork_join_free(struct fork_join *fj);
/* Runs fn(ctx, 0 .. n-1) on the pool; returns when all have run. */
void fork_join_run(struct fork_join *fj, fork_join_task_fn *fn, void *ctx);

#endif
