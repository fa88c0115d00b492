/* Shared pieces of the benchmark-suite workloads written on the SIMT
 * executor: the common parameters (mem=, verify=), result formatting and
 * output comparison against the plain CPU references. */
#ifndef GPUVM_SUITE_H
#define GPUVM_SUITE_H

#include <stdint.h>

#include "gpuvm/simt.h"
#include "gpuvm/workload.h"

/* Every suite workload takes these two after its own parameters. */
#define SUITE_COMMON_PARAMS                                                               \
	{"mem", GPUVM_PARAM_CHOICE, "device|managed|pinned",                              \
	 "allocation kind of the kernel data: device, managed (cudaMallocManaged) or pinned"}, \
	{"verify", GPUVM_PARAM_U64, "0",                                                  \
	 "1: also run the plain CPU reference and report verify=pass or verify=FAIL"}

struct suite_opts {
	enum gpuvm_alloc_kind mem;
	int verify;
};

/* Reads mem= and verify=; fails with a message naming the bad value. */
int suite_opts_parse(const struct gpuvm_params *p, struct suite_opts *o, struct gpuvm_error *err);

/* Checks a size parameter n lies in [lo, hi] (messages name the key). */
int suite_check_range(const char *key, uint64_t n, uint64_t lo, uint64_t hi,
		      struct gpuvm_error *err);

/* FNV-1a over bytes: the output digest in results. */
uint64_t suite_digest(const void *data, uint64_t bytes);

/* Largest relative difference |a-b| / max(1, |b|) over n floats. */
double suite_max_rel_err_f32(const float *got, const float *want, uint64_t n);
double suite_max_rel_err_f64(const double *got, const double *want, uint64_t n);

/* Sets the result "digest=... [verify=pass|FAIL max_err=...]" with extra text. */
void suite_result(struct simt_host *h, const struct suite_opts *o, uint64_t digest, int checked_ok,
		  double max_err, const char *extra);

/* ceil(a / b) */
static inline uint32_t suite_div_up(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

#endif
