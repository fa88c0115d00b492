/* Capacity calendars: a hold far longer than the ring (a 1 MB/s link, a
 * 10^7-cycle latency) costs time bounded by the ring, not by the hold, and
 * leaves the pool busy until the hold ends. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "mem/long_pool.h"
#include "mem/server_pool.h"

static double cpu_seconds(void)
{
	return (double)clock() / CLOCKS_PER_SEC;
}

static void test_long_hold_costs_the_ring_not_the_hold(void **state)
{
	(void)state;
	struct server_pool p;
	assert_int_equal(server_pool_init(&p, 1, 64, 4096), 0);
	double t0 = cpu_seconds();
	/* 10^15 cycles: 1.6e13 slots walked one by one would take hours */
	const double hold = 1e15;
	assert_true(server_pool_reserve(&p, 0, hold) == 0);
	/* one server, busy until the hold ends: the next request waits */
	double next = server_pool_start(&p, 10);
	assert_true(next >= hold - 64 && next <= hold + 64);
	/* a second long hold queued behind the first */
	assert_true(server_pool_reserve(&p, next, hold) == next);
	assert_true(server_pool_start(&p, next) >= next + hold - 64);
	assert_true(cpu_seconds() - t0 < 0.5);
	server_pool_free(&p);
}

/* The long form gives exactly what the slot walk gives (holds a few times
 * the ring: the walk is still affordable here). */
static void test_long_hold_equals_slot_walk(void **state)
{
	(void)state;
	struct server_pool a, b;
	assert_int_equal(server_pool_init(&a, 2, 64, 256), 0);
	assert_int_equal(server_pool_init(&b, 2, 64, 256), 0);
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 2000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double t = (double)(x % 4000000);
		double hold = (double)((x >> 24) % 200000) + 0.5;
		double sa = server_pool_start(&a, t), sb = server_pool_start(&b, t);
		assert_true(sa == sb);
		server_pool_consume(&a, sa, hold); /* switches to the long form */
		/* reference: the same hold consumed in ring-sized pieces */
		for (double left = hold, at = sb; left > 0;) {
			double piece = left < 64 * 200 ? left : 64 * 200;
			server_pool_consume(&b, at, piece);
			at += piece;
			left -= piece;
		}
	}
	for (double t = 0; t < 5e6; t += 997)
		assert_true(server_pool_start(&a, t) == server_pool_start(&b, t));
	server_pool_free(&a);
	server_pool_free(&b);
}

/* The spec is sealed at init (core/spec_seal.h): requests, which write
 * the state, leave it intact, and a write planted in any one of its
 * fields is seen. */
static void test_spec_sealed_at_init(void **state)
{
	(void)state;
	for (int field = 0; field < 4; field++) {
		struct server_pool p;
		struct long_pool l;
		assert_int_equal(server_pool_init(&p, 2, 64, 256), 0);
		assert_int_equal(long_pool_init(&l, 2, 64, 256), 0);
		for (int i = 0; i < 1000; i++) {
			double t = 37.0 * i;
			server_pool_reserve(&p, t, 100 + (i % 7) * 300);
			assert_int_equal(long_pool_consume(&l, long_pool_start(&l, t),
							   100 + (i % 7) * 3000), 0);
		}
		assert_true(server_pool_spec_intact(&p));
		assert_true(long_pool_spec_intact(&l));
		struct server_pool_spec *planted[2] = {&p.spec, &l.spec}, kept[2];
		for (int k = 0; k < 2; k++) {
			struct server_pool_spec *s = planted[k];
			memcpy(&kept[k], s, sizeof *s);
			if (field == 0)
				s->slot_cycles *= 2;
			else if (field == 1)
				s->inv_slot *= 2;
			else if (field == 2)
				s->capacity += 1;
			else
				s->mask >>= 1;
		}
		assert_false(server_pool_spec_intact(&p));
		assert_false(long_pool_spec_intact(&l));
		/* put back, so a checking build's free does not abort */
		for (int k = 0; k < 2; k++)
			memcpy(planted[k], &kept[k], sizeof kept[k]);
		assert_true(server_pool_spec_intact(&p));
		assert_true(long_pool_spec_intact(&l));
		server_pool_free(&p);
		long_pool_free(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_hold_costs_the_ring_not_the_hold),
		cmocka_unit_test(test_long_hold_equals_slot_walk),
		cmocka_unit_test(test_spec_sealed_at_init),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
