/* Issue throughput per op class per SM (presets' core.*_interval_cycles over
 * 4 sub-partitions): every SM full of warps with 8 independent chains each
 * reaches the results per clock per SM of the CUDA C++ Programming Guide's
 * "Throughput of Native Arithmetic Instructions" (validation/microbench.tsv):
 * Hopper's FP32 at 128 (32 lanes per sub-partition, interval 1), twice
 * Ampere's 64 and Volta's; IMAD 64, FP64 64 (Hopper) / 32, MUFU 16.
 * Kepler's 192 FP32 lanes per SM need dual issue (core.dispatch_units). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "run_util.h"

static double kernel_cycles_set(const char *gpu, const char *wl, const char *set)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	if (set)
		spec.sets[spec.n_sets++] = set;
	cJSON *o = run_report(&spec);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	if (!k)
		fail_msg("%s: no kernel", wl);
	double c = report_num(k, "end_cycle") - report_num(k, "start_cycle");
	cJSON_Delete(o);
	return c;
}

static double kernel_cycles(const char *gpu, const char *wl)
{
	return kernel_cycles_set(gpu, wl, NULL);
}

/* thread-instructions per clock per SM, as gpuvm calibrate's
 * OP_ops_per_clk_sm row measures it (128 vs 256 instructions per chain,
 * calibrate --quick's sizes). Not 64: a kernel that short ends with every
 * warp of the GPU storing its result in the same cycle, a burst h100's
 * store rate to the L2 takes ~130 cycles for
 * (l2.slice_write_bytes_per_cycle), while at 128 the warps have drifted
 * apart and store one after another, so T(2N) - T(N) would not cancel
 * the end (imad: 133.7 per clock instead of 64) */
static double ops_per_clk_sm(const char *gpu, unsigned sms, const char *op)
{
	char a[160], b[160];
	snprintf(a, sizeof a, "ubench-ops:op=%s,insts=128,ilp=8,blocks=%u,block=512", op, sms);
	snprintf(b, sizeof b, "ubench-ops:op=%s,insts=256,ilp=8,blocks=%u,block=512", op, sms);
	return 512.0 * 128 / (kernel_cycles(gpu, b) - kernel_cycles(gpu, a));
}

static void check(const char *gpu, unsigned sms, const char *op, double documented)
{
	double v = ops_per_clk_sm(gpu, sms, op);
	printf("  %-9s %-4s %6.1f per clock per SM (CUDA guide %g)\n", gpu, op, v, documented);
	assert_true(fabs(v - documented) <= 0.15 * documented);
}

static void test_hopper(void **state)
{
	(void)state;
	check("h100", 132, "fma", 128);
	check("h100", 132, "imad", 64);
	check("h100", 132, "dp", 64);
	check("h100", 132, "sfu", 16);
	check("h100-pcie", 114, "fma", 128);
}

static void test_ampere_volta_pascal(void **state)
{
	(void)state;
	check("a100", 108, "fma", 64);
	check("a100", 108, "dp", 32);
	check("v100", 80, "fma", 64);
	check("p100", 56, "fma", 64);
	/* Hopper's FP32 issues twice Ampere's per SM */
	assert_true(ops_per_clk_sm("h100", 132, "fma") > 1.8 * ops_per_clk_sm("a100", 108, "fma"));
}

/* k80 FP32 with `ilp` chains per thread, 2048 threads on each of its 13 SMs
 * (a full SM: the last warp's chain then adds little to the difference),
 * with core.dispatch_units as the preset has it or overridden by set */
static double k80_fma(unsigned ilp, const char *set)
{
	char a[160], b[160];
	snprintf(a, sizeof a, "ubench-ops:op=fma,insts=64,ilp=%u,blocks=26,block=1024", ilp);
	snprintf(b, sizeof b, "ubench-ops:op=fma,insts=128,ilp=%u,blocks=26,block=1024", ilp);
	return 2048.0 * 64 / (kernel_cycles_set("k80", b, set) - kernel_cycles_set("k80", a, set));
}

/* GK210: 4 schedulers with 2 dispatch units each; 192 FP32 results per
 * clock per SM (CUDA guide, cc 3.7) only when a warp's independent
 * instructions pair; single issue stops at 4 x 32 = 128, and a dependent
 * chain cannot pair at all. */
static void test_kepler_dual_issue(void **state)
{
	(void)state;
	double dual = k80_fma(8, NULL);
	double single = k80_fma(8, "core.dispatch_units=1");
	printf("  k80 fma, 8 chains: %.1f dual issue, %.1f single issue (CUDA guide 192)\n", dual,
	       single);
	assert_true(fabs(dual - 192) <= 0.05 * 192);
	assert_true(single <= 128 * 1.001 && single >= 0.9 * 128);
	/* the 512-thread row of gpuvm calibrate (the last warp's chain is a
	 * larger part of it): within the row's 15 % */
	check("k80", 13, "fma", 192);
	/* one dependent chain per thread: no pair is independent, so dual
	 * issue gains nothing and single issue's 128 bounds it */
	double chain_dual = k80_fma(1, NULL), chain_single = k80_fma(1, "core.dispatch_units=1");
	printf("  k80 fma, 1 chain: %.1f dual issue, %.1f single issue\n", chain_dual, chain_single);
	assert_true(fabs(chain_dual - chain_single) <= 0.01 * chain_single);
	assert_true(chain_dual <= 128 * 1.001 && chain_dual > 0.5 * 128);
}

/* core.busy_unit: the k80's 128 MiB scoped sampling passes (reads=16,
 * 512 MiB), whose listing loop gives each read a 183-slot body on the one
 * ALU a scheduler feeds. With hold, a warp waiting for the busy ALU books
 * its scheduler from when the ALU frees, and other warps' ready loads
 * (their unit idle) issue only after that booking; with yield it waits
 * without the scheduler, which issues them meanwhile. Measured (this
 * test's runs): listing 116.8 k cycles with hold, 87.6 k with yield, the
 * estimate's loop 90.8 k / 88.9 k: the listing's scoped loss was the
 * booking, not its shape (docs/scoping.md, "compiled loop"). */
static double sampling_cycles(const char *loop, const char *busy_unit, double *insts)
{
	char wl[160], set[64];
	snprintf(wl, sizeof wl, "random-sampling:region=512MiB,reads=16,scope=128MiB,loop=%s", loop);
	snprintf(set, sizeof set, "core.busy_unit=%s", busy_unit);
	struct gpuvm_run_spec spec = {.gpu = "k80", .workload = wl, .seed = 1};
	spec.sets[spec.n_sets++] = set;
	cJSON *o = run_report(&spec);
	double c = report_num(o, "sim_cycles");
	*insts = report_num(o, "warp_instructions");
	cJSON_Delete(o);
	printf("  k80 %-40s %-6s %9.0f cycles\n", wl + 16, busy_unit, c);
	return c;
}

static void test_busy_unit_yield(void **state)
{
	(void)state;
	double ih, iy, ie;
	double listing_hold = sampling_cycles("listing", "hold", &ih);
	double listing_yield = sampling_cycles("listing", "yield", &iy);
	double estimate_hold = sampling_cycles("estimate", "hold", &ie);
	double estimate_yield = sampling_cycles("estimate", "yield", &ie);
	/* the same instructions, only their issue order differs */
	assert_true(ih == iy);
	/* hold: the listing's passes lose > 15 % to the booking */
	assert_true(listing_hold > 1.15 * listing_yield);
	/* yield: the two loops' passes within 5 % (the listing's 4 loads in
	 * flight per warp hide as much as the estimate's single reads) */
	assert_true(fabs(listing_yield / estimate_yield - 1) <= 0.05);
	/* and yielding never slows the estimate's passes */
	assert_true(estimate_yield <= estimate_hold);
	assert_true(estimate_yield >= 0.9 * estimate_hold);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hopper),
		cmocka_unit_test(test_ampere_volta_pascal),
		cmocka_unit_test(test_kepler_dual_issue),
		cmocka_unit_test(test_busy_unit_yield),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
