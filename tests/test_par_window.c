/* The parallel model's window from a preset (src/par/window.h): the
 * shortest path from an SM to state outside its partition and back, by
 * hand from the shipped presets' latencies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "par/window.h"

static void load(struct gpuvm_config *cfg, const char *name)
{
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(cfg, name, &err), 0);
	assert_int_equal(gpuvm_config_finalize(cfg, &err), 0);
}

static struct gpuvm_config cfg; /* large: not on the stack */

static void test_p100(void **state)
{
	(void)state;
	struct par_window w;
	load(&cfg, "p100");
	par_window_of(&cfg, PAR_SCOPE_GPC, &w);
	/* L2 path 173 + 120; the L1 and L2 TLBs (per TPC, per GPC) inside a
	 * GPC, the L3 TLB GPU-wide (Karnagel et al. 4.1): reached after the
	 * L1 miss (9) and the L2 miss (110), then the L1's 82. The walker:
	 * those, the L3 miss (27) and the walk's 150 (no PWC), then 82 */
	assert_true(w.l2_round_trip_cycles == 293);
	assert_true(w.shared_tlb_cycles == 9 + 110 + 82);
	assert_true(w.walker_cycles == 9 + 110 + 27 + 150 + 82);
	assert_true(w.cycles == 201);
	assert_int_equal(w.partitions, 6);
	assert_non_null(strstr(w.limit, "tlb.l3"));
	/* TPC partitions: the GPC's L2 TLB is shared between them */
	par_window_of(&cfg, PAR_SCOPE_TPC, &w);
	assert_true(w.shared_tlb_cycles == 9 + 0 + 82);
	assert_true(w.cycles == 91);
	assert_int_equal(w.partitions, 30);
	assert_non_null(strstr(w.limit, "tlb.l2"));
}

static void test_h100(void **state)
{
	(void)state;
	struct par_window w;
	load(&cfg, "h100");
	par_window_of(&cfg, PAR_SCOPE_GPC, &w);
	/* the SXM5's measured L1 hit 49.5 and L2 hit 240 (presets/h100.ini) */
	assert_true(w.l2_round_trip_cycles == 49.5 + 240);
	/* the GPU-wide L3 TLB after two misses (9, the measured 78), then the
	 * L1's 49.5 */
	assert_true(w.shared_tlb_cycles == 9 + 78 + 49.5);
	assert_true(w.cycles == 136.5);
	assert_non_null(strstr(w.limit, "tlb.l3"));
	par_window_of(&cfg, PAR_SCOPE_TPC, &w);
	assert_true(w.cycles == 9 + 49.5);
}

static void test_bounds(void **state)
{
	(void)state;
	struct par_window w;
	struct gpuvm_error err;
	const char *presets[] = {"p100", "h100", "v100", "k80", "a100"};
	for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
		load(&cfg, presets[i]);
		struct par_window g, t;
		par_window_of(&cfg, PAR_SCOPE_GPC, &g);
		par_window_of(&cfg, PAR_SCOPE_TPC, &t);
		/* never above the L2 path; smaller partitions never widen it */
		assert_true(g.cycles > 0 && g.cycles <= g.l2_round_trip_cycles);
		assert_true(t.cycles <= g.cycles);
		assert_true(t.partitions >= g.partitions);
	}
	/* no L1: the data after a translation comes over the L2 path */
	load(&cfg, "p100");
	assert_int_equal(gpuvm_config_set(&cfg, "l1.size=0", "test", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	par_window_of(&cfg, PAR_SCOPE_GPC, &w);
	assert_true(w.walker_cycles == 9 + 110 + 27 + 150 + 293);
	assert_true(w.cycles == 293);
	/* a GPU-wide first level: every translation leaves the partition */
	load(&cfg, "p100");
	assert_int_equal(gpuvm_config_set(&cfg, "tlb.l1.share=gpu", "test", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	par_window_of(&cfg, PAR_SCOPE_GPC, &w);
	assert_true(w.cycles == 0 + 82);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p100),
		cmocka_unit_test(test_h100),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
