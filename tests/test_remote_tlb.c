/* uvm.remote_tlb_fill = return (src/uvm/remote_tlb.h): the TLB entry a
 * remote read installs serves the SM only from the read's return, as in
 * UVMSmart, where ldst_unit::memory_cycle fills the TLB (refresh_tlb) when
 * it serves the DMA'd request back; an access of the page the SM issues
 * before then misses the TLB, walks on its own (gmmu_t::cycle) and is
 * decided again by should_cause_page_migration: a DMA of its own below
 * t_s, a far fault at it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "uvm/migrate.h"
#include "uvm/uvm.h"

#define BASE 0x40000000ull

/* always-migrate on the UVMSmart preset (t_s = 8), no prefetcher, the
 * fault latency in the timing; fill: uvm.remote_tlb_fill */
static void setup(struct uvm *u, struct gpuvm_uvm_stats *st, const char *fill)
{
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	char set[64];
	assert_int_equal(gpuvm_config_load(&cfg, "gtx1080ti-uvmsmart", &err), 0);
	const char *const keys[] = {"uvm.migration=always", "uvm.prefetcher=none",
				    "uvm.remote_tlb_hits=local", "uvm.fault_accounting=in_timing",
				    "uvm.access_counter_threshold=8"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		assert_int_equal(gpuvm_config_set(&cfg, keys[i], "t", &err), 0);
	snprintf(set, sizeof set, "uvm.remote_tlb_fill=%s", fill);
	assert_int_equal(gpuvm_config_set(&cfg, set, "t", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	memset(st, 0, sizeof *st);
	assert_int_equal(uvm_init(u, &cfg, st, NULL), 0);
	assert_int_equal(uvm_add_alloc(u, "a", BASE, 4u << 20, 0), 0);
}

static void teardown(struct uvm *u, struct gpuvm_uvm_stats *st)
{
	uvm_free(u);
	free(st->allocs);
	free(st->util_h2d_busy_cycles);
	free(st->util_d2h_busy_cycles);
}

/* SM 0 reads a cold page remotely at 1000 and reads it again at 1001,
 * before the first read is back: with return the second read is a DMA of
 * its own, with read (the key's default) a TLB hit. After the first read's
 * return both are hits, the later return of the second not delaying it. */
static void test_access_before_return_is_decided_again(void **state)
{
	(void)state;
	for (int at_return = 0; at_return <= 1; at_return++) {
		struct uvm u;
		struct gpuvm_uvm_stats st;
		setup(&u, &st, at_return ? "return" : "read");
		bool remote = false;
		double d = uvm_access_counted(&u, 0, BASE, false, true, 1000, &remote);
		assert_true(remote);
		assert_true(d >= 1200); /* the 200-cycle DMA */
		remote = false;
		uvm_access_counted(&u, 0, BASE + 4, false, true, 1001, &remote);
		assert_int_equal(remote, at_return);
		assert_int_equal(st.remote_accesses, 1 + at_return);
		remote = false;
		assert_true(uvm_access_counted(&u, 0, BASE + 8, false, true, d, &remote) == d);
		assert_false(remote);
		assert_int_equal(st.far_faults, 0);
		teardown(&u, &st);
	}
}

/* Before the return the count decides each access again: the read that
 * brings page 1's 64 KB chunk to t_s = 8 faults the page in (read: the
 * SM's earlier entry serves it, no fault). */
static void test_threshold_reached_before_return_faults(void **state)
{
	(void)state;
	for (int at_return = 0; at_return <= 1; at_return++) {
		struct uvm u;
		struct gpuvm_uvm_stats st;
		setup(&u, &st, at_return ? "return" : "read");
		uint64_t page1 = BASE + 4096;
		bool remote = false;
		uvm_access_counted(&u, 0, page1, false, true, 5000, &remote);
		assert_true(remote);
		for (int i = 1; i < 8; i++) { /* counts 2..8, all before the return */
			remote = false;
			uvm_access_counted(&u, 0, page1 + 128u * (uint32_t)i, false, true, 5000.0 + i,
					   &remote);
			assert_int_equal(remote, at_return && i < 7);
		}
		assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[0]), 8);
		assert_int_equal(st.far_faults, at_return);
		assert_int_equal(st.remote_accesses, at_return ? 7 : 1);
		teardown(&u, &st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_access_before_return_is_decided_again),
		cmocka_unit_test(test_threshold_reached_before_return_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
