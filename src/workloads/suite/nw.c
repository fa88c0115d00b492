/* nw: Rodinia Needleman-Wunsch, global alignment scores of two random
 * sequences of length n (BLOSUM62 similarity, linear gap penalty). */
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/nw_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct nw_cfg {
	uint64_t n, penalty, seed;
	struct suite_opts o;
};

/* BLOSUM62 as in Rodinia needle.cu (residues 1-10 are drawn). */
static const signed char nw_blosum62[24][24] = {
	{4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4},
	{-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4},
	{-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4},
	{-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4},
	{0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4},
	{-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4},
	{-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
	{0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4},
	{-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4},
	{-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4},
	{-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4},
	{-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4},
	{-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4},
	{-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4},
	{-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2, -4},
	{1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4},
	{0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4},
	{-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2, -4},
	{-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4},
	{0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4},
	{-2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4},
	{-1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
	{0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4},
	{-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, 1},
};

static int nw_host(struct simt_host *h, void *user)
{
	const struct nw_cfg *c = user;
	uint64_t cols = c->n + 1, size = cols * cols, bytes = size * sizeof(int);
	int penalty = (int)c->penalty;
	int *ref = simt_malloc(h, "referrence", bytes, c->o.mem);
	int *mat = simt_malloc(h, "itemsets", bytes, c->o.mem);
	if (!ref || !mat)
		return -1;
	/* Rodinia: residues rand() % 10 + 1 down column 0 and along row 0,
	 * similarity from BLOSUM62, then gap penalties on the borders */
	for (uint64_t i = 1; i < cols; i++)
		mat[i * cols] = (int)(splitmix64(c->seed + i) % 10) + 1;
	for (uint64_t j = 1; j < cols; j++)
		mat[j] = (int)(splitmix64(c->seed + cols + j) % 10) + 1;
	for (uint64_t i = 1; i < cols; i++)
		for (uint64_t j = 1; j < cols; j++)
			ref[i * cols + j] = nw_blosum62[mat[i * cols]][mat[j]];
	for (uint64_t i = 1; i < cols; i++)
		mat[i * cols] = -(int)i * penalty;
	for (uint64_t j = 1; j < cols; j++)
		mat[j] = -(int)j * penalty;
	int *want = NULL;
	if (c->o.verify) {
		want = malloc(bytes);
		if (!want)
			return simt_fail(h, "out of memory for the reference");
		memcpy(want, mat, bytes);
	}
	if (simt_upload(h, ref, bytes) || simt_upload(h, mat, bytes)) {
		free(want);
		return -1;
	}
	int block_width = (int)(c->n / NW_BLOCK);
	struct simt_dim3 block = simt_dim3(NW_BLOCK, 1, 1);
	for (int i = 1; i <= block_width; i++) { /* top-left triangle of tiles */
		struct nw_args a = {ref, mat, (int)cols, penalty, i, block_width};
		if (SIMT_LAUNCH_SHARED(h, needle_cuda_shared_1, simt_dim3((uint32_t)i, 1, 1), block,
				       NW_SHARED_BYTES, a)) {
			free(want);
			return -1;
		}
	}
	for (int i = block_width - 1; i >= 1; i--) { /* bottom-right triangle */
		struct nw_args a = {ref, mat, (int)cols, penalty, i, block_width};
		if (SIMT_LAUNCH_SHARED(h, needle_cuda_shared_2, simt_dim3((uint32_t)i, 1, 1), block,
				       NW_SHARED_BYTES, a)) {
			free(want);
			return -1;
		}
	}
	if (simt_download(h, mat, bytes)) {
		free(want);
		return -1;
	}
	int ok = 1;
	uint64_t bad = 0;
	if (want) { /* plain row-by-row dynamic program; integers, exact */
		for (uint64_t i = 1; i < cols; i++)
			for (uint64_t j = 1; j < cols; j++)
				want[i * cols + j] = nw_maximum(
					want[(i - 1) * cols + j - 1] + ref[i * cols + j],
					want[i * cols + j - 1] - penalty, want[(i - 1) * cols + j] - penalty);
		for (uint64_t k = 0; k < size; k++)
			bad += want[k] != mat[k];
		ok = bad == 0;
		free(want);
	}
	suite_result(h, &c->o, suite_digest(mat, bytes), ok, (double)bad, NULL);
	simt_work_items(h, c->n * c->n);
	return 0;
}

static const struct gpuvm_param_def nw_params[] = {
	{"n", GPUVM_PARAM_U64, "1024", "sequence length, a multiple of 16; UVMSmart: 1024"},
	{"penalty", GPUVM_PARAM_U64, "10", "gap penalty; UVMSmart: 10"},
	SUITE_COMMON_PARAMS,
};

static int nw_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct nw_cfg c = {.n = 1024, .penalty = 10, .seed = seed};
	if (gpuvm_params_u64(p, "n", &c.n, err) < 0 ||
	    gpuvm_params_u64(p, "penalty", &c.penalty, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	struct nw_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("nw", nw_host, u, free, out, err);
}

static const struct gpuvm_param_range nw_ranges[] = {
	GPUVM_RANGE_STEP("n", 16, 1u << 15, NW_BLOCK),
	GPUVM_RANGE("penalty", 0, 1000),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_nw = {
	.name = "nw",
	.summary = "Rodinia nw: Needleman-Wunsch, 2 anti-diagonal tile sweeps (shared memory, barriers)",
	.working_set = "8 B x (n+1)^2 (n=1024: 8 MiB; n=32768: 8 GiB)",
	.params = nw_params,
	.n_params = sizeof nw_params / sizeof nw_params[0],
	GPUVM_WORKLOAD_RANGES(nw_ranges),
	.create = nw_create,
};
