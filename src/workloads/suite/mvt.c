/* mvt: PolyBench/GPU MVT, x1 += A y1 and x2 += A^T y2 on an n x n float
 * matrix (two kernels of block_x x block_y blocks, mvt_kernels.h). */
#include <stdlib.h>

#include "workloads/suite/mvt_kernels.h"
#include "workloads/suite/suite.h"

static int mvt_host(struct simt_host *h, void *user)
{
	const struct suite_pb_mv_cfg *c = user;
	uint64_t n = c->n, vec = n * sizeof(float);
	float *A = simt_malloc(h, "A", n * vec, c->o.mem);
	float *x1 = simt_malloc(h, "x1", vec, c->o.mem);
	float *x2 = simt_malloc(h, "x2", vec, c->o.mem);
	float *y1 = simt_malloc(h, "y1", vec, c->o.mem);
	float *y2 = simt_malloc(h, "y2", vec, c->o.mem);
	if (!A || !x1 || !x2 || !y1 || !y2)
		return -1;
	float *r1 = c->o.verify ? malloc(vec) : NULL, *r2 = c->o.verify ? malloc(vec) : NULL;
	if (c->o.verify && (!r1 || !r2)) {
		free(r1);
		free(r2);
		return simt_fail(h, "out of memory for the reference");
	}
	/* mvt.cu init_array */
	for (uint64_t i = 0; i < n; i++) {
		x1[i] = (float)i / (float)n;
		x2[i] = (float)(i + 1) / (float)n;
		y1[i] = (float)(i + 3) / (float)n;
		y2[i] = (float)(i + 4) / (float)n;
		for (uint64_t j = 0; j < n; j++)
			A[i * n + j] = (float)(i * j) / (float)n;
	}
	if (r1) /* the CPU reference, in the kernels' order of operations */
		for (uint64_t i = 0; i < n; i++) {
			float s1 = x1[i], s2 = x2[i];
			for (uint64_t j = 0; j < n; j++) {
				s1 += A[i * n + j] * y1[j];
				s2 += A[j * n + i] * y2[j];
			}
			r1[i] = s1;
			r2[i] = s2;
		}
	struct mvt_args a = {A, y1, y2, x1, x2, (int)n};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), 1, 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, (uint32_t)c->block_y, 1);
	int rc = simt_upload(h, A, n * vec) || simt_upload(h, x1, vec) || simt_upload(h, x2, vec) ||
		 simt_upload(h, y1, vec) || simt_upload(h, y2, vec);
	for (uint64_t r = 0; r < c->o.launches && !rc; r++)
		rc = SIMT_LAUNCH(h, mvt_kernel1, grid, block, a) ||
		     SIMT_LAUNCH(h, mvt_kernel2, grid, block, a);
	rc = rc || simt_download(h, x1, vec) || simt_download(h, x2, vec);
	if (!rc) {
		double e1 = r1 ? suite_max_rel_err_f32(x1, r1, n) : 0;
		double e2 = r2 ? suite_max_rel_err_f32(x2, r2, n) : 0;
		double err = e1 > e2 ? e1 : e2;
		uint64_t d = suite_digest(x1, vec) ^ (suite_digest(x2, vec) * 31);
		suite_result(h, &c->o, d, err < 1e-4, err, NULL);
		simt_work_items(h, 2 * n * n * c->o.launches);
	}
	free(r1);
	free(r2);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def mvt_params[] = {SUITE_PB_MV_PARAMS("32", "8")};

static int mvt_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	return suite_pb_mv_source("mvt", mvt_host, 32, 8, p, out, err);
}

static const struct gpuvm_param_range mvt_ranges[] = {
	SUITE_PB_MV_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_mvt = {
	.name = "mvt",
	.summary = "MVT: x1 += A y1, x2 += A^T y2, a thread per element (PolyBench/GPU, 32 x 8 blocks)",
	.working_set = "4 B x n^2 + 16 B x n (n=46341: 8 GiB)",
	.params = mvt_params,
	.n_params = sizeof mvt_params / sizeof mvt_params[0],
	GPUVM_WORKLOAD_RANGES(mvt_ranges),
	.constraints = SUITE_PB_MV_CONSTRAINTS,
	.create = mvt_create,
};
