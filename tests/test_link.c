/* The host link (src/link/link.h): one lane per direction that every
 * transfer books -- zero-copy TLPs, the UVM driver's migrations and
 * write-backs (uvm_hooks.lanes), synchronous copies -- so they contend:
 * a zero-copy read waits behind a migration on the host-to-device lane,
 * a posted write on the other lane does not, and a copy queues behind
 * both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "link/link.h"

static struct gpuvm_stats stats;

static void make(struct host_link *l)
{
	struct gpuvm_config cfg;
	gpuvm_config_defaults(&cfg);
	memset(&stats, 0, sizeof stats);
	assert_int_equal(link_init(l, &cfg, &stats), 0);
}

static double zc(struct host_link *l, enum gpuvm_mem_op op, uint64_t instr, double t)
{
	struct link_req r = {.sector_addr = 1ull << 30, .op = op, .instr = instr, .t = t};
	return link_zero_copy(l, &r);
}

static void test_zero_copy_waits_behind_migration(void **st)
{
	(void)st;
	struct host_link l;
	make(&l);
	double alone = zc(&l, GPUVM_OP_LOAD, 1, 0);
	link_free(&l);

	make(&l);
	/* a 2 MiB migration the driver booked on the h2d lane from t = 0 */
	double hold = link_bulk_seconds(&l, 2u << 20) * l.clock_hz;
	assert_true(hold > 10 * alone);
	double s = link_lane_book(&l.lane[LINK_H2D], 0, hold, &l.oom);
	assert_true(s == 0);
	double behind = zc(&l, GPUVM_OP_LOAD, 1, 0);
	/* its completion comes down the h2d lane after the migration */
	assert_true(behind >= hold);
	/* a posted write goes up the other lane: not delayed */
	double store = zc(&l, GPUVM_OP_STORE, 2, 0);
	assert_true(store < 2 * alone && store < hold);
	/* a synchronous copy to the device queues behind both */
	double copy = link_copy(&l, LINK_H2D, 0, 4096);
	assert_true(copy > behind);
	assert_false(l.oom);
	link_free(&l);
}

/* Requests handled out of time order take the gap of their own time. */
static void test_gap_of_own_time(void **st)
{
	(void)st;
	struct host_link l;
	make(&l);
	link_lane_book(&l.lane[LINK_D2H], 1000, 500, &l.oom);
	/* an earlier posted write fits before it */
	double early = zc(&l, GPUVM_OP_STORE, 1, 0);
	assert_true(early < 1000 + l.latency_cycles + l.return_cycles);
	link_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_copy_waits_behind_migration),
		cmocka_unit_test(test_gap_of_own_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
