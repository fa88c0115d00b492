/* gemm: PolyBench/GPU GEMM, C = alpha A B + beta C on n x n float matrices. */
#include <stdlib.h>

#include "workloads/suite/gemm_kernels.h"
#include "workloads/suite/suite.h"

/* PolyBench 2.0's constants, as gemm.cu declares them */
#define GEMM_ALPHA 32412.0f
#define GEMM_BETA 2123.0f

static int gemm_host(struct simt_host *h, void *user)
{
	const struct suite_square_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *A = simt_malloc(h, "A", bytes, c->o.mem);
	float *B = simt_malloc(h, "B", bytes, c->o.mem);
	float *C = simt_malloc(h, "C", bytes, c->o.mem);
	float *ref = c->o.verify ? malloc(bytes) : NULL;
	if (!A || !B || !C)
		return -1;
	if (c->o.verify && !ref)
		return simt_fail(h, "out of memory for the reference");
	/* PolyBench init: A[i][k] = i k / NI, B[k][j] = k j / NI, C[i][j] = i j / NI */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++) {
			float v = (float)(i * j) / (float)n;
			A[i * n + j] = B[i * n + j] = C[i * n + j] = v;
		}
	if (ref) /* the CPU reference, in the kernel's order of operations */
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < n; j++) {
				float acc = C[i * n + j] * GEMM_BETA;
				for (uint64_t k = 0; k < n; k++)
					acc += GEMM_ALPHA * A[i * n + k] * B[k * n + j];
				ref[i * n + j] = acc;
			}
	if (simt_upload(h, A, bytes) || simt_upload(h, B, bytes) || simt_upload(h, C, bytes)) {
		free(ref);
		return -1;
	}
	struct gemm_args a = {A, B, C, (int)n, (int)n, (int)n, GEMM_ALPHA, GEMM_BETA};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), suite_div_up(n, 8), 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, 8, 1);
	int rc = 0;
	for (uint64_t r = 0; r < c->o.launches && !rc; r++)
		rc = SIMT_LAUNCH(h, gemm_kernel, grid, block, a);
	if (rc || simt_download(h, C, bytes)) {
		free(ref);
		return -1;
	}
	double err = ref ? suite_max_rel_err_f32(C, ref, n * n) : 0;
	free(ref);
	suite_result(h, &c->o, suite_digest(C, bytes), err < 1e-4, err, NULL);
	simt_work_items(h, n * n * n * c->o.launches);
	return 0;
}

static const struct gpuvm_param_def gemm_params[] = {
	{"n", GPUVM_PARAM_U64, "512", "matrix side (NI = NJ = NK; PolyBench/GPU 1.0 gemm.cuh: 512)"},
	SUITE_SQUARE_PARAMS,
	SUITE_LAUNCHES_PARAM,
};

static int gemm_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		       struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	return suite_square_source("gemm", gemm_host, 512, p, out, err);
}

static const struct gpuvm_param_range gemm_ranges[] = {
	SUITE_SQUARE_RANGES,
	SUITE_LAUNCHES_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_gemm = {
	.name = "gemm",
	.summary = "GEMM: C = alpha A B + beta C, one thread per element (PolyBench/GPU, 32 x 8 blocks)",
	.working_set = "12 B x n^2 (n=26755: 8 GiB)",
	.params = gemm_params,
	.n_params = sizeof gemm_params / sizeof gemm_params[0],
	GPUVM_WORKLOAD_RANGES(gemm_ranges),
	.create = gemm_create,
};
