/* bc: Pannotia's betweenness centrality (bc_kernels.h) over any graph
 * input. Per source: clean_1d_array; bfs_kernel level by level until no
 * vertex was reached (reading `cont` back); backtrack_kernel from the
 * deepest level up. Pannotia runs every vertex as a source (O(n m)); here
 * sources=K runs the first K iterations of that loop (sources 0..K-1).
 * Reference: Brandes' algorithm (BFS, path counts, dependencies) in double
 * precision on the CPU for the same sources; float path counts and
 * atomics differ in rounding, so the check is a relative tolerance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/bc_kernels.h"
#include "workloads/suite/graph_input.h"
#include "workloads/suite/suite.h"

#define BC_BLOCK 128 /* BC.cpp: local_worksize */
/* |got - want| / max(1, want): float sums of path counts and
 * dependencies over a few hundred thousand paths keep ~1e-5. */
#define BC_TOLERANCE 1e-3

struct bc_cfg {
	struct graph_input in;
	uint64_t sources;
	struct suite_opts o;
};

static void bc_free(void *user)
{
	struct bc_cfg *c = user;
	graph_input_free(&c->in);
	free(c);
}

static int bc_reference(const struct graph_dev *g, int sources, double *bc)
{
	int n = g->n;
	int *d = malloc((size_t)n * sizeof *d), *q = malloc((size_t)n * sizeof *q);
	double *paths = malloc((size_t)n * sizeof *paths), *dep = malloc((size_t)n * sizeof *dep);
	if (!d || !q || !paths || !dep) {
		free(d);
		free(q);
		free(paths);
		free(dep);
		return -1;
	}
	for (int v = 0; v < n; v++)
		bc[v] = 0;
	for (int s = 0; s < sources; s++) {
		for (int v = 0; v < n; v++) {
			d[v] = -1;
			paths[v] = dep[v] = 0;
		}
		int qh = 0, qt = 0;
		d[s] = 0;
		paths[s] = 1;
		q[qt++] = s;
		while (qh < qt) {
			int v = q[qh++];
			for (int e = g->row[v]; e < g->row[v + 1]; e++) {
				int w = g->col[e];
				if (d[w] < 0) {
					d[w] = d[v] + 1;
					q[qt++] = w;
				}
				if (d[w] == d[v] + 1)
					paths[w] += paths[v];
			}
		}
		for (int i = qt - 1; i >= 0; i--) { /* in order of decreasing distance */
			int w = q[i];
			for (int e = g->row[w]; e < g->row[w + 1]; e++) {
				int x = g->col[e];
				if (d[x] == d[w] + 1)
					dep[w] += paths[w] / paths[x] * (1 + dep[x]);
			}
			if (w != s)
				bc[w] += dep[w];
		}
	}
	free(d);
	free(q);
	free(paths);
	free(dep);
	return 0;
}

static int bc_host(struct simt_host *h, void *user)
{
	struct bc_cfg *c = user;
	struct graph_dev g;
	if (graph_dev_upload(h, &c->in, c->o.mem, &g))
		return -1;
	uint64_t n = (uint64_t)g.n, m = (uint64_t)g.m;
	/* the transposed graph (in-edges) for the backward sweep */
	int *row_t = simt_malloc(h, "row_start_t", (n + 1) * sizeof(int), c->o.mem);
	int *col_t = simt_malloc(h, "col_t", (m ? m : 1) * sizeof(int), c->o.mem);
	int *d = simt_malloc(h, "dist", n * sizeof(int), c->o.mem);
	float *rho = simt_malloc(h, "rho", n * sizeof(float), c->o.mem);
	float *sigma = simt_malloc(h, "sigma", n * sizeof(float), c->o.mem);
	float *bc = simt_malloc(h, "bc", n * sizeof(float), c->o.mem);
	int *cont = simt_malloc(h, "cont", sizeof(int), c->o.mem);
	if (!row_t || !col_t || !d || !rho || !sigma || !bc || !cont)
		return -1;
	for (uint64_t e = 0; e < m; e++)
		row_t[g.col[e] + 1]++;
	for (uint64_t v = 0; v < n; v++)
		row_t[v + 1] += row_t[v];
	for (int v = 0; v < g.n; v++) /* row_t[u] is u's cursor while filling */
		for (int e = g.row[v]; e < g.row[v + 1]; e++)
			col_t[row_t[g.col[e]]++] = v;
	for (uint64_t v = n; v > 0; v--)
		row_t[v] = row_t[v - 1];
	row_t[0] = 0;
	if (simt_upload(h, row_t, (n + 1) * sizeof(int)) ||
	    simt_upload(h, col_t, (m ? m : 1) * sizeof(int)))
		return -1;
	struct bc_args a = {g.row, g.col, row_t, col_t, d, rho, sigma, bc, cont, g.n, 0, 0};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, BC_BLOCK), 1, 1),
			 block = simt_dim3(BC_BLOCK, 1, 1);
	if (SIMT_LAUNCH(h, bc_clean_bc, grid, block, a))
		return -1;
	int sources = (int)(c->sources < n ? c->sources : n);
	uint64_t levels = 0;
	for (int s = 0; s < sources; s++) {
		a.source = s;
		if (SIMT_LAUNCH(h, bc_clean_1d, grid, block, a))
			return -1;
		a.dist = 0;
		do {
			*cont = 0;
			if (simt_upload(h, cont, sizeof(int)) || SIMT_LAUNCH(h, bc_bfs, grid, block, a) ||
			    simt_download(h, cont, sizeof(int)))
				return -1;
			a.dist++;
		} while (*cont);
		levels += (uint64_t)a.dist;
		for (; a.dist > 0; a.dist--)
			if (SIMT_LAUNCH(h, bc_backtrack, grid, block, a))
				return -1;
	}
	if (simt_download(h, bc, n * sizeof(float)))
		return -1;
	int ok = 1;
	double max_err = 0, total = 0;
	for (uint64_t v = 0; v < n; v++)
		total += bc[v];
	if (c->o.verify) {
		double *want = malloc(n * sizeof *want);
		if (!want || bc_reference(&g, sources, want)) {
			free(want);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t v = 0; v < n; v++) {
			double e = fabs(bc[v] - want[v]) / (want[v] > 1 ? want[v] : 1);
			if (!(e <= max_err))
				max_err = isnan(e) ? INFINITY : e;
		}
		ok = max_err <= BC_TOLERANCE;
		free(want);
	}
	char extra[192];
	snprintf(extra, sizeof extra, "graph=%s vertices=%d edges=%d sources=%d levels=%llu bc_sum=%.6g",
		 c->in.desc, g.n, g.m, sources, (unsigned long long)levels, total);
	suite_result(h, &c->o, suite_digest(bc, n * sizeof(float)), ok, max_err, extra);
	simt_work_items(h, m * (uint64_t)sources);
	return 0;
}

static const struct gpuvm_param_def bc_params[] = {
	GRAPH_INPUT_PARAMS("rmat-14-16", "65536", "8"),
	{"sources", GPUVM_PARAM_U64, "8",
	 "source vertices 0..K-1 (Pannotia: every vertex, n BFS+backtrack passes)"},
	SUITE_COMMON_PARAMS,
};

static int bc_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		     struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct bc_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	c->sources = 8;
	static const struct graph_input_defaults def = {"rmat-14-16", 1u << 16, 8};
	if (suite_opts_parse(p, &c->o, err) ||
	    gpuvm_params_u64(p, "sources", &c->sources, err) < 0 ||
	    graph_input_load(p, seed, 0, &def, &c->in, err)) {
		free(c);
		return -1;
	}
	return simt_program_source("bc", bc_host, c, bc_free, out, err);
}

static const struct gpuvm_param_range bc_ranges[] = {
	GPUVM_RANGE("sources", 1, 1u << 31),
	GRAPH_INPUT_RANGES,
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_bc = {
	.name = "bc",
	.summary = "Pannotia betweenness centrality (BFS path counts, backtrack on the transpose)",
	.working_set = "24 B x vertices + 8 B x edges",
	.params = bc_params,
	.n_params = sizeof bc_params / sizeof bc_params[0],
	GPUVM_WORKLOAD_RANGES(bc_ranges),
	.create = bc_create,
};
