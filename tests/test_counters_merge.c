/* Threaded counter merges walk the registered rows (gpuvm_counters_merge,
 * src/core/counters.c), so no counter can be left out of one: the windowed
 * engine's threads count into copies of struct gpuvm_stats
 * (src/sm/sm_window.c: pipe_finish, src/sm/sm_split.c) and merge them with
 * it. Shown here on every plain-field row of the run's tree (and every TLB
 * level a snapshot can hold) and on a table a test adds (a new counter, in
 * a new section, needs no merge code). That a threaded run reports what a
 * one-thread run does is tests/cli/threads.sh's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/counters.h"
#include "gpuvm/stats.h"

/* Every plain field the rows under sec name, at its address in base. */
struct field {
	size_t at; /* offset from the root struct */
	enum gpuvm_counter_type type;
	const char *name;
};

static size_t collect(const struct gpuvm_counter_section *sec, size_t base, struct field *out,
		      size_t n)
{
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		if (r->type == GPUVM_CTR_SECTION) {
			const struct gpuvm_counter_section *ch = r->child;
			uint32_t max = ch->count ? (ch->max_count ? ch->max_count : 1) : 1;
			for (uint32_t e = 0; e < max; e++)
				n = collect(ch, base + ch->offset + (size_t)e * ch->stride, out, n);
		} else if (r->type == GPUVM_CTR_U64 || r->type == GPUVM_CTR_U32 ||
			   r->type == GPUVM_CTR_F64) {
			bool seen = false;
			for (size_t k = 0; k < n; k++)
				seen |= out[k].at == base + r->offset;
			if (!seen)
				out[n++] = (struct field){base + r->offset, r->type, r->name};
		}
	}
	return n;
}

static void put(void *root, const struct field *f, double v)
{
	char *p = (char *)root + f->at;
	if (f->type == GPUVM_CTR_U64) {
		uint64_t x = (uint64_t)v;
		memcpy(p, &x, sizeof x);
	} else if (f->type == GPUVM_CTR_U32) {
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, sizeof x);
	} else {
		memcpy(p, &v, sizeof v);
	}
}

static double get(const void *root, const struct field *f)
{
	const char *p = (const char *)root + f->at;
	if (f->type == GPUVM_CTR_U64) {
		uint64_t x;
		memcpy(&x, p, sizeof x);
		return (double)x;
	}
	if (f->type == GPUVM_CTR_U32) {
		uint32_t x;
		memcpy(&x, p, sizeof x);
		return x;
	}
	double x;
	memcpy(&x, p, sizeof x);
	return x;
}

/* into = 1000 (i + 1), from = i + 1 on every field; after the merge
 * into = 1001 (i + 1) and from = 0 on every one, and the bytes no row
 * names are as they were. */
static void check_merge(const struct gpuvm_counter_section *sec, size_t size)
{
	struct field *fields = calloc(4096, sizeof *fields);
	assert_non_null(fields);
	size_t n = collect(sec, 0, fields, 0);
	assert_true(n > 0 && n < 4096);
	unsigned char *into = malloc(size), *from = malloc(size), *into0 = malloc(size),
		      *from0 = malloc(size);
	assert_non_null(into && from && into0 && from0);
	memset(into, 0xa5, size); /* not rows: must come through unchanged */
	memset(from, 0x5a, size);
	for (size_t i = 0; i < n; i++) {
		put(into, &fields[i], 1000.0 * (double)(i + 1));
		put(from, &fields[i], (double)(i + 1));
	}
	memcpy(into0, into, size);
	memcpy(from0, from, size);
	gpuvm_counters_merge(sec, into, from);
	for (size_t i = 0; i < n; i++) {
		if (get(into, &fields[i]) != 1001.0 * (double)(i + 1) || get(from, &fields[i]) != 0)
			fail_msg("row %s (offset %zu) not merged: into %g, from %g", fields[i].name,
				 fields[i].at, get(into, &fields[i]), get(from, &fields[i]));
	}
	/* the rest is untouched: clear the rows' bytes and compare */
	for (size_t i = 0; i < n; i++) {
		size_t w = fields[i].type == GPUVM_CTR_U32 ? 4 : 8;
		memset(into + fields[i].at, 0, w);
		memset(into0 + fields[i].at, 0, w);
		memset(from + fields[i].at, 0, w);
		memset(from0 + fields[i].at, 0, w);
	}
	assert_memory_equal(into, into0, size);
	assert_memory_equal(from, from0, size);
	free(fields);
	free(into);
	free(from);
	free(into0);
	free(from0);
}

/* Every registered row of the run's tree, TLB levels, the driver's and
 * the DRAM's sections included. */
static void test_every_run_row_merged(void **state)
{
	(void)state;
	check_merge(&gpuvm_run_section, sizeof(struct gpuvm_stats));
	/* and the hand lists it replaced are among them */
	struct gpuvm_stats into = {0}, from = {0};
	from.sectors = 3, from.lines = 5, from.xlat_units = 7;
	from.l1_sector_hits = 11, from.l1_sector_misses = 13, from.l1_writeback_sectors = 17;
	from.l2_sector_hits = 19, from.l2_sector_misses = 23, from.dram_bytes = 29;
	from.tlb[GPUVM_MAX_TLB_LEVELS - 1].misses = 31;
	from.uvm.far_faults = 37;
	gpuvm_counters_merge(&gpuvm_run_section, &into, &from);
	assert_int_equal(into.sectors + into.lines + into.xlat_units, 15);
	assert_int_equal(into.l1_sector_hits + into.l1_sector_misses + into.l1_writeback_sectors, 41);
	assert_int_equal(into.l2_sector_hits + into.l2_sector_misses + into.dram_bytes, 71);
	assert_int_equal(into.tlb[GPUVM_MAX_TLB_LEVELS - 1].misses, 31);
	assert_int_equal(into.uvm.far_faults, 37);
	struct gpuvm_stats zero = {0};
	assert_memory_equal(&from, &zero, sizeof zero);
}

/* A counter a component adds: a row in its own table is all it takes. */
struct toy_stats {
	uint64_t hits;
	double wait_cycles;
	uint32_t retries;
	bool enabled;        /* a flag, not a count: not merged */
	uint64_t kept;       /* no row: not merged */
	struct {
		uint64_t probes;
	} level[3];
};

static uint32_t three(const struct gpuvm_stats *st)
{
	(void)st;
	return 3;
}

static const struct gpuvm_counter toy_level_rows[] = {
	{.name = "probes", .unit = "count", .help = "probes", .type = GPUVM_CTR_U64,
	 .flags = GPUVM_CTR_SUM, .offset = 0},
};
static const struct gpuvm_counter_section toy_level = {
	.name = "level", .array = true, .rows = toy_level_rows, .n_rows = 1, .count = three,
	.offset = offsetof(struct toy_stats, level), .stride = sizeof(((struct toy_stats *)0)->level[0]),
	.max_count = 3,
};
static const struct gpuvm_counter toy_rows[] = {
	{.name = "hits", .unit = "count", .help = "hits", .type = GPUVM_CTR_U64,
	 .flags = GPUVM_CTR_SUM, .offset = offsetof(struct toy_stats, hits)},
	{.name = "wait", .unit = "cycles", .help = "wait", .type = GPUVM_CTR_F64,
	 .flags = GPUVM_CTR_SUM, .offset = offsetof(struct toy_stats, wait_cycles)},
	{.name = "retries", .unit = "count", .help = "retries", .type = GPUVM_CTR_U32,
	 .flags = GPUVM_CTR_SUM, .offset = offsetof(struct toy_stats, retries)},
	{.name = "enabled", .unit = "bool", .help = "on", .type = GPUVM_CTR_BOOL,
	 .offset = offsetof(struct toy_stats, enabled)},
	{.name = "level", .type = GPUVM_CTR_SECTION, .child = &toy_level},
};
static const struct gpuvm_counter_section toy = {
	.name = "", .rows = toy_rows, .n_rows = sizeof toy_rows / sizeof toy_rows[0],
};

static void test_added_counter_merged(void **state)
{
	(void)state;
	check_merge(&toy, sizeof(struct toy_stats));
	struct toy_stats into = {.hits = 1, .enabled = true, .kept = 5};
	struct toy_stats from = {.hits = 2, .wait_cycles = 2.5, .retries = 4, .enabled = true,
				 .kept = 7, .level = {{1}, {2}, {3}}};
	gpuvm_counters_merge(&toy, &into, &from);
	assert_int_equal(into.hits, 3);
	assert_true(into.wait_cycles == 2.5);
	assert_int_equal(into.retries, 4);
	assert_int_equal(into.level[0].probes + into.level[1].probes + into.level[2].probes, 6);
	assert_int_equal(into.kept, 5); /* no row, no merge */
	assert_int_equal(from.kept, 7);
	assert_true(from.enabled);
}

/* A -0.0 in the run's counter stays -0.0 when the copy holds nothing (the
 * hand lists never touched a field the copy left at zero). */
static void test_zero_copy_changes_nothing(void **state)
{
	(void)state;
	struct toy_stats into = {.wait_cycles = -0.0}, from = {0};
	gpuvm_counters_merge(&toy, &into, &from);
	assert_true(into.wait_cycles == 0 && 1 / into.wait_cycles < 0);
}

/* The SM partitions' shard plan (src/system/partition.c): the rows
 * flagged GPUVM_CTR_SHARD, a flagged SECTION's rows included, and nothing
 * else; merging by it is gpuvm_counters_merge on those fields. */
static void test_shard_plan(void **state)
{
	(void)state;
	struct gpuvm_counter_field f[64];
	size_t n = gpuvm_counters_plan(&gpuvm_run_section, GPUVM_CTR_SHARD, f, 64);
	/* seven counts and the five stall causes */
	assert_int_equal(n, 7 + GPUVM_STALLS);
	assert_true(gpuvm_counters_plan(&gpuvm_run_section, GPUVM_CTR_SHARD, f, 3) == n);
	n = gpuvm_counters_plan(&gpuvm_run_section, GPUVM_CTR_SHARD, f, 64);
	struct gpuvm_stats into = {0}, from = {0};
	from.warp_insts = 1, from.mem_insts = 2, from.thread_accesses = 4, from.local_insts = 8;
	from.shared_insts = 16, from.barriers = 32, from.smem_wavefronts = 64;
	for (int i = 0; i < GPUVM_STALLS; i++)
		from.stall_cycles[i] = 0.5 * (i + 1);
	from.sectors = 99; /* not a shard row: left alone */
	gpuvm_counters_merge_plan(f, n, &into, &from);
	assert_int_equal(into.warp_insts + into.mem_insts + into.thread_accesses + into.local_insts +
				 into.shared_insts + into.barriers + into.smem_wavefronts,
			 127);
	for (int i = 0; i < GPUVM_STALLS; i++)
		assert_true(into.stall_cycles[i] == 0.5 * (i + 1) && from.stall_cycles[i] == 0);
	assert_int_equal(into.sectors, 0);
	assert_int_equal(from.sectors, 99);
	from.sectors = 0;
	struct gpuvm_stats zero = {0};
	assert_memory_equal(&from, &zero, sizeof zero);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_run_row_merged),
		cmocka_unit_test(test_added_counter_merged),
		cmocka_unit_test(test_zero_copy_changes_nothing),
		cmocka_unit_test(test_shard_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
