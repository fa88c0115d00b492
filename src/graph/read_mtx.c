/* Matrix Market coordinate files (math.nist.gov/MatrixMarket/formats.html):
 *   %%MatrixMarket matrix coordinate pattern|integer|real general|symmetric
 *   % comments
 *   ROWS COLS ENTRIES
 *   I J [VALUE]          (1-based, ENTRIES lines)
 * Entry (I, J) is the edge I-1 -> J-1; a symmetric file stores each
 * undirected edge once (the lower triangle) and is mirrored. Values are
 * the weights: integer as is (must fit 0..2^32-1), real rounded to the
 * nearest integer; pattern files are unweighted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/csr_build.h"
#include "graph/graph_read.h"

enum mtx_field { F_PATTERN, F_INTEGER, F_REAL };

static int parse_banner(struct line_reader *r, enum mtx_field *field, bool *symmetric,
			struct gpuvm_error *err)
{
	const char *p = r->line;
	char w[5][32];
	for (int i = 0; i < 5; i++)
		if (!scan_word(&p, w[i], sizeof w[i]))
			return gpuvm_fail(err, r->origin, r->lineno, NULL,
					  "banner must read '%%%%MatrixMarket matrix coordinate "
					  "<pattern|integer|real> <general|symmetric>'");
	if (strcasecmp(w[0], "%%MatrixMarket") != 0)
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "not a Matrix Market file (first line must start with "
				  "%%%%MatrixMarket)");
	if (strcasecmp(w[1], "matrix") != 0)
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "object '%s' is not supported (only 'matrix')", w[1]);
	if (strcasecmp(w[2], "coordinate") != 0)
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "format '%s' is not supported (only 'coordinate'; a dense "
				  "'array' is not a graph)", w[2]);
	if (!strcasecmp(w[3], "pattern"))
		*field = F_PATTERN;
	else if (!strcasecmp(w[3], "integer"))
		*field = F_INTEGER;
	else if (!strcasecmp(w[3], "real") || !strcasecmp(w[3], "double"))
		*field = F_REAL;
	else
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "field '%s' is not supported (pattern, integer or real)", w[3]);
	if (!strcasecmp(w[4], "general"))
		*symmetric = false;
	else if (!strcasecmp(w[4], "symmetric"))
		*symmetric = true;
	else
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "symmetry '%s' is not supported (general or symmetric)", w[4]);
	if (!is_end(p))
		return gpuvm_fail(err, r->origin, r->lineno, NULL, "junk after the banner");
	return 0;
}

/* Next line that is neither a comment nor blank; 0 at end of input. */
static int next_data_line(struct line_reader *r, struct gpuvm_error *err)
{
	int rc;
	while ((rc = lr_next(r, err)) == 1) {
		const char *p = skip_ws(r->line);
		if (*p != '%' && *p != 0)
			return 1;
	}
	return rc;
}

int graph_read_mtx(struct line_reader *r, const struct gpuvm_graph_opts *opts,
		   struct gpuvm_graph *g, struct gpuvm_error *err)
{
	int rc = lr_next(r, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return gpuvm_fail(err, r->origin, 1, NULL, "empty file (no %%%%MatrixMarket banner)");
	enum mtx_field field = F_PATTERN;
	bool symmetric = false;
	if (parse_banner(r, &field, &symmetric, err))
		return -1;

	rc = next_data_line(r, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		return gpuvm_fail(err, r->origin, r->lineno + 1, NULL,
				  "missing size line 'ROWS COLS ENTRIES'");
	const char *p = r->line;
	uint64_t rows, cols, entries;
	if (scan_u64(&p, &rows) || scan_u64(&p, &cols) || scan_u64(&p, &entries) || !is_end(p))
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "size line must be 'ROWS COLS ENTRIES' (three non-negative "
				  "integers)");
	if (rows != cols)
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "matrix is %llu x %llu: a graph's adjacency matrix is square",
				  (unsigned long long)rows, (unsigned long long)cols);
	if (rows > graph_max_vertices(opts))
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "%llu vertices: more than the limit of %llu",
				  (unsigned long long)rows,
				  (unsigned long long)graph_max_vertices(opts));
	int size_line = r->lineno;
	char driver[120];
	snprintf(driver, sizeof driver, "the size line's %llu vertices and %llu entries",
		 (unsigned long long)rows, (unsigned long long)entries);
	if (graph_check_host(rows, entries, field != F_PATTERN && !opts->drop_weights,
			     opts->symmetrize || symmetric, r->origin, r->lineno, driver, err))
		return -1;

	bool weighted = field != F_PATTERN && !opts->drop_weights;
	struct edge_list el = {.weighted = weighted};
	uint64_t seen = 0;
	while ((rc = next_data_line(r, err)) == 1) {
		if (seen == entries) {
			edges_free(&el);
			return gpuvm_fail(err, r->origin, r->lineno, NULL,
					  "more entries than the %llu declared on line %d",
					  (unsigned long long)entries, size_line);
		}
		p = r->line;
		uint64_t i, j;
		if (scan_u64(&p, &i) || scan_u64(&p, &j)) {
			edges_free(&el);
			return gpuvm_fail(err, r->origin, r->lineno, NULL,
					  "entry must start with two positive integers 'I J'");
		}
		if (i < 1 || i > rows || j < 1 || j > rows) {
			edges_free(&el);
			return gpuvm_fail(err, r->origin, r->lineno, NULL,
					  "entry (%llu, %llu) outside the %llu x %llu matrix "
					  "(indices start at 1)",
					  (unsigned long long)i, (unsigned long long)j,
					  (unsigned long long)rows, (unsigned long long)rows);
		}
		uint32_t w = 0;
		if (field == F_INTEGER) {
			int64_t v;
			if (scan_i64(&p, &v)) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "integer matrix: entry needs an integer value");
			}
			/* a bad weight is a bad file, whether or not this run
			 * uses the weights (bfs drops them; sssp would refuse) */
			if (v < 0 || v > (int64_t)UINT32_MAX) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "weight %lld outside 0..4294967295",
						  (long long)v);
			}
			w = (uint32_t)(v < 0 ? 0 : v);
		} else if (field == F_REAL) {
			double v;
			if (scan_double(&p, &v)) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "real matrix: entry needs a real value");
			}
			double rv = nearbyint(v);
			if (!(rv >= 0 && rv <= (double)UINT32_MAX)) {
				edges_free(&el);
				return gpuvm_fail(err, r->origin, r->lineno, NULL,
						  "weight %g outside 0..4294967295 after rounding "
						  "(use weights from the seed instead)", v);
			}
			w = rv < 0 || rv > (double)UINT32_MAX ? 0 : (uint32_t)rv;
		}
		if (!is_end(p)) {
			edges_free(&el);
			return gpuvm_fail(err, r->origin, r->lineno, NULL,
					  "junk after the entry (a %s matrix has %s per entry)",
					  field == F_PATTERN ? "pattern" : "valued",
					  field == F_PATTERN ? "'I J'" : "'I J VALUE'");
		}
		if (edges_push(&el, (uint32_t)(i - 1), (uint32_t)(j - 1), w, err)) {
			edges_free(&el);
			return -1;
		}
		seen++;
	}
	if (rc < 0) {
		edges_free(&el);
		return -1;
	}
	if (seen < entries) {
		edges_free(&el);
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "file ends after %llu of the %llu entries declared on line %d",
				  (unsigned long long)seen, (unsigned long long)entries, size_line);
	}
	return edges_build(&el, (uint32_t)rows, symmetric || opts->symmetrize, !symmetric, opts,
			   g, err);
}
