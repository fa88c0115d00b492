/* Unified memory meets the rest of the GPU model (issue 5 gaps):
 *  - cudaMemcpy into managed memory leaves the pages on the GPU (the
 *    driver's copy engine writes through the GPU mapping), so a kernel
 *    reading them afterwards takes no far fault; oversubscribed, the copy
 *    evicts for room;
 *  - L2 lines of evicted pages are stale once the page comes back (a new
 *    frame): dropped at their next use, dirty sectors written back;
 *    nothing is dropped while nothing is evicted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "run_util.h"
#include "gpuvm/stream.h"

#define BUF_BASE (1ull << 32)
#define BUF_BYTES (8ull << 20) /* 2048 pages */
#define LINES_PER_WARP 64u
#define WARPS_PER_CTA 4u

/* A program: a managed buffer, optionally one cudaMemcpy filling it, then
 * a kernel whose warps each read LINES_PER_WARP consecutive 128 B lines. */
struct prog {
	int step;
	int with_copy;
	struct gpuvm_kernel k;
};

struct warp_st {
	uint64_t next, end;
};

static void wb(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	(void)k;
	struct warp_st *w = state;
	w->next = BUF_BASE + ((uint64_t)cta * WARPS_PER_CTA + warp) * LINES_PER_WARP * 128;
	w->end = w->next + LINES_PER_WARP * 128;
}

static int wn(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it, struct gpuvm_error *err)
{
	(void)k;
	(void)err;
	struct warp_st *w = state;
	memset(it, 0, sizeof *it);
	if (w->next >= w->end) {
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
	it->kind = GPUVM_ITEM_MEM;
	it->op = GPUVM_OP_LOAD;
	it->bytes_per_lane = 4;
	it->active_mask = 0xffffffffu;
	for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
		it->addr[l] = w->next + 4 * l;
	w->next += 128;
	return 0;
}

static const struct gpuvm_kernel_ops kops = {
	.warp_state_bytes = sizeof(struct warp_st), .warp_begin = wb, .warp_next = wn};

static int next_op(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	(void)err;
	struct prog *p = s->impl;
	memset(op, 0, sizeof *op);
	switch (p->step++) {
	case 0:
		op->kind = GPUVM_RUN_ALLOC;
		snprintf(op->alloc.name, sizeof op->alloc.name, "buf");
		op->alloc.base = BUF_BASE;
		op->alloc.bytes = BUF_BYTES;
		op->alloc.kind = GPUVM_ALLOC_MANAGED;
		return 0;
	case 1:
		if (p->with_copy) {
			op->kind = GPUVM_RUN_COPY_H2D;
			op->copy_addr = BUF_BASE;
			op->copy_bytes = BUF_BYTES;
			return 0;
		}
		p->step++;
		/* fall through */
	case 2:
		op->kind = GPUVM_RUN_KERNEL;
		snprintf(p->k.name, sizeof p->k.name, "read");
		p->k.grid[0] = (uint32_t)(BUF_BYTES / (128 * LINES_PER_WARP * WARPS_PER_CTA));
		p->k.grid[1] = p->k.grid[2] = 1;
		p->k.block[0] = 32 * WARPS_PER_CTA;
		p->k.block[1] = p->k.block[2] = 1;
		p->k.ops = &kops;
		op->kernel = &p->k;
		return 0;
	default:
		op->kind = GPUVM_RUN_END;
		return 0;
	}
}

static const struct gpuvm_source_ops sops = {.kind = "test", .next_op = next_op};

static void simulate(int with_copy, const char *set, struct gpuvm_stats *st)
{
	struct gpuvm_config cfg;
	struct gpuvm_error err = {{0}};
	if (gpuvm_config_load(&cfg, "k80", &err) || gpuvm_config_set(&cfg, "uvm.prefetcher=none", "t", &err) ||
	    (set && gpuvm_config_set(&cfg, set, "t", &err)) || gpuvm_config_finalize(&cfg, &err))
		fail_msg("config: %s", err.msg);
	struct prog p = {.with_copy = with_copy};
	struct gpuvm_source src = {.ops = &sops, .impl = &p};
	if (gpuvm_simulate(&cfg, &src, NULL, st, &err))
		fail_msg("simulate: %s", err.msg);
}

static void test_copy_into_managed(void **state)
{
	(void)state;
	struct gpuvm_stats plain, copied, over;
	simulate(0, NULL, &plain);
	simulate(1, NULL, &copied);
	simulate(1, "uvm.oversub_percent=125", &over);
	printf("  no copy: %llu far faults, %.4g s; with cudaMemcpy: %llu far faults, %llu pages copied in, %.4g s\n",
	       (unsigned long long)plain.uvm.far_faults, plain.sim_seconds,
	       (unsigned long long)copied.uvm.far_faults, (unsigned long long)copied.uvm.pages_copied_in,
	       copied.sim_seconds);
	assert_true(plain.uvm.far_faults >= BUF_BYTES / 4096); /* no prefetcher: every page */
	assert_int_equal(plain.uvm.pages_copied_in, 0);
	assert_int_equal(copied.uvm.far_faults, 0);            /* the copy left them on the GPU */
	assert_int_equal(copied.uvm.pages_copied_in, BUF_BYTES / 4096);
	assert_int_equal(copied.uvm.pages_h2d, 0);             /* no migrations */
	assert_true(copied.pcie_h2d_bytes >= BUF_BYTES);       /* the copy's own bytes */
	/* 125 %: the copy evicts for room, and the kernel faults the rest back */
	assert_int_equal(over.uvm.pages_copied_in, BUF_BYTES / 4096);
	assert_true(over.uvm.pages_evicted > 0);
	assert_true(over.uvm.peak_resident_pages <= over.uvm.capacity_pages);
	assert_true(over.uvm.far_faults > 0);
	gpuvm_stats_release(&plain);
	gpuvm_stats_release(&copied);
	gpuvm_stats_release(&over);
}

static cJSON *run(const char *wl, const char *set)
{
	struct gpuvm_run_spec spec = {.gpu = "k80", .workload = wl, .seed = 3};
	spec.sets[spec.n_sets++] = "uvm.prefetcher=none";
	if (set)
		spec.sets[spec.n_sets++] = set;
	return run_report(&spec);
}

static double unum(const cJSON *r, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "uvm"), k);
	if (!cJSON_IsNumber(v))
		fail_msg("no uvm.%s", k);
	return v->valuedouble;
}

static void test_l2_lines_of_evicted_pages(void **state)
{
	(void)state;
	/* no eviction: nothing stale */
	cJSON *fit = run("random-sampling:region=2MiB,reads=16,mem=managed", NULL);
	assert_true(unum(fit, "pages_evicted") == 0);
	assert_true(unum(fit, "l2_sectors_invalidated") == 0);
	/* random reads come back to lines whose page was evicted and refetched */
	cJSON *rd = run("random-sampling:region=2MiB,reads=16,mem=managed", "uvm.oversub_percent=150");
	/* random atomic updates (HPCC RandomAccess): the stale lines are dirty */
	cJSON *wr = run("ra:elems=65536,threads=4096,mem=managed", "uvm.oversub_percent=150");
	printf("  150 %%: reads: %.0f pages evicted, %.0f stale L2 sectors dropped (%.0f dirty); "
	       "atomics: %.0f, %.0f (%.0f)\n",
	       unum(rd, "pages_evicted"), unum(rd, "l2_sectors_invalidated"),
	       unum(rd, "l2_dirty_sectors_written"), unum(wr, "pages_evicted"),
	       unum(wr, "l2_sectors_invalidated"), unum(wr, "l2_dirty_sectors_written"));
	assert_true(unum(rd, "l2_sectors_invalidated") > 0);
	assert_true(unum(rd, "l2_dirty_sectors_written") == 0);
	assert_true(unum(wr, "l2_dirty_sectors_written") > 0);
	assert_true(unum(wr, "l2_dirty_sectors_written") <= unum(wr, "l2_sectors_invalidated"));
	assert_true(unum(rd, "pages_evicted") > 0 && unum(wr, "pages_evicted") > 0);
	cJSON_Delete(fit);
	cJSON_Delete(rd);
	cJSON_Delete(wr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_into_managed),
		cmocka_unit_test(test_l2_lines_of_evicted_pages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
