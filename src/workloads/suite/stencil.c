/* stencil: Parboil 7-point 3-D Jacobi stencil, iterated with buffer swap. */
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/stencil_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct stencil_cfg {
	uint64_t nx, ny, nz, iters, seed;
	struct suite_opts o;
};

/* Parboil stencil main.c: c0 = 1/6, c1 = 1/6/6. */
#define STENCIL_C0 (1.0f / 6.0f)
#define STENCIL_C1 (1.0f / 6.0f / 6.0f)

static void stencil_ref_step(const float *a0, float *an, uint64_t nx, uint64_t ny, uint64_t nz)
{
	uint64_t plane = nx * ny;
	for (uint64_t k = 1; k + 1 < nz; k++)
		for (uint64_t j = 1; j + 1 < ny; j++)
			for (uint64_t i = 1; i + 1 < nx; i++) {
				uint64_t c = i + nx * j + plane * k;
				float v = a0[c + plane];
				v += a0[c - plane];
				v += a0[c + nx];
				v += a0[c - nx];
				v += a0[c + 1];
				v += a0[c - 1];
				an[c] = v * STENCIL_C1 - a0[c] * STENCIL_C0;
			}
}

static int stencil_host(struct simt_host *h, void *user)
{
	const struct stencil_cfg *c = user;
	uint64_t cells = c->nx * c->ny * c->nz, bytes = cells * sizeof(float);
	float *a0 = simt_malloc(h, "A0", bytes, c->o.mem);
	float *an = simt_malloc(h, "Anext", bytes, c->o.mem);
	if (!a0 || !an)
		return -1;
	for (uint64_t i = 0; i < cells; i++)
		a0[i] = (float)(splitmix64(c->seed + i) >> 40) / (float)(1 << 24);
	memcpy(an, a0, bytes); /* Parboil copies A0 to Anext: boundaries stay */
	float *r0 = NULL, *r1 = NULL;
	if (c->o.verify) {
		r0 = malloc(bytes);
		r1 = malloc(bytes);
		if (!r0 || !r1) {
			free(r0);
			free(r1);
			return simt_fail(h, "out of memory for the reference");
		}
		memcpy(r0, a0, bytes);
		memcpy(r1, a0, bytes);
	}
	int rc = -1;
	if (simt_upload(h, a0, bytes) || simt_upload(h, an, bytes))
		goto out;
	struct simt_dim3 grid = simt_dim3(suite_div_up(c->nx, 32), suite_div_up(c->ny, 4), 1);
	for (uint64_t t = 0; t < c->iters; t++) {
		struct stencil_args a = {a0, an, (int)c->nx, (int)c->ny, (int)c->nz, STENCIL_C0,
					 STENCIL_C1};
		if (SIMT_LAUNCH(h, stencil_kernel, grid, simt_dim3(32, 4, 1), a))
			goto out;
		float *s = a0;
		a0 = an;
		an = s;
	}
	if (simt_download(h, a0, bytes))
		goto out;
	double err = 0;
	if (r0) {
		for (uint64_t t = 0; t < c->iters; t++) {
			stencil_ref_step(r0, r1, c->nx, c->ny, c->nz);
			float *s = r0;
			r0 = r1;
			r1 = s;
		}
		err = suite_max_rel_err_f32(a0, r0, cells);
	}
	suite_result(h, &c->o, suite_digest(a0, bytes), err < 1e-5, err, NULL);
	simt_work_items(h, cells * c->iters);
	rc = 0;
out:
	free(r0);
	free(r1);
	return rc;
}

static const struct gpuvm_param_def stencil_params[] = {
	{"nx", GPUVM_PARAM_U64, "512", "grid x; UVMSmart: 512x512x64"},
	{"ny", GPUVM_PARAM_U64, "512", "grid y"},
	{"nz", GPUVM_PARAM_U64, "64", "grid z"},
	{"iters", GPUVM_PARAM_U64, "10", "iterations; UVMSmart: 10"},
	SUITE_COMMON_PARAMS,
};

static int stencil_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			  uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct stencil_cfg c = {.nx = 512, .ny = 512, .nz = 64, .iters = 10, .seed = seed};
	if (gpuvm_params_u64(p, "nx", &c.nx, err) < 0 || gpuvm_params_u64(p, "ny", &c.ny, err) < 0 ||
	    gpuvm_params_u64(p, "nz", &c.nz, err) < 0 ||
	    gpuvm_params_u64(p, "iters", &c.iters, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	if (c.nx * c.ny * c.nz > (1ull << 34))
		return gpuvm_params_constraint(err, "nx", "nx x ny x nz at most 2^34");
	struct stencil_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("stencil", stencil_host, u, free, out, err);
}

static const struct gpuvm_param_range stencil_ranges[] = {
	GPUVM_RANGE("nx", 3, 1u << 16),
	GPUVM_RANGE("ny", 3, 1u << 16),
	GPUVM_RANGE("nz", 3, 1u << 16),
	GPUVM_RANGE("iters", 1, 1u << 20),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_stencil = {
	.name = "stencil",
	.summary = "Parboil stencil: 7-point 3-D Jacobi, a thread per (x,y) column walking z",
	.working_set = "8 B x nx*ny*nz (1024x1024x1024: 8 GiB)",
	.params = stencil_params,
	.n_params = sizeof stencil_params / sizeof stencil_params[0],
	GPUVM_WORKLOAD_RANGES(stencil_ranges),
	.constraints = "nx x ny x nz at most 2^34",
	.create = stencil_create,
};
