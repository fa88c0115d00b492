/* TLB structure: LRU order, set mapping, and the hashed fully associative
 * mode checked against a naive reference model on random traffic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "xlat/tlb.h"
#include "mem/server_pool.h"

static bool access_tlb(struct tlb *t, uint64_t tag)
{
	bool hit;
	tlb_access(t, tag, &hit);
	assert_int_equal(tlb_check(t, NULL, 0), 0); /* invariants of tlb.c after every access */
	return hit;
}

static void test_lru_small_fully_associative(void **state)
{
	(void)state;
	struct tlb t;
	assert_int_equal(tlb_init(&t, 4, 0), 0);
	for (uint64_t i = 0; i < 4; i++)
		assert_false(access_tlb(&t, i));
	assert_true(access_tlb(&t, 0)); /* 0 becomes MRU; LRU is now 1 */
	assert_false(access_tlb(&t, 9)); /* evicts 1 */
	assert_false(access_tlb(&t, 1));  /* 1 was gone; evicts 2 */
	assert_true(access_tlb(&t, 0));
	assert_true(access_tlb(&t, 3));
	assert_false(access_tlb(&t, 2));
	tlb_free(&t);
}

static void test_set_associative_conflicts(void **state)
{
	(void)state;
	struct tlb t;
	assert_int_equal(tlb_init(&t, 8, 2), 0); /* 4 sets x 2 ways */
	/* Tags 0, 4, 8 share set 0: the third evicts the first. */
	assert_false(access_tlb(&t, 0));
	assert_false(access_tlb(&t, 4));
	assert_false(access_tlb(&t, 8));
	assert_false(access_tlb(&t, 0));
	/* Other sets are untouched by that. */
	assert_false(access_tlb(&t, 1));
	assert_true(access_tlb(&t, 1));
	tlb_free(&t);
	assert_int_equal(tlb_init(&t, 10, 4), -1); /* ways must divide entries */
}

/* Naive fully associative LRU: array ordered MRU first. */
struct ref {
	uint64_t tag[2048];
	uint32_t n, cap;
};

static bool ref_access(struct ref *r, uint64_t tag)
{
	for (uint32_t i = 0; i < r->n; i++)
		if (r->tag[i] == tag) {
			for (uint32_t j = i; j > 0; j--)
				r->tag[j] = r->tag[j - 1];
			r->tag[0] = tag;
			return true;
		}
	if (r->n < r->cap)
		r->n++;
	for (uint32_t j = r->n - 1; j > 0; j--)
		r->tag[j] = r->tag[j - 1];
	r->tag[0] = tag;
	return false;
}

static void check_against_reference(uint32_t entries, uint64_t tag_space, uint32_t steps)
{
	struct tlb t;
	struct ref r = {.cap = entries};
	assert_int_equal(tlb_init(&t, entries, 0), 0);
	uint64_t x = 12345;
	uint32_t hits = 0;
	for (uint32_t i = 0; i < steps; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t tag = (x >> 33) % tag_space;
		bool a = access_tlb(&t, tag), b = ref_access(&r, tag);
		assert_int_equal(a, b);
		hits += a;
	}
	assert_true(hits > 0 && hits < steps); /* the traffic exercised both paths */
	tlb_free(&t);
}

static void test_hashed_matches_reference(void **state)
{
	(void)state;
	check_against_reference(65, 100, 20000);     /* P100 L2 size */
	check_against_reference(1032, 1500, 50000);  /* K80 L3 size */
	check_against_reference(33, 34, 5000);       /* just above the scan limit */
}

/* The 16-way recency order against the stamp LRU it replaces (victim =
 * smallest stamp, lowest way on ties), through shootdowns and a wrap of
 * the stamp clock: the same entry id and hit on every access. */
static void check_order_against_stamps(uint32_t entries, uint32_t ways, uint64_t tag_space)
{
	struct tlb t;
	assert_int_equal(tlb_init(&t, entries, ways), 0);
	uint32_t sets = entries / 16;
	uint64_t *key = calloc(entries, sizeof *key);
	uint32_t *stamp = calloc(entries, sizeof *stamp);
	assert_non_null(key);
	assert_non_null(stamp);
	uint32_t clock = UINT32_MAX - 3000; /* wraps half way */
	t.clock = clock;
	uint64_t x = 777;
	uint32_t hits = 0, wraps = 0;
	for (uint32_t i = 0; i < 6000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t tag = (x >> 33) % tag_space;
		uint32_t base = (uint32_t)(tag % sets) * 16;
		if ((x >> 20) % 16 == 0) { /* a shootdown */
			tlb_invalidate(&t, tag);
			assert_int_equal(tlb_check(&t, NULL, 0), 0);
			uint32_t w = find_u64(&key[base], 16, tag + 1);
			if (w < 16)
				key[base + w] = stamp[base + w] = 0;
			/* the set's order stays by ascending (stamp, way) */
			for (uint32_t k = base; k + 1 < base + 16; k++) {
				uint32_t a = t.order[k], b = t.order[k + 1];
				assert_true(t.stamp[base + a] < t.stamp[base + b] ||
					    (t.stamp[base + a] == t.stamp[base + b] && a < b));
			}
			continue;
		}
		uint32_t w = find_u64(&key[base], 16, tag + 1);
		wraps += clock == UINT32_MAX;
		uint32_t now = lru_tick(&clock, stamp, entries);
		bool ref_hit = w < 16;
		if (!ref_hit) {
			w = lru_oldest(&stamp[base], 16);
			key[base + w] = tag + 1;
		}
		stamp[base + w] = now;
		bool hit;
		uint32_t id = tlb_access(&t, tag, &hit);
		assert_int_equal(tlb_check(&t, NULL, 0), 0);
		assert_int_equal(hit, ref_hit);
		assert_int_equal(id, base + w);
		hits += hit;
	}
	assert_int_equal(wraps, 1);
	assert_true(hits > 100 && hits < 5000);
	free(key);
	free(stamp);
	tlb_free(&t);
}

static void test_recency_order_matches_stamps(void **state)
{
	(void)state;
	check_order_against_stamps(16, 0, 24);  /* P100/K80 L1: 16 entries */
	check_order_against_stamps(64, 16, 96); /* 4 sets x 16 ways */
}

static void test_flush_forgets(void **state)
{
	(void)state;
	struct tlb t;
	assert_int_equal(tlb_init(&t, 100, 0), 0);
	access_tlb(&t, 5);
	assert_true(access_tlb(&t, 5));
	tlb_flush(&t);
	assert_int_equal(tlb_check(&t, NULL, 0), 0);
	assert_false(access_tlb(&t, 5));
	tlb_free(&t);
}

static void test_server_pool_queues(void **state)
{
	(void)state;
	struct server_pool one, two;
	assert_int_equal(server_pool_init(&one, 1, 4, 64), 0);
	assert_int_equal(server_pool_init(&two, 2, 4, 64), 0);
	/* One server: the second 10-cycle request at t=0 starts when the
	 * first is done (to the calendar's 4-cycle resolution). */
	assert_true(server_pool_reserve(&one, 0, 10) == 0);
	double s = server_pool_reserve(&one, 0, 10);
	assert_true(s >= 8 && s <= 12);
	/* Below saturation nothing waits. */
	assert_true(server_pool_reserve(&one, 50, 10) == 50);
	/* Two servers take two requests at once; a third waits for one. */
	assert_true(server_pool_reserve(&two, 0, 10) == 0);
	assert_true(server_pool_reserve(&two, 0, 10) == 0);
	s = server_pool_reserve(&two, 0, 10);
	assert_true(s >= 8 && s <= 12);
	/* A request arriving earlier than ones already handled still finds
	 * the capacity of its own time. */
	assert_true(server_pool_reserve(&one, 200, 10) == 200);
	assert_true(server_pool_reserve(&one, 100, 10) == 100);
	server_pool_free(&one);
	server_pool_free(&two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_small_fully_associative),
		cmocka_unit_test(test_set_associative_conflicts),
		cmocka_unit_test(test_hashed_matches_reference),
		cmocka_unit_test(test_recency_order_matches_stamps),
		cmocka_unit_test(test_flush_forgets),
		cmocka_unit_test(test_server_pool_queues),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
