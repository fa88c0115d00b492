/* DRAM timing model: streams reach near the bus peak with row hits, random
 * 32 B sectors are bank bound far below it, an isolated access costs
 * exactly activate + CAS + burst + latency, strides spread over the
 * channels, and handling order does not change throughput. HBM-like P100
 * parameters (Accel-Sim SM6_P100 gpgpusim.config: 32 channels x 16 B, 16 banks, RCD = RP
 * = CL = 10 command cycles at 715 MHz, 732 GB/s), SM clock 1480 MHz. */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/splitmix.h"
#include "mem/dram_access.h"
#include "mem/dram_model.h"

#define SM_MHZ 1480.0
#define P100_TIMING "16:1:3:10:24:10:34:10:2:3:9:4:2:3"
#define LATENCY 200.0

static struct dram_model_config p100_config(void)
{
	struct dram_model_config c = {0};
	c.channels = 32;
	c.banks = 16;
	c.row_bytes = 1024;
	c.sector_bytes = 32;
	c.interleave_bytes = 256;
	assert_int_equal(dram_timing_from_accelsim(P100_TIMING, 715, SM_MHZ, &c.t_rcd_cycles,
						   &c.t_rp_cycles, &c.t_cas_cycles),
			 0);
	c.cycles_per_sector_per_channel =
		dram_cycles_per_sector_per_channel(32, SM_MHZ * 1e6, 732e9, c.channels);
	c.latency_cycles = LATENCY;
	return c;
}

/* (cmocka here predates assert_double_equal) */
#define assert_near(a, b, eps) near_or_fail((a), (b), (eps), __FILE__, __LINE__)

static void near_or_fail(double a, double b, double eps, const char *file, int line)
{
	if (!(fabs(a - b) <= eps)) {
		print_error("%s:%d: %.12g != %.12g (within %g)\n", file, line, a, b, eps);
		fail();
	}
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Fraction of the peak bandwidth n sectors achieved when the last one's
 * data is back at last_done and the first arrived at first_t. */
static double peak_fraction(const struct dram_model *m, uint64_t n, double first_t,
			    double last_done)
{
	double busy = last_done - m->spec.latency_cycles - first_t;
	return (double)n * m->spec.burst_cycles / m->spec.channels / busy;
}

/* A stream of `chunks` 256 B chunks read as runs of `run` sectors, all
 * at t = 0: the fraction of the peak it reaches. */
static double runs_peak_fraction(struct dram_model *m, uint64_t chunks, uint32_t run)
{
	double last = 0;
	for (uint64_t chunk = 0; chunk < chunks; chunk++) {
		double d = dram_model_read_run(m, chunk * 256, run, 0);
		last = d > last ? d : last;
	}
	return peak_fraction(m, m->sectors_read, 0, last);
}

static double hit_ratio(const struct dram_model *m)
{
	return (double)m->row_hits / (double)(m->row_hits + m->row_misses);
}

static void test_timing_conversion(void **state)
{
	(void)state;
	double rcd, rp, cas;
	assert_int_equal(dram_timing_from_accelsim(P100_TIMING, 715, SM_MHZ, &rcd, &rp, &cas), 0);
	assert_near(rcd, 10 * SM_MHZ / 715, 1e-9);
	assert_near(rp, 10 * SM_MHZ / 715, 1e-9);
	assert_near(cas, 10 * SM_MHZ / 715, 1e-9);
	/* the GDDR6 string with RP and CL changed, so the three fields differ */
	assert_int_equal(dram_timing_from_accelsim("16:4:12:24:55:23:78:21:8:10:24:4:6:4", 1000,
						   2000, &rcd, &rp, &cas),
			 0);
	assert_near(rcd, 48, 1e-9);
	assert_near(rp, 46, 1e-9);
	assert_near(cas, 42, 1e-9);
	/* exactly 8 fields is enough; fewer, junk or a zero clock is not */
	assert_int_equal(dram_timing_from_accelsim("16:1:3:10:24:10:34:10", 715, SM_MHZ, &rcd, &rp,
						   &cas),
			 0);
	assert_int_equal(dram_timing_from_accelsim("16:1:3:10:24:10:34", 715, SM_MHZ, &rcd, &rp,
						   &cas),
			 -1);
	assert_int_equal(dram_timing_from_accelsim("16:1:3:x:24:10:34:10", 715, SM_MHZ, &rcd, &rp,
						   &cas),
			 -1);
	assert_int_equal(dram_timing_from_accelsim(P100_TIMING, 0, SM_MHZ, &rcd, &rp, &cas), -1);
	/* 732 GB/s over 32 channels at 1480 MHz: 32 B take 2.07 cycles */
	assert_near(dram_cycles_per_sector_per_channel(32, 1480e6, 732e9, 32),
			    32 * 1480e6 / (732e9 / 32), 1e-12);
	assert_near(dram_command_to_sm_cycles(34, 850, 1530), 61.2, 1e-9);
}

static void test_bad_config_refused(void **state)
{
	(void)state;
	struct dram_model m;
	struct dram_model_config c = p100_config();
	c.row_bytes = 1000;
	assert_int_equal(dram_model_init(&m, &c), -1);
	c = p100_config();
	c.channels = 0;
	assert_int_equal(dram_model_init(&m, &c), -1);
	c = p100_config();
	c.cycles_per_sector_per_channel = 0;
	assert_int_equal(dram_model_init(&m, &c), -1);
	c = p100_config();
	c.t_rcd_cycles = -1;
	assert_int_equal(dram_model_init(&m, &c), -1);
}

/* The spec is sealed at init (core/spec_seal.h): reads and writes, which
 * change the state, leave it intact, and a write planted in a field of
 * each kind (count, timing, slot unit, stride, flag, drain constant) is
 * seen. */
static void test_spec_sealed_at_init(void **state)
{
	(void)state;
	struct dram_model m;
	struct dram_model_config c = p100_config();
	c.turnaround_cycles = 20;
	c.write_batch_sectors = 16;
	assert_int_equal(dram_model_init(&m, &c), 0);
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t a = splitmix64(i) % (1ull << 30) & ~31ull;
		if (i % 3)
			dram_model_read_run(&m, a, 1 + (uint32_t)(i % 4), (double)i * 3);
		else
			dram_model_write_run(&m, a, 1, (double)i * 3);
	}
	assert_true(dram_model_spec_intact(&m));
	struct dram_model_spec kept;
	memcpy(&kept, &m.spec, sizeof kept);
	for (int field = 0; field < 6; field++) {
		memcpy(&m.spec, &kept, sizeof kept);
		assert_true(dram_model_spec_intact(&m));
		switch (field) {
		case 0: m.spec.channels++; break;
		case 1: m.spec.burst_cycles *= 2; break;
		case 2: m.spec.hit_hold++; break;
		case 3: m.spec.bank_stride += 64; break;
		case 4: m.spec.chunk_locates = !m.spec.chunk_locates; break;
		default: m.spec.turn_bursts += 1; break;
		}
		assert_false(dram_model_spec_intact(&m));
	}
	memcpy(&m.spec, &kept, sizeof kept); /* a checking build's free checks it */
	dram_model_free(&m);
}

/* 1. A sequential stream all at t = 0: bus bound, rows hit. */
static void test_sequential_stream_near_peak(void **state)
{
	(void)state;
	struct dram_model m;
	struct dram_model_config c = p100_config();
	assert_int_equal(dram_model_init(&m, &c), 0);
	const uint64_t n = 1u << 20; /* 32 MiB */
	double last = 0;
	for (uint64_t i = 0; i < n; i++) {
		double done = dram_model_read(&m, i * 32, 0);
		if (done > last)
			last = done;
	}
	double frac = peak_fraction(&m, n, 0, last);
	printf("sequential: %.4f %% of peak, row hits %.3f\n", 100 * frac, hit_ratio(&m));
	/* the bus is the only limit, and the calendar gives exactly its
	 * capacity: 1.0 up to rounding */
	assert_true(frac >= 0.85 && frac <= 1.0 + 1e-9);
	assert_true(hit_ratio(&m) > 0.9);
	assert_true(m.sectors_read == n && m.sectors_written == 0);
	dram_model_free(&m);
}

/* 2. Random 32 B sectors over 1 GiB all at t = 0: every one opens a row,
 * so banks, not the bus, set the pace. */
static void test_random_sectors_bank_bound(void **state)
{
	(void)state;
	struct dram_model m;
	struct dram_model_config c = p100_config();
	assert_int_equal(dram_model_init(&m, &c), 0);
	const uint64_t n = 1u << 20;
	uint64_t x = 88172645463325252ull;
	double last = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t addr = (xorshift(&x) % (1u << 25)) * 32; /* 1 GiB of sectors */
		double done = dram_model_read(&m, addr, (double)(i % 8) * 0.125);
		if (done > last)
			last = done;
	}
	double frac = peak_fraction(&m, n, 0, last);
	printf("random: %.2f %% of peak, row hits %.4f\n", 100 * frac, hit_ratio(&m));
	assert_true(frac >= 0.30 && frac <= 0.75);
	assert_true(hit_ratio(&m) < 0.2);
	dram_model_free(&m);
}

/* 3. Exact latencies: a closed row, a hit in it, then a conflicting row in
 * the same bank (precharge first). */
static void test_isolated_latency(void **state)
{
	(void)state;
	struct dram_model m;
	struct dram_model_config c = p100_config();
	assert_int_equal(dram_model_init(&m, &c), 0);
	double burst = c.cycles_per_sector_per_channel;
	double t0 = 1000;
	double d1 = dram_model_read(&m, 4096, t0);
	assert_near(d1 - t0, LATENCY + c.t_rcd_cycles + c.t_cas_cycles + burst, 1e-9);
	double d2 = dram_model_read(&m, 4096 + 32, d1);
	assert_near(d2 - d1, LATENCY + c.t_cas_cycles + burst, 1e-9);
	assert_int_equal(m.row_misses, 1);
	assert_int_equal(m.row_hits, 1);
	/* another row of the same bank */
	uint32_t ch, bank, ch2, bank2;
	uint64_t row, row2, other = 0;
	dram_model_locate(&m.spec, 4096, &ch, &bank, &row);
	for (uint64_t a = 1u << 20;; a += 1024) {
		dram_model_locate(&m.spec, a, &ch2, &bank2, &row2);
		if (ch2 == ch && bank2 == bank && row2 != row) {
			other = a;
			break;
		}
	}
	double d3 = dram_model_read(&m, other, d2);
	assert_near(d3 - d2,
			    LATENCY + c.t_rp_cycles + c.t_rcd_cycles + c.t_cas_cycles + burst, 1e-9);
	assert_int_equal(m.row_misses, 2);
	/* a hit issued together with its row's miss waits for the activate
	 * but not for a second one */
	double a = dram_model_read(&m, 1u << 28, 1e5);
	double b = dram_model_read(&m, (1u << 28) + 32, 1e5);
	assert_true(b >= a && b <= a + c.t_cas_cycles + burst);
	/* a write occupies the bank like a read and opens its row */
	dram_model_write(&m, 1u << 29, 2e5);
	assert_int_equal(m.sectors_written, 1);
	double d4 = dram_model_read(&m, (1u << 29) + 64, 3e5);
	assert_near(d4 - 3e5, LATENCY + c.t_cas_cycles + burst, 1e-9);
	dram_model_free(&m);
}

/* 3b. All-bank refresh (JESD235 HBM2 8 Gb: tRFC 350 of tREFI 3900 ns): the
 * channel serves 1 - 350 / 3900 of the time. A stream and random sectors
 * both get that share of their unrefreshed rate; an isolated access keeps
 * its latency (the burst is longer, the caller's fixed rest shorter). */
static double stream_rate(const struct dram_model_config *c, bool random)
{
	struct dram_model m;
	assert_int_equal(dram_model_init(&m, c), 0);
	const uint64_t n = 1u << 19;
	uint64_t x = 88172645463325252ull;
	double last = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t addr = random ? (xorshift(&x) % (1u << 25)) * 32 : i * 32;
		double done = dram_model_read(&m, addr, (double)(i % 8) * 0.125);
		if (done > last)
			last = done;
	}
	dram_model_free(&m);
	return (double)n / (last - c->latency_cycles);
}

static void test_refresh_takes_its_share(void **state)
{
	(void)state;
	const double f = 1 - 350.0 / 3900.0;
	struct dram_model_config plain = p100_config(), refreshed = p100_config();
	refreshed.service_fraction = f;
	refreshed.cycles_per_sector_per_channel /= f;
	refreshed.latency_cycles -= refreshed.cycles_per_sector_per_channel -
				    plain.cycles_per_sector_per_channel;
	for (int random = 0; random <= 1; random++) {
		double ratio = stream_rate(&refreshed, random) / stream_rate(&plain, random);
		printf("refresh: %s rate x %.4f (service fraction %.4f)\n",
		       random ? "random" : "sequential", ratio, f);
		assert_true(ratio > f - 0.01 && ratio < f + 0.01);
	}
	struct dram_model m;
	assert_int_equal(dram_model_init(&m, &refreshed), 0);
	double d = dram_model_read(&m, 4096, 1000) - 1000;
	assert_near(d, LATENCY + plain.t_rcd_cycles + plain.t_cas_cycles +
			       plain.cycles_per_sector_per_channel, 1e-9);
	dram_model_free(&m);
	/* a fraction above one is no refresh model */
	refreshed.service_fraction = 1.5;
	assert_int_equal(dram_model_init(&m, &refreshed), -1);
}

/* Read/write turnaround with a write drain (dram_drain_writes): P100-like
 * HBM2 values, tWTR_S 6 tCK + tRTW gap 2 tCK at 715 MHz (8.4 + 2.8 ns) and
 * the row's CL 14 ns: the bus idles 25.2 ns = 37.3 SM cycles = 18.0 bursts
 * of 2.07 cycles per drained batch of 64 writes that reads came between. */
#define TURN_NS (8.4 + 14.0 + 2.8)

static struct dram_model_config turnaround_config(double turn_ns, uint32_t batch)
{
	struct dram_model_config c = p100_config();
	c.banks = 64; /* enough open rows for two streams: bus bound */
	c.turnaround_cycles = turn_ns * SM_MHZ * 1e-3;
	c.write_batch_sectors = batch;
	return c;
}

/* n chunks of 8 sectors (256 B), all at t = 0: reads (mode 0), writes
 * (mode 1), or a read chunk and a write chunk in turn (mode 2, STREAM
 * copy's mix, the write-backs of a 1 GiB-apart buffer). When the bus is
 * done; *m_out keeps the model for its counts (freed by the caller). */
static double mixed_stream(const struct dram_model_config *c, int mode, uint64_t n,
			   struct dram_model *m)
{
	assert_int_equal(dram_model_init(m, c), 0);
	double last = 0;
	for (uint64_t i = 0; i < n; i++) {
		double d;
		if (mode == 0 || (mode == 2 && (i & 1) == 0))
			d = dram_model_read_run(m, (i / (mode == 2 ? 2 : 1)) * 256, 8, 0) -
			    m->spec.latency_cycles;
		else
			d = dram_model_write_run(m, (1ull << 30) + (i / (mode == 2 ? 2 : 1)) * 256,
						 8, 0);
		if (d > last)
			last = d;
	}
	return last;
}

static void test_turnaround_two_sided(void **state)
{
	(void)state;
	const uint64_t n = 1u << 16; /* chunks: 16 MiB */
	struct dram_model_config plain = turnaround_config(0, 0),
				 turned = turnaround_config(TURN_NS, 64);
	struct dram_model m;
	double tb = turned.turnaround_cycles / turned.cycles_per_sector_per_channel;
	assert_near(tb, 18.02, 0.01);
	/* one direction: no drain turns the bus, bit for bit the plain model */
	for (int mode = 0; mode <= 1; mode++) {
		double a = mixed_stream(&plain, mode, n, &m);
		dram_model_free(&m);
		double b = mixed_stream(&turned, mode, n, &m);
		printf("turnaround: %s-only x %.6f, %llu turns\n", mode ? "write" : "read", b / a,
		       (unsigned long long)m.turnarounds);
		assert_true(m.turnarounds == 0);
		assert_true(a == b);
		dram_model_free(&m);
	}
	/* the mix: per channel 2W sectors and W / 64 drains, each 18.0 bursts
	 * of idle: the time grows by 1 + 18.0 / 128 = 1.141 */
	double a = mixed_stream(&plain, 2, n, &m);
	double frac_plain = peak_fraction(&m, n * 8, 0, a + m.spec.latency_cycles);
	dram_model_free(&m);
	double b = mixed_stream(&turned, 2, n, &m);
	uint64_t writes_per_channel = n / 2 * 8 / turned.channels;
	printf("turnaround: copy mix x %.4f (expected %.4f), %llu turns, plain %.3f of peak\n",
	       b / a, 1 + tb / 128, (unsigned long long)m.turnarounds, frac_plain);
	assert_true(frac_plain > 0.97); /* bus bound without turnaround */
	assert_true(m.turnarounds == writes_per_channel / 64 * turned.channels);
	assert_near(b / a, 1 + tb / 128, 0.01);
	dram_model_free(&m);
	/* without a batch the turnaround is off (and so is a zero turnaround) */
	struct dram_model_config nobatch = turnaround_config(TURN_NS, 0),
				 zero = turnaround_config(0, 64);
	double c0 = mixed_stream(&nobatch, 2, n, &m);
	assert_true(m.drain == NULL && c0 == a);
	dram_model_free(&m);
	c0 = mixed_stream(&zero, 2, n, &m);
	assert_true(m.drain == NULL && c0 == a);
	dram_model_free(&m);
	/* a bigger batch turns less often: half the loss at 128 */
	struct dram_model_config big = turnaround_config(TURN_NS, 128);
	double d = mixed_stream(&big, 2, n, &m);
	assert_near(d / a, 1 + tb / 256, 0.01);
	dram_model_free(&m);
	/* a negative turnaround is refused */
	big.turnaround_cycles = -1;
	assert_int_equal(dram_model_init(&m, &big), -1);
}

/* Write-drain mode (drain_hold): one channel, a batch of 64. A read
 * whose data is ready while a batch drained after reads is on the bus
 * crosses after the batch's 64 bursts and the turnaround; without the
 * hold, or when no read came before the writes (they went at once), it
 * crosses at once. A copy mix keeps the bus's rate either way: the hold
 * moves the writes' time into one piece, it adds none. */
static double read_after_batch(bool hold, bool read_first, double *fill_out,
			       struct dram_model *m)
{
	struct dram_model_config c = turnaround_config(TURN_NS, 64);
	c.channels = 1;
	c.drain_hold = hold;
	assert_int_equal(dram_model_init(m, &c), 0);
	if (read_first)
		dram_model_read(m, 4096, 0); /* a read: the next writes wait for their batch */
	double fill = 0;
	for (int i = 0; i < 8; i++) /* 64 sectors: the batch, filled by the last */
		fill = dram_model_write_run(m, (1ull << 30) + (uint64_t)i * 256, 8, 1000);
	*fill_out = fill;
	/* a read to a third row arriving as the batch fills */
	return dram_model_read(m, 1ull << 20, fill) - fill;
}

static void test_drain_hold_two_sided(void **state)
{
	(void)state;
	struct dram_model m;
	double fill, fill_plain;
	double plain = read_after_batch(false, true, &fill_plain, &m);
	double burst = m.spec.burst_cycles, turn = m.spec.turn_bursts * burst;
	uint64_t turns_plain = m.turnarounds;
	dram_model_free(&m);
	double held = read_after_batch(true, true, &fill, &m);
	printf("drain hold: a read at the fill %.1f cycles, %.1f without the hold (batch %.1f + "
	       "turnaround %.1f)\n",
	       held, plain, 64 * burst, turn);
	assert_true(m.turnarounds == 1 && turns_plain == 1);
	/* held: the batch and the turnaround's whole bursts (the fraction is
	 * carried to the next drain), then its own burst and the pipe */
	double whole_turn = (double)(uint32_t)m.spec.turn_bursts * burst;
	assert_near(held, 64 * burst + whole_turn + burst + m.spec.latency_cycles, 1e-6);
	assert_true(plain < m.spec.row_cycle_cycles + 2 * burst + m.spec.latency_cycles + 1e-6);
	assert_true(held > plain + 60 * burst);
	dram_model_free(&m);
	/* no read before the writes: they took the bus at once, no hold */
	double fresh = read_after_batch(true, false, &fill, &m);
	assert_true(m.turnarounds == 0);
	dram_model_free(&m);
	double fresh_plain = read_after_batch(false, false, &fill_plain, &m);
	dram_model_free(&m);
	assert_true(fresh == fresh_plain);
	/* the copy mix: the same bus time within 2 %; writes alone (no read
	 * to wait for them) bit for bit the model without the hold */
	const uint64_t n = 1u << 16;
	struct dram_model_config turned = turnaround_config(TURN_NS, 64), held_cfg = turned;
	held_cfg.drain_hold = true;
	double w0 = mixed_stream(&turned, 1, n, &m);
	dram_model_free(&m);
	double w1 = mixed_stream(&held_cfg, 1, n, &m);
	dram_model_free(&m);
	assert_true(w0 == w1);
	double a = mixed_stream(&turned, 2, n, &m);
	dram_model_free(&m);
	double b = mixed_stream(&held_cfg, 2, n, &m);
	printf("drain hold: copy mix x %.4f of the turnaround alone, %llu turns\n", b / a,
	       (unsigned long long)m.turnarounds);
	assert_true(b / a > 0.98 && b / a < 1.02);
	dram_model_free(&m);
}

/* An address of channel ch at or after from (interleave chunks), and the
 * chunk after it. */
static uint64_t chunk_of_channel(const struct dram_model *m, uint32_t ch, uint64_t *from)
{
	for (;;) {
		uint64_t a = *from;
		*from += 256;
		uint32_t c, b;
		uint64_t row;
		dram_model_locate(&m->spec, a, &c, &b, &row);
		if (c == ch)
			return a;
	}
}

/* Channels drained together (drain_group_channels 4 on 4 channels, batch
 * 64, drain_hold): channels 0-2 get their 64 writes at t = 1000, channel
 * 3 its 64 at t = 20000. Alone, channel 0 drains at its own batch's fill,
 * so a read to it then waits and one at the late fill does not; in one
 * group nothing drains until the group's 256 writes are in, then all four
 * at once: the early read goes through, the late one waits. */
static double group_read_wait(uint32_t group, int late, struct dram_model *m)
{
	struct dram_model_config c = turnaround_config(TURN_NS, 64);
	c.channels = 4;
	c.drain_hold = true;
	c.drain_group_channels = group;
	assert_int_equal(dram_model_init(m, &c), 0);
	uint64_t rd = 0, wr = 1ull << 30;
	for (uint32_t ch = 0; ch < 4; ch++) /* reads first: the writes wait */
		dram_model_read(m, chunk_of_channel(m, ch, &rd), 0);
	double fill[4] = {0};
	for (uint32_t ch = 0; ch < 4; ch++)
		for (int i = 0; i < 8; i++)
			fill[ch] = dram_model_write_run(m, chunk_of_channel(m, ch, &wr), 8,
							ch == 3 ? 20000 : 1000);
	double t = late ? fill[3] : fill[0];
	return dram_model_read(m, chunk_of_channel(m, 0, &rd), t) - t;
}

static void test_drain_group(void **state)
{
	(void)state;
	struct dram_model m;
	double alone_early = group_read_wait(1, 0, &m), burst = m.spec.burst_cycles;
	dram_model_free(&m);
	double alone_late = group_read_wait(1, 1, &m);
	dram_model_free(&m);
	double group_early = group_read_wait(4, 0, &m);
	dram_model_free(&m);
	double group_late = group_read_wait(4, 1, &m);
	uint64_t turns = m.turnarounds;
	dram_model_free(&m);
	printf("drain group: a read to channel 0 at its own fill %.1f / at the group's %.1f "
	       "cycles alone, %.1f / %.1f in one group\n",
	       alone_early, alone_late, group_early, group_late);
	assert_true(turns == 4);
	assert_true(alone_early > group_early + 60 * burst);
	assert_true(group_late > alone_late + 60 * burst);
	assert_near(alone_late, group_early, 1e-9); /* neither meets a drain */
}

/* Per-bank refresh: the bus keeps its whole rate (a stream is not
 * slowed), the banks lose tRFCsb / tREFI (a bank-bound random stream is). */
static void test_per_bank_refresh(void **state)
{
	(void)state;
	const double f = 1 - 160.0 / 3900.0;
	struct dram_model_config plain = p100_config(), per_bank = p100_config();
	per_bank.service_fraction = f;
	per_bank.bus_service_fraction = 1;
	double seq = stream_rate(&per_bank, 0) / stream_rate(&plain, 0);
	double rnd = stream_rate(&per_bank, 1) / stream_rate(&plain, 1);
	printf("per-bank refresh: sequential x %.4f, random x %.4f (banks %.4f)\n", seq, rnd, f);
	assert_true(seq > 0.995 && seq < 1.005);
	assert_true(rnd > f - 0.01 && rnd < f + 0.01);
}

/* 4. Power-of-two strides spread over all channels. */
static void test_strides_balance_channels(void **state)
{
	(void)state;
	const uint64_t strides[] = {4096, 8192, 65536, 1u << 20};
	for (size_t s = 0; s < sizeof strides / sizeof *strides; s++) {
		struct dram_model m;
		struct dram_model_config c = p100_config();
		assert_int_equal(dram_model_init(&m, &c), 0);
		for (uint64_t i = 0; i < 32768; i++)
			dram_model_read(&m, i * strides[s], (double)i);
		uint64_t lo = UINT64_MAX, hi = 0;
		for (uint32_t ch = 0; ch < m.spec.channels; ch++) {
			if (m.channel_sectors[ch] < lo)
				lo = m.channel_sectors[ch];
			if (m.channel_sectors[ch] > hi)
				hi = m.channel_sectors[ch];
		}
		printf("stride %llu: channel sectors %llu..%llu\n", (unsigned long long)strides[s],
		       (unsigned long long)lo, (unsigned long long)hi);
		assert_true(lo > 0);
		assert_true((double)hi / (double)lo < 1.5);
		dram_model_free(&m);
	}
}

/* n requests arriving over [0, n * dt), handled in time order or in
 * reverse: the fraction of the peak achieved. */
static double ordered_run(int reverse, int random, uint64_t n, double dt)
{
	struct dram_model m;
	struct dram_model_config c = p100_config();
	assert_int_equal(dram_model_init(&m, &c), 0);
	uint64_t *addr = malloc(n * sizeof *addr);
	assert_non_null(addr);
	uint64_t x = 0x2545F4914F6CDD1Dull;
	for (uint64_t i = 0; i < n; i++)
		addr[i] = random ? (xorshift(&x) % (1u << 25)) * 32 : i * 32;
	double last = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = reverse ? n - 1 - k : k;
		double done = dram_model_read(&m, addr[i], (double)i * dt);
		if (done > last)
			last = done;
	}
	double frac = peak_fraction(&m, n, 0, last);
	free(addr);
	dram_model_free(&m);
	return frac;
}

/* 5. Out-of-order arrivals see the capacity of their own time: reverse
 * handling order gives the in-order throughput. Offered load 1.5x what
 * the banks (random) or the bus (stream) can serve, over ~8000 cycles
 * (the queue's end stays inside the calendars' rings). */
static void test_reverse_order_same_throughput(void **state)
{
	(void)state;
	const uint64_t nr = 100000, ns = 200000;
	double rnd_in = ordered_run(0, 1, nr, 1 / 12.4), rnd_rev = ordered_run(1, 1, nr, 1 / 12.4);
	double seq_in = ordered_run(0, 0, ns, 1 / 23.2), seq_rev = ordered_run(1, 0, ns, 1 / 23.2);
	printf("random in order %.1f %%, reversed %.1f %%; stream %.1f %%, reversed %.1f %%\n",
	       100 * rnd_in, 100 * rnd_rev, 100 * seq_in, 100 * seq_rev);
	assert_true(rnd_rev / rnd_in > 0.95 && rnd_rev / rnd_in < 1.05);
	assert_true(seq_rev / seq_in > 0.95 && seq_rev / seq_in < 1.05);
}

/* 6. The packed calendars keep no tags: a ring entry reused for a later
 * slot (the ring moved on by exactly its length) must start empty, so a
 * request there starts at its arrival however full the entry's old slot
 * was. Tiny rings (4 slots) make the reuse happen at once. */
static void test_ring_reuse_starts_empty(void **state)
{
	(void)state;
	struct dram_model m;
	struct dram_model_config c = p100_config();
	c.bank_ring_slots = 4;
	c.bus_ring_slots = 4;
	assert_int_equal(dram_model_init(&m, &c), 0);
	double burst = c.cycles_per_sector_per_channel;
	double row_cycle = c.t_rp_cycles + c.t_rcd_cycles + c.t_cas_cycles;
	/* three rows of one bank */
	uint32_t ch, bank, ch2, bank2;
	uint64_t row, row2, addr[3] = {4096, 0, 0};
	int found = 1;
	dram_model_locate(&m.spec, addr[0], &ch, &bank, &row);
	for (uint64_t a = 1u << 20; found < 3; a += 1024) {
		dram_model_locate(&m.spec, a, &ch2, &bank2, &row2);
		if (ch2 == ch && bank2 == bank && row2 != row &&
		    (found == 1 || a >> 10 != addr[1] >> 10))
			addr[found++] = a;
	}
	/* fill the bank's slot at t0: a cold miss, then a conflicting one */
	double t0 = 10 * row_cycle + 1;
	dram_model_read(&m, addr[0], t0);
	dram_model_read(&m, addr[1], t0);
	/* the slot is full: a third row at t0 waits a slot */
	double d = dram_model_read(&m, addr[2], t0);
	assert_true(d - t0 > LATENCY + c.t_rp_cycles + c.t_rcd_cycles + c.t_cas_cycles + burst + 1);
	/* eight slots later (twice round the ring) the entry is the same, its slot a new one */
	double t1 = t0 + 8 * row_cycle;
	double d1 = dram_model_read(&m, addr[0], t1);
	assert_near(d1 - t1, LATENCY + c.t_rp_cycles + c.t_rcd_cycles + c.t_cas_cycles + burst, 1e-9);
	dram_model_free(&m);
}

/* 7. Runs (dram_model_read_run): n sectors of one 256 B chunk at once
 * are what n separate sectors were where slots had room, never more than
 * a slot's capacity where they did not (the part past it spills), and
 * count as n sectors. */
static void test_runs_match_sectors(void **state)
{
	(void)state;
	struct dram_model a, b;
	struct dram_model_config c = p100_config();
	assert_int_equal(dram_model_init(&a, &c), 0);
	assert_int_equal(dram_model_init(&b, &c), 0);
	/* an idle bank: a run of 4 ends exactly when 4 separate sectors do
	 * (activate + CAS + four bursts + latency: they share the bus slot,
	 * and the bus carries their bursts one after another) */
	double sep = 0;
	for (int i = 0; i < 4; i++) {
		double d = dram_model_read(&a, 4096 + 32 * i, 100);
		sep = d > sep ? d : sep;
	}
	double run = dram_model_read_run(&b, 4096, 4, 100);
	assert_near(run, sep, 1e-9);
	assert_near(run, 100 + c.t_rcd_cycles + c.t_cas_cycles + 4 * c.cycles_per_sector_per_channel +
				 LATENCY, 1e-9);
	assert_true(a.row_hits == b.row_hits && a.row_misses == b.row_misses);
	uint64_t counted = 0;
	for (uint32_t ch = 0; ch < c.channels; ch++)
		counted += b.channel_sectors[ch];
	assert_true(b.sectors_read == 4 && counted == 4);
	dram_model_free(&a);
	dram_model_free(&b);

	/* only a chunk's next sector waits for the burst before it: one that
	 * skips a sector, or the first of the next chunk (another channel),
	 * or one arriving before the last, does not */
	assert_int_equal(dram_model_init(&a, &c), 0);
	double first = dram_model_read(&a, 8192, 100);
	double skip = dram_model_read(&a, 8192 + 64, 100);
	assert_near(skip, first, 1e-9);
	double next = dram_model_read(&a, 8192 + 96, 100);
	assert_near(next, first + c.cycles_per_sector_per_channel, 1e-9);
	double early = dram_model_read(&a, 8192 + 128, 90);
	assert_true(early < next);
	dram_model_free(&a);

	/* a stream in runs of 8 all at t = 0: bus bound as the stream of
	 * single sectors is (test 1), and no faster than the bus: runs that
	 * overfilled a slot would exceed its capacity */
	assert_int_equal(dram_model_init(&a, &c), 0);
	assert_int_equal(dram_model_init(&b, &c), 0);
	const uint64_t n = 1u << 20;
	double last_a = 0;
	for (uint64_t i = 0; i < n; i++) {
		double d = dram_model_read(&a, i * 32, 0);
		last_a = d > last_a ? d : last_a;
	}
	/* runs of 7 (a chunk's first 7 sectors): 7 does not divide the
	 * 32-burst bus slots, so runs keep meeting a slot's end */
	double fa = peak_fraction(&a, n, 0, last_a), fb = runs_peak_fraction(&b, n / 8, 7);
	printf("stream: separate %.4f, runs %.4f of peak; row hits %.3f / %.3f\n", fa, fb,
	       hit_ratio(&a), hit_ratio(&b));
	assert_true(fb >= 0.85 && fb <= 1.0 + 1e-9);
	assert_true(fabs(fb - fa) <= 0.03);
	assert_true(b.row_hits + b.row_misses == b.sectors_read);
	dram_model_free(&a);
	dram_model_free(&b);
}

/* 7b. Bank groups (dram.tccdl_ns): a read's sectors of one chunk, one
 * row of one bank, cross tCCD_L apart where that exceeds the burst (P100:
 * CCDL 2 command cycles at 715 MHz, 4.14 SM cycles, against a 2.07-cycle
 * burst); a lone sector, a write's run and the bus's rate are unchanged,
 * and a tCCD_L below the burst changes nothing. */
static void test_bank_group_column_delay(void **state)
{
	(void)state;
	struct dram_model m, plain;
	struct dram_model_config c = p100_config();
	const double burst = c.cycles_per_sector_per_channel;
	struct dram_model_config g = c;
	g.t_ccd_l_cycles = dram_command_to_sm_cycles(2, 715, SM_MHZ);
	assert_true(g.t_ccd_l_cycles > 1.9 * burst);
	assert_int_equal(dram_model_init(&m, &g), 0);
	assert_int_equal(dram_model_init(&plain, &c), 0);
	/* a lone sector: activate + CAS + burst + latency, as without */
	double lone = dram_model_read(&m, 4096, 100);
	assert_near(lone - 100, LATENCY + c.t_rcd_cycles + c.t_cas_cycles + burst, 1e-9);
	/* a chunk's next sector, one by one and as a run of 8 */
	double next = dram_model_read(&m, 4096 + 32, 100);
	assert_near(next, lone + g.t_ccd_l_cycles, 1e-9);
	double run = dram_model_read_run(&m, 1u << 20, 8, 1000);
	double run_plain = dram_model_read_run(&plain, 1u << 20, 8, 1000);
	assert_near(run_plain - 1000, LATENCY + c.t_rcd_cycles + c.t_cas_cycles + 8 * burst, 1e-9);
	assert_near(run - run_plain, 7 * (g.t_ccd_l_cycles - burst), 1e-9);
	/* a write's run keeps a burst apart (drained in batches over the
	 * bank groups, and nobody waits for its last sector) */
	assert_near(dram_model_write_run(&m, 1u << 21, 8, 2000),
		    dram_model_write_run(&plain, 1u << 21, 8, 2000), 1e-9);
	dram_model_free(&m);
	dram_model_free(&plain);

	/* the bus keeps its rate: a stream of runs of 8 at t = 0 within 3 %
	 * of the plain model's rate (other chunks fill the gaps) */
	assert_int_equal(dram_model_init(&m, &g), 0);
	assert_int_equal(dram_model_init(&plain, &c), 0);
	const uint64_t n = 1u << 17;
	double fg = runs_peak_fraction(&m, n, 8), fp = runs_peak_fraction(&plain, n, 8);
	printf("runs of 8 with tCCD_L %.2f cycles: %.4f of peak (burst apart %.4f)\n",
	       g.t_ccd_l_cycles, fg, fp);
	assert_true(fg >= fp - 0.03 && fg <= fp + 1e-9);
	dram_model_free(&m);
	dram_model_free(&plain);

	/* below the burst it is no constraint: identical to the plain model */
	g.t_ccd_l_cycles = 0.5 * burst;
	assert_int_equal(dram_model_init(&m, &g), 0);
	assert_int_equal(dram_model_init(&plain, &c), 0);
	assert_near(dram_model_read_run(&m, 8192, 8, 50), dram_model_read_run(&plain, 8192, 8, 50), 0);
	dram_model_free(&m);
	dram_model_free(&plain);

	/* a negative delay is refused */
	g.t_ccd_l_cycles = -1;
	assert_int_equal(dram_model_init(&m, &g), -1);
}

/* 8. The calendar's fast path (dram_cal_reserve, mem/dram_access.h) and
 * its general rule (dram_cal_reserve_slow) against a plain reference: the
 * rule written out over an array indexed by absolute slot (no ring, no
 * clearing, no known-full run kept apart from the rule's own test). Three
 * calendars get the same requests, each start must be equal bit for bit,
 * and so must newest, the frontier and every slot of the window after
 * each one. The requests mix every case: in time order with jitter,
 * bursts that fill slots (lookahead, frontier scans), requests older than
 * the ring, short and long advances; tiny rings make all of them common.
 * Each fast-path case and the slow path (a long advance) must have been
 * taken. */
#define REF_SLOTS (1u << 18)
#define REF_LOOKAHEAD 4 /* dram_model.c's LOOKAHEAD_SLOTS */

struct ref_cal {
	int64_t newest, frontier, full_from;
	uint32_t mask;
	uint32_t *used; /* [REF_SLOTS], by absolute slot */
};

static double ref_reserve(struct ref_cal *c, double t, double inv_slot, double quantum,
			  uint32_t cap, uint32_t hold)
{
	int64_t s = (int64_t)(t * inv_slot);
	int64_t oldest = c->newest - (int64_t)c->mask;
	int64_t q = -1;
	int own = s >= oldest;
	if (!own)
		s = oldest; /* older than the ring: as if arriving at its oldest slot */
	assert_true(s >= 0 && s + REF_LOOKAHEAD < (int64_t)REF_SLOTS);
	if (c->used[s] < cap) {
		q = s;
	} else if (own && !(s >= c->full_from && s + REF_LOOKAHEAD - 1 < c->frontier)) {
		for (int64_t k = s + 1; k < s + REF_LOOKAHEAD; k++)
			if (c->used[k] < cap) {
				q = k;
				break;
			}
	}
	if (q < 0) {
		if (s > c->frontier)
			c->full_from = s;
		q = s < c->frontier ? c->frontier : s;
		while (q <= c->newest && c->used[q] >= cap)
			q++;
		c->frontier = q;
	}
	assert_true(q < (int64_t)REF_SLOTS);
	double start = own && q == s ? t : ((double)q * cap + c->used[q]) * quantum;
	c->used[q] += hold;
	if (q > c->newest)
		c->newest = q;
	return start;
}

/* The fast path's cases, from the calendar before the request (as
 * dram_cal_reserve tells them apart); C_SLOW, a long advance, is the one
 * it leaves to dram_cal_reserve_slow. */
enum cal_case { C_ROOM, C_ADVANCE, C_FULL, C_OLDER, C_SLOW, C_CASES };

static enum cal_case classify(const struct dram_cal *c, const uint16_t *used, uint32_t mask,
			      double t, double inv_slot, uint32_t cap)
{
	int64_t s = (int64_t)(t * inv_slot);
	if (s > c->newest)
		return s - c->newest <= DRAM_FAST_ADVANCE_SLOTS ? C_ADVANCE : C_SLOW;
	if (s < c->newest - (int64_t)mask)
		return C_OLDER;
	if (used[(uint32_t)s & mask] < cap)
		return C_ROOM;
	return C_FULL;
}

static void same_calendars(const struct dram_cal *a, const uint16_t *ua,
			   const struct dram_cal *b, const uint16_t *ub,
			   const struct ref_cal *r, uint32_t mask)
{
	assert_true(a->newest == r->newest && b->newest == r->newest);
	assert_true(a->frontier == r->frontier && b->frontier == r->frontier);
	assert_true(a->full_from == r->full_from && b->full_from == r->full_from);
	for (int64_t s = r->newest - (int64_t)mask; s <= r->newest; s++) {
		if (s < 0)
			continue;
		assert_int_equal(ua[(uint32_t)s & mask], r->used[s]);
		assert_int_equal(ub[(uint32_t)s & mask], r->used[s]);
	}
}

static void run_fast_slow_reference(uint32_t mask, uint32_t cap, const uint32_t *holds,
				    uint32_t nholds, double slot_cycles, uint64_t seed,
				    uint64_t counts[C_CASES])
{
	struct dram_cal fast = {0}, slow = {0};
	struct ref_cal ref = {.mask = mask};
	uint16_t *uf = calloc(mask + 1, sizeof *uf), *us = calloc(mask + 1, sizeof *us);
	ref.used = calloc(REF_SLOTS, sizeof *ref.used);
	assert_true(uf && us && ref.used);
	double inv_slot = 1 / slot_cycles, quantum = slot_cycles / cap;
	uint64_t x = seed;
	double now = 0;
	for (int i = 0; i < 200000; i++) {
		uint64_t r = xorshift(&x);
		double t;
		switch (r % 8) {
		case 0: /* far behind: older than the ring */
			t = now - (double)(mask + 2 + (r >> 8) % (4 * (mask + 1))) * slot_cycles;
			break;
		case 1: /* a jump ahead, short or past the whole ring */
			now += (double)((r >> 8) % (2 * (mask + 1) + 16)) * slot_cycles * 0.5;
			t = now;
			break;
		case 2: case 3: /* a burst at one time: fills its slot */
			t = now;
			break;
		default: /* in order, with jitter either way */
			now += (double)((r >> 8) % 1000) * slot_cycles / 900;
			t = now - (double)((r >> 20) % 1000) * slot_cycles / 250;
			break;
		}
		if (t < 0)
			t = (double)((r >> 32) % 1000) * 0.013;
		uint32_t hold = holds[(r >> 40) % nholds];
		counts[classify(&fast, uf, mask, t, inv_slot, cap)]++;
		double a = dram_cal_reserve(&fast, uf, mask, t, inv_slot, quantum, cap, hold);
		double b = dram_cal_reserve_slow(&slow, us, mask, t, inv_slot, quantum, cap, hold);
		double c = ref_reserve(&ref, t, inv_slot, quantum, cap, hold);
		if (!(a == c && b == c)) {
			print_error("request %d at %.6f hold %u: fast %.9f, slow %.9f, reference %.9f\n",
				    i, t, hold, a, b, c);
			fail();
		}
		same_calendars(&fast, uf, &slow, us, &ref, mask);
		if (ref.newest > (int64_t)REF_SLOTS - 4 * (int64_t)(mask + 16))
			break; /* the reference's array is used up */
	}
	free(uf);
	free(us);
	free(ref.used);
}

static void test_calendar_fast_path_exact(void **state)
{
	(void)state;
	uint64_t counts[C_CASES] = {0};
	/* bank-like: 1/16384 row cycles, P100's row miss (whole slot), cold
	 * miss and row hit holds; bus-like: 32 bursts, one each */
	const uint32_t bank_holds[] = {16384, 10923, 546, 546, 546};
	const uint32_t bus_holds[] = {1};
	const uint32_t masks[] = {3, 7, 31, 255};
	for (uint32_t i = 0; i < 4; i++) {
		run_fast_slow_reference(masks[i], 16384, bank_holds, 5, 62.1, 0x9E3779B97F4A7C15ull + i,
					counts);
		run_fast_slow_reference(masks[i], 32, bus_holds, 1, 66.2, 0xD1B54A32D192ED03ull + i,
					counts);
	}
	printf("calendar cases: room %llu, short advance %llu, own slot full %llu, older than "
	       "the ring %llu, long advance (slow path) %llu\n",
	       (unsigned long long)counts[C_ROOM], (unsigned long long)counts[C_ADVANCE],
	       (unsigned long long)counts[C_FULL], (unsigned long long)counts[C_OLDER],
	       (unsigned long long)counts[C_SLOW]);
	for (int k = 0; k < C_CASES; k++)
		assert_true(counts[k] >= 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timing_conversion),
		cmocka_unit_test(test_bad_config_refused),
		cmocka_unit_test(test_spec_sealed_at_init),
		cmocka_unit_test(test_sequential_stream_near_peak),
		cmocka_unit_test(test_random_sectors_bank_bound),
		cmocka_unit_test(test_isolated_latency),
		cmocka_unit_test(test_refresh_takes_its_share),
		cmocka_unit_test(test_turnaround_two_sided),
		cmocka_unit_test(test_drain_hold_two_sided),
		cmocka_unit_test(test_drain_group),
		cmocka_unit_test(test_per_bank_refresh),
		cmocka_unit_test(test_strides_balance_channels),
		cmocka_unit_test(test_reverse_order_same_throughput),
		cmocka_unit_test(test_ring_reuse_starts_empty),
		cmocka_unit_test(test_runs_match_sectors),
		cmocka_unit_test(test_bank_group_column_delay),
		cmocka_unit_test(test_calendar_fast_path_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
