/* 2dconv: PolyBench/GPU 2D convolution on an n x n float image. */
#include <stdlib.h>

#include "workloads/suite/conv2d_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct conv2d_cfg {
	uint64_t n, seed, block_x;
	struct suite_opts o;
};

static float conv2d_at(const float *A, uint64_t nj, uint64_t i, uint64_t j)
{
	return A[i * nj + j];
}

static int conv2d_host(struct simt_host *h, void *user)
{
	const struct conv2d_cfg *c = user;
	uint64_t n = c->n, bytes = n * n * sizeof(float);
	float *A = simt_malloc(h, "A", bytes, c->o.mem);
	float *B = simt_malloc(h, "B", bytes, c->o.mem);
	if (!A || !B)
		return -1;
	for (uint64_t i = 0; i < n * n; i++)
		A[i] = (float)(splitmix64(c->seed + i) >> 40) / (float)(1 << 24);
	if (simt_upload(h, A, bytes))
		return -1;
	struct conv2d_args a = {A, B, (int)n, (int)n};
	for (uint64_t r = 0; r < c->o.launches; r++)
		if (SIMT_LAUNCH(h, conv2d_kernel,
				simt_dim3(suite_div_up(n, c->block_x), suite_div_up(n, 8), 1),
				simt_dim3((uint32_t)c->block_x, 8, 1), a))
			return -1;
	if (simt_download(h, B, bytes))
		return -1;
	double err = 0;
	if (c->o.verify) {
		float *ref = calloc(n * n, sizeof *ref);
		if (!ref)
			return simt_fail(h, "out of memory for the reference");
		for (uint64_t i = 1; i + 1 < n; i++)
			for (uint64_t j = 1; j + 1 < n; j++)
				ref[i * n + j] = 0.2f * conv2d_at(A, n, i - 1, j - 1) +
						 0.5f * conv2d_at(A, n, i - 1, j) +
						 -0.8f * conv2d_at(A, n, i - 1, j + 1) +
						 -0.3f * conv2d_at(A, n, i, j - 1) +
						 0.6f * conv2d_at(A, n, i, j) +
						 -0.9f * conv2d_at(A, n, i, j + 1) +
						 0.4f * conv2d_at(A, n, i + 1, j - 1) +
						 0.7f * conv2d_at(A, n, i + 1, j) +
						 0.10f * conv2d_at(A, n, i + 1, j + 1);
		err = suite_max_rel_err_f32(B, ref, n * n);
		free(ref);
	}
	suite_result(h, &c->o, suite_digest(B, bytes), err < 1e-5, err, NULL);
	simt_work_items(h, n * n * c->o.launches);
	return 0;
}

static const struct gpuvm_param_def conv2d_params[] = {
	{"n", GPUVM_PARAM_U64, "1024", "image side (NI = NJ); UVMSmart: 1024"},
	{"block_x", GPUVM_PARAM_U64, "32",
	 "threads in x of the block_x x 8 blocks (2DConvolution.cuh: 32 x 8)"},
	SUITE_COMMON_PARAMS,
	SUITE_LAUNCHES_PARAM,
};

static int conv2d_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			 uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct conv2d_cfg c = {.n = 1024, .seed = seed, .block_x = 32};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "block_x", &c.block_x, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct conv2d_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("2dconv", conv2d_host, u, free, out, err);
}

static const struct gpuvm_param_range conv2d_ranges[] = {
	GPUVM_RANGE("n", 3, 1u << 17),
	GPUVM_RANGE("block_x", 1, 128),
	SUITE_COMMON_RANGES,
	SUITE_LAUNCHES_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_conv2d = {
	.name = "2dconv",
	.summary = "PolyBench/GPU 2DCONV: 3x3 convolution of an n x n float image",
	.working_set = "8 B x n^2 (n=32768: 8 GiB)",
	.params = conv2d_params,
	.n_params = sizeof conv2d_params / sizeof conv2d_params[0],
	GPUVM_WORKLOAD_RANGES(conv2d_ranges),
	.create = conv2d_create,
};
