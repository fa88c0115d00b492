/* The paging layer's block arena (uvm/block_arena.h): zeroed, 64-byte
 * aligned records that never overlap, also across 2 MB slabs, and an
 * arena that is empty and reusable after block_arena_free. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "uvm/block_arena.h"
#include "uvm/uvm_page.h"

static void test_records_zeroed_aligned_disjoint(void **state)
{
	(void)state;
	struct block_arena a = {0};
	/* about 3 slabs of blocks and stamps, as a thrashing run allocates */
	enum { N = 1400 };
	static unsigned char *rec[N];
	static size_t len[N];
	for (int i = 0; i < N; i++) {
		len[i] = i % 3 ? sizeof(struct uvm_block) : 512 * sizeof(uint32_t) + (size_t)(i % 7);
		rec[i] = block_arena_alloc(&a, len[i]);
		assert_non_null(rec[i]);
		assert_int_equal(block_arena_check(&a, NULL, 0), 0); /* block_arena.c's invariants */
		assert_true(block_arena_owns(&a, rec[i], len[i]));
		assert_int_equal((uintptr_t)rec[i] % 64, 0);
		for (size_t j = 0; j < len[i]; j++)
			assert_int_equal(rec[i][j], 0);
		memset(rec[i], 0xA0 + i % 16, len[i]); /* a later record must not see this */
	}
	assert_true(a.n_slabs >= 3);
	for (int i = 0; i < N; i++) /* nothing written later overlapped it */
		for (size_t j = 0; j < len[i]; j++)
			assert_int_equal(rec[i][j], 0xA0 + i % 16);
	block_arena_free(&a);
	assert_int_equal(a.n_slabs, 0);
	assert_null(a.slabs);
	unsigned char *again = block_arena_alloc(&a, 100);
	assert_non_null(again);
	assert_int_equal(again[99], 0);
	block_arena_free(&a);
}

static void test_oversized_refused(void **state)
{
	(void)state;
	struct block_arena a = {0};
	assert_null(block_arena_alloc(&a, ((size_t)2 << 20) + 1));
	assert_non_null(block_arena_alloc(&a, (size_t)2 << 20)); /* exactly one slab */
	assert_non_null(block_arena_alloc(&a, 64));              /* the next slab */
	assert_int_equal(a.n_slabs, 2);
	block_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_zeroed_aligned_disjoint),
		cmocka_unit_test(test_oversized_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
