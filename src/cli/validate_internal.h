/* `gpuvm validate` internals: the manifest's rows and their results
 * (cmd_validate.c reads the manifest and replays the rows) and the
 * outputs written from them (validate_output.c: table, CSV, JSON, figure). */
#ifndef GPUVM_CLI_VALIDATE_INTERNAL_H
#define GPUVM_CLI_VALIDATE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/error.h"

enum col { C_NAME, C_TRACE, C_DEVICE, C_PRESET, C_MEASURED, C_WHAT, C_SOURCE, N_COLS };
extern const char *const validate_col_names[N_COLS];

/* What a measurement timed, and so which simulated quantity it is
 * compared with (per kernel, summed over the trace's kernels). */
enum convention {
	CONV_NSYS, /* nsys / CUPTI / ncu gpu__time_duration: the kernel's start on the
		    * GPU to its completion (front-end, CTAs, tail); no launch call */
	CONV_CTAS, /* first CTA start to last warp end (in-kernel clocks, cycle
		    * counts of simulators): front-end and tail left out */
	CONV_HOST, /* host timers around the launches (cudaEvent, wall clock):
		    * the duration plus the launch overhead */
	/* nsys durations of a kernel launched several times back to back
	 * (the workload's launches=N), one value per kernel name: the median
	 * of its launches (a profiler's summary of repeated launches,
	 * cuda/hwbench.cu durations: five each), or its first launch (the
	 * L2 as the uploads left it) */
	CONV_NSYS_MEDIAN,
	CONV_NSYS_FIRST,
	N_CONVENTIONS
};
extern const char *const validate_convention_names[N_CONVENTIONS];

struct vrow {
	int line;                 /* in the manifest, 1-based */
	const char *f[N_COLS];    /* into the manifest's text */
	enum convention conv;     /* the optional column 'convention'; nsys without it */
	/* the optional column 'role': true for "calibration" (a parameter of
	 * the model was set from this measurement, so it is not evidence),
	 * false for "validation" (nothing was), as without the column: no
	 * parameter was set from a user's own manifest */
	bool calibration;
	double measured_us;
	char trace_path[PATH_MAX]; /* resolved */
	const char *workload;     /* a workload:SPEC row's SPEC, else NULL */
	const char *preset;       /* the one used: --gpu or the row's */
	struct gpuvm_config *cfg; /* loaded and finalized before any run */
	bool skipped;
	char note[PATH_MAX + 64];
	/* results */
	double sim_us, ratio, error_pct, kernel_cycles;
	uint64_t kernels;
	/* the replay's launches, kept so that a later row of the same trace
	 * and preset (another convention: a kernel's median and its first
	 * launch) is read from them, not replayed again */
	struct gpuvm_kernel_stats *launches;
	size_t n_launches;
};

/* Whether a and b replay the same thing (trace and preset): the later one
 * is read from the earlier's launches, not replayed again. */
static inline bool validate_same_replay(const struct vrow *a, const struct vrow *b)
{
	return !strcmp(a->trace_path, b->trace_path) && !strcmp(a->preset, b->preset);
}

struct manifest {
	const char *path;
	/* a relative trace path is looked up in dir (the manifest's own
	 * folder), then in root (dir's parent: the repository root for the
	 * manifests in validation/, whose paths read traces/...) */
	char dir[PATH_MAX], root[PATH_MAX];
	char *text;
	struct vrow *rows;
	size_t n;
};

struct summary {
	size_t n, skipped;
	double mae_pct; /* NAN when n == 0 */
	double r_log;   /* NAN when n < 3 or undefined */
};

/* The outputs; each writes the whole file or nothing (gpuvm/output_file.h). */
int validate_write_csv(const struct manifest *m, const char *path, struct gpuvm_error *err);
int validate_write_json(const struct manifest *m, const char *path, struct gpuvm_error *err);
int validate_write_plot(const struct manifest *m, const struct summary *s, const char *path,
			struct gpuvm_error *err);
void validate_print_table(const struct manifest *m, const struct summary *s, const char *gpu);

/* A row's replay (or, with an earlier row of the same trace and preset,
 * that row's launches) and its results; -1 with *err naming the manifest
 * line (cmd_validate.c). */
int validate_run_row(const struct manifest *m, struct vrow *r, bool progress,
		     struct gpuvm_error *err);
/* r's results (simulated us, ratio, error) from from's launches */
int validate_row_results(const struct manifest *m, struct vrow *r, const struct vrow *from,
			 struct gpuvm_error *err);

/* The batch log's line per row done (cmd_validate.c) */
struct validate_progress {
	bool batch;
	size_t done, total;
	double start_s, last_line_s;
};
void validate_progress_row(struct validate_progress *p, const char *name);

/* --jobs N > 1: the replays in N worker processes (validate_jobs.c) */
int validate_run_jobs(struct manifest *m, unsigned jobs, struct validate_progress *prog,
		      struct gpuvm_error *err);

#endif
