/* The peer GPU a sector of a GPUVM_ALLOC_PEER entry goes to
 * (alloc_table_peer_device, mem/alloc_table.h): the SM layer's peer
 * sectors name it in their request (link/peer_port.h), read from the
 * table's cached hit that the kind lookup before them left, so the port
 * (system/peer_access.c) no longer looks the allocation up again. Shown:
 * the cached hit's device, another entry's after a hit elsewhere (the
 * cache is not trusted outside its range), 0 outside every allocation,
 * and the cache dropped when the table changes. That a run's results are
 * those of a lookup in the port is the identity comparison of the
 * shared-read-mgpu modes (docs/notes/2026-11-30-multi-gpu-cost-record.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mem/alloc_table.h"

static void add(struct alloc_table *t, uint64_t base, uint64_t bytes, enum gpuvm_alloc_kind kind,
		uint32_t peer)
{
	struct gpuvm_alloc a = {.base = base, .bytes = bytes, .kind = kind, .peer_device = peer};
	strcpy(a.name, "x");
	struct gpuvm_error err = {{0}};
	assert_int_equal(alloc_table_add(t, &a, &err), 0);
}

static void test_peer_device(void **state)
{
	(void)state;
	struct alloc_table t;
	alloc_table_init(&t);
	add(&t, 0x10000, 0x1000, GPUVM_ALLOC_DEVICE, 0);
	add(&t, 0x20000, 0x1000, GPUVM_ALLOC_PEER, 2);
	add(&t, 0x30000, 0x1000, GPUVM_ALLOC_PEER, 3);
	/* the kind lookup caches the entry; its device comes from the cache */
	assert_int_equal(alloc_table_kind(&t, 0x20040), GPUVM_ALLOC_PEER);
	assert_int_equal(alloc_table_peer_device(&t, 0x20fe0), 2);
	/* another entry while the cache holds the first: looked up */
	assert_int_equal(alloc_table_peer_device(&t, 0x30020), 3);
	assert_int_equal(alloc_table_peer_device(&t, 0x20000), 2);
	assert_int_equal(alloc_table_kind(&t, 0x30000), GPUVM_ALLOC_PEER);
	assert_int_equal(alloc_table_peer_device(&t, 0x30fff), 3);
	assert_int_equal(alloc_table_peer_device(&t, 0x20800), 2);
	/* outside every allocation */
	assert_int_equal(alloc_table_peer_device(&t, 0x40000), 0);
	/* a table change drops the cache: the range now holds another peer's */
	alloc_table_remove(&t, 0x30000);
	add(&t, 0x30000, 0x1000, GPUVM_ALLOC_PEER, 5);
	assert_int_equal(alloc_table_peer_device(&t, 0x30010), 5);
	alloc_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peer_device),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
