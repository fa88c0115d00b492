/* pagerank-mgpu: PageRank over any graph input, its vertices split by
 * ranges over GPUs (pagerank_mgpu_kernels.h). GPU g holds the in-edges
 * of its range (a slice of the transposed CSR), the out-degrees of its
 * range and two full copies of the contribution vector (rank /
 * out-degree of every vertex): each iteration it computes its range's
 * new ranks by pull and writes its slice of the next vector, which peer
 * copies then send to every other GPU (an all-gather, the exchange of
 * multi-GPU graph frameworks such as Gunrock's); the next iteration on a
 * GPU waits for the slices it receives. With gpus=1 there is no exchange.
 *
 * The result is the digest of the final ranks, the same bits for any
 * gpus= (each vertex's sum in the order of its in-edges); verify=1 runs
 * the same pull iteration on the CPU, which must match exactly. The
 * result line also gives iter_seconds, the simulated span of the
 * iterations (uploads done to every GPU done), and exchange_bytes, the
 * bytes the all-gathers moved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/suite/graph_input.h"
#include "workloads/suite/mgpu.h"
#include "workloads/suite/pagerank_mgpu_kernels.h"
#include "workloads/suite/suite.h"

#define PRM_BLOCK 256 /* as pagerank (Pannotia's pagerank.cpp block_size) */

struct prm_cfg {
	struct graph_input in;
	uint64_t iterations;
	uint32_t gpus;
	int verify;
};

/* The graph as the GPUs hold it: in-edges by target (a counting sort of
 * the stored edges by target, sources ascending within a target) and
 * each vertex's out-degree. */
struct prm_graph {
	int n;
	int64_t m;
	int64_t *in_row; /* [n + 1] */
	int *in_col;     /* [m]: sources */
	int *outdeg;     /* [n] */
};

struct prm_part {
	int v0, count;
	int *row, *col, *outdeg;
	float *contrib[2], *rank;
};

static void prm_free(void *user)
{
	struct prm_cfg *c = user;
	graph_input_free(&c->in);
	free(c);
}

static void prm_graph_free(struct prm_graph *g)
{
	free(g->in_row);
	free(g->in_col);
	free(g->outdeg);
}

static int prm_transpose(const struct gpuvm_graph *src, struct prm_graph *g)
{
	uint32_t n = src->n_vertices;
	uint64_t m = src->n_edges;
	g->n = (int)n;
	g->m = (int64_t)m;
	g->in_row = calloc((size_t)n + 1, sizeof *g->in_row);
	g->in_col = malloc((m ? m : 1) * sizeof *g->in_col);
	g->outdeg = malloc((n ? n : 1) * sizeof *g->outdeg);
	if (!g->in_row || !g->in_col || !g->outdeg)
		return -1;
	for (uint32_t u = 0; u < n; u++) {
		g->outdeg[u] = (int)(src->row_offsets[u + 1] - src->row_offsets[u]);
		for (uint64_t e = src->row_offsets[u]; e < src->row_offsets[u + 1]; e++)
			g->in_row[src->col_indices[e] + 1]++;
	}
	for (uint32_t v = 0; v < n; v++)
		g->in_row[v + 1] += g->in_row[v];
	int64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
	if (!fill)
		return -1;
	memcpy(fill, g->in_row, ((size_t)n + 1) * sizeof *fill);
	for (uint32_t u = 0; u < n; u++)
		for (uint64_t e = src->row_offsets[u]; e < src->row_offsets[u + 1]; e++)
			g->in_col[fill[src->col_indices[e]]++] = (int)u;
	free(fill);
	return 0;
}

/* The initial contribution of u: rank 1/n over its out-degree. */
static float prm_contrib0(const struct prm_graph *g, int u)
{
	float r = 1.0f / (float)g->n;
	return g->outdeg[u] ? r / (float)g->outdeg[u] : 0.0f;
}

/* The kernel's iteration on the CPU, float for float in the same order. */
static float *prm_reference(const struct prm_graph *g, uint64_t iters)
{
	float *c = malloc((size_t)g->n * sizeof *c), *cn = malloc((size_t)g->n * sizeof *cn);
	float *rank = malloc((size_t)g->n * sizeof *rank);
	if (!c || !cn || !rank) {
		free(c);
		free(cn);
		free(rank);
		return NULL;
	}
	for (int u = 0; u < g->n; u++) {
		c[u] = prm_contrib0(g, u);
		rank[u] = 1.0f / (float)g->n;
	}
	for (uint64_t it = 0; it < iters; it++) {
		for (int v = 0; v < g->n; v++) {
			float sum = 0.0f;
			for (int64_t e = g->in_row[v]; e < g->in_row[v + 1]; e++)
				sum += c[g->in_col[e]];
			float r = 0.15f / (float)g->n + 0.85f * sum;
			rank[v] = r;
			cn[v] = g->outdeg[v] ? r / (float)g->outdeg[v] : 0.0f;
		}
		float *t = c;
		c = cn;
		cn = t;
	}
	free(c);
	free(cn);
	return rank;
}

/* GPU g's arrays: allocated, filled and uploaded. */
static int prm_setup(struct simt_host *h, const struct prm_graph *g, uint32_t gpus, uint32_t gi,
		     struct prm_part *pt)
{
	uint64_t first, count;
	mgpu_split((uint64_t)g->n, gpus, gi, &first, &count);
	pt->v0 = (int)first;
	pt->count = (int)count;
	int64_t e0 = g->in_row[first], edges = g->in_row[first + count] - e0;
	uint64_t n = (uint64_t)g->n;
	char name[6][32];
	static const char *const what[6] = {"in_row", "in_col", "outdeg", "contrib_a", "contrib_b",
					    "rank"};
	for (int k = 0; k < 6; k++)
		snprintf(name[k], sizeof name[k], "%s%u", what[k], gi);
	if (simt_set_device(h, gi))
		return -1;
	pt->row = simt_malloc(h, name[0], (count + 1) * sizeof(int), GPUVM_ALLOC_DEVICE);
	pt->col = simt_malloc(h, name[1], (uint64_t)(edges ? edges : 1) * sizeof(int),
			      GPUVM_ALLOC_DEVICE);
	pt->outdeg = simt_malloc(h, name[2], (count ? count : 1) * sizeof(int), GPUVM_ALLOC_DEVICE);
	pt->contrib[0] = simt_malloc(h, name[3], n * sizeof(float), GPUVM_ALLOC_DEVICE);
	pt->contrib[1] = simt_malloc(h, name[4], n * sizeof(float), GPUVM_ALLOC_DEVICE);
	pt->rank = simt_malloc(h, name[5], (count ? count : 1) * sizeof(float), GPUVM_ALLOC_DEVICE);
	if (!pt->row || !pt->col || !pt->outdeg || !pt->contrib[0] || !pt->contrib[1] || !pt->rank)
		return -1;
	for (uint64_t i = 0; i <= count; i++)
		pt->row[i] = (int)(g->in_row[first + i] - e0);
	memcpy(pt->col, g->in_col + e0, (size_t)edges * sizeof(int));
	memcpy(pt->outdeg, g->outdeg + first, count * sizeof(int));
	for (int u = 0; u < g->n; u++)
		pt->contrib[0][u] = prm_contrib0(g, u);
	return simt_upload(h, pt->row, (count + 1) * sizeof(int)) ||
	       simt_upload(h, pt->col, (uint64_t)edges * sizeof(int)) ||
	       simt_upload(h, pt->outdeg, count * sizeof(int)) ||
	       simt_upload(h, pt->contrib[0], n * sizeof(float));
}

static int prm_host(struct simt_host *h, void *user)
{
	struct prm_cfg *c = user;
	struct prm_graph g = {0};
	struct prm_part parts[GPUVM_RUN_MAX_DEVICES];
	if (prm_transpose(&c->in.g, &g)) {
		prm_graph_free(&g);
		return simt_fail(h, "out of memory for the transposed graph");
	}
	int rc = -1;
	for (uint32_t gi = 0; gi < c->gpus; gi++)
		if (prm_setup(h, &g, c->gpus, gi, &parts[gi]))
			goto out;
	int cur = 0;
	uint64_t exchange_bytes = 0;
	double t0 = simt_now_seconds(h);
	for (uint64_t it = 0; it < c->iterations; it++) {
		for (uint32_t gi = 0; gi < c->gpus; gi++) {
			struct prm_part *pt = &parts[gi];
			struct pagerank_pull_args a = {pt->row,	   pt->col,	     pt->outdeg,
						       pt->contrib[cur], pt->contrib[!cur], pt->rank,
						       pt->v0,	   pt->count,	     g.n};
			if (simt_set_device(h, gi) ||
			    SIMT_LAUNCH(h, pagerank_pull,
					simt_dim3(suite_div_up((uint64_t)pt->count, PRM_BLOCK), 1, 1),
					simt_dim3(PRM_BLOCK, 1, 1), a))
				goto out;
		}
		/* all-gather: each GPU's new slice to every other GPU */
		for (uint32_t gi = 0; gi < c->gpus; gi++)
			for (uint32_t k = 0; k < c->gpus; k++) {
				const struct prm_part *src = &parts[gi];
				uint64_t bytes = (uint64_t)src->count * sizeof(float);
				if (k == gi || !bytes)
					continue;
				if (simt_memcpy_peer_async(h, parts[k].contrib[!cur] + src->v0,
							   src->contrib[!cur] + src->v0, bytes))
					goto out;
				exchange_bytes += bytes;
			}
		cur = !cur;
	}
	for (uint32_t gi = 0; gi < c->gpus; gi++)
		if (simt_set_device(h, gi) || simt_device_sync(h))
			goto out;
	double iter_seconds = simt_now_seconds(h) - t0;
	uint64_t digest = 14695981039346656037ull;
	double sum = 0;
	for (uint32_t gi = 0; gi < c->gpus; gi++) {
		struct prm_part *pt = &parts[gi];
		if (simt_set_device(h, gi) ||
		    simt_download(h, pt->rank, (uint64_t)pt->count * sizeof(float)))
			goto out;
		const unsigned char *b = (const unsigned char *)pt->rank;
		for (size_t i = 0; i < (size_t)pt->count * sizeof(float); i++) {
			digest ^= b[i];
			digest *= 1099511628211ull;
		}
		for (int i = 0; i < pt->count; i++)
			sum += pt->rank[i];
	}
	int ok = 1;
	if (c->verify) {
		float *want = prm_reference(&g, c->iterations);
		if (!want) {
			simt_fail(h, "out of memory for the reference");
			goto out;
		}
		for (uint32_t gi = 0; gi < c->gpus && ok; gi++)
			ok = !memcmp(parts[gi].rank, want + parts[gi].v0,
				     (size_t)parts[gi].count * sizeof(float));
		free(want);
	}
	struct suite_opts o = {.verify = c->verify};
	char extra[224];
	snprintf(extra, sizeof extra,
		 "graph=%s vertices=%d edges=%lld gpus=%u rank_sum=%.6f iter_seconds=%.6g "
		 "exchange_bytes=%llu",
		 c->in.desc, g.n, (long long)g.m, c->gpus, sum, iter_seconds,
		 (unsigned long long)exchange_bytes);
	suite_result(h, &o, digest, ok, ok ? 0 : 1, extra);
	simt_work_items(h, (uint64_t)g.m * c->iterations);
	rc = 0;
out:
	prm_graph_free(&g);
	return rc;
}

static const struct gpuvm_param_def prm_params[] = {
	GRAPH_INPUT_PARAMS("rmat-16-16", "1048576", "8"),
	{"iterations", GPUVM_PARAM_U64, "20", "pull iterations, each followed by the all-gather"},
	{"verify", GPUVM_PARAM_U64, "0", "1: compare with the CPU's pull iteration (exact)"},
	MGPU_GPUS_PARAM,
};

static int prm_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p, uint64_t seed,
		      struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct prm_cfg *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	c->iterations = 20;
	uint64_t verify = 0;
	static const struct graph_input_defaults def = {"rmat-16-16", 1u << 20, 8};
	if (gpuvm_params_u64(p, "iterations", &c->iterations, err) < 0 ||
	    gpuvm_params_u64(p, "verify", &verify, err) < 0 || mgpu_gpus(cfg, p, &c->gpus, err) ||
	    graph_input_load(p, seed, 0, &def, &c->in, err)) {
		free(c);
		return -1;
	}
	c->verify = (int)verify;
	/* the kernels index with int, as the CUDA codes do */
	if (c->in.g.n_edges > (uint64_t)INT32_MAX || c->in.g.n_vertices < c->gpus) {
		int few = c->in.g.n_vertices < c->gpus;
		uint64_t have = few ? c->in.g.n_vertices : c->in.g.n_edges;
		prm_free(c);
		return gpuvm_params_constraint(err, few ? "vertices" : "graph",
					       few ? "fewer vertices (%llu) than GPUs"
						   : "%llu edges: more than an int indexes",
					       (unsigned long long)have);
	}
	return simt_program_source("pagerank-mgpu", prm_host, c, prm_free, out, err);
}

static const struct gpuvm_param_range prm_ranges[] = {
	GPUVM_RANGE("iterations", 1, 10000),
	GPUVM_RANGE("verify", 0, 1),
	GRAPH_INPUT_RANGES,
	MGPU_GPUS_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_pagerank_mgpu = {
	.name = "pagerank-mgpu",
	.summary = "PageRank by pull, vertices split over GPUs, ranks all-gathered by peer copies",
	.working_set = "8 B x vertices x (gpus + 1) + 8 B x edges, split",
	.params = prm_params,
	.n_params = sizeof prm_params / sizeof prm_params[0],
	GPUVM_WORKLOAD_RANGES(prm_ranges),
	.constraints = "vertices at least gpus; edges below 2^31; gpus at most the system's",
	.create = prm_create,
};
