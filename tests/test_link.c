/* The host link (src/link/link.h, link_lane.h): one lane per direction
 * that every transfer books -- zero-copy TLPs, the UVM driver's
 * migrations and write-backs (uvm_hooks.lanes), synchronous copies -- so
 * they contend both ways, and a request takes the earliest free capacity
 * at or after its own time whatever the order requests come in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "link/link.h"
#include "mem/server_pool.h"

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

/* A zero-copy read whose completion falls inside a migration waits for
 * it; a posted write on the other lane does not; a synchronous copy of
 * the same direction queues behind the migration. */
static void test_zero_copy_waits_behind_migration(void **st)
{
	(void)st;
	struct host_link l;
	make(&l);
	double alone = zc(&l, GPUVM_OP_LOAD, 1, 0);
	link_free(&l);

	make(&l);
	/* a 2 MiB migration the driver booked on the h2d lane from t = 0 */
	double hold = link_bulk_seconds(&l, 2u << 20) * l.spec.clock_hz;
	assert_true(hold > 10 * alone);
	double h = hold;
	double s = link_lane_bulk(&l.lane[LINK_H2D], 0, &h, &l.oom);
	assert_true(s == 0 && h == hold); /* nothing else on the lane: its own time */
	double behind = zc(&l, GPUVM_OP_LOAD, 1, 0);
	/* its completion comes down the h2d lane after the migration */
	assert_true(behind >= hold && behind < hold + 2 * alone);
	/* a posted write goes up the other lane: not delayed */
	double store = zc(&l, GPUVM_OP_STORE, 2, 0);
	assert_true(store < 2 * alone);
	/* a synchronous copy to the device queues behind the migration */
	double copy = link_copy(&l, LINK_H2D, 0, 4096);
	assert_true(copy > hold);
	assert_false(l.oom);
	link_free(&l);
}

/* A migration booked over packets already on the lane is lengthened by
 * their lane time: the packets' throughput is taken from it, so the lane
 * never carries more than one lane's worth. */
static void test_migration_lengthened_by_packets(void **st)
{
	(void)st;
	struct link_lane lane;
	assert_int_equal(link_lane_init(&lane), 0);
	bool oom = false;
	double pkt_total = 0;
	for (int i = 0; i < 100; i++) { /* 100 packets of 8 cycles in [0, 6400) */
		link_lane_packet(&lane, 64.0 * i, 8);
		pkt_total += 8;
	}
	double hold = 10000;
	double s = link_lane_bulk(&lane, 0, &hold, &oom);
	assert_true(s == 0);
	/* lengthened by the packets inside its window, no more */
	assert_true(hold > 10000 + 0.9 * pkt_total && hold < 10000 + 1.1 * pkt_total);
	/* a packet inside it now waits for its end */
	double p = link_lane_packet(&lane, 5000, 8);
	assert_true(p >= s + hold);
	assert_false(oom);
	link_lane_free(&lane);
}

/* Order of issue does not decide who waits: bulk transfers handled out of
 * time order take the first gap of their own time that fits (a request
 * handled late but due early does not queue behind one due later), and
 * packets handled out of order find the capacity of their own time. */
static void test_order_of_issue(void **st)
{
	(void)st;
	struct link_lane lane;
	assert_int_equal(link_lane_init(&lane), 0);
	bool oom = false;
	double h = 1000;
	assert_true(link_lane_bulk(&lane, 5000, &h, &oom) == 5000);
	/* handled after it, due before it, fits before it */
	h = 1000;
	assert_true(link_lane_bulk(&lane, 1000, &h, &oom) == 1000);
	/* does not fit the gap [2000, 5000) left: after the first */
	h = 3500;
	assert_true(link_lane_bulk(&lane, 2000, &h, &oom) == 6000);
	/* a packet due at 100, handled last, goes at 100 */
	assert_true(link_lane_packet(&lane, 100, 8) == 100);
	/* one due inside [1000, 2000) goes at 2000 */
	assert_true(link_lane_packet(&lane, 1500, 8) == 2000);
	assert_false(oom);
	link_lane_free(&lane);
}

/* A lane carrying packets only books exactly as the zero-copy calendar
 * did before the lanes were shared (server_pool, 64-cycle slots), and one
 * carrying bulk transfers only books as the driver's interval lane did
 * (checked through the driver in test_migration.c and the seed tests). */
static void test_packets_alone_as_calendar(void **st)
{
	(void)st;
	struct link_lane lane;
	struct server_pool pool;
	assert_int_equal(link_lane_init(&lane), 0);
	assert_int_equal(server_pool_init(&pool, 1, 64, 4096), 0);
	uint64_t x = 12345;
	for (int i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		double t = (double)(x >> 40) / 16.0 + i * 3.0; /* out of order */
		double hold = 3 + (double)((x >> 20) & 15);
		assert_true(link_lane_packet(&lane, t, hold) == server_pool_reserve(&pool, t, hold));
	}
	server_pool_free(&pool);
	link_lane_free(&lane);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_copy_waits_behind_migration),
		cmocka_unit_test(test_migration_lengthened_by_packets),
		cmocka_unit_test(test_order_of_issue),
		cmocka_unit_test(test_packets_alone_as_calendar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
