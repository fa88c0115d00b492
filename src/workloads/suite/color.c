/* color: Pannotia's max-min graph colouring (color_kernels.h) over any
 * graph input, made undirected. The host loops {stop = 0; color1; color2;
 * read stop; c += 2} while some uncoloured vertex saw an uncoloured
 * neighbour. Reference: the same rounds in plain C (race-free), compared
 * exactly; the colouring is also checked to be complete and proper. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/color_kernels.h"
#include "workloads/suite/graph_input.h"
#include "workloads/suite/suite.h"

#define COLOR_BLOCK 256 /* coloring_maxmin.cpp: work-group size */

struct color_cfg {
	struct graph_input in;
	uint64_t seed;
	struct suite_opts o;
};

static void color_free(void *user)
{
	struct color_cfg *c = user;
	graph_input_free(&c->in);
	free(c);
}

static int color_reference(const struct graph_dev *g, const float *value, int *color)
{
	int n = g->n;
	float *mx = malloc((size_t)n * sizeof *mx), *mn = malloc((size_t)n * sizeof *mn);
	if (!mx || !mn) {
		free(mx);
		free(mn);
		return -1;
	}
	for (int v = 0; v < n; v++)
		color[v] = -1;
	for (int c = 0, more = 1; more; c += 2) {
		more = 0;
		for (int v = 0; v < n; v++) {
			if (color[v] != -1)
				continue;
			mx[v] = -1.0f;
			mn[v] = COLOR_BIG_NUM;
			for (int e = g->row[v]; e < g->row[v + 1]; e++) {
				int u = g->col[e];
				if (color[u] != -1)
					continue;
				more = 1;
				if (value[u] > mx[v])
					mx[v] = value[u];
				if (value[u] < mn[v])
					mn[v] = value[u];
			}
		}
		for (int v = 0; v < n; v++)
			if (color[v] == -1) {
				if (value[v] > mx[v])
					color[v] = c;
				if (value[v] < mn[v])
					color[v] = c + 1;
			}
	}
	free(mx);
	free(mn);
	return 0;
}

static int color_valid(const struct graph_dev *g, const int *color)
{
	for (int v = 0; v < g->n; v++) {
		if (color[v] < 0)
			return 0;
		for (int e = g->row[v]; e < g->row[v + 1]; e++)
			if (g->col[e] != v && color[g->col[e]] == color[v])
				return 0;
	}
	return 1;
}

static int color_host(struct simt_host *h, void *user)
{
	struct color_cfg *c = user;
	struct graph_dev g;
	if (graph_dev_upload(h, &c->in, c->o.mem, &g))
		return -1;
	uint64_t n = (uint64_t)g.n;
	float *value = simt_malloc(h, "node_value", n * sizeof(float), c->o.mem);
	int *color = simt_malloc(h, "color_array", n * sizeof(int), c->o.mem);
	int *stop = simt_malloc(h, "stop", sizeof(int), c->o.mem);
	float *max_d = simt_malloc(h, "max_d", n * sizeof(float), c->o.mem);
	float *min_d = simt_malloc(h, "min_d", n * sizeof(float), c->o.mem);
	if (!value || !color || !stop || !max_d || !min_d)
		return -1;
	if (graph_random_values(value, g.n, c->seed))
		return simt_fail(h, "out of memory for the vertex values");
	for (uint64_t v = 0; v < n; v++)
		color[v] = -1;
	if (simt_upload(h, value, n * sizeof(float)) || simt_upload(h, color, n * sizeof(int)))
		return -1;
	struct color_args a = {g.row, g.col, value, color, stop, max_d, min_d, 0, g.n};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, COLOR_BLOCK), 1, 1),
			 block = simt_dim3(COLOR_BLOCK, 1, 1);
	uint64_t rounds = 0;
	do {
		*stop = 0;
		if (simt_upload(h, stop, sizeof(int)) || SIMT_LAUNCH(h, color1, grid, block, a) ||
		    SIMT_LAUNCH(h, color2, grid, block, a) || simt_download(h, stop, sizeof(int)))
			return -1;
		a.c += 2;
		rounds++;
	} while (*stop);
	if (simt_download(h, color, n * sizeof(int)))
		return -1;
	int colors = 0;
	for (uint64_t v = 0; v < n; v++)
		if (color[v] + 1 > colors)
			colors = color[v] + 1;
	int ok = 1;
	if (c->o.verify) {
		int *want = malloc(n * sizeof *want);
		if (!want || color_reference(&g, value, want)) {
			free(want);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t v = 0; v < n; v++)
			ok &= want[v] == color[v];
		ok &= color_valid(&g, color);
		free(want);
	}
	char extra[192];
	snprintf(extra, sizeof extra, "graph=%s vertices=%d edges=%d rounds=%llu colors=%d",
		 c->in.desc, g.n, g.m, (unsigned long long)rounds, colors);
	suite_result(h, &c->o, suite_digest(color, n * sizeof(int)), ok, ok ? 0 : 1, extra);
	simt_work_items(h, (uint64_t)g.m);
	return 0;
}

static const struct gpuvm_param_def color_params[] = {
	GRAPH_INPUT_PARAMS("rmat-14-16", "1048576", "8"),
	SUITE_COMMON_PARAMS,
};

static int color_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct color_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	c->seed = seed;
	static const struct graph_input_defaults def = {"rmat-14-16", 1u << 20, 8};
	if (suite_opts_parse(p, &c->o, err) ||
	    graph_input_load(p, seed, GRAPH_UNDIRECTED, &def, &c->in, err)) {
		free(c);
		return -1;
	}
	if (c->in.g.n_vertices > GRAPH_DISTINCT_VALUES_MAX) {
		color_free(c);
		return gpuvm_fail(err, "--workload", 0, "graph",
				  "color needs distinct float vertex values: at most 2^24 vertices");
	}
	return simt_program_source("color", color_host, c, color_free, out, err);
}

static const struct gpuvm_param_range color_ranges[] = {
	GRAPH_INPUT_RANGES,
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_color = {
	.name = "color",
	.summary = "Pannotia max-min graph colouring (two colours per round), undirected",
	.working_set = "20 B x vertices + 4 B x edges (edges after symmetrizing)",
	.params = color_params,
	.n_params = sizeof color_params / sizeof color_params[0],
	GPUVM_WORKLOAD_RANGES(color_ranges),
	.create = color_create,
};
