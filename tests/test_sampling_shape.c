/* With loop=listing (the default) the random-sampling generator issues what the
 * compiled loop of the preset's architecture issues
 * (src/workloads/sampling_listing.h): per 4 reads one COMPUTE item of the
 * unrolled body's count and chain, then 4 loads that do not wait for each
 * other, then reads % 4 reads of the remainder loop, each load waited for.
 * The expected counts are written out here from cuda/sass/
 * (scripts/sass_loop_counts.py) and priced at each preset's
 * gpu.imul32_issue_slots by hand, not read from the generator's table.
 * With loop=estimate it issues the estimate on every preset, one read at
 * a time, as before the listings (docs/scoping.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/stream.h"
#include "gpuvm/workload.h"
#include "workloads/random_sampling.h"
#include "workloads/scope_model.h"

/* What a warp's reads must look like on one preset. */
struct want {
	const char *gpu;
	uint32_t unroll;                   /* 4 with a listing, 1 with the estimate */
	uint32_t body, body_chain;         /* the 4-read body, priced */
	uint32_t rem, rem_chain;           /* one remainder read */
	uint32_t scoped_body, scoped_rem;  /* the scoped kernel's loops */
};

/* insts - imuls + imuls x slots; chains as listed:
 *   sm_35 body 83 (28 multiplies) chain 16, remainder 23 (7) chain 10,
 *         scoped 99 (28), 29 (7); k80 and gtx680 4 slots
 *   sm_60 172 (0) chain 23, 46 chain 13, scoped 193, 53 (XMAD full-rate)
 *   sm_70 51 (29) chain 7, 16 (8) chain 7, scoped 69 (34), 25 (9); 2 slots
 *   sm_80 51 (29), 16 (8), scoped 68 (33), 24 (10); 2 slots
 *   sm_90 60 (32), 21 (8), scoped 82 (35), 30 (10); 2 slots
 *   gem5gpu-neidty: no listing, the estimate 10 + 7 x 1 slot, chain 8,
 *         scoped + 3 */
static const struct want wants[] = {
	{"k80", 4, 83 - 28 + 28 * 4, 16, 23 - 7 + 7 * 4, 10, 99 - 28 + 28 * 4, 29 - 7 + 7 * 4},
	{"gtx680", 4, 83 - 28 + 28 * 4, 16, 23 - 7 + 7 * 4, 10, 99 - 28 + 28 * 4, 29 - 7 + 7 * 4},
	{"gtx-titan-black", 4, 83 - 28 + 28 * 4, 16, 23 - 7 + 7 * 4, 10, 99 - 28 + 28 * 4,
	 29 - 7 + 7 * 4},
	{"p100", 4, 172, 23, 46, 13, 193, 53},
	{"gtx1080ti-uvmsmart", 4, 172, 23, 46, 13, 193, 53},
	{"v100", 4, 51 + 29, 7, 16 + 8, 7, 69 + 34, 25 + 9},
	{"a100", 4, 51 + 29, 7, 16 + 8, 7, 68 + 33, 24 + 10},
	{"h100", 4, 60 + 32, 7, 21 + 8, 7, 82 + 35, 30 + 10},
	{"h100-pcie", 4, 60 + 32, 7, 21 + 8, 7, 82 + 35, 30 + 10},
	{"gem5gpu-neidty", 1, 17, 8, 17, 8, 20, 20},
};

/* The first kernel of spec on gpu, its first warp's items into *items. */
static size_t first_warp(const char *gpu, const char *spec, struct gpuvm_warp_item *items,
			 size_t cap)
{
	struct gpuvm_error err = {{0}};
	const struct gpuvm_workload_def *def;
	struct gpuvm_params params;
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	struct gpuvm_source src;
	assert_non_null(cfg);
	if (gpuvm_config_load(cfg, gpu, &err) || gpuvm_config_finalize(cfg, &err) ||
	    gpuvm_workload_parse(spec, &def, &params, &err) ||
	    def->create(cfg, &params, 1, &src, &err))
		fail_msg("%s %s: %s", gpu, spec, err.msg);
	struct gpuvm_run_op op;
	do {
		if (src.ops->next_op(&src, &op, &err))
			fail_msg("%s: %s", spec, err.msg);
	} while (op.kind != GPUVM_RUN_KERNEL && op.kind != GPUVM_RUN_END);
	assert_int_equal(op.kind, GPUVM_RUN_KERNEL);
	struct gpuvm_kernel *k = op.kernel;
	void *state = calloc(1, k->ops->warp_state_bytes);
	assert_non_null(state);
	k->ops->warp_begin(k, state, 0, 0);
	size_t n = 0;
	for (;;) {
		assert_true(n < cap);
		struct gpuvm_warp_item *it = &items[n];
		memset(it, 0, sizeof *it);
		gpuvm_item_reset_timing(it);
		if (k->ops->warp_next(k, state, it, &err))
			fail_msg("%s: %s", spec, err.msg);
		n++;
		if (it->kind == GPUVM_ITEM_END)
			break;
	}
	free(state);
	src.ops->destroy(&src);
	free(cfg);
	return n;
}

static void expect_compute(const struct gpuvm_warp_item *it, uint32_t insts, uint32_t chain,
			   const char *gpu, size_t i)
{
	if (it->kind != GPUVM_ITEM_COMPUTE || it->compute_insts != insts ||
	    (chain && it->chain_insts != chain))
		fail_msg("%s item %zu: kind %d, %u insts chain %u; want COMPUTE %u chain %u", gpu, i,
			 (int)it->kind, it->compute_insts, it->chain_insts, insts, chain);
}

static void expect_load(const struct gpuvm_warp_item *it, int indep, const char *gpu, size_t i)
{
	if (it->kind != GPUVM_ITEM_MEM || it->op != GPUVM_OP_LOAD || it->bytes_per_lane != 4 ||
	    it->load_indep != indep)
		fail_msg("%s item %zu: kind %d op %d indep %d; want a 4-byte load, indep %d", gpu, i,
			 (int)it->kind, (int)it->op, it->load_indep, indep);
}

/* 11 reads: 2 groups of 4 and 3 remainder reads (unroll 4), or 11 single
 * reads (the estimate); every lane in scope (unscoped). */
static void test_unscoped_items_follow_listing(void **state)
{
	(void)state;
	static struct gpuvm_warp_item items[128];
	for (size_t g = 0; g < sizeof wants / sizeof wants[0]; g++) {
		const struct want *w = &wants[g];
		size_t n = first_warp(w->gpu, "random-sampling:region=1MiB,threads=32,block=32,reads=11,"
				      "loop=listing",
				      items, 128);
		size_t i = 0;
		expect_compute(&items[i++], 12, 0, w->gpu, 0); /* the prologue */
		uint32_t reads = 11;
		while (reads >= w->unroll && w->unroll > 1) {
			expect_compute(&items[i], w->body, w->body_chain, w->gpu, i);
			i++;
			for (uint32_t l = 0; l < 4; l++, i++)
				expect_load(&items[i], 1, w->gpu, i);
			reads -= 4;
		}
		for (; reads; reads--) {
			expect_compute(&items[i], w->rem, w->rem_chain, w->gpu, i);
			i++;
			expect_load(&items[i], 0, w->gpu, i);
			i++;
		}
		assert_true(items[i].kind == GPUVM_ITEM_MEM && items[i].op == GPUVM_OP_STORE);
		assert_int_equal(items[i + 1].kind, GPUVM_ITEM_END);
		assert_int_equal(i + 2, n);
		printf("  %-18s %zu items: body %u, remainder %u\n", w->gpu, n, w->body, w->rem);
	}
}

/* A scoped pass counts the scoped listing's loops; its loads are issued
 * only where a lane is in scope (at most 4 between two bodies, still
 * independent in a group). */
static void test_scoped_items_follow_listing(void **state)
{
	(void)state;
	static struct gpuvm_warp_item items[128];
	for (size_t g = 0; g < sizeof wants / sizeof wants[0]; g++) {
		const struct want *w = &wants[g];
		size_t n = first_warp(w->gpu,
				      "random-sampling:region=1MiB,threads=1,block=32,reads=11,"
				      "scope=256KiB,loop=listing",
				      items, 128);
		size_t i = 1, loads = 0;
		uint32_t groups = w->unroll > 1 ? 2 : 0, singles = w->unroll > 1 ? 3 : 11;
		for (uint32_t b = 0; b < groups + singles; b++) {
			int grouped = b < groups;
			expect_compute(&items[i], grouped ? w->scoped_body : w->scoped_rem, 0, w->gpu, i);
			i++;
			size_t first = i;
			while (items[i].kind == GPUVM_ITEM_MEM && items[i].op == GPUVM_OP_LOAD &&
			       items[i].bytes_per_lane == 4) {
				expect_load(&items[i], grouped, w->gpu, i);
				assert_true(items[i].active_mask != 0);
				i++;
			}
			assert_true(i - first <= (grouped ? 4u : 1u));
			loads += i - first;
		}
		/* one lane, a quarter of the region in scope: some reads skip */
		assert_true(loads > 0 && loads < 11);
		/* pass 0: no sum load, the store, the end */
		assert_true(items[i].kind == GPUVM_ITEM_MEM && items[i].op == GPUVM_OP_STORE);
		assert_int_equal(i + 2, n);
	}
}

/* insts_per_read replaces the count and keeps the grouping and chains. */
static void test_insts_per_read_overrides_count(void **state)
{
	(void)state;
	static struct gpuvm_warp_item items[128];
	size_t n = first_warp("p100",
			      "random-sampling:region=1MiB,threads=32,block=32,reads=5,insts_per_read=31,"
			      "loop=listing",
			      items, 128);
	expect_compute(&items[1], 4 * 31, 23, "p100", 1);
	for (size_t i = 2; i < 6; i++)
		expect_load(&items[i], 1, "p100", i);
	expect_compute(&items[6], 31, 13, "p100", 6);
	expect_load(&items[7], 0, "p100", 7);
	assert_int_equal(n, 10); /* + the store and the end */
}

/* loop=estimate is the estimate on every preset, whatever its
 * gpu.compute_capability: per read one COMPUTE item of 10 + 7 multiplies
 * at gpu.imul32_issue_slots, chain 8 (a scoped pass + 3, the scope test),
 * then its load, which the next read waits for: the generator before the
 * listings. The slots per preset are read from the preset (the
 * estimate's formula is what is checked here). Without loop= a warp
 * issues the listing's items. */
static void test_estimate_loop_and_default(void **state)
{
	(void)state;
	static struct gpuvm_warp_item items[128], listed[128];
	const char *specs[] = {
		"random-sampling:region=1MiB,threads=32,block=32,reads=11,loop=estimate",
		"random-sampling:region=1MiB,threads=1,block=32,reads=11,scope=256KiB,loop=estimate",
	};
	/* the default is the listing: the same items, item for item */
	for (size_t g = 0; g < sizeof wants / sizeof wants[0]; g++) {
		size_t n = first_warp(wants[g].gpu, "random-sampling:region=1MiB,threads=32,block=32,"
					"reads=11", items, 128);
		size_t m = first_warp(wants[g].gpu, "random-sampling:region=1MiB,threads=32,block=32,"
					"reads=11,loop=listing", listed, 128);
		assert_int_equal(n, m);
		for (size_t i = 0; i < n; i++)
			if (items[i].kind != listed[i].kind ||
			    items[i].compute_insts != listed[i].compute_insts ||
			    items[i].load_indep != listed[i].load_indep)
				fail_msg("%s item %zu: the default differs from loop=listing",
					 wants[g].gpu, i);
	}
	for (size_t g = 0; g < sizeof wants / sizeof wants[0]; g++) {
		const char *gpu = wants[g].gpu;
		struct gpuvm_error err = {{0}};
		struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
		assert_non_null(cfg);
		if (gpuvm_config_load(cfg, gpu, &err) || gpuvm_config_finalize(cfg, &err))
			fail_msg("%s: %s", gpu, err.msg);
		uint32_t est = (uint32_t)(10 + 7 * cfg->imul32_issue_slots + 0.5);
		/* the scope model sees the same loop: every load waited for on
		 * its own (random_in_flight 1), the estimate's count and chain;
		 * loop=listing's 8 reads are 2 groups of 4 where a listing exists */
		for (int listing = 0; listing < 2; listing++) {
			const struct gpuvm_workload_def *def;
			struct gpuvm_params params;
			struct scope_profile prof;
			if (gpuvm_workload_parse(listing ? "random-sampling:reads=8"
							 : "random-sampling:reads=8,loop=estimate",
						 &def, &params, &err) ||
			    sampling_scope_profile(cfg, &params, &prof, &err))
				fail_msg("%s: %s", gpu, err.msg);
			if (!listing) {
				assert_true(prof.random_in_flight == 1);
				assert_true(prof.compute_insts == est);
				assert_true(prof.chain_insts == 8 && prof.scope_insts == 3);
			} else {
				assert_true(prof.random_in_flight == wants[g].unroll);
			}
		}
		free(cfg);
		for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++) {
			int scoped = sp >= 1;
			size_t n = first_warp(gpu, specs[sp], items, 128);
			size_t i = 1, loads = 0;
			for (uint32_t r = 0; r < 11; r++) {
				expect_compute(&items[i], est + (scoped ? 3 : 0), 8, gpu, i);
				i++;
				if (items[i].kind == GPUVM_ITEM_MEM && items[i].op == GPUVM_OP_LOAD &&
				    items[i].bytes_per_lane == 4) {
					expect_load(&items[i], 0, gpu, i);
					i++;
					loads++;
				} else if (!scoped) {
					fail_msg("%s %s item %zu: no load", gpu, specs[sp], i);
				}
			}
			assert_true(scoped ? loads < 11 : loads == 11);
			assert_true(items[i].kind == GPUVM_ITEM_MEM && items[i].op == GPUVM_OP_STORE);
			assert_int_equal(i + 2, n);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unscoped_items_follow_listing),
		cmocka_unit_test(test_scoped_items_follow_listing),
		cmocka_unit_test(test_insts_per_read_overrides_count),
		cmocka_unit_test(test_estimate_loop_and_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
