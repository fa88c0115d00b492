/* L2 cache: sector hits and misses, and the 16-way recency order kept
 * equal to the stamp LRU (ascending stamp, lowest way on ties) through
 * stale-line refills and a wrap of the stamp clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mem/l2_cache.h"

static void test_sectors_hit_after_fill(void **state)
{
	(void)state;
	struct l2_cache c;
	assert_int_equal(l2_cache_init(&c, 64 * 1024, 16, 128, 32), 0);
	uint32_t wb;
	assert_int_equal(l2_cache_access(&c, 0x1000, false, &wb), L2_MISS);
	assert_int_equal(l2_cache_access(&c, 0x1000, false, &wb), L2_HIT);
	/* another sector of the same line is filled on its own */
	assert_int_equal(l2_cache_access(&c, 0x1020, false, &wb), L2_MISS);
	assert_int_equal(l2_cache_access(&c, 0x1020, true, &wb), L2_HIT);
	l2_cache_free(&c);
}

/* The set's order must list its ways by (stamp, way). */
static void check_order(struct l2_cache *c, uint64_t addr)
{
	unsigned char *set = l2_cache_set(c, addr);
	const uint32_t *stamp = l2_set_stamps(set, 16);
	const uint8_t *ord = l2_set_order16(set);
	uint32_t seen = 0;
	for (uint32_t i = 0; i < 16; i++) {
		seen |= 1u << ord[i];
		if (i) {
			uint32_t a = ord[i - 1], b = ord[i];
			assert_true(stamp[a] < stamp[b] || (stamp[a] == stamp[b] && a < b));
		}
	}
	assert_int_equal(seen, 0xffff);
	assert_int_equal(ord[0], lru_oldest(stamp, 16));
}

static void test_recency_order_matches_stamps(void **state)
{
	(void)state;
	struct l2_cache c;
	/* 4 sets x 16 ways x 128 B lines */
	assert_int_equal(l2_cache_init(&c, 8 * 1024, 16, 128, 32), 0);
	c.clock = UINT32_MAX - 4000; /* wraps half way */
	uint64_t x = 99;
	uint32_t hits = 0, wraps = 0;
	uint32_t fresh = UINT32_MAX;
	for (uint32_t i = 0; i < 8000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t addr = ((x >> 33) % 96) * 128 + ((x >> 20) % 4) * 32;
		uint32_t wb, stale_sectors, stale_dirty;
		wraps += c.clock == UINT32_MAX;
		enum l2_result r;
		if ((x >> 12) % 8 == 0) /* a refill after a remap: hits on old lines miss */
			r = l2_cache_access_fresh(&c, addr, false, &wb, UINT32_MAX, &fresh,
						  &stale_sectors, &stale_dirty);
		else
			r = l2_cache_access(&c, addr, (x >> 40) % 2, &wb);
		hits += r == L2_HIT;
		check_order(&c, addr);
		assert_int_equal(l2_cache_check(&c, NULL, 0), 0); /* invariants of l2_cache.c */
	}
	assert_int_equal(wraps, 1);
	assert_true(hits > 100 && hits < 7000);
	l2_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sectors_hit_after_fill),
		cmocka_unit_test(test_recency_order_matches_stamps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
