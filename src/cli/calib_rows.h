/* The rows of gpuvm calibrate, shared by the runs that make them
 * (cmd_calibrate.c) and the outputs that print them (calib_output.c).
 *
 * Owns: nothing; struct calib owns its rows array (freed by the command).
 * May call: the published table's lookups (calib_published.h) and the
 * registry of quantities (calib_quantities.h; the rows' own functions in
 * calib_rows.c; the outputs' functions call the CSV,
 * JSON, output-file and plot helpers). Guarantees: a row's status is
 * "pass" only with a published value within the tolerance of its kind
 * (LATENCY_TOL_PCT, THROUGHPUT_TOL_PCT). */
#ifndef GPUVM_CLI_CALIB_ROWS_H
#define GPUVM_CLI_CALIB_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/calib_published.h"
#include "gpuvm/error.h"

#define LATENCY_TOL_PCT 10.0
#define THROUGHPUT_TOL_PCT 15.0

enum row_kind { K_LATENCY, K_THROUGHPUT, K_CURVE };

struct row {
	char gpu[64], quantity[64], unit[16];
	enum row_kind kind;
	double x;          /* curves: footprint bytes, threads per SM, transfer bytes */
	double sim;        /* NAN when the run could not measure it */
	const struct pub *pub;
	double err_pct;
	/* pass, FAIL, no-ref, implausible (no-ref, and the simulated value
	 * is physically impossible: note says why), n/a, skipped */
	const char *status;
	char note[256];     /* why skipped or implausible */
};

struct calib {
	const struct pub_table *pub;
	bool quick, progress;
	/* the rows made without running anything, every value NAN (the
	 * check of a table before the runs, calib_check_table_before) */
	bool names_only;
	uint64_t chase_steps; /* nodes per warm chase, cold steps per run */
	struct row *rows;
	size_t n, cap;
	struct gpuvm_error *err;
	int failed; /* a run was refused: the error is in err */
};

/* The table on f, one line per row, then a summary and each preset's
 * curves. */
void calib_print_table(const struct calib *c, FILE *f);
/* --csv and --json (0, or -1 with err set, the file left as it was). */
int calib_write_csv(const struct calib *c, const char *path, struct gpuvm_error *err);
int calib_write_json(const struct calib *c, const char *path, struct gpuvm_error *err);
/* --plot: gpu's curves as PNG figures named after base. */
/* --plot BASE writes BASE-GPU-latency.png and BASE-GPU-bandwidth.png (and
 * their .gp scripts) per preset: each claimed in the output registry
 * before the run (gpuvm_output_claim). 0, or -1 with err naming both. */
int calib_plot_claim(const char *base, const char *const *gpus, size_t n,
		     struct gpuvm_error *err);
int calib_plot_preset(const struct calib *c, const char *gpu, const char *base,
		      struct gpuvm_error *err);

/* A new row of gpu's quantity q, judged against the first published value
 * of that quantity (calib_rows.c); NULL when out of memory, or (c->failed
 * set, the error in c->err) when q is not in the registry of quantities
 * with kind's curve or compared (calib_quantities.h). */
struct row *calib_add_row(struct calib *c, const char *gpu, const char *q, const char *unit,
			  enum row_kind kind, double x, double sim);
/* r's error and status against r->pub. */
void calib_judge(struct row *r);
/* One row more, right after it, for each further published value of a row
 * from first on (a quantity may have several sources): 0, or -1 when out
 * of memory. */
int calib_add_other_published(struct calib *c, size_t first);

struct gpuvm_config;
/* Flags the preset's rows from first on whose simulated value is
 * physically implausible for cfg (calib_plausible.c): status "implausible"
 * where nothing was published, the reason in the note either way. */
void calib_flag_implausible(struct calib *c, size_t first, const struct gpuvm_config *cfg,
			    const char *gpu);

/* Every row of one preset (cmd_calibrate.c): 0, or -1 with c->err. */
int calibrate_preset(struct calib *c, const char *gpu);
/* --jobs N > 1: the presets in N worker processes, their rows added in
 * the presets' order (calib_jobs.c): 0, or -1 with c->err. */
int calib_run_jobs(struct calib *c, const char *const *presets, size_t n, unsigned jobs);

/* After the runs: every row of the published table names a known GPU, and
 * each row of a calibrated GPU was compared (pub_check_rows). 0, or -1
 * with c->err naming the table's file and line. */
int calib_check_table(struct calib *c, const char *const *presets, size_t n_presets);
/* The same before any run: each preset's rows made as c would make them
 * but with names_only (no run), then calib_check_table on them, so that a
 * row the run would not compare is refused at once, and every name those
 * rows carry is checked against the registry; c itself is not changed.
 * The check stops at a preset that does not load, which the run then
 * reports. 0, or -1 with c->err set. */
int calib_check_table_before(const struct calib *c, const char *const *presets, size_t n_presets);

#endif
