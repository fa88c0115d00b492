/* gesummv: PolyBench/GPU GESUMMV, y = alpha A x + beta B x on n x n
 * float matrices (one kernel of block_x x block_y blocks, gesummv_kernels.h). */
#include <stdlib.h>

#include "workloads/suite/gesummv_kernels.h"
#include "workloads/suite/suite.h"

/* PolyBench 2.0's constants, as gesummv.cu declares them */
#define GESUMMV_ALPHA 43532.0f
#define GESUMMV_BETA 12313.0f

static int gesummv_host(struct simt_host *h, void *user)
{
	const struct suite_pb_mv_cfg *c = user;
	uint64_t n = c->n, vec = n * sizeof(float);
	float *A = simt_malloc(h, "A", n * vec, c->o.mem);
	float *B = simt_malloc(h, "B", n * vec, c->o.mem);
	float *x = simt_malloc(h, "x", vec, c->o.mem);
	float *tmp = simt_malloc(h, "tmp", vec, c->o.mem);
	float *y = simt_malloc(h, "y", vec, c->o.mem);
	if (!A || !B || !x || !tmp || !y)
		return -1;
	float *ry = c->o.verify ? malloc(vec) : NULL;
	if (c->o.verify && !ry)
		return simt_fail(h, "out of memory for the reference");
	/* gesummv.cu init; tmp and y start at zero (the CPU version zeroes
	 * them, the GPU version copies the host's arrays) */
	for (uint64_t i = 0; i < n; i++) {
		x[i] = (float)i / (float)n;
		tmp[i] = y[i] = 0.0f;
		for (uint64_t j = 0; j < n; j++)
			A[i * n + j] = B[i * n + j] = (float)(i * j) / (float)n;
	}
	if (ry) /* the CPU reference, in the kernel's order of operations */
		for (uint64_t i = 0; i < n; i++) {
			float t = 0, yy = 0;
			for (uint64_t j = 0; j < n; j++) {
				t = A[i * n + j] * x[j] + t;
				yy = B[i * n + j] * x[j] + yy;
			}
			ry[i] = GESUMMV_ALPHA * t + GESUMMV_BETA * yy;
		}
	struct gesummv_args a = {A, B, x, tmp, y, (int)n, GESUMMV_ALPHA, GESUMMV_BETA};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), 1, 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, (uint32_t)c->block_y, 1);
	int rc = simt_upload(h, A, n * vec) || simt_upload(h, B, n * vec) || simt_upload(h, x, vec) ||
		 simt_upload(h, tmp, vec) || simt_upload(h, y, vec);
	for (uint64_t r = 0; r < c->o.launches && !rc; r++)
		rc = SIMT_LAUNCH(h, gesummv_kernel, grid, block, a);
	rc = rc || simt_download(h, y, vec);
	if (!rc) {
		double err = ry ? suite_max_rel_err_f32(y, ry, n) : 0;
		suite_result(h, &c->o, suite_digest(y, vec), err < 1e-4, err, NULL);
		simt_work_items(h, 2 * n * n * c->o.launches);
	}
	free(ry);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def gesummv_params[] = {SUITE_PB_MV_PARAMS("256", "1")};

static int gesummv_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			  uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	return suite_pb_mv_source("gesummv", gesummv_host, 256, 1, p, out, err);
}

static const struct gpuvm_param_range gesummv_ranges[] = {
	SUITE_PB_MV_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_gesummv = {
	.name = "gesummv",
	.summary = "GESUMMV: y = alpha A x + beta B x, a thread per row (PolyBench/GPU, 256 x 1 blocks)",
	.working_set = "8 B x n^2 + 12 B x n (n=32768: 8 GiB)",
	.params = gesummv_params,
	.n_params = sizeof gesummv_params / sizeof gesummv_params[0],
	GPUVM_WORKLOAD_RANGES(gesummv_ranges),
	.constraints = SUITE_PB_MV_CONSTRAINTS,
	.create = gesummv_create,
};
