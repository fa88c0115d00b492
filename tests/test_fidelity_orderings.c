/* Signs and orderings of the seeds' effects (issue 33 item 4), two-sided,
 * at CI sizes: each effect the papers state as "A slower than B" is
 * checked as A > B, not only as A's magnitude within a band.
 *
 * Checks that hold today are assertions. The KNOWN MISSES of issue 33
 * (item 3) are checked too, but reported instead of asserted: each prints
 * "MISS (known, issue 33)" with its numbers and the test still passes, so
 * that CI stays green while the miss stays visible. With
 * GPUVM_FIDELITY_STRICT=1 in the environment they are assertions as well
 * (the test then fails today; it must pass once the model is fixed, at
 * which point the check moves to the asserted list). docs/fidelity.md has
 * each miss's measured cause.
 *
 * Zheng et al., "Towards high performance paged memory for GPUs", HPCA'16
 * (seeds/003) on the k80 preset (uvm.gmmu = zheng, 20 us far faults):
 *  - blocking far faults are slower than replayable far faults with one
 *    far-fault MSHR per CU (2.1 and 3.2: blocking ~6x copy-then-execute,
 *    replayable with one MSHR 3.6x), and by less than 1.5 x 6/3.6;
 *  - blocking is slower than replayable with 4 MSHRs (3.2: "2x");
 *  - replayable with one MSHR is slower than with 4 (3.2: 3.6x -> 2x).
 * Mokhtari's thesis (seeds/001) Fig. 6.8, SePo insert rate at 1x (the table
 * fits the heap; the rate over the insert kernels' time, as the thesis's
 * benchmark times it): basic > combining > multi-valued at every key size.
 * Du et al., NeiDty (seeds/002) Fig. 11 on the gem5gpu-neidty preset, LUD
 * (Rodinia, n=512 as experiments/neidty_workloads.sh runs it): neidty-default
 * cuts the average translation delay below the private-L1 baseline by
 * more than 5 % (the size, within half of the paper's 1.21x, IV.D, is a
 * known miss under gem5-gpu's scheduler), and neidty-twice does
 * not beat it (the paper's 1.20x against 1.21x). LUD, not MIS: LUD's
 * effect is deterministic (no random input) and three runs cost about
 * 3 s, where MIS's speed-up is its walker queue's noise around 1.02x and
 * took 30 runs (100 s) of a walk-and-seed grid to average; the table's
 * MIS rows (experiments/neidty_fig8_11.sh) keep MIS. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"

/* the e4 workload set at CI sizes (tests/test_fidelity_e4.c) */
static const char *const ZHENG_SET[] = {
	"stream-triad:elems=262144,mem=managed",
	"random-sampling:region=6MiB,reads=4,mem=managed",
	"fdtd-2d:n=768,steps=2,mem=managed",
	"ra:elems=65536,threads=8192,mem=managed",
	"atax:n=768,mem=managed",
};
#define N_ZHENG (sizeof ZHENG_SET / sizeof ZHENG_SET[0])

static double sim_seconds(const char *gpu, const char *workload, const char *const *sets, int n)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = 3};
	for (int i = 0; i < n; i++)
		spec.sets[spec.n_sets++] = sets[i];
	cJSON *r = run_report(&spec);
	double s = report_num(r, "sim_seconds");
	cJSON_Delete(r);
	return s;
}

static void test_zheng_fault_model_orderings(void **state)
{
	(void)state;
	const char *blocking[] = {"uvm.prefetcher=none", "uvm.fault_model=blocking"};
	const char *rep1[] = {"uvm.prefetcher=none", "uvm.far_fault_mshrs=1"};
	const char *rep4[] = {"uvm.prefetcher=none", "uvm.far_fault_mshrs=4"};
	for (size_t w = 0; w < N_ZHENG; w++) {
		double b = sim_seconds("k80", ZHENG_SET[w], blocking, 2);
		double r1 = sim_seconds("k80", ZHENG_SET[w], rep1, 2);
		double r4 = sim_seconds("k80", ZHENG_SET[w], rep4, 2);
		printf("  %s: blocking %.3g s, replayable 1 MSHR %.3g s, 4 MSHRs %.3g s\n", ZHENG_SET[w], b,
		       r1, r4);
		assert_true(r1 > r4); /* one MSHR per CU is slower than four */
		assert_true(b > r4);  /* blocking is slower than replayable with four */
		/* blocking is slower than replayable with one MSHR (Zheng 6x vs
		 * 3.6x: 1.67x); ours 1.02-1.56x at these sizes */
		assert_true(b > r1);
		assert_true(b < 6.0 / 3.6 * 1.5 * r1);
	}
}

/* Fig. 6.8 at 1x: records, 2 per key, 8-byte values. The insert rate is
 * records over the insert kernels' time: the thesis's benchmark
 * (rezafmk/BRB_HashTable performanceTest/main.cu, the "raw perf results"
 * commits d47a8cf and 1702e29) starts its timer after the input's
 * cudaMemcpy and sums only the insert kernel of each pass, the copy-outs
 * (checkAndResetPass, the final heap cudaMemcpy) outside it; the thesis
 * explains the order by the kernels alone (6.6.2: no search, lock-free;
 * more allocations). The rate over the whole simulated time (input copies
 * and copy-outs included, the convention of 6.6.2's first paragraph for
 * the application times) is printed beside it: there basic's 2.3x larger
 * table copy-out puts it behind combining (docs/fidelity.md). */
static void test_sepo_fig6_8_ordering(void **state)
{
	(void)state;
	static const unsigned keys[] = {8, 64};
	for (size_t k = 0; k < 2; k++) {
		static const char *const orgs[] = {"basic", "combining", "multi"};
		double rate[3], total[3];
		for (int o = 0; o < 3; o++) {
			char wl[128];
			snprintf(wl, sizeof wl, "sepo-kv:records=16384,dup=2,key=%u,value=8,org=%s", keys[k],
				 orgs[o]);
			struct gpuvm_run_spec spec = {.gpu = "p100", .workload = wl};
			cJSON *r = run_report(&spec);
			rate[o] = 16384 / report_num(r, "kernel_seconds");
			total[o] = 16384 / report_num(r, "sim_seconds");
			cJSON_Delete(r);
		}
		printf("  key %u B: insert rate (kernels) basic %.3g, combining %.3g, multi %.3g M/s;"
		       " with copies %.3g / %.3g / %.3g M/s\n",
		       keys[k], rate[0] / 1e6, rate[1] / 1e6, rate[2] / 1e6, total[0] / 1e6,
		       total[1] / 1e6, total[2] / 1e6);
		assert_true(rate[0] > rate[1]); /* basic > combining */
		assert_true(rate[1] > rate[2]); /* combining > multi-valued */
	}
}

static double lud_translation_cycles(const char *peer, const char *update)
{
	struct gpuvm_run_spec spec = {.gpu = "gem5gpu-neidty", .workload = "lud:n=512", .seed = 1};
	spec.sets[spec.n_sets++] = peer;
	if (update)
		spec.sets[spec.n_sets++] = update;
	cJSON *r = run_report(&spec);
	const cJSON *l1 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "tlb"), 0);
	assert_non_null(l1);
	double c = report_num(l1, "avg_translation_cycles");
	cJSON_Delete(r);
	return c;
}

static void test_neidty_update_orderings(void **state)
{
	(void)state;
	double b = lud_translation_cycles("tlb.l1.peer=none", NULL);
	double def = b / lud_translation_cycles("tlb.l1.peer=neidty", "neidty.update=default");
	double twice = b / lud_translation_cycles("tlb.l1.peer=neidty", "neidty.update=twice");
	printf("  LUD: cycles per translation baseline %.2f; speed-up neidty-default %.3fx, "
	       "neidty-twice %.3fx (paper 1.21x, 1.20x)\n",
	       b, def, twice);
	/* the sign, and a cut the mechanism must make (5 %), asserted; the
	 * size, (speed-up - 1) within half of the paper's 0.21 either way, a
	 * known miss since the preset runs gem5-gpu's greedy-then-oldest
	 * scheduler (about 1.45x: experiments/fidelity_misses.tsv) */
	assert_true(def > 1.05);
	fidelity_known_miss(def - 1 > 0.21 * 0.5 && def - 1 < 0.21 * 1.5,
			    "NeiDty LUD neidty-default's effect within half of the paper's +0.21");
	/* twice does not beat default (within 0.1 %, the table's tolerance) */
	assert_true(twice <= def * (1 + 1e-3));
}

static int report_misses(void **state)
{
	(void)state;
	printf("known misses reported (not asserted; GPUVM_FIDELITY_STRICT=1 asserts them): %d\n",
	       fidelity_known_misses);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zheng_fault_model_orderings),
		cmocka_unit_test(test_sepo_fig6_8_ordering),
		cmocka_unit_test(test_neidty_update_orderings),
	};
	return cmocka_run_group_tests(tests, NULL, report_misses);
}
