/* Thrashing detection across the GPUs of a system (uvm.thrashing = on,
 * src/uvm/thrashing_shared.h, nvidia-uvm uvm_perf_thrashing.c): two GPUs
 * take turns adding 1 to every element of a managed array x. Each test
 * names the mechanism it would catch missing:
 *  - off, every turn after the first migrates every page GPU to GPU;
 *  - detection (events within a lapse, uvm_xthrash_event): on, the pages
 *    migrate only until they are thrashing (threshold events counted
 *    from the third migration: 4 of the 15 turns migrate), GPU 0 (where
 *    the pages are when detected) counts them thrashing;
 *  - pinning (get_hint_for_migration_thrashing's fast path): GPU 1's next
 *    fault pins each page on GPU 0, which GPU 1 reaches over NVLink;
 *  - the remote mapping after the pin (uvm_thrash_mgpu.c
 *    uvm_thrash_pin_elsewhere): GPU 1 then writes x in GPU 0's memory
 *    over NVLink, one mapping fault per page, nothing migrates, and
 *    every x[i] is right;
 *  - the tunables: threshold = 5 migrates two turns more; a lapse shorter
 *    than a turn never finds two events close enough;
 *  - the pin's end (pin = 1 lapse, the driver's unpin work): the pages
 *    migrate again and are pinned again;
 *  - no GPU-GPU link: no fast path, so the requester is throttled
 *    (UVM_PERF_THRASHING_HINT_TYPE_THROTTLE) and the result stays right. */
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
#include "gpuvm/simt.h"
#include "gpuvm/sysdesc.h"
#include "sanitized_env.h"

#define SYS_HEAD "[system]\nname = two\ndescription = test\nsource = test\n"                  \
		 "[gpu.0]\npreset = h100\n[gpu.1]\npreset = h100\n"                             \
		 "[cpu.0]\nmemory_bytes = 1TiB\nbandwidth_gb_s = 300\n"                          \
		 "[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n"         \
		 "[link.1]\nkind = pcie\nendpoints = gpu.1 cpu.0\nbandwidth_gb_s = 64\n"
static const char nvlinked[] = SYS_HEAD "[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\n"
					"bandwidth_gb_s = 100\ncount = 2\n";
static const char unlinked[] = SYS_HEAD;

/* x: 256 KiB of floats, 64 pages of one VA block. Under the sanitizers
 * (tests/sanitized_env.h) 16 pages: each page's events are counted, and
 * it is pinned and unpinned, as at 64, and every assertion holds; the
 * 64 turns of test_pin_expires stay (docs/notes/2026-11-29-check-time-
 * record.md: fewer end no pin). */
#define FULL_ELEMS (1u << 16)
#define SANITIZED_ELEMS (1u << 14)
static unsigned elems = FULL_ELEMS, pages;
#define ROUNDS 8u        /* turns of each GPU, unless rounds says more */

static unsigned rounds = ROUNDS;

struct add_args {
	float *x;
	unsigned n;
};

SIMT_KERNEL_ANY_ORDER(add_kernel, struct add_args, p)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n)
		ST(p.x, i, LD(p.x, i) + 1.0f);
}

static int verified; /* the program's check of x */

static int program(struct simt_host *h, void *user)
{
	(void)user;
	float *x = simt_malloc(h, "x", elems * 4ull, GPUVM_ALLOC_MANAGED);
	if (!x)
		return -1;
	for (unsigned i = 0; i < elems; i++)
		x[i] = (float)(i & 255);
	struct add_args a = {x, elems};
	for (unsigned turn = 0; turn < 2 * rounds; turn++)
		if (simt_set_device(h, turn % 2) ||
		    SIMT_LAUNCH(h, add_kernel, simt_dim3(elems / 256, 1, 1), simt_dim3(256, 1, 1), a) ||
		    simt_device_sync(h))
			return -1;
	verified = 1;
	for (unsigned i = 0; i < elems; i++)
		if (x[i] != (float)(i & 255) + 2.0f * (float)rounds)
			verified = 0;
	return 0;
}

struct run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[2];
	struct gpuvm_stats stats[2];
	struct gpuvm_system_stats out;
};

/* sys with settings (NULL-terminated) on both GPUs' presets */
static struct run *run_ok(const char *sys, const char *const *settings)
{
	struct gpuvm_error err = {{0}};
	struct run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	assert_int_equal(gpuvm_sysdesc_parse(&r->desc, sys, "two.ini", &err), 0);
	const struct gpuvm_config *cfgs[2];
	for (uint32_t d = 0; d < 2; d++) {
		assert_int_equal(gpuvm_sysdesc_gpu_config(&r->desc, d, &r->cfg[d], &err), 0);
		assert_int_equal(gpuvm_config_set(&r->cfg[d], "gpu.kernel_launch_period_us=0", "test",
						  &err), 0);
		for (const char *const *e = settings; e && *e; e++)
			if (gpuvm_config_set(&r->cfg[d], *e, "test", &err))
				fail_msg("%s: %s", *e, err.msg);
		assert_int_equal(gpuvm_config_finalize(&r->cfg[d], &err), 0);
		cfgs[d] = &r->cfg[d];
	}
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("thrash", program, NULL, NULL, &src, &err), 0);
	src.exec_threads = 0;
	r->out.gpu = r->stats;
	struct gpuvm_sim_options opt = {0};
	verified = 0;
	if (gpuvm_simulate_system(&r->desc, cfgs, &src, &opt, &r->out, &err))
		fail_msg("run failed: %s", err.msg);
	src.ops->destroy(&src);
	if (!verified)
		fail_msg("x is wrong after the turns");
	return r;
}

static void release(struct run *r)
{
	gpuvm_stats_release(&r->stats[0]);
	gpuvm_stats_release(&r->stats[1]);
	free(r);
}

static const char *const on[] = {"uvm.thrashing=on", NULL};

static void want_peer_pages(const struct run *r, uint64_t turns, const char *what)
{
	if (r->out.uvm_peer_pages != turns * pages)
		fail_msg("%s: %llu pages GPU to GPU, want %llu (%llu turns)", what,
			 (unsigned long long)r->out.uvm_peer_pages,
			 (unsigned long long)(turns * pages), (unsigned long long)turns);
}

/* off: turns 2..16 each migrate x from the other GPU */
static void test_off_migrates_every_turn(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, NULL);
	want_peer_pages(r, 2 * ROUNDS - 1, "off");
	assert_true(r->out.uvm_peer_remote_bytes == 0);
	release(r);
}

/* on: the 2nd migration starts per-page tracking, the 3rd to 5th count,
 * the 5th reaches threshold 3 (on GPU 0); GPU 1's 6th turn pins every
 * page on GPU 0 and writes it there */
static void test_detects_pins_maps_remotely(void **state)
{
	(void)state;
	struct run *r = run_ok(nvlinked, on);
	want_peer_pages(r, 4, "on");
	if (r->stats[0].uvm.thrashing_pages != pages || r->stats[1].uvm.thrashing_pages != 0)
		fail_msg("thrashing pages: GPU 0 %llu, GPU 1 %llu; want %u on GPU 0",
			 (unsigned long long)r->stats[0].uvm.thrashing_pages,
			 (unsigned long long)r->stats[1].uvm.thrashing_pages, pages);
	/* pinned at GPU 0 by GPU 1's fault (the closest resident, reached
	 * over NVLink), not throttled */
	assert_true(r->stats[1].uvm.thrash_pins == pages);
	assert_true(r->stats[0].uvm.thrash_pins == 0);
	assert_true(r->stats[0].uvm.thrash_throttles + r->stats[1].uvm.thrash_throttles == 0);
	/* GPU 1 maps each page once and reads and writes it over NVLink */
	assert_true(r->stats[1].uvm.remote_map_faults == pages);
	assert_true(r->stats[1].uvm.remote_accesses > 0);
	assert_true(r->stats[0].uvm.remote_accesses == 0);
	if (!(r->out.uvm_peer_remote_bytes >= 2ull * (ROUNDS - 3) * elems * 4ull))
		fail_msg("%llu bytes over the peer route in place, want GPU 1's loads and stores "
			 "of its last %u turns", (unsigned long long)r->out.uvm_peer_remote_bytes,
			 ROUNDS - 3);
	struct run *off = run_ok(nvlinked, NULL);
	if (!(r->out.sim_seconds < off->out.sim_seconds))
		fail_msg("pinned %g s, migrating %g s", r->out.sim_seconds, off->out.sim_seconds);
	release(r);
	release(off);
}

/* threshold = 5: two more counted events before the pin */
static void test_threshold_key(void **state)
{
	(void)state;
	static const char *const t5[] = {"uvm.thrashing=on", "uvm.thrashing.driver.threshold=5",
					 NULL};
	struct run *r = run_ok(nvlinked, t5);
	want_peer_pages(r, 6, "threshold 5");
	release(r);
}

/* a lapse of 1 us: turns are farther apart, no two events count */
static void test_lapse_key(void **state)
{
	(void)state;
	static const char *const l1[] = {"uvm.thrashing=on", "uvm.thrashing.driver.lapse_us=1",
					 NULL};
	struct run *r = run_ok(nvlinked, l1);
	want_peer_pages(r, 2 * ROUNDS - 1, "lapse 1 us");
	assert_true(r->stats[0].uvm.thrashing_pages + r->stats[1].uvm.thrashing_pages == 0);
	release(r);
}

/* pin = 1 lapse: a pin ends (the driver's unpin work), the page's
 * history starts again, it migrates and is pinned again; 64 turns each */
static void test_pin_expires(void **state)
{
	(void)state;
	static const char *const p1[] = {"uvm.thrashing=on", "uvm.thrashing.driver.pin=1", NULL};
	rounds = 64;
	struct run *r = run_ok(nvlinked, p1);
	struct run *kept = run_ok(nvlinked, on);
	rounds = ROUNDS;
	want_peer_pages(kept, 4, "pin 300 lapses");
	uint64_t pins = r->stats[0].uvm.thrash_pins + r->stats[1].uvm.thrash_pins;
	if (!(r->out.uvm_peer_pages > 4 * pages && pins > pages))
		fail_msg("pin of 1 lapse: %llu pages GPU to GPU, %llu pins; want more than %u of each",
			 (unsigned long long)r->out.uvm_peer_pages, (unsigned long long)pins, pages);
	release(r);
	release(kept);
}

/* no GPU-GPU link: the GPUs cannot map each other's memory, so the fast
 * path does not pin; a fault of the processor not spared is throttled
 * (a nap of a lapse). The kernels alternate strictly, so the next
 * migration comes more than a lapse later and the page's history starts
 * again (thrashing_event_cb resets it): never pinned, only slower. */
static void test_unlinked_throttles(void **state)
{
	(void)state;
	struct run *r = run_ok(unlinked, on);
	uint64_t throttles = r->stats[0].uvm.thrash_throttles + r->stats[1].uvm.thrash_throttles;
	if (throttles == 0)
		fail_msg("no throttle without a GPU-GPU link");
	assert_true(r->stats[0].uvm.thrash_pins + r->stats[1].uvm.thrash_pins == 0);
	assert_true(r->stats[0].uvm.remote_accesses + r->stats[1].uvm.remote_accesses == 0);
	want_peer_pages(r, 2 * ROUNDS - 1, "unlinked");
	struct run *off = run_ok(unlinked, NULL);
	if (!(r->out.sim_seconds > off->out.sim_seconds))
		fail_msg("throttled %g s, not throttled %g s", r->out.sim_seconds, off->out.sim_seconds);
	release(r);
	release(off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_migrates_every_turn),
		cmocka_unit_test(test_detects_pins_maps_remotely),
		cmocka_unit_test(test_threshold_key),
		cmocka_unit_test(test_lapse_key),
		cmocka_unit_test(test_pin_expires),
		cmocka_unit_test(test_unlinked_throttles),
	};
	if (test_sanitized())
		elems = SANITIZED_ELEMS;
	pages = elems * 4u / 4096u;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
