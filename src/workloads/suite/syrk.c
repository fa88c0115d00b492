/* syrk: PolyBench/GPU SYRK, C = alpha A A^T + beta C on n x n float
 * matrices (one kernel of 32 x 8 blocks, syrk_kernels.h). */
#include <stdlib.h>

#include "workloads/suite/suite.h"
#include "workloads/suite/syrk_kernels.h"

/* PolyBench 2.0's constants, as syrk.cu's init_arrays sets them */
#define SYRK_ALPHA 32412.0f
#define SYRK_BETA 2123.0f

static int syrk_host(struct simt_host *h, void *user)
{
	const struct suite_square_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *A = simt_malloc(h, "A", bytes, c->o.mem);
	float *C = simt_malloc(h, "C", bytes, c->o.mem);
	if (!A || !C)
		return -1;
	float *ref = c->o.verify ? malloc(bytes) : NULL;
	if (c->o.verify && !ref)
		return simt_fail(h, "out of memory for the reference");
	/* syrk.cu init_arrays (NI = NJ = n) */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			A[i * n + j] = C[i * n + j] = (float)(i * j) / (float)n;
	if (ref) /* the CPU reference, in the kernel's order of operations */
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < n; j++) {
				float acc = C[i * n + j] * SYRK_BETA;
				for (uint64_t k = 0; k < n; k++)
					acc += SYRK_ALPHA * A[i * n + k] * A[j * n + k];
				ref[i * n + j] = acc;
			}
	struct syrk_args a = {A, C, (int)n, SYRK_ALPHA, SYRK_BETA};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), suite_div_up(n, 8), 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, 8, 1);
	int rc = simt_upload(h, A, bytes) || simt_upload(h, C, bytes) ||
		 SIMT_LAUNCH(h, syrk_kernel, grid, block, a) || simt_download(h, C, bytes);
	if (!rc) {
		double err = ref ? suite_max_rel_err_f32(C, ref, n * n) : 0;
		suite_result(h, &c->o, suite_digest(C, bytes), err < 1e-4, err, NULL);
		simt_work_items(h, n * n * n);
	}
	free(ref);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def syrk_params[] = {
	{"n", GPUVM_PARAM_U64, "1024", "matrix side (NI = NJ; syrk.cuh STANDARD_DATASET: 1024)"},
	SUITE_SQUARE_PARAMS,
};

static int syrk_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		       struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	return suite_square_source("syrk", syrk_host, 1024, p, out, err);
}

static const struct gpuvm_param_range syrk_ranges[] = {
	SUITE_SQUARE_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_syrk = {
	.name = "syrk",
	.summary = "SYRK: C = alpha A A^T + beta C, a thread per element (PolyBench/GPU, 32 x 8 blocks)",
	.working_set = "8 B x n^2 (n=32768: 8 GiB)",
	.params = syrk_params,
	.n_params = sizeof syrk_params / sizeof syrk_params[0],
	GPUVM_WORKLOAD_RANGES(syrk_ranges),
	.create = syrk_create,
};
