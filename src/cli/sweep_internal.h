/* `gpuvm sweep` internals: the grid (sweep_grid.c), running its points in
 * worker processes (cmd_sweep.c), and writing table / CSV / JSON / figure
 * (sweep_output.c). */
#ifndef GPUVM_CLI_SWEEP_INTERNAL_H
#define GPUVM_CLI_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "gpuvm/error.h"
#include "gpuvm/run.h"

#define SWEEP_MAX_VARY 8
#define SWEEP_MAX_GPUS 64
#define SWEEP_MAX_POINTS 100000
#define SWEEP_MAX_RANGE 4096

enum sweep_vary_kind { VARY_CONFIG, VARY_WORKLOAD, VARY_SEED };

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
	const char *workload;
	struct sweep_vary vary[SWEEP_MAX_VARY];
	size_t n_vary;
	const char *sets[GPUVM_MAX_SETS];
	int n_sets;
	uint64_t seed;
	bool kernel_sampling;             /* --kernel-sampling[=TOL] */
	double kernel_sampling_tolerance; /* 0: the default */
	long jobs;
	const char *csv, *json, *plot;
	const char *x, *y, *title;
	bool quiet, logx, logy;
	bool force; /* past the work cap (gpuvm_run_check_work) */

	/* grid */
	size_t n_points;
	cJSON **results; /* per point, grid order */
};

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
#define SWEEP_SPEC_OWNED (GPUVM_MAX_SETS + 2)

/* Parses "KEY=V1,V2,LO..HI*F,..." into v. */
int sweep_vary_parse(struct sweep_vary *v, const char *arg, struct gpuvm_error *err);
void sweep_vary_free(struct sweep_vary *v);

/* Checks every point (preset, overrides, workload spec) without simulating. */
int sweep_validate(struct sweep *s, struct gpuvm_error *err);

/* Adds a "point" object to result: index, gpu, workload, seed, vary. */
void sweep_annotate(const struct sweep *s, size_t i, cJSON *result);

/* Output. Each writer returns 0, or -1 with err set. */
void sweep_print_table(const struct sweep *s, FILE *out);
int sweep_write_csv(const struct sweep *s, FILE *f, struct gpuvm_error *err);
int sweep_write_json(const struct sweep *s, FILE *f, struct gpuvm_error *err);
int sweep_write_plot(const struct sweep *s, const char *path, struct gpuvm_error *err);
/* Whether METRIC names a column of this result (flattened or derived). */
bool sweep_has_metric(const cJSON *result, const char *metric);
/* Whether --x names a plottable dimension ("gpu" or a varied key). */
bool sweep_has_dimension(const struct sweep *s, const char *key);

#endif
