/* 3mm: PolyBench/GPU 3MM, G = (A B)(C D) on n x n float matrices (three
 * launches of mm3_kernel, 32 x 8 blocks, mm3_kernels.h). */
#include <stdlib.h>

#include "workloads/suite/mm3_kernels.h"
#include "workloads/suite/suite.h"

/* out = x y in the kernel's order of operations (the CPU reference) */
static void mm3_ref(const float *x, const float *y, float *out, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++) {
			float acc = 0;
			for (uint64_t k = 0; k < n; k++)
				acc += x[i * n + k] * y[k * n + j];
			out[i * n + j] = acc;
		}
}

static int mm3_host(struct simt_host *h, void *user)
{
	const struct suite_square_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *m[7];
	static const char *const names[7] = {"A", "B", "C", "D", "E", "F", "G"};
	for (int k = 0; k < 7; k++)
		if (!(m[k] = simt_malloc(h, names[k], bytes, c->o.mem)))
			return -1;
	float *A = m[0], *B = m[1], *C = m[2], *D = m[3], *E = m[4], *F = m[5], *G = m[6];
	float *r = c->o.verify ? malloc(3 * bytes) : NULL;
	if (c->o.verify && !r)
		return simt_fail(h, "out of memory for the reference");
	/* 3mm.cu init_array (NI = NJ = NK = NL = NM = n) */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++) {
			A[i * n + j] = (float)(i * j) / (float)n;
			B[i * n + j] = (float)(i * (j + 1)) / (float)n;
			C[i * n + j] = (float)(i * (j + 3)) / (float)n;
			D[i * n + j] = (float)(i * (j + 2)) / (float)n;
		}
	if (r) {
		mm3_ref(A, B, r, n);
		mm3_ref(C, D, r + n * n, n);
		mm3_ref(r, r + n * n, r + 2 * n * n, n);
	}
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), suite_div_up(n, 8), 1);
	struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, 8, 1);
	struct mm3_args ab = {A, B, E, (int)n}, cd = {C, D, F, (int)n}, ef = {E, F, G, (int)n};
	int rc = simt_upload(h, A, bytes) || simt_upload(h, B, bytes) || simt_upload(h, C, bytes) ||
		 simt_upload(h, D, bytes) || SIMT_LAUNCH(h, mm3_kernel, grid, block, ab) ||
		 SIMT_LAUNCH(h, mm3_kernel, grid, block, cd) ||
		 SIMT_LAUNCH(h, mm3_kernel, grid, block, ef) || simt_download(h, G, bytes);
	if (!rc) {
		double err = r ? suite_max_rel_err_f32(G, r + 2 * n * n, n * n) : 0;
		suite_result(h, &c->o, suite_digest(G, bytes), err < 1e-4, err, NULL);
		simt_work_items(h, 3 * n * n * n);
	}
	free(r);
	return rc ? -1 : 0;
}

static const struct gpuvm_param_def mm3_params[] = {
	{"n", GPUVM_PARAM_U64, "512",
	 "matrix side (NI = NJ = NK = NL = NM; 3mm.cuh STANDARD_DATASET: 512)"},
	SUITE_SQUARE_PARAMS,
};

static int mm3_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	return suite_square_source("3mm", mm3_host, 512, p, out, err);
}

static const struct gpuvm_param_range mm3_ranges[] = {
	SUITE_SQUARE_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_mm3 = {
	.name = "3mm",
	.summary = "3MM: G = (A B)(C D), three products (PolyBench/GPU, 32 x 8 blocks)",
	.working_set = "28 B x n^2 (n=17515: 8 GiB)",
	.params = mm3_params,
	.n_params = sizeof mm3_params / sizeof mm3_params[0],
	GPUVM_WORKLOAD_RANGES(mm3_ranges),
	.create = mm3_create,
};
