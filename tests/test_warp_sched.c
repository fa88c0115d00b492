/* The warp schedulers (core.warp_scheduler, src/sm/warp_sched_*.c) on a
 * hand-made kernel: one CTA of three warps on one scheduler of one SM.
 * Warp 0 loads from memory and then needs the value; warps 1 and 2 issue
 * a long run of independent instructions. Greedy then oldest (gto):
 * warp 0 issues its load, warp 1 (the oldest ready) takes the scheduler
 * and keeps it to its end although warp 0 becomes ready meanwhile
 * (greedy), then warp 0 (older than 2) runs, then warp 2. first-ready
 * (the run loop's order) interleaves warps 1 and 2 and lets warp 0 in
 * when its value is back: 1 and 2 end together, 0 no earlier. Also: the names are
 * checked, and gto is refused with core.window. */
#include <math.h>
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
#include "gpuvm/stream.h"

#define ARR_BASE 0x10000000ull
#define ARR_BYTES 65536ull
/* independent instructions of warps 1 and 2, and after warp 0's load */
#define RUN_INSTS 6000u
#define WARPS 3u

struct hand_warp {
	uint32_t warp, i;
};

/* when each warp asked for its END item (the cycle after its last issue) */
static double end_cycles[WARPS];

static void hand_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	(void)k, (void)cta;
	struct hand_warp *h = state;
	h->warp = warp;
	h->i = 0;
}

static int hand_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		     struct gpuvm_error *err)
{
	(void)err;
	struct hand_warp *h = state;
	uint32_t i = h->i++;
	/* warp 0: a load into register 1, then instructions that read it */
	uint32_t n = h->warp == 0 ? RUN_INSTS + 1 : RUN_INSTS;
	if (i >= n) {
		it->kind = GPUVM_ITEM_END;
		if (h->warp < WARPS)
			end_cycles[h->warp] = k->clock_cycles;
		return 0;
	}
	it->has_regs = 1;
	it->n_src = 0;
	it->n_dst = 1;
	it->dst[0] = 2;
	if (h->warp == 0 && i == 0) {
		it->kind = GPUVM_ITEM_MEM;
		it->space = GPUVM_SPACE_GLOBAL;
		it->op = GPUVM_OP_LOAD;
		it->bytes_per_lane = 4;
		it->active_mask = 0xffffffffu;
		for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
			it->addr[l] = ARR_BASE + 4 * l;
		it->dst[0] = 1;
		return 0;
	}
	it->kind = GPUVM_ITEM_COMPUTE;
	it->compute_insts = 1;
	it->op_class = GPUVM_CLASS_ALU;
	if (h->warp == 0 && i == 1) {
		it->n_src = 1;
		it->src[0] = 1;
	}
	return 0;
}

static const struct gpuvm_kernel_ops hand_ops = {
	.warp_state_bytes = sizeof(struct hand_warp), .warp_begin = hand_begin,
	.warp_next = hand_next,
};

struct hand_source {
	struct gpuvm_kernel kernel;
	unsigned op;
};

static int hand_next_op(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	(void)err;
	struct hand_source *h = s->impl;
	memset(op, 0, sizeof *op);
	switch (h->op++) {
	case 0:
		op->kind = GPUVM_RUN_ALLOC;
		snprintf(op->alloc.name, sizeof op->alloc.name, "a");
		op->alloc.base = ARR_BASE;
		op->alloc.bytes = ARR_BYTES;
		op->alloc.kind = GPUVM_ALLOC_DEVICE;
		break;
	case 1:
		op->kind = GPUVM_RUN_KERNEL;
		op->kernel = &h->kernel;
		break;
	default:
		op->kind = GPUVM_RUN_END;
	}
	return 0;
}

static void hand_destroy(struct gpuvm_source *s) { (void)s; }

static const struct gpuvm_source_ops hand_source_ops = {
	.kind = "test", .next_op = hand_next_op, .destroy = hand_destroy,
};

/* Runs the kernel on p100 with one scheduler per SM under `sched`,
 * issuing `per_cycle` warp instructions a cycle: 1, the scheduler is the
 * bottleneck (the ALU takes one a cycle); 2, the ALU is. */
static void run_hand(const char *sched, int per_cycle)
{
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	struct gpuvm_error err = {{0}};
	char set[64], rate[64];
	snprintf(set, sizeof set, "core.warp_scheduler=%s", sched);
	snprintf(rate, sizeof rate, "gpu.issue_warp_insts_per_cycle=%d", per_cycle);
	if (gpuvm_config_load(cfg, "p100", &err) ||
	    gpuvm_config_set(cfg, "core.schedulers=1", "--set", &err) ||
	    gpuvm_config_set(cfg, rate, "--set", &err) || gpuvm_config_set(cfg, set, "--set", &err) ||
	    gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	struct hand_source h = {.kernel = {.name = "hand", .grid = {1, 1, 1},
					   .block = {32 * WARPS, 1, 1}, .ops = &hand_ops,
					   .reads_clock = true}};
	struct gpuvm_source src = {.ops = &hand_source_ops, .impl = &h};
	struct gpuvm_stats st;
	memset(&st, 0, sizeof st);
	for (uint32_t w = 0; w < WARPS; w++)
		end_cycles[w] = -1;
	if (gpuvm_simulate(cfg, &src, NULL, &st, &err))
		fail_msg("%s", err.msg);
	gpuvm_stats_release(&st);
	free(cfg);
	printf("  %-11s at %d a cycle: warps end at %.0f, %.0f, %.0f cycles\n", sched, per_cycle,
	       end_cycles[0], end_cycles[1], end_cycles[2]);
	for (uint32_t w = 0; w < WARPS; w++)
		assert_true(end_cycles[w] > 0);
}

static void test_gto_greedy_then_oldest(void **state)
{
	(void)state;
	run_hand("gto", 1);
	double e0 = end_cycles[0], e1 = end_cycles[1], e2 = end_cycles[2];
	/* greedy: warp 1 keeps the scheduler from its first issue to its end,
	 * although warp 0 is ready long before; then oldest: warp 0 (placed
	 * before warp 2) runs to its end, then warp 2: one after another, a
	 * run of RUN_INSTS cycles each (one instruction a cycle) */
	assert_true(e1 < e0 && e0 < e2);
	assert_true(e0 - e1 > 0.9 * RUN_INSTS && e2 - e0 > 0.9 * RUN_INSTS);
	/* the ALU the bottleneck: warp 1 still first, then the oldest, warp 0
	 * (a warp waiting for its unit is passed over, not forgotten) */
	run_hand("gto", 2);
	assert_true(end_cycles[1] < end_cycles[0] && end_cycles[0] < end_cycles[2]);
}

static void test_first_ready_interleaves(void **state)
{
	(void)state;
	run_hand("first-ready", 1);
	double e0 = end_cycles[0], e1 = end_cycles[1], e2 = end_cycles[2];
	/* warps 1 and 2 share the slots from the start: they end together,
	 * and warp 0, which joined when its value was back, no earlier */
	assert_true(fabs(e1 - e2) < 0.05 * e2);
	assert_true(e0 > 0.9 * e2);
}

static void test_names_and_window(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_config_load(cfg, "p100", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "core.warp_scheduler=lrr", "--set", &err), 0);
	assert_int_not_equal(gpuvm_config_finalize(cfg, &err), 0);
	assert_non_null(strstr(err.msg, "known: first-ready, gto"));
	assert_int_equal(gpuvm_config_load(cfg, "p100", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "core.warp_scheduler=gto", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "core.window=on", "--set", &err), 0);
	assert_int_not_equal(gpuvm_config_finalize(cfg, &err), 0);
	assert_non_null(strstr(err.msg, "core.window"));
	free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gto_greedy_then_oldest),
		cmocka_unit_test(test_first_ready_interleaves),
		cmocka_unit_test(test_names_and_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
