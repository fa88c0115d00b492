/* Producing a source's run operations on a second thread, ahead of the
 * engine (gpuvm sim --threads 2 or more with a text trace): the reader
 * parses and transcodes the next kernel while the engine replays the
 * current one. The operations, and any error with its file and line, reach
 * the engine in the same order and at the same place as when it reads
 * them itself; only the thread that does the parsing changes. */
#ifndef GPUVM_TRACE_OP_AHEAD_H
#define GPUVM_TRACE_OP_AHEAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/error.h"
#include "gpuvm/stream.h"

/* Operations produced and not yet taken; kernels beyond the one the engine
 * holds: the producer keeps two kernels alive (double-buffered scratch). */
#define OP_AHEAD_QUEUE 64u
#define OP_AHEAD_KERNELS 2u

/* Produces the next operation as next_op would; runs on the producer. */
typedef int (*op_ahead_fn)(void *ctx, struct gpuvm_run_op *op, struct gpuvm_error *err);

struct op_ahead {
	op_ahead_fn produce;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* either side waits on it */
	struct gpuvm_run_op q[OP_AHEAD_QUEUE];
	uint32_t head, n;
	uint32_t kernels_out; /* kernels produced that the engine has not released */
	bool holding_kernel;  /* the engine's last operation was a kernel */
	bool finished;        /* the producer returned END or an error */
	int rc;               /* its return, once finished and the queue drained */
	struct gpuvm_error err;
	atomic_bool stop;     /* destroy: the producer stops at its next check */
	bool started;
};

/* Starts the producer thread; 0, or -1 with err (thread creation). */
int op_ahead_start(struct op_ahead *a, op_ahead_fn produce, void *ctx, struct gpuvm_error *err);
/* The engine's next_op: the next operation, in order. */
int op_ahead_next(struct op_ahead *a, struct gpuvm_run_op *op, struct gpuvm_error *err);
/* Stops and joins the producer (it finishes the kernel it is parsing). */
void op_ahead_stop(struct op_ahead *a);
/* For long producer loops: true once op_ahead_stop was called. */
static inline bool op_ahead_stopping(struct op_ahead *a)
{
	return a && a->started && atomic_load_explicit(&a->stop, memory_order_relaxed);
}

#endif
