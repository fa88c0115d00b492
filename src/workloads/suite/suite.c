#include "workloads/suite/suite.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int suite_opts_parse(const struct gpuvm_params *p, struct suite_opts *o, struct gpuvm_error *err)
{
	o->mem = GPUVM_ALLOC_DEVICE;
	o->verify = 0;
	static const enum gpuvm_alloc_kind kinds[] = {GPUVM_ALLOC_DEVICE, GPUVM_ALLOC_MANAGED,
						       GPUVM_ALLOC_HOST_PINNED, GPUVM_ALLOC_SYSTEM};
	unsigned i = 0;
	if (gpuvm_params_choice(p, "mem", "device|managed|pinned|system", &i, err) < 0)
		return -1;
	o->mem = kinds[i];
	uint64_t v = 0;
	if (gpuvm_params_u64(p, "verify", &v, err) < 0)
		return -1;
	o->verify = (int)v;
	o->launches = 1;
	if (gpuvm_params_u64(p, "launches", &o->launches, err) < 0)
		return -1;
	/* the references check one run; mvt and gemm accumulate into their
	 * outputs, so N runs have another answer */
	if (o->verify && o->launches > 1)
		return gpuvm_params_constraint(err, "verify",
					       "checks one run of the kernels: give launches=1 with "
					       "verify=1");
	return 0;
}

int suite_check_block_2d(uint64_t block_x, uint64_t block_y, struct gpuvm_error *err)
{
	if (block_x * block_y > 1024)
		return gpuvm_params_constraint(err, "block_y",
					       "block_x x block_y at most 1024 (here %llu x %llu)",
					       (unsigned long long)block_x, (unsigned long long)block_y);
	return 0;
}

uint64_t suite_digest(const void *data, uint64_t bytes)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint64_t i = 0; i < bytes; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

double suite_max_rel_err_f32(const float *got, const float *want, uint64_t n)
{
	double m = 0;
	for (uint64_t i = 0; i < n; i++) {
		double d = fabs((double)got[i] - (double)want[i]);
		double s = fabs((double)want[i]);
		d /= s > 1 ? s : 1;
		if (!(d <= m)) /* NaN counts as an error */
			m = isnan(d) ? INFINITY : d;
	}
	return m;
}

double suite_max_rel_err_f64(const double *got, const double *want, uint64_t n)
{
	double m = 0;
	for (uint64_t i = 0; i < n; i++) {
		double d = fabs(got[i] - want[i]);
		double s = fabs(want[i]);
		d /= s > 1 ? s : 1;
		if (!(d <= m))
			m = isnan(d) ? INFINITY : d;
	}
	return m;
}

void suite_result(struct simt_host *h, const struct suite_opts *o, uint64_t digest, int checked_ok,
		  double max_err, const char *extra)
{
	char v[96] = "";
	if (o->verify)
		snprintf(v, sizeof v, " verify=%s max_err=%.3g", checked_ok ? "pass" : "FAIL",
			 max_err);
	simt_result(h, "digest=%016llx%s%s%s", (unsigned long long)digest, v,
		    extra && *extra ? " " : "", extra ? extra : "");
}

int suite_pb_mv_source(const char *name, int (*host)(struct simt_host *, void *),
		       uint64_t default_block_x, uint64_t default_block_y, const struct gpuvm_params *p,
		       struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct suite_pb_mv_cfg c = {.n = 4096, .block_x = default_block_x, .block_y = default_block_y};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "block_x", &c.block_x, err) < 0 ||
	    gpuvm_params_u64(p, "block_y", &c.block_y, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	if (suite_check_block_2d(c.block_x, c.block_y, err))
		return -1;
	if (c.o.verify && c.block_y != 1)
		return gpuvm_params_constraint(err, "verify",
				  "needs block_y=1: the %llu rows of threads of a block work on the same "
				  "elements and their stores race, as on the GPU, so no one result is right",
				  (unsigned long long)c.block_y);
	struct suite_pb_mv_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source(name, host, u, free, out, err);
}

int suite_square_source(const char *name, int (*host)(struct simt_host *, void *),
			uint64_t default_n, const struct gpuvm_params *p,
			struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct suite_square_cfg c = {.n = default_n, .block_x = 32};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "block_x", &c.block_x, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct suite_square_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source(name, host, u, free, out, err);
}
