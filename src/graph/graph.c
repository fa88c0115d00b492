/* The graph object: opening by spec, freeing, size, degree statistics and
 * the generated weights. */
#include "gpuvm/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"

uint32_t gpuvm_graph_edge_weight(uint64_t seed, uint32_t u, uint32_t v, uint32_t weight_max)
{
	uint32_t lo = u < v ? u : v, hi = u < v ? v : u;
	uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ ((uint64_t)lo << 32 | hi);
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	if (!weight_max)
		weight_max = 1;
	return 1 + (uint32_t)(((x >> 32) * (uint64_t)weight_max) >> 32);
}

void gpuvm_graph_free(struct gpuvm_graph *g)
{
	if (!g)
		return;
	free(g->row_offsets);
	free(g->col_indices);
	free(g->weights);
	free(g->original_ids);
	memset(g, 0, sizeof *g);
}

uint64_t gpuvm_graph_bytes(const struct gpuvm_graph *g)
{
	uint64_t b = ((uint64_t)g->n_vertices + 1) * sizeof *g->row_offsets +
		     g->n_edges * sizeof *g->col_indices;
	if (g->weights)
		b += g->n_edges * sizeof *g->weights;
	if (g->original_ids)
		b += (uint64_t)g->n_vertices * sizeof *g->original_ids;
	return b;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

void gpuvm_graph_degree_stats(const struct gpuvm_graph *g, struct gpuvm_graph_degree_stats *st)
{
	memset(st, 0, sizeof *st);
	uint64_t n = g->n_vertices;
	if (!n)
		return;
	st->min = UINT64_MAX;
	double sum = 0, sum2 = 0;
	for (uint64_t u = 0; u < n; u++) {
		uint64_t d = g->row_offsets[u + 1] - g->row_offsets[u];
		if (d < st->min)
			st->min = d;
		if (d > st->max)
			st->max = d;
		sum += (double)d;
		sum2 += (double)d * (double)d;
		st->isolated += d == 0;
		unsigned k = d ? 64 - (unsigned)__builtin_clzll(d) : 0;
		st->histogram[k < GPUVM_GRAPH_DEGREE_BUCKETS ? k : GPUVM_GRAPH_DEGREE_BUCKETS - 1]++;
	}
	st->mean = sum / (double)n;
	double var = sum2 / (double)n - st->mean * st->mean;
	st->stddev = var > 0 ? sqrt(var) : 0;
	/* percentiles: exact, from a sorted copy of the degrees */
	uint64_t *deg = malloc(n * sizeof *deg);
	if (deg) {
		for (uint64_t u = 0; u < n; u++)
			deg[u] = g->row_offsets[u + 1] - g->row_offsets[u];
		qsort(deg, n, sizeof *deg, cmp_u64);
		st->median = deg[(n - 1) / 2];
		st->p99 = deg[(uint64_t)((double)(n - 1) * 0.99)];
		free(deg);
	}
}

static int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "yes")) {
		*out = true;
		return 0;
	}
	if (!strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "no")) {
		*out = false;
		return 0;
	}
	return -1;
}

int gpuvm_rmat_parse(const char *spec, struct gpuvm_rmat_params *p, struct gpuvm_error *err)
{
	uint64_t seed = p->seed;
	memset(p, 0, sizeof *p);
	p->seed = seed;
	p->edge_factor = 16;
	const char *body = NULL;
	if (!strncmp(spec, "rmat:", 5))
		body = spec + 5;
	else if (!strncmp(spec, "kron:", 5))
		body = spec + 5;
	else if (!strcmp(spec, "rmat") || !strcmp(spec, "kron"))
		body = "";
	if (!body)
		return gpuvm_fail(err, "rmat", 0, NULL, "'%s' is not an R-MAT spec (rmat:scale=S,...)",
				  spec);
	char buf[256];
	if (strlen(body) >= sizeof buf)
		return gpuvm_fail(err, "rmat", 0, NULL, "R-MAT spec too long");
	strcpy(buf, body);
	bool have_scale = false;
	char *save = NULL;
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq)
			return gpuvm_fail(err, "rmat", 0, kv, "expected key=value in the R-MAT spec");
		*eq = 0;
		const char *k = kv, *v = eq + 1;
		uint64_t u;
		double d;
		if (!strcmp(k, "scale")) {
			if (gpuvm_parse_u64(v, &u) || u < 1 || u > 31)
				return gpuvm_fail(err, "rmat", 0, "scale",
						  "'%s': need an integer 1..31 (2^scale vertices)", v);
			p->scale = (unsigned)u;
			have_scale = true;
		} else if (!strcmp(k, "ef") || !strcmp(k, "edgefactor")) {
			if (gpuvm_parse_u64(v, &u) || u < 1 || u > 1u << 20)
				return gpuvm_fail(err, "rmat", 0, k,
						  "'%s': need an integer 1..1048576 (edges per vertex)",
						  v);
			p->edge_factor = (uint32_t)u;
		} else if (!strcmp(k, "seed")) {
			if (gpuvm_parse_u64(v, &u))
				return gpuvm_fail(err, "rmat", 0, "seed",
						  "'%s' is not a non-negative integer", v);
			p->seed = u;
		} else if (!strcmp(k, "a") || !strcmp(k, "b") || !strcmp(k, "c")) {
			if (gpuvm_parse_double(v, &d) || d <= 0 || d >= 1)
				return gpuvm_fail(err, "rmat", 0, k, "'%s': need a probability in (0, 1)",
						  v);
			*(k[0] == 'a' ? &p->a : k[0] == 'b' ? &p->b : &p->c) = d;
		} else if (!strcmp(k, "permute")) {
			bool b;
			if (parse_bool(v, &b))
				return gpuvm_fail(err, "rmat", 0, "permute", "'%s': need 0 or 1", v);
			p->no_permute = !b;
		} else {
			return gpuvm_fail(err, "rmat", 0, k,
					  "unknown R-MAT key (scale, ef, seed, a, b, c, permute)");
		}
	}
	if (!have_scale)
		return gpuvm_fail(err, "rmat", 0, "scale", "the R-MAT spec needs scale=S");
	return 0;
}

int gpuvm_graph_open(const char *spec, const struct gpuvm_graph_opts *opts,
		     struct gpuvm_graph *g, struct gpuvm_error *err)
{
	memset(g, 0, sizeof *g);
	if (!strncmp(spec, "rmat", 4) || !strncmp(spec, "kron", 4)) {
		if (spec[4] == ':' || spec[4] == 0) {
			struct gpuvm_rmat_params p = {.seed = opts->seed};
			if (gpuvm_rmat_parse(spec, &p, err))
				return -1;
			return gpuvm_graph_rmat(&p, opts, g, err);
		}
	}
	static const struct {
		const char *prefix;
		enum gpuvm_graph_format fmt;
	} forced[] = {
		{"mtx:", GPUVM_GRAPH_MTX},
		{"gr:", GPUVM_GRAPH_DIMACS},
		{"dimacs:", GPUVM_GRAPH_DIMACS},
		{"snap:", GPUVM_GRAPH_SNAP},
	};
	for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++) {
		size_t len = strlen(forced[i].prefix);
		if (!strncmp(spec, forced[i].prefix, len)) {
			struct gpuvm_graph_opts o = *opts;
			o.format = forced[i].fmt;
			return gpuvm_graph_read_file(spec + len, &o, g, err);
		}
	}
	if (!*spec)
		return gpuvm_fail(err, "graph", 0, NULL, "empty graph spec");
	return gpuvm_graph_read_file(spec, opts, g, err);
}
