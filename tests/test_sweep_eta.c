/* gpuvm sweep's time left (src/cli/sweep_eta.c, compiled in here: the CLI
 * is no library): points weigh their workload's thread-access estimate, so
 * a p100 random-sampling point weighs what its 56 SMs of threads read
 * against the k80's 13; after the expensive half of a grid the time left
 * is the cheap half's share, not half; points without an estimate weigh
 * the mean of those with one. */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cli/sweep_eta.c"
#include "gpuvm/config.h"

static double cost_of(const char *gpu, const char *spec)
{
	struct gpuvm_config cfg;
	struct gpuvm_error err = {{0}};
	const struct gpuvm_workload_def *def;
	struct gpuvm_params params;
	assert_int_equal(gpuvm_config_load(&cfg, gpu, &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	assert_int_equal(gpuvm_workload_parse(spec, &def, &params, &err), 0);
	return sweep_point_cost(&cfg, def, &params);
}

/* the demo's sampling points: p100 reads 4.3x what the k80 does */
static void test_cost_by_accesses(void **state)
{
	(void)state;
	double p100 = cost_of("p100", "random-sampling:region=1GiB,reads=64");
	double k80 = cost_of("k80", "random-sampling:region=1GiB,reads=64");
	assert_true(p100 > 0 && k80 > 0);
	assert_true(p100 / k80 > 4.0 && p100 / k80 < 4.6);
	/* bfs has no estimate: unknown */
	assert_true(cost_of("p100", "bfs") == 0);
}

/* Two points of cost 4, two of cost 1: after the two expensive ones in
 * 80 s, 20 s are left (counting points alike would say 80 s). */
static void test_time_left_weighted(void **state)
{
	(void)state;
	double cost[4] = {4, 4, 1, 1};
	struct sweep s;
	memset(&s, 0, sizeof s);
	s.n_points = 4;
	s.cost = cost;
	size_t todo[4] = {0, 1, 2, 3};
	struct sweep_eta e;
	sweep_eta_init(&e, &s, todo, 4);
	assert_true(sweep_eta_left_s(&e, 10) == 0); /* nothing done: no estimate */
	sweep_eta_point_done(&e, &s, 0);
	sweep_eta_point_done(&e, &s, 1);
	assert_true(fabs(sweep_eta_left_s(&e, 80) - 20) < 1e-9);
	sweep_eta_point_done(&e, &s, 2);
	sweep_eta_point_done(&e, &s, 3);
	assert_true(sweep_eta_left_s(&e, 100) == 0);
}

/* Unknown costs (0) weigh the mean of the known; none known: equal. */
static void test_unknown_weights(void **state)
{
	(void)state;
	double cost[3] = {2, 0, 4};
	struct sweep s;
	memset(&s, 0, sizeof s);
	s.n_points = 3;
	s.cost = cost;
	size_t todo[3] = {0, 1, 2};
	struct sweep_eta e;
	sweep_eta_init(&e, &s, todo, 3);
	sweep_eta_point_done(&e, &s, 0);
	/* 2 done in 10 s; 3 + 4 left */
	assert_true(fabs(sweep_eta_left_s(&e, 10) - 35) < 1e-9);
	double none[2] = {0, 0};
	s.cost = none;
	s.n_points = 2;
	sweep_eta_init(&e, &s, todo, 2);
	sweep_eta_point_done(&e, &s, 0);
	assert_true(fabs(sweep_eta_left_s(&e, 10) - 10) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_by_accesses),
		cmocka_unit_test(test_time_left_weighted),
		cmocka_unit_test(test_unknown_weights),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
