/* Kernel sampling with functional fast-forward: sampled runs compute the
 * same functional result and the same work as full detail, land within a
 * few percent of its simulated time, keep scoped passes apart, and refuse
 * to sample when managed memory pages between launches. */
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

/* These launches are tiny (a few warps per SM), so their times vary from
 * launch to launch by several per cent with the per-scheduler issue and
 * the L1 stage: the tests sample at 8 %, the full-size runs of
 * docs/kernel-sampling.md at the default 2 %. */
#define TEST_TOLERANCE 0.08

static cJSON *run_ok(const char *gpu, const char *wl, bool sampling)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1,
				      .kernel_sampling = sampling,
				      .kernel_sampling_tolerance = TEST_TOLERANCE};
	return run_report(&spec);
}

static const cJSON *ks_of(const cJSON *o)
{
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernel_sampling");
	assert_true(cJSON_IsObject(ks));
	return ks;
}

static const char *result_of(const cJSON *o)
{
	return cJSON_GetObjectItemCaseSensitive(o, "result")->valuestring;
}

static double rel_err(double a, double b)
{
	return fabs(a - b) / b;
}

/* The sampled run's simulated time within tol (relative) of the detailed
 * run's, saying both when it is not. */
static void assert_sim_seconds_near(const cJSON *sampled, const cJSON *detailed, double tol)
{
	double ts = report_num(sampled, "sim_seconds"), td = report_num(detailed, "sim_seconds");
	double e = rel_err(ts, td);
	if (e > tol)
		fail_msg("sampled %g s vs detailed %g s: %.2f%% off", ts, td, 100 * e);
}

/* 8 chunks of 1 MiB over a small table (every group is in it after the
 * first chunk, so probe sequences, hence work, match exactly). */
static void test_groupby_sampled_matches_detail(void **state)
{
	(void)state;
	const char *wl = "hash-groupby:region=64KiB,input=2097152,chunk=1MiB";
	cJSON *d = run_ok("p100", wl, false);
	cJSON *s = run_ok("p100", wl, true);
	assert_string_equal(result_of(s), result_of(d));
	assert_true(report_num(s, "kernel_launches") == 8);
	assert_true(report_num(s, "warp_instructions") == report_num(d, "warp_instructions"));
	assert_true(report_num(s, "memory_instructions") == report_num(d, "memory_instructions"));
	assert_true(report_num(s, "thread_accesses") == report_num(d, "thread_accesses"));
	assert_true(report_num(s, "warps") == report_num(d, "warps"));
	assert_sim_seconds_near(s, d, TEST_TOLERANCE / 2);
	/* scaled counters land near the detailed ones too */
	assert_true(rel_err(report_num(s, "zero_copy_bytes"), report_num(d, "zero_copy_bytes")) < 0.05);
	assert_true(rel_err(report_num(s, "l2_sector_hits"), report_num(d, "l2_sector_hits")) < 0.05);

	const cJSON *ks = ks_of(s);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ks, "enabled")));
	assert_true(report_num(ks, "fast_forwarded_kernels") > 0);
	assert_true(report_num(ks, "detailed_kernels") >= 3);
	assert_true(report_num(ks, "detailed_kernels") + report_num(ks, "fast_forwarded_kernels") == 8);
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ks, "estimated")) > 0);
	/* off: everything in detail, nothing estimated */
	const cJSON *kd = ks_of(d);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(kd, "enabled")));
	assert_true(report_num(kd, "fast_forwarded_kernels") == 0);
	assert_true(report_num(kd, "detailed_kernels") == 8);
	cJSON_Delete(d);
	cJSON_Delete(s);
}

/* scoped=copy in 2 passes per chunk: pass 0 streams the input and writes
 * the buffer, pass 1 reads it; they are separate classes. */
static void test_groupby_scoped_passes_kept_apart(void **state)
{
	(void)state;
	const char *wl = "hash-groupby:region=1MiB,input=2097152,chunk=1MiB,scope=512KiB,"
			 "scoped=copy";
	cJSON *d = run_ok("p100", wl, false);
	cJSON *s = run_ok("p100", wl, true);
	assert_string_equal(result_of(s), result_of(d));
	assert_non_null(strstr(result_of(s), "passes=2"));
	assert_true(report_num(s, "warp_instructions") == report_num(d, "warp_instructions"));
	assert_true(report_num(s, "thread_accesses") == report_num(d, "thread_accesses"));
	assert_sim_seconds_near(s, d, TEST_TOLERANCE / 2);
	const cJSON *ks = ks_of(s);
	assert_true(report_num(ks, "classes") == 2);
	assert_true(report_num(ks, "fast_forwarded_kernels") > 0);
	/* each pass's class needs its own detailed launches */
	assert_true(report_num(ks, "detailed_kernels") >= 6);
	cJSON_Delete(d);
	cJSON_Delete(s);
}

/* Managed memory migrates pages between launches: sampling is refused
 * and said so; the same run on device memory does sample. */
static void test_managed_memory_refuses_sampling(void **state)
{
	(void)state;
	const char *dev = "random-sampling:region=8MiB,threads=4096,reads=64,scope=1MiB";
	const char *man = "random-sampling:region=8MiB,threads=4096,reads=64,scope=1MiB,"
			  "mem=managed";
	cJSON *sd = run_ok("p100", dev, true);
	assert_true(report_num(ks_of(sd), "fast_forwarded_kernels") > 0);
	cJSON *dm = run_ok("p100", man, false);
	cJSON *sm = run_ok("p100", man, true);
	const cJSON *ks = ks_of(sm);
	assert_true(report_num(ks, "fast_forwarded_kernels") == 0);
	assert_true(report_num(ks, "detailed_kernels") == report_num(sm, "kernel_launches"));
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(ks, "refused");
	assert_true(cJSON_IsString(why));
	assert_non_null(strstr(why->valuestring, "managed"));
	assert_true(report_num(sm, "sim_seconds") == report_num(dm, "sim_seconds"));
	assert_string_equal(result_of(sm), result_of(dm));
	cJSON_Delete(sd);
	cJSON_Delete(dm);
	cJSON_Delete(sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groupby_sampled_matches_detail),
		cmocka_unit_test(test_groupby_scoped_passes_kept_apart),
		cmocka_unit_test(test_managed_memory_refuses_sampling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
