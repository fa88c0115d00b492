/* Issue throughput per op class per SM (presets' core.*_interval_cycles over
 * 4 sub-partitions): every SM full of warps with 8 independent chains each
 * reaches the results per clock per SM of the CUDA C++ Programming Guide's
 * "Throughput of Native Arithmetic Instructions" (validation/microbench.tsv):
 * Hopper's FP32 at 128 (32 lanes per sub-partition, interval 1), twice
 * Ampere's 64 and Volta's; IMAD 64, FP64 64 (Hopper) / 32, MUFU 16. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "run_util.h"

static double kernel_cycles(const char *gpu, const char *wl)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	cJSON *o = run_report(&spec);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	if (!k)
		fail_msg("%s: no kernel", wl);
	double c = report_num(k, "end_cycle") - report_num(k, "start_cycle");
	cJSON_Delete(o);
	return c;
}

/* thread-instructions per clock per SM, as gpuvm calibrate's
 * OP_ops_per_clk_sm row measures it (64 vs 128 instructions per chain) */
static double ops_per_clk_sm(const char *gpu, unsigned sms, const char *op)
{
	char a[160], b[160];
	snprintf(a, sizeof a, "ubench-ops:op=%s,insts=64,ilp=8,blocks=%u,block=512", op, sms);
	snprintf(b, sizeof b, "ubench-ops:op=%s,insts=128,ilp=8,blocks=%u,block=512", op, sms);
	return 512.0 * 64 / (kernel_cycles(gpu, b) - kernel_cycles(gpu, a));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hopper),
		cmocka_unit_test(test_ampere_volta_pascal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
