/* Kernel front-end, tail and CTA dispatch (src/sm/sm.c, src/sm/cta_place.c,
 * src/system/kernel_run.c; docs/launch.md): each key adds what it says to
 * an empty kernel's duration and nothing when 0; the dispatcher limits
 * small CTAs, the CTA slot time limits large ones; the h100-pcie preset
 * reproduces the measured nsys durations (mgpusim's H100 PCIe ground
 * truth) within the calibration tolerance, and presets that do not set
 * the keys keep the model before them. h100's launches pipeline
 * (gpu.kernel_launch_period_us, src/system/run_loop.c). */
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

/* A run's simulated cycles and its first and last launch's exposed
 * overhead (launch_seconds, in cycles). */
struct lrun {
	double sim_cycles, first_launch, last_launch, last_cycles;
};

static struct lrun run_launches(const char *gpu, const char *wl, const char *set1)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	if (set1)
		spec.sets[spec.n_sets++] = set1;
	cJSON *o = run_report(&spec);
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(o, "config");
	double mhz = report_num(cfg, "gpu.clock_mhz");
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k0 = cJSON_GetArrayItem(ks, 0), *kn = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	if (!k0 || !kn)
		fail_msg("%s on %s: no kernel", wl, gpu);
	struct lrun r = {report_num(o, "sim_cycles"), report_num(k0, "launch_seconds") * mhz * 1e6,
			 report_num(kn, "launch_seconds") * mhz * 1e6,
			 report_num(kn, "end_cycle") - report_num(kn, "start_cycle")};
	cJSON_Delete(o);
	return r;
}

/* The period of back-to-back launches, (T(3) - T(1)) / 2, as calibrate's
 * kernel_launch_cycles takes it. */
static double launch_period(const char *gpu, unsigned grid, unsigned block, const char *set1)
{
	char a[96], b[96];
	snprintf(a, sizeof a, "ubench-empty:grid=%u,block=%u,launches=1", grid, block);
	snprintf(b, sizeof b, "ubench-empty:grid=%u,block=%u,launches=3", grid, block);
	return (run_launches(gpu, b, set1).sim_cycles - run_launches(gpu, a, set1).sim_cycles) / 2;
}

/* gpu.kernel_launch_period_us (src/system/run_loop.c): h100's launches
 * pipeline as the boards' back-to-back launches do (validation/
 * microbench.tsv; docs/launch.md). A short kernel repeats at the host's
 * period, a long one at its own duration with no overhead between (the
 * board: 4096 x 256 every 4.24 us against a 4.38 us duration, where the
 * additive gap made it 6.13); after a synchronous copy the host has
 * waited and the whole launch overhead is paid; a copy after a launch
 * waits for the host's call. */
static void test_h100_launches_pipeline(void **state)
{
	(void)state;
	const double mhz = 1980, period = 3.51 * mhz, launch = 1.73 * mhz;
	/* one 32-thread CTA: 3833 cycles, shorter than the period */
	double p1 = launch_period("h100", 1, 32, NULL);
	printf("  h100 back to back: 1 x 32 every %.1f cycles (board 7268.2)\n", p1);
	assert_true(fabs(p1 - period) < 1e-3);
	assert_true(fabs(p1 - 7268.2) / 7268.2 <= 0.15);
	/* 4096 x 256: longer than the period, so no overhead between */
	struct lrun big = run_launches("h100", "ubench-empty:grid=4096,block=256,launches=3", NULL);
	double p4096 = launch_period("h100", 4096, 256, NULL);
	printf("  h100 back to back: 4096 x 256 every %.3f us, duration %.3f us (board 4.24)\n",
	       p4096 / mhz, big.last_cycles / mhz);
	assert_true(big.last_launch == 0);
	assert_true(fabs(p4096 - big.last_cycles) < 1e-3);
	assert_true(fabs(p4096 / mhz - 4.24) / 4.24 <= 0.15);
	/* two-sided: without the period the gap adds to every launch */
	double add = launch_period("h100", 4096, 256, "gpu.kernel_launch_period_us=0");
	assert_true(fabs(add - (big.last_cycles + launch)) < 1e-3);
	assert_true(add / mhz > 1.3 * 4.24);
	/* vectorAdd: its uploads are synchronous, so its first launch pays
	 * the whole overhead; the next two are host-bound */
	struct lrun va = run_launches("h100", "vectoradd:n=65536,launches=3", NULL);
	assert_true(fabs(va.first_launch - launch) < 1e-3);
	assert_true(va.last_launch > 0 && va.last_launch < launch);
	/* a host period longer than the run: the download after the last
	 * launch waits for the host to return from it */
	struct lrun slow = run_launches("h100", "vectoradd:n=65536", "gpu.kernel_launch_period_us=1000");
	struct lrun fast = run_launches("h100", "vectoradd:n=65536", "gpu.kernel_launch_period_us=0");
	assert_true(slow.sim_cycles > 1000 * mhz);
	assert_true(fast.sim_cycles < 100 * mhz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frontend_and_tail_inside_duration),
		cmocka_unit_test(test_dispatch_rate_and_slot_time),
		cmocka_unit_test(test_h100_pcie_empty_kernels),
		cmocka_unit_test(test_h100_launches_pipeline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
