/* sssp: UVMSmart's sssp (sssp_kernels.h) over any graph input with
 * weights (generated in [1, 100] for unweighted inputs, graph.h). The
 * host follows sssp.cu: an init kernel, then rounds of 5 asynchronous
 * kernel1/kernel2 pairs, each round reading the whole mask back and
 * scanning it for a set entry. UVMSmart stops after MAX_ITERATION = 15
 * pairs; here max_iter=0 (default) runs to convergence (max_iter=15 is
 * UVMSmart's behaviour). Reference: synchronous Bellman-Ford on the CPU
 * for the same number of pairs, which is exactly what the kernels compute
 * (kernel 1 reads only costs settled by the previous kernel 2). */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/graph_input.h"
#include "workloads/suite/sssp_kernels.h"
#include "workloads/suite/suite.h"

/* sssp.cu: NUM_ASYNCHRONOUS_ITERATIONS, BLOCK_SIZE */
#define SSSP_ASYNC_PAIRS 5
#define SSSP_BLOCK 16

struct sssp_cfg {
	struct graph_input in;
	uint64_t source, max_iter;
	unsigned loads_chained; /* loads=: 0 source, 1 chained */
	struct suite_opts o;
};

static void sssp_free(void *user)
{
	struct sssp_cfg *c = user;
	graph_input_free(&c->in);
	free(c);
}

/* `pairs` rounds of synchronous relaxation from src (every vertex whose
 * cost changed relaxes its out-edges against last round's costs). */
static int sssp_reference(const struct graph_dev *g, int src, uint64_t pairs, unsigned *cost)
{
	unsigned *next = malloc((size_t)g->n * sizeof *next);
	unsigned char *active = calloc((size_t)g->n, 1);
	if (!next || !active) {
		free(next);
		free(active);
		return -1;
	}
	for (int v = 0; v < g->n; v++)
		cost[v] = next[v] = SSSP_INF;
	cost[src] = next[src] = 0;
	active[src] = 1;
	for (uint64_t it = 0; it < pairs; it++) {
		int any = 0;
		for (int v = 0; v < g->n; v++) {
			if (!active[v])
				continue;
			active[v] = 0;
			for (int e = g->row[v]; e < g->row[v + 1]; e++) {
				unsigned d = cost[v] + (unsigned)g->w[e];
				if (d < next[g->col[e]])
					next[g->col[e]] = d;
			}
		}
		for (int v = 0; v < g->n; v++)
			if (next[v] < cost[v]) {
				cost[v] = next[v];
				active[v] = 1;
				any = 1;
			}
		if (!any)
			break;
	}
	free(next);
	free(active);
	return 0;
}

static int sssp_host(struct simt_host *h, void *user)
{
	struct sssp_cfg *c = user;
	struct graph_dev g;
	if (graph_dev_upload(h, &c->in, c->o.mem, &g))
		return -1;
	uint64_t n = (uint64_t)g.n;
	/* the mask (sssp.cu's d_finalizedVertices) is cudaMalloc'd device
	 * memory in UVMSmart's managed sssp too (dijkstraGPU), copied back
	 * with cudaMemcpy each round; only the graph and the two cost arrays
	 * are managed */
	unsigned char *mask = simt_malloc(h, "mask", n, GPUVM_ALLOC_DEVICE);
	unsigned *cost = simt_malloc(h, "cost", n * sizeof(unsigned), c->o.mem);
	unsigned *upd = simt_malloc(h, "updating_cost", n * sizeof(unsigned), c->o.mem);
	if (!mask || !cost || !upd)
		return -1;
	int src = (int)c->source;
	struct sssp_args a = {g.row, g.col, g.w, mask, cost, upd, g.n, src, !c->loads_chained};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, SSSP_BLOCK), 1, 1),
			 block = simt_dim3(SSSP_BLOCK, 1, 1);
	if (SIMT_LAUNCH(h, sssp_init, grid, block, a) || simt_download(h, mask, n))
		return -1;
	uint64_t pairs = 0;
	for (;;) {
		int any = 0;
		for (uint64_t v = 0; v < n && !any; v++)
			any = mask[v];
		if (!any || (c->max_iter && pairs >= c->max_iter))
			break;
		for (int k = 0; k < SSSP_ASYNC_PAIRS; k++) {
			if (SIMT_LAUNCH(h, sssp_kernel1, grid, block, a) ||
			    SIMT_LAUNCH(h, sssp_kernel2, grid, block, a))
				return -1;
			pairs++;
		}
		if (simt_download(h, mask, n))
			return -1;
	}
	if (simt_download(h, cost, n * sizeof(unsigned)))
		return -1;
	int ok = 1;
	uint64_t reached = 0, total = 0;
	for (uint64_t v = 0; v < n; v++)
		if (cost[v] != SSSP_INF) {
			reached++;
			total += cost[v];
		}
	if (c->o.verify) {
		unsigned *want = malloc(n * sizeof *want);
		if (!want || sssp_reference(&g, src, pairs, want)) {
			free(want);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t v = 0; v < n; v++)
			ok &= want[v] == cost[v];
		free(want);
	}
	char extra[224];
	snprintf(extra, sizeof extra,
		 "graph=%s vertices=%d edges=%d source=%d iterations=%llu reached=%llu cost_sum=%llu",
		 c->in.desc, g.n, g.m, src, (unsigned long long)pairs, (unsigned long long)reached,
		 (unsigned long long)total);
	suite_result(h, &c->o, suite_digest(cost, n * sizeof(unsigned)), ok, ok ? 0 : 1, extra);
	simt_work_items(h, (uint64_t)g.m);
	return 0;
}

static const struct gpuvm_param_def sssp_params[] = {
	GRAPH_INPUT_PARAMS("uniform", "1048576", "2"),
	{"source", GPUVM_PARAM_U64, "0", "start vertex (sssp.cu: 0)"},
	{"max_iter", GPUVM_PARAM_U64, "0",
	 "stop after this many kernel pairs, rounded up to 5 (0: until no cost changes; UVMSmart: 15)"},
	{"loads", GPUVM_PARAM_CHOICE, "source|chained",
	 "source: loads independent in the CUDA source issue without waiting (LD_INDEP, sssp_kernels.h); chained: each waits for the load before it (before 2026-11-30)"},
	SUITE_COMMON_PARAMS,
};

static int sssp_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		       uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct sssp_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	/* UVMSmart's input: 2^20 vertices, 2 random neighbours each
	 * (UVMSmart benchmarks/Managed/sssp, sssp.cu main) */
	static const struct graph_input_defaults def = {"uniform", 1u << 20, 2};
	if (suite_opts_parse(p, &c->o, err) || gpuvm_params_u64(p, "source", &c->source, err) < 0 ||
	    gpuvm_params_choice(p, "loads", "source|chained", &c->loads_chained, err) < 0 ||
	    gpuvm_params_u64(p, "max_iter", &c->max_iter, err) < 0 ||
	    graph_input_load(p, seed, GRAPH_WEIGHTS, &def, &c->in, err)) {
		free(c);
		return -1;
	}
	if (c->source >= c->in.g.n_vertices) {
		unsigned long long s = c->source, nv = c->in.g.n_vertices;
		sssp_free(c);
		return gpuvm_fail(err, "--workload", 0, "source",
				  "%llu is not a vertex (the graph has %llu)", s, nv);
	}
	/* costs are unsigned: the longest possible path must fit */
	if ((uint64_t)c->in.g.n_vertices * GPUVM_GRAPH_WEIGHT_MAX_DEFAULT >= SSSP_INF &&
	    c->in.g.weights_generated) {
		sssp_free(c);
		return gpuvm_fail(err, "--workload", 0, "graph",
				  "too many vertices for 32-bit path costs");
	}
	return simt_program_source("sssp", sssp_host, c, sssp_free, out, err);
}

static const struct gpuvm_param_range sssp_ranges[] = {
	GRAPH_INPUT_RANGES,
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_sssp = {
	.name = "sssp",
	.summary = "UVMSmart/Harish sssp (mask, cost, updating cost; atomicMin relaxation) over a weighted graph",
	.working_set = "13 B x vertices + 8 B x edges",
	.params = sssp_params,
	.n_params = sizeof sssp_params / sizeof sssp_params[0],
	GPUVM_WORKLOAD_RANGES(sssp_ranges),
	.create = sssp_create,
};
