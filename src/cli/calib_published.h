/* The published microbenchmark table gpuvm calibrate compares with
 * (validation/microbench.tsv): one row per GPU and quantity, with the
 * value measured on the real GPU, its unit, source and convention.
 *
 * Owns: nothing after pub_load returns: the caller frees the table's text
 * and rows (free(t->rows), free(t->text)), also after a failed load. May
 * call: the C library, gpuvm_fail and the registry of quantities
 * (calib_quantities.h). Guarantees: pub_load accepts only a
 * table whose every row has the six columns, a number or "none published"
 * as its value and a source for every number, and no gpu and quantity twice
 * from one source (several sources may give one quantity; a "none
 * published" row stands alone); an error names the file and line.
 *
 * An optional seventh column, role, says what a published row is evidence
 * of: "calibration" (a preset parameter was set from this measurement or
 * from the same source) or "validation" (nothing was). Where the table has
 * the column a published row needs a role and a "none published" row has
 * none; a table without it (a user's own measurements, from which no
 * preset was set) has every published row as validation.
 *
 * An optional column, at, is where the row was measured when calibrate
 * must run its own measurement at the same point: a size ("29207KiB", the
 * footprint of a published chase); empty or "-" elsewhere. */
#ifndef GPUVM_CLI_CALIB_PUBLISHED_H
#define GPUVM_CLI_CALIB_PUBLISHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/error.h"

enum pub_role { PUB_ROLE_NONE, PUB_ROLE_CALIBRATION, PUB_ROLE_VALIDATION };

struct pub {
	char *gpu, *quantity, *value, *unit, *source, *convention;
	enum pub_role role;
	uint64_t at_bytes; /* the at column; 0: not given */
	double v;
	bool have;
	int line; /* of the table, for messages */
};

struct pub_table {
	const char *path;
	char *text;
	struct pub *rows;
	size_t n;
};

/* Reads the table at path; 0, or -1 with err set. */
int pub_load(struct pub_table *t, const char *path, struct gpuvm_error *err);
/* Every row names a GPU calibrate knows and a quantity it measures (issue
 * 79: a row with a typo was read and never compared): after the run, a row
 * whose gpu is neither a shipped preset nor one of gpus[0..n_gpus), or
 * whose gpu was calibrated (calibrated[i]) but whose quantity no measured
 * row took (used[row] false), is an error naming the file and line.
 * used NULL (before the run): the GPUs, and the quantity of each row of a
 * calibrated GPU is in the registry (calib_quantities.h) and not a curve,
 * else an error with the registry's closest name.
 * 0, or -1 with err set. */
int pub_check_rows(const struct pub_table *t, const char *const *gpus, size_t n_gpus,
		   const bool *used, struct gpuvm_error *err);
/* "calibration", "validation" or "" (no published value). */
const char *pub_role_name(enum pub_role role);
/* The row of gpu and quantity q, or NULL. */
const struct pub *pub_find(const struct pub_table *t, const char *gpu, const char *q);
/* The next row of the same gpu and quantity as after (a quantity may have
 * several published values, from different sources), or NULL. */
const struct pub *pub_find_next(const struct pub_table *t, const struct pub *after);

#endif
