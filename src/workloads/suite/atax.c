/* atax: PolyBench/GPU ATAX, y = A^T (A x) on an n x n float matrix. */
#include <stdlib.h>

#include "workloads/suite/atax_kernels.h"
#include "workloads/suite/suite.h"

struct atax_cfg {
	uint64_t n, block_x;
	unsigned variant; /* 0 uvmsmart, 1 polybench-gpu */
	struct suite_opts o;
};

static int atax_host(struct simt_host *h, void *user)
{
	const struct atax_cfg *c = user;
	uint64_t n = c->n;
	float *A = simt_malloc(h, "A", n * n * sizeof(float), c->o.mem);
	float *x = simt_malloc(h, "x", n * sizeof(float), c->o.mem);
	float *y = simt_malloc(h, "y", n * sizeof(float), c->o.mem);
	float *tmp = simt_malloc(h, "tmp", n * sizeof(float), c->o.mem);
	if (!A || !x || !y || !tmp)
		return -1;
	/* PolyBench init_array */
	for (uint64_t i = 0; i < n; i++) {
		x[i] = (float)i * 3.14159f;
		for (uint64_t j = 0; j < n; j++)
			A[i * n + j] = (float)(i * (j + 1) % n) / (float)n;
	}
	if (simt_upload(h, A, n * n * sizeof(float)) || simt_upload(h, x, n * sizeof(float)) ||
	    simt_upload(h, y, n * sizeof(float)) || simt_upload(h, tmp, n * sizeof(float)))
		return -1;
	struct atax_args a = {A, x, y, tmp, (int)n, (int)n};
	for (uint64_t r = 0; r < c->o.launches; r++) {
		if (c->variant) { /* PolyBench/GPU 1.0 atax.cuh: DIM_THREAD_BLOCK_X 32, _Y 8 */
			struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), 1, 1);
			struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, 8, 1);
			if (SIMT_LAUNCH(h, atax_pb_kernel1, grid, block, a) ||
			    SIMT_LAUNCH(h, atax_pb_kernel2, grid, block, a))
				return -1;
		} else {
			struct simt_dim3 grid = simt_dim3(suite_div_up(n, c->block_x), 1, 1);
			struct simt_dim3 block = simt_dim3((uint32_t)c->block_x, 1, 1);
			if (SIMT_LAUNCH(h, atax_kernel1, grid, block, a) ||
			    SIMT_LAUNCH(h, atax_kernel2, grid, block, a))
				return -1;
		}
	}
	if (simt_download(h, y, n * sizeof(float)))
		return -1;
	double err = 0;
	if (c->o.verify) {
		float *rt = calloc(n, sizeof *rt), *ry = calloc(n, sizeof *ry);
		if (!rt || !ry) {
			free(rt);
			free(ry);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < n; j++)
				rt[i] = rt[i] + A[i * n + j] * x[j];
		for (uint64_t j = 0; j < n; j++)
			for (uint64_t i = 0; i < n; i++)
				ry[j] = ry[j] + A[i * n + j] * rt[i];
		err = suite_max_rel_err_f32(y, ry, n);
		free(rt);
		free(ry);
	}
	suite_result(h, &c->o, suite_digest(y, n * sizeof(float)), err < 1e-5, err, NULL);
	simt_work_items(h, 2 * n * n * c->o.launches);
	return 0;
}

static const struct gpuvm_param_def atax_params[] = {
	{"variant", GPUVM_PARAM_CHOICE, "uvmsmart|polybench-gpu",
	 "uvmsmart: UVMSmart's port (256 x 1 blocks); polybench-gpu: PolyBench/GPU 1.0's atax.cu "
	 "(32 x 8 blocks, the 8 warps of a block on the same rows)"},
	{"n", GPUVM_PARAM_U64, "1200",
	 "matrix side (NX = NY); UVMSmart: 1200; variant=polybench-gpu: 4096 unless given "
	 "(PolyBench/GPU 1.0 atax.cuh, every dataset)"},
	{"block_x", GPUVM_PARAM_U64, "auto",
	 "threads in x of a block (auto: the variant's, 256 or 32; the y extent stays 1 or 8)"},
	SUITE_COMMON_PARAMS,
	SUITE_LAUNCHES_PARAM,
};

static int atax_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		       uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	(void)seed;
	struct atax_cfg c = {.n = 1200};
	if (gpuvm_params_choice(p, "variant", "uvmsmart|polybench-gpu", &c.variant, err) < 0)
		return -1;
	if (c.variant)
		c.n = 4096;
	c.block_x = c.variant ? 32 : 256;
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "block_x", &c.block_x, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	/* the polybench-gpu blocks are block_x x 8 threads */
	if (c.variant && c.block_x > 128)
		return gpuvm_params_constraint(err, "block_x",
					       "at most 128 with variant=polybench-gpu (blocks of "
					       "block_x x 8 threads)");
	struct atax_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("atax", atax_host, u, free, out, err);
}

static const struct gpuvm_param_range atax_ranges[] = {
	GPUVM_RANGE("n", 1, 1u << 17),
	GPUVM_RANGE("block_x", 1, 1024),
	SUITE_COMMON_RANGES,
	SUITE_LAUNCHES_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_atax = {
	.name = "atax",
	.summary = "ATAX: y = A^T (A x), thread per row then per column (UVMSmart or PolyBench/GPU blocks)",
	.working_set = "4 B x n^2 + 12 B x n (n=46341: 8 GiB)",
	.params = atax_params,
	.n_params = sizeof atax_params / sizeof atax_params[0],
	GPUVM_WORKLOAD_RANGES(atax_ranges),
	.constraints = "block_x at most 128 with variant=polybench-gpu",
	.create = atax_create,
};
