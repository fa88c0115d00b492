/* pagerank: Pannotia's PageRank (pagerank_kernels.h) over any graph
 * input: inibuffer, then `iterations` (Pannotia: 20) pagerank1/pagerank2
 * pairs, rank downloaded at the end. Reference: the same push iteration
 * in double precision on the CPU; the float sums (RED_ADD: thread order,
 * the same bits on every preset) round differently, so the check is a
 * relative tolerance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/graph_input.h"
#include "workloads/suite/pagerank_kernels.h"
#include "workloads/suite/suite.h"

#define PR_BLOCK 256 /* pagerank.cpp: block_size */
/* Largest |got - want| / (want + 1/n) accepted: float sums over a hub's
 * in-edges in another order differ by a few ulps per term. */
#define PR_TOLERANCE 1e-3

struct pr_cfg {
	struct graph_input in;
	uint64_t iterations;
	struct suite_opts o;
};

static void pr_free(void *user)
{
	struct pr_cfg *c = user;
	graph_input_free(&c->in);
	free(c);
}

static int pr_reference(const struct graph_dev *g, uint64_t iters, double *rank)
{
	double *next = calloc((size_t)g->n, sizeof *next);
	if (!next)
		return -1;
	for (int v = 0; v < g->n; v++)
		rank[v] = 1.0 / g->n;
	for (uint64_t it = 0; it < iters; it++) {
		for (int v = 0; v < g->n; v++) {
			int deg = g->row[v + 1] - g->row[v];
			for (int e = g->row[v]; e < g->row[v + 1]; e++)
				next[g->col[e]] += rank[v] / deg;
		}
		for (int v = 0; v < g->n; v++) {
			rank[v] = 0.15 / g->n + 0.85 * next[v];
			next[v] = 0;
		}
	}
	free(next);
	return 0;
}

static int pr_host(struct simt_host *h, void *user)
{
	struct pr_cfg *c = user;
	struct graph_dev g;
	if (graph_dev_upload(h, &c->in, c->o.mem, &g))
		return -1;
	uint64_t n = (uint64_t)g.n;
	float *rank = simt_malloc(h, "page_rank1", n * sizeof(float), c->o.mem);
	float *next = simt_malloc(h, "page_rank2", n * sizeof(float), c->o.mem);
	if (!rank || !next)
		return -1;
	struct pagerank_args a = {g.row, g.col, rank, next, g.n};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, PR_BLOCK), 1, 1),
			 block = simt_dim3(PR_BLOCK, 1, 1);
	if (SIMT_LAUNCH(h, pagerank_init, grid, block, a))
		return -1;
	for (uint64_t it = 0; it < c->iterations; it++)
		if (SIMT_LAUNCH(h, pagerank1, grid, block, a) ||
		    SIMT_LAUNCH(h, pagerank2, grid, block, a))
			return -1;
	if (simt_download(h, rank, n * sizeof(float)))
		return -1;
	int ok = 1;
	double max_err = 0, sum = 0;
	for (uint64_t v = 0; v < n; v++)
		sum += rank[v];
	if (c->o.verify) {
		double *want = malloc(n * sizeof *want);
		if (!want || pr_reference(&g, c->iterations, want)) {
			free(want);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t v = 0; v < n; v++) {
			double e = fabs(rank[v] - want[v]) / (want[v] + 1.0 / (double)n);
			if (!(e <= max_err))
				max_err = isnan(e) ? INFINITY : e;
		}
		ok = max_err <= PR_TOLERANCE;
		free(want);
	}
	char extra[192];
	snprintf(extra, sizeof extra, "graph=%s vertices=%d edges=%d iterations=%llu rank_sum=%.6f",
		 c->in.desc, g.n, g.m, (unsigned long long)c->iterations, sum);
	suite_result(h, &c->o, suite_digest(rank, n * sizeof(float)), ok, max_err, extra);
	simt_work_items(h, (uint64_t)g.m * c->iterations);
	return 0;
}

static const struct gpuvm_param_def pr_params[] = {
	GRAPH_INPUT_PARAMS("rmat-16-16", "1048576", "8"),
	{"iterations", GPUVM_PARAM_U64, "20", "pagerank1/pagerank2 pairs (pagerank.cpp: ITER 20)"},
	SUITE_COMMON_PARAMS,
};

static int pr_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct pr_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	c->iterations = 20;
	/* Pannotia's inputs are DIMACS/SNAP files (none ship here): an R-MAT
	 * graph of the same kind stands in by default. */
	static const struct graph_input_defaults def = {"rmat-16-16", 1u << 20, 8};
	if (suite_opts_parse(p, &c->o, err) ||
	    gpuvm_params_u64(p, "iterations", &c->iterations, err) < 0 ||
	    graph_input_load(p, seed, 0, &def, &c->in, err)) {
		free(c);
		return -1;
	}
	return simt_program_source("pagerank", pr_host, c, pr_free, out, err);
}

static const struct gpuvm_param_range pagerank_ranges[] = {
	GPUVM_RANGE("iterations", 1, 10000),
	GRAPH_INPUT_RANGES,
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_pagerank = {
	.name = "pagerank",
	.summary = "Pannotia PageRank (push with float atomics, 20 iterations) over any graph",
	.working_set = "12 B x vertices + 4 B x edges",
	.params = pr_params,
	.n_params = sizeof pr_params / sizeof pr_params[0],
	GPUVM_WORKLOAD_RANGES(pagerank_ranges),
	.create = pr_create,
};
