/* Driver events (src/uvm/uvm_events.h): a subscriber sees the fault,
 * eviction, thrashing, migration and access-counter events of a small
 * managed run, in order, with their payloads; the thrashing module gets
 * its migrations through the same subscription and keeps its state in the
 * block's policy slot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "uvm/uvm.h"

/* uvm_translate's response split into the ready time and *fill (its
 * fill_max_bytes), as the tests read them */
static double translate_fill(struct uvm *u, uint32_t sm, uint64_t addr, double t, uint64_t *fill)
{
	struct uvm_translation r = uvm_translate(u, sm, addr, t);
	*fill = r.fill_max_bytes;
	return r.ready;
}

#define BASE 0x40000000ull
#define PAGE(p) (BASE + (uint64_t)(p) * UVM_PAGE_BYTES)

struct log {
	char text[1024]; /* "F0 M0 F1 ..." */
	size_t used;
	int fail_at;     /* fail (out of memory) the n-th event; 0 never */
	int seen;
};

static int record(void *ctx, const struct uvm_event *ev)
{
	struct log *l = ctx;
	char one[48];
	switch (ev->type) {
	case UVM_EVENT_FAULT:
		snprintf(one, sizeof one, "F%u/%u", ev->fault.page, ev->fault.mode);
		break;
	case UVM_EVENT_ACCESS_COUNTER:
		snprintf(one, sizeof one, "A%u/%u", ev->access_counter.chunk, ev->access_counter.count);
		break;
	case UVM_EVENT_EVICT:
		snprintf(one, sizeof one, "E%u", mask_next(ev->evict.pages, 0, true));
		assert_false(mask_test(ev->block->resident, mask_next(ev->evict.pages, 0, true)));
		break;
	case UVM_EVENT_MIGRATE:
		snprintf(one, sizeof one, "M%u:%u", mask_next(ev->migrate.pages, 0, true),
			 mask_count(ev->migrate.pages));
		assert_true(mask_test(ev->block->resident, mask_next(ev->migrate.pages, 0, true)));
		assert_int_equal(ev->migrate.dst, 1);
		break;
	case UVM_EVENT_THRASHING:
		snprintf(one, sizeof one, "T%u", ev->thrashing.page);
		break;
	default:
		fail_msg("event type %d", (int)ev->type);
	}
	l->used += (size_t)snprintf(l->text + l->used, sizeof l->text - l->used, "%s%s",
				    l->used ? " " : "", one);
	return ++l->seen == l->fail_at ? -1 : 0;
}

static void setup(struct uvm *u, struct gpuvm_uvm_stats *st, const char *const *sets, size_t n)
{
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	struct gpuvm_error err;
	assert_non_null(cfg);
	assert_int_equal(gpuvm_config_load(cfg, "gtx1080ti-uvmsmart", &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(gpuvm_config_set(cfg, sets[i], "t", &err), 0);
	assert_int_equal(gpuvm_config_finalize(cfg, &err), 0);
	memset(st, 0, sizeof *st);
	assert_int_equal(uvm_init(u, cfg, st, NULL), 0);
	assert_int_equal(uvm_add_alloc(u, "a", BASE, 1u << 20, 0), 0);
	free(cfg);
}

static void teardown(struct uvm *u, struct gpuvm_uvm_stats *st)
{
	uvm_free(u);
	free(st->allocs);
	free(st->util_h2d_busy_cycles);
	free(st->util_d2h_busy_cycles);
}

/* two frames, LRU of 4 KB pages, no prefetch: pages 0, 1 fault in; 2
 * evicts 0; 0 comes back (a thrashed page) and evicts 1 */
static void test_fault_evict_thrash_migrate(void **state)
{
	(void)state;
	const char *sets[] = {"uvm.prefetcher=none", "uvm.prefetcher_oversub=none", "uvm.eviction=lru-4kb",
			      "uvm.free_buffer_percent=0",
			      "uvm.device_memory=8KiB", "uvm.thrashing=on"};
	struct uvm u;
	struct gpuvm_uvm_stats st;
	setup(&u, &st, sets, sizeof sets / sizeof *sets);
	struct log l = {0};
	/* the thrashing module subscribed first (uvm_init) */
	assert_int_equal(u.events.n, 1);
	uint32_t all = UVM_EVENT_BIT(UVM_EVENT_FAULT) | UVM_EVENT_BIT(UVM_EVENT_ACCESS_COUNTER) |
		       UVM_EVENT_BIT(UVM_EVENT_EVICT) | UVM_EVENT_BIT(UVM_EVENT_MIGRATE) |
		       UVM_EVENT_BIT(UVM_EVENT_THRASHING);
	assert_int_equal(uvm_events_subscribe(&u.events, all, record, &l), 0);
	uint64_t fill;
	double t = 1000;
	const uint32_t pages[] = {0, 1, 2, 0};
	for (size_t i = 0; i < 4; i++)
		t = translate_fill(&u, 0, PAGE(pages[i]), t + 1, &fill) + 1e6; /* > a lapse apart */
	assert_string_equal(l.text, "F0/0 M0:1 F1/0 M1:1 F2/0 E0 M2:1 F0/0 E1 T0 M0:1");
	assert_int_equal(st.far_faults, 4);
	assert_int_equal(st.thrashed_pages, 1);
	/* the thrashing module heard every migration (one GPU: a thrashing
	 * page needs two processors, so none is found), and its per-block
	 * state sits in the block's slot */
	assert_int_equal(st.thrash_events, 4);
	assert_int_equal(st.thrashing_pages, 0);
	assert_non_null(u.sp.blocks[0]->policy_data[UVM_SLOT_THRASHING]);
	assert_false(u.oom);
	teardown(&u, &st);
}

/* delayed migration: reads of a cold block are remote until its count
 * reaches t_s = 3; the 3rd read's fault comes from the counter */
static void test_access_counter_notification(void **state)
{
	(void)state;
	/* link: the reads below the threshold and the one reaching it all
	 * take the counted path (with the preset's local TLB hits the second
	 * read would be a hit and never decide: test_migration
	 * test_remote_tlb_hits) */
	const char *sets[] = {"uvm.prefetcher=none", "uvm.migration=always", "uvm.access_counter_threshold=3",
			      "uvm.remote_tlb_hits=link"};
	struct uvm u;
	struct gpuvm_uvm_stats st;
	setup(&u, &st, sets, sizeof sets / sizeof *sets);
	struct log l = {0};
	assert_int_equal(u.events.n, 0); /* no thrashing module: no subscriber */
	assert_int_equal(uvm_events_subscribe(&u.events, ~0u, record, &l), 0);
	bool remote = false;
	for (int i = 0; i < 3; i++)
		uvm_access_counted(&u, 0, PAGE(5), false, true, 1000.0 + i, &remote);
	assert_string_equal(l.text, "F5/1 A0/3 M5:1");
	assert_int_equal(st.migrations_counter, 1);
	/* a write to another 64 KB block migrates by fault at once */
	uvm_access_counted(&u, 0, PAGE(40), true, false, 2000, &remote);
	assert_string_equal(l.text, "F5/1 A0/3 M5:1 F40/0 M40:1");
	teardown(&u, &st);
}

/* a subscriber's failure ends the run as out of memory */
static void test_subscriber_failure(void **state)
{
	(void)state;
	const char *sets[] = {"uvm.prefetcher=none"};
	struct uvm u;
	struct gpuvm_uvm_stats st;
	setup(&u, &st, sets, 1);
	struct log l = {.fail_at = 2};
	assert_int_equal(uvm_events_subscribe(&u.events, ~0u, record, &l), 0);
	uint64_t fill;
	translate_fill(&u, 0, PAGE(0), 1000, &fill);
	assert_string_equal(l.text, "F0/0 M0:1");
	assert_true(u.oom);
	teardown(&u, &st);
	/* subscriber slots are bounded */
	struct uvm_events e = {0};
	for (int i = 0; i < UVM_EVENT_SUBSCRIBERS; i++)
		assert_int_equal(uvm_events_subscribe(&e, 1, record, NULL), 0);
	assert_int_equal(uvm_events_subscribe(&e, 1, record, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_evict_thrash_migrate),
		cmocka_unit_test(test_access_counter_notification),
		cmocka_unit_test(test_subscriber_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
