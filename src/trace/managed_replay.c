/* Replaying a trace as a unified-memory program: the trace's device
 * allocations become managed ones, and its explicit host<->device copies
 * are dropped. A program ported to cudaMallocManaged initialises its data
 * on the host instead of copying it, so the data starts host-resident and
 * the kernels fault it in (Zheng et al., seeds/003 section 2; UVMSmart's
 * benchmarks are such ports, its benchmarks/Managed/<name>/run). Reading results
 * back on the host is CPU work the model does not simulate. */
#include "trace/readers.h"

#include <stdio.h>
#include <stdlib.h>

struct managed_replay {
	struct gpuvm_source inner;
	uint64_t copies_dropped;
};

static int mr_next_op(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct managed_replay *m = s->impl;
	for (;;) {
		m->inner.now_seconds = s->now_seconds; /* the engine's clock, passed on */
		m->inner.exec_threads = s->exec_threads; /* --threads, for a reader thread */
		if (m->inner.ops->next_op(&m->inner, op, err) < 0)
			return -1;
		if (op->kind == GPUVM_RUN_COPY_H2D || op->kind == GPUVM_RUN_COPY_D2H) {
			m->copies_dropped++;
			continue;
		}
		if (op->kind == GPUVM_RUN_ALLOC && op->alloc.kind == GPUVM_ALLOC_DEVICE)
			op->alloc.kind = GPUVM_ALLOC_MANAGED;
		return 0;
	}
}

static void mr_result(struct gpuvm_source *s, char *buf, size_t len)
{
	struct managed_replay *m = s->impl;
	int n = snprintf(buf, len, "managed replay, %llu copies dropped",
			 (unsigned long long)m->copies_dropped);
	if (m->inner.ops->result && n > 0 && (size_t)n + 2 < len) {
		buf[n] = ';';
		buf[n + 1] = ' ';
		m->inner.ops->result(&m->inner, buf + n + 2, len - (size_t)n - 2);
	}
}

static uint64_t mr_work_items(struct gpuvm_source *s)
{
	struct managed_replay *m = s->impl;
	return m->inner.ops->work_items ? m->inner.ops->work_items(&m->inner) : 0;
}

static void mr_destroy(struct gpuvm_source *s)
{
	struct managed_replay *m = s->impl;
	m->inner.ops->destroy(&m->inner);
	free(m);
	s->impl = NULL;
}

static const struct gpuvm_source_ops managed_replay_ops = {
	.kind = "managed-replay",
	.next_op = mr_next_op,
	.result = mr_result,
	.work_items = mr_work_items,
	.destroy = mr_destroy,
};

int trace_wrap_managed(struct gpuvm_source *src, struct gpuvm_error *err)
{
	struct managed_replay *m = calloc(1, sizeof *m);
	if (!m)
		return gpuvm_fail(err, "trace", 0, NULL, "out of memory");
	m->inner = *src;
	src->ops = &managed_replay_ops;
	src->impl = m;
	return 0;
}
