/* DIMACS shortest-path graphs (9th DIMACS Implementation Challenge,
 * www.diag.uniroma1.it/challenge9/format.shtml), as Pannotia and Lonestar
 * sssp read them:
 *   c comment
 *   p sp N M             (once, before any arc)
 *   a U V W              (M arcs, 1-based, W a non-negative integer)
 * Arcs are directed; road networks list both directions. */
#include <stdlib.h>
#include <string.h>

#include "graph/csr_build.h"
#include "graph/graph_read.h"

int graph_read_dimacs(struct line_reader *r, const struct gpuvm_graph_opts *opts,
		      struct gpuvm_graph *g, struct gpuvm_error *err)
{
	uint64_t n = 0, m = 0, seen = 0;
	int p_line = 0, rc;
	struct edge_list el = {.weighted = !opts->drop_weights};
	while ((rc = lr_next(r, err)) == 1) {
		const char *p = skip_ws(r->line);
		if (*p == 0 || *p == 'c')
			continue;
		char kind = *p++;
		if (kind == 'p') {
			char what[16];
			if (p_line) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "second problem line (the first is on line %d)",
						  p_line);
			}
			if (scan_word(&p, what, sizeof what) == 0 || strcmp(what, "sp") != 0 ||
			    scan_u64(&p, &n) || scan_u64(&p, &m) || !is_end(p))
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "problem line must read 'p sp NODES ARCS'");
			if (n > graph_max_vertices(opts))
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "%llu vertices: more than the limit of %llu",
						  (unsigned long long)n,
						  (unsigned long long)graph_max_vertices(opts));
			char driver[120];
			snprintf(driver, sizeof driver, "the problem line's %llu nodes and %llu arcs",
				 (unsigned long long)n, (unsigned long long)m);
			if (graph_check_host(n, m, !opts->drop_weights, opts->symmetrize, r->origin,
					     r->lineno, driver, err))
				return -1;
			p_line = r->lineno;
		} else if (kind == 'a') {
			if (!p_line)
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "arc before the problem line 'p sp NODES ARCS'");
			if (seen == m) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "more arcs than the %llu declared on line %d",
						  (unsigned long long)m, p_line);
			}
			uint64_t u, v, w;
			if (scan_u64(&p, &u) || scan_u64(&p, &v) || scan_u64(&p, &w) || !is_end(p)) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "arc line must read 'a FROM TO WEIGHT' (non-negative "
						  "integers)");
			}
			if (u < 1 || u > n || v < 1 || v > n) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "arc %llu -> %llu: vertices are 1..%llu",
						  (unsigned long long)u, (unsigned long long)v,
						  (unsigned long long)n);
			}
			if (w > UINT32_MAX) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "weight %llu above 4294967295", (unsigned long long)w);
			}
			if (edges_push(&el, (uint32_t)(u - 1), (uint32_t)(v - 1), (uint32_t)w, err)) {
				edges_free(&el);
				return -1;
			}
			seen++;
		} else {
			edges_free(&el);
			return gpuvm_fail(err, r->origin, r->lineno, NULL,
					  "unknown line type '%c' (DIMACS lines start with c, p or a)",
					  kind);
		}
	}
	if (rc < 0) {
		edges_free(&el);
		return -1;
	}
	if (!p_line)
		return gpuvm_fail(err, r->origin, r->lineno + 1, NULL,
				  "no problem line 'p sp NODES ARCS'");
	if (seen < m) {
		edges_free(&el);
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "file ends after %llu of the %llu arcs declared on line %d",
				  (unsigned long long)seen, (unsigned long long)m, p_line);
	}
	return edges_build(&el, (uint32_t)n, opts->symmetrize, true, opts, g, err);
}
