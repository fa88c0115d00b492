/* 2mm: PolyBench/GPU 2MM, D = alpha A B C + beta D on n x n float
 * matrices (two kernels of 32 x 8 blocks, mm2_kernels.h). */
#include <stdlib.h>

#include "workloads/suite/mm2_kernels.h"
#include "workloads/suite/suite.h"

/* PolyBench 2.0's constants, as 2mm.cu's init_array sets them */
#define MM2_ALPHA 32412.0f
#define MM2_BETA 2123.0f

static int mm2_host(struct simt_host *h, void *user)
{
	const struct suite_square_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *A = simt_malloc(h, "A", bytes, c->o.mem);
	float *B = simt_malloc(h, "B", bytes, c->o.mem);
	float *C = simt_malloc(h, "C", bytes, c->o.mem);
	float *D = simt_malloc(h, "D", bytes, c->o.mem);
	float *tmp = simt_malloc(h, "tmp", bytes, c->o.mem);
	if (!A || !B || !C || !D || !tmp)
		return -1;
	float *rt = c->o.verify ? malloc(bytes) : NULL, *rd = c->o.verify ? malloc(bytes) : NULL;
	if (c->o.verify && (!rt || !rd)) {
		free(rt);
		free(rd);
		return simt_fail(h, "out of memory for the reference");
	}
	/* 2mm.cu init_array (NI = NJ = NK = NL = n) */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++) {
			A[i * n + j] = (float)(i * j) / (float)n;
			B[i * n + j] = (float)(i * (j + 1)) / (float)n;
			C[i * n + j] = (float)(i * (j + 3)) / (float)n;
			D[i * n + j] = (float)(i * (j + 2)) / (float)n;
		}
	if (rt) { /* the CPU reference, in the kernels' order of operations */
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < n; j++) {
				float acc = 0;
				for (uint64_t k = 0; k < n; k++)
					acc += MM2_ALPHA * A[i * n + k] * B[k * n + j];
				rt[i * n + j] = acc;
			}
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < n; j++) {
				float acc = D[i * n + j] * MM2_BETA;
				for (uint64_t k = 0; k < n; k++)
					acc += rt[i * n + k] * C[k * n + j];
				rd[i * n + j] = acc;
			}
	}
	struct mm2_args a = {A, B, C, tmp, D, (int)n, MM2_ALPHA, MM2_BETA};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), suite_div_up(n, 8), 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, 8, 1);
	int rc = simt_upload(h, A, bytes) || simt_upload(h, B, bytes) || simt_upload(h, C, bytes) ||
		 simt_upload(h, D, bytes) || SIMT_LAUNCH(h, mm2_kernel1, grid, block, a) ||
		 SIMT_LAUNCH(h, mm2_kernel2, grid, block, a) || simt_download(h, D, bytes);
	if (!rc) {
		double err = rd ? suite_max_rel_err_f32(D, rd, n * n) : 0;
		suite_result(h, &c->o, suite_digest(D, bytes), err < 1e-4, err, NULL);
		simt_work_items(h, 2 * n * n * n);
	}
	free(rt);
	free(rd);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def mm2_params[] = {
	{"n", GPUVM_PARAM_U64, "1024", "matrix side (NI = NJ = NK = NL; 2mm.cuh STANDARD_DATASET: 1024)"},
	SUITE_SQUARE_PARAMS,
};

static int mm2_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	return suite_square_source("2mm", mm2_host, 1024, p, out, err);
}

static const struct gpuvm_param_range mm2_ranges[] = {
	SUITE_SQUARE_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_mm2 = {
	.name = "2mm",
	.summary = "2MM: D = alpha A B C + beta D, two products (PolyBench/GPU, 32 x 8 blocks)",
	.working_set = "20 B x n^2 (n=20724: 8 GiB)",
	.params = mm2_params,
	.n_params = sizeof mm2_params / sizeof mm2_params[0],
	GPUVM_WORKLOAD_RANGES(mm2_ranges),
	.create = mm2_create,
};
