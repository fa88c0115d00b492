/* `gpuvm sweep` internals: the grid (sweep_grid.c), running its points in
 * worker processes (sweep_run.c), and writing table / CSV / JSON / figure
 * (sweep_output.c). */
#ifndef GPUVM_CLI_SWEEP_INTERNAL_H
#define GPUVM_CLI_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "gpuvm/csv.h"
#include "gpuvm/error.h"
#include "gpuvm/run.h"

#define SWEEP_MAX_VARY 8
#define SWEEP_MAX_GPUS 64
#define SWEEP_MAX_POINTS 100000
#define SWEEP_MAX_RANGE 4096

/* VARY_SYSTEM: a modifier of the --system spec (gpus, nvlink), set in the
 * spec as gpuvm_sysdesc_load_spec reads it ("NAME:gpus=N,nvlink=off") */
enum sweep_vary_kind { VARY_CONFIG, VARY_WORKLOAD, VARY_SEED, VARY_SYSTEM };

/* One --vary KEY=V1,V2,... dimension, values expanded from ranges. */
struct sweep_vary {
	char *key;                /* as given: "tlb.l2.entries", "workload.region", "seed" */
	enum sweep_vary_kind kind;
	const char *param;        /* VARY_WORKLOAD: key after "workload." */
	char **values;            /* raw text, as given or produced by a range */
	size_t n;
	bool is_size;             /* every value is a size: a KEY_bytes column, log2 x */
	bool is_numeric;          /* every value is a number (sizes included) */
	double *num;              /* numeric value (bytes for sizes) when is_numeric */
};

struct sweep {
	/* options */
	char *gpus[SWEEP_MAX_GPUS];
	size_t n_gpus;
	/* --system SPEC in place of --gpu: gpus[0] is it (the grid's outer
	 * dimension, one value; the CSV's gpu column), every point a system
	 * run (gpuvm_run_spec.system) with its VARY_SYSTEM values set */
	const char *system;
	const char *workload;
	struct sweep_vary vary[SWEEP_MAX_VARY];
	size_t n_vary;
	const char *sets[GPUVM_MAX_SETS];
	int n_sets;
	uint64_t seed;
	bool kernel_sampling;             /* --kernel-sampling[=TOL] */
	double kernel_sampling_tolerance; /* 0: the default */
	long jobs;
	uint32_t threads;    /* --threads: per point (gpuvm_run_spec.threads) */
	const char *csv, *json, *plot;
	const char *x, *y, *title;
	bool quiet, logx, logy;
	bool force; /* past the work cap (gpuvm_run_check_work) */
	bool fail_fast;      /* --fail-fast: the first failed point stops the sweep */
	bool resume;         /* --resume: keep the rows already in the CSV */
	size_t shard_i, shard_n; /* --shard I/N (shard_n 0: no sharding) */
	bool mpi;            /* --mpi: shard = MPI rank / size, rank 0 gathers */
	bool silent;         /* an MPI rank other than 0: no messages about the whole sweep */
	const char *cache;   /* --cache DIR: results by a hash of the resolved config */

	/* grid */
	size_t n_points;
	cJSON **results; /* per point, grid order */
	char **errors;   /* per point: why it failed (NULL: no failure) */
	double *cost;    /* per point: expected cost (sweep_point_cost; 0 unknown) */
};

/* Whether point i belongs to this run (--shard I/N: i mod N == I). */
static inline bool sweep_selected(const struct sweep *s, size_t i)
{
	return s->shard_n <= 1 || i % s->shard_n == s->shard_i;
}

/* Point i of the grid: its coordinates, gpu outermost, then the --vary
 * dimensions in the order given (the last varies fastest). */
void sweep_point_coords(const struct sweep *s, size_t i, size_t *gpu, size_t *vi);

/* "gpu=p100 workload.region=64MiB" */
void sweep_point_label(const struct sweep *s, size_t i, char *buf, size_t len);

/* Builds the run spec of point i. Strings it points into are allocated
 * into *owned (free with sweep_spec_free). */
int sweep_point_spec(const struct sweep *s, size_t i, struct gpuvm_run_spec *spec,
		     char **owned, struct gpuvm_error *err);
void sweep_spec_free(char **owned);
#define SWEEP_SPEC_OWNED (GPUVM_MAX_SETS + 3)

/* Parses "KEY=V1,V2,LO..HI*F,..." into v. */
int sweep_vary_parse(struct sweep_vary *v, const char *arg, struct gpuvm_error *err);
void sweep_vary_free(struct sweep_vary *v);

/* Checks every point (preset, overrides, workload spec) without simulating.
 * Unless --fail-fast, a point that fails on its own (not a bad key or
 * value) is recorded in s->errors and the rest go on; -1 only for bad
 * input, or when every selected point failed. */
int sweep_validate(struct sweep *s, struct gpuvm_error *err);

/* The time left of the progress lines (sweep_eta.c): points weighted by
 * their expected cost, the workload's estimate of its thread accesses;
 * 0 when the workload gives none. */
struct gpuvm_config;
struct gpuvm_workload_def;
struct gpuvm_params;
double sweep_point_cost(const struct gpuvm_config *cfg, const struct gpuvm_workload_def *def,
			const struct gpuvm_params *params);
struct sweep_eta {
	double done, left;     /* cost of the points done, and left */
	double unknown_weight; /* a point without a cost: the mean of the known */
};
void sweep_eta_init(struct sweep_eta *e, const struct sweep *s, const size_t *todo, size_t n_todo);
void sweep_eta_point_done(struct sweep_eta *e, const struct sweep *s, size_t i);
/* The time left, from spent_s seconds for the points done so far. */
double sweep_eta_left_s(const struct sweep_eta *e, double spent_s);

/* Adds a "point" object to result: index, gpu, workload, seed, vary. */
void sweep_annotate(const struct sweep *s, size_t i, cJSON *result);

/* Output. Each writer returns 0, or -1 with err set. */
void sweep_print_table(const struct sweep *s, FILE *out);
/* Rows of the points that have a result or an error, in grid order. */
int sweep_write_csv(const struct sweep *s, FILE *f, struct gpuvm_error *err);
/* The CSV's fixed columns: before the metrics (gpu, varied keys, KEY_bytes)
 * and after them (workload, seed unless varied, point, error). */
size_t sweep_csv_prefix(const struct sweep *s, const char **names, char (*buf)[256], size_t max);
size_t sweep_csv_suffix(const struct sweep *s, const char **names, size_t max);
/* The sort class of a metric column: CSV metric columns are ordered by it,
 * then by first appearance in grid order. */
size_t sweep_metric_rank(const char *name);

/* A CSV file read whole: header and rows of fields (sweep_csv.c). */
struct sweep_csv {
	char *path;
	char **head;
	size_t ncol;
	char ***rows;  /* rows[r][c] */
	size_t *line;  /* the line each row starts on */
	size_t nrows;
};
int sweep_csv_read(const char *path, struct sweep_csv *t, struct gpuvm_error *err);
void sweep_csv_free(struct sweep_csv *t);
/* Index of column name, or -1. */
long sweep_csv_col(const struct sweep_csv *t, const char *name);

/* --resume: loads the rows of path (or path.partial) that belong to this
 * sweep into s->results (sweep_resume.c). Returns 0, or -1 with err set. */
int sweep_resume_load(struct sweep *s, const char *path, size_t *loaded, struct gpuvm_error *err);

/* --mpi (sweep_mpi.c; without MPI, init fails with a message and the
 * rest do nothing). init: MPI_Init, this rank and the number of ranks.
 * agree: true on every rank when ok is true on every rank (collective).
 * gather: every rank's selected points (results and errors) and its rc,
 * failed point and message to rank 0, which then holds the whole grid
 * (shard cleared) and the first failure in rank order; -1 when a report
 * was malformed. status: rank 0's exit status, broadcast. */
bool sweep_mpi_available(void);
int sweep_mpi_init(int *argc, char ***argv, size_t *rank, size_t *size, struct gpuvm_error *err);
bool sweep_mpi_agree(bool ok);
int sweep_mpi_gather(struct sweep *s, int *rc, size_t *failed, struct gpuvm_error *err);
int sweep_mpi_status(int rc);
void sweep_mpi_finalize(void);
/* Progress over ranks: every rank calls sum (collective: n summed over
 * the ranks); a rank other than 0 sends each point it finishes, then end
 * when it is through its points; rank 0 receives them: 1 and *point, 2
 * for a rank's end, 0 when nothing is waiting (wait false). Without MPI:
 * sum returns n, recv 0. */
size_t sweep_mpi_sum(size_t n);
void sweep_mpi_progress_send(size_t point);
void sweep_mpi_progress_end(void);
int sweep_mpi_progress_recv(bool wait, size_t *point);

/* --cache DIR (sweep_cache.c). check: DIR is a directory, or is made.
 * load: the selected points without a result whose key has a file get it
 * (from_cache[i] set); returns how many. store: writes every result not
 * marked in from_cache (run here, not resumed or loaded). */
int sweep_cache_check(const struct sweep *s, struct gpuvm_error *err);
size_t sweep_cache_load(struct sweep *s, bool *from_cache);
void sweep_cache_store(const struct sweep *s, const bool *from_cache);

/* Running the points (sweep_run.c): every selected point of this shard
 * without a result or an error; returns 0, 1 or 2. With --fail-fast the
 * first failure stops the sweep and *failed is its point (SIZE_MAX: a
 * failure outside any point). */
int sweep_run_all(struct sweep *s, size_t *failed, struct gpuvm_error *err);
/* The sweep ended with its CSV written: the checkpoint is stale. */
void sweep_checkpoint_remove(const struct sweep *s);
/* The CSV failed at the end: a note on the checkpoint left, if any. */
void sweep_checkpoint_explain(const struct sweep *s);

/* gpuvm sweep merge (sweep_merge.c). */
int sweep_merge_main(int argc, char **argv);
int sweep_write_json(const struct sweep *s, FILE *f, struct gpuvm_error *err);
int sweep_write_plot(const struct sweep *s, const char *path, struct gpuvm_error *err);
/* Whether METRIC names a column of this result (flattened or derived). */
bool sweep_has_metric(const cJSON *result, const char *metric);
/* Whether --x names a plottable dimension ("gpu" or a varied key). */
bool sweep_has_dimension(const struct sweep *s, const char *key);

#endif
