/* CTA placement policies (src/sm/cta_place.c): round-robin deals a
 * launch's first CTAs one per SM in turn (GPGPU-Sim issue_block2core),
 * fill gives each SM CTAs up to its occupancy before the next; both
 * refill a freed slot at once, honour a pinned kernel, and start after
 * the last SM used with gpu.cta_issue = after-last. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "event/event_queue.h"
#include "gpuvm/config.h"
#include "sm/cta_place.h"
#include "sm/sm.h"

static void nop_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	(void)k;
	(void)state;
	(void)cta;
	(void)warp;
}

static const struct gpuvm_kernel_ops nop_ops = {.warp_state_bytes = 16, .warp_begin = nop_begin};

struct rig {
	struct gpuvm_config cfg;
	struct gpuvm_stats stats;
	struct event_queue q;
	struct sm_layer sl;
	struct cta_placer placer;
	struct gpuvm_kernel k;
	struct sm_launch l;
};

/* 4 SMs of 8 warps; CTAs of 2 warps, at most 4 an SM; ctas CTAs. */
static void rig_init(struct rig *r, const char *policy, uint64_t ctas, bool after_last)
{
	memset(r, 0, sizeof *r);
	gpuvm_config_defaults(&r->cfg);
	r->cfg.sms = 4;
	r->cfg.max_warps_per_sm = 8;
	r->cfg.max_ctas_per_sm = 4;
	r->cfg.cta_issue_after_last = after_last;
	r->cfg.cta_placement = strcmp(policy, "fill") == 0;
	assert_int_equal(event_queue_init(&r->q, 32), 0);
	struct sm_ports ports = {.events = &r->q};
	assert_int_equal(sm_layer_init(&r->sl, &r->cfg, &r->stats, &ports), 0);
	assert_int_equal(sm_ensure_warp_state(&r->sl, nop_ops.warp_state_bytes), 0);
	cta_placer_init(&r->placer, &r->cfg);
	assert_string_equal(r->placer.ops->name, policy);
	assert_ptr_equal(cta_place_find(policy), r->placer.ops);
	r->k.ops = &nop_ops;
	r->l = (struct sm_launch){.k = &r->k, .ctas = ctas, .warps_per_cta = 2, .ctas_per_sm = 4,
				  .smem_cap = 1u << 20};
}

static void rig_free(struct rig *r)
{
	sm_layer_free(&r->sl);
	event_queue_free(&r->q);
}

static void expect_ctas(const struct rig *r, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	assert_int_equal(r->sl.sm[0].ctas_used, a);
	assert_int_equal(r->sl.sm[1].ctas_used, b);
	assert_int_equal(r->sl.sm[2].ctas_used, c);
	assert_int_equal(r->sl.sm[3].ctas_used, d);
}

static void test_round_robin_breadth_first(void **st)
{
	(void)st;
	struct rig r;
	rig_init(&r, "round-robin", 6, false);
	r.placer.ops->launch(&r.placer, &r.sl, &r.l, 0);
	expect_ctas(&r, 2, 2, 1, 1);
	assert_int_equal(r.l.next_cta, 6);
	assert_int_equal(r.stats.warps, 12);
	rig_free(&r);
}

static void test_fill_depth_first(void **st)
{
	(void)st;
	struct rig r;
	rig_init(&r, "fill", 6, false);
	r.placer.ops->launch(&r.placer, &r.sl, &r.l, 0);
	expect_ctas(&r, 4, 2, 0, 0);
	rig_free(&r);
	/* more CTAs than the GPU holds: every SM full, the rest wait */
	rig_init(&r, "fill", 40, false);
	r.placer.ops->launch(&r.placer, &r.sl, &r.l, 0);
	expect_ctas(&r, 4, 4, 4, 4);
	assert_int_equal(r.l.next_cta, 16);
	/* a CTA's two warps end: its SM takes the next CTA at once */
	uint32_t wslot = 2 * r.cfg.max_warps_per_sm; /* SM 2's first warp slot */
	assert_int_equal(sm_warp_finished(&r.sl, &r.l, wslot, 10), UINT32_MAX);
	uint32_t freed = sm_warp_finished(&r.sl, &r.l, wslot + 1, 12);
	assert_int_equal(freed, 2);
	expect_ctas(&r, 4, 4, 3, 4);
	r.placer.ops->slot_freed(&r.placer, &r.sl, &r.l, freed, 12);
	expect_ctas(&r, 4, 4, 4, 4);
	assert_int_equal(r.l.next_cta, 17);
	rig_free(&r);
}

static void test_pinned_and_after_last(void **st)
{
	(void)st;
	for (int fill = 0; fill < 2; fill++) {
		struct rig r;
		rig_init(&r, fill ? "fill" : "round-robin", 6, false);
		r.k.pin = true;
		r.k.pin_sm = 3;
		r.placer.ops->launch(&r.placer, &r.sl, &r.l, 0);
		expect_ctas(&r, 0, 0, 0, 4);
		rig_free(&r);

		/* after-last: the run's first CTA goes to SM 1 (GPGPU-Sim's
		 * pointer starts at 0) */
		rig_init(&r, fill ? "fill" : "round-robin", 1, true);
		r.placer.ops->launch(&r.placer, &r.sl, &r.l, 0);
		expect_ctas(&r, 0, 1, 0, 0);
		assert_int_equal(r.placer.last_issued_sm, 1);
		rig_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_robin_breadth_first),
		cmocka_unit_test(test_fill_depth_first),
		cmocka_unit_test(test_pinned_and_after_last),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
