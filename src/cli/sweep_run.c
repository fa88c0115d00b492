/* gpuvm sweep: running the points of a grid. Each point runs in a worker
 * process (cli/worker_pool.h; -j at a time), which answers with its result
 * as JSON text or its error; -j 1 runs them here. A
 * checkpoint (FILE.partial beside --csv) is written as results arrive, at
 * intervals that grow with the time a write takes, so an interrupted
 * sweep resumes (--resume).
 *
 * Owns: the checkpoint file. May call: the worker pool, the
 * grid (sweep_point_spec), the run module (gpuvm_run_point), the CSV
 * writer for checkpoints, the progress line. Guarantees: results land in
 * s->results in grid order whatever -j is, each passed through JSON text
 * so that -j 1 and -j N are identical; a failed point is recorded (or, with
 * --fail-fast, stops the sweep) and no worker outlives sweep_run_all. */
#include "gpuvm/host_memory.h"
#include "gpuvm/progress.h"
#include "sweep_internal.h"
#include "cli/worker_pool.h"
#include "gpuvm/output_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuvm/plot.h"
#include "gpuvm/stats_registry.h"
#include "gpuvm/units.h"

/* ---- running points --------------------------------------------------- */

/* Runs point i here. On failure err holds the message. */
static int run_here(const struct sweep *s, size_t i, cJSON **out, struct gpuvm_error *err)
{
	struct gpuvm_run_spec spec;
	char *owned[SWEEP_SPEC_OWNED];
	if (sweep_point_spec(s, i, &spec, owned, err) != 0)
		return -1;
	spec.progress = false;
	*out = NULL;
	int rc = gpuvm_run_point(&spec, out, err);
	sweep_spec_free(owned);
	if (rc == 0 && !*out)
		rc = gpuvm_fail(err, NULL, 0, NULL, "simulation returned no result");
	if (rc == 0) {
		/* Results from workers arrive as JSON text, and cJSON prints some
		 * doubles a hair short of exact; passing every result through
		 * text keeps -j 1 and -j N identical, and CSV equal to JSON. */
		char *text = cJSON_PrintUnformatted(*out);
		cJSON *again = text ? cJSON_Parse(text) : NULL;
		free(text);
		cJSON_Delete(*out);
		*out = again;
		if (!again)
			rc = gpuvm_fail(err, NULL, 0, NULL, "out of memory");
	}
	return rc;
}

/* The progress of this run: its points, or under --mpi on rank 0 every
 * rank's (the others tell rank 0 of each point they finish). */
struct sweep_progress {
	struct sweep_eta eta;
	size_t done, total;
	size_t ranks_left; /* --mpi, rank 0: ranks not yet through their points */
};

/* Prints the line for point i done: on a terminal a line redrawn in place;
 * in a batch log (Slurm, nohup, `2> log`) a line every
 * GPUVM_PROGRESS_DEFAULT_INTERVAL_S seconds and at the end, with the time
 * left from the wall time so far and the expected cost of the points left
 * (sweep_eta.c: a rough guide). */
static void progress_line(const struct sweep *s, struct sweep_progress *p, size_t i)
{
	static double start_s = -1, last_line_s;
	size_t done = p->done, total = p->total;
	if (s->quiet)
		return;
	char label[256];
	sweep_point_label(s, i, label, sizeof label);
	if (!isatty(STDERR_FILENO)) {
		double now = gpuvm_progress_wall_seconds();
		if (start_s < 0)
			start_s = last_line_s = now;
		if (done < total && now - last_line_s < GPUVM_PROGRESS_DEFAULT_INTERVAL_S)
			return;
		last_line_s = now;
		double spent = now - start_s, left = sweep_eta_left_s(&p->eta, spent);
		char spent_text[32], left_text[32];
		gpuvm_progress_format_duration(spent, spent_text, sizeof spent_text);
		gpuvm_progress_format_duration(left, left_text, sizeof left_text);
		fprintf(stderr, "gpuvm sweep: %zu of %zu points done (last: %s), %s wall", done, total,
			label, spent_text);
		if (done < total)
			fprintf(stderr, ", about %s left", left_text);
		fputc('\n', stderr);
		fflush(stderr);
		return;
	}
	fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, label);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* Rank 0 under --mpi: counts the points other ranks finished (waiting
 * for a message when wait is set, until every rank is through). */
static void progress_others(const struct sweep *s, struct sweep_progress *p, bool wait)
{
	size_t point;
	int got;
	while (p->ranks_left && (got = sweep_mpi_progress_recv(wait, &point)) != 0) {
		if (got == 2) {
			p->ranks_left--;
			continue;
		}
		if (point >= s->n_points)
			continue;
		p->done++;
		sweep_eta_point_done(&p->eta, s, point);
		progress_line(s, p, point);
	}
}

/* Point i of this run is done (run, or failed and recorded). */
static void progress(const struct sweep *s, struct sweep_progress *p, size_t i)
{
	if (s->mpi && s->silent) {
		sweep_mpi_progress_send(i);
		return;
	}
	p->done++;
	sweep_eta_point_done(&p->eta, s, i);
	progress_line(s, p, i);
	if (s->mpi)
		progress_others(s, p, false);
}

/* Checks --y against the first result, so a typo fails before the rest. */
static int check_metric(const struct sweep *s, const cJSON *r, struct gpuvm_error *err)
{
	if (!s->plot || !s->y || sweep_has_metric(r, s->y))
		return 0;
	const char *near = gpuvm_stat_suggest(s->y, true);
	if (near && sweep_has_metric(r, near))
		return gpuvm_fail(err, "--y", 0, NULL, "'%s' is not a metric of the results "
				  "(did you mean '%s'? `gpuvm stats` lists them)", s->y, near);
	return gpuvm_fail(err, "--y", 0, NULL, "'%s' is not a metric of the results "
			  "(use a column name of the CSV, e.g. sim_seconds, tlb_l1_hit_ratio; "
			  "`gpuvm stats` lists them)", s->y);
}

/* Point i failed and the sweep goes on: its row will say why. */
static void record_failure(struct sweep *s, size_t i, const char *msg)
{
	char label[512];
	sweep_point_label(s, i, label, sizeof label);
	fprintf(stderr, "%sgpuvm sweep: point %zu of %zu (%s) failed: %s\n",
		isatty(STDERR_FILENO) && !s->quiet ? "\r\033[K" : "", i + 1, s->n_points, label,
		msg);
	free(s->errors[i]);
	s->errors[i] = strdup(msg);
	if (!s->errors[i]) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
}

/* ---- checkpoints ------------------------------------------------------ */

/* While the sweep runs, --csv FILE's finished rows are kept in
 * FILE.partial (written atomically through the output module), so a run
 * that is killed can go on with --resume. Rewrites are spaced so they cost
 * at most ~5 % of the time: the next one waits 20 times as long as the
 * last took. Only for a regular file (or a new path): a device, a FIFO or
 * stdout gets the CSV once, at the end. */
struct checkpoint {
	char *path;
	double next; /* monotonic seconds */
	bool written; /* a checkpoint is on disk (its points stay resumable) */
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* "CSV.partial" (malloc'd), or NULL: no CSV file (none, or stdout) or out
 * of memory. */
static char *checkpoint_path(const struct sweep *s)
{
	if (!s->csv || !strcmp(s->csv, "-"))
		return NULL;
	size_t n = strlen(s->csv) + 9;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s.partial", s->csv);
	return p;
}

/* checkpoint_path, where a regular file is there now; else NULL. */
static char *checkpoint_on_disk(const struct sweep *s)
{
	char *p = checkpoint_path(s);
	struct stat st;
	if (p && !(lstat(p, &st) == 0 && S_ISREG(st.st_mode))) {
		free(p);
		p = NULL;
	}
	return p;
}

static void checkpoint_init(const struct sweep *s, struct checkpoint *c)
{
	c->path = NULL;
	c->next = 0;
	c->written = false;
	struct stat st;
	if (!s->csv || !strcmp(s->csv, "-"))
		return;
	if (stat(s->csv, &st) == 0 ? !S_ISREG(st.st_mode) : errno != ENOENT)
		return;
	c->path = checkpoint_path(s);
}

static void checkpoint(const struct sweep *s, struct checkpoint *c)
{
	if (!c->path)
		return;
	double t0 = now_s();
	if (t0 < c->next)
		return;
	struct gpuvm_output o;
	struct gpuvm_error err = {{0}};
	int rc = gpuvm_output_open(&o, c->path, &err);
	if (rc == 0) {
		rc = sweep_write_csv(s, o.f, &err);
		if (rc)
			gpuvm_output_cancel(&o);
		else
			rc = gpuvm_output_close(&o, &err);
	}
	if (rc) {
		/* a failed write leaves the last checkpoint as it was (the
		 * output is renamed into place whole, or not at all): say
		 * which one a resume would find (issue 79: "no checkpoint"
		 * with a one-row .partial on a full disk) */
		if (c->written)
			fprintf(stderr, "gpuvm sweep: note: checkpoint not updated (%s): %s keeps "
					"the points of the last one; the CSV is written at the end\n",
				err.msg, c->path);
		else
			fprintf(stderr, "gpuvm sweep: note: no checkpoint (%s); the CSV is written "
					"at the end\n", err.msg);
		free(c->path);
		c->path = NULL;
		return;
	}
	c->written = true;
	double t1 = now_s();
	c->next = t1 + 20 * (t1 - t0);
}

/* The sweep ended with FILE written: its checkpoint is stale. */
void sweep_checkpoint_remove(const struct sweep *s)
{
	char *p = checkpoint_on_disk(s);
	if (p)
		unlink(p);
	free(p);
}

/* The CSV could not be written at the end: the checkpoint, if one is on
 * disk, is what a resume would find; say so, rather than leave a file
 * with some of the points and no word about it. */
void sweep_checkpoint_explain(const struct sweep *s)
{
	char *p = checkpoint_on_disk(s);
	if (p)
		fprintf(stderr, "gpuvm sweep: note: %s keeps the points of the last checkpoint, "
				"not all of this run's; the same command with --resume runs only "
				"the others\n", p);
	free(p);
}

/* The parallel sweep's state, for point_done */
struct sweep_jobs {
	struct sweep *s;
	const size_t *todo; /* task -> point */
	size_t n_todo, done;
	size_t *failed;
	struct gpuvm_error *err;
	bool checked;
	struct checkpoint *ck;
	struct sweep_progress *prog;
	int rc; /* 0, or the failure that stopped the sweep: 1 worker, 2 point */
};

/* Worker (cli/worker_pool.h): point todo[t]'s result as JSON text, or
 * its error as the task's failure. */
static int point_task(void *ctx, size_t t, struct worker_answer *a)
{
	const struct sweep_jobs *x = ctx;
	cJSON *r = NULL;
	struct gpuvm_error err = {{0}};
	if (run_here(x->s, x->todo[t], &r, &err) != 0) {
		worker_answer_add(a, err.msg, strlen(err.msg));
		return 1;
	}
	char *text = cJSON_PrintUnformatted(r);
	if (!text || worker_answer_add(a, text, strlen(text)))
		_exit(4); /* the parent: "worker failed (exit status 4)" */
	free(text);
	cJSON_Delete(r);
	return 0;
}

/* Parent: point todo[t]'s answer. Its result, or its failure: recorded
 * and the sweep goes on, or with --fail-fast the sweep stops (-2: the
 * running workers are stopped; once stopping, only a rejected point
 * earlier in the grid replaces the message, since workers stopped fail
 * too and say nothing new). */
static int point_done(void *ctx, size_t t, enum worker_end end, const char *data, size_t len)
{
	struct sweep_jobs *x = ctx;
	struct sweep *s = x->s;
	size_t point = x->todo[t];
	struct gpuvm_error e = {{0}};
	int frc = 0; /* 1: the worker failed, 2: the point was rejected */
	if (end == WORKER_LOST) {
		frc = 1, gpuvm_fail(&e, NULL, 0, NULL, "%.*s", (int)len, data);
	} else if (end == WORKER_TASK_FAILED) {
		frc = 2, gpuvm_fail(&e, NULL, 0, NULL, "%.*s", (int)len, data);
	} else {
		cJSON *r = cJSON_ParseWithLength(data, len);
		if (!cJSON_IsObject(r)) {
			cJSON_Delete(r);
			frc = 1, gpuvm_fail(&e, NULL, 0, NULL, "worker sent malformed JSON");
		} else {
			s->results[point] = r;
		}
	}
	if (frc == 0 && !x->checked) {
		x->checked = true;
		if (check_metric(s, s->results[point], &e) != 0)
			frc = 2, point = SIZE_MAX;
	}
	if (frc != 0 && x->rc == 0 && !s->fail_fast && point != SIZE_MAX) {
		/* keep going: this point's row carries the message */
		record_failure(s, point, e.msg);
		++x->done, progress(s, x->prog, point);
		checkpoint(s, x->ck);
	} else if (frc != 0 && (x->rc == 0 || (frc == 2 && point < *x->failed))) {
		x->rc = frc;
		*x->failed = point;
		*x->err = e;
		return -2;
	} else if (frc == 0) {
		++x->done, progress(s, x->prog, point);
		if (x->rc == 0)
			checkpoint(s, x->ck);
	}
	return x->rc ? -2 : 0;
}

/* Runs every point of this shard that has no result (resumed) and no
 * error (rejected when validated); returns 0, 1 or 2 (see finish). With
 * --fail-fast, the first failure stops the sweep and *failed is its point,
 * or SIZE_MAX for a failure outside any point; otherwise a failed point is
 * recorded in s->errors and the sweep goes on. */
static int run_all(struct sweep *s, struct sweep_progress *prog, size_t *failed,
		   struct gpuvm_error *err)
{
	*failed = SIZE_MAX;
	size_t *todo = malloc((s->n_points ? s->n_points : 1) * sizeof *todo);
	if (!todo) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	size_t n_todo = 0;
	bool checked = false;
	for (size_t i = 0; i < s->n_points; i++) {
		if (!sweep_selected(s, i) || s->errors[i])
			continue;
		if (!s->results[i])
			todo[n_todo++] = i;
		else if (!checked) {
			checked = true;
			if (check_metric(s, s->results[i], err) != 0) {
				free(todo);
				return 2;
			}
		}
	}
	sweep_eta_init(&prog->eta, s, todo, n_todo);
	struct checkpoint ck;
	checkpoint_init(s, &ck);

	int rc = 0;
	if (s->jobs <= 1 || n_todo <= 1) {
		for (size_t t = 0; t < n_todo; t++) {
			size_t i = todo[t];
			struct gpuvm_error e = {{0}};
			if (run_here(s, i, &s->results[i], &e) != 0) {
				if (s->fail_fast) {
					*failed = i;
					*err = e;
					rc = 2;
					break;
				}
				record_failure(s, i, e.msg);
			} else if (!checked) {
				checked = true;
				if (check_metric(s, s->results[i], err) != 0) {
					rc = 2;
					break;
				}
			}
			progress(s, prog, i);
			checkpoint(s, &ck);
		}
		free(todo);
		free(ck.path);
		return rc;
	}

	struct sweep_jobs x = {.s = s, .todo = todo, .n_todo = n_todo, .failed = failed, .err = err,
			       .checked = checked, .ck = &ck, .prog = prog};
	int prc = worker_pool_run(n_todo, s->jobs, point_task, point_done, &x, err);
	rc = prc < 0 ? 1 : x.rc;
	free(todo);
	free(ck.path);
	return rc;
}

/* The points this rank runs: selected, with no result (resumed) and no
 * error (rejected when validated). */
static size_t count_todo(const struct sweep *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_points; i++)
		n += sweep_selected(s, i) && !s->errors[i] && !s->results[i];
	return n;
}

/* Under --mpi every rank calls this (its collective step counts the
 * points of all ranks for rank 0's progress line); rank 0 then waits for
 * the others to be through their points before the gather. */
int sweep_run_all(struct sweep *s, size_t *failed, struct gpuvm_error *err)
{
	struct sweep_progress prog = {.total = count_todo(s)};
	if (s->mpi) {
		prog.total = sweep_mpi_sum(prog.total);
		prog.ranks_left = s->silent || s->shard_n < 1 ? 0 : s->shard_n - 1;
	}
	int rc = run_all(s, &prog, failed, err);
	if (s->mpi && s->silent)
		sweep_mpi_progress_end();
	else if (s->mpi)
		progress_others(s, &prog, true);
	return rc;
}
