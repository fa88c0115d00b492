/* The allocation table's block (mem/alloc_table.h: block_shift,
 * alloc_table_same_block): every allocation starts and ends on a multiple
 * of 1 << block_shift, so two addresses in one block have one kind, and
 * the SM layer (sm_issue.c: sector_kind) takes a sector's kind from its
 * unit's translation without a lookup when they share a block. Shown:
 * the shift of an empty table, of page-aligned allocations, of one whose
 * end falls inside a 32 B sector (the sector's start and an address in
 * the allocation then differ in kind, and in block), that a removal keeps
 * the bound, and, over random tables, that a shared block never hides a
 * change of kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "core/splitmix.h"
#include "mem/alloc_table.h"

static int add(struct alloc_table *t, uint64_t base, uint64_t bytes, enum gpuvm_alloc_kind kind)
{
	struct gpuvm_alloc a = {.base = base, .bytes = bytes, .kind = kind};
	strcpy(a.name, "x");
	struct gpuvm_error err = {{0}};
	return alloc_table_add(t, &a, &err);
}

static void test_empty_and_aligned(void **state)
{
	(void)state;
	struct alloc_table t;
	alloc_table_init(&t);
	/* no allocation: every address is device memory, one block per half */
	assert_true(alloc_table_same_block(&t, 0, 0x7fffffffffffffffull));
	assert_false(alloc_table_same_block(&t, 0, 1ull << 63));
	assert_int_equal(add(&t, 0x10000, 0x1000, GPUVM_ALLOC_MANAGED), 0);
	assert_int_equal(t.block_shift, 12);
	assert_true(alloc_table_same_block(&t, 0x10000, 0x10fff));
	assert_false(alloc_table_same_block(&t, 0x10fff, 0x11000));
	/* a refused allocation (overlap) changes nothing */
	assert_int_not_equal(add(&t, 0x10800, 0x8, GPUVM_ALLOC_DEVICE), 0);
	assert_int_equal(t.block_shift, 12);
	alloc_table_free(&t);
}

static void test_end_inside_a_sector(void **state)
{
	(void)state;
	struct alloc_table t;
	alloc_table_init(&t);
	/* device memory ends 16 B into the sector at 0x20000; managed memory
	 * takes the rest of it: the base is aligned (2^17), the end is not */
	assert_int_equal(add(&t, 0x20000, 0x10, GPUVM_ALLOC_DEVICE), 0);
	assert_int_equal(add(&t, 0x20010, 0x1000, GPUVM_ALLOC_MANAGED), 0);
	assert_int_equal(t.block_shift, 4);
	/* a lane at 0x20014 and its sector's start: different kinds, and
	 * different blocks, so the SM looks the sector up */
	assert_int_not_equal(alloc_table_kind(&t, 0x20014), alloc_table_kind(&t, 0x20000));
	assert_false(alloc_table_same_block(&t, 0x20014, 0x20000));
	assert_true(alloc_table_same_block(&t, 0x20014, 0x2001f));
	/* a removal keeps the bound (still true of what is left) */
	alloc_table_remove(&t, 0x20000);
	assert_int_equal(t.block_shift, 4);
	alloc_table_free(&t);
}

/* Random tables of allocations with random alignments: for random pairs
 * of nearby addresses, one block means one kind. */
static void test_shared_block_means_one_kind(void **state)
{
	(void)state;
	uint64_t rng = 0x5eed;
	for (int table = 0; table < 200; table++) {
		struct alloc_table t;
		alloc_table_init(&t);
		uint64_t at = 0x100000;
		for (int i = 0; i < 8; i++) {
			uint64_t align = 1ull << (splitmix64_next(&rng) % 14);
			at = (at + (splitmix64_next(&rng) % 4096) + align - 1) & ~(align - 1);
			uint64_t bytes = 1 + splitmix64_next(&rng) % 8192;
			if (splitmix64_next(&rng) % 2)
				bytes = (bytes + align - 1) & ~(align - 1);
			assert_int_equal(add(&t, at, bytes,
					     (enum gpuvm_alloc_kind)(1 + splitmix64_next(&rng) % 2)),
					 0);
			at += bytes;
		}
		for (int k = 0; k < 2000; k++) {
			uint64_t a = 0x100000 + splitmix64_next(&rng) % (at - 0x100000 + 4096);
			uint64_t b = a + splitmix64_next(&rng) % 64 - 32;
			if (alloc_table_same_block(&t, a, b))
				assert_int_equal(alloc_table_kind(&t, a), alloc_table_kind(&t, b));
		}
		alloc_table_free(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_aligned),
		cmocka_unit_test(test_end_inside_a_sector),
		cmocka_unit_test(test_shared_block_means_one_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
