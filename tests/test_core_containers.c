/* src/core/vec.h (growable arrays) and src/core/u64map.h (64-bit key map)
 * against their contracts: contents kept across growth, capacity doubling,
 * overflow and zeroed-struct behaviour; the map against a sorted reference
 * over random keys (every key found once, absent keys not found, iteration
 * visits each entry once), keys 0 and UINT64_MAX - 1, set-style add, clear. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/u64map.h"
#include "core/vec.h"

struct pair {
	uint64_t a;
	uint32_t b;
};

static void test_vec_push_keeps_contents(void **state)
{
	(void)state;
	struct pair *v = NULL;
	size_t n = 0, cap = 0;
	for (uint32_t i = 0; i < 5000; i++) {
		assert_int_equal(VEC_PUSH(v, n, cap, ((struct pair){(uint64_t)i * 7, i})), 0);
		assert_true(cap >= n);
		/* doubling from the minimum: a power of two times it */
		assert_int_equal(cap % VEC_MIN_CAPACITY, 0);
		assert_int_equal((cap / VEC_MIN_CAPACITY) & (cap / VEC_MIN_CAPACITY - 1), 0);
	}
	assert_int_equal(n, 5000);
	assert_int_equal(cap, 8192);
	for (uint32_t i = 0; i < 5000; i++) {
		assert_true(v[i].a == (uint64_t)i * 7);
		assert_int_equal(v[i].b, i);
	}
	free(v);
}

static void test_vec_reserve(void **state)
{
	(void)state;
	uint32_t *v = NULL;
	size_t cap = 0;
	assert_int_equal(VEC_RESERVE(v, cap, 0), 0); /* nothing asked, nothing done */
	assert_null(v);
	assert_int_equal(VEC_RESERVE(v, cap, 1), 0);
	assert_int_equal(cap, VEC_MIN_CAPACITY);
	assert_int_equal(VEC_RESERVE(v, cap, 100), 0);
	assert_int_equal(cap, 128);
	v[99] = 42;
	uint32_t *before = v;
	assert_int_equal(VEC_RESERVE(v, cap, 128), 0); /* fits: no realloc */
	assert_ptr_equal(v, before);
	/* a byte size past size_t fails and leaves the array as it was */
	assert_int_equal(VEC_RESERVE(v, cap, SIZE_MAX / sizeof *v + 1), -1);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 128);
	assert_int_equal(VEC_RESERVE(v, cap, SIZE_MAX), -1);
	assert_int_equal(cap, 128);
	assert_int_equal(v[99], 42);
	free(v);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void test_u64map_against_reference(void **state)
{
	(void)state;
	enum { N = 20000 };
	uint64_t *keys = malloc(N * sizeof *keys);
	assert_non_null(keys);
	uint64_t s = 1;
	for (int i = 0; i < N; i++) /* random keys, some small and dense */
		keys[i] = i % 4 ? rng_next(&s) % (UINT64_MAX - 1) : (uint64_t)i;
	keys[0] = 0;
	keys[1] = UINT64_MAX - 1; /* the largest key the map takes */
	qsort(keys, N, sizeof *keys, cmp_u64);
	int n = 0; /* unique */
	for (int i = 0; i < N; i++)
		if (!n || keys[n - 1] != keys[i])
			keys[n++] = keys[i];

	struct u64map m;
	assert_int_equal(u64map_init(&m, 2), 0);
	for (int i = 0; i < n; i++) {
		struct u64map_entry *e = u64map_insert(&m, keys[i], keys[i] ^ 0xABCD);
		assert_non_null(e);
		assert_true(e->key - 1 == keys[i]);
		/* never more than half full, so an absent key's probe ends */
		assert_true(2 * (uint64_t)m.n <= (uint64_t)m.mask + 1);
	}
	assert_int_equal(m.n, (uint32_t)n);
	for (int i = 0; i < n; i++) {
		struct u64map_entry *e = u64map_find(&m, keys[i]);
		assert_non_null(e);
		assert_true(e->val == (keys[i] ^ 0xABCD));
	}
	/* absent keys: neighbours of present ones that are not present */
	for (int i = 0; i + 1 < n; i++) {
		uint64_t k = keys[i] + 1;
		if (k != keys[i + 1])
			assert_null(u64map_find(&m, k));
	}
	/* iteration: every entry once */
	uint64_t *seen = malloc((size_t)n * sizeof *seen);
	assert_non_null(seen);
	size_t k = 0;
	for (uint32_t i = u64map_next(&m, 0); i < u64map_slots(&m); i = u64map_next(&m, i + 1)) {
		assert_true(k < (size_t)n);
		seen[k++] = m.e[i].key - 1;
	}
	assert_int_equal(k, (size_t)n);
	qsort(seen, k, sizeof *seen, cmp_u64);
	assert_memory_equal(seen, keys, k * sizeof *seen);

	u64map_clear(&m);
	assert_int_equal(m.n, 0);
	assert_null(u64map_find(&m, keys[0]));
	assert_int_equal(u64map_next(&m, 0), u64map_slots(&m));
	u64map_free(&m);
	free(seen);
	free(keys);
}

static void test_u64map_add_on_zeroed_map(void **state)
{
	(void)state;
	struct u64map m;
	memset(&m, 0, sizeof m); /* a zeroed struct is an empty map for add */
	assert_int_equal(u64map_slots(&m), 0);
	assert_int_equal(u64map_add(&m, 5, 50), 1);
	assert_int_equal(u64map_add(&m, 5, 51), 0); /* present: value unchanged */
	assert_true(u64map_find(&m, 5)->val == 50);
	assert_int_equal(u64map_slots(&m), U64MAP_MIN_SLOTS);
	for (uint64_t k = 0; k < 1000; k++)
		assert_int_equal(u64map_add(&m, k << 16, k), 1);
	assert_int_equal(m.n, 1001);
	for (uint64_t k = 0; k < 1000; k++)
		assert_int_equal(u64map_add(&m, k << 16, 0), 0);
	assert_int_equal(m.n, 1001);
	assert_true(u64map_find(&m, 999ull << 16)->val == 999);
	u64map_free(&m);
	u64map_free(&m); /* freeing twice is harmless: the struct is zeroed */
	assert_int_equal(u64map_slots(&m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vec_push_keeps_contents),
		cmocka_unit_test(test_vec_reserve),
		cmocka_unit_test(test_u64map_against_reference),
		cmocka_unit_test(test_u64map_add_on_zeroed_map),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
