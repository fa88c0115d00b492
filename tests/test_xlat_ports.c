/* The translation layer's ports below the TLBs (xlat.h): the page port
 * gets one typed request per walk and its response decides the
 * translation's time and how wide an entry each level keeps; the PTE port
 * gets one leaf read per walk and its answer lengthens the walk. Run on
 * both variants of the one walk path (xlat.c level_step: fast, and slow
 * with the sharing analysis on), which must agree. On p100 (three levels:
 * 2 MiB entries at the first, 32 MiB at the second and third; the first
 * level shared per TPC). */
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
#include "xlat/xlat.h"

#define ADDR 0x40000000ull
#define MIB (1ull << 20)

struct rig {
	struct gpuvm_config cfg;
	struct gpuvm_stats st;
	struct xlat x;
	/* what the ports saw and answer */
	unsigned walks_done, pte_reads;
	struct xlat_walk_req last;
	double delay;          /* the page port's ready: the walk's end + delay */
	uint64_t fill_max;     /* the page port's fill_max_bytes */
	double pte_cycles;     /* the PTE port's answer */
	double pte_t;
	struct xlat_range shot; /* a shootdown the page port answers with once */
};

static struct xlat_walk_rsp walk_done(void *ctx, const struct xlat_walk_req *req)
{
	struct rig *r = ctx;
	r->walks_done++;
	r->last = *req;
	struct xlat_walk_rsp rsp = {.ready = req->t + r->delay, .fill_max_bytes = r->fill_max};
	if (r->shot.bytes) {
		rsp.invalidate = &r->shot;
		rsp.n_invalidate = 1;
	}
	return rsp;
}

static double pte_read(void *ctx, const struct xlat_pte_req *req)
{
	struct rig *r = ctx;
	r->pte_reads++;
	r->pte_t = req->t;
	return r->pte_cycles;
}

static struct rig *rig_new(bool slow)
{
	struct rig *r = calloc(1, sizeof *r);
	struct gpuvm_error err;
	assert_non_null(r);
	assert_int_equal(gpuvm_config_load(&r->cfg, "p100", &err), 0);
	if (slow && gpuvm_config_set(&r->cfg, "tlb.sharing_analysis=on", "--set", &err))
		fail_msg("%s", err.msg);
	if (gpuvm_config_finalize(&r->cfg, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(xlat_init(&r->x, &r->cfg, &r->st), 0);
	assert_int_equal(r->x.spec.slow, slow);
	assert_int_equal(r->x.spec.levels, 3);
	r->fill_max = UINT64_MAX;
	return r;
}

static void rig_free(struct rig *r)
{
	xlat_free(&r->x);
	gpuvm_stats_release(&r->st);
	free(r);
}

static void connect_page(struct rig *r)
{
	xlat_connect_page_port(&r->x, (struct xlat_page_port){.walk_done = walk_done, .ctx = r});
	assert_false(xlat_self_contained(&r->x));
}

/* An SM whose first-level instance is not SM 0's. */
static uint32_t other_l1_sm(const struct rig *r)
{
	for (uint32_t sm = 1; sm < r->cfg.sms; sm++)
		if (r->x.level[0].of_sm[sm] != r->x.level[0].of_sm[0])
			return sm;
	fail_msg("p100: every SM on one first-level TLB");
	return 0;
}

/* One walk: one request on the page port, with the SM, the address and
 * the walk's end; the translation is ready when the port says. */
static void walk_request(bool slow)
{
	struct rig *plain = rig_new(slow), *r = rig_new(slow);
	assert_true(xlat_self_contained(&plain->x));
	connect_page(r);
	r->delay = 1000;
	double t0 = xlat_translate(&plain->x, 3, ADDR + 123, 50);
	double t1 = xlat_translate(&r->x, 3, ADDR + 123, 50);
	assert_int_equal(r->walks_done, 1);
	assert_int_equal(r->last.sm, 3);
	assert_int_equal(r->last.addr, ADDR + 123);
	assert_true(r->last.t == t0); /* the walk's end: the plain translation */
	assert_true(t1 == t0 + 1000);
	/* kept at every level: a later request of the SM hits */
	double t2 = xlat_translate(&r->x, 3, ADDR + 4096, t1 + 10);
	assert_int_equal(r->walks_done, 1);
	assert_true(t2 == t1 + 10);
	rig_free(plain);
	rig_free(r);
}

static void walk_request_fast(void **state)
{
	(void)state;
	walk_request(false);
}

static void walk_request_slow(void **state)
{
	(void)state;
	walk_request(true);
}

/* fill_max_bytes narrower than a level's entry: that level keeps
 * nothing. One page: no level keeps it, the next request walks again.
 * 2 MiB: the first level keeps it, the 32 MiB levels do not, so an SM
 * on another first-level TLB walks again. */
static void narrowed(bool slow)
{
	struct rig *r = rig_new(slow);
	connect_page(r);
	r->fill_max = 4096;
	double t = xlat_translate(&r->x, 0, ADDR, 0);
	xlat_translate(&r->x, 0, ADDR, t + 1);
	assert_int_equal(r->walks_done, 2);
	rig_free(r);

	r = rig_new(slow);
	connect_page(r);
	r->fill_max = 2 * MIB;
	t = xlat_translate(&r->x, 0, ADDR, 0);
	t = xlat_translate(&r->x, 0, ADDR, t + 1);
	assert_int_equal(r->walks_done, 1); /* the first level kept it */
	xlat_translate(&r->x, other_l1_sm(r), ADDR, t + 1);
	assert_int_equal(r->walks_done, 2); /* the lower levels did not */
	rig_free(r);

	r = rig_new(slow);
	connect_page(r);
	t = xlat_translate(&r->x, 0, ADDR, 0);
	xlat_translate(&r->x, other_l1_sm(r), ADDR, t + 1);
	assert_int_equal(r->walks_done, 1); /* unnarrowed: the lower levels hit */
	rig_free(r);
}

static void narrowed_fast(void **state)
{
	(void)state;
	narrowed(false);
}

static void narrowed_slow(void **state)
{
	(void)state;
	narrowed(true);
}

/* A shootdown the paging layer made while it served a walk (an eviction
 * making room) comes back in the walk's response, not as a request into
 * xlat from below: its range is dropped at every level before the walk's
 * own fill, so the evicted page walks again and the walked one hits. The
 * request's allocation kind and sector slot reach the port unchanged. */
static void shootdown_in_response(bool slow)
{
	struct rig *r = rig_new(slow);
	connect_page(r);
	double t = xlat_translate(&r->x, 0, ADDR, 0);
	assert_int_equal(r->walks_done, 1);
	int slot = 0;
	struct xlat_req q = {.sm = 0, .addr = ADDR + 64 * MIB, .t = t + 1, .managed_known = true,
			     .managed = true, .access = &slot};
	r->shot = (struct xlat_range){.addr = ADDR, .bytes = 4096};
	t = xlat_translate_req(&r->x, &q);
	r->shot.bytes = 0;
	assert_int_equal(r->walks_done, 2);
	assert_true(r->last.managed_known && r->last.managed);
	assert_ptr_equal(r->last.access, &slot);
	xlat_translate(&r->x, 0, ADDR + 64 * MIB, t + 1); /* the walked page: kept */
	assert_int_equal(r->walks_done, 2);
	xlat_translate(&r->x, 0, ADDR, t + 1); /* the shot-down page: walks again */
	assert_int_equal(r->walks_done, 3);
	rig_free(r);
}

static void shootdown_in_response_fast(void **state)
{
	(void)state;
	shootdown_in_response(false);
}

static void shootdown_in_response_slow(void **state)
{
	(void)state;
	shootdown_in_response(true);
}

/* The PTE port: one leaf read per walk, at the walk's end, its cycles
 * added to the walk. */
static void pte_port(bool slow)
{
	struct rig *plain = rig_new(slow), *r = rig_new(slow);
	r->pte_cycles = 77;
	xlat_connect_pte_port(&r->x, (struct xlat_pte_port){.read = pte_read, .ctx = r});
	assert_false(xlat_self_contained(&r->x));
	double t0 = xlat_translate(&plain->x, 0, ADDR, 10);
	double t1 = xlat_translate(&r->x, 0, ADDR, 10);
	assert_int_equal(r->pte_reads, 1);
	assert_true(t1 == t0 + 77);
	assert_true(r->pte_t == t0); /* read when the walker has the entry */
	xlat_translate(&r->x, 0, ADDR, t1 + 1); /* a hit: no walk, no read */
	assert_int_equal(r->pte_reads, 1);
	rig_free(plain);
	rig_free(r);
}

static void pte_port_fast(void **state)
{
	(void)state;
	pte_port(false);
}

static void pte_port_slow(void **state)
{
	(void)state;
	pte_port(true);
}

/* The spec is sealed at init (core/spec_seal.h): translations (walks,
 * fills, a shootdown) and the system range the builder sets leave it
 * intact, and a write planted in the layer's spec or in any level's is
 * seen. */
static void spec_sealed(bool slow)
{
	struct rig *r = rig_new(slow);
	connect_page(r);
	r->delay = 300;
	double t = 10;
	for (uint32_t i = 0; i < 400; i++)
		t = xlat_translate(&r->x, i % r->cfg.sms, ADDR + (uint64_t)(i * 7919 % 256) * 2 * MIB,
				   t + 1);
	xlat_invalidate_range(&r->x, ADDR, 64 * MIB);
	xlat_set_system_range(&r->x, 1ull << 44, 1ull << 30, 4096);
	xlat_translate(&r->x, 0, (1ull << 44) + 8192, t + 1);
	assert_true(xlat_spec_intact(&r->x));
	struct xlat_spec kept;
	struct xlat_level_spec kept_level[3];
	memcpy(&kept, &r->x.spec, sizeof kept);
	for (int l = 0; l < 3; l++)
		memcpy(&kept_level[l], &r->x.level[l].spec, sizeof kept_level[l]);
	for (int field = 0; field < 6; field++) {
		switch (field) {
		case 0: r->x.spec.walk_cycles += 1; break;
		case 1: r->x.spec.future_peek = !r->x.spec.future_peek; break;
		case 2: r->x.spec.levels--; break;
		case 3: r->x.level[0].spec.hit_cycles += 1; break;
		case 4: r->x.level[1].spec.peer_ops = (const void *)&kept; break;
		default: r->x.level[2].spec.shift--; break;
		}
		assert_false(xlat_spec_intact(&r->x));
		memcpy(&r->x.spec, &kept, sizeof kept);
		for (int l = 0; l < 3; l++)
			memcpy(&r->x.level[l].spec, &kept_level[l], sizeof kept_level[l]);
		assert_true(xlat_spec_intact(&r->x));
	}
	rig_free(r);
}

static void spec_sealed_fast(void **state)
{
	(void)state;
	spec_sealed(false);
}

static void spec_sealed_slow(void **state)
{
	(void)state;
	spec_sealed(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_request_fast), cmocka_unit_test(walk_request_slow),
		cmocka_unit_test(narrowed_fast),     cmocka_unit_test(narrowed_slow),
		cmocka_unit_test(pte_port_fast),     cmocka_unit_test(pte_port_slow),
		cmocka_unit_test(shootdown_in_response_fast),
		cmocka_unit_test(shootdown_in_response_slow),
		cmocka_unit_test(spec_sealed_fast),  cmocka_unit_test(spec_sealed_slow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
