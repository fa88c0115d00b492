/* A fork-join pool: n independent tasks of a round run on the calling
 * thread and the pool's helpers, each task once, and the round returns
 * when every task has.
 *
 * Owns: its helper threads and their wake-ups.
 * May call: the round's task function, on any of its threads.
 * Guarantees: fork_join_run returns after fn(ctx, i) has returned for
 * every i in [0, n), with everything each task wrote visible to the
 * caller; which thread runs which task depends on the host, so tasks
 * must not share state that any of them writes (the caller's results
 * then do not depend on the threads). A pool that could not start its
 * helpers runs every round on the calling thread. Waits spin briefly and
 * then sleep: the rounds of a simulation's windows are microseconds
 * apart, and a spinning thread must not keep a loaded host's other work
 * off its core. */
#ifndef GPUVM_PAR_FORK_JOIN_H
#define GPUVM_PAR_FORK_JOIN_H

#include <stdint.h>

struct fork_join;

typedef void fork_join_task_fn(void *ctx, uint32_t task);

/* A pool of threads - 1 helpers (none for threads <= 1); NULL when out of
 * memory. */
struct fork_join *fork_join_new(uint32_t threads);
void fork_join_free(struct fork_join *fj);
/* Runs fn(ctx, 0 .. n-1) on the pool; returns when all have run. */
void fork_join_run(struct fork_join *fj, uint32_t n, fork_join_task_fn *fn, void *ctx);

#endif
