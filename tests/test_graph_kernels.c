/* The graph kernels (bfs, sssp, pagerank, mis, color, bc) on the SIMT
 * executor: each matches its plain CPU reference (exact for integer
 * results, a tolerance for pagerank and bc) on every preset with the same
 * output everywhere, in device and managed memory, on generated and file
 * inputs; hand-computed answers on tiny graphs; bad graph specs are
 * errors naming the problem; sssp's and bfs's loads= dependences. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuvm/page_access.h"
#include "gpuvm/run.h"
#include "sanitized_env.h"
#include "workloads/glibc_rand.h"

static const char *const presets[] = {"a100", "gem5gpu-neidty", "gtx1080ti-uvmsmart",
				      "h100", "k80", "p100", "v100"};
/* Under ASan + UBSan (tests/sanitized_env.h) every kernel on two of them,
 * the same output on both: the kernels' lines are the same on every
 * preset, and the presets' own lines are run by the pass's other tests
 * (scripts/test-coverage.py: none lost); make check's Release pass runs
 * all seven (this test is in the label release). */
static const char *const presets_sanitized[] = {"gem5gpu-neidty", "p100"};

static int run_result(const char *gpu, const char *workload, char **result,
		      struct gpuvm_error *err)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = 7};
	cJSON *out = NULL;
	if (gpuvm_run_point(&spec, &out, err))
		return -1;
	*result = strdup(cJSON_GetObjectItemCaseSensitive(out, "result")->valuestring);
	cJSON_Delete(out);
	return 0;
}

static char *result_of(const char *gpu, const char *workload)
{
	struct gpuvm_error err = {{0}};
	char *r = NULL;
	if (run_result(gpu, workload, &r, &err))
		fail_msg("%s on %s failed: %s", workload, gpu, err.msg);
	return r;
}

/* The value of "key=" in a result line, as a double. */
static double field(const char *result, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, " %s=", key);
	const char *p = strstr(result, pat);
	if (!p)
		fail_msg("no %s in '%s'", key, result);
	return strtod(p + strlen(pat), NULL);
}

static const char *const graph_specs[] = {
	"bfs:graph=rmat-10-8,verify=1",
	"sssp:graph=rmat:scale=10:ef=8,verify=1",
	"sssp:vertices=3000,degree=2,max_iter=15,verify=1",
	"pagerank:graph=rmat-10-8,iterations=5,verify=1",
	"mis:graph=rmat-10-8,verify=1",
	"color:graph=uniform,vertices=1500,degree=4,verify=1",
	"bc:graph=rmat-9-8,sources=3,verify=1",
};

static void test_every_kernel_matches_reference_on_every_preset(void **state)
{
	(void)state;
	const char *const *gpus = test_sanitized() ? presets_sanitized : presets;
	size_t n_gpus = test_sanitized() ? sizeof presets_sanitized / sizeof presets_sanitized[0]
					 : sizeof presets / sizeof presets[0];
	for (size_t i = 0; i < sizeof graph_specs / sizeof graph_specs[0]; i++) {
		char *first = NULL;
		for (size_t g = 0; g < n_gpus; g++) {
			char *r = result_of(gpus[g], graph_specs[i]);
			if (!strstr(r, "verify=pass"))
				fail_msg("%s on %s: %s", graph_specs[i], gpus[g], r);
			/* Same output whatever the timing, digest included: pagerank's
			 * and bc's float sums are RED_ADDs, added in thread order
			 * (src/simt/simt_red.h), not in the order the timing ran them */
			if (first)
				assert_string_equal(first, r);
			else
				first = r;
			if (r != first)
				free(r);
		}
		free(first);
	}
}

static void test_managed_memory_gives_the_same_output(void **state)
{
	(void)state;
	static const char *const base[] = {
		"bfs:graph=rmat-9-8,verify=1",	    "sssp:graph=rmat-9-8,verify=1",
		"pagerank:graph=rmat-9-8,iterations=3,verify=1", "mis:graph=rmat-9-8,verify=1",
		"color:graph=rmat-9-8,verify=1",    "bc:graph=rmat-8-8,sources=2,verify=1",
	};
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
		char managed[128];
		snprintf(managed, sizeof managed, "%s,mem=managed", base[i]);
		char *a = result_of("gtx1080ti-uvmsmart", base[i]);
		char *b = result_of("gtx1080ti-uvmsmart", managed);
		if (!strstr(b, "verify=pass"))
			fail_msg("%s: %s", managed, b);
		/* every digest, pagerank's and bc's float sums included */
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
}

static char *data_path(const char *name)
{
	const char *dir = getenv("GPUVM_SOURCE_DIR");
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s/tests/data/graphs/%s", dir ? dir : ".", name);
	return buf;
}

/* tests/data/graphs/small.gr: 1->2 (4), 2->3 (1), 1->3 (8), 3->4 (2),
 * 4->1 (3): from vertex 1 the costs are 0, 4, 5, 7. */
static void test_sssp_on_a_dimacs_file_has_the_hand_computed_costs(void **state)
{
	(void)state;
	char spec[4200];
	snprintf(spec, sizeof spec, "sssp:graph=gr:%s,verify=1", data_path("small.gr"));
	char *r = result_of("p100", spec);
	assert_non_null(strstr(r, "verify=pass"));
	assert_int_equal((int)field(r, "cost_sum"), 0 + 4 + 5 + 7);
	assert_int_equal((int)field(r, "reached"), 4);
	free(r);
	/* bfs on the same file: levels 0, 1, 1, 2 */
	snprintf(spec, sizeof spec, "bfs:graph=%s,verify=1", data_path("small.gr"));
	r = result_of("p100", spec);
	assert_non_null(strstr(r, "verify=pass"));
	assert_int_equal((int)field(r, "levels"), 3); /* two expansions and a final empty one */
	assert_int_equal((int)field(r, "reached"), 4);
	free(r);
}

static char *write_tmp(const char *text)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/gpuvm_graphk_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* A 4-vertex path 0-1-2-3: every shortest path between the ends crosses
 * the middle vertices, so with all 4 sources bc = 0, 4, 4, 0 (ordered
 * pairs); on a directed 3-cycle every rank stays 1/3. */
static void test_bc_and_pagerank_on_tiny_graphs(void **state)
{
	(void)state;
	char *path = write_tmp("# path\n0 1\n1 2\n2 3\n");
	char spec[200];
	snprintf(spec, sizeof spec, "bc:graph=snap:%s,symmetrize=1,sources=4,verify=1", path);
	char *r = result_of("v100", spec);
	assert_non_null(strstr(r, "verify=pass"));
	assert_true(field(r, "bc_sum") == 8.0);
	free(r);
	snprintf(spec, sizeof spec, "mis:graph=snap:%s,verify=1", path);
	r = result_of("v100", spec);
	assert_non_null(strstr(r, "verify=pass"));
	int set = (int)field(r, "set_size"); /* a maximal independent set of P4 has 2 vertices */
	assert_int_equal(set, 2);
	free(r);
	snprintf(spec, sizeof spec, "color:graph=snap:%s,verify=1", path);
	r = result_of("v100", spec);
	assert_non_null(strstr(r, "verify=pass"));
	assert_true(field(r, "colors") >= 2);
	free(r);
	unlink(path);

	path = write_tmp("0 1\n1 2\n2 0\n");
	snprintf(spec, sizeof spec, "pagerank:graph=snap:%s,verify=1", path);
	r = result_of("v100", spec);
	assert_non_null(strstr(r, "verify=pass"));
	assert_true(field(r, "rank_sum") > 0.99999 && field(r, "rank_sum") < 1.00001);
	free(r);
	unlink(path);
}

static void test_bad_graph_specs_are_errors(void **state)
{
	(void)state;
	struct {
		const char *spec, *want;
	} bad[] = {
		{"bfs:graph=rmat-x", "rmat-SCALE"},
		{"sssp:graph=rmat:scale=40", "scale"},
		{"pagerank:graph=rmat:scale=8:bogus=1", "unknown R-MAT key"},
		{"mis:graph=/nonexistent/g.mtx", "/nonexistent/g.mtx"},
		{"bfs:vertices=1", "vertices"},
		{"sssp:graph=rmat-8,source=100000", "not a vertex"},
		{"bc:graph=rmat-8,sources=0", "sources"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct gpuvm_error err = {{0}};
		char *r = NULL;
		if (!run_result("p100", bad[i].spec, &r, &err))
			fail_msg("%s ran: %s", bad[i].spec, r);
		if (!strstr(err.msg, bad[i].want))
			fail_msg("%s: '%s' does not mention '%s'", bad[i].spec, err.msg, bad[i].want);
	}
	/* a malformed file names file and line */
	char spec[4200];
	snprintf(spec, sizeof spec, "sssp:graph=%s", data_path("bad_index.mtx"));
	struct gpuvm_error err = {{0}};
	char *r = NULL;
	assert_int_not_equal(run_result("p100", spec, &r, &err), 0);
	assert_non_null(strstr(err.msg, "bad_index.mtx"));
	assert_non_null(strstr(err.msg, "bad_index.mtx:4:"));
}

/* ---- Ganguly Fig. 2-3: regular fdtd-2d vs irregular sssp --------------- */

#define MAX_ALLOCS 16
#define MAX_ROWS 1024

/* Per allocation, from the page map's CSV: page accesses per page,
 * whether written, and the spread of per-row access density. */
struct alloc_use {
	char name[32];
	uint64_t pages, accesses;
	int written;
	double row_acc[MAX_ROWS];
	uint64_t row_pages[MAX_ROWS];
};

static int wrap(void *ctx, struct gpuvm_source *src, struct gpuvm_error *err)
{
	return gpuvm_page_access_wrap(ctx, src, err);
}

static size_t map_csv(const char *workload, const char *prefix, struct alloc_use *u)
{
	struct gpuvm_page_access *pa = NULL;
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_page_access_create(&(struct gpuvm_page_access_opts){0}, &pa, &err), 0);
	struct gpuvm_run_spec spec = {.gpu = "gtx1080ti-uvmsmart", .workload = workload, .seed = 7,
				      .wrap_source = wrap, .wrap_ctx = pa};
	cJSON *out = NULL;
	if (gpuvm_run_point(&spec, &out, &err))
		fail_msg("%s: %s", workload, err.msg);
	cJSON_Delete(out);
	if (gpuvm_page_access_write(pa, prefix, NULL, GPUVM_PAGE_MAP_AUTO, &err))
		fail_msg("%s", err.msg);
	gpuvm_page_access_destroy(pa);

	char path[256], line[512];
	snprintf(path, sizeof path, "%s.csv", prefix);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = 0;
	assert_non_null(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		/* allocation,alloc_index,kind,row,page_first,pages,bucket,time_first,
		 * time_last,accesses,thread_accesses,accesses_per_page,written */
		char name[32], kind[16];
		unsigned idx, row, bucket, written;
		unsigned long long first, pages, t0, t1, acc, tacc;
		double app;
		assert_int_equal(sscanf(line, "%31[^,],%u,%15[^,],%u,%llu,%llu,%u,%llu,%llu,%llu,%llu,%lf,%u",
					name, &idx, kind, &row, &first, &pages, &bucket, &t0, &t1, &acc,
					&tacc, &app, &written),
				 13);
		assert_true(idx < MAX_ALLOCS && row < MAX_ROWS);
		if (idx >= n) {
			n = idx + 1;
			snprintf(u[idx].name, sizeof u[idx].name, "%s", name);
		}
		struct alloc_use *a = &u[idx];
		if (!a->row_pages[row]) {
			a->row_pages[row] = pages;
			a->pages += pages;
		}
		a->accesses += acc;
		a->row_acc[row] += (double)acc;
		a->written |= written != 0;
	}
	fclose(f);
	unlink(path);
	snprintf(path, sizeof path, "%s.json", prefix);
	unlink(path);
	return n;
}

static double per_page(const struct alloc_use *a)
{
	return (double)a->accesses / (double)a->pages;
}

/* Coefficient of variation of the accesses per page over the rows. */
static double row_cv(const struct alloc_use *a)
{
	double s = 0, s2 = 0, k = 0;
	for (size_t r = 0; r < MAX_ROWS; r++)
		if (a->row_pages[r]) {
			double x = a->row_acc[r] / (double)a->row_pages[r];
			s += x;
			s2 += x * x;
			k++;
		}
	double mean = s / k, var = s2 / k - mean * mean;
	return var > 0 ? sqrt(var) / mean : 0;
}

static void test_fdtd_regular_sssp_irregular(void **state)
{
	(void)state;
	static struct alloc_use f[MAX_ALLOCS], s[MAX_ALLOCS];
	char prefix[64];
	snprintf(prefix, sizeof prefix, "/tmp/gpuvm_access_%d", (int)getpid());
	size_t nf = map_csv("fdtd-2d:n=256,steps=3,mem=managed", prefix, f);
	size_t ns = map_csv("sssp:vertices=65536,degree=2,max_iter=15,mem=managed", prefix, s);
	/* Only allocations of 16 pages or more: fdtd's 20-byte fict array is
	 * one page read by every thread. */
	double f_lo = 1e300, f_hi = 0, s_lo = 1e300, s_hi = 0, ro_hot = 0, rw_cold = 1e300;
	for (size_t i = 0; i < nf; i++) {
		if (f[i].pages < 16)
			continue;
		f_lo = fmin(f_lo, per_page(&f[i]));
		f_hi = fmax(f_hi, per_page(&f[i]));
		assert_true(f[i].written); /* ex, ey, hz: read and written in place */
		/* regular: the pages of an allocation are accessed equally often */
		if (row_cv(&f[i]) > 0.25)
			fail_msg("fdtd-2d %s: per-page accesses vary (cv %.2f)", f[i].name, row_cv(&f[i]));
	}
	for (size_t i = 0; i < ns; i++) {
		if (s[i].pages < 16)
			continue;
		s_lo = fmin(s_lo, per_page(&s[i]));
		s_hi = fmax(s_hi, per_page(&s[i]));
		if (s[i].written)
			rw_cold = fmin(rw_cold, per_page(&s[i]));
		else
			ro_hot = fmax(ro_hot, per_page(&s[i]));
	}
	/* regular: every large allocation about as hot as the others */
	if (f_hi / f_lo > 2.5)
		fail_msg("fdtd-2d: hottest/coldest allocation %.1f", f_hi / f_lo);
	/* irregular: hot and cold allocations an order of magnitude apart,
	 * the read-only graph cold, the read-write vertex state hot */
	if (s_hi / s_lo < 10)
		fail_msg("sssp: hottest/coldest allocation only %.1f", s_hi / s_lo);
	if (ro_hot >= rw_cold)
		fail_msg("sssp: a read-only allocation (%.0f/page) is as hot as a written one (%.0f)",
			 ro_hot, rw_cold);
}

/* UVMSmart's sssp.cu generateRandomGraph, literally, from glibc's rand()
 * after srand(seed): targets[v * degree + l] and weights (rand() % 1000,
 * the integer of its (rand() % 1000) / 1000.0f). */
static void uvmsmart_graph(uint32_t n, uint32_t degree, uint32_t seed, uint32_t *targets,
			   uint32_t *weights)
{
	struct glibc_rand r;
	glibc_srand(&r, seed);
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t l = 0; l < degree; l++) {
			uint32_t temp;
			for (;;) {
				temp = (uint32_t)glibc_rand(&r) % n;
				int dup = temp == k;
				for (uint32_t t = 0; t < l; t++)
					dup |= targets[k * degree + t] == temp;
				if (!dup)
					break;
			}
			targets[k * degree + l] = temp;
			weights[k * degree + l] = (uint32_t)glibc_rand(&r) % 1000;
		}
}

/* graph=uniform-glibc is UVMSmart's sssp input itself: the literal
 * generator above reproduces its published run (vertex 0's out-edges lead
 * to 738663 and 825449, the pages of the first DMAs of
 * output_logs/NoOversub/Always/sssp.log at 2^20 vertices), and sssp on the
 * workload's graph reaches the vertices, at the costs, that five rounds of
 * synchronous relaxation on the literal graph give. */
static void test_uniform_glibc_is_uvmsmarts_sssp_graph(void **state)
{
	(void)state;
	struct glibc_rand r;
	glibc_srand(&r, 1);
	uint32_t first[4];
	for (int i = 0; i < 4; i++)
		first[i] = (uint32_t)glibc_rand(&r);
	assert_int_equal(first[0] % (1u << 20), 738663);
	assert_int_equal(first[2] % (1u << 20), 825449);

	enum { N = 3000, D = 2, PAIRS = 5 };
	uint32_t *t = malloc(N * D * sizeof *t), *w = malloc(N * D * sizeof *w);
	uint64_t *cost = malloc(N * sizeof *cost), *next = malloc(N * sizeof *next);
	unsigned char *active = calloc(N, 1);
	assert_non_null(t && w && cost && next && active);
	uvmsmart_graph(N, D, 1, t, w);
	for (int v = 0; v < N; v++)
		cost[v] = next[v] = UINT64_MAX;
	cost[0] = next[0] = 0;
	active[0] = 1;
	for (int it = 0; it < PAIRS; it++) {
		for (int v = 0; v < N; v++)
			if (active[v]) {
				active[v] = 0;
				for (int e = v * D; e < (v + 1) * D; e++)
					if (cost[v] + w[e] < next[t[e]])
						next[t[e]] = cost[v] + w[e];
			}
		for (int v = 0; v < N; v++)
			if (next[v] < cost[v]) {
				cost[v] = next[v];
				active[v] = 1;
			}
	}
	uint64_t reached = 0, sum = 0;
	for (int v = 0; v < N; v++)
		if (cost[v] != UINT64_MAX) {
			reached++;
			sum += cost[v];
		}
	char want[96];
	snprintf(want, sizeof want, " reached=%llu cost_sum=%llu", (unsigned long long)reached,
		 (unsigned long long)sum);
	assert_true(reached > 20); /* a frontier that grew, not a lone source */

	struct gpuvm_run_spec spec = {.gpu = "gtx1080ti-uvmsmart",
				      .workload = "sssp:graph=uniform-glibc,vertices=3000,degree=2,"
						  "max_iter=5,verify=1",
				      .seed = 1};
	struct gpuvm_error err = {{0}};
	cJSON *out = NULL;
	if (gpuvm_run_point(&spec, &out, &err))
		fail_msg("%s", err.msg);
	const char *res = cJSON_GetObjectItemCaseSensitive(out, "result")->valuestring;
	if (!strstr(res, want) || !strstr(res, "verify=pass") || !strstr(res, " edges=6000 "))
		fail_msg("got '%s', want '%s', edges=6000 and verify=pass", res, want);
	cJSON_Delete(out);
	free(t);
	free(w);
	free(cost);
	free(next);
	free(active);
}

/* loads=source (the default) issues the loads that are independent in
 * UVMSmart's sssp.cu and Rodinia's bfs kernel.cu back to back (LD_INDEP:
 * the vertex's two row bounds, sssp's edge and weight, sssp Kernel2's two
 * costs); loads=chained makes each wait for the one before. The same
 * instructions and the same answer, and the kernels take less time when
 * the row bounds are read together. */
static void test_source_loads_issue_together(void **state)
{
	(void)state;
	static const char *const base[] = {
		"sssp:graph=uniform-glibc,vertices=3000,degree=2,max_iter=15,verify=1",
		"bfs:graph=rmat-10-8,verify=1",
	};
	for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
		double kernel_s[2], insts[2];
		char *res[2];
		for (int chained = 0; chained < 2; chained++) {
			char wl[160];
			snprintf(wl, sizeof wl, "%s,loads=%s", base[i], chained ? "chained" : "source");
			struct gpuvm_run_spec spec = {.gpu = "gtx1080ti-uvmsmart", .workload = wl,
						      .seed = 7};
			struct gpuvm_error err = {{0}};
			cJSON *out = NULL;
			if (gpuvm_run_point(&spec, &out, &err))
				fail_msg("%s: %s", wl, err.msg);
			res[chained] =
				strdup(cJSON_GetObjectItemCaseSensitive(out, "result")->valuestring);
			kernel_s[chained] =
				cJSON_GetObjectItemCaseSensitive(out, "kernel_seconds")->valuedouble;
			insts[chained] =
				cJSON_GetObjectItemCaseSensitive(out, "warp_instructions")->valuedouble;
			cJSON_Delete(out);
			if (!strstr(res[chained], "verify=pass"))
				fail_msg("%s: %s", wl, res[chained]);
		}
		assert_string_equal(res[0], res[1]);
		assert_true(insts[0] == insts[1]);
		if (!(kernel_s[0] < kernel_s[1]))
			fail_msg("%s: loads=source %.9g s of kernels, chained %.9g s: want fewer",
				 base[i], kernel_s[0], kernel_s[1]);
		free(res[0]);
		free(res[1]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kernel_matches_reference_on_every_preset),
		cmocka_unit_test(test_managed_memory_gives_the_same_output),
		cmocka_unit_test(test_sssp_on_a_dimacs_file_has_the_hand_computed_costs),
		cmocka_unit_test(test_bc_and_pagerank_on_tiny_graphs),
		cmocka_unit_test(test_bad_graph_specs_are_errors),
		cmocka_unit_test(test_fdtd_regular_sssp_irregular),
		cmocka_unit_test(test_uniform_glibc_is_uvmsmarts_sssp_graph),
		cmocka_unit_test(test_source_loads_issue_together),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
