/* `gpuvm calibrate --jobs N`: the presets' rows made by N worker processes
 * at once (cli/worker_pool.h), one preset a task. A worker runs
 * calibrate_preset as the serial loop does and answers with that preset's
 * rows; the parent adds them in the presets' order, so the table, CSV,
 * JSON and figures are those of one job. A row's pointers (its published
 * value, its status string) point into what the worker shares with the
 * parent from before the fork: the loaded table and the binary. The first
 * failing preset in order is the one reported, as with one job; the
 * presets after it are stopped once no preset before it still runs. */
#include <stdlib.h>
#include <string.h>

#include "cli/calib_rows.h"
#include "cli/worker_pool.h"

struct calib_jobs {
	struct calib *c;
	const char *const *presets;
	struct worker_answer *rows; /* per preset, its rows as the worker sent them */
	size_t failed;              /* the first failing preset so far, or n */
	struct gpuvm_error failure;
};

static int preset_task(void *vctx, size_t i, struct worker_answer *a)
{
	struct calib_jobs *x = vctx;
	struct calib *c = x->c;
	c->n = 0; /* the rows of this preset alone (the parent's are not copied back) */
	if (calibrate_preset(c, x->presets[i])) {
		worker_answer_add(a, c->err->msg, strlen(c->err->msg));
		return 1;
	}
	if (worker_answer_add(a, c->rows, c->n * sizeof *c->rows)) {
		a->len = 0;
		worker_answer_add(a, "out of memory", 13);
		return 1;
	}
	return 0;
}

static int preset_done(void *vctx, size_t i, enum worker_end end, const char *data, size_t len)
{
	struct calib_jobs *x = vctx;
	struct gpuvm_error e = {{0}};
	if (end == WORKER_RESULT && len % sizeof(struct row) == 0) {
		if (!worker_answer_add(&x->rows[i], data, len))
			return 0;
		gpuvm_fail(&e, "--jobs", 0, x->presets[i], "out of memory");
	} else if (end == WORKER_RESULT) {
		gpuvm_fail(&e, "--jobs", 0, x->presets[i], "its worker sent a malformed answer");
	} else if (end == WORKER_TASK_FAILED) {
		snprintf(e.msg, sizeof e.msg, "%.*s", (int)len, data);
	} else {
		gpuvm_fail(&e, "--gpu", 0, x->presets[i], "%.*s", (int)len, data);
	}
	if (i < x->failed) {
		x->failed = i;
		x->failure = e;
	}
	return -3; /* presets after the first failing one need not finish */
}

int calib_run_jobs(struct calib *c, const char *const *presets, size_t n, unsigned jobs)
{
	struct calib_jobs x = {.c = c, .presets = presets, .failed = n};
	if (!(x.rows = calloc(n ? n : 1, sizeof *x.rows)))
		return gpuvm_fail(c->err, "--jobs", 0, NULL, "out of memory");
	int rc = worker_pool_run(n, jobs, preset_task, preset_done, &x, c->err);
	if (rc > 0)
		*c->err = x.failure;
	for (size_t i = 0; i < n && !rc; i++) {
		size_t k = x.rows[i].len / sizeof *c->rows;
		if (c->cap - c->n < k) {
			size_t cap = c->n + k;
			struct row *nr = realloc(c->rows, cap * sizeof *nr);
			if (!nr) {
				rc = gpuvm_fail(c->err, "--jobs", 0, NULL, "out of memory");
				break;
			}
			c->rows = nr;
			c->cap = cap;
		}
		memcpy(c->rows + c->n, x.rows[i].data, k * sizeof *c->rows);
		c->n += k;
	}
	for (size_t i = 0; i < n; i++)
		free(x.rows[i].data);
	free(x.rows);
	return rc ? -1 : 0;
}
