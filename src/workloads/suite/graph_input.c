/* Graph inputs of the graph kernels: parameters, loading, upload. */
#include "workloads/suite/graph_input.h"
#include "gpuvm/number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/input_threads.h"
#include "graph/csr_build.h"
#include "gpuvm/units.h"
#include "workloads/glibc_rand.h"
#include "workloads/workload_util.h"

/* vertices x degree out-edges to uniform random targets: UVMSmart's sssp
 * generator (generateRandomGraph: neighborsPerVertex random targets per
 * vertex) and the shape of Rodinia's graphgen. Duplicates and self loops
 * are dropped like any other input's (UVMSmart redraws them; at these
 * sizes that changes a handful of edges). */
static int uniform_graph(uint64_t n, uint64_t degree, uint64_t seed, bool mirror,
			 const struct gpuvm_graph_opts *opts, struct gpuvm_graph *g,
			 struct gpuvm_error *err)
{
	struct csr_build b;
	if (csr_begin(&b, (uint32_t)n, mirror, true, false, err))
		return -1;
	/* the seed mixed before it meets the edge index: seed ^ i alone gave
	 * seeds s and s ^ 1 the same draws in swapped pairs, the same graph
	 * whenever the degree is even */
	uint64_t key = splitmix64(seed);
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && csr_alloc(&b, err)) {
			csr_abandon(&b);
			return -1;
		}
		for (uint64_t v = 0; v < n; v++)
			for (uint64_t k = 0; k < degree; k++) {
				uint32_t t = (uint32_t)(splitmix64(key ^ (v * degree + k)) % n);
				if (pass == 0)
					csr_count(&b, (uint32_t)v, t);
				else
					csr_place(&b, (uint32_t)v, t, 0);
			}
	}
	return csr_finish(&b, opts, !mirror, g, err);
}

/* UVMSmart's sssp input itself (graph=uniform-glibc): generateRandomGraph
 * of benchmarks/Managed/sssp/sssp.cu (gpgpu-sim_UVMSmart 2be17e0) drawn
 * from glibc's rand() after srand(seed) (its main calls no srand: seed 1,
 * glibc_rand.h). For each vertex k in order, each of its degree targets
 * is rand() % n, redrawn while it equals k or a target already drawn for
 * k, then its weight is rand() % 1000 (sssp.cu: (rand() % 1000) / 1000.0f;
 * here the integer, the same order of every sum up to float rounding).
 * Its published logs show the draw: vertex 0's out-edges lead to 738663
 * and 825449 (the first and third rand() % 2^20), the pages its Kernel1's
 * first reads touch (output_logs/NoOversub/Always/sssp.log: the DMAs at
 * 0xc02d15a0 and 0xc03261a0). Rows come out sorted (csr_finish); the
 * kernels read the same two-edge rows. */
static int glibc_graph(uint64_t n, uint64_t degree, uint64_t seed, bool mirror,
		       const struct gpuvm_graph_opts *opts, struct gpuvm_graph *g,
		       struct gpuvm_error *err)
{
	if (degree >= n)
		return gpuvm_fail(err, "--workload", 0, "degree",
				  "graph=uniform-glibc draws %llu distinct targets other than the vertex "
				  "itself among %llu vertices",
				  (unsigned long long)degree, (unsigned long long)n);
	uint32_t *t = malloc(degree * sizeof *t);
	struct csr_build b;
	if (!t || csr_begin(&b, (uint32_t)n, mirror, true, true, err)) {
		free(t);
		return t ? -1 : gpuvm_fail(err, "graph", 0, NULL, "out of memory");
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1 && csr_alloc(&b, err)) {
			csr_abandon(&b);
			free(t);
			return -1;
		}
		struct glibc_rand r;
		glibc_srand(&r, (uint32_t)seed);
		for (uint64_t v = 0; v < n; v++)
			for (uint64_t k = 0; k < degree; k++) {
				uint32_t x;
				bool again;
				do {
					x = (uint32_t)((uint64_t)glibc_rand(&r) % n);
					again = x == v;
					for (uint64_t j = 0; j < k && !again; j++)
						again = t[j] == x;
				} while (again);
				t[k] = x;
				uint32_t w = (uint32_t)(glibc_rand(&r) % 1000);
				if (pass == 0)
					csr_count(&b, (uint32_t)v, x);
				else
					csr_place(&b, (uint32_t)v, x, w);
			}
	}
	free(t);
	return csr_finish(&b, opts, !mirror, g, err);
}

/* "rmat-S[-E]" or "rmat:k=v:k=v" -> the graph library's "rmat:k=v,k=v". */
static int rmat_spec(const char *v, char *out, size_t len, struct gpuvm_error *err)
{
	const char *kind = !strncmp(v, "kron", 4) ? "kron" : "rmat";
	if (v[4] == '-') {
		const char *end;
		/* the numbers are only spelled here: the graph library
		 * checks their ranges (rmat:scale=,ef=) and names them */
		uint64_t scale, ef = 16;
		if (gpuvm_scan_u64(v + 5, &end, 0, UINT64_MAX, &scale) || (*end && *end != '-'))
			return gpuvm_fail(err, "--workload", 0, "graph",
					  "'%s': expected rmat-SCALE[-EDGEFACTOR]", v);
		if (*end == '-') {
			const char *e = end + 1;
			if (gpuvm_scan_u64(e, &end, 0, UINT64_MAX, &ef) || *end)
				return gpuvm_fail(err, "--workload", 0, "graph",
						  "'%s': expected rmat-SCALE[-EDGEFACTOR]", v);
		}
		snprintf(out, len, "%s:scale=%llu,ef=%llu", kind, (unsigned long long)scale,
			 (unsigned long long)ef);
		return 0;
	}
	if (strlen(v) >= len)
		return gpuvm_fail(err, "--workload", 0, "graph", "graph spec too long");
	strcpy(out, v);
	for (char *c = out + 5; *c; c++)
		if (*c == ':')
			*c = ',';
	return 0;
}

static bool is_rmat(const char *v)
{
	return (!strncmp(v, "rmat", 4) || !strncmp(v, "kron", 4)) &&
	       (v[4] == 0 || v[4] == ':' || v[4] == '-');
}

int graph_input_load(const struct gpuvm_params *p, uint64_t seed, unsigned flags,
		     const struct graph_input_defaults *def, struct graph_input *in,
		     struct gpuvm_error *err)
{
	memset(in, 0, sizeof *in);
	const char *spec = gpuvm_params_text(p, "graph");
	if (!spec)
		spec = def->graph;
	uint64_t vertices = def->vertices, degree = def->degree;
	if (gpuvm_params_u64(p, "vertices", &vertices, err) < 0 ||
	    gpuvm_params_u64(p, "degree", &degree, err) < 0)
		return -1;
	unsigned sym = 0; /* auto */
	if (gpuvm_params_choice(p, "symmetrize", "auto|1|0", &sym, err) < 0)
		return -1;
	bool rmat = is_rmat(spec), glibc = !strcmp(spec, "uniform-glibc");
	bool uniform = glibc || !strcmp(spec, "uniform");
	/* vertices and degree shape the generated uniform graph alone: under
	 * another graph they were read and ignored (issue 79: bc:vertices=64
	 * ran bc's default graph) */
	static const char *const uniform_only[] = {"vertices", "degree"};
	for (int k = 0; k < 2 && !uniform; k++)
		if (gpuvm_params_text(p, uniform_only[k]))
			return gpuvm_fail(err, "--workload", 0, uniform_only[k],
					  "applies to graph=uniform only, and the graph here is "
					  "'%s' (give graph=uniform, or leave %s out)", spec,
					  uniform_only[k]);
	bool mirror = (flags & GRAPH_UNDIRECTED) || sym == 1 || (sym == 0 && rmat);
	struct gpuvm_graph_opts o = {
		.symmetrize = mirror,
		.want_weights = (flags & GRAPH_WEIGHTS) != 0,
		.drop_weights = !(flags & GRAPH_WEIGHTS),
		.seed = seed,
		/* int CSR indices on the device */
		.max_vertices = (1ull << 31) - 2,
		.threads = gpuvm_input_threads(),
	};
	int rc;
	if (uniform) {
		rc = glibc ? glibc_graph(vertices, degree, seed, mirror, &o, &in->g, err)
			   : uniform_graph(vertices, degree, seed, mirror, &o, &in->g, err);
		snprintf(in->desc, sizeof in->desc, "%s-%llu-%llu", spec,
			 (unsigned long long)vertices, (unsigned long long)degree);
	} else if (rmat) {
		char lib[320];
		if (rmat_spec(spec, lib, sizeof lib, err))
			return -1;
		rc = gpuvm_graph_open(lib, &o, &in->g, err);
		if (!rc) {
			struct gpuvm_rmat_params rp = {.seed = seed};
			gpuvm_rmat_parse(lib, &rp, err);
			snprintf(in->desc, sizeof in->desc, "rmat-%u-%u", rp.scale, rp.edge_factor);
		}
	} else {
		rc = gpuvm_graph_open(spec, &o, &in->g, err);
		const char *base = strrchr(spec, '/');
		snprintf(in->desc, sizeof in->desc, "%s", base ? base + 1 : spec);
	}
	if (rc)
		return -1;
	if (in->g.n_vertices < 1) {
		graph_input_free(in);
		return gpuvm_fail(err, "--workload", 0, "graph", "'%s' has no vertices", spec);
	}
	if (in->g.n_edges > (uint64_t)INT32_MAX) {
		unsigned long long m = in->g.n_edges;
		graph_input_free(in);
		return gpuvm_fail(err, "--workload", 0, "graph",
				  "'%s' has %llu edges; the kernels' int indices allow 2^31 - 1", spec,
				  m);
	}
	for (char *c = in->desc; *c; c++) /* one token in the result line */
		if (*c == ' ' || *c == '=')
			*c = '_';
	return 0;
}

void graph_input_free(struct graph_input *in)
{
	gpuvm_graph_free(&in->g);
}

uint64_t graph_dev_bytes(const struct graph_input *in)
{
	uint64_t b = ((uint64_t)in->g.n_vertices + 1) * 4 + in->g.n_edges * 4;
	if (in->g.weights)
		b += in->g.n_edges * 4;
	return b;
}

/* A per-edge array (columns, weights) as a device buffer of int: the
 * builder's array itself, taken over (*host is then NULL). Its uint32_t
 * elements read as int give what converting each one gave (GCC converts
 * modulo 2^32; C11 6.5p7 lets the two types alias), and a copy cost bfs
 * on R-MAT 18 16 MiB of fresh pages on the engine's thread, with both
 * arrays held at once. At least one element: an edgeless graph still
 * gets its buffer. */
static int *edges_to_device(struct simt_host *h, const char *name, uint32_t **host, uint64_t m,
			    enum gpuvm_alloc_kind kind)
{
	_Static_assert(sizeof(int) == sizeof(uint32_t), "edge arrays of int");
	void *mem = *host;
	*host = NULL;
	if (!m) {
		free(mem);
		return simt_malloc(h, name, sizeof(int), kind);
	}
	return simt_adopt(h, name, mem, m * sizeof(int), kind);
}

int graph_dev_upload(struct simt_host *h, struct graph_input *in, enum gpuvm_alloc_kind kind,
		     struct graph_dev *d)
{
	struct gpuvm_graph *g = &in->g;
	memset(d, 0, sizeof *d);
	d->n = (int)g->n_vertices;
	d->m = (int)g->n_edges;
	uint64_t n = g->n_vertices, m = g->n_edges;
	d->row = simt_malloc(h, "row_start", (n + 1) * sizeof(int), kind);
	if (!d->row)
		return -1;
	for (uint64_t v = 0; v <= n; v++)
		d->row[v] = (int)g->row_offsets[v];
	free(g->row_offsets);
	g->row_offsets = NULL;
	d->col = edges_to_device(h, "col", &g->col_indices, m, kind);
	if (!d->col)
		return -1;
	if (g->weights && !(d->w = edges_to_device(h, "weight", &g->weights, m, kind)))
		return -1;
	if (simt_upload(h, d->row, (n + 1) * sizeof(int)) ||
	    simt_upload(h, d->col, (m ? m : 1) * sizeof(int)) ||
	    (d->w && simt_upload(h, d->w, (m ? m : 1) * sizeof(int))))
		return -1;
	return 0;
}

int graph_random_values(float *value, int n, uint64_t seed)
{
	int *perm = malloc((size_t)n * sizeof *perm);
	if (!perm)
		return -1;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)(splitmix64(seed ^ 0x5bd1e995u ^ ((uint64_t)i << 20)) % (uint64_t)(i + 1));
		int t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int i = 0; i < n; i++)
		value[i] = (float)(perm[i] + 1) / (float)n;
	free(perm);
	return 0;
}
