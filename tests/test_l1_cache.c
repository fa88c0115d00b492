/* The sectored L1 data cache (src/mem/l1_cache.c) and its replacement
 * modules (src/mem/l1_repl_*.c): hits and misses per sector, fills in
 * flight, write-back of dirty local data, evict-first loads, and each
 * policy's victims on one crafted sequence where LRU, FIFO and SRRIP
 * (Jaleel et al. ISCA'10, 2-bit RRPV) disagree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "mem/l1_cache.h"

#define LINE 128u
#define SECTOR 32u

/* one SM, one set of 4 ways (512 bytes) */
static void one_set(struct l1_cache *c, const char *policy)
{
	assert_int_equal(l1_cache_init(c, 1, 4 * LINE, 4, LINE, SECTOR), 0);
	assert_int_equal(c->sets, 1);
	if (policy)
		assert_int_equal(l1_cache_set_replacement(c, policy), 0);
}

/* a load of line n's first sector that allocates; returns hit/miss and
 * completes a miss's fill at `when` */
static enum l1_result load(struct l1_cache *c, uint32_t n, double when)
{
	double ready = -1, *slot = NULL;
	uint32_t wb = 0;
	enum l1_result r = l1_cache_access(c, 0, (uint64_t)n * LINE, true, false, false, &ready, &slot, &wb);
	if (r == L1_MISS) {
		assert_non_null(slot);
		*slot = when;
	}
	return r;
}

/* whether line n is cached, without touching the policy's state */
static bool has(struct l1_cache *c, uint32_t n) { return l1_cache_write_through(c, 0, (uint64_t)n * LINE, 0); }

static void test_hits_and_misses(void **state)
{
	(void)state;
	struct l1_cache c;
	one_set(&c, NULL); /* lru by default */
	double ready = 0, *slot = NULL;
	uint32_t wb = 0;
	/* a miss without allocation leaves nothing behind */
	assert_int_equal(l1_cache_access(&c, 0, 0, false, false, false, &ready, &slot, &wb), L1_MISS);
	assert_null(slot);
	assert_false(has(&c, 0));
	/* a miss allocates its sector; a hit before the fill lands waits for it */
	assert_int_equal(load(&c, 0, 500.0), L1_MISS);
	assert_int_equal(l1_cache_access(&c, 0, 0, true, false, false, &ready, &slot, &wb), L1_HIT);
	assert_true(ready == 500.0);
	/* another sector of the line: a miss (sectors fill independently) */
	assert_int_equal(l1_cache_access(&c, 0, SECTOR, true, false, false, &ready, &slot, &wb), L1_MISS);
	assert_non_null(slot);
	*slot = 600.0;
	assert_int_equal(l1_cache_access(&c, 0, SECTOR, false, false, false, &ready, &slot, &wb), L1_HIT);
	assert_true(ready == 600.0);
	/* a local store dirties its sector; evicting the line writes it back */
	assert_int_equal(l1_cache_access(&c, 0, LINE + 2 * SECTOR, true, false, true, &ready, &slot, &wb),
			 L1_MISS);
	assert_int_equal(wb, 0);
	for (uint32_t n = 2; n <= 4; n++)
		assert_int_equal(load(&c, n, 0), L1_MISS);
	/* five lines in four ways: line 0, used longest ago, made room */
	assert_false(has(&c, 0));
	assert_true(l1_cache_write_through(&c, 0, LINE + 2 * SECTOR, 0)); /* line 1's stored sector */
	assert_false(has(&c, 1)); /* its other sectors never came */
	assert_true(has(&c, 2) && has(&c, 3) && has(&c, 4));
	l1_cache_invalidate(&c);
	for (uint32_t n = 0; n < 8; n++)
		assert_false(has(&c, n));
	l1_cache_free(&c);
}

static void test_dirty_writeback(void **state)
{
	(void)state;
	struct l1_cache c;
	one_set(&c, "lru");
	double ready = 0, *slot = NULL;
	uint32_t wb = 0;
	/* line 0 with two dirty sectors, lines 1-3 clean; line 4 evicts 0 */
	l1_cache_access(&c, 0, 0, true, false, true, &ready, &slot, &wb);
	l1_cache_access(&c, 0, SECTOR, true, false, true, &ready, &slot, &wb);
	for (uint32_t n = 1; n <= 3; n++)
		load(&c, n, 0);
	l1_cache_access(&c, 0, 4 * LINE, true, false, false, &ready, &slot, &wb);
	assert_int_equal(wb, 2);
	assert_false(has(&c, 0));
	l1_cache_free(&c);
}

/* an evict-first (.CS) fill is the next victim, under every policy */
static void test_evict_first(void **state)
{
	(void)state;
	const char *policies[] = {"lru", "fifo", "srrip"};
	for (size_t p = 0; p < 3; p++) {
		struct l1_cache c;
		one_set(&c, policies[p]);
		double ready = 0, *slot = NULL;
		uint32_t wb = 0;
		load(&c, 0, 0);
		l1_cache_access(&c, 0, 1 * LINE, true, true, false, &ready, &slot, &wb); /* .CS */
		load(&c, 2, 0);
		load(&c, 3, 0);
		load(&c, 4, 0);
		assert_false(has(&c, 1));
		assert_true(has(&c, 0) && has(&c, 2) && has(&c, 3) && has(&c, 4));
		l1_cache_free(&c);
	}
}

/* A B C D, hit A, then E F G H (letters = lines 0..7). Worked by hand:
 *   LRU  : E evicts B (A was refreshed); H evicts A -> E F G H
 *   FIFO : E evicts A (first in; hits do not count) -> E F G H
 *   SRRIP: fills at RRPV 2, the hit sets A to 0; E finds no 3, ages the
 *          set (A 1, B C D 3) and evicts B; F and G take C and D; H finds
 *          no 3, ages (A 2, E F G 3) and evicts E -> A H F G: the line
 *          that was reused survives the scan (Jaleel et al. section 3). */
static void run_sequence(const char *policy, bool after_e[8], bool at_end[8])
{
	struct l1_cache c;
	one_set(&c, policy);
	for (uint32_t n = 0; n < 4; n++)
		assert_int_equal(load(&c, n, 0), L1_MISS);
	assert_int_equal(load(&c, 0, 0), L1_HIT);
	assert_int_equal(load(&c, 4, 0), L1_MISS);
	for (uint32_t n = 0; n < 8; n++)
		after_e[n] = has(&c, n);
	for (uint32_t n = 5; n < 8; n++)
		assert_int_equal(load(&c, n, 0), L1_MISS);
	for (uint32_t n = 0; n < 8; n++)
		at_end[n] = has(&c, n);
	l1_cache_free(&c);
}

static void expect(const bool got[8], const char *lines)
{
	char s[9] = "";
	size_t k = 0;
	for (uint32_t n = 0; n < 8; n++)
		if (got[n])
			s[k++] = (char)('A' + n);
	s[k] = 0;
	assert_string_equal(s, lines);
}

static void test_policies_differ(void **state)
{
	(void)state;
	bool e[8], end[8];
	run_sequence("lru", e, end);
	expect(e, "ACDE");
	expect(end, "EFGH");
	run_sequence("fifo", e, end);
	expect(e, "BCDE");
	expect(end, "EFGH");
	run_sequence("srrip", e, end);
	expect(e, "ACDE");
	expect(end, "AFGH");
	struct l1_cache c;
	one_set(&c, NULL);
	assert_int_equal(l1_cache_set_replacement(&c, "plru"), -1);
	l1_cache_free(&c);
}

/* a unified L1's resize keeps the policy */
static void test_resize_keeps_policy(void **state)
{
	(void)state;
	struct l1_cache c;
	assert_int_equal(l1_cache_init(&c, 1, 8 * LINE, 4, LINE, SECTOR), 0);
	assert_int_equal(l1_cache_set_replacement(&c, "srrip"), 0);
	l1_cache_resize(&c, 4 * LINE);
	assert_int_equal(c.sets, 1);
	for (uint32_t n = 0; n < 4; n++)
		load(&c, n, 0);
	load(&c, 0, 0);
	for (uint32_t n = 4; n < 8; n++)
		load(&c, n, 0);
	assert_true(has(&c, 0)); /* srrip's survivor, as in the sequence above */
	l1_cache_free(&c);
}

/* l1_cache_invalidate clears only the instances that filled a line since
 * the last one (C7): after fills in some instances, an invalidation and a
 * resize that moves every instance's sets (so that a line left behind
 * would now sit in another instance's ways), nothing is cached anywhere
 * and every array is zero, at either size */
static void test_invalidate_clears_filled_instances(void **state)
{
	(void)state;
	struct l1_cache c;
	assert_int_equal(l1_cache_init(&c, 4, 16 * LINE, 4, LINE, SECTOR), 0);
	size_t lines = (size_t)c.instances * c.max_sets * c.ways;
	double ready = 0, *slot = NULL;
	uint32_t wb = 0;
	for (int round = 0; round < 3; round++) {
		/* instances 1 and 3 fill (3 with dirty local data), 0 and 2 do not */
		for (uint64_t a = 0; a < 64 * LINE; a += SECTOR) {
			l1_cache_access(&c, 1, a, true, false, false, &ready, &slot, &wb);
			l1_cache_access(&c, 3, a + 7 * LINE, true, false, true, &ready, &slot, &wb);
		}
		assert_int_equal(l1_cache_check(&c, NULL, 0), 0);
		l1_cache_resize(&c, (round % 2 ? 4 : 8) * LINE); /* 1 or 2 sets */
		for (size_t i = 0; i < lines; i++)
			assert_true(!c.tag[i] && !c.stamp[i] && !c.valid[i] && !c.dirty[i]);
		for (uint32_t sm = 0; sm < c.instances; sm++) {
			assert_int_equal(c.filled[sm], 0);
			for (uint64_t a = 0; a < 72 * LINE; a += LINE)
				assert_false(l1_cache_write_through(&c, sm, a, 0));
		}
		assert_int_equal(l1_cache_check(&c, NULL, 0), 0);
	}
	l1_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalidate_clears_filled_instances),
		cmocka_unit_test(test_hits_and_misses),
		cmocka_unit_test(test_dirty_writeback),
		cmocka_unit_test(test_evict_first),
		cmocka_unit_test(test_policies_differ),
		cmocka_unit_test(test_resize_keeps_policy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
