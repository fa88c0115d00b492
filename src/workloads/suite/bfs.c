/* bfs: Rodinia breadth-first search (bfs/bfs.cu, kernel.cu, kernel2.cu)
 * over any graph input (graph_input.h): a generated uniform graph as
 * Rodinia's graphgen makes, a Graph500 R-MAT graph, or a file. The host
 * relaunches both kernels until no vertex was updated, reading the `over`
 * flag back each level. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/bfs_kernels.h"
#include "workloads/suite/graph_input.h"
#include "workloads/suite/suite.h"

struct bfs_cfg {
	struct graph_input in;
	uint64_t source; /* UINT64_MAX: the first vertex with an out-edge */
	unsigned loads_chained; /* loads=: 0 source, 1 chained */
	struct suite_opts o;
};

static void bfs_free(void *user)
{
	struct bfs_cfg *c = user;
	graph_input_free(&c->in);
	free(c);
}

/* Level of every vertex from src (-1: unreachable), with a queue. */
static int bfs_reference(const int *row, const int *col, int n, int src, int *dist)
{
	int *q = malloc((size_t)n * sizeof *q);
	if (!q)
		return -1;
	for (int v = 0; v < n; v++)
		dist[v] = -1;
	int qh = 0, qt = 0;
	dist[src] = 0;
	q[qt++] = src;
	while (qh < qt) {
		int v = q[qh++];
		for (int e = row[v]; e < row[v + 1]; e++)
			if (dist[col[e]] < 0) {
				dist[col[e]] = dist[v] + 1;
				q[qt++] = col[e];
			}
	}
	free(q);
	return 0;
}

static int bfs_host(struct simt_host *h, void *user)
{
	struct bfs_cfg *c = user;
	struct graph_dev g;
	if (graph_dev_upload(h, &c->in, c->o.mem, &g))
		return -1;
	uint64_t n = (uint64_t)g.n;
	unsigned char *mask = simt_malloc(h, "mask", n, c->o.mem);
	unsigned char *upd = simt_malloc(h, "updating", n, c->o.mem);
	unsigned char *vis = simt_malloc(h, "visited", n, c->o.mem);
	int *cost = simt_malloc(h, "cost", n * sizeof(int), c->o.mem);
	/* device memory whatever mem= says: bfs.cu allocates d_over with
	 * cudaMalloc in Rodinia and in UVMSmart's managed version alike
	 * (benchmarks/Managed/bfs/bfs.cu:158-159); a managed flag would fault
	 * and be evicted again every level under oversubscription */
	int *over = simt_malloc(h, "over", sizeof(int), GPUVM_ALLOC_DEVICE);
	if (!mask || !upd || !vis || !cost || !over)
		return -1;
	int src = 0;
	if (c->source != UINT64_MAX)
		src = (int)c->source;
	else
		while (src + 1 < g.n && g.row[src + 1] == g.row[src])
			src++;
	if ((uint64_t)src >= n)
		return simt_fail(h, "source=%d is not a vertex (the graph has %d)", src, g.n);
	for (uint64_t v = 0; v < n; v++)
		cost[v] = -1;
	mask[src] = vis[src] = 1;
	cost[src] = 0;
	if (simt_upload(h, mask, n) || simt_upload(h, upd, n) || simt_upload(h, vis, n) ||
	    simt_upload(h, cost, n * sizeof(int)))
		return -1;
	struct bfs_args a = {g.row, g.col, mask, upd, vis, cost, over, g.n, !c->loads_chained};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, 512), 1, 1), block = simt_dim3(512, 1, 1);
	uint64_t levels = 0;
	do {
		*over = 0;
		if (simt_upload(h, over, sizeof(int)) || SIMT_LAUNCH(h, bfs_kernel1, grid, block, a) ||
		    SIMT_LAUNCH(h, bfs_kernel2, grid, block, a) ||
		    simt_download(h, over, sizeof(int)))
			return -1;
		levels++;
	} while (*over);
	if (simt_download(h, cost, n * sizeof(int)))
		return -1;
	int ok = 1;
	uint64_t reached = 0;
	for (uint64_t v = 0; v < n; v++)
		reached += cost[v] >= 0;
	if (c->o.verify) {
		int *dist = malloc(n * sizeof(int));
		if (!dist || bfs_reference(g.row, g.col, g.n, src, dist)) {
			free(dist);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t v = 0; v < n; v++)
			ok &= dist[v] == cost[v];
		free(dist);
	}
	char extra[192];
	snprintf(extra, sizeof extra, "graph=%s vertices=%d edges=%d source=%d levels=%llu reached=%llu",
		 c->in.desc, g.n, g.m, src, (unsigned long long)levels,
		 (unsigned long long)reached);
	suite_result(h, &c->o, suite_digest(cost, n * sizeof(int)), ok, ok ? 0 : 1, extra);
	simt_work_items(h, (uint64_t)g.m);
	return 0;
}

static const struct gpuvm_param_def bfs_params[] = {
	GRAPH_INPUT_PARAMS("uniform", "262144", "6"),
	{"source", GPUVM_PARAM_U64, NULL, "start vertex (default: the first with an out-edge)"},
	{"loads", GPUVM_PARAM_CHOICE, "source|chained",
	 "source: loads independent in the CUDA source issue without waiting (LD_INDEP, bfs_kernels.h); chained: each waits for the load before it (before 2026-11-30)"},
	SUITE_COMMON_PARAMS,
};

static int bfs_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		      uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct bfs_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	c->source = UINT64_MAX;
	/* UVMSmart's bfs input: Rodinia graph256k (UVMSmart benchmarks/Managed/bfs/run) */
	static const struct graph_input_defaults def = {"uniform", 262144, 6};
	if (suite_opts_parse(p, &c->o, err) || gpuvm_params_u64(p, "source", &c->source, err) < 0 ||
	    gpuvm_params_choice(p, "loads", "source|chained", &c->loads_chained, err) < 0 ||
	    graph_input_load(p, seed, 0, &def, &c->in, err)) {
		free(c);
		return -1;
	}
	if (c->source != UINT64_MAX && c->source >= c->in.g.n_vertices) {
		unsigned long long s = c->source, nv = c->in.g.n_vertices;
		bfs_free(c);
		return gpuvm_fail(err, "--workload", 0, "source",
				  "%llu is not a vertex (the graph has %llu)", s, nv);
	}
	return simt_program_source("bfs", bfs_host, c, bfs_free, out, err);
}

static const struct gpuvm_param_range bfs_ranges[] = {
	GRAPH_INPUT_RANGES,
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_bfs = {
	.name = "bfs",
	.summary = "Rodinia BFS (frontier masks, host loop on a flag) over a uniform, R-MAT or file graph",
	.working_set = "11 B x vertices + 4 B x edges (edges: stored directed edges)",
	.params = bfs_params,
	.n_params = sizeof bfs_params / sizeof bfs_params[0],
	GPUVM_WORKLOAD_RANGES(bfs_ranges),
	.create = bfs_create,
};
