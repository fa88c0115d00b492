/* Fidelity of delayed migration (Ganguly et al. IPDPS'20, seeds/004) at
 * UVMSmart's sizes on the gtx1080ti-uvmsmart preset (Table I: 45 us far
 * faults, tree prefetcher, 2 MB eviction, t_s = 8), at 125 %
 * oversubscription, Baseline (first-touch with LRU-2MB) against Adaptive
 * (Eq. 1 with the access-counter LFU, at p = 8: VI-C, "For the Adaptive
 * scheme p = 8 is used"), bounded on both sides around the paper's values
 * (section VI-C, Fig. 6 and 7):
 *  - irregular: Adaptive saves 22-78 % of the baseline's time (runtime
 *    0.22-0.78 of it: the text's range is the time saved, as the figure
 *    data show, bfs 0.782 and ra 0.218 at its ends, nw 0.672, sssp 0.402;
 *    UVMSmart's Page_Migration_Pinning/plots/ExtractedResultsNPlots.xlsx,
 *    experiments/ganguly_figures.csv; until 2026-11-30 this test read it
 *    as 0.56-0.82), with fewer thrashed pages (Fig. 7). Runtime is what
 *    the paper plots, UVMSmart's kernel time + far faults x 45 us
 *    (kernel_seconds - launch_seconds + uvm.posthoc_fault_seconds:
 *    UVMSmart's kernel time starts after each launch's 150 us; until
 *    2026-11-30 the test took uvm.posthoc_total_seconds, the launches
 *    in it). The text's range is asserted; each
 *    workload's own figure value, its effect (1 / runtime - 1) within
 *    +-50 % as the fidelity table scores it, is reported as a known miss
 *    (fidelity_known_miss): sssp (UVMSmart's, 15 kernel pairs, gpuvm's
 *    own uniform graph) 0.361, inside 0.310-0.573; nw 0.277, outside
 *    0.577-0.804 (its adaptive run is faster than UVMSmart's,
 *    docs/fidelity/fidelity.md; with uvm.evict_whole = whole on the
 *    preset since 2026-11-30). At p = 2 nw is 0.952, so the bound also
 *    catches a penalty that is not applied. (UVMSmart's ra is not used:
 *    on its 12 MB a run takes ~100 faults and a few 2 MB evictions decide
 *    it, so the ratio swings with the input draw:
 *    experiments/ganguly_fig4_8.sh. Before the test
 *    took the paper's runtime it compared the simulated time alone,
 *    without the post-hoc fault time: sssp 0.623, nw 0.734.)
 *  - regular: "the number of per basic block accesses ... always exceeds
 *    the threshold" and Adaptive falls back to first touch and to LRU:
 *    backprop and srad within [0.95, 1.05] of the baseline. srad calls
 *    cudaDeviceSynchronize every iteration in UVMSmart's managed version,
 *    which writes back and invalidates its (all dirty) pages and clears
 *    the counters (uvm.device_sync = writeback on the preset), so every
 *    iteration starts like the first (kept resident instead: 0.936).
 * Mechanisms this test names, each removed once to see it fail (the
 * ratios measured with the runtime before 2026-11-30): the
 * remote read below the threshold (read_threshold returning 1: sssp
 * 1.012, nothing read remotely), Eq. 1's penalty p (ignored, i.e. 2:
 * nw 0.984), the cold/hot classes
 * of lfu-ac (the raw count order evicts the block the stream fills:
 * backprop 1.563x).
 * Hot and cold data structures (III-B, Fig. 2b): in sssp "the read-only
 * data-structures are cold and the pages in hot data-structures are both
 * read from and written to": by the access counters, row_start, col and
 * weight are cold, cost and updating_cost hot (measured per touched 64 KB
 * block: 13-20 k counts against 55-128 k; the mask is device memory, as
 * in UVMSmart's sssp.cu). Mechanism removed once: classifying by the
 * absolute t_s (every block passes it over a run: all hot). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"

#define GPU "gtx1080ti-uvmsmart"

struct point {
	/* the runtime the paper plots: UVMSmart's kernel time, which starts
	 * after each launch's 150 us, + far faults x 45 us, added after the
	 * run (the preset's uvm.fault_accounting = posthoc;
	 * experiments/ganguly_fig4_8.sh runtime()) */
	double runtime_seconds;
	double thrashed_pages, remote_accesses;
};

/* penalty: Eq. 1's p; VI-C runs Fig. 6's Adaptive at p = 8 */
static struct point run_scheme(const char *workload, const char *migration, const char *eviction,
			       int penalty)
{
	char mig[64], ev[64], pen[64];
	snprintf(mig, sizeof mig, "uvm.migration=%s", migration);
	snprintf(ev, sizeof ev, "uvm.eviction=%s", eviction);
	snprintf(pen, sizeof pen, "uvm.migration_penalty=%d", penalty);
	struct gpuvm_run_spec spec = {.gpu = GPU, .workload = workload, .seed = 1,
				      .sets = {"uvm.oversub_percent=125", mig, ev, pen}, .n_sets = 4};
	cJSON *o = run_report(&spec);
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "uvm");
	struct point p = {
		.runtime_seconds = report_num(o, "kernel_seconds") - report_num(o, "launch_seconds") +
				   report_num(u, "posthoc_fault_seconds"),
		.thrashed_pages = report_num(u, "pages_returned"),
		.remote_accesses = report_num(u, "remote_accesses"),
	};
	cJSON_Delete(o);
	return p;
}

static void test_irregular_adaptive_faster(void **state)
{
	(void)state;
	/* UVMSmart's sssp.cu: MAX_ITERATION = 15 kernel pairs */
	const char *ws[] = {"sssp:max_iter=15,mem=managed", "nw:mem=managed"};
	/* the figure data's adaptive / baseline (Oversub sheet) */
	const double paper[] = {16043.333008 / 39899.449219, 46354.921875 / 68998.523438};
	for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
		struct point base = run_scheme(ws[i], "first-touch", "lru-2mb-access", 2);
		struct point adaptive = run_scheme(ws[i], "adaptive", "lfu-ac", 8);
		double ratio = adaptive.runtime_seconds / base.runtime_seconds;
		/* the speed-up's effect within +-50 % of the figure's */
		double e = 1 / ratio - 1, ep = 1 / paper[i] - 1;
		printf("%s at 125 %%: adaptive (p = 8) / baseline %.3f (paper %.3f; text 0.22-0.78), thrashed %.0f vs "
		       "%.0f, remote %.0f\n", ws[i], ratio, paper[i], adaptive.thrashed_pages, base.thrashed_pages,
		       adaptive.remote_accesses);
		assert_true(ratio >= 0.22 && ratio <= 0.78);
		fidelity_known_miss(e >= 0.5 * ep && e <= 1.5 * ep,
				    "irregular: adaptive's speed-up within +-50 % of the figure's effect");
		assert_true(adaptive.thrashed_pages < base.thrashed_pages);
		assert_true(adaptive.remote_accesses > 0 && base.remote_accesses == 0);
	}
}

static void test_regular_adaptive_unchanged(void **state)
{
	(void)state;
	const char *ws[] = {"backprop:mem=managed", "srad:mem=managed"};
	for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
		struct point base = run_scheme(ws[i], "first-touch", "lru-2mb-access", 2);
		struct point adaptive = run_scheme(ws[i], "adaptive", "lfu-ac", 8);
		double ratio = adaptive.runtime_seconds / base.runtime_seconds;
		printf("%s at 125 %%: adaptive / baseline %.3f (paper ~1.00)\n", ws[i], ratio);
		assert_true(ratio >= 0.95 && ratio <= 1.05);
	}
}

static void test_sssp_hot_cold(void **state)
{
	(void)state;
	struct gpuvm_run_spec spec = {.gpu = GPU, .workload = "sssp:mem=managed,vertices=131072",
				      .seed = 1, .n_sets = 2,
				      .sets = {"uvm.oversub_percent=125", "uvm.migration=adaptive"}};
	cJSON *o = run_report(&spec);
	const cJSON *al = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "uvm"),
							   "allocations");
	static const struct {
		const char *name, *cls;
	} want[] = {{"row_start", "cold"}, {"col", "cold"}, {"weight", "cold"},
		    {"cost", "hot"},       {"updating_cost", "hot"}};
	assert_int_equal(cJSON_GetArraySize(al), 5);
	for (size_t i = 0; i < 5; i++) {
		const cJSON *a = cJSON_GetArrayItem(al, (int)i);
		const char *name = cJSON_GetObjectItemCaseSensitive(a, "name")->valuestring;
		const char *cls = cJSON_GetObjectItemCaseSensitive(a, "class")->valuestring;
		printf("sssp %-14s %s\n", name, cls);
		assert_string_equal(name, want[i].name);
		assert_string_equal(cls, want[i].cls);
	}
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irregular_adaptive_faster),
		cmocka_unit_test(test_regular_adaptive_unchanged),
		cmocka_unit_test(test_sssp_hot_cold),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	printf("known misses reported (not asserted; GPUVM_FIDELITY_STRICT=1 asserts them): %d\n",
	       fidelity_known_misses);
	return rc;
}
