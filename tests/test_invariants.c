/* The invariant checkers (src/core/invariant.h): tlb_check, l1_cache_check,
 * l2_cache_check, block_arena_check and uvm_check hold after every
 * operation of randomized workouts of each structure, and each catches a
 * seeded corruption of each invariant it numbers, naming that number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/invariant.h"
#include "gpuvm/config.h"
#include "mem/l1_cache.h"
#include "mem/l2_cache.h"
#include "uvm/block_arena.h"
#include "uvm/uvm.h"
#include "xlat/tlb.h"

/* uvm_translate's response split into the ready time and *fill (its
 * fill_max_bytes), as the tests read them */
static double translate_fill(struct uvm *u, uint32_t sm, uint64_t addr, double t, uint64_t *fill)
{
	struct uvm_translation r = uvm_translate(u, sm, addr, t);
	*fill = r.fill_max_bytes;
	return r.ready;
}

static uint64_t rnd(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/* Asserts that check returned want and that its message names it. */
#define EXPECT_VIOLATION(call, want, tag)                                                   \
	do {                                                                                \
		char why_[512];                                                             \
		int r_ = (call)(why_, sizeof why_);                                         \
		char name_[16];                                                             \
		snprintf(name_, sizeof name_, "%s%d:", tag, want);                          \
		if (r_ != (want) || !strstr(why_, name_))                                   \
			fail_msg("expected invariant %s%d, got %d: %s", tag, want, r_, why_); \
	} while (0)

/* ---- TLB ------------------------------------------------------------- */

static struct tlb *cur_tlb;
static int tlb_check_cur(char *why, size_t len) { return tlb_check(cur_tlb, why, len); }

static void tlb_workout(struct tlb *t, uint64_t tag_space, uint32_t steps)
{
	uint64_t x = 12345;
	char why[512];
	for (uint32_t i = 0; i < steps; i++) {
		uint64_t tag = rnd(&x) % tag_space;
		uint32_t op = rnd(&x) % 64;
		bool hit;
		if (op == 0)
			tlb_flush(t);
		else if (op < 8)
			tlb_invalidate(t, tag);
		else
			tlb_access(t, tag, &hit);
		if (tlb_check(t, why, sizeof why))
			fail_msg("step %u: %s", i, why);
	}
}

static void test_tlb_holds(void **state)
{
	(void)state;
	static const uint32_t cfg[][2] = {{4, 0}, {16, 0}, {64, 4}, {256, 16}, {1032, 0}, {24, 0}};
	for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
		struct tlb t;
		assert_int_equal(tlb_init(&t, cfg[k][0], cfg[k][1]), 0);
		tlb_workout(&t, 3u * cfg[k][0], 20000);
		tlb_free(&t);
	}
}

/* A set-associative TLB (4 ways) and a 16-way one, filled; each
 * corruption on a fresh copy of the state. */
static void fill(struct tlb *t, uint32_t n)
{
	bool hit;
	for (uint64_t tag = 0; tag < n; tag++)
		tlb_access(t, tag, &hit);
	assert_int_equal(tlb_check(t, NULL, 0), 0);
}

static void test_tlb_catches(void **state)
{
	(void)state;
	struct tlb t;
	cur_tlb = &t;
	/* T1: an entry in two sets (copied into a set it does not map to) */
	assert_int_equal(tlb_init(&t, 64, 4), 0);
	fill(&t, 64);
	t.key[1 * 4 + 2] = t.key[0]; /* set 1 gets set 0's first key */
	EXPECT_VIOLATION(tlb_check_cur, 1, "T");
	tlb_free(&t);
	/* T2: a key twice in one set */
	assert_int_equal(tlb_init(&t, 64, 4), 0);
	fill(&t, 64);
	t.key[3] = t.key[1];
	EXPECT_VIOLATION(tlb_check_cur, 2, "T");
	tlb_free(&t);
	/* T3: a stamp from the future */
	assert_int_equal(tlb_init(&t, 64, 4), 0);
	fill(&t, 64);
	t.stamp[5] = t.clock + 1;
	EXPECT_VIOLATION(tlb_check_cur, 3, "T");
	tlb_free(&t);
	/* T4: a 16-way set's recency order out of step with its stamps */
	assert_int_equal(tlb_init(&t, 32, 16), 0);
	fill(&t, 32);
	uint8_t o = t.order[0];
	t.order[0] = t.order[15];
	t.order[15] = o;
	EXPECT_VIOLATION(tlb_check_cur, 4, "T");
	tlb_free(&t);
	/* T5: the hash mode's LRU list with a broken back link */
	assert_int_equal(tlb_init(&t, 100, 0), 0);
	assert_true(t.hashed);
	fill(&t, 100);
	t.prev[t.lru_tail] = t.mru;
	EXPECT_VIOLATION(tlb_check_cur, 5, "T");
	tlb_free(&t);
	/* T6: an entry the index lost (its bucket emptied) */
	assert_int_equal(tlb_init(&t, 100, 0), 0);
	fill(&t, 100);
	t.bucket[tlb_tag_hash(t.key[7]) & t.index_mask] = 0;
	EXPECT_VIOLATION(tlb_check_cur, 6, "T");
	tlb_free(&t);
	/* T2 in hash mode: two entries with one key */
	assert_int_equal(tlb_init(&t, 100, 0), 0);
	fill(&t, 100);
	t.key[8] = t.key[9];
	EXPECT_VIOLATION(tlb_check_cur, 6, "T"); /* entry 8 is not where its key leads */
	tlb_free(&t);
}

/* ---- L1 data cache ---------------------------------------------------- */

static struct l1_cache *cur_l1;
static int l1_check_cur(char *why, size_t len) { return l1_cache_check(cur_l1, why, len); }

static void l1_workout(struct l1_cache *c, uint32_t steps)
{
	uint64_t x = 99;
	char why[512];
	for (uint32_t i = 0; i < steps; i++) {
		uint32_t sm = (uint32_t)(rnd(&x) % c->instances);
		uint64_t addr = (rnd(&x) % (1u << 16)) * 32;
		uint32_t op = rnd(&x) % 100;
		double ready, *slot;
		uint32_t wb;
		if (op == 0)
			l1_cache_invalidate(c);
		else if (op == 1)
			l1_cache_resize(c, (1 + rnd(&x) % 4) * 4096);
		else if (op < 20)
			l1_cache_write_through(c, sm, addr, 0);
		else
			l1_cache_access(c, sm, addr, op % 3 != 0, op % 7 == 0, op % 5 == 0, &ready, &slot,
					&wb);
		if (l1_cache_check(c, why, sizeof why))
			fail_msg("step %u: %s", i, why);
	}
}

static void l1_filled(struct l1_cache *c)
{
	assert_int_equal(l1_cache_init(c, 2, 16384, 4, 128, 32), 0);
	double ready, *slot;
	uint32_t wb;
	for (uint64_t a = 0; a < 64 * 128; a += 96)
		l1_cache_access(c, 1, a, true, false, a % 3 == 0, &ready, &slot, &wb);
	assert_int_equal(l1_cache_check(c, NULL, 0), 0);
}

/* The first way of SM 1 holding a line. */
static uint64_t l1_some_line(const struct l1_cache *c)
{
	for (uint64_t i = (uint64_t)c->sets * c->ways; i < 2ull * c->sets * c->ways; i++)
		if (c->tag[i] && c->valid[i] != 0xf)
			return i;
	fail_msg("no partly valid line");
	return 0;
}

static void test_l1_holds_and_catches(void **state)
{
	(void)state;
	struct l1_cache c;
	assert_int_equal(l1_cache_init(&c, 3, 16384, 4, 128, 32), 0);
	l1_workout(&c, 30000);
	l1_cache_free(&c);

	cur_l1 = &c;
	l1_filled(&c);
	uint64_t empty = 0;
	while (c.tag[empty])
		empty++;
	c.valid[empty] = 1; /* C1: an empty way with a valid sector */
	EXPECT_VIOLATION(l1_check_cur, 1, "C");
	l1_cache_free(&c);

	l1_filled(&c);
	uint64_t i = l1_some_line(&c);
	c.valid[i] = 0; /* C2: a line with nothing valid */
	c.dirty[i] = 0;
	EXPECT_VIOLATION(l1_check_cur, 2, "C");
	l1_cache_free(&c);

	l1_filled(&c);
	i = l1_some_line(&c);
	c.dirty[i] = (uint8_t)~c.valid[i] & 0xf; /* C3: dirty sectors that are not valid */
	EXPECT_VIOLATION(l1_check_cur, 3, "C");
	l1_cache_free(&c);

	/* C4: a stale tag -- the line's address changed, its set did not */
	l1_filled(&c);
	i = l1_some_line(&c);
	uint64_t set_base = i - i % c.ways;
	for (uint64_t line = 1;; line++) {
		uint64_t key = (c.tag[i] - 1 + line) + 1;
		if (l1_cache_set_base(&c, 1, (key - 1) << c.line_shift) != set_base) {
			c.tag[i] = key;
			break;
		}
	}
	EXPECT_VIOLATION(l1_check_cur, 4, "C");
	l1_cache_free(&c);

	/* C5: one line in two ways of its set */
	l1_filled(&c);
	i = l1_some_line(&c);
	set_base = i - i % c.ways;
	uint64_t other = set_base + (i == set_base ? 1 : 0);
	c.tag[other] = c.tag[i];
	c.valid[other] = 1;
	c.dirty[other] = 0;
	EXPECT_VIOLATION(l1_check_cur, 5, "C");
	l1_cache_free(&c);

	l1_filled(&c);
	c.stamp[l1_some_line(&c)] = c.clock[1] + 5; /* C6: the line is instance 1's */
	EXPECT_VIOLATION(l1_check_cur, 6, "C");
	l1_cache_free(&c);
	/* C7: a line in an instance that filled none (l1_cache_invalidate
	 * would leave it: it clears the filled instances only) */
	l1_filled(&c);
	i = l1_some_line(&c);
	c.filled[1] = 0;
	EXPECT_VIOLATION(l1_check_cur, 7, "C");
	l1_cache_free(&c);
}

/* ---- L2 --------------------------------------------------------------- */

static struct l2_cache *cur_l2;
static int l2_check_cur(char *why, size_t len) { return l2_cache_check(cur_l2, why, len); }

static void l2_workout(struct l2_cache *c, uint32_t steps)
{
	uint64_t x = 4242;
	char why[512];
	uint32_t through = 0;
	for (uint32_t i = 0; i < steps; i++) {
		uint64_t addr = (rnd(&x) % (1u << 18)) * 32;
		uint32_t wb, ss, sd, op = rnd(&x) % 10;
		if (op == 0) {
			through = c->clock - (uint32_t)(rnd(&x) % 64);
			l2_cache_access_fresh(c, addr, op & 1, &wb, through, &through, &ss, &sd);
		} else {
			l2_cache_access(c, addr, op % 3 == 0, &wb);
		}
		if (l2_cache_check(c, why, sizeof why))
			fail_msg("step %u: %s", i, why);
	}
}

static unsigned char *l2_filled(struct l2_cache *c, uint32_t ways)
{
	assert_int_equal(l2_cache_init(c, 32 * 1024, ways, 128, 32), 0);
	uint32_t wb;
	for (uint64_t a = 0; a < 64 * 1024; a += 96)
		l2_cache_access(c, a, a % 5 == 0, &wb);
	assert_int_equal(l2_cache_check(c, NULL, 0), 0);
	return c->sets_mem; /* set 0 */
}

static void test_l2_holds_and_catches(void **state)
{
	(void)state;
	struct l2_cache c;
	for (uint32_t ways = 4; ways <= 16; ways += 12) {
		assert_int_equal(l2_cache_init(&c, 64 * 1024, ways, 128, 32), 0);
		l2_workout(&c, 40000);
		l2_cache_free(&c);
	}
	cur_l2 = &c;
	/* L1: an invalid way with a valid sector */
	assert_int_equal(l2_cache_init(&c, 32 * 1024, 16, 128, 32), 0);
	l2_set_valid(c.sets_mem, 16)[3] = 1;
	EXPECT_VIOLATION(l2_check_cur, 1, "L");
	l2_cache_free(&c);
	/* L2: a dirty sector that is not valid */
	unsigned char *set = l2_filled(&c, 16);
	l2_set_dirty(set, 16)[0] |= (uint8_t)~l2_set_valid(set, 16)[0] & 0xf;
	if (l2_set_valid(set, 16)[0] == 0xf)
		l2_set_dirty(set, 16)[0] = 0x10;
	EXPECT_VIOLATION(l2_check_cur, 2, "L");
	l2_cache_free(&c);
	/* L3: a line in a set its address does not hash to */
	set = l2_filled(&c, 16);
	unsigned char *other = c.sets_mem + c.set_bytes;
	l2_set_tags(other)[0] = l2_set_tags(set)[0];
	EXPECT_VIOLATION(l2_check_cur, 3, "L");
	l2_cache_free(&c);
	/* L4: a line in two ways */
	set = l2_filled(&c, 16);
	l2_set_tags(set)[1] = l2_set_tags(set)[0];
	EXPECT_VIOLATION(l2_check_cur, 4, "L");
	l2_cache_free(&c);
	/* L5: LRU stamps inconsistent -- two ways with one stamp */
	set = l2_filled(&c, 4);
	l2_set_stamps(set, 4)[1] = l2_set_stamps(set, 4)[0];
	EXPECT_VIOLATION(l2_check_cur, 5, "L");
	l2_cache_free(&c);
	/* L6: the 16-way recency order disagrees with the stamps (the LRU
	 * way made newest without its order moving) */
	set = l2_filled(&c, 16);
	l2_set_stamps(set, 16)[l2_set_order16(set)[0]] = c.clock + 1;
	c.clock++;
	EXPECT_VIOLATION(l2_check_cur, 6, "L");
	l2_cache_free(&c);
}

/* The duplicate finder behind L4/L5, C5 and T2: its sorted path (more
 * than 32 values) reports the same pair as a pairwise scan would, and an
 * L2 with 4096 ways (the largest l2.ways accepted) is checked in time
 * proportional to its lines (the fuzzer found a pairwise scan of a 1 GiB
 * 4096-way L2 taking hours at every kernel boundary). */
static void test_find_duplicate(void **state)
{
	(void)state;
	uint64_t v[200];
	uint32_t a, b;
	srand(7);
	for (int round = 0; round < 500; round++) {
		uint32_t n = 1 + (uint32_t)rand() % 200;
		for (uint32_t i = 0; i < n; i++)
			v[i] = (uint64_t)(rand() % (int)(n * 3)); /* zeros and repeats */
		uint32_t pa = 0, pb = 0;
		int want = 0;
		for (uint32_t i = 0; i < n && !want; i++)
			for (uint32_t j = i + 1; j < n && v[i]; j++)
				if (v[j] == v[i]) {
					pa = i, pb = j, want = 1;
					break;
				}
		assert_int_equal(gpuvm_find_duplicate(v, sizeof v[0], n, &a, &b), want);
		if (want) {
			assert_int_equal(a, pa);
			assert_int_equal(b, pb);
		}
	}
	uint32_t stamps[64] = {0};
	stamps[40] = stamps[63] = 9;
	assert_int_equal(gpuvm_find_duplicate(stamps, sizeof stamps[0], 64, &a, &b), 1);
	assert_int_equal(a, 40);
	assert_int_equal(b, 63);
	stamps[63] = 0; /* unused ways share stamp 0 */
	assert_int_equal(gpuvm_find_duplicate(stamps, sizeof stamps[0], 64, &a, &b), 0);

	struct l2_cache c;
	assert_int_equal(l2_cache_init(&c, 4096 * 128 * 2, 4096, 128, 32), 0);
	cur_l2 = &c;
	for (uint32_t i = 0; i < 3 * 4096; i++) {
		uint32_t wb;
		l2_cache_access(&c, (uint64_t)i * 128, i & 1, &wb);
	}
	char why[256];
	assert_int_equal(l2_cache_check(&c, why, sizeof why), 0);
	l2_set_tags(c.sets_mem)[4095] = l2_set_tags(c.sets_mem)[4000];
	EXPECT_VIOLATION(l2_check_cur, 4, "L");
	l2_cache_free(&c);
}

/* ---- block arena and UVM page state ------------------------------------ */

#define BASE 0x40000000ull

static struct uvm *cur_uvm;
static int uvm_check_cur(char *why, size_t len) { return uvm_check(cur_uvm, why, len); }

/* A gtx1080ti-uvmsmart driver at 150% oversubscription over three
 * allocations (the last one ends mid-block), driven by random faults,
 * accesses, copies, syncs and a free; uvm_check after every operation. */
static void uvm_setup(struct uvm *u, struct gpuvm_uvm_stats *st, const char *migration)
{
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	char set[64];
	snprintf(set, sizeof set, "uvm.migration=%s", migration);
	assert_int_equal(gpuvm_config_load(&cfg, "gtx1080ti-uvmsmart", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.oversub_percent=150", "t", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, set, "t", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.device_sync=writeback", "t", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	memset(st, 0, sizeof *st);
	assert_int_equal(uvm_init(u, &cfg, st, NULL), 0);
	assert_int_equal(uvm_add_alloc(u, "a", BASE, 4u << 20, 0), 0);
	assert_int_equal(uvm_add_alloc(u, "b", BASE + (8u << 20), 2u << 20, 0), 0);
	assert_int_equal(uvm_add_alloc(u, "c", BASE + (16u << 20), (1u << 20) + 12288, 0), 0);
}

static void uvm_teardown(struct uvm *u, struct gpuvm_uvm_stats *st)
{
	uvm_free(u);
	free(st->util_h2d_busy_cycles);
	free(st->util_d2h_busy_cycles);
	free(st->allocs);
}

static void uvm_workout(struct uvm *u, uint32_t steps, bool free_one)
{
	uint64_t x = 2024;
	char why[512];
	double t = 0;
	static const uint64_t span[][2] = {{BASE, 4u << 20}, {BASE + (8u << 20), 2u << 20},
					   {BASE + (16u << 20), (1u << 20) + 12288}};
	for (uint32_t i = 0; i < steps; i++) {
		t += 50;
		uint32_t which = (uint32_t)(rnd(&x) % 3), op = (uint32_t)(rnd(&x) % 200);
		uint64_t addr = span[which][0] + (rnd(&x) % (span[which][1] / 32)) * 32;
		uint64_t fill;
		bool remote;
		if (op == 0) {
			t = uvm_device_sync(u, t);
		} else if (op == 1) {
			uint64_t bytes = 64u << 10;
			uint64_t a = span[which][0];
			t = uvm_copy_in(u, a, bytes, t, t + uvm_copy_cycles(u, bytes));
		} else if (free_one && i == steps / 2) {
			uvm_remove_alloc(u, span[1][0]);
		} else {
			if (free_one && i > steps / 2 && which == 1)
				continue;
			double ready = translate_fill(u, 0, addr, t, &fill);
			if (uvm_counts(u))
				uvm_access_counted(u, 0, addr, op % 4 == 0, op % 4 != 0, ready, &remote);
			else
				uvm_access(u, 0, addr, op % 4 == 0, ready);
		}
		if (uvm_check(u, why, sizeof why))
			fail_msg("step %u: %s", i, why);
	}
	uvm_finish(u);
	if (uvm_check(u, why, sizeof why))
		fail_msg("after uvm_finish: %s", why);
}

static void test_uvm_holds(void **state)
{
	(void)state;
	static const char *const migration[] = {"first-touch", "adaptive"};
	for (int m = 0; m < 2; m++) {
		struct uvm u;
		struct gpuvm_uvm_stats st;
		uvm_setup(&u, &st, migration[m]);
		uvm_workout(&u, 20000, m == 0);
		assert_true(st.pages_evicted > 0); /* oversubscription exercised */
		uvm_teardown(&u, &st);
	}
}

/* A driver after some faults, and a block of it with resident pages. */
static struct uvm_block *uvm_busy(struct uvm *u, struct gpuvm_uvm_stats *st)
{
	uvm_setup(u, st, "first-touch");
	uvm_workout(u, 3000, false);
	for (uint32_t i = 0; i < u->sp.n; i++)
		if (u->sp.blocks[i]->resident_count > 1 &&
		    u->sp.blocks[i]->resident_count < UVM_BLOCK_PAGES)
			return u->sp.blocks[i];
	fail_msg("no partly resident block");
	return NULL;
}

static uint32_t first_page(const uint64_t *m, bool set) { return mask_next(m, 0, set); }

static void test_uvm_catches(void **state)
{
	(void)state;
	struct uvm u;
	struct gpuvm_uvm_stats st;
	struct uvm_block *b, copy;
	cur_uvm = &u;

	b = uvm_busy(&u, &st); /* U1: a block's index out of step with the table */
	b->index++;
	EXPECT_VIOLATION(uvm_check_cur, 1, "U");
	uvm_teardown(&u, &st);

	b = uvm_busy(&u, &st); /* U2: the map and table name a record outside the arena */
	copy = *b;
	u.sp.blocks[b->index] = &copy;
	uvm_map_find(&u.blocks, b->base >> UVM_BLOCK_SHIFT)->val = (uintptr_t)&copy;
	u.last = NULL;
	EXPECT_VIOLATION(uvm_check_cur, 2, "U");
	uvm_teardown(&u, &st);

	b = uvm_busy(&u, &st); /* U3: a page resident outside the managed span */
	b->end_page = (uint16_t)first_page(b->resident, true);
	if (b->end_page <= b->first_page)
		b->first_page = (uint16_t)(b->end_page - 1), b->end_page = b->first_page + 1;
	EXPECT_VIOLATION(uvm_check_cur, 3, "U");
	uvm_teardown(&u, &st);

	b = uvm_busy(&u, &st); /* U4: resident_count disagrees with the mask */
	b->resident_count--;
	EXPECT_VIOLATION(uvm_check_cur, 4, "U");
	uvm_teardown(&u, &st);

	/* U5: a page resident on the GPU that no block accounts for */
	b = uvm_busy(&u, &st);
	u.sp.resident_pages++;
	EXPECT_VIOLATION(uvm_check_cur, 5, "U");
	uvm_teardown(&u, &st);

	b = uvm_busy(&u, &st); /* U6: prefetched but not resident */
	mask_set(b->prefetched, first_page(b->resident, false));
	b->prefetched_count++;
	EXPECT_VIOLATION(uvm_check_cur, 6, "U");
	uvm_teardown(&u, &st);

	b = uvm_busy(&u, &st); /* U7: dirty but not resident */
	mask_set(b->dirty, first_page(b->resident, false));
	EXPECT_VIOLATION(uvm_check_cur, 7, "U");
	uvm_teardown(&u, &st);

	b = uvm_busy(&u, &st); /* U8: resident and "evicted, not back yet" */
	mask_set(b->evicted, first_page(b->resident, true));
	EXPECT_VIOLATION(uvm_check_cur, 8, "U");
	uvm_teardown(&u, &st);

	b = uvm_busy(&u, &st); /* U9: a page arriving after the block's bound */
	b->arrive[first_page(b->resident, true)] = b->arrive_max + 1;
	EXPECT_VIOLATION(uvm_check_cur, 9, "U");
	uvm_teardown(&u, &st);

	/* U10: the residency summary for wide TLB fills says a group's
	 * blocks are all resident when they are not */
	b = uvm_busy(&u, &st);
	if (u.group_blocks < 2) { /* no wide level in this preset: a 2-block summary */
		u.group_blocks = 2;
		u.group_shift = 1;
	}
	uint64_t g = (b->base >> UVM_BLOCK_SHIFT) >> u.group_shift;
	struct uvm_map_entry *e = uvm_map_find(&u.groups, g);
	if (e)
		e->val = 0;
	else
		assert_non_null(uvm_map_insert(&u.groups, g, 0));
	EXPECT_VIOLATION(uvm_check_cur, 10, "U");
	uvm_teardown(&u, &st);
}

static void test_block_arena_catches(void **state)
{
	(void)state;
	struct block_arena a = {0};
	char why[256];
	for (int i = 0; i < 5000; i++) {
		assert_non_null(block_arena_alloc(&a, 1 + (size_t)(i * 7919) % 5000));
		assert_int_equal(block_arena_check(&a, why, sizeof why), 0);
	}
	a.used_bytes += 8; /* A2 */
	assert_int_equal(block_arena_check(&a, why, sizeof why), 2);
	assert_non_null(strstr(why, "A2:"));
	a.used_bytes -= 8;
	uint32_t cap = a.cap_slabs;
	a.cap_slabs = a.n_slabs - 1; /* A1 */
	assert_int_equal(block_arena_check(&a, why, sizeof why), 1);
	a.cap_slabs = cap;
	assert_int_equal(block_arena_check(&a, why, sizeof why), 0);
	block_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlb_holds),
		cmocka_unit_test(test_tlb_catches),
		cmocka_unit_test(test_l1_holds_and_catches),
		cmocka_unit_test(test_l2_holds_and_catches),
		cmocka_unit_test(test_find_duplicate),
		cmocka_unit_test(test_uvm_holds),
		cmocka_unit_test(test_uvm_catches),
		cmocka_unit_test(test_block_arena_catches),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
