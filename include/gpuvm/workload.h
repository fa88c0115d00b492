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

/* A numeric parameter's own accepted range (else its type's default). */
struct gpuvm_param_range {
	const char *key;
	double min, max;
};

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
