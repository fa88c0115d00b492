/* mis: Pannotia's maximal independent set (mis_kernels.h) over any graph
 * input, made undirected as Pannotia's parser does for mis. The host
 * loops init, then {stop = 0; mis1; mis2; mis3; read stop} until no
 * vertex is undecided. Reference: the same rounds in plain C (the kernels
 * are race-free: a vertex joining the set has no neighbour joining with
 * it), compared exactly; the set is also checked to be independent and
 * maximal. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/graph_input.h"
#include "workloads/suite/mis_kernels.h"
#include "workloads/suite/suite.h"

#define MIS_BLOCK 256 /* mis.cpp: work-group size */

struct mis_cfg {
	struct graph_input in;
	uint64_t seed;
	struct suite_opts o;
};

static void mis_free(void *user)
{
	struct mis_cfg *c = user;
	graph_input_free(&c->in);
	free(c);
}

/* The rounds of mis1-mis3, sequentially. */
static int mis_reference(const struct graph_dev *g, const float *value, int *set)
{
	int n = g->n;
	int *status = malloc((size_t)n * sizeof *status);
	float *mn = malloc((size_t)n * sizeof *mn);
	unsigned char *out = calloc((size_t)n, 1);
	if (!status || !mn || !out) {
		free(status);
		free(mn);
		free(out);
		return -1;
	}
	for (int v = 0; v < n; v++) {
		status[v] = -1;
		set[v] = 0;
	}
	for (int undecided = 1; undecided;) {
		undecided = 0;
		for (int v = 0; v < n; v++) {
			if (status[v] != -1)
				continue;
			undecided = 1;
			mn[v] = MIS_BIGNUM;
			for (int e = g->row[v]; e < g->row[v + 1]; e++)
				if (status[g->col[e]] == -1 && value[g->col[e]] < mn[v])
					mn[v] = value[g->col[e]];
		}
		for (int v = 0; v < n; v++)
			if (status[v] == -1 && value[v] < mn[v]) {
				set[v] = 2;
				status[v] = -2;
				for (int e = g->row[v]; e < g->row[v + 1]; e++)
					if (status[g->col[e]] == -1)
						out[g->col[e]] = 1;
			}
		for (int v = 0; v < n; v++)
			if (out[v])
				status[v] = -2;
	}
	free(status);
	free(mn);
	free(out);
	return 0;
}

/* 1 if the members (set == 2) are independent and every other vertex has
 * a member neighbour. */
static int mis_valid(const struct graph_dev *g, const int *set)
{
	for (int v = 0; v < g->n; v++) {
		int covered = set[v] == 2;
		for (int e = g->row[v]; e < g->row[v + 1]; e++) {
			int u = g->col[e];
			if (set[v] == 2 && set[u] == 2 && u != v)
				return 0;
			covered |= set[u] == 2;
		}
		if (!covered)
			return 0;
	}
	return 1;
}

static int mis_host(struct simt_host *h, void *user)
{
	struct mis_cfg *c = user;
	struct graph_dev g;
	if (graph_dev_upload(h, &c->in, c->o.mem, &g))
		return -1;
	uint64_t n = (uint64_t)g.n;
	float *value = simt_malloc(h, "node_value", n * sizeof(float), c->o.mem);
	int *set = simt_malloc(h, "s_array", n * sizeof(int), c->o.mem);
	int *status = simt_malloc(h, "c_array", n * sizeof(int), c->o.mem);
	int *status_upd = simt_malloc(h, "cu_array", n * sizeof(int), c->o.mem);
	float *min_value = simt_malloc(h, "min_array", n * sizeof(float), c->o.mem);
	int *stop = simt_malloc(h, "stop", sizeof(int), c->o.mem);
	if (!value || !set || !status || !status_upd || !min_value || !stop)
		return -1;
	if (graph_random_values(value, g.n, c->seed))
		return simt_fail(h, "out of memory for the vertex values");
	if (simt_upload(h, value, n * sizeof(float)))
		return -1;
	struct mis_args a = {g.row, g.col, value, set, status, status_upd, min_value, stop, g.n};
	struct simt_dim3 grid = simt_dim3(suite_div_up(n, MIS_BLOCK), 1, 1),
			 block = simt_dim3(MIS_BLOCK, 1, 1);
	if (SIMT_LAUNCH(h, mis_init, grid, block, a))
		return -1;
	uint64_t rounds = 0;
	do {
		*stop = 0;
		if (simt_upload(h, stop, sizeof(int)) || SIMT_LAUNCH(h, mis1, grid, block, a) ||
		    SIMT_LAUNCH(h, mis2, grid, block, a) || SIMT_LAUNCH(h, mis3, grid, block, a) ||
		    simt_download(h, stop, sizeof(int)))
			return -1;
		rounds++;
	} while (*stop);
	if (simt_download(h, set, n * sizeof(int)))
		return -1;
	uint64_t members = 0;
	for (uint64_t v = 0; v < n; v++)
		members += set[v] == 2;
	int ok = 1;
	if (c->o.verify) {
		int *want = malloc(n * sizeof *want);
		if (!want || mis_reference(&g, value, want)) {
			free(want);
			return simt_fail(h, "out of memory for the reference");
		}
		for (uint64_t v = 0; v < n; v++)
			ok &= want[v] == set[v];
		ok &= mis_valid(&g, set);
		free(want);
	}
	char extra[192];
	snprintf(extra, sizeof extra, "graph=%s vertices=%d edges=%d rounds=%llu set_size=%llu",
		 c->in.desc, g.n, g.m, (unsigned long long)rounds, (unsigned long long)members);
	suite_result(h, &c->o, suite_digest(set, n * sizeof(int)), ok, ok ? 0 : 1, extra);
	simt_work_items(h, (uint64_t)g.m);
	return 0;
}

static const struct gpuvm_param_def mis_params[] = {
	GRAPH_INPUT_PARAMS("rmat-16-16", "1048576", "8"),
	SUITE_COMMON_PARAMS,
};

static int mis_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)cfg;
	struct mis_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	c->seed = seed;
	/* Pannotia's inputs are DIMACS/SNAP files: an R-MAT graph stands in */
	static const struct graph_input_defaults def = {"rmat-16-16", 1u << 20, 8};
	if (suite_opts_parse(p, &c->o, err) ||
	    graph_input_load(p, seed, GRAPH_UNDIRECTED, &def, &c->in, err)) {
		free(c);
		return -1;
	}
	if (c->in.g.n_vertices > GRAPH_DISTINCT_VALUES_MAX) {
		mis_free(c);
		return gpuvm_fail(err, "--workload", 0, "graph",
				  "mis needs distinct float vertex values: at most 2^24 vertices");
	}
	return simt_program_source("mis", mis_host, c, mis_free, out, err);
}

static const struct gpuvm_param_range mis_ranges[] = {
	GRAPH_INPUT_RANGES,
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_mis = {
	.name = "mis",
	.summary = "Pannotia maximal independent set (random values, mis1/mis2/mis3 rounds), undirected",
	.working_set = "24 B x vertices + 4 B x edges (edges after symmetrizing)",
	.params = mis_params,
	.n_params = sizeof mis_params / sizeof mis_params[0],
	GPUVM_WORKLOAD_RANGES(mis_ranges),
	.create = mis_create,
};
