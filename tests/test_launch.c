/* Kernel front-end, tail and CTA dispatch (src/sm/sm.c, src/sm/cta_place.c,
 * src/system/kernel_run.c; docs/launch.md): each key adds what it says to
 * an empty kernel's duration and nothing when 0; the dispatcher limits
 * small CTAs, the CTA slot time limits large ones; the h100-pcie preset
 * reproduces the measured nsys durations (mgpusim's H100 PCIe ground
 * truth) within the calibration tolerance, and presets that do not set
 * the keys keep the model before them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "run_util.h"

/* The last kernel of a run: its duration and its front-end and tail. */
struct kdur {
	double cycles, frontend, tail;
};

static struct kdur run_empty(const char *gpu, unsigned grid, unsigned block, const char *set1,
			     const char *set2)
{
	char wl[96];
	snprintf(wl, sizeof wl, "ubench-empty:grid=%u,block=%u", grid, block);
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	if (set1)
		spec.sets[spec.n_sets++] = set1;
	if (set2)
		spec.sets[spec.n_sets++] = set2;
	cJSON *o = run_report(&spec);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	if (!k)
		fail_msg("%s on %s: no kernel", wl, gpu);
	struct kdur d = {report_num(k, "end_cycle") - report_num(k, "start_cycle"),
			 report_num(k, "frontend_cycles"), report_num(k, "tail_cycles")};
	cJSON_Delete(o);
	return d;
}

static void test_frontend_and_tail_inside_duration(void **state)
{
	(void)state;
	/* p100 sets none of the keys: an empty kernel is (almost) free */
	struct kdur base = run_empty("p100", 1, 32, NULL, NULL);
	assert_true(base.cycles >= 0 && base.cycles < 50);
	assert_true(base.frontend == 0 && base.tail == 0);
	struct kdur f = run_empty("p100", 1, 32, "gpu.kernel_frontend_cycles=1000", NULL);
	assert_true(fabs(f.cycles - base.cycles - 1000) < 1e-6);
	assert_true(f.frontend == 1000 && f.tail == 0);
	struct kdur t = run_empty("p100", 1, 32, "gpu.kernel_tail_cycles=300", NULL);
	assert_true(fabs(t.cycles - base.cycles - 300) < 1e-6);
	assert_true(t.tail == 300);
	/* a CTA's launch and retire cost hold its slot: one CTA pays each */
	struct kdur l = run_empty("p100", 1, 32, "gpu.cta_launch_cycles=200", NULL);
	assert_true(fabs(l.cycles - base.cycles - 200) < 1e-6);
	struct kdur r = run_empty("p100", 1, 32, "gpu.cta_retire_cycles=150", NULL);
	assert_true(fabs(r.cycles - base.cycles - 150) < 1e-6);
}

static void test_dispatch_rate_and_slot_time(void **state)
{
	(void)state;
	/* 5600 one-warp CTAs fit the 56 SMs at once (32 per SM): without a
	 * dispatcher they cost what one does; one CTA per 2 cycles adds
	 * 2 x 5599 */
	struct kdur none = run_empty("p100", 5600, 32, NULL, NULL);
	struct kdur d = run_empty("p100", 5600, 32, "gpu.cta_dispatch_cycles=2", NULL);
	assert_true(none.cycles < 50);
	assert_true(fabs(d.cycles - none.cycles - 2 * 5599) < 2);
	/* a retire cost matters once occupancy makes CTAs wait for slots:
	 * 1024-thread CTAs, 2 per p100 SM, 56 x 2 slots, 1120 CTAs = 10
	 * turns of each slot at 400 cycles */
	struct kdur big = run_empty("p100", 1120, 1024, "gpu.cta_retire_cycles=400", NULL);
	assert_true(big.cycles > 10 * 400 - 1 && big.cycles < 10 * 400 + 50);
	/* the same CTAs of 1 warp all fit: one retire */
	struct kdur small = run_empty("p100", 1120, 32, "gpu.cta_retire_cycles=400", NULL);
	assert_true(small.cycles > 399 && small.cycles < 450);
}

/* The h100-pcie preset against the nsys durations it was derived from
 * (validation/microbench.tsv; +-15 %, the calibration tolerance), and in
 * order: more CTAs cost more, 1024-thread CTAs more than 128-thread ones. */
static void test_h100_pcie_empty_kernels(void **state)
{
	(void)state;
	static const struct {
		unsigned grid, block;
		double measured;
	} rows[] = {
		{1, 128, 2340.00}, {1024, 128, 3107.52}, {4096, 128, 6645.60},
		{65536, 128, 77388.48}, {4096, 1024, 13927.10},
	};
	double prev = 0;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct kdur k = run_empty("h100-pcie", rows[i].grid, rows[i].block, NULL, NULL);
		double err = (k.cycles - rows[i].measured) / rows[i].measured;
		printf("  h100-pcie empty %u x %u: %.0f cycles, measured %.0f (%+.1f %%)\n",
		       rows[i].grid, rows[i].block, k.cycles, rows[i].measured, 100 * err);
		assert_true(fabs(err) <= 0.15);
		if (rows[i].block == 128) {
			assert_true(k.cycles > prev);
			prev = k.cycles;
		}
	}
	assert_true(run_empty("h100-pcie", 4096, 1024, NULL, NULL).cycles >
		    1.5 * run_empty("h100-pcie", 4096, 128, NULL, NULL).cycles);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frontend_and_tail_inside_duration),
		cmocka_unit_test(test_dispatch_rate_and_slot_time),
		cmocka_unit_test(test_h100_pcie_empty_kernels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
