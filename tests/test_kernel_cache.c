/* Parsed trace kernels' cache (src/trace/kernel_cache.h): a file is found
 * again only while its path, inode, size and modification time are the
 * same; the entry and byte bounds hold; entries keep their header facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "trace/kernel_cache.h"

static struct stat fake(ino_t ino, off_t size, time_t mtime)
{
	struct stat st;
	memset(&st, 0, sizeof st);
	st.st_dev = 7;
	st.st_ino = ino;
	st.st_size = size;
	st.st_mtim.tv_sec = mtime;
	return st;
}

static void test_identity(void **state)
{
	(void)state;
	struct kernel_cache kc;
	kernel_cache_init(&kc);
	struct stat st = fake(11, 1000, 50);
	uint32_t grid[3] = {4, 2, 1}, block[3] = {256, 1, 1};
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_null(kernel_cache_find(&kc, "k.traceg", &st));
	assert_int_equal(kernel_cache_add(&kc, "k.traceg", &st, f, 300, "kern", grid, block, 4096), 0);
	struct kernel_cache_entry *e = kernel_cache_find(&kc, "k.traceg", &st);
	assert_non_null(e);
	assert_ptr_equal(e->native, f);
	assert_string_equal(e->name, "kern");
	assert_int_equal(e->grid[1], 2);
	assert_int_equal(e->block[0], 256);
	assert_int_equal(e->smem_bytes, 4096);
	assert_int_equal(kc.bytes, 300);
	/* another path, a changed size, time or inode: not the same kernel */
	assert_null(kernel_cache_find(&kc, "other.traceg", &st));
	struct stat changed = fake(11, 1001, 50);
	assert_null(kernel_cache_find(&kc, "k.traceg", &changed));
	changed = fake(11, 1000, 51);
	assert_null(kernel_cache_find(&kc, "k.traceg", &changed));
	changed = fake(12, 1000, 50);
	assert_null(kernel_cache_find(&kc, "k.traceg", &changed));
	changed = fake(11, 1000, 50);
	changed.st_mtim.tv_nsec = 1;
	assert_null(kernel_cache_find(&kc, "k.traceg", &changed));
	kernel_cache_free(&kc); /* closes f */
	assert_int_equal(kc.n, 0);
}

static void test_bounds(void **state)
{
	(void)state;
	struct kernel_cache kc;
	kernel_cache_init(&kc);
	uint32_t d[3] = {1, 1, 1};
	assert_true(kernel_cache_has_room(&kc, KERNEL_CACHE_MAX_BYTES));
	assert_false(kernel_cache_has_room(&kc, KERNEL_CACHE_MAX_BYTES + 1));
	char path[32];
	for (unsigned i = 0; i < KERNEL_CACHE_MAX_KERNELS; i++) {
		assert_true(kernel_cache_has_room(&kc, 1));
		struct stat st = fake(100 + i, 10, 1);
		snprintf(path, sizeof path, "k%u", i);
		assert_int_equal(kernel_cache_add(&kc, path, &st, NULL, 1, "k", d, d, 0), 0);
	}
	/* full by count */
	assert_false(kernel_cache_has_room(&kc, 1));
	kernel_cache_free(&kc);
	/* full by bytes */
	struct stat st = fake(1, 10, 1);
	assert_int_equal(kernel_cache_add(&kc, "big", &st, NULL, KERNEL_CACHE_MAX_BYTES - 10, "b",
					  d, d, 0), 0);
	assert_true(kernel_cache_has_room(&kc, 10));
	assert_false(kernel_cache_has_room(&kc, 11));
	kernel_cache_free(&kc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
