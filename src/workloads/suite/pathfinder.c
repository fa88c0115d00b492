/* pathfinder: Rodinia pathfinder, cheapest path down a rows x cols grid. */
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/pathfinder_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct pf_cfg {
	uint64_t rows, cols, pyramid, seed;
	struct suite_opts o;
};

static int pf_host(struct simt_host *h, void *user)
{
	const struct pf_cfg *c = user;
	uint64_t rows = c->rows, cols = c->cols;
	int *wall = simt_malloc(h, "wall", rows * cols * sizeof(int), c->o.mem);
	int *res0 = simt_malloc(h, "result0", cols * sizeof(int), c->o.mem);
	int *res1 = simt_malloc(h, "result1", cols * sizeof(int), c->o.mem);
	if (!wall || !res0 || !res1)
		return -1;
	/* Rodinia: wall[i][j] = rand() % 10; the first row seeds result0. */
	for (uint64_t i = 0; i < rows * cols; i++)
		wall[i] = (int)(splitmix64(c->seed + i) % 10);
	memcpy(res0, wall, cols * sizeof(int));
	if (simt_upload(h, wall + cols, (rows - 1) * cols * sizeof(int)) ||
	    simt_upload(h, res0, cols * sizeof(int)))
		return -1;
	int border = (int)c->pyramid; /* HALO 1 x pyramid_height */
	int small = PF_BLOCK - (int)c->pyramid * 2;
	struct simt_dim3 grid = simt_dim3(suite_div_up(cols, (uint64_t)small), 1, 1);
	int *src = res0, *dst = res1;
	for (uint64_t t = 0; t + 1 < rows; t += c->pyramid) {
		uint64_t left = rows - t - 1;
		struct pf_args a = {wall + cols, src, dst,
				    (int)(c->pyramid < left ? c->pyramid : left), (int)cols, (int)t,
				    border};
		if (SIMT_LAUNCH_SHARED(h, pf_kernel, grid, simt_dim3(PF_BLOCK, 1, 1), PF_SHARED_BYTES, a))
			return -1;
		int *s = src;
		src = dst;
		dst = s;
	}
	if (simt_download(h, src, cols * sizeof(int)))
		return -1;
	int ok = 1;
	if (c->o.verify) {
		int *r = malloc(cols * sizeof(int)), *n = malloc(cols * sizeof(int));
		if (!r || !n) {
			free(r);
			free(n);
			return simt_fail(h, "out of memory for the reference");
		}
		memcpy(r, wall, cols * sizeof(int));
		for (uint64_t i = 1; i < rows; i++) {
			for (uint64_t j = 0; j < cols; j++) {
				int m = r[j];
				if (j > 0 && r[j - 1] < m)
					m = r[j - 1];
				if (j + 1 < cols && r[j + 1] < m)
					m = r[j + 1];
				n[j] = wall[i * cols + j] + m;
			}
			memcpy(r, n, cols * sizeof(int));
		}
		ok = memcmp(r, src, cols * sizeof(int)) == 0;

		free(r);
		free(n);
	}
	suite_result(h, &c->o, suite_digest(src, cols * sizeof(int)), ok, ok ? 0 : 1, NULL);
	simt_work_items(h, rows * cols);
	return 0;
}

static const struct gpuvm_param_def pf_params[] = {
	{"cols", GPUVM_PARAM_U64, "50000", "columns; UVMSmart: 50000"},
	{"rows", GPUVM_PARAM_U64, "200", "rows; UVMSmart: 200"},
	{"pyramid", GPUVM_PARAM_U64, "20", "pyramid height: rows per launch (Rodinia run: 20)"},
	SUITE_COMMON_PARAMS,
};

static int pf_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct pf_cfg c = {.rows = 200, .cols = 50000, .pyramid = 20, .seed = seed};
	if (gpuvm_params_u64(p, "rows", &c.rows, err) < 0 ||
	    gpuvm_params_u64(p, "cols", &c.cols, err) < 0 ||
	    gpuvm_params_u64(p, "pyramid", &c.pyramid, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	if (c.rows * c.cols > (1ull << 34))
		return gpuvm_params_constraint(err, "rows", "rows x cols at most 2^34");
	struct pf_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("pathfinder", pf_host, u, free, out, err);
}

static const struct gpuvm_param_range pathfinder_ranges[] = {
	GPUVM_RANGE("rows", 2, 1ull << 31),
	GPUVM_RANGE("cols", 1, 1ull << 31),
	GPUVM_RANGE("pyramid", 1, PF_BLOCK / 2 - 1),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_pathfinder = {
	.name = "pathfinder",
	.summary = "Rodinia pathfinder: min-cost path DP, shared-memory pyramid with barriers",
	.working_set = "4 B x rows x cols + 8 B x cols (rows=200: cols=10.7M for 8 GiB)",
	.params = pf_params,
	.n_params = sizeof pf_params / sizeof pf_params[0],
	GPUVM_WORKLOAD_RANGES(pathfinder_ranges),
	.constraints = "rows x cols at most 2^34",
	.create = pf_create,
};
