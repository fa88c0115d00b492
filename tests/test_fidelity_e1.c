/* Fidelity target E1 (Karnagel et al. Fig. 1a), at reduced reads per
 * thread (64, experiments/karnagel_fig1.sh's scaled size; the paper's
 * 1024): the p100 sampling curve is flat below its L2 TLB reach and falls
 * past it; the k80 curve has its two cliffs where the paper has them.
 * At 16 reads a thread the compiled loop (4 groups of 4 loads) spends a
 * fifth of its warps' time in the prologue and the first group's
 * latency, and the cliffs read 1.98x and 1.49x where 64 reads give the
 * table's 2.08x and 1.56x. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "run_util.h"

static double rate(const char *gpu, const char *region)
{
	char wl[128];
	snprintf(wl, sizeof wl, "random-sampling:reads=64,region=%s", region);
	double r = run_num(gpu, wl, 1, "items_per_sim_second");
	printf("  %s %-7s %.3g reads/s\n", gpu, region, r);
	return r;
}

static void test_p100_plateau_and_cliff(void **state)
{
	(void)state;
	double r32 = rate("p100", "32MiB"), r1g = rate("p100", "1GiB");
	double r4g = rate("p100", "4GiB"), r8g = rate("p100", "8GiB");
	double plateau = (r32 + r1g) / 2;
	assert_true(r32 / plateau < 1.15 && r1g / plateau > 0.85); /* flat within 15 % */
	assert_true(r1g / r4g > 2.0);                               /* > 2x drop past 2 GB */
	double slowdown = plateau / r8g;                            /* paper: 4.3x */
	printf("  p100 slowdown 1 GiB -> 8 GiB: %.2fx (paper 4.3x, +-35 %%)\n", slowdown);
	/* never past the band's top: the cliff is the TLB's, not a stall */
	assert_true(slowdown < 4.3 * 1.35);
	/* Known miss since shared TLB levels answer in causal order (xlat.c):
	 * the preset's fitted tlb.l1.mshrs = 10 reached the band only while
	 * requests waited on fills asked for after them (docs/fidelity.md). */
	char what[96];
	snprintf(what, sizeof what, "p100 slowdown %.2fx within 4.3x +-35 %%", slowdown);
	fidelity_known_miss(slowdown > 4.3 * 0.65, what);
}

static void test_k80_two_cliffs(void **state)
{
	(void)state;
	double r64m = rate("k80", "64MiB"), r256m = rate("k80", "256MiB");
	double r1536m = rate("k80", "1536MiB"), r3g = rate("k80", "3GiB");
	assert_true(r64m / r256m > 1.5);   /* region I: L2 TLB reach, 130 MB */
	assert_true(r1536m / r3g > 1.5);   /* region II: L3 TLB reach, ~2 GB */
	assert_true(r256m / r1536m < 1.6); /* and little change in between */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p100_plateau_and_cliff),
		cmocka_unit_test(test_k80_two_cliffs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
