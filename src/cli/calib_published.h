/* The published microbenchmark table gpuvm calibrate compares with
 * (validation/microbench.tsv): one row per GPU and quantity, with the
 * value measured on the real GPU, its unit, source and convention.
 *
 * Owns: nothing after pub_load returns: the caller frees the table's text
 * and rows (free(t->rows), free(t->text)), also after a failed load. May
 * call: the C library and gpuvm_fail. Guarantees: pub_load accepts only a
 * table whose every row has the six columns, a number or "none published"
 * as its value and a source for every number; an error names the file and
 * line. */
#ifndef GPUVM_CLI_CALIB_PUBLISHED_H
#define GPUVM_CLI_CALIB_PUBLISHED_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/error.h"

struct pub {
	char *gpu, *quantity, *value, *unit, *source, *convention;
	double v;
	bool have;
};

struct pub_table {
	const char *path;
	char *text;
	struct pub *rows;
	size_t n;
};

/* Reads the table at path; 0, or -1 with err set. */
int pub_load(struct pub_table *t, const char *path, struct gpuvm_error *err);
/* The row of gpu and quantity q, or NULL. */
const struct pub *pub_find(const struct pub_table *t, const char *gpu, const char *q);

#endif
