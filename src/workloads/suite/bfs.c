/* bfs: Rodinia breadth-first search over a generated graph (uniform
 * random neighbours, as Rodinia's graph generator; the graph-file and
 * R-MAT inputs are separate work). The host relaunches both kernels until
 * no vertex was updated, reading the `over` flag back each level. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/bfs_kernels.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct bfs_cfg {
	uint64_t vertices, degree, seed;
	struct suite_opts o;
};

static int bfs_host(struct simt_host *h, void *user)
{
	const struct bfs_cfg *c = user;
	uint64_t n = c->vertices, m = n * c->degree;
	int *row = simt_malloc(h, "row_start", (n + 1) * sizeof(int), c->o.mem);
	int *col = simt_malloc(h, "col", m * sizeof(int), c->o.mem);
	unsigned char *mask = simt_malloc(h, "mask", n, c->o.mem);
	unsigned char *upd = simt_malloc(h, "updating", n, c->o.mem);
	unsigned char *vis = simt_malloc(h, "visited", n, c->o.mem);
	int *cost = simt_malloc(h, "cost", n * sizeof(int), c->o.mem);
	int *over = simt_malloc(h, "over", sizeof(int), c->o.mem);
	if (!row || !col || !mask || !upd || !vis || !cost || !over)
		return -1;
	/* Directed graph, `degree` out-edges per vertex to uniform random
	 * targets; vertex v also links to v+1 so everything is reachable. */
	for (uint64_t v = 0; v <= n; v++)
		row[v] = (int)(v * c->degree);
	for (uint64_t v = 0; v < n; v++) {
		col[v * c->degree] = (int)((v + 1) % n);
		for (uint64_t k = 1; k < c->degree; k++)
			col[v * c->degree + k] = (int)(splitmix64(c->seed ^ (v * c->degree + k)) % n);
	}
	for (uint64_t v = 0; v < n; v++)
		cost[v] = -1;
	uint64_t src = 0;
	mask[src] = vis[src] = 1;
	cost[src] = 0;
	if (simt_upload(h, row, (n + 1) * sizeof(int)) || simt_upload(h, col, m * sizeof(int)) ||
	    simt_upload(h, mask, n) || simt_upload(h, upd, n) || simt_upload(h, vis, n) ||
	    simt_upload(h, cost, n * sizeof(int)))
		return -1;
	struct bfs_args a = {row, col, mask, upd, vis, cost, over, (int)n};
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
	if (c->o.verify) { /* plain CPU BFS with a queue */
		int *dist = malloc(n * sizeof(int));
		uint64_t *q = malloc(n * sizeof(uint64_t));
		if (!dist || !q) {
			free(dist);
			free(q);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t v = 0; v < n; v++)
			dist[v] = -1;
		uint64_t qh = 0, qt = 0;
		dist[src] = 0;
		q[qt++] = src;
		while (qh < qt) {
			uint64_t v = q[qh++];
			for (int e = row[v]; e < row[v + 1]; e++)
				if (dist[col[e]] < 0) {
					dist[col[e]] = dist[v] + 1;
					q[qt++] = (uint64_t)col[e];
				}
		}
		for (uint64_t v = 0; v < n; v++)
			ok &= dist[v] == cost[v];
		free(dist);
		free(q);
	}
	char extra[64];
	snprintf(extra, sizeof extra, "levels=%llu", (unsigned long long)levels);
	suite_result(h, &c->o, suite_digest(cost, n * sizeof(int)), ok, ok ? 0 : 1, extra);
	simt_work_items(h, m);
	return 0;
}

static const struct gpuvm_param_def bfs_params[] = {
	{"vertices", GPUVM_PARAM_U64, "262144", "vertices; UVMSmart: graph256k"},
	{"degree", GPUVM_PARAM_U64, "6", "out-edges per vertex (random targets)"},
	SUITE_COMMON_PARAMS,
};

static int bfs_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
		      uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct bfs_cfg c = {.vertices = 1u << 18, .degree = 6, .seed = seed};
	if (gpuvm_params_u64(p, "vertices", &c.vertices, err) < 0 ||
	    gpuvm_params_u64(p, "degree", &c.degree, err) < 0 || suite_opts_parse(p, &c.o, err) ||
	    suite_check_range("vertices", c.vertices, 2, 1u << 30, err) ||
	    suite_check_range("degree", c.degree, 1, 1024, err))
		return -1;
	if (c.vertices * c.degree > (1ull << 31) - 1)
		return gpuvm_fail(err, "--workload", 0, "degree", "vertices x degree must be < 2^31");
	struct bfs_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("bfs", bfs_host, u, free, out, err);
}

const struct gpuvm_workload_def gpuvm_workload_bfs = {
	.name = "bfs",
	.summary = "Rodinia BFS (frontier masks, host loop on a flag) over a random CSR graph",
	.working_set = "11 B x vertices + 4 B x vertices x degree",
	.params = bfs_params,
	.n_params = sizeof bfs_params / sizeof bfs_params[0],
	.create = bfs_create,
};
