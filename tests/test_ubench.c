/* The timing model's unit tests: microbenchmark kernels (ubench workload,
 * src/workloads/suite/ubench_kernels.h) must reproduce, within 10 %, the
 * published latencies each preset cites (each presets/<gpu>.ini names its sources, and
 * Karnagel et al. Table 2 for the TLBs): L1 hit, L2 hit, DRAM, shared
 * memory, a dependent FFMA, TLB misses. A latency is the difference of two
 * runs divided by the steps between them, so launch, warm-up and the
 * final store cancel out. Each published value is written here with its
 * source, not read from the preset, so a preset edit that breaks the
 * composition (an increment counted twice, a wrong carve-out, the L1
 * bypassed) fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "run_util.h"

/* Cycles from the first CTA's start to the last warp's end of the run's
 * only kernel. */
static double kernel_cycles(const char *gpu, const char *wl)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	cJSON *o = run_report(&spec);
	const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "kernels"), 0);
	if (!k)
		fail_msg("%s on %s: no kernel", wl, gpu);
	double c = report_num(k, "end_cycle") - report_num(k, "start_cycle");
	cJSON_Delete(o);
	return c;
}

/* Per-step cycles: (T(b) - T(a)) / steps, the specs differing in b's
 * extra steps. */
static double per_step(const char *gpu, const char *a, const char *b, double steps)
{
	return (kernel_cycles(gpu, b) - kernel_cycles(gpu, a)) / steps;
}

static void check(const char *gpu, const char *what, double got, double published,
		  const char *source)
{
	printf("  %-15s %-14s %7.1f cycles (published %6.1f, %s)\n", gpu, what, got, published,
	       source);
	if (!(got > published * 0.9 && got < published * 1.1))
		fail_msg("%s %s: %.1f cycles, outside 10 %% of the published %.1f (%s)", gpu, what,
			 got, published, source);
}

/* A chase over footprint with stride, walked 2 vs 3 times: the third
 * walk's steps, everything warm. */
static double chase_warm(const char *gpu, const char *cache, const char *footprint,
			 const char *stride, double steps)
{
	char a[200], b[200];
	snprintf(a, sizeof a, "ubench:test=chase,cache=%s,footprint=%s,stride=%s,passes=2", cache,
		 footprint, stride);
	snprintf(b, sizeof b, "ubench:test=chase,cache=%s,footprint=%s,stride=%s,passes=3", cache,
		 footprint, stride);
	return per_step(gpu, a, b, steps);
}

struct published {
	const char *gpu;
	double l1, l2, dram, smem, fma;
	const char *dram_footprint; /* within the L1 TLB's reach */
	double wavefront;           /* cycles each bank-conflict replay adds */
};

/* 0 = no published value for the part (the preset's is a calibration) */
static const struct published parts[] = {
	/* PPT Kepler: L1 32, shared 26, FFMA 9; Karnagel cuda-gpu-tlb results: L2 hit 241 */
	{"k80", 32, 241, 0, 26, 9, "2MiB", 1},
	/* Mokhtari (seeds/001) 2.2.1, GTX 680: L2 210, DRAM 340 cycles; PPT
	 * Kepler: L1 32, shared 26, FFMA 9 (the thesis's 80 / 80 for L1 and
	 * shared disagree with every Kepler measurement: presets/gtx680.ini) */
	{"gtx680", 32, 210, 340, 26, 9, "2MiB", 1},
	/* PPT Kepler (GTX Titan Black: no latency in the thesis): L1 32,
	 * L2 188, DRAM 331, shared 26, FFMA 9 */
	{"gtx-titan-black", 32, 188, 331, 26, 9, "2MiB", 1},
	/* GS/PPT Pascal L1 82/81, shared 25, FFMA 6; Karnagel cuda-gpu-tlb results: L2 hit 293 */
	{"p100", 82, 293, 0, 25, 6, "8MiB", 1},
	/* MT4G V100-PCIE: L1 30.1, L2 214, shared 23.5, DRAM 408 cycles at
	 * 1380 MHz = 452 at 1530; NMSU: FFMA 4 */
	{"v100", 30.1, 214, 452, 23.5, 4, "8MiB", 1},
	/* HOP A100 PCIe: L1 32.7, near L2 203; LUO: shared 29; ASF: FP32 4;
	 * DRAM: gpu-benches gpu-latency a100_40, 572.2 at 122 MB (LUO's
	 * "global" 466.3 is nearer the far-L2 plateau: docs/calibration.md) */
	{"a100", 32.7, 203, 572.2, 29, 4, "8MiB", 1},
	/* measured on H100 SXM5 boards (cuda/hwbench.cu, docs/hardware.md):
	 * the calibrate chase's L1 49.5 and L2 289.8, shared 29.1, FFMA 4.44,
	 * a k-way conflict 2 (k - 1) cycles; its DRAM row (694.7) is over
	 * 122 MiB, not this test's chase */
	{"h100", 49.5, 289.8, 0, 29.1, 4.44, "8MiB", 2},
	/* HOP H800 PCIe: L1 32.1, near L2 264; LUO: shared 29; DRAM:
	 * gpu-benches gpu-latency h100_pcie, 649.9 at 122 MB (LUO's H800
	 * "global" 478.8 is the far-L2 plateau, 475-478 at 35-52 MB);
	 * conflicts as the SXM5's (the same die, h100.ini) */
	{"h100-pcie", 32.1, 264, 649.9, 29, 4, "8MiB", 2},
};

static void test_l1_l2_hits(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		const struct published *p = &parts[i];
		/* 32 nodes of 128 B: 4 KiB, in every L1; __ldca so that parts
		 * whose L1 skips globals (Kepler, Pascal) cache them too */
		check(p->gpu, "L1 hit", chase_warm(p->gpu, "ca", "4KiB", "128", 32), p->l1,
		      "presets/<gpu>.ini");
		/* 2048 nodes over 256 KiB: in every L2, past every L1 (__ldcg) */
		check(p->gpu, "L2 hit", chase_warm(p->gpu, "cg", "256KiB", "128", 2048), p->l2,
		      "presets/<gpu>.ini");
	}
}

static void test_dram(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		const struct published *p = &parts[i];
		if (!p->dram)
			continue;
		/* one walk of cold nodes 4352 B apart (a new DRAM row each,
		 * and a line no walk touched before): 800 vs 400 of them */
		char a[200], b[200];
		snprintf(a, sizeof a,
			 "ubench:test=chase,cache=cg,footprint=%s,stride=4352,passes=1,steps=400",
			 p->dram_footprint);
		snprintf(b, sizeof b,
			 "ubench:test=chase,cache=cg,footprint=%s,stride=4352,passes=1,steps=800",
			 p->dram_footprint);
		check(p->gpu, "DRAM", per_step(p->gpu, a, b, 400), p->dram, "presets/<gpu>.ini");
	}
}

static void test_shared_and_conflicts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		const struct published *p = &parts[i];
		double lat = per_step(p->gpu, "ubench:test=smem,steps=256",
				      "ubench:test=smem,steps=512", 256);
		check(p->gpu, "shared", lat, p->smem, "presets/<gpu>.ini");
		/* n-way conflicts: n wavefronts, one cycle each, two on Hopper
		 * (smem.wavefront_cycles: 2.0 / 6.0 / 14.0 measured) */
		double wave = p->wavefront;
		for (unsigned n = 2; n <= 8; n *= 2) {
			char a[100], b[100];
			snprintf(a, sizeof a, "ubench:test=smem,steps=256,lane_stride=%u", n);
			snprintf(b, sizeof b, "ubench:test=smem,steps=512,lane_stride=%u", n);
			double c = per_step(p->gpu, a, b, 256);
			printf("  %-9s shared %u-way  %7.1f cycles\n", p->gpu, n, c);
			assert_true(c > lat + (n - 1) * wave - 0.5 && c < lat + (n - 1) * wave + 0.5);
		}
	}
}

static void test_dependent_ffma(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		const struct published *p = &parts[i];
		double lat = per_step(p->gpu, "ubench:test=fma,steps=1000", "ubench:test=fma,steps=2000",
				      1000);
		check(p->gpu, "FFMA", lat, p->fma, "presets/<gpu>.ini");
	}
}

/* Karnagel et al. Table 2 (cuda-gpu-tlb results/): an L1 TLB miss that hits the L2 TLB
 * adds ~9 cycles on K80 and P100; a K80 L2 TLB miss that hits its L3
 * adds ~55 more. The chase walks nodes one TLB entry apart over four
 * times the level's reach (LRU: every step misses), the data in L2. */
static void test_tlb_misses(void **state)
{
	(void)state;
	double k80_l2 = chase_warm("k80", "cg", "256KiB", "128", 2048);
	double k80_l1miss = chase_warm("k80", "cg", "8MiB", "128KiB", 64);
	check("k80", "L1 TLB miss", k80_l1miss - k80_l2, 9, "Karnagel Table 2");
	double k80_l2miss = chase_warm("k80", "cg", "512MiB", "2MiB", 256);
	check("k80", "L2 TLB miss", k80_l2miss - k80_l1miss, 55, "Karnagel Table 2");
	double p100_l2 = chase_warm("p100", "cg", "256KiB", "128", 2048);
	double p100_l1miss = chase_warm("p100", "cg", "128MiB", "2MiB", 64);
	check("p100", "L1 TLB miss", p100_l1miss - p100_l2, 9, "Karnagel Table 2");
}

/* A barrier holds the CTA's warps until the slowest arrives: with warp 0
 * running `work` dependent instructions before each of `steps` barriers,
 * the kernel takes steps x (work x ALU latency) at least, and the other
 * warps' waiting shows as barrier stalls. Without barriers they would
 * finish at once. */
static void test_barrier_waits_for_slowest_warp(void **state)
{
	(void)state;
	struct gpuvm_run_spec spec = {.gpu = "v100",
				      .workload = "ubench:test=sync,steps=32,work=100,warps=4",
				      .seed = 1};
	cJSON *o = run_report(&spec);
	const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "kernels"), 0);
	double cycles = report_num(k, "end_cycle") - report_num(k, "start_cycle");
	double barrier = report_num(cJSON_GetObjectItemCaseSensitive(o, "stall_cycles"), "barrier");
	printf("  v100 sync: %.0f cycles, %.0f warp-cycles at barriers\n", cycles, barrier);
	assert_true(cycles >= 32 * 100 * 4);       /* v100 ALU latency 4 */
	assert_true(cycles < 32 * (100 * 4 + 50)); /* and little else */
	/* three warps wait about the whole time */
	assert_true(barrier > 3 * 32 * 100 * 4 * 0.9);
	assert_true(report_num(o, "barriers") == 32 * 4);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_l1_l2_hits),
		cmocka_unit_test(test_dram),
		cmocka_unit_test(test_shared_and_conflicts),
		cmocka_unit_test(test_dependent_ffma),
		cmocka_unit_test(test_tlb_misses),
		cmocka_unit_test(test_barrier_waits_for_slowest_warp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
