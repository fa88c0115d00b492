/* 3dconv: PolyBench/GPU 3D convolution on an n x n x n float volume,
 * one launch per interior plane, as 3DConvolution.cu runs it. */
#include <stdlib.h>

#include "workloads/suite/conv3d_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct conv3d_cfg {
	uint64_t n, block_x;
	struct suite_opts o;
};

/* The CPU reference, term by term as the source writes it (conv3D). */
static float conv3d_ref(const float *A, uint64_t n, uint64_t i, uint64_t j, uint64_t k)
{
	const float c11 = +2, c21 = +5, c31 = -8, c12 = -3, c22 = +6, c32 = -9;
	const float c13 = +4, c23 = +7, c33 = +10;
#define A3(x, y, z) A[((x) * n + (y)) * n + (z)]
	return c11 * A3(i - 1, j - 1, k - 1) + c13 * A3(i + 1, j - 1, k - 1) +
	       c21 * A3(i - 1, j - 1, k - 1) + c23 * A3(i + 1, j - 1, k - 1) +
	       c31 * A3(i - 1, j - 1, k - 1) + c33 * A3(i + 1, j - 1, k - 1) +
	       c12 * A3(i, j - 1, k) + c22 * A3(i, j, k) + c32 * A3(i, j + 1, k) +
	       c11 * A3(i - 1, j - 1, k + 1) + c13 * A3(i + 1, j - 1, k + 1) +
	       c21 * A3(i - 1, j, k + 1) + c23 * A3(i + 1, j, k + 1) + c31 * A3(i - 1, j + 1, k + 1) +
	       c33 * A3(i + 1, j + 1, k + 1);
#undef A3
}

static int conv3d_host(struct simt_host *h, void *user)
{
	const struct conv3d_cfg *c = user;
	uint64_t n = c->n, cells = n * n * n, bytes = cells * sizeof(float);
	float *A = simt_malloc(h, "A", bytes, c->o.mem);
	float *B = simt_malloc(h, "B", bytes, c->o.mem);
	if (!A || !B)
		return -1;
	/* the source's init: A[i][j][k] = i % 12 + 2 (j % 7) + 3 (k % 13) */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			for (uint64_t k = 0; k < n; k++)
				A[(i * n + j) * n + k] = (float)(i % 12 + 2 * (j % 7) + 3 * (k % 13));
	/* both arrays go to the GPU before the kernels, as the source copies them */
	if (simt_upload(h, A, bytes) || simt_upload(h, B, bytes))
		return -1;
	struct conv3d_args a = {A, B, (int)n, (int)n, (int)n, 0};
	for (uint64_t i = 1; i + 1 < n; i++) {
		a.i = (int)i;
		if (SIMT_LAUNCH(h, conv3d_kernel,
				simt_dim3(suite_div_up(n, c->block_x), suite_div_up(n, 8), 1),
				simt_dim3((uint32_t)c->block_x, 8, 1), a))
			return -1;
	}
	if (simt_download(h, B, bytes))
		return -1;
	double err = 0;
	if (c->o.verify) {
		float *ref = calloc(cells, sizeof *ref);
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		for (uint64_t i = 1; i + 1 < n; i++)
			for (uint64_t j = 1; j + 1 < n; j++)
				for (uint64_t k = 1; k + 1 < n; k++)
					ref[(i * n + j) * n + k] = conv3d_ref(A, n, i, j, k);
		err = suite_max_rel_err_f32(B, ref, cells);
		free(ref);
	}
	suite_result(h, &c->o, suite_digest(B, bytes), err < 1e-5, err, NULL);
	simt_work_items(h, cells);
	return 0;
}

static const struct gpuvm_param_def conv3d_params[] = {
	{"n", GPUVM_PARAM_U64, "256", "volume side (NI = NJ = NK; 3DConvolution.cuh: 256)"},
	{"block_x", GPUVM_PARAM_U64, "32",
	 "threads in x of the block_x x 8 blocks (3DConvolution.cuh: 32 x 8)"},
	SUITE_COMMON_PARAMS,
};

static int conv3d_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed; /* the source's input is not random */
	struct conv3d_cfg c = {.n = 256, .block_x = 32};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "block_x", &c.block_x, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct conv3d_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("3dconv", conv3d_host, u, free, out, err);
}

static const struct gpuvm_param_range conv3d_ranges[] = {
	GPUVM_RANGE("n", 3, 2048),
	GPUVM_RANGE("block_x", 1, 128),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_conv3d = {
	.name = "3dconv",
	.summary = "PolyBench/GPU 3DCONV: 3x3x3-neighbourhood convolution of an n^3 float volume, a "
		   "launch per plane",
	.working_set = "8 B x n^3 (n=1024: 8 GiB)",
	.params = conv3d_params,
	.n_params = sizeof conv3d_params / sizeof conv3d_params[0],
	GPUVM_WORKLOAD_RANGES(conv3d_ranges),
	.create = conv3d_create,
};
