/* fdtd-2d: PolyBench/GPU 2-D finite-difference time domain, n x n. */
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/fdtd2d_kernels.h"
#include "workloads/suite/suite.h"

struct fdtd_cfg {
	uint64_t n, steps;
	struct suite_opts o;
};

static void fdtd_init(float *fict, float *ex, float *ey, float *hz, uint64_t n, uint64_t steps)
{
	/* PolyBench init_arrays */
	for (uint64_t t = 0; t < steps; t++)
		fict[t] = (float)t;
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j <= n; j++)
			ex[i * (n + 1) + j] = ((float)i * (float)(j + 1) + 1) / (float)n;
	for (uint64_t i = 0; i <= n; i++)
		for (uint64_t j = 0; j < n; j++)
			ey[i * n + j] = (((float)i - 1) * (float)(j + 2) + 2) / (float)n;
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			hz[i * n + j] = ((float)i * (float)(j + 3) + 3) / (float)n;
}

static void fdtd_reference(const float *fict, float *ex, float *ey, float *hz, uint64_t n,
			   uint64_t steps)
{
	for (uint64_t t = 0; t < steps; t++) {
		for (uint64_t j = 0; j < n; j++)
			ey[j] = fict[t];
		for (uint64_t i = 1; i < n; i++)
			for (uint64_t j = 0; j < n; j++)
				ey[i * n + j] = ey[i * n + j] - 0.5f * (hz[i * n + j] - hz[(i - 1) * n + j]);
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 1; j < n; j++)
				ex[i * (n + 1) + j] = ex[i * (n + 1) + j] -
						      0.5f * (hz[i * n + j] - hz[i * n + j - 1]);
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < n; j++)
				hz[i * n + j] = hz[i * n + j] -
						0.7f * (ex[i * (n + 1) + j + 1] - ex[i * (n + 1) + j] +
							ey[(i + 1) * n + j] - ey[i * n + j]);
	}
}

static int fdtd_host(struct simt_host *h, void *user)
{
	const struct fdtd_cfg *c = user;
	uint64_t n = c->n;
	uint64_t bx = n * (n + 1) * sizeof(float), bh = n * n * sizeof(float);
	float *fict = simt_malloc(h, "fict", c->steps * sizeof(float), c->o.mem);
	float *ex = simt_malloc(h, "ex", bx, c->o.mem);
	float *ey = simt_malloc(h, "ey", bx, c->o.mem);
	float *hz = simt_malloc(h, "hz", bh, c->o.mem);
	if (!fict || !ex || !ey || !hz)
		return -1;
	fdtd_init(fict, ex, ey, hz, n, c->steps);
	float *r = NULL;
	if (c->o.verify) { /* the reference starts from the same inputs */
		r = malloc(2 * bx + bh + c->steps * sizeof(float));
		if (!r)
			return simt_fail(h, "out of memory for the reference");
		memcpy(r, ex, bx);
		memcpy(r + n * (n + 1), ey, bx);
		memcpy(r + 2 * n * (n + 1), hz, bh);
	}
	if (simt_upload(h, fict, c->steps * sizeof(float)) || simt_upload(h, ex, bx) ||
	    simt_upload(h, ey, bx) || simt_upload(h, hz, bh)) {
		free(r);
		return -1;
	}
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, 32), suite_div_up(n, 8), 1);
	struct simt_dim3 block = simt_dim3(32, 8, 1);
	for (uint64_t t = 0; t < c->steps; t++) {
		struct fdtd_args a = {fict, ex, ey, hz, (int)n, (int)n, (int)t};
		if (SIMT_LAUNCH(h, fdtd_step1_kernel, grid, block, a) ||
		    SIMT_LAUNCH(h, fdtd_step2_kernel, grid, block, a) ||
		    SIMT_LAUNCH(h, fdtd_step3_kernel, grid, block, a)) {
			free(r);
			return -1;
		}
	}
	if (simt_download(h, hz, bh)) {
		free(r);
		return -1;
	}
	double err = 0;
	if (r) {
		fdtd_reference(fict, r, r + n * (n + 1), r + 2 * n * (n + 1), n, c->steps);
		err = suite_max_rel_err_f32(hz, r + 2 * n * (n + 1), n * n);
		free(r);
	}
	suite_result(h, &c->o, suite_digest(hz, bh), err < 1e-5, err, NULL);
	simt_work_items(h, n * n * c->steps);
	return 0;
}

static const struct gpuvm_param_def fdtd_params[] = {
	{"n", GPUVM_PARAM_U64, "1200", "grid side (NX = NY); UVMSmart: 1200"},
	{"steps", GPUVM_PARAM_U64, "5", "time steps (TMAX); UVMSmart: 5"},
	SUITE_COMMON_PARAMS,
};

static int fdtd_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		       uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct fdtd_cfg c = {.n = 1200, .steps = 5};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "steps", &c.steps, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct fdtd_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("fdtd-2d", fdtd_host, u, free, out, err);
}

static const struct gpuvm_param_range fdtd2d_ranges[] = {
	GPUVM_RANGE("n", 2, 1u << 17),
	GPUVM_RANGE("steps", 1, 1u << 20),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_fdtd2d = {
	.name = "fdtd-2d",
	.summary = "PolyBench/GPU FDTD-2D: ey, ex, hz field updates, 3 kernels per time step",
	.working_set = "12 B x n^2 + 8 B x n (n=26755: 8 GiB)",
	.params = fdtd_params,
	.n_params = sizeof fdtd_params / sizeof fdtd_params[0],
	GPUVM_WORKLOAD_RANGES(fdtd2d_ranges),
	.create = fdtd_create,
};
