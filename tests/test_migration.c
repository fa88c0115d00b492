/* Delayed migration (Ganguly et al. ISCA'19, seeds/004 IV) against
 * hand-worked cases: the 64 KB access counters (27-bit count, 5-bit
 * round trips, halving of every block's field on saturation), Eq. 1 at
 * the paper's own example, the remote-read / write-migrates decision, the
 * access-counter LFU, and the driver's thrashing detection
 * (uvm_perf_thrashing.c: 3 events within a lapse, throttle, pin after 10). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "uvm/migrate.h"
#include "uvm/thrashing.h"
#include "uvm/uvm.h"

/* uvm_translate's response split into the ready time and *fill (its
 * fill_max_bytes), as the tests read them */
static double translate_fill(struct uvm *u, uint32_t sm, uint64_t addr, double t, uint64_t *fill)
{
	struct uvm_translation r = uvm_translate(u, sm, addr, t);
	*fill = r.fill_max_bytes;
	return r.ready;
}

/* A space of n blocks with counters, for the counter and LFU tests. */
struct fake {
	struct uvm_block blk[3];
	struct uvm_block *ptr[3];
	uint32_t ac[3][UVM_BLOCK_CHUNKS];
	struct uvm_space sp;
};

static void fake_init(struct fake *f, uint32_t n)
{
	memset(f, 0, sizeof *f);
	for (uint32_t i = 0; i < n; i++) {
		f->blk[i].index = i;
		f->blk[i].base = (uint64_t)(i + 1) << UVM_BLOCK_SHIFT;
		f->blk[i].end_page = UVM_BLOCK_PAGES;
		f->blk[i].ac = f->ac[i];
		f->ptr[i] = &f->blk[i];
	}
	f->sp.blocks = f->ptr;
	f->sp.n = n;
}

static void test_counter_updates(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f, 2);
	for (int i = 0; i < 3; i++)
		assert_false(uvm_ac_access(&f.sp, &f.blk[0], 4));
	assert_false(uvm_ac_round_trip(&f.sp, &f.blk[0], 4));
	assert_false(uvm_ac_round_trip(&f.sp, &f.blk[0], 4));
	/* the register: round trips in the top 5 bits, the count in the low 27 */
	assert_int_equal(f.ac[0][4], (2u << 27) | 3u);
	assert_int_equal(uvm_ac_count(f.ac[0][4]), 3);
	assert_int_equal(uvm_ac_round_trips(f.ac[0][4]), 2);
	assert_int_equal(f.ac[0][5], 0); /* per 64 KB block */
	assert_int_equal(f.ac[1][4], 0);
	assert_int_equal(uvm_ac_block_count(&f.blk[0]), 3);
}

static void test_halving(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f, 2);
	f.ac[0][0] = (1u << 27) | (UVM_AC_COUNT_MAX - 1); /* one access from saturation */
	f.ac[1][5] = (3u << 27) | 101u;
	/* the access that saturates halves every block's count, not r */
	assert_true(uvm_ac_access(&f.sp, &f.blk[0], 0));
	assert_int_equal(f.ac[0][0], (1u << 27) | (UVM_AC_COUNT_MAX / 2));
	assert_int_equal(f.ac[1][5], (3u << 27) | 50u);
	/* round trips saturate at 31: every block's r halves, counts stay */
	f.ac[1][5] = (30u << 27) | 7u;
	assert_true(uvm_ac_round_trip(&f.sp, &f.blk[1], 5));
	assert_int_equal(f.ac[1][5], (15u << 27) | 7u);
	assert_int_equal(f.ac[0][0], (0u << 27) | (UVM_AC_COUNT_MAX / 2));
}

static uint32_t td(const char *policy, uint64_t resident, uint64_t cap, bool over, uint32_t r)
{
	const struct uvm_migrate_ops *m = uvm_migrate_find(policy);
	assert_non_null(m);
	struct uvm_migrate_ctx c = {.ts = 8, .penalty = 2, .round_trips = r, .resident_pages = resident,
				    .capacity_pages = cap, .oversubscribed = over};
	return m->threshold(&c);
}

static void test_threshold_formula(void **state)
{
	(void)state;
	/* seeds/004 IV, the example after Eq. 1 (t_s = 8, p = 2) */
	assert_int_equal(td("adaptive", 124, 1000, false, 0), 1);  /* below 12.5 % allocated */
	assert_int_equal(td("adaptive", 125, 1000, false, 0), 2);  /* 12.5 %: 8 * 0.125 + 1 */
	assert_int_equal(td("adaptive", 999, 1000, false, 0), 8);  /* just before full */
	assert_int_equal(td("adaptive", 1000, 1000, false, 0), 9); /* full: oversubscription */
	assert_int_equal(td("adaptive", 1000, 1000, true, 0), 16); /* after, p = 2 */
	assert_int_equal(td("adaptive", 1000, 1000, true, 2), 48); /* "evicted twice ... 48" */
	assert_int_equal(td("adaptive", 5, 0, false, 0), 1);       /* unlimited memory */
	/* the other policies */
	assert_int_equal(td("first-touch", 999, 1000, true, 3), 1);
	assert_int_equal(td("always", 1, 1000, false, 0), 8);
	assert_int_equal(td("always", 1000, 1000, true, 5), 8);
	assert_int_equal(td("oversub", 999, 1000, false, 0), 1);
	assert_int_equal(td("oversub", 1000, 1000, true, 5), 8);
	assert_false(uvm_migrate_find("first-touch")->delays);
	assert_true(uvm_migrate_find("adaptive")->delays);
	assert_null(uvm_migrate_find("bogus"));
}

#define BASE 0x40000000ull

/* extra: more "key=value" settings, NULL-terminated (NULL: none) */
static void setup_uvm_set(struct uvm *u, struct gpuvm_uvm_stats *st, const char *policy,
			  uint32_t advise, const char *const *extra)
{
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	char set[64];
	snprintf(set, sizeof set, "uvm.migration=%s", policy);
	assert_int_equal(gpuvm_config_load(&cfg, "gtx1080ti-uvmsmart", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, set, "t", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.prefetcher=none", "t", &err), 0);
	/* every remote read crosses the link unless a test asks for
	 * UVMSmart's TLB hits (test_remote_tlb_hits), whose entry serves from
	 * the read on (from its return: test_remote_tlb.c) */
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.remote_tlb_hits=link", "t", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.remote_tlb_fill=read", "t", &err), 0);
	/* the fault latency in the timing (the preset adds it post hoc), so
	 * that a mapping fault or a counter migration's wait shows in the
	 * times */
	if (advise || extra)
		assert_int_equal(gpuvm_config_set(&cfg, "uvm.fault_accounting=in_timing", "t", &err), 0);
	for (; extra && *extra; extra++)
		assert_int_equal(gpuvm_config_set(&cfg, *extra, "t", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	memset(st, 0, sizeof *st);
	assert_int_equal(uvm_init(u, &cfg, st, NULL), 0);
	assert_int_equal(uvm_add_alloc(u, "a", BASE, 4u << 20, advise), 0);
}

static void setup_uvm_advise(struct uvm *u, struct gpuvm_uvm_stats *st, const char *policy,
			     uint32_t advise)
{
	setup_uvm_set(u, st, policy, advise, NULL);
}

static void setup_uvm(struct uvm *u, struct gpuvm_uvm_stats *st, const char *policy)
{
	setup_uvm_set(u, st, policy, 0, NULL);
}

/* The link-utilisation series belong to the stats (the engine frees them
 * with its result); a test that owns the stats frees them itself. */
static void free_uvm(struct uvm *u, struct gpuvm_uvm_stats *st)
{
	uvm_free(u);
	free(st->allocs);
	st->allocs = NULL;
	free(st->util_h2d_busy_cycles);
	free(st->util_d2h_busy_cycles);
	st->util_h2d_busy_cycles = st->util_d2h_busy_cycles = NULL;
}

static void test_read_remote_write_migrates(void **state)
{
	(void)state;
	struct uvm u;
	struct gpuvm_uvm_stats st;
	setup_uvm(&u, &st, "always");
	uint64_t fill = 0;
	bool remote = false;
	/* a read of a cold page: mapped remotely, served over PCIe, no fault */
	double t = translate_fill(&u, 0, BASE, 1000, &fill);
	assert_true(t == 1000);
	assert_int_equal(fill, UVM_PAGE_BYTES);
	double d = uvm_access_counted(&u, 0, BASE, false, true, t, &remote);
	assert_true(remote);
	assert_true(d >= t + 200); /* Table I: 200 cycles on top of the link */
	assert_int_equal(st.far_faults, 0);
	assert_int_equal(st.remote_accesses, 1);
	assert_int_equal(st.delayed_migrations, 1);
	assert_int_equal(u.sp.resident_pages, 0);
	/* a write to a cold page of another 64 KB block migrates at once */
	uint64_t wa = BASE + (64u << 10);
	remote = false;
	translate_fill(&u, 0, wa, 2000, &fill);
	uvm_access_counted(&u, 0, wa, true, false, 2000, &remote);
	assert_false(remote);
	assert_int_equal(st.far_faults, 1);
	assert_int_equal(st.migrations_fault, 1);
	assert_int_equal(u.sp.resident_pages, 1);
	/* reads of the first block: the 8th access reaches t_s = 8 and migrates */
	for (int i = 2; i <= 8; i++) {
		remote = false;
		uvm_access_counted(&u, 0, BASE, false, true, 3000.0 + i, &remote);
		assert_int_equal(remote, i < 8);
	}
	assert_int_equal(st.remote_accesses, 7);
	assert_int_equal(st.migrations_counter, 1);
	assert_int_equal(st.far_faults, 2);
	/* one count per coalesced access: the sectors of one 128 B line read
	 * at one time count once, another line or time once more */
	uint64_t c2 = BASE + (128u << 10); /* 64 KB block 2 */
	uvm_access_counted(&u, 0, c2, false, true, 5000, &remote);
	uvm_access_counted(&u, 0, c2 + 32, false, true, 5000, &remote);
	uvm_access_counted(&u, 0, c2 + 96, false, true, 5000, &remote);
	assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[2]), 1);
	uvm_access_counted(&u, 0, c2 + 128, false, true, 5000, &remote);
	uvm_access_counted(&u, 0, c2 + 128, false, true, 5001, &remote);
	assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[2]), 3);
	assert_int_equal(st.remote_accesses, 12); /* every sector crosses the link */
	/* an atomic (a write that may stay, as UVMSmart decodes it) on a cold
	 * block is performed remotely */
	remote = false;
	uvm_access_counted(&u, 0, BASE + (256u << 10), true, true, 6000, &remote);
	assert_true(remote);
	assert_int_equal(st.far_faults, 2);
	free_uvm(&u, &st);

	/* first-touch: the walk of a read faults the page in */
	setup_uvm(&u, &st, "first-touch");
	assert_true(translate_fill(&u, 0, BASE, 1000, &fill) > 1000);
	assert_int_equal(st.far_faults, 1);
	remote = false;
	uvm_access_counted(&u, 0, BASE, false, true, 1e9, &remote);
	assert_false(remote);
	assert_int_equal(st.remote_accesses, 0);
	free_uvm(&u, &st);

	/* adaptive with nothing allocated: t_d = 1, a read migrates like first touch */
	setup_uvm(&u, &st, "adaptive");
	assert_true(translate_fill(&u, 0, BASE, 1000, &fill) > 1000);
	assert_int_equal(st.far_faults, 1);
	free_uvm(&u, &st);
}

/* uvm.remote_tlb_hits = local (UVMSmart, remote_tlb.h): a read below
 * t_s is remote and fills the SM's TLB; that SM's later accesses of the
 * page hit it and read device memory (no link, no fault, whatever the
 * count), until its next walk of the page decides again; another SM's
 * walk with the count at t_s faults the page in. */
static void test_remote_tlb_hits(void **state)
{
	(void)state;
	struct uvm u;
	struct gpuvm_uvm_stats st;
	const char *const extra[] = {"uvm.remote_tlb_hits=local", NULL};
	setup_uvm_set(&u, &st, "always", 0, extra);
	uint64_t fill = 0;
	bool remote = false;
	/* SM 0's first read of a cold page: its walk maps it remotely, the
	 * read crosses the link (UVMSmart's DMA) */
	assert_true(translate_fill(&u, 0, BASE, 1000, &fill) == 1000);
	double d = uvm_access_counted(&u, 0, BASE, false, true, 1000, &remote);
	assert_true(remote);
	assert_true(d >= 1000 + 200);
	assert_int_equal(st.remote_accesses, 1);
	/* SM 0's TLB hits: device memory at once, counted, never migrating,
	 * even past t_s = 8, and a store too */
	for (int i = 2; i <= 10; i++) {
		remote = false;
		d = uvm_access_counted(&u, 0, BASE + 256, false, true, 2000.0 + i, &remote);
		assert_false(remote);
		assert_true(d == 2000.0 + i);
	}
	remote = false;
	d = uvm_access_counted(&u, 0, BASE + 512, true, false, 3000, &remote);
	assert_false(remote);
	assert_true(d == 3000);
	assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[0]), 11);
	assert_int_equal(st.remote_accesses, 1);
	assert_int_equal(st.far_faults, 0);
	assert_int_equal(u.sp.resident_pages, 0);
	/* SM 1's walk, the count past t_s: the page faults in (a counter
	 * migration), as should_cause_page_migration decides on a TLB miss */
	assert_true(translate_fill(&u, 1, BASE, 4000, &fill) > 4000);
	assert_int_equal(st.far_faults, 1);
	assert_int_equal(st.migrations_counter, 1);
	assert_int_equal(u.sp.resident_pages, 1);
	/* a walk forgets the SM's entry: SM 0 reads a page of another 64 KB
	 * block remotely, walks it again (its TLB lost it) and the next read
	 * below t_s crosses the link again */
	uint64_t c2 = BASE + (128u << 10);
	assert_true(translate_fill(&u, 0, c2, 5000, &fill) == 5000);
	remote = false;
	uvm_access_counted(&u, 0, c2, false, true, 5000, &remote);
	assert_true(remote);
	remote = false;
	uvm_access_counted(&u, 0, c2 + 128, false, true, 5001, &remote);
	assert_false(remote);
	assert_true(translate_fill(&u, 0, c2, 6000, &fill) == 6000);
	remote = false;
	uvm_access_counted(&u, 0, c2, false, true, 6000, &remote);
	assert_true(remote);
	assert_int_equal(st.remote_accesses, 3);
	free_uvm(&u, &st);
}

/* uvm.remote_read_hold_cycles (UVMSmart's one PCIe read slot, gpu-sim.cc
 * get_ready_cycle_dma): each remote read holds the host-to-device lane
 * 200 cycles, one coalesced access at a time, so four reads of four lines
 * at one time end 200 cycles apart; the other sectors of a line read at
 * that time share its hold; a migration booked after them waits for the
 * lane. Without the hold (0: the sector's bytes at the link's rate) the
 * same four are back within the 200-cycle latency of one another. */
static void test_remote_read_hold(void **state)
{
	(void)state;
	struct uvm u;
	struct gpuvm_uvm_stats st;
	const char *const held[] = {"uvm.remote_read_hold_cycles=200", "uvm.remote_latency_cycles=0",
				    NULL};
	setup_uvm_set(&u, &st, "always", 0, held);
	bool remote = false;
	double d[4];
	for (uint32_t k = 0; k < 4; k++) {
		/* page k of the first 64 KB block, SM k: counts 1..4, below t_s */
		d[k] = uvm_access_counted(&u, k, BASE + ((uint64_t)k << 12), false, true, 1000, &remote);
		assert_true(remote);
		assert_true(d[k] == 1000 + 200.0 * (k + 1));
		/* the line's second sector, read by the same instruction: no
		 * hold of its own */
		assert_true(uvm_access_counted(&u, k, BASE + ((uint64_t)k << 12) + 32, false, true, 1000,
					       &remote) == d[k]);
	}
	assert_int_equal(st.remote_accesses, 8);
	/* a write to another 64 KB block migrates its page after the reads */
	uint64_t wa = BASE + (64u << 10);
	double w = uvm_access_counted(&u, 5, wa, true, false, 1000, &remote);
	assert_true(w >= d[3] + uvm_copy_cycles(&u, UVM_PAGE_BYTES));
	free_uvm(&u, &st);

	const char *const bytes[] = {"uvm.remote_read_hold_cycles=0", "uvm.remote_latency_cycles=200",
				     NULL};
	setup_uvm_set(&u, &st, "always", 0, bytes);
	for (uint32_t k = 0; k < 4; k++) {
		d[k] = uvm_access_counted(&u, k, BASE + ((uint64_t)k << 12), false, true, 1000, &remote);
		assert_true(d[k] >= 1200);
	}
	assert_true(d[3] - d[0] < 100); /* a sector's bytes: tens of cycles each (about 15) */
	free_uvm(&u, &st);
}

/* uvm.counter_migration: async, the read that brings its block to t_s is
 * served remotely and the counter's notification migrates the page on the
 * driver's access-counter bottom half, accesses going on remotely until it
 * has arrived (nvidia-uvm: notifications are serviced apart from faults);
 * fault, that read raises a far fault and waits for the page (UVMSmart's
 * should_cause_page_migration). Both sides: the times, the remote flags,
 * the fault and notice counts. */
static void counter_run(struct uvm *u, struct gpuvm_uvm_stats *st, const char *mode)
{
	char set[64];
	snprintf(set, sizeof set, "uvm.counter_migration=%s", mode);
	const char *const extra[] = {set, NULL};
	setup_uvm_set(u, st, "always", 0, extra);
	uint64_t fill = 0;
	bool remote = false;
	for (int i = 1; i < 8; i++) { /* seven reads below t_s = 8: remote */
		assert_true(translate_fill(u, 0, BASE, 1000.0 + i, &fill) == 1000.0 + i);
		uvm_access_counted(u, 0, BASE, false, true, 1000.0 + i, &remote);
		assert_true(remote);
	}
	assert_int_equal(st->far_faults, 0);
}

static void test_counter_notice(void **state)
{
	(void)state;
	struct uvm u;
	struct gpuvm_uvm_stats st;
	uint64_t fill = 0;
	bool remote = false;
	counter_run(&u, &st, "async");
	double latency = u.spec.fault_latency_cycles; /* 45 us: 66,645 cycles */
	/* the eighth read: remote, not waiting, and a notice, not a fault */
	assert_true(translate_fill(&u, 0, BASE, 2000, &fill) == 2000);
	assert_int_equal(fill, UVM_PAGE_BYTES);
	double d = uvm_access_counted(&u, 0, BASE, false, true, 2000, &remote);
	assert_true(remote);
	assert_true(d < 2000 + 2000);
	assert_int_equal(st.far_faults, 0);
	assert_int_equal(st.migrations_counter, 1);
	assert_int_equal(st.counter_notices, 1);
	assert_int_equal(st.notice_batches, 1);
	assert_int_equal(u.sp.resident_pages, 1);
	struct uvm_block *b = u.sp.blocks[0];
	double arrive = b->arrive[0];
	assert_true(arrive >= 2000 + latency); /* the bottom half's service, then the copy */
	/* on its way: the walk and a read stay remote, without waiting */
	assert_true(translate_fill(&u, 1, BASE + 64, 3000, &fill) == 3000);
	assert_int_equal(fill, UVM_PAGE_BYTES);
	remote = false;
	d = uvm_access_counted(&u, 1, BASE + 64, false, true, 3000, &remote);
	assert_true(remote);
	assert_true(d < 3000 + 2000);
	assert_int_equal(st.counter_notices, 1); /* one notice per migration */
	/* a write meanwhile waits for the page */
	remote = false;
	d = uvm_access_counted(&u, 1, BASE + 128, true, false, 3000, &remote);
	assert_false(remote);
	assert_true(d >= arrive);
	/* once it has arrived, reads are local */
	remote = false;
	uvm_access_counted(&u, 0, BASE, false, true, arrive + 1, &remote);
	assert_false(remote);
	assert_true(translate_fill(&u, 0, BASE, arrive + 2, &fill) == arrive + 2);
	assert_int_equal(st.far_faults, 0);
	free_uvm(&u, &st);

	/* the pages a notice's prefetch moves with it: one read remotely
	 * before stays remote on its way, one never mapped waits for it
	 * (next-n: the next 64 KB block comes along) */
	const char *const next_n[] = {"uvm.counter_migration=async", "uvm.prefetcher=next-n", NULL};
	setup_uvm_set(&u, &st, "always", 0, next_n);
	uint64_t q = BASE + (64u << 10), q2 = q + 4096;
	translate_fill(&u, 0, q, 500, &fill);
	uvm_access_counted(&u, 0, q, false, true, 500, &remote);
	for (int i = 1; i <= 8; i++) {
		translate_fill(&u, 0, BASE, 1000.0 + i, &fill);
		remote = false;
		uvm_access_counted(&u, 0, BASE, false, true, 1000.0 + i, &remote);
		assert_true(remote);
	}
	assert_int_equal(st.counter_notices, 1);
	assert_int_equal(u.sp.resident_pages, 1 + 16);
	remote = false;
	d = uvm_access_counted(&u, 0, q, false, true, 3000, &remote);
	assert_true(remote);
	assert_true(d < 3000 + 2000);
	remote = false;
	d = uvm_access_counted(&u, 0, q2, false, true, 3000, &remote);
	assert_false(remote);
	assert_true(d >= u.sp.blocks[0]->arrive[q2 >> 12 & 511]);
	assert_true(d >= 3000 + 2000);
	free_uvm(&u, &st);

	counter_run(&u, &st, "fault");
	/* the eighth read faults, and the access waits for the page */
	double t = translate_fill(&u, 0, BASE, 2000, &fill);
	assert_true(t >= 2000 + latency);
	remote = false;
	d = uvm_access_counted(&u, 0, BASE, false, true, t, &remote);
	assert_false(remote);
	assert_true(d >= 2000 + latency);
	assert_int_equal(st.far_faults, 1);
	assert_int_equal(st.migrations_counter, 1);
	assert_int_equal(st.counter_notices, 0);
	assert_int_equal(st.notice_batches, 0);
	free_uvm(&u, &st);
}

/* cudaDeviceSynchronize under uvm.device_sync = writeback (UVMSmart
 * cuda_runtime_api.cc l.2019-2078): dirty pages written back over the
 * link and invalidated, clean ones kept, every counter and the
 * oversubscription state cleared; under keep nothing moves. */
static void test_device_sync(void **state)
{
	(void)state;
	struct uvm u;
	struct gpuvm_uvm_stats st;
	uint64_t fill = 0;
	bool remote = false;
	for (int keep = 0; keep <= 1; keep++) {
		setup_uvm(&u, &st, "always");
		if (keep)
			u.sync_writeback = false;
		/* a written page of 64 KB block 0, a page of block 1 migrated
		 * clean by its counter (t_s = 8 reads) */
		translate_fill(&u, 0, BASE, 1000, &fill);
		uvm_access_counted(&u, 0, BASE, true, false, 1000, &remote);
		uint64_t rb = BASE + (64u << 10);
		for (int i = 1; i <= 8; i++)
			uvm_access_counted(&u, 0, rb, false, true, 2000.0 + i, &remote);
		assert_int_equal(u.sp.resident_pages, 2);
		assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[1]), 8);
		u.evicting = true;
		double t = uvm_device_sync(&u, 1e6);
		assert_int_equal(st.device_syncs, 1);
		assert_int_equal(st.pages_evicted, 0); /* not an eviction */
		if (keep) {
			assert_true(t == 1e6);
			assert_int_equal(st.sync_writeback_pages, 0);
			assert_int_equal(u.sp.resident_pages, 2);
			assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[1]), 8);
			assert_true(u.evicting);
		} else {
			assert_true(t > 1e6); /* the dirty page crossed the link */
			assert_int_equal(st.sync_writeback_pages, 1);
			assert_int_equal(st.pages_d2h, 1);
			assert_int_equal(u.sp.resident_pages, 1); /* the clean page stays */
			assert_false(mask_test(u.sp.blocks[0]->resident, 0));
			assert_true(mask_test(u.sp.blocks[0]->resident, UVM_CHUNK_PAGES));
			assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[0]), 0);
			assert_int_equal(uvm_ac_count(u.sp.blocks[0]->ac[1]), 0);
			assert_false(u.evicting);
			/* cold again: the next read of the written page is remote */
			remote = false;
			uvm_access_counted(&u, 0, BASE, false, true, 2e6, &remote);
			assert_true(remote);
		}
		free_uvm(&u, &st);
	}
}

/* The decisions an observer is told, summed. */
struct seen {
	uint64_t events[GPUVM_UVM_DECISIONS], bytes[GPUVM_UVM_DECISIONS];
};

static void see(void *ctx, uint64_t addr, uint64_t bytes, enum gpuvm_uvm_decision d)
{
	struct seen *s = ctx;
	(void)addr;
	s->events[d]++;
	s->bytes[d] += bytes;
}

/* Per-allocation accounting (seeds/004 III-B's hot and cold data
 * structures): a densely read allocation (8 counts per 64 KB block) is
 * hot, a sparsely touched one (1 per block) cold against the run's mean
 * (132 / 20 = 6.6); each decision is counted at the allocation holding its page, the
 * counts add up to the run's, and the observer hears each one. */
static void test_alloc_classes(void **state)
{
	(void)state;
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&cfg, "gtx1080ti-uvmsmart", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.migration=always", "t", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.prefetcher=none", "t", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	struct seen seen = {0};
	struct uvm_hooks hooks = {.observer = {.decision = see, .ctx = &seen}};
	struct uvm u;
	struct gpuvm_uvm_stats st = {0};
	assert_int_equal(uvm_init(&u, &cfg, &st, &hooks), 0);
	const uint64_t hot = BASE, cold = BASE + (1u << 20);
	assert_int_equal(uvm_add_alloc(&u, "dense", hot, 1u << 20, 0), 0);
	assert_int_equal(uvm_add_alloc(&u, "sparse", cold, 1u << 20, 0), 0);
	uint64_t fill;
	bool remote;
	/* every 64 KB block of "dense" read 8 times: 7 remote reads, then
	 * the counter migrates the page (t_s = 8) */
	for (uint32_t ch = 0; ch < 16; ch++)
		for (int i = 0; i < 8; i++) {
			uint64_t a = hot + ((uint64_t)ch << 16);
			double t = 1000.0 * (ch * 8 + i + 1);
			translate_fill(&u, 0, a, t, &fill);
			remote = false;
			uvm_access_counted(&u, 0, a, false, true, t, &remote);
			assert_int_equal(remote, i < 7);
		}
	/* "sparse": one read of each of three blocks, one write */
	for (uint32_t ch = 0; ch < 3; ch++) {
		uint64_t a = cold + ((uint64_t)ch << 16);
		translate_fill(&u, 0, a, 1e6 + ch, &fill);
		uvm_access_counted(&u, 0, a, false, true, 1e6 + ch, &remote);
	}
	translate_fill(&u, 0, cold + (8u << 16), 2e6, &fill);
	uvm_access_counted(&u, 0, cold + (8u << 16), true, false, 2e6, &remote);
	uvm_finish(&u);

	assert_int_equal(st.n_allocs, 2);
	const struct gpuvm_uvm_alloc_stats *d = &st.allocs[0], *s = &st.allocs[1];
	assert_string_equal(d->name, "dense");
	assert_int_equal(d->decisions[GPUVM_UVM_REMOTE], 16 * 7);
	assert_int_equal(d->decisions[GPUVM_UVM_MIGRATE_COUNTER], 16);
	assert_int_equal(d->decisions[GPUVM_UVM_MIGRATE_FAULT], 0);
	assert_int_equal(d->chunks_touched, 16);
	assert_int_equal(d->chunks_hot, 16);
	assert_int_equal(d->access_count, 16 * 8);
	assert_string_equal(gpuvm_uvm_alloc_class(d), "hot");
	assert_int_equal(s->decisions[GPUVM_UVM_REMOTE], 3);
	assert_int_equal(s->decisions[GPUVM_UVM_MIGRATE_FAULT], 1);
	assert_int_equal(s->decisions[GPUVM_UVM_MIGRATE_COUNTER], 0);
	assert_int_equal(s->chunks_touched, 4);
	assert_int_equal(s->chunks_hot, 0);
	assert_int_equal(s->access_count, 4);
	assert_string_equal(gpuvm_uvm_alloc_class(s), "cold");
	/* the parts add up to the run's counts, and the observer heard each */
	assert_int_equal(d->decisions[GPUVM_UVM_REMOTE] + s->decisions[GPUVM_UVM_REMOTE],
			 st.remote_accesses);
	assert_int_equal(d->decisions[GPUVM_UVM_MIGRATE_COUNTER], st.migrations_counter);
	assert_int_equal(s->decisions[GPUVM_UVM_MIGRATE_FAULT], st.migrations_fault);
	assert_int_equal(seen.events[GPUVM_UVM_REMOTE], st.remote_accesses);
	assert_int_equal(seen.bytes[GPUVM_UVM_REMOTE], st.remote_bytes);
	assert_int_equal(seen.events[GPUVM_UVM_MIGRATE_COUNTER], 16);
	assert_int_equal(seen.bytes[GPUVM_UVM_MIGRATE_FAULT], UVM_PAGE_BYTES);
	assert_int_equal(seen.events[GPUVM_UVM_PREFETCH], 0); /* prefetcher none */
	free_uvm(&u, &st);

	/* without counters (first-touch, LRU) there is no class */
	setup_uvm(&u, &st, "first-touch");
	translate_fill(&u, 0, BASE, 1000, &fill);
	uvm_finish(&u);
	assert_int_equal(st.allocs[0].decisions[GPUVM_UVM_MIGRATE_FAULT], 1);
	assert_string_equal(gpuvm_uvm_alloc_class(&st.allocs[0]), "unclassified");
	free_uvm(&u, &st);
}

/* cudaMemAdvise: preferred location host maps a page remotely after one
 * far fault and never migrates it, reads and writes alike; accessed-by
 * GPU serves it remotely without a fault, and under a policy that delays
 * migrates it once the counter reaches t_s; hints apply per allocation. */
static void test_advise_hints(void **state)
{
	(void)state;
	struct uvm u;
	struct gpuvm_uvm_stats st;
	uint64_t fill = 0;
	bool remote = false;

	setup_uvm_advise(&u, &st, "first-touch", UVM_ADVISE_HOST);
	assert_true(uvm_counts(&u));
	double t = translate_fill(&u, 0, BASE, 1000, &fill);
	assert_true(t > 1000); /* the mapping fault */
	assert_int_equal(fill, UVM_PAGE_BYTES);
	assert_int_equal(st.far_faults, 1);
	assert_int_equal(st.remote_map_faults, 1);
	assert_int_equal(st.migrations_fault, 0);
	/* a second walk during the fault waits for the same mapping, after it none */
	assert_true(translate_fill(&u, 1, BASE + 64, 1001, &fill) == t);
	assert_true(translate_fill(&u, 1, BASE + 64, t + 5, &fill) == t + 5);
	assert_int_equal(st.far_faults, 1);
	double d = uvm_access_counted(&u, 0, BASE, false, true, t, &remote);
	assert_true(remote);
	assert_true(d >= t + 200);
	remote = false;
	uvm_access_counted(&u, 0, BASE + 128, true, false, t + 10, &remote); /* a store stays too */
	assert_true(remote);
	for (int i = 0; i < 100; i++)
		uvm_access_counted(&u, 0, BASE + 256 * (uint64_t)i % 4096, false, true, t + 20 + i, &remote);
	assert_int_equal(u.sp.resident_pages, 0);
	assert_int_equal(st.pages_h2d, 0);
	assert_int_equal(st.remote_accesses, 102);
	free_uvm(&u, &st);

	setup_uvm_advise(&u, &st, "first-touch", UVM_ADVISE_ACCESSED_BY);
	assert_true(translate_fill(&u, 0, BASE, 1000, &fill) == 1000); /* mapped already: no fault */
	remote = false;
	uvm_access_counted(&u, 0, BASE, true, false, 1000, &remote);
	assert_true(remote);
	assert_int_equal(st.far_faults, 0);
	free_uvm(&u, &st);

	/* accessed-by under always (t_s = 8): remote until the 8th access */
	setup_uvm_advise(&u, &st, "always", UVM_ADVISE_ACCESSED_BY);
	for (int i = 1; i <= 8; i++) {
		remote = false;
		translate_fill(&u, 0, BASE, 1000.0 + i, &fill);
		uvm_access_counted(&u, 0, BASE, i == 3, i != 3, 1000.0 + i, &remote);
		assert_int_equal(remote, i < 8); /* the 3rd is a store: still remote */
	}
	assert_int_equal(st.migrations_counter, 1);
	assert_int_equal(u.sp.resident_pages, 1);
	free_uvm(&u, &st);

	/* a hint on one of two allocations sharing a 2 MB block */
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&cfg, "gtx1080ti-uvmsmart", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "uvm.prefetcher=none", "t", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	memset(&st, 0, sizeof st);
	assert_int_equal(uvm_init(&u, &cfg, &st, NULL), 0);
	assert_int_equal(uvm_add_alloc(&u, "a", BASE, 1u << 20, 0), 0);
	assert_int_equal(uvm_add_alloc(&u, "b", BASE + (1u << 20), 1u << 20, UVM_ADVISE_ACCESSED_BY), 0);
	remote = false;
	translate_fill(&u, 0, BASE + (1u << 20), 1000, &fill);
	uvm_access_counted(&u, 0, BASE + (1u << 20), false, true, 1000, &remote);
	assert_true(remote);
	remote = false;
	translate_fill(&u, 0, BASE, 2000, &fill);
	uvm_access_counted(&u, 0, BASE, false, true, 2000, &remote);
	assert_false(remote);
	assert_int_equal(st.far_faults, 1);
	assert_int_equal(u.sp.resident_pages, 1);
	free_uvm(&u, &st);
}

static void test_lfu_cold_over_hot(void **state)
{
	(void)state;
	const struct uvm_evict_ops *e = uvm_evict_find("lfu-ac");
	assert_non_null(e);
	assert_true(e->uses_access_counters);
	struct fake f;
	fake_init(&f, 3);
	void *s = NULL;
	assert_int_equal(e->create(&s), 0);
	uvm_mask all;
	memset(all, 0xff, sizeof all);
	for (uint32_t i = 0; i < 3; i++) {
		memset(f.blk[i].resident, 0xff, sizeof f.blk[i].resident);
		f.blk[i].resident_count = UVM_BLOCK_PAGES;
		f.sp.resident_pages += UVM_BLOCK_PAGES;
		assert_int_equal(e->on_fill(s, &f.sp, &f.blk[i], all), 0);
	}
	/* block 0 is the least recently used but hot; block 1 is cold (no
	 * 64 KB block of it counted t_s = 8) */
	f.sp.ac_hot = 8;
	f.ac[0][0] = 500;
	f.ac[1][3] = 7;
	f.ac[2][7] = 300;
	e->on_access(s, &f.blk[1], 0);
	e->on_access(s, &f.blk[2], 0);
	uvm_mask m = {0};
	assert_ptr_equal(e->pick(s, &f.sp, m), &f.blk[1]); /* cold over hot, though more recent */
	assert_int_equal(mask_count(m), UVM_BLOCK_PAGES);  /* the whole 2 MB */
	f.ac[1][3] = 8; /* t_s reached: hot, and all hot is LRU */
	assert_ptr_equal(e->pick(s, &f.sp, m), &f.blk[0]);
	/* all cold: read-only first, then least recently used */
	f.ac[0][0] = f.ac[1][3] = f.ac[2][7] = 3;
	assert_int_equal(e->on_write(s, &f.blk[1], 0), 0);
	assert_ptr_equal(e->pick(s, &f.sp, m), &f.blk[0]);
	assert_int_equal(e->on_write(s, &f.blk[0], 0), 0);
	assert_ptr_equal(e->pick(s, &f.sp, m), &f.blk[2]);
	assert_int_equal(e->on_write(s, &f.blk[2], 0), 0);
	assert_ptr_equal(e->pick(s, &f.sp, m), &f.blk[0]); /* LRU */
	/* all hot: read-only does not matter (nw's read-only reference
	 * matrix, read by every kernel, would go first), LRU. A fresh state
	 * in which only block 0, the least recently used, was written (the
	 * written flags are the policy's own and never cleared). */
	e->destroy(s);
	assert_int_equal(e->create(&s), 0);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(e->on_fill(s, &f.sp, &f.blk[i], all), 0);
	e->on_access(s, &f.blk[1], 0);
	e->on_access(s, &f.blk[2], 0);
	assert_int_equal(e->on_write(s, &f.blk[0], 0), 0);
	f.ac[0][0] = f.ac[1][3] = f.ac[2][7] = 100;
	assert_ptr_equal(e->pick(s, &f.sp, m), &f.blk[0]);
	/* the block a fault is filling is kept */
	f.sp.filling = &f.blk[0];
	assert_ptr_equal(e->pick(s, &f.sp, m), &f.blk[1]);
	e->destroy(s);
}

static void test_thrashing_detection(void **state)
{
	(void)state;
	struct uvm_thrash t;
	/* the module keeps its state in the blocks' slots (uvm_page.h) */
	static struct uvm_block blk[2];
	struct gpuvm_uvm_stats st = {0};
	assert_int_equal(uvm_thrash_init(&t, 1e9, &st, NULL), 0); /* 1 GHz: lapse = 500,000 cycles */
	uvm_mask m = {0};
	mask_set(m, 9);
	double until = 0;
	/* one GPU: every event goes to the GPU; tracking never starts */
	for (int i = 0; i < 10; i++)
		assert_int_equal(uvm_thrash_event(&t, &blk[0], m, 1, 1000.0 * i), 0);
	assert_int_equal(st.thrash_events, 10);
	assert_int_equal(st.thrashing_pages, 0);
	assert_int_equal(uvm_thrash_hint(&t, &blk[0], 9, 20000, &until), UVM_THRASH_NONE);
	/* two processors within a lapse: tracking; the 3rd page event thrashes */
	uvm_thrash_event(&t, &blk[1], m, 0, 0);
	uvm_thrash_event(&t, &blk[1], m, 1, 1000); /* starts tracking: page count 1 */
	uvm_thrash_event(&t, &blk[1], m, 0, 2000); /* 2 */
	assert_int_equal(st.thrashing_pages, 0);
	uvm_thrash_event(&t, &blk[1], m, 1, 3000); /* 3: thrashing */
	assert_int_equal(st.thrashing_pages, 1);
	/* throttle: a nap of one lapse, ten times, then the page is pinned */
	for (uint32_t i = 0; i < t.pin_threshold; i++) {
		assert_int_equal(uvm_thrash_hint(&t, &blk[1], 9, 4000, &until), UVM_THRASH_THROTTLE);
		assert_true(until == 4000 + 500000);
	}
	assert_int_equal(uvm_thrash_hint(&t, &blk[1], 9, 5000, &until), UVM_THRASH_PIN);
	assert_true(uvm_thrash_pinned(&t, &blk[1], 9, 6000));
	assert_false(uvm_thrash_pinned(&t, &blk[1], 9, 5000 + 300 * 500000.0 + 1)); /* pin = 300 lapses */
	assert_false(uvm_thrash_pinned(&t, &blk[1], 10, 6000));
	/* events further apart than a lapse do not count */
	uvm_mask m2 = {0};
	mask_set(m2, 20);
	uvm_thrash_event(&t, &blk[1], m2, 0, 1e6);
	uvm_thrash_event(&t, &blk[1], m2, 0, 2e6);
	uvm_thrash_event(&t, &blk[1], m2, 0, 3e6);
	assert_int_equal(st.thrashing_pages, 1);
	uvm_thrash_free(&t);
}

/* An evicted page still on its way is written back only after it lands
 * (evict_pages reads the arrival times when the block's arrive_max says
 * a page may be in flight). One frame: the second page's fault evicts
 * the first while it is still crossing the link. */
static void test_evict_waits_for_arrival(void **state)
{
	(void)state;
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&cfg, "gtx1080ti-uvmsmart", &err), 0);
	const char *sets[] = {"uvm.prefetcher=none", "uvm.eviction=lru-4kb", "uvm.writeback=all",
			      "uvm.free_buffer_percent=0", "uvm.device_memory=4KiB"};
	for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
		assert_int_equal(gpuvm_config_set(&cfg, sets[i], "t", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	struct uvm u;
	struct gpuvm_uvm_stats st = {0};
	assert_int_equal(uvm_init(&u, &cfg, &st, NULL), 0);
	assert_int_equal(uvm_add_alloc(&u, "a", BASE, 1u << 20, 0), 0);
	uint64_t fill;
	double a = translate_fill(&u, 0, BASE, 1000, &fill);
	assert_true(a > 1001);
	translate_fill(&u, 1, BASE + 4096, 1001, &fill);
	assert_int_equal(st.pages_evicted, 1);
	assert_int_equal(u.d2h->n, 1);
	assert_true(u.d2h->iv[0].s >= a); /* not at 1001 */
	free_uvm(&u, &st);
}

/* The spec is sealed at init (core/spec_seal.h): faults, migrations,
 * evictions and the switch to the oversubscription prefetcher (state:
 * the prefetcher in use) leave it intact, and a write planted in a field
 * of each kind is seen. */
static void test_spec_sealed_at_init(void **state)
{
	(void)state;
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&cfg, "gtx1080ti-uvmsmart", &err), 0);
	const char *sets[] = {"uvm.prefetcher=none", "uvm.prefetcher_oversub=tree-uvmsmart",
			      "uvm.device_memory=256KiB"};
	for (size_t i = 0; i < sizeof sets / sizeof *sets; i++)
		assert_int_equal(gpuvm_config_set(&cfg, sets[i], "t", &err), 0);
	if (gpuvm_config_finalize(&cfg, &err))
		fail_msg("%s", err.msg);
	struct uvm u;
	struct gpuvm_uvm_stats st = {0};
	assert_int_equal(uvm_init(&u, &cfg, &st, NULL), 0);
	assert_int_equal(uvm_add_alloc(&u, "a", BASE, 4u << 20, 0), 0);
	uint64_t fill;
	double t = 1000;
	for (uint32_t i = 0; i < 256; i++)
		t = translate_fill(&u, i % 4, BASE + (uint64_t)i * 16384, t + 1, &fill);
	assert_true(st.pages_evicted > 0);
	assert_true(st.prefetcher_switched);
	assert_true(uvm_spec_intact(&u));
	struct uvm_spec kept;
	memcpy(&kept, &u.spec, sizeof kept);
	for (int field = 0; field < 6; field++) {
		switch (field) {
		case 0: u.spec.device_bytes += 4096; break;
		case 1: u.spec.blocking = !u.spec.blocking; break;
		case 2: u.spec.sms++; break;
		case 3: u.spec.prefetch_oversub_params[GPUVM_MODULE_PARAMS_EACH - 1] += 1; break;
		case 4: u.spec.prefetch_oversub = NULL; break;
		default: u.spec.fault_latency_cycles *= 2; break;
		}
		assert_false(uvm_spec_intact(&u));
		memcpy(&u.spec, &kept, sizeof kept);
		assert_true(uvm_spec_intact(&u));
	}
	free_uvm(&u, &st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_updates),     cmocka_unit_test(test_halving),
		cmocka_unit_test(test_threshold_formula),   cmocka_unit_test(test_read_remote_write_migrates),
		cmocka_unit_test(test_counter_notice),      cmocka_unit_test(test_remote_tlb_hits),
		cmocka_unit_test(test_remote_read_hold),
		cmocka_unit_test(test_lfu_cold_over_hot),   cmocka_unit_test(test_advise_hints),   cmocka_unit_test(test_thrashing_detection),
		cmocka_unit_test(test_alloc_classes),       cmocka_unit_test(test_device_sync),
		cmocka_unit_test(test_evict_waits_for_arrival),
		cmocka_unit_test(test_spec_sealed_at_init),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
