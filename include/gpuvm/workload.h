/* Workload registry: named generators of warp-instruction streams, each
 * with typed parameters ("random-sampling:region=4GiB,threads=8192"). */
#ifndef GPUVM_WORKLOAD_H
#define GPUVM_WORKLOAD_H

#include <stdint.h>
#include <stddef.h>

#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/stream.h"

#define GPUVM_MAX_PARAMS 16

enum gpuvm_param_type {
	GPUVM_PARAM_SIZE,
	GPUVM_PARAM_U64,
	GPUVM_PARAM_DOUBLE,
	GPUVM_PARAM_CHOICE, /* one of the '|'-separated words of default_text; the first is the default */
	GPUVM_PARAM_TEXT,   /* free text without commas: a word the workload checks itself
			     * (scope=auto|2GiB), a file path, a graph spec */
};

struct gpuvm_param_def {
	const char *key;
	enum gpuvm_param_type type;
	const char *default_text; /* NULL: derived from the GPU (see help) */
	const char *help;
};

/* A numeric parameter's own accepted values (else its type's default
 * range): min..max, and, where the kernel needs it, a multiple of step
 * or a power of two. This table is the only place a single parameter's
 * limits live: gpuvm_workload_parse enforces it, `gpuvm workloads`
 * prints it, and tests/test_workload_ranges.c walks it (a limit written
 * in a workload's create() instead fails scripts/check-workload-limits.py).
 * Limits that tie several parameters (rows x cols, block_x under a
 * variant) are the workload's `constraints`, checked in its create() with
 * gpuvm_params_constraint. */
struct gpuvm_param_range {
	const char *key;
	double min, max;
	uint64_t step;     /* 0 or 1: any integer; else a multiple of it */
	int power_of_two;  /* 1: a power of two */
};

#define GPUVM_RANGE(k, lo, hi) {(k), (lo), (hi), 0, 0}
#define GPUVM_RANGE_STEP(k, lo, hi, s) {(k), (lo), (hi), (s), 0}
#define GPUVM_RANGE_POW2(k, lo, hi) {(k), (lo), (hi), 0, 1}
/* .ranges and .n_ranges of a def from a static array */
#define GPUVM_WORKLOAD_RANGES(arr) .ranges = (arr), .n_ranges = sizeof(arr) / sizeof((arr)[0])

/* Parsed "key=value" pairs of one workload spec, checked against its defs. */
struct gpuvm_params {
	size_t n;
	char key[GPUVM_MAX_PARAMS][32];
	char value[GPUVM_MAX_PARAMS][256]; /* room for a file path */
};

struct gpuvm_workload_def {
	const char *name;
	const char *summary;
	const char *working_set; /* formula, for `gpuvm workloads` */
	const struct gpuvm_param_def *params;
	size_t n_params;
	const struct gpuvm_param_range *ranges; /* optional */
	size_t n_ranges;
	/* Limits between parameters, in words, for `gpuvm workloads` (NULL:
	 * none); create() checks them with gpuvm_params_constraint. */
	const char *constraints;
	int (*create)(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		      uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err);
	/* Optional: thread accesses the run will make, from its parameters
	 * alone (saturating at UINT64_MAX), so a run far past
	 * GPUVM_WORK_CAP_THREAD_ACCESSES is refused before it starts. */
	int (*estimate)(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			uint64_t *thread_accesses, struct gpuvm_error *err);
};

/* Runs estimated past this many thread accesses need --force: about 80
 * minutes at the simulator's 20 M thread accesses per CPU second (README,
 * bench), and 20x Karnagel's full 1.6 G-row group-by. */
#define GPUVM_WORK_CAP_THREAD_ACCESSES 1e11

extern const struct gpuvm_workload_def *const gpuvm_workloads[];
extern const size_t gpuvm_workloads_count;

const struct gpuvm_workload_def *gpuvm_workload_find(const char *name);

/* The range a numeric parameter accepts: the workload's own for it, or
 * its type's default, which refuses only values no GPU run could mean
 * (counts 0 .. 2^40; sizes 0 .. 2^49 bytes, a 49-bit GPU virtual address
 * space; numbers finite). */
void gpuvm_param_range(const struct gpuvm_workload_def *d, const struct gpuvm_param_def *pd,
		       double *min, double *max);
/* The workload's own range entry for pd (NULL: the type's default). */
const struct gpuvm_param_range *gpuvm_param_range_find(const struct gpuvm_workload_def *d,
						       const struct gpuvm_param_def *pd);
/* A limit that ties parameters failed: err names key and says "...";
 * returns -1. The only way a workload's create() refuses a value that
 * parsed (see struct gpuvm_param_range). */
int gpuvm_params_constraint(struct gpuvm_error *err, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Splits "name:k=v,k=v", finds the workload, checks keys and value syntax. */
int gpuvm_workload_parse(const char *spec, const struct gpuvm_workload_def **def,
			 struct gpuvm_params *params, struct gpuvm_error *err);

/* Typed lookups; return 1 if present, 0 if absent (out untouched), -1 on a
 * malformed value (err set, origin "--workload"). */
int gpuvm_params_size(const struct gpuvm_params *p, const char *key, uint64_t *out,
		      struct gpuvm_error *err);
int gpuvm_params_u64(const struct gpuvm_params *p, const char *key, uint64_t *out,
		     struct gpuvm_error *err);
/* The index of the value among choices ("a|b|c"); 1 present, 0 absent,
 * -1 not one of them. */
int gpuvm_params_choice(const struct gpuvm_params *p, const char *key, const char *choices,
			unsigned *index, struct gpuvm_error *err);
int gpuvm_params_double(const struct gpuvm_params *p, const char *key, double *out,
			struct gpuvm_error *err);
/* The raw value of key (NULL if absent); valid while p lives. */
const char *gpuvm_params_text(const struct gpuvm_params *p, const char *key);

#endif
