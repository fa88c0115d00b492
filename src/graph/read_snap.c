/* SNAP edge lists (snap.stanford.edu/data): '#' comment lines (KONECT's
 * '%' too), then one edge per line, "FROM TO" separated by blanks or
 * tabs, with an optional third integer column read as the weight.
 *
 * Vertex ids are arbitrary 64-bit integers (SNAP files skip ids freely).
 * They are remapped densely by rank: the k-th smallest distinct id becomes
 * vertex k, so the mapping keeps the ids' order, files numbered 0..n-1 keep
 * their numbers, and the result does not depend on edge order. While
 * reading, a hash table gives each new id a provisional number in order
 * of appearance; one sort of the distinct ids then turns provisional
 * numbers into ranks. g->original_ids keeps the file id of every vertex. */
#include <stdlib.h>
#include <string.h>

#include "graph/csr_build.h"
#include "graph/graph_read.h"

#define EMPTY_SLOT UINT32_MAX

struct id_map {
	uint64_t *keys;
	uint32_t *vals;  /* provisional number, EMPTY_SLOT when free */
	uint64_t mask;   /* capacity - 1 */
	uint64_t *ids;   /* [count] id of each provisional number */
	uint64_t count, ids_cap;
};

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

static int map_init(struct id_map *m, uint64_t cap)
{
	memset(m, 0, sizeof *m);
	m->keys = malloc(cap * sizeof *m->keys);
	m->vals = malloc(cap * sizeof *m->vals);
	if (!m->keys || !m->vals)
		return -1;
	memset(m->vals, 0xff, cap * sizeof *m->vals);
	m->mask = cap - 1;
	return 0;
}

static void map_free(struct id_map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->ids);
	memset(m, 0, sizeof *m);
}

static int map_grow(struct id_map *m)
{
	struct id_map bigger;
	if (map_init(&bigger, (m->mask + 1) * 2)) {
		free(bigger.keys);
		free(bigger.vals);
		return -1;
	}
	for (uint64_t s = 0; s <= m->mask; s++) {
		if (m->vals[s] == EMPTY_SLOT)
			continue;
		uint64_t h = mix64(m->keys[s]) & bigger.mask;
		while (bigger.vals[h] != EMPTY_SLOT)
			h = (h + 1) & bigger.mask;
		bigger.keys[h] = m->keys[s];
		bigger.vals[h] = m->vals[s];
	}
	free(m->keys);
	free(m->vals);
	m->keys = bigger.keys;
	m->vals = bigger.vals;
	m->mask = bigger.mask;
	return 0;
}

/* Provisional number of id; -1 when out of memory or past the limit. */
static int map_get(struct id_map *m, uint64_t id, uint64_t limit, uint32_t *out)
{
	uint64_t h = mix64(id) & m->mask;
	while (m->vals[h] != EMPTY_SLOT) {
		if (m->keys[h] == id) {
			*out = m->vals[h];
			return 0;
		}
		h = (h + 1) & m->mask;
	}
	if (m->count >= limit)
		return -2;
	if (m->count == m->ids_cap) {
		uint64_t cap = m->ids_cap ? m->ids_cap * 2 : 1024;
		uint64_t *ids = realloc(m->ids, cap * sizeof *ids);
		if (!ids)
			return -1;
		m->ids = ids;
		m->ids_cap = cap;
	}
	m->keys[h] = id;
	m->vals[h] = (uint32_t)m->count;
	m->ids[m->count] = id;
	*out = (uint32_t)m->count++;
	if (m->count * 2 > m->mask + 1 && map_grow(m))
		return -1;
	return 0;
}

struct id_rank {
	uint64_t id;
	uint32_t prov;
};

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_rank *)a)->id, y = ((const struct id_rank *)b)->id;
	return (x > y) - (x < y);
}

int graph_read_snap(struct line_reader *r, const struct gpuvm_graph_opts *opts,
		    struct gpuvm_graph *g, struct gpuvm_error *err)
{
	struct id_map map;
	struct edge_list el = {.weighted = false};
	int columns = 0, columns_line = 0, rc;
	uint64_t limit = graph_max_vertices(opts);
	if (map_init(&map, 1024)) {
		map_free(&map);
		return gpuvm_fail(err, r->origin, 0, NULL, "out of memory");
	}
	while ((rc = lr_next(r, err)) == 1) {
		const char *p = skip_ws(r->line);
		if (*p == 0 || *p == '#' || *p == '%')
			continue;
		uint64_t a, b, w = 0;
		if (scan_u64(&p, &a) || scan_u64(&p, &b)) {
			rc = gpuvm_fail(err, r->origin, r->lineno, NULL,
					"edge line must read 'FROM TO' (non-negative integer ids)");
			break;
		}
		int cols = 2;
		if (!is_end(p)) {
			if (scan_u64(&p, &w) || !is_end(p)) {
				rc = gpuvm_fail(err, r->origin, r->lineno, NULL,
						"edge line must read 'FROM TO' or 'FROM TO WEIGHT' "
						"(non-negative integers)");
				break;
			}
			cols = 3;
		}
		if (!columns) {
			columns = cols;
			columns_line = r->lineno;
			el.weighted = cols == 3 && !opts->drop_weights;
		} else if (cols != columns) {
			rc = gpuvm_fail(err, r->origin, r->lineno, NULL,
					"%d columns, but line %d has %d", cols, columns_line, columns);
			break;
		}
		if (cols == 3 && w > UINT32_MAX) { /* bad even when the weights are dropped */
			rc = gpuvm_fail(err, r->origin, r->lineno, NULL, "weight %llu above 4294967295",
					(unsigned long long)w);
			break;
		}
		uint32_t u, v;
		int mu = map_get(&map, a, limit, &u);
		int mv = mu ? mu : map_get(&map, b, limit, &v);
		if (mu || mv) {
			rc = mu == -2 || mv == -2
				? gpuvm_fail(err, r->origin, r->lineno, NULL,
					     "more than %llu distinct vertex ids",
					     (unsigned long long)limit)
				: gpuvm_fail(err, r->origin, r->lineno, NULL, "out of memory");
			break;
		}
		if (edges_push(&el, u, v, (uint32_t)w, err)) {
			rc = -1;
			break;
		}
	}
	if (rc < 0) {
		edges_free(&el);
		map_free(&map);
		return -1;
	}
	if (el.n == 0) {
		map_free(&map);
		return gpuvm_fail(err, r->origin, r->lineno + 1, NULL, "no edge in the file");
	}
	/* provisional numbers -> ranks of the ids */
	uint64_t n = map.count;
	free(map.keys);
	free(map.vals);
	map.keys = NULL;
	map.vals = NULL;
	struct id_rank *order = malloc((n ? n : 1) * sizeof *order);
	uint32_t *rank = malloc((n ? n : 1) * sizeof *rank);
	if (!order || !rank) {
		free(order);
		free(rank);
		edges_free(&el);
		map_free(&map);
		return gpuvm_fail(err, r->origin, 0, NULL, "out of memory");
	}
	for (uint64_t i = 0; i < n; i++)
		order[i] = (struct id_rank){map.ids[i], (uint32_t)i};
	if (n > 1)
		qsort(order, n, sizeof *order, cmp_id);
	uint64_t *original = map.ids; /* reused: id of each rank */
	map.ids = NULL;
	for (uint64_t k = 0; k < n; k++) {
		rank[order[k].prov] = (uint32_t)k;
		original[k] = order[k].id;
	}
	free(order);
	for (uint64_t i = 0; i < el.n; i++) {
		el.u[i] = rank[el.u[i]];
		el.v[i] = rank[el.v[i]];
	}
	free(rank);
	map_free(&map);
	if (edges_build(&el, (uint32_t)n, opts->symmetrize, true, opts, g, err)) {
		free(original);
		return -1;
	}
	g->original_ids = original;
	return 0;
}
