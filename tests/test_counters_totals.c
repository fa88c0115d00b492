/* A system's totals walk the registered rows (gpuvm_counters_emit_totals,
 * src/core/counters.c; the "totals" of a report of several GPUs,
 * src/report/report_system.c), so a counter is summed over the GPUs
 * because its row says it adds (GPUVM_CTR_SUM, GPUVM_CTR_TOTAL), not
 * because a hand list names it. Shown on every plain row of the paging
 * and peer-access sections: each is in the totals with the GPUs' sum, or
 * is one of the few a GPU keeps as its own (listed here with the reason),
 * so a counter added without deciding fails this test. The CPU-phase
 * rows (uvm_host_access.c) and the peer-access rows (peer_access.c), which
 * do not add over launches, are named in the asserts. That a system
 * report carries these totals is tests/cli/system_totals.sh's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/counters.h"
#include "gpuvm/stats.h"

/* A GPU's own: not a count that adds over GPUs. */
static const char *const per_gpu[] = {
	"capacity_pages",      /* its device frames */
	"peak_resident_pages", /* a peak: the GPUs' peaks need not coincide */
	"hot_chunks",          /* its blocks' class at the end (the same block may be */
	"cold_chunks",         /* hot on one GPU and cold on another) */
};

static bool is_per_gpu(const char *name)
{
	for (size_t i = 0; i < sizeof per_gpu / sizeof per_gpu[0]; i++)
		if (!strcmp(per_gpu[i], name))
			return true;
	return false;
}

static const struct gpuvm_counter_section *section(const char *name)
{
	for (size_t i = 0; i < gpuvm_run_section.n_rows; i++) {
		const struct gpuvm_counter *r = &gpuvm_run_section.rows[i];
		if (r->type == GPUVM_CTR_SECTION && !strcmp(r->child->name, name))
			return r->child;
	}
	fail_msg("no section %s in the run's tree", name);
	return NULL;
}

static bool plain(const struct gpuvm_counter *r)
{
	return r->type == GPUVM_CTR_U64 || r->type == GPUVM_CTR_U32 || r->type == GPUVM_CTR_F64;
}

static void put(void *p, enum gpuvm_counter_type t, double v)
{
	if (t == GPUVM_CTR_U64) {
		uint64_t x = (uint64_t)v;
		memcpy(p, &x, sizeof x);
	} else if (t == GPUVM_CTR_U32) {
		uint32_t x = (uint32_t)v;
		memcpy(p, &x, sizeof x);
	} else {
		memcpy(p, &v, sizeof v);
	}
}

static double get(const void *p, enum gpuvm_counter_type t)
{
	if (t == GPUVM_CTR_U64) {
		uint64_t x;
		memcpy(&x, p, sizeof x);
		return (double)x;
	}
	if (t == GPUVM_CTR_U32) {
		uint32_t x;
		memcpy(&x, p, sizeof x);
		return x;
	}
	double x;
	memcpy(&x, p, sizeof x);
	return x;
}

static struct gpuvm_config cfg; /* zeros: no row's present() reads it */

/* Two GPUs, every plain row of sec row i: GPU 0 holds i + 1, GPU 1
 * 10 (i + 1) (two rows of one field: the later's); the totals' member
 * holds the two GPUs' sum (seconds rows: over the clock), or is absent
 * for a GPU's own row. */
static void check_section(const char *name)
{
	const struct gpuvm_counter_section *sec = section(name);
	static struct gpuvm_stats st[2];
	memset(st, 0, sizeof st);
	for (int d = 0; d < 2; d++) {
		st[d].uvm.active = true;
		char *base = (char *)&st[d] + sec->offset;
		for (size_t i = 0; i < sec->n_rows; i++)
			if (plain(&sec->rows[i]))
				put(base + sec->rows[i].offset, sec->rows[i].type,
				    (double)(i + 1) * (d ? 10 : 1));
	}
	struct gpuvm_counter_ctx runs[2];
	for (int d = 0; d < 2; d++)
		runs[d] = (struct gpuvm_counter_ctx){.cfg = &cfg, .st = &st[d], .base = &st[d],
						     .hz = 1e9};
	cJSON *o = cJSON_CreateObject();
	gpuvm_counters_emit_totals(o, &gpuvm_run_section, runs, 2);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, name);
	assert_non_null(t);
	size_t summed = 0;
	for (size_t i = 0; i < sec->n_rows; i++) {
		const struct gpuvm_counter *r = &sec->rows[i];
		if (!plain(r))
			continue;
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, r->name);
		if (is_per_gpu(r->name)) {
			if (v)
				fail_msg("%s.%s is a GPU's own, yet in the totals", name, r->name);
			continue;
		}
		double want = get((char *)&st[0] + sec->offset + r->offset, r->type) +
			      get((char *)&st[1] + sec->offset + r->offset, r->type);
		assert_true(want > 0);
		if (r->flags & GPUVM_CTR_SECONDS)
			want /= 1e9;
		if (!cJSON_IsNumber(v))
			fail_msg("%s.%s left out of the system's totals (flag its row "
				 "GPUVM_CTR_SUM or GPUVM_CTR_TOTAL, or list it in per_gpu)", name,
				 r->name);
		/* seconds rows: each GPU's over its clock, then added */
		if (v->valuedouble < want * (1 - 1e-12) || v->valuedouble > want * (1 + 1e-12))
			fail_msg("totals %s.%s = %g, not the GPUs' sum %g", name, r->name,
				 v->valuedouble, want);
		summed++;
	}
	assert_true(summed > 0);
	cJSON_Delete(o);
}

static void test_paging_rows_summed(void **state)
{
	(void)state;
	check_section("uvm");
}

static void test_peer_rows_summed(void **state)
{
	(void)state;
	check_section("peer_access");
}

/* The rows of the CPU phases and of peer access, by name, with their
 * present() gates: absent where no GPU has them, summed where one does. */
static void test_cpu_phase_and_peer_rows(void **state)
{
	(void)state;
	static struct gpuvm_stats st[2];
	memset(st, 0, sizeof st);
	st[0].uvm.active = st[1].uvm.active = true;
	st[0].uvm.far_faults = 5;
	struct gpuvm_counter_ctx runs[2];
	for (int d = 0; d < 2; d++)
		runs[d] = (struct gpuvm_counter_ctx){.cfg = &cfg, .st = &st[d], .base = &st[d],
						     .hz = 1e9};
	cJSON *o = cJSON_CreateObject();
	gpuvm_counters_emit_totals(o, &gpuvm_run_section, runs, 2);
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "uvm");
	assert_non_null(u);
	assert_null(cJSON_GetObjectItemCaseSensitive(u, "cpu_faults")); /* no CPU phase */
	assert_null(cJSON_GetObjectItemCaseSensitive(o, "peer_access")); /* no request */
	cJSON_Delete(o);

	st[1].uvm.host_accesses = 2;
	st[0].uvm.cpu_faults = 3, st[1].uvm.cpu_faults = 4;
	st[0].uvm.cpu_fault_pages = 30, st[1].uvm.cpu_fault_pages = 40;
	st[1].uvm.cpu_duplicated_pages = 6, st[0].uvm.cpu_invalidated_copies = 7;
	st[0].uvm.cpu_remote_bytes = 64, st[1].uvm.cpu_remote_bytes = 128;
	st[1].peer.requests = 9, st[1].peer.read_bytes = 288, st[0].peer.write_bytes = 0;
	o = cJSON_CreateObject();
	gpuvm_counters_emit_totals(o, &gpuvm_run_section, runs, 2);
	u = cJSON_GetObjectItemCaseSensitive(o, "uvm");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "peer_access");
	assert_non_null(u);
	assert_non_null(p);
#define NUM(obj, k) cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(obj, k))
	assert_true(NUM(u, "far_faults") == 5);
	assert_true(NUM(u, "host_accesses") == 2);
	assert_true(NUM(u, "cpu_faults") == 7);
	assert_true(NUM(u, "cpu_fault_pages") == 70);
	assert_true(NUM(u, "cpu_duplicated_pages") == 6);
	assert_true(NUM(u, "cpu_invalidated_copies") == 7);
	assert_true(NUM(u, "cpu_remote_bytes") == 192);
	assert_true(NUM(p, "requests") == 9);
	assert_true(NUM(p, "read_bytes") == 288);
	assert_true(NUM(p, "write_bytes") == 0);
#undef NUM
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paging_rows_summed),
		cmocka_unit_test(test_peer_rows_summed),
		cmocka_unit_test(test_cpu_phase_and_peer_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
