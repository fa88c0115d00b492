/* Tasks run in forked worker processes, N at once (gpuvm sweep -j N,
 * gpuvm validate --jobs N, gpuvm calibrate --jobs N).
 *
 * Owns: the workers and their pipes, for the length of one
 * worker_pool_run. May call: fork, pipe, poll, waitpid (POSIX), the
 * caller's two functions. Guarantees: tasks start in task order, at most
 * jobs at once; each task's answer reaches done() in the parent whole, in
 * the order the workers finish; a worker that dies (a signal, an exit
 * without an answer) is reported to done() as a failed task with what
 * happened; workers die with the parent (PR_SET_PDEATHSIG); after a
 * failure of the pool's own (pipe, fork, poll, memory) the workers still
 * running are killed. A worker is a fork of the caller: its answer may
 * hold pointers into memory the two share from before the fork (the
 * binary's static data, what the caller had allocated).
 *
 * Processes rather than threads: a simulation sets process-wide context
 * (the host-memory bound's message), and a crash stays in its worker. */
#ifndef GPUVM_CLI_WORKER_POOL_H
#define GPUVM_CLI_WORKER_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/error.h"

/* A worker's answer, built in the worker. */
struct worker_answer {
	char *data;
	size_t len, cap;
};
/* Appends n bytes (0, or -1 when out of memory). */
int worker_answer_add(struct worker_answer *a, const void *p, size_t n);

/* In the worker: task i; its answer into *a. 0 for a result, non-zero for
 * a failure whose answer is the message (a C string without its NUL). */
typedef int (*worker_task_fn)(void *ctx, size_t i, struct worker_answer *a);
/* How a task ended: its result, its own failure (data: its message), or
 * its worker lost (data: what happened to it, e.g. "worker killed by
 * signal 9 (Killed)", "worker failed (exit status 4)"). */
enum worker_end { WORKER_RESULT, WORKER_TASK_FAILED, WORKER_LOST };
/* In the parent, for each task as its worker ends. 0 to go on; -1 to
 * start no further task (those running still end and reach done()); -2
 * to start none and stop the running workers too (SIGTERM: they end
 * early, most as lost, and still reach done()); -3 for a task that
 * failed where the first failure in task order is the one that counts:
 * start none, and stop the running workers as -2 does once none of them
 * runs a task before the earliest such failure (theirs could only come
 * after it). */
typedef int (*worker_done_fn)(void *ctx, size_t i, enum worker_end end, const char *data,
			      size_t len);

/* Runs tasks 0 .. n - 1 with up to jobs workers at once. 0 when every
 * task ran and done() never stopped the pool; 1 when done() stopped it
 * (the caller's own error says why); -1 with err on a failure of the
 * pool's own. */
int worker_pool_run(size_t n, unsigned jobs, worker_task_fn task, worker_done_fn done, void *ctx,
		    struct gpuvm_error *err);

#endif
