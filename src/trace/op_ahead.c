/* A bounded queue of run operations between a producer thread and the
 * engine (op_ahead.h). */
#include "trace/op_ahead.h"

#include "par/thread_profile.h"

#include <string.h>

static void *producer(void *arg)
{
	struct op_ahead *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!atomic_load(&a->stop) &&
		       (a->n == OP_AHEAD_QUEUE || a->kernels_out >= OP_AHEAD_KERNELS))
			pthread_cond_wait(&a->cv, &a->mu);
		if (atomic_load(&a->stop))
			break;
		pthread_mutex_unlock(&a->mu);
		struct gpuvm_run_op op;
		struct gpuvm_error err = {{0}};
		int rc = a->produce(a->ctx, &op, &err);
		pthread_mutex_lock(&a->mu);
		if (rc < 0 || op.kind == GPUVM_RUN_END) {
			/* the error (or the end) comes after what is queued */
			a->finished = true;
			a->rc = rc < 0 ? -1 : 0;
			a->err = err;
			pthread_cond_broadcast(&a->cv);
			break;
		}
		a->q[(a->head + a->n++) % OP_AHEAD_QUEUE] = op;
		if (op.kind == GPUVM_RUN_KERNEL)
			a->kernels_out++;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	thread_profile_exit(); /* gpuvm bench --profile */
	return NULL;
}

int op_ahead_start(struct op_ahead *a, op_ahead_fn produce, void *ctx, struct gpuvm_error *err)
{
	memset(a, 0, sizeof *a);
	a->produce = produce;
	a->ctx = ctx;
	atomic_init(&a->stop, false);
	if (pthread_mutex_init(&a->mu, NULL))
		return gpuvm_fail(err, "--threads", 0, NULL, "cannot create a mutex");
	if (pthread_cond_init(&a->cv, NULL)) {
		pthread_mutex_destroy(&a->mu);
		return gpuvm_fail(err, "--threads", 0, NULL, "cannot create a condition variable");
	}
	/* set before the thread exists: the producer reads it
	 * (op_ahead_stopping), and a write after pthread_create would race */
	a->started = true;
	if (pthread_create(&a->thread, NULL, producer, a)) {
		a->started = false;
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		return gpuvm_fail(err, "--threads", 0, NULL, "cannot start the trace reader thread");
	}
	return 0;
}

int op_ahead_next(struct op_ahead *a, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	pthread_mutex_lock(&a->mu);
	if (a->holding_kernel) { /* the kernel handed out last is done with */
		a->holding_kernel = false;
		a->kernels_out--;
		pthread_cond_broadcast(&a->cv);
	}
	while (!a->n && !a->finished)
		pthread_cond_wait(&a->cv, &a->mu);
	int rc = 0;
	if (a->n) {
		*op = a->q[a->head];
		a->head = (a->head + 1) % OP_AHEAD_QUEUE;
		a->n--;
		a->holding_kernel = op->kind == GPUVM_RUN_KERNEL;
		pthread_cond_broadcast(&a->cv);
	} else if (a->rc < 0) {
		*err = a->err;
		rc = -1;
	} else {
		memset(op, 0, sizeof *op);
		op->kind = GPUVM_RUN_END;
	}
	pthread_mutex_unlock(&a->mu);
	return rc;
}

void op_ahead_stop(struct op_ahead *a)
{
	if (!a->started)
		return;
	pthread_mutex_lock(&a->mu);
	atomic_store(&a->stop, true);
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	a->started = false;
}
