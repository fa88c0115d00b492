/* Graph inputs: each reader on small files with known answers, every
 * malformed file rejected with file:line, and the R-MAT generator's
 * determinism, structure and Graph500 quadrant probabilities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/graph.h"
#include "tsan_env.h"

static char path_buf[1024];

static const char *data(const char *name)
{
	const char *root = getenv("GPUVM_SOURCE_DIR");
	snprintf(path_buf, sizeof path_buf, "%s/tests/data/graphs/%s", root ? root : ".", name);
	return path_buf;
}

static void load(const char *name, const struct gpuvm_graph_opts *o, struct gpuvm_graph *g)
{
	struct gpuvm_error err = {{0}};
	if (gpuvm_graph_read_file(data(name), o, g, &err))
		fail_msg("%s: %s", name, err.msg);
}

static bool has_edge(const struct gpuvm_graph *g, uint32_t u, uint32_t v, uint32_t *w)
{
	for (uint64_t e = g->row_offsets[u]; e < g->row_offsets[u + 1]; e++)
		if (g->col_indices[e] == v) {
			if (w && g->weights)
				*w = g->weights[e];
			return true;
		}
	return false;
}

static void check_rows_sorted(const struct gpuvm_graph *g, bool strictly)
{
	assert_int_equal(g->row_offsets[0], 0);
	assert_int_equal(g->row_offsets[g->n_vertices], g->n_edges);
	for (uint32_t u = 0; u < g->n_vertices; u++) {
		assert_true(g->row_offsets[u] <= g->row_offsets[u + 1]);
		for (uint64_t e = g->row_offsets[u] + 1; e < g->row_offsets[u + 1]; e++) {
			if (strictly)
				assert_true(g->col_indices[e - 1] < g->col_indices[e]);
			else
				assert_true(g->col_indices[e - 1] <= g->col_indices[e]);
		}
	}
}

static void test_mtx_general(void **state)
{
	(void)state;
	struct gpuvm_graph_opts o = {0};
	struct gpuvm_graph g;
	load("small.mtx", &o, &g);
	assert_int_equal(g.n_vertices, 4);
	assert_int_equal(g.n_edges, 4);
	assert_true(g.directed);
	assert_int_equal(g.input_edges, 6);
	assert_int_equal(g.duplicates_dropped, 1);
	assert_int_equal(g.self_loops_dropped, 1);
	uint32_t w = 0;
	assert_true(has_edge(&g, 0, 1, &w));
	assert_int_equal(w, 3); /* the duplicate's least weight */
	assert_true(has_edge(&g, 0, 2, &w));
	assert_int_equal(w, 2);
	assert_true(has_edge(&g, 1, 3, &w));
	assert_int_equal(w, 5);
	assert_true(has_edge(&g, 2, 3, &w));
	assert_int_equal(w, 1);
	assert_false(has_edge(&g, 1, 0, NULL));
	assert_false(g.weights_generated);
	check_rows_sorted(&g, true);
	gpuvm_graph_free(&g);

	o.keep_self_loops = true;
	o.keep_duplicates = true;
	load("small.mtx", &o, &g);
	assert_int_equal(g.n_edges, 6);
	assert_true(has_edge(&g, 3, 3, NULL));
	gpuvm_graph_free(&g);

	o = (struct gpuvm_graph_opts){.symmetrize = true};
	load("small.mtx", &o, &g);
	assert_int_equal(g.n_edges, 8);
	assert_false(g.directed);
	assert_true(has_edge(&g, 3, 1, &w));
	assert_int_equal(w, 5);
	gpuvm_graph_free(&g);
}

static void test_mtx_symmetric_and_real(void **state)
{
	(void)state;
	struct gpuvm_graph_opts o = {0};
	struct gpuvm_graph g;
	load("sym.mtx", &o, &g);
	assert_int_equal(g.n_vertices, 3);
	assert_int_equal(g.n_edges, 4);
	assert_false(g.directed);
	assert_null(g.weights);
	assert_true(has_edge(&g, 0, 1, NULL) && has_edge(&g, 1, 0, NULL));
	assert_true(has_edge(&g, 1, 2, NULL) && has_edge(&g, 2, 1, NULL));
	gpuvm_graph_free(&g);

	load("real.mtx", &o, &g);
	uint32_t w = 99;
	assert_true(has_edge(&g, 0, 1, &w));
	assert_int_equal(w, 3);
	assert_true(has_edge(&g, 1, 0, &w));
	assert_int_equal(w, 0);
	gpuvm_graph_free(&g);

	o.drop_weights = true;
	load("real.mtx", &o, &g);
	assert_null(g.weights);
	gpuvm_graph_free(&g);
}

static void test_dimacs(void **state)
{
	(void)state;
	struct gpuvm_graph_opts o = {0};
	struct gpuvm_graph g;
	load("small.gr", &o, &g);
	assert_int_equal(g.n_vertices, 4);
	assert_int_equal(g.n_edges, 5);
	uint32_t w = 0;
	assert_true(has_edge(&g, 0, 2, &w));
	assert_int_equal(w, 8);
	assert_true(has_edge(&g, 3, 0, &w));
	assert_int_equal(w, 3);
	gpuvm_graph_free(&g);

	o.symmetrize = true;
	load("small.gr", &o, &g);
	assert_int_equal(g.n_edges, 10);
	assert_true(has_edge(&g, 2, 1, &w));
	assert_int_equal(w, 1);
	check_rows_sorted(&g, true);
	gpuvm_graph_free(&g);
}

static void test_snap_remap(void **state)
{
	(void)state;
	struct gpuvm_graph_opts o = {0};
	struct gpuvm_graph g;
	load("small.txt", &o, &g);
	assert_int_equal(g.n_vertices, 3);
	assert_non_null(g.original_ids);
	/* ids ranked: 7 -> 0, 100 -> 1, 100000000000 -> 2 */
	assert_int_equal(g.original_ids[0], 7);
	assert_int_equal(g.original_ids[1], 100);
	assert_int_equal(g.original_ids[2], 100000000000ull);
	assert_int_equal(g.n_edges, 3);
	assert_true(has_edge(&g, 1, 0, NULL));
	assert_true(has_edge(&g, 0, 2, NULL));
	assert_true(has_edge(&g, 2, 1, NULL));
	assert_int_equal(g.self_loops_dropped, 1);
	gpuvm_graph_free(&g);

	/* weights from the seed: in range, symmetric, reproducible */
	o = (struct gpuvm_graph_opts){.symmetrize = true, .want_weights = true, .seed = 5,
				      .weight_max = 10};
	load("small.txt", &o, &g);
	assert_true(g.weights_generated);
	for (uint32_t u = 0; u < g.n_vertices; u++)
		for (uint64_t e = g.row_offsets[u]; e < g.row_offsets[u + 1]; e++) {
			uint32_t back = 0;
			assert_true(g.weights[e] >= 1 && g.weights[e] <= 10);
			assert_true(has_edge(&g, g.col_indices[e], u, &back));
			assert_int_equal(back, g.weights[e]);
			assert_int_equal(g.weights[e],
					 gpuvm_graph_edge_weight(5, u, g.col_indices[e], 10));
		}
	gpuvm_graph_free(&g);
}

static void expect_bad(const char *name, const char *want)
{
	struct gpuvm_graph_opts o = {0};
	struct gpuvm_graph g;
	struct gpuvm_error err = {{0}};
	char full[1100];
	snprintf(full, sizeof full, "%s", data(name));
	if (gpuvm_graph_read_file(full, &o, &g, &err) == 0)
		fail_msg("%s was accepted", name);
	char prefix[1200];
	snprintf(prefix, sizeof prefix, "%s%s", full, want);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
		fail_msg("%s: message '%s' does not start with '%s'", name, err.msg, prefix);
	assert_null(g.row_offsets);
}

static void test_malformed_files(void **state)
{
	(void)state;
	expect_bad("bad_index.mtx", ":4: entry (4, 1) outside");
	expect_bad("bad_count.mtx", ":4: file ends after 2 of the 3 entries declared on line 2");
	expect_bad("bad_array.mtx", ":1: format 'array'");
	expect_bad("bad_weight.mtx", ":3: weight -5");
	expect_bad("bad_arc.gr", ":2: arc line must read");
	expect_bad("bad_noproblem.gr", ":2: arc before the problem line");
	expect_bad("bad_token.txt", ":3: edge line must read");
	expect_bad("bad_columns.txt", ":2: 3 columns, but line 1 has 2");
	expect_bad("no_such_file.mtx", ": cannot open");
}

static void test_buffer_reader(void **state)
{
	(void)state;
	struct gpuvm_graph_opts o = {.format = GPUVM_GRAPH_DIMACS};
	struct gpuvm_graph g;
	struct gpuvm_error err = {{0}};
	const char *text = "p sp 3 2\na 1 2 5\na 2 3 6\n";
	assert_int_equal(gpuvm_graph_read_buffer(text, strlen(text), "mem", &o, &g, &err), 0);
	assert_int_equal(g.n_edges, 2);
	gpuvm_graph_free(&g);
	assert_int_equal(gpuvm_graph_read_buffer("", 0, "mem", &o, &g, &err), -1);
	assert_string_equal(err.msg, "mem:1: no problem line 'p sp NODES ARCS'");
	o.format = GPUVM_GRAPH_MTX;
	o.max_vertices = 1000;
	const char *big = "%%MatrixMarket matrix coordinate pattern general\n5000 5000 1\n1 1\n";
	assert_int_equal(gpuvm_graph_read_buffer(big, strlen(big), "mem", &o, &g, &err), -1);
	assert_non_null(strstr(err.msg, "mem:2: 5000 vertices"));
}

static void rmat(const char *spec, const struct gpuvm_graph_opts *o, struct gpuvm_graph *g)
{
	struct gpuvm_error err = {{0}};
	if (gpuvm_graph_open(spec, o, g, &err))
		fail_msg("%s: %s", spec, err.msg);
}

static void test_rmat_deterministic_and_symmetric(void **state)
{
	(void)state;
	struct gpuvm_graph_opts o = {.symmetrize = true};
	struct gpuvm_graph a, b, c;
	rmat("rmat:scale=12,ef=8,seed=3", &o, &a);
	rmat("rmat:scale=12,ef=8,seed=3", &o, &b);
	rmat("rmat:scale=12,ef=8,seed=4", &o, &c);
	assert_int_equal(a.n_vertices, 4096);
	assert_int_equal(a.input_edges, 8 * 4096);
	assert_int_equal(a.n_edges, b.n_edges);
	assert_memory_equal(a.row_offsets, b.row_offsets, (a.n_vertices + 1) * sizeof(uint64_t));
	assert_memory_equal(a.col_indices, b.col_indices, a.n_edges * sizeof(uint32_t));
	assert_true(a.n_edges != c.n_edges ||
		    memcmp(a.col_indices, c.col_indices, a.n_edges * sizeof(uint32_t)) != 0);
	assert_false(a.directed);
	check_rows_sorted(&a, true);
	for (uint32_t u = 0; u < a.n_vertices; u++)
		for (uint64_t e = a.row_offsets[u]; e < a.row_offsets[u + 1]; e++) {
			assert_int_not_equal(a.col_indices[e], u);
			assert_true(has_edge(&a, a.col_indices[e], u, NULL));
		}
	/* skewed degrees: a power-law graph's hubs are far above the mean */
	struct gpuvm_graph_degree_stats st;
	gpuvm_graph_degree_stats(&a, &st);
	assert_true((double)st.max > 10 * st.mean);
	assert_true(st.median < st.mean);
	gpuvm_graph_free(&a);
	gpuvm_graph_free(&b);
	gpuvm_graph_free(&c);
}

static void assert_same_graph(const struct gpuvm_graph *a, const struct gpuvm_graph *b)
{
	assert_int_equal(a->n_vertices, b->n_vertices);
	assert_int_equal(a->n_edges, b->n_edges);
	assert_int_equal(a->input_edges, b->input_edges);
	assert_int_equal(a->self_loops_dropped, b->self_loops_dropped);
	assert_int_equal(a->duplicates_dropped, b->duplicates_dropped);
	assert_memory_equal(a->row_offsets, b->row_offsets, (a->n_vertices + 1) * sizeof(uint64_t));
	assert_memory_equal(a->col_indices, b->col_indices, a->n_edges * sizeof(uint32_t));
	assert_int_equal(a->weights != NULL, b->weights != NULL);
	if (a->weights)
		assert_memory_equal(a->weights, b->weights, a->n_edges * sizeof(uint32_t));
}

/* opts.threads generates the batches on a pool while one task hands them
 * to the CSR builder in edge order: the same graph at any count. 2^17
 * vertices and 2^21 edges are more than four rounds at 8 threads (64
 * batches of 4096 edges a round), so every count below runs on the pool;
 * the row sort alone would not hide a batch generated at the wrong edges,
 * handed on twice or skipped. */
static void test_rmat_same_at_any_thread_count(void **state)
{
	(void)state;
	const char *spec[] = {"rmat:scale=17,ef=16,seed=5", "rmat:scale=17,ef=17,seed=6,permute=0"};
	struct gpuvm_graph_opts opt[] = {
		{.symmetrize = true, .want_weights = true, .seed = 2},
		{.keep_self_loops = true, .keep_duplicates = true},
	};
	/* under ThreadSanitizer the pool's runs at 3 alone, not compared:
	 * the comparisons at 2, 3 and 8 are the other passes' (tests/tsan_env.h;
	 * the 8 graphs were 15.5 of the test's 16 CPU seconds there) */
	const bool compare = !test_under_tsan();
	for (int i = 0; i < 2; i++) {
		struct gpuvm_graph one = {0};
		if (compare)
			rmat(spec[i], &opt[i], &one);
		for (uint32_t threads = compare ? 2 : 3; threads <= (compare ? 8u : 3u);
		     threads += threads == 3 ? 5 : 1) {
			struct gpuvm_graph_opts o = opt[i];
			o.threads = threads;
			struct gpuvm_graph many;
			rmat(spec[i], &o, &many);
			if (compare)
				assert_same_graph(&one, &many);
			gpuvm_graph_free(&many);
		}
		if (compare)
			gpuvm_graph_free(&one);
	}
}

/* An input's own weights and duplicates through the row sort on threads:
 * a DIMACS buffer whose arcs repeat with other weights (the least must
 * win, or with keep_duplicates every copy stay in the serial order) and a
 * hub of 30,000 arcs (radix-sorted rows, longer than a range's share). */
static void test_read_same_at_any_thread_count(void **state)
{
	(void)state;
	enum { N = 3000, ARCS = 200000, HUB = 30000 };
	size_t cap = (size_t)ARCS * 32 + 64, len = 0;
	char *buf = malloc(cap);
	assert_non_null(buf);
	len += (size_t)snprintf(buf + len, cap - len, "p sp %d %d\n", N, ARCS);
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < ARCS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		unsigned u = i < HUB ? 1 : 1 + (unsigned)(x % N);
		unsigned v = 1 + (unsigned)((x >> 20) % (i < HUB ? N : 40));
		unsigned w = 1 + (unsigned)((x >> 40) % 1000);
		len += (size_t)snprintf(buf + len, cap - len, "a %u %u %u\n", u, v, w);
	}
	for (int keep = 0; keep < 2; keep++) {
		struct gpuvm_graph_opts o = {.format = GPUVM_GRAPH_DIMACS, .keep_duplicates = keep};
		struct gpuvm_graph one, many;
		struct gpuvm_error err = {{0}};
		assert_int_equal(gpuvm_graph_read_buffer(buf, len, "buf", &o, &one, &err), 0);
		assert_non_null(one.weights);
		assert_true(keep ? one.duplicates_dropped == 0 : one.duplicates_dropped > ARCS / 2);
		for (uint32_t threads = 2; threads <= 3; threads++) {
			o.threads = threads;
			assert_int_equal(gpuvm_graph_read_buffer(buf, len, "buf", &o, &many, &err), 0);
			assert_same_graph(&one, &many);
			gpuvm_graph_free(&many);
		}
		gpuvm_graph_free(&one);
	}
	free(buf);
}

static void test_rmat_graph500_quadrants(void **state)
{
	(void)state;
	/* Unpermuted, every edge kept: each bit level puts the source bit at 1
	 * with P = C + D = 0.24 and the target bit with P = B + D = 0.24, both
	 * with P = D = 0.05 (Graph500 initiator). */
	struct gpuvm_graph_opts o = {.keep_self_loops = true, .keep_duplicates = true};
	struct gpuvm_graph g;
	rmat("rmat:scale=14,ef=16,seed=9,permute=0", &o, &g);
	assert_int_equal(g.n_edges, 16 * 16384);
	for (unsigned bit = 0; bit < 14; bit += 13) {
		uint64_t src1 = 0, dst1 = 0, both = 0;
		for (uint32_t u = 0; u < g.n_vertices; u++)
			for (uint64_t e = g.row_offsets[u]; e < g.row_offsets[u + 1]; e++) {
				bool s = (u >> bit) & 1, d = (g.col_indices[e] >> bit) & 1;
				src1 += s;
				dst1 += d;
				both += s && d;
			}
		double m = (double)g.n_edges;
		assert_true(src1 / m > 0.23 && src1 / m < 0.25);
		assert_true(dst1 / m > 0.23 && dst1 / m < 0.25);
		assert_true(both / m > 0.045 && both / m < 0.055);
	}
	gpuvm_graph_free(&g);
}

static void test_rmat_spec_errors(void **state)
{
	(void)state;
	struct gpuvm_rmat_params p = {0};
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_rmat_parse("rmat:ef=4", &p, &err), -1);
	assert_non_null(strstr(err.msg, "scale"));
	assert_int_equal(gpuvm_rmat_parse("rmat:scale=40", &p, &err), -1);
	assert_non_null(strstr(err.msg, "1..31"));
	assert_int_equal(gpuvm_rmat_parse("rmat:scale=4,colour=2", &p, &err), -1);
	assert_non_null(strstr(err.msg, "unknown R-MAT key"));
	assert_int_equal(gpuvm_rmat_parse("rmat:scale=4,a=0.9,b=0.1,c=0.1", &p, &err), 0);
	struct gpuvm_graph g;
	struct gpuvm_graph_opts o = {0};
	assert_int_equal(gpuvm_graph_rmat(&p, &o, &g, &err), -1);
	assert_non_null(strstr(err.msg, "a + b + c < 1"));
	p.seed = 77;
	assert_int_equal(gpuvm_rmat_parse("kron:scale=5,ef=2", &p, &err), 0);
	assert_int_equal(p.seed, 77);
	assert_int_equal(p.edge_factor, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtx_general),
		cmocka_unit_test(test_mtx_symmetric_and_real),
		cmocka_unit_test(test_dimacs),
		cmocka_unit_test(test_snap_remap),
		cmocka_unit_test(test_malformed_files),
		cmocka_unit_test(test_buffer_reader),
		cmocka_unit_test(test_rmat_deterministic_and_symmetric),
		cmocka_unit_test(test_rmat_graph500_quadrants),
		cmocka_unit_test(test_rmat_same_at_any_thread_count),
		cmocka_unit_test(test_read_same_at_any_thread_count),
		cmocka_unit_test(test_rmat_spec_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
