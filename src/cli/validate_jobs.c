/* `gpuvm validate --jobs N`: the manifest's replays in N worker processes
 * at once (cli/worker_pool.h).
 *
 * - A worker replays one row exactly as the serial loop does
 *   (validate_run_row) and answers with its launches; the parent computes
 *   the row's results from them (validate_row_results). A replay is
 *   deterministic and shares nothing with another, so every row's numbers
 *   are those of --jobs 1.
 * - A row that reads an earlier row's replay (same trace and preset) is
 *   not given to a worker: once the replays are in, the serial loop reads
 *   it from that row, as with --jobs 1.
 * - Failures: the first failing row in manifest order is the one reported,
 *   as the serial loop would report it; no row after it is started once
 *   it is known, and those running are stopped once no earlier row runs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/validate_internal.h"
#include "cli/worker_pool.h"

/* a worker's answer: this, then n launches */
struct replay_head {
	uint64_t kernels;
	double kernel_cycles;
	uint64_t n;
};

struct jobs_ctx {
	struct manifest *m;
	size_t *todo;              /* task -> row */
	struct validate_progress *prog;
	size_t failed_task;        /* the first in order so far, or SIZE_MAX */
	struct gpuvm_error failure;
};

static int replay_task(void *vctx, size_t i, struct worker_answer *a)
{
	struct jobs_ctx *x = vctx;
	struct vrow *r = &x->m->rows[x->todo[i]];
	struct gpuvm_error e = {{0}};
	if (validate_run_row(x->m, r, false, &e) != 0) {
		worker_answer_add(a, e.msg, strlen(e.msg));
		return 1;
	}
	struct replay_head h = {r->kernels, r->kernel_cycles, r->n_launches};
	int bad = worker_answer_add(a, &h, sizeof h);
	for (size_t k = 0; k < r->n_launches && !bad; k++) {
		struct gpuvm_kernel_stats s = r->launches[k];
		s.counters = NULL; /* the parent's own memory has none */
		bad = worker_answer_add(a, &s, sizeof s);
	}
	if (bad) {
		a->len = 0;
		worker_answer_add(a, "out of memory", 13);
	}
	return bad;
}

/* The row's results, or the failure it ends in; -3 stops new rows, and
 * the rows after the first failing one. */
static int replay_done(void *vctx, size_t i, enum worker_end end, const char *data, size_t len)
{
	struct jobs_ctx *x = vctx;
	struct manifest *m = x->m;
	struct vrow *r = &m->rows[x->todo[i]];
	struct gpuvm_error e = {{0}};
	struct replay_head h;
	if (end == WORKER_LOST) {
		gpuvm_fail(&e, m->path, r->line, r->f[C_NAME], "the replay failed: %.*s", (int)len, data);
	} else if (end == WORKER_TASK_FAILED) { /* the row's message, file and line in it */
		snprintf(e.msg, sizeof e.msg, "%.*s", (int)len, data);
	} else if (len < sizeof h) {
		gpuvm_fail(&e, m->path, r->line, r->f[C_NAME], "the replay's worker sent a short answer");
	} else {
		memcpy(&h, data, sizeof h);
		if (h.n > len || len != sizeof h + h.n * sizeof(struct gpuvm_kernel_stats)) {
			gpuvm_fail(&e, m->path, r->line, r->f[C_NAME], "the replay's worker sent a malformed answer");
		} else if (!(r->launches = malloc((h.n ? h.n : 1) * sizeof *r->launches))) {
			gpuvm_fail(&e, m->path, r->line, r->f[C_NAME], "out of memory for the launches' durations");
		} else {
			if (h.n)
				memcpy(r->launches, data + sizeof h, h.n * sizeof *r->launches);
			r->n_launches = h.n;
			r->kernels = h.kernels;
			r->kernel_cycles = h.kernel_cycles;
			if (validate_row_results(m, r, r, &e) == 0) {
				validate_progress_row(x->prog, r->f[C_NAME]);
				return 0;
			}
		}
	}
	if (i < x->failed_task) {
		x->failed_task = i;
		x->failure = e;
	}
	return -3; /* rows after the first failing one need not finish */
}

int validate_run_jobs(struct manifest *m, unsigned jobs, struct validate_progress *prog,
		      struct gpuvm_error *err)
{
	struct jobs_ctx x = {.m = m, .prog = prog, .failed_task = SIZE_MAX};
	if (!(x.todo = malloc((m->n ? m->n : 1) * sizeof *x.todo)))
		return gpuvm_fail(err, NULL, 0, "--jobs", "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < m->n; i++) {
		struct vrow *r = &m->rows[i];
		bool reads_earlier = false;
		for (const struct vrow *o = m->rows; o < r && !reads_earlier; o++)
			reads_earlier = !o->skipped && validate_same_replay(o, r);
		if (!r->skipped && !reads_earlier)
			x.todo[n++] = i;
	}
	int rc = worker_pool_run(n, jobs, replay_task, replay_done, &x, err);
	free(x.todo);
	if (rc > 0)
		*err = x.failure;
	if (rc)
		return -1;
	/* the rows read from an earlier row's replay, as the serial loop */
	for (size_t i = 0; i < m->n; i++) {
		struct vrow *r = &m->rows[i];
		if (r->skipped || r->launches)
			continue;
		if (validate_run_row(m, r, false, err))
			return -1;
		validate_progress_row(prog, r->f[C_NAME]);
	}
	return 0;
}
