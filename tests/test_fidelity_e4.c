/* Fidelity target E4 (issue 5) at CI scale, on the k80 preset with Zheng
 * et al.'s GMMU (seeds/003, "Towards high performance paged memory for
 * GPUs", HPCA'16: 20 us far faults, far-fault MSHRs per CU, uvm.gmmu =
 * zheng, PCIe 3.0 x16). Every magnitude is a ratio to copy-then-execute
 * on the same link, bounded on both sides around the paper's value:
 *  - blocking far faults at 20 us: ~6x average, up to 15x (Zheng 2.1,
 *    Fig. 3) -> geometric mean over the workload set in [6/1.5, 6*1.5],
 *    each workload at most 15*1.5 and slower than replayable faults with
 *    the preset's 16 MSHRs by a fifth (atax, whose warps fault on 24
 *    pages at once, all taken before the TLB blocks, is the closest:
 *    1.49x against 1.06x);
 *  - replayable far faults with a few (4) far-fault MSHRs per CU: ~2x
 *    (Zheng abstract, 1 contribution 2, 3.2: "just a small number of
 *    simultaneous outstanding far-faults per CU ... from 3.6x to 2x",
 *    "tracking only four in-flight far-faults per-CU ... is sufficient")
 *    -> geometric mean in [2/1.5, 2*1.5];
 *  - runtime falls as far-fault MSHRs grow 1 -> 32, < 10 % gain past 16
 *    (Zheng 3.2: "little reason to go beyond 16");
 *  - a far-fault MSHR is held until its page has arrived (Zheng Fig. 4
 *    step 6): with one MSHR and two warps on one SM every fault costs
 *    latency + transfer, measured against that sum within [0.9, 1.2];
 *  - the tree prefetcher on balanced workloads (kernel time comparable to
 *    the copy time, Zheng Fig. 2) is ~12 % faster than copy-then-execute
 *    (Zheng abstract, 4: "from a 2x slowdown to a 12% speedup") -> tree /
 *    copy in [0.60, 1.0): faster (the sign), within the factor 1.5 of
 *    Zheng's 0.89 and not beyond what perfect overlap could give (ours
 *    0.95-0.99, a smaller gain than Zheng's: a triad warp keeps one
 *    iteration in flight, so its faults run less far ahead); on the other
 *    workloads within [0.6, 1.25] of copy;
 *  - at 110/125/150 % oversubscription every eviction policy runs and
 *    reports runtime, migrations and thrashed pages, and random sampling
 *    thrashes far more than streaming (Ganguly ISCA'19 Fig. 1).
 * Copy-then-execute: mem=copy (stream, random) or mem=device (suite
 * kernels, whose uploads are explicit copies, and whose results are
 * copied back). The workload set: streaming (stream-triad), random
 * (random-sampling, ra), stencil (fdtd-2d) and matrix-vector (atax)
 * access, the last three as in experiments/e4_suite.sh at CI sizes;
 * Zheng's set is Rodinia, Parboil and DoE kernels, 2.6-144 MB. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"
#include "gpuvm/link_rate.h"
#include "gpuvm/uvm.h"

#define STREAM "stream-triad:elems=262144,mem=%s"            /* 6 MiB working set */
#define RANDOM "random-sampling:region=6MiB,reads=4,mem=%s"
/* Balanced (Zheng Fig. 2): on k80, 832 threads make the triad's kernel
 * 0.23 ms beside a 0.50 ms copy, and 0.45 ms beside 0.98 ms at twice the
 * elements (at 1664 threads it was 0.26 ms, 0.26x: no longer balanced
 * once DRAM loads took PPT-GPU's Kepler latency) */
#define STREAM_BALANCED "stream-triad:elems=262144,threads=832,mem=%s"
#define STREAM_BALANCED_2 "stream-triad:elems=524288,threads=832,mem=%s"

struct wl {
	const char *fmt;
	const char *copy_mem; /* copy-then-execute */
};
static const struct wl SET[] = {
	{STREAM, "copy"},
	{RANDOM, "copy"},
	{"fdtd-2d:n=768,steps=2,mem=%s", "device"},
	{"ra:elems=65536,threads=8192,mem=%s", "device"},
	{"atax:n=768,mem=%s", "device"},
};
#define N_SET (sizeof SET / sizeof SET[0])

static cJSON *run_sets(const char *workload_fmt, const char *mem, const char *const *sets, int n)
{
	char wl[160];
	snprintf(wl, sizeof wl, workload_fmt, mem);
	struct gpuvm_run_spec spec = {.gpu = "k80", .workload = wl, .seed = 3};
	for (int i = 0; i < n; i++)
		spec.sets[spec.n_sets++] = sets[i];
	return run_report(&spec);
}

static double seconds(const char *wl, const char *mem, const char *const *sets, int n)
{
	cJSON *r = run_sets(wl, mem, sets, n);
	double s = report_num(r, "sim_seconds");
	cJSON_Delete(r);
	return s;
}

static double copy_seconds(const struct wl *w)
{
	return seconds(w->fmt, w->copy_mem, NULL, 0);
}

/* Far-fault MSHRs 1, 2, 4, ... 32 on managed memory without prefetching:
 * t[i] the simulated seconds of workload format wl at step i, never slower
 * with more MSHRs (by more than 2 %).
 *
 * Each t[i] is the geometric mean of three runs: at the preset's DRAM
 * latency and one cycle either side. fdtd-2d's time is a sum over ~900
 * fault batches, and which of its 1,731 faults share a batch shifts with
 * any one-cycle change: over dram.latency_cycles 92..98 on k80 its time at
 * 8 MSHRs spreads with a standard deviation of 2.1 % (batches 862-922) and
 * the 16-over-8 ratio from 0.937 to 1.021 (mean 0.981), while the other
 * four workloads move by less than 0.6 % (docs/calibration.md, "DRAM
 * latency on K80 and P100"). One run's ratio says where its batches fell;
 * the mean says what the MSHRs do. */
#define N_MSHR_STEPS 6
#define N_PERTURB 3
static void mshr_sweep(const char *wl, double t[N_MSHR_STEPS])
{
	static const unsigned mshrs[N_MSHR_STEPS] = {1, 2, 4, 8, 16, 32};
	const char *base[] = {"uvm.prefetcher=none"};
	cJSON *r = run_sets(wl, "managed", base, 1);
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(r, "config");
	const cJSON *dram = cJSON_GetObjectItemCaseSensitive(cfg, "dram.latency_cycles");
	assert_true(cJSON_IsNumber(dram) && dram->valuedouble >= 1);
	const unsigned dram_cycles = (unsigned)dram->valuedouble;
	cJSON_Delete(r);
	char set[64], lat[64];
	for (int i = 0; i < N_MSHR_STEPS; i++) {
		snprintf(set, sizeof set, "uvm.far_fault_mshrs=%u", mshrs[i]);
		double log_sum = 0;
		for (int p = 0; p < N_PERTURB; p++) {
			snprintf(lat, sizeof lat, "dram.latency_cycles=%u", dram_cycles + (unsigned)p - 1);
			const char *sets[] = {"uvm.prefetcher=none", set, lat};
			log_sum += log(seconds(wl, "managed", sets, 3));
		}
		t[i] = exp(log_sum / N_PERTURB);
		if (i)
			assert_true(t[i] <= t[i - 1] * 1.02); /* never slower with more */
	}
}

static void test_mshr_sweep(void **state)
{
	(void)state;
	for (size_t w = 0; w < N_SET; w++) {
		double t[N_MSHR_STEPS];
		mshr_sweep(SET[w].fmt, t);
		printf("  %s: far-fault MSHRs 1 2 4 8 16 32: %.3g %.3g %.3g %.3g %.3g %.3g s\n", SET[w].fmt,
		       t[0], t[1], t[2], t[3], t[4], t[5]);
		assert_true(t[0] > 1.5 * t[5]);           /* they matter */
		assert_true((t[4] - t[5]) / t[4] < 0.10); /* < 10 % past 16 */
	}
}

/* Blocking faults (Zheng 2.1, Fig. 3) and replayable faults with 4
 * far-fault MSHRs per CU (Zheng 3.2), against copy-then-execute. */
static void test_fault_model_magnitudes(void **state)
{
	(void)state;
	const char *blk[] = {"uvm.prefetcher=none", "uvm.fault_model=blocking"};
	const char *rep4[] = {"uvm.prefetcher=none", "uvm.far_fault_mshrs=4"};
	const char *rep16[] = {"uvm.prefetcher=none"}; /* the preset's 16 */
	double lb = 0, lr = 0;
	for (size_t w = 0; w < N_SET; w++) {
		double c = copy_seconds(&SET[w]);
		double b = seconds(SET[w].fmt, "managed", blk, 2) / c;
		double r4 = seconds(SET[w].fmt, "managed", rep4, 2) / c;
		double r16 = seconds(SET[w].fmt, "managed", rep16, 1) / c;
		printf("  %s: copy-then-execute %.3g s; blocking %.2fx, replayable 4 MSHRs %.2fx, 16 %.2fx\n",
		       SET[w].fmt, c, b, r4, r16);
		assert_true(b <= 15 * 1.5);  /* Zheng: "up to 15x" */
		assert_true(b > 1.2 * r16); /* blocking slower than replayable */
		assert_true(r4 >= 0.9 && r4 <= 6);      /* Zheng 3.2: "2-7x" for half the workloads */
		assert_true(r16 <= r4 * 1.02);
		lb += log(b);
		lr += log(r4);
	}
	double gb = exp(lb / N_SET), gr = exp(lr / N_SET);
	printf("  geometric mean: blocking %.2fx (Zheng ~6x), replayable 4 MSHRs %.2fx (Zheng ~2x)\n", gb, gr);
	assert_true(gb >= 6 / 1.5 && gb <= 6 * 1.5);
	assert_true(gr >= 2 / 1.5 && gr <= 2 * 1.5);
}

/* A far-fault MSHR is held from the fault until its page has arrived
 * (Zheng Fig. 4 step 6: the MSHR notifies the TLB once the page is
 * migrated). One CTA of two warps on one SM, one far-fault MSHR, no
 * prefetch, and a slow link (4 KB at 1 GB/s raw: 5.0 us): every fault
 * waits for the previous one's page, so runtime = far faults x (20 us +
 * transfer). An MSHR freed when the fault is handled lets the next fault's
 * handling overlap the transfer: 20 / 25 of that, below the bound. */
static void test_mshr_held_until_arrival(void **state)
{
	(void)state;
	const char *sets[] = {"uvm.prefetcher=none", "uvm.far_fault_mshrs=1", "pcie.bandwidth_gb_s=1",
			      "uvm.fault_latency_us=20"};
	cJSON *r = run_sets("random-sampling:region=6MiB,reads=8,threads=64,block=64,mem=%s", "managed",
			    sets, 4);
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "uvm");
	assert_non_null(u);
	double faults = report_num(u, "far_faults");
	double transfer = gpuvm_uvm_transfer_seconds(4096, 1, false);
	double ratio = report_num(r, "sim_seconds") / (faults * (20e-6 + transfer));
	printf("  one MSHR, two warps: %.0f far faults, runtime / (faults x (latency + transfer)) = %.3f\n",
	       faults, ratio);
	assert_true(report_num(u, "nacks") > 0.5 * faults); /* the second warp waits for the MSHR */
	assert_true(ratio >= 0.9 && ratio <= 1.2);
	cJSON_Delete(r);
}

/* The tree prefetcher against copy-then-execute (Zheng 4: prefetching
 * turns the 2x slowdown into a 12 % speed-up; Fig. 2: the gain comes from
 * overlapping transfers with execution, so it needs balanced workloads). */
static void test_prefetch(void **state)
{
	(void)state;
	static const char *const trees[] = {"uvm.prefetcher=tree-driver", "uvm.prefetcher=tree-uvmsmart"};
	static const struct wl balanced[] = {{STREAM_BALANCED, "copy"}, {STREAM_BALANCED_2, "copy"}};
	for (size_t w = 0; w < 2; w++) {
		double c = copy_seconds(&balanced[w]);
		cJSON *k = run_sets(balanced[w].fmt, "device", NULL, 0);
		double kernel = report_num(k, "sim_seconds");
		cJSON_Delete(k);
		const char *none[] = {"uvm.prefetcher=none"};
		double tn = seconds(balanced[w].fmt, "managed", none, 1);
		printf("  %s (balanced: kernel %.3g s, copy-then-execute %.3g s): no prefetch %.2fx",
		       balanced[w].fmt, kernel, c, tn / c);
		assert_true(kernel > 0.3 * (c - kernel) && kernel < 3 * (c - kernel));
		assert_true(tn >= 1.5 * c);
		for (int i = 0; i < 2; i++) {
			const char *sets[] = {trees[i]};
			double t = seconds(balanced[w].fmt, "managed", sets, 1) / c;
			printf(", %s %.3fx", trees[i] + 15, t);
			assert_true(t >= 0.60 && t < 1.0);
		}
		printf("\n");
	}
	for (size_t w = 0; w < N_SET; w++) {
		double c = copy_seconds(&SET[w]);
		for (int i = 0; i < 2; i++) {
			const char *sets[] = {trees[i]};
			double t = seconds(SET[w].fmt, "managed", sets, 1) / c;
			printf("  %s: %s %.3fx copy-then-execute\n", SET[w].fmt, trees[i] + 15, t);
			assert_true(t >= 0.6 && t <= 1.25);
		}
	}
	/* the post-hoc accounting is reported beside the in-timing model */
	const char *lat[] = {"uvm.fault_latency_us=20", "uvm.prefetcher=none"};
	cJSON *r = run_sets(STREAM, "managed", lat, 2);
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "uvm");
	assert_non_null(u);
	double want = report_num(u, "far_faults") * 20e-6;
	assert_true(report_num(u, "posthoc_fault_seconds") > 0.9 * want &&
		    report_num(u, "posthoc_fault_seconds") < 1.1 * want);
	cJSON_Delete(r);
}

static void test_oversubscription(void **state)
{
	(void)state;
	static const char *const pcts[] = {"110", "125", "150"};
	for (size_t p = 0; p < 3; p++) {
		double thrash[2] = {0, 0};
		for (size_t e = 0; e < gpuvm_uvm_eviction_count(); e++) {
			char ev[64], os[64];
			snprintf(ev, sizeof ev, "uvm.eviction=%s", gpuvm_uvm_eviction_info(e)->name);
			snprintf(os, sizeof os, "uvm.oversub_percent=%s", pcts[p]);
			const char *sets[] = {"uvm.prefetcher=none", ev, os};
			const char *wls[] = {STREAM, RANDOM};
			for (int w = 0; w < 2; w++) {
				cJSON *r = run_sets(wls[w], "managed", sets, 3);
				const cJSON *u = cJSON_GetObjectItemCaseSensitive(r, "uvm");
				assert_non_null(u);
				assert_true(report_num(r, "sim_seconds") > 0);
				assert_true(report_num(u, "pages_h2d") > 0);
				assert_true(report_num(u, "pages_evicted") > 0); /* it is oversubscribed */
				assert_true(report_num(u, "peak_resident_pages") <= report_num(u, "capacity_pages"));
				thrash[w] += report_num(u, "thrashed_pages");
				cJSON_Delete(r);
			}
		}
		printf("  %s%%: thrashed pages, all policies: stream %.0f, random %.0f\n", pcts[p],
		       thrash[0], thrash[1]);
		assert_true(thrash[1] > 10 * thrash[0] + 100);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mshr_sweep),
		cmocka_unit_test(test_fault_model_magnitudes),
		cmocka_unit_test(test_mshr_held_until_arrival),
		cmocka_unit_test(test_prefetch),
		cmocka_unit_test(test_oversubscription),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
