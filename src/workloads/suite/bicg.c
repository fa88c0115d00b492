/* bicg: PolyBench/GPU BiCG's kernels, s = A^T r and q = A p on an n x n
 * float matrix (two kernels of block_x x block_y blocks, bicg_kernels.h). */
#include <stdlib.h>

#include "workloads/suite/bicg_kernels.h"
#include "workloads/suite/suite.h"

/* bicg.cu's M_PI fallback, the constant its init uses */
#define BICG_PI 3.14159f

static int bicg_host(struct simt_host *h, void *user)
{
	const struct suite_pb_mv_cfg *c = user;
	uint64_t n = c->n, vec = n * sizeof(float);
	float *A = simt_malloc(h, "A", n * vec, c->o.mem);
	float *r = simt_malloc(h, "r", vec, c->o.mem);
	float *s = simt_malloc(h, "s", vec, c->o.mem);
	float *pv = simt_malloc(h, "p", vec, c->o.mem);
	float *q = simt_malloc(h, "q", vec, c->o.mem);
	if (!A || !r || !s || !pv || !q)
		return -1;
	float *rs = c->o.verify ? calloc(n, sizeof *rs) : NULL;
	float *rq = c->o.verify ? calloc(n, sizeof *rq) : NULL;
	if (c->o.verify && (!rs || !rq)) {
		free(rs);
		free(rq);
		return simt_fail(h, "out of memory for the reference");
	}
	/* bicg.cu init_array (NX = NY = n) */
	for (uint64_t i = 0; i < n; i++) {
		pv[i] = (float)i * BICG_PI;
		r[i] = (float)i * BICG_PI;
		for (uint64_t j = 0; j < n; j++)
			A[i * n + j] = (float)(i * j) / (float)n;
	}
	if (rs) /* the CPU reference, in the kernels' order of operations */
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < n; j++) {
				rs[j] += r[i] * A[i * n + j];
				rq[i] += A[i * n + j] * pv[j];
			}
	struct bicg_args a = {A, r, pv, s, q, (int)n, (int)n};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), 1, 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, (uint32_t)c->block_y, 1);
	int rc = simt_upload(h, A, n * vec) || simt_upload(h, r, vec) || simt_upload(h, pv, vec);
	for (uint64_t k = 0; k < c->o.launches && !rc; k++)
		rc = SIMT_LAUNCH(h, bicg_kernel1, grid, block, a) ||
		     SIMT_LAUNCH(h, bicg_kernel2, grid, block, a);
	rc = rc || simt_download(h, s, vec) || simt_download(h, q, vec);
	if (!rc) {
		double e1 = rs ? suite_max_rel_err_f32(s, rs, n) : 0;
		double e2 = rq ? suite_max_rel_err_f32(q, rq, n) : 0;
		double err = e1 > e2 ? e1 : e2;
		uint64_t d = suite_digest(s, vec) ^ (suite_digest(q, vec) * 31);
		suite_result(h, &c->o, d, err < 1e-4, err, NULL);
		simt_work_items(h, 2 * n * n * c->o.launches);
	}
	free(rs);
	free(rq);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def bicg_params[] = {SUITE_PB_MV_PARAMS("256", "1")};

static int bicg_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		       struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	return suite_pb_mv_source("bicg", bicg_host, 256, 1, p, out, err);
}

static const struct gpuvm_param_range bicg_ranges[] = {
	SUITE_PB_MV_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_bicg = {
	.name = "bicg",
	.summary = "BiCG kernels: s = A^T r, q = A p, a thread per element (PolyBench/GPU, 256 x 1)",
	.working_set = "4 B x n^2 + 16 B x n (n=46341: 8 GiB)",
	.params = bicg_params,
	.n_params = sizeof bicg_params / sizeof bicg_params[0],
	GPUVM_WORKLOAD_RANGES(bicg_ranges),
	.constraints = SUITE_PB_MV_CONSTRAINTS,
	.create = bicg_create,
};
