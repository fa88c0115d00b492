/* The far-fault MSHR calendar without slot walks (mem/long_pool.h) gives
 * exactly what server_pool's walk gives: the same start for every
 * request, bit for bit, over random mixes of short and long holds,
 * requests out of time order, fractional times and saturation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "mem/long_pool.h"
#include "mem/server_pool.h"

static uint64_t rng(uint64_t *s)
{
	uint64_t x = (*s += 0x9E3779B97F4A7C15ull);
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static double unit(uint64_t *s) { return (double)(rng(s) >> 11) * 0x1p-53; }

static void run_mix(double servers, double slot, uint32_t ring, uint64_t seed, int ops)
{
	struct server_pool a;
	struct long_pool b;
	assert_int_equal(server_pool_init(&a, servers, slot, ring), 0);
	assert_int_equal(long_pool_init(&b, servers, slot, ring), 0);
	double t = unit(&seed) * 1000;
	for (int i = 0; i < ops; i++) {
		/* arrivals mostly forward, sometimes a little back */
		t += unit(&seed) * slot * (rng(&seed) % 8 ? 2 : 40);
		if (rng(&seed) % 64 == 0) /* an idle pool: far past every hold */
			t += unit(&seed) * slot * ring * 20;
		double at = t - (rng(&seed) % 4 ? 0 : unit(&seed) * slot * 20);
		if (at < 0)
			at = 0;
		double sa = server_pool_start(&a, at), sb = long_pool_start(&b, at);
		assert_true(sa == sb);
		double hold;
		switch (rng(&seed) % 6) {
		case 0: hold = unit(&seed) * slot * 3; break;                      /* short */
		case 1: hold = unit(&seed) * slot * ring * 3; break;              /* past the ring */
		case 2: hold = (double)(1 + rng(&seed) % 600) * slot; break;      /* whole slots */
		default: hold = 1e4 + unit(&seed) * 1e6; break;                   /* far faults */
		}
		server_pool_consume_long(&a, sa, hold);
		assert_int_equal(long_pool_consume(&b, sb, hold), 0);
	}
	/* the calendars agree slot by slot from here on */
	for (int i = 0; i < 2000; i++) {
		t += slot / 3;
		assert_true(server_pool_start(&a, t) == long_pool_start(&b, t));
	}
	server_pool_free(&a);
	long_pool_free(&b);
}

static void test_equals_slot_walk(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		run_mix(16, 2048, 1024, seed, 20000);
		run_mix(4, 2048, 1024, seed, 20000);
		run_mix(1, 2048, 64, seed, 5000);
		run_mix(32, 128, 256, seed, 5000);
	}
}

static void test_rejects_odd_slots(void **state)
{
	(void)state;
	struct long_pool p;
	assert_int_not_equal(long_pool_init(&p, 4, 100, 1024), 0);
	assert_int_not_equal(long_pool_init(&p, 4, 2048, 1000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equals_slot_walk),
		cmocka_unit_test(test_rejects_odd_slots),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
