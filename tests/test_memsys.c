/* Memory partitions (src/memsys/memsys.h): the address map deals
 * mem.partition_interleave chunks to the partitions in turn; each
 * partition has its own L2 slices and DRAM channels, so requests to
 * different partitions never wait for each other and requests to one
 * partition queue on its channels. One partition is the model of gpuvm
 * 1b4e3ad (addresses map to themselves). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "memsys/memsys.h"

static struct gpuvm_stats stats;

/* A small GPU's memory side: 2 MiB of L2, 8 channels, a plain bandwidth
 * queue per partition (dram.banks = 0) and a slow DRAM, so the waiting is
 * easy to read. */
static void small_config(struct gpuvm_config *cfg, uint32_t partitions)
{
	gpuvm_config_defaults(cfg);
	cfg->l2_bytes = 2u << 20;
	cfg->l2_ways = 16;
	cfg->dram_channels = 8;
	cfg->dram_banks = 0;
	cfg->dram_bandwidth_gb_s = 16; /* 8 GB/s a partition: ~5.6 cycles a sector at 1.4 GHz */
	cfg->clock_mhz = 1400;
	cfg->mem_partitions = partitions;
	cfg->mem_partition_interleave_bytes = 4096;
}

static void test_one_partition_is_identity(void **st)
{
	(void)st;
	struct gpuvm_config cfg;
	small_config(&cfg, 1);
	struct memsys ms;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	for (uint64_t a = 0; a < (1ull << 40); a = a * 3 + 4096) {
		uint64_t local = 1;
		assert_ptr_equal(memsys_route(&ms, a, &local), ms.part);
		assert_int_equal(local, a);
	}
	memsys_free(&ms);
}

static void test_address_map(void **st)
{
	(void)st;
	struct gpuvm_config cfg;
	small_config(&cfg, 2);
	struct memsys ms;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	uint64_t local;
	assert_int_equal(memsys_partition_of(&ms, 0), 0);
	assert_int_equal(memsys_partition_of(&ms, 4095), 0);
	assert_int_equal(memsys_partition_of(&ms, 4096), 1);
	assert_int_equal(memsys_partition_of(&ms, 8192), 0);
	assert_int_equal(memsys_partition_of(&ms, 3 * 4096 + 32), 1);
	/* each partition's addresses are dense: chunk 3 is partition 1's
	 * second chunk */
	memsys_route(&ms, 3 * 4096 + 32, &local);
	assert_int_equal(local, 4096 + 32);
	/* each holds half the L2 */
	assert_int_equal((uint64_t)ms.part[0].l2.sets * ms.part[0].l2.ways * 128, 1u << 20);
	memsys_free(&ms);
}

/* Lines of two partitions are apart: the same partition address in the
 * other partition misses. */
static void test_l2_slices_per_partition(void **st)
{
	(void)st;
	struct gpuvm_config cfg;
	small_config(&cfg, 2);
	struct memsys ms;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	memsys_access(&ms, 0, 0, false, true, 0);      /* partition 0, local 0 */
	assert_int_equal(stats.l2_sector_misses, 1);
	memsys_access(&ms, 0, 0, false, true, 1000);   /* hit */
	assert_int_equal(stats.l2_sector_hits, 1);
	memsys_access(&ms, 0, 4096, false, true, 2000); /* partition 1, local 0: its own line */
	assert_int_equal(stats.l2_sector_misses, 2);
	memsys_access(&ms, 0, 4096, false, true, 3000);
	assert_int_equal(stats.l2_sector_hits, 2);
	memsys_free(&ms);
}

/* n loads of distinct lines issued at t = 0 to the chunks of the given
 * partitions (in turn); returns when the last is back. */
static double burst(struct memsys *ms, uint32_t n, const uint32_t *parts, uint32_t n_parts)
{
	double last = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = parts[i % n_parts];
		uint64_t chunk = (uint64_t)(i / n_parts) * 2 + p; /* partition p's (i/n_parts)-th chunk */
		double d = memsys_access(ms, 0, chunk * 4096, false, true, 0);
		if (d > last)
			last = d;
	}
	return last;
}

static void test_partitions_do_not_contend(void **st)
{
	(void)st;
	struct gpuvm_config cfg;
	small_config(&cfg, 2);
	struct memsys ms;
	const uint32_t both[] = {0, 1}, first[] = {0};
	enum { N = 256 };

	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	double one_alone = memsys_access(&ms, 0, 0, false, true, 0);
	memsys_free(&ms);

	/* N misses on one partition: they queue on its channels */
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	double same = burst(&ms, N, first, 1);
	/* a miss on the other partition at the same time does not wait */
	double other = memsys_access(&ms, 0, 4096, false, true, 0);
	/* one more on the loaded partition waits behind them (the calendar
	 * charges whole 64-cycle slots, so it may end with the last) */
	double behind = memsys_access(&ms, 0, 2 * 4096 * (N + 1), false, true, 0);
	memsys_free(&ms);
	assert_true(same > one_alone + 100);
	assert_true(other == one_alone);
	assert_true(behind >= same);
	assert_true(behind > other + 1000);

	/* the same N spread over both partitions: half the queue each */
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	double spread = burst(&ms, N, both, 2);
	memsys_free(&ms);
	double wait_same = same - one_alone, wait_spread = spread - one_alone;
	assert_true(wait_spread < 0.6 * wait_same);
	assert_true(wait_spread > 0.4 * wait_same);
}

/* The stale-line stamp: after memsys_l2_epoch every partition's clock is
 * the latest, so lines used later in any partition stamp above it. */
static void test_epoch_orders_partitions(void **st)
{
	(void)st;
	struct gpuvm_config cfg;
	small_config(&cfg, 2);
	struct memsys ms;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	for (int i = 0; i < 10; i++)
		memsys_access(&ms, 0, (uint64_t)i * 8192, false, true, 0); /* partition 0 only */
	uint32_t stamp = memsys_l2_epoch(&ms);
	assert_int_equal(stamp, 10);
	assert_int_equal(ms.part[1].l2.clock, 10);
	memsys_access(&ms, 0, 4096, false, true, 0);
	assert_true(ms.part[1].l2.clock > stamp);
	memsys_free(&ms);
}

/* Near and far partitions (mem.far_latency_cycles): an SM's near
 * partition serves its hits at the L2 latency; a line the other half's
 * SM cached, or its own near partition evicted, is a far hit that costs
 * the crossing more; a miss in both reads DRAM. */
static void test_near_far(void **st)
{
	(void)st;
	struct gpuvm_config cfg;
	small_config(&cfg, 2);
	cfg.mem_far_latency_cycles = 200;
	struct memsys ms;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	assert_true(ms.near_far);
	uint32_t last = cfg.sms - 1;
	assert_int_equal(ms.near_of_sm[0], 0);
	assert_int_equal(ms.near_of_sm[last], 1);
	double hit = 2 * ms.crossbar_cycles + ms.l2_hit;
	uint64_t a = 1ull << 30;
	double t = 0;
	double miss = memsys_access(&ms, 0, a, false, true, t) - t;
	assert_true(miss > hit + 50); /* DRAM */
	t = 1e6;
	assert_true(memsys_access(&ms, 0, a, false, true, t) - t == hit);
	/* the other half: a far hit, then its own copy */
	t = 2e6;
	assert_true(memsys_access(&ms, last, a, false, true, t) - t == hit + 200);
	t = 3e6;
	assert_true(memsys_access(&ms, last, a, false, true, t) - t == hit);
	memsys_free(&ms);

	/* one SM's working set past its near partition: the near partition's
	 * victims are found in the far one */
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	memsys_access(&ms, 0, a, false, true, 0);
	t = 1e6;
	for (uint64_t i = 1; i <= 12288; i++) /* 1.5 MiB of lines: 1.5 x a partition */
		memsys_access(&ms, 0, a + i * 128, false, true, t);
	t = 1e8;
	assert_true(memsys_access(&ms, 0, a, false, true, t) - t == hit + 200);
	memsys_free(&ms);
}

/* mem.partition_hash: 256 B chunks dealt by a hash of the chunk, as the
 * H100's homes measure (cuda/hwbench.cu home): a chunk's sectors share a
 * partition, the partitions get about half each, and power-of-two
 * strides, which the round-robin map keeps on one partition, spread over
 * both; a partition's lines keep their global address. */
static void test_partition_hash(void **st)
{
	(void)st;
	struct gpuvm_config cfg;
	small_config(&cfg, 2);
	cfg.mem_partition_interleave_bytes = 256;
	cfg.mem_partition_hash = 1;
	struct memsys ms;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	uint32_t count[2] = {0, 0}, differ = 0;
	for (uint64_t chunk = 0; chunk < 4096; chunk++) {
		uint32_t p = memsys_partition_of(&ms, chunk * 256);
		assert_int_equal(memsys_partition_of(&ms, chunk * 256 + 255), p);
		uint64_t local;
		memsys_route(&ms, chunk * 256 + 32, &local);
		assert_int_equal(local, chunk * 256 + 32);
		count[p]++;
		differ += chunk && p != memsys_partition_of(&ms, (chunk - 1) * 256);
	}
	assert_true(count[0] > 1900 && count[1] > 1900);
	assert_true(differ > 1800 && differ < 2300); /* neighbours independent */
	for (uint64_t stride = 512; stride <= (1u << 20); stride *= 2) {
		uint32_t in1 = 0;
		for (uint64_t i = 0; i < 1024; i++)
			in1 += memsys_partition_of(&ms, i * stride);
		assert_true(in1 > 400 && in1 < 624);
	}
	memsys_free(&ms);
	/* off: every 4 KiB stride on partition 0 (the map test_address_map
	 * checks) */
	cfg.mem_partition_interleave_bytes = 4096;
	cfg.mem_partition_hash = 0;
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	for (uint64_t i = 0; i < 64; i++)
		assert_int_equal(memsys_partition_of(&ms, i * 8192), 0);
	memsys_free(&ms);
}

/* mem.partition_hash = xor: each run of n consecutive chunks gives one to
 * every partition (a stream spreads evenly, not by chance as with the
 * hash), in an order a hash of the run permutes (power-of-two strides
 * spread over all of them), and a chunk is its partition's run-th, so
 * each partition's addresses are dense and never collide; 8 partitions
 * (a power of two: XOR) and 6 (added modulo n). */
static void test_partition_xor(void **st)
{
	(void)st;
	static const uint32_t parts[] = {8, 6};
	for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
		uint32_t n = parts[k];
		struct gpuvm_config cfg;
		small_config(&cfg, n);
		cfg.dram_channels = 24; /* divisible by 8 and 6 */
		cfg.l2_bytes = 3u << 20;
		cfg.l2_ways = 16;
		cfg.mem_partition_interleave_bytes = 256;
		cfg.mem_partition_hash = 2;
		struct memsys ms;
		memset(&stats, 0, sizeof stats);
		assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
		uint32_t moved = 0;
		for (uint64_t run = 0; run < 512; run++) {
			uint32_t seen = 0, first = UINT32_MAX;
			for (uint64_t j = 0; j < n; j++) {
				uint64_t chunk = run * n + j, local;
				uint32_t p = memsys_partition_of(&ms, chunk * 256);
				assert_int_equal(memsys_partition_of(&ms, chunk * 256 + 255), p);
				memsys_route(&ms, chunk * 256 + 40, &local);
				assert_int_equal(local, run * 256 + 40); /* the run-th of its partition */
				seen |= 1u << p;
				if (j == 0)
					first = p;
			}
			assert_int_equal(seen, (1u << n) - 1); /* one each */
			moved += first != 0;
		}
		assert_true(moved > 300); /* the runs' orders differ */
		for (uint64_t stride = 512; stride <= (1u << 20); stride *= 2) {
			uint32_t count[8] = {0};
			for (uint64_t i = 0; i < 800; i++)
				count[memsys_partition_of(&ms, i * stride)]++;
			for (uint32_t p = 0; p < n; p++)
				assert_true(count[p] > 800 / n / 2 && count[p] < 800 / n * 2);
		}
		memsys_free(&ms);
	}
	/* a near/far pair keeps lines at their global address: refused */
	struct gpuvm_config cfg;
	gpuvm_config_defaults(&cfg);
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_config_set(&cfg, "mem.partitions=2", "test", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "mem.far_latency_cycles=200", "test", &err), 0);
	assert_int_equal(gpuvm_config_set(&cfg, "mem.partition_hash=xor", "test", &err), 0);
	assert_int_not_equal(gpuvm_config_finalize(&cfg, &err), 0);
	assert_non_null(strstr(err.msg, "mem.partition_hash = xor"));
}

/* dram.interleave: a partition's channels take its own addresses in
 * chunks of that many bytes (p100, v100: 1 KiB, Jain et al.'s map), so
 * a 1 KiB run of sectors lies in one channel; 0 keeps 256 B chunks. */
static void test_dram_interleave(void **st)
{
	(void)st;
	static const uint32_t chunk[] = {0, 1024};
	for (size_t k = 0; k < 2; k++) {
		struct gpuvm_config cfg;
		small_config(&cfg, 2);
		cfg.dram_banks = 16;
		cfg.dram_interleave_bytes = chunk[k];
		struct memsys ms;
		memset(&stats, 0, sizeof stats);
		assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
		uint32_t bytes = chunk[k] ? chunk[k] : 256, ch0, bank, ch;
		uint64_t row;
		for (uint64_t base = 0; base < (1u << 20); base += bytes) {
			dram_model_locate(&ms.part[0].dram_banks.spec, base, &ch0, &bank, &row);
			for (uint64_t o = 32; o < bytes; o += 32) {
				dram_model_locate(&ms.part[0].dram_banks.spec, base + o, &ch, &bank, &row);
				assert_int_equal(ch, ch0); /* the chunk is one channel's */
			}
			dram_model_locate(&ms.part[0].dram_banks.spec, base + bytes, &ch, &bank, &row);
			if (base == 0)
				assert_int_not_equal(ch, ch0); /* the next chunk another's */
		}
		memsys_free(&ms);
	}
}

/* mem.far_home_dram_cycles: a DRAM read homed in the far partition adds
 * that crossing (H100: 64 cycles measured, where an L2 far hit costs
 * 245); 0 keeps mem.far_latency_cycles. */
static void test_far_home_dram_cycles(void **st)
{
	(void)st;
	double near_far_gap[2];
	for (int own = 0; own < 2; own++) {
		struct gpuvm_config cfg;
		small_config(&cfg, 2);
		cfg.mem_far_latency_cycles = 200;
		cfg.mem_far_home_dram = 1;
		cfg.mem_far_home_dram_cycles = own ? 80 : 0;
		struct memsys ms;
		memset(&stats, 0, sizeof stats);
		assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
		/* SM 0's near partition is 0: chunk 0 is homed near, chunk 1 far */
		assert_int_equal(memsys_partition_of(&ms, 1ull << 30), 0);
		assert_int_equal(memsys_partition_of(&ms, (1ull << 30) + 4096), 1);
		double near = memsys_access(&ms, 0, 1ull << 30, false, true, 0);
		double far = memsys_access(&ms, 0, (1ull << 30) + 4096, false, true, 1e6) - 1e6;
		near_far_gap[own] = far - near;
		memsys_free(&ms);
	}
	assert_true(near_far_gap[0] == 200);
	assert_true(near_far_gap[1] == 80);
}

/* L2 slices: n hits to L2-resident lines, all issued at t = 0, are back
 * no sooner than the slices' rate allows (n sectors over slices x 32 B a
 * cycle); without l2.slices every hit is back at its latency. A slice is
 * a capacity calendar of 32-cycle slots (mem/server_pool.h): the 32 hits
 * a slot holds start together, so the spread is the rate's, in whole
 * slots. Returns the last hit's return minus the first's. */
static double hit_burst_spread(uint32_t slices, uint32_t n)
{
	struct gpuvm_config cfg;
	small_config(&cfg, 1);
	cfg.l2_slices = slices;
	cfg.l2_slice_bytes_per_cycle = slices ? 32 : 0;
	struct memsys ms;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	for (uint32_t i = 0; i < n; i++) /* fill, far apart in time */
		memsys_access(&ms, 0, (uint64_t)i * 32, false, true, 1e6 + 1e3 * i);
	double first = 1e300, last = 0;
	for (uint32_t i = 0; i < n; i++) {
		double r = memsys_access(&ms, 0, (uint64_t)i * 32, false, true, 1e8);
		first = r < first ? r : first;
		last = r > last ? r : last;
	}
	assert_int_equal(stats.l2_sector_hits, n);
	memsys_free(&ms);
	return last - first;
}

/* l2.copy_fill (memsys_copy_fill): a copy's lines are in the L2 after it,
 * so a read of them is an L2 hit, where without the fill it reads DRAM;
 * of a copy twice the L2 only the last L2-size part stays, so its first
 * line misses and its last hits; the filled lines are dirty, so the reads
 * that evict them write them back. One and two (near/far) partitions. */
static void test_copy_fill(void **st)
{
	(void)st;
	for (uint32_t parts = 1; parts <= 2; parts++) {
		struct gpuvm_config cfg;
		small_config(&cfg, parts);
		if (parts == 2)
			cfg.mem_far_latency_cycles = 200;
		struct memsys ms;
		memset(&stats, 0, sizeof stats);
		assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
		double hit = 2 * ms.crossbar_cycles + ms.l2_hit;
		uint64_t a = 1ull << 30, b = 1ull << 32;
		/* 64 KiB copied: every sector hits, at its home (near for SM 0
		 * on the first partition's chunks) */
		memsys_copy_fill(&ms, a, 65536, 0);
		double t = 1e6;
		for (uint64_t o = 0; o < 65536; o += 32) {
			double d = memsys_access(&ms, 0, a + o, false, true, t) - t;
			assert_true(d == hit || (parts == 2 && d == hit + 200));
		}
		assert_int_equal(stats.l2_sector_misses, 0);
		/* a copy of twice the L2: its start was pushed out by its end */
		memsys_copy_fill(&ms, b, 2 * cfg.l2_bytes, 2e6);
		t = 3e6;
		assert_true(memsys_access(&ms, 0, b + 2 * cfg.l2_bytes - 32, false, true, t) - t <=
			    hit + 200);
		assert_true(memsys_access(&ms, 0, b, false, true, t) - t > hit + 200); /* DRAM */
		/* reading other lines evicts the copy's dirty ones: DRAM carries
		 * more than the reads' own sectors (the write-backs) */
		uint64_t d0 = stats.dram_bytes, m0 = stats.l2_sector_misses;
		for (uint64_t o = 0; o < cfg.l2_bytes; o += 128)
			memsys_access(&ms, 0, a + (1ull << 28) + o, false, true, 4e6);
		assert_true(stats.dram_bytes - d0 > (stats.l2_sector_misses - m0) * 32 + cfg.l2_bytes / 4);
		memsys_free(&ms);
	}
}

/* l2.in_flight (gem5-gpu's Ruby L2 stalls a Get to a block whose fill is
 * out, VI_hammer-GPUL2cache.sm): a second read of a sector one cycle
 * after the first's miss gets its data when the fill arrives under wait,
 * at the hit latency under hit (the model before the key); a page walk's
 * entry read waits the same way; a line the read finds arrived (later)
 * is a plain hit; a store's allocation has nothing on its way. */
/* The l2.in_flight tests' memory side: counters cleared, ms made from
 * cfg; returns a read's L2 hit time there and back (crossbars and hit). */
static double in_flight_init(struct memsys *ms, const struct gpuvm_config *cfg)
{
	memset(&stats, 0, sizeof stats);
	assert_int_equal(memsys_init(ms, cfg, &stats), 0);
	return 2 * ms->crossbar_cycles + ms->l2_hit;
}

static void test_l2_in_flight(void **st)
{
	(void)st;
	for (uint32_t wait = 0; wait <= 1; wait++) {
		struct gpuvm_config cfg;
		small_config(&cfg, 1);
		cfg.l2_in_flight_wait = wait;
		struct memsys ms;
		double hit = in_flight_init(&ms, &cfg);
		uint64_t a = 1ull << 30;
		double first = memsys_access(&ms, 0, a, false, true, 100);
		assert_true(first - 100 > hit + 100); /* DRAM */
		double second = memsys_access(&ms, 1, a, false, true, 101);
		assert_int_equal(stats.l2_sector_hits, 1);
		if (wait)
			assert_true(second == first);
		else
			assert_true(second == 101 + hit);
		/* a walk's entry read of a sector on its way (0: an L2 hit) */
		uint64_t b = a + 4096;
		double pte_miss = memsys_pte_read(&ms, b, 200);
		double pte_hit = memsys_pte_read(&ms, b, 201);
		assert_true(pte_miss > 100);
		if (wait)
			assert_true(fabs(pte_hit - (200 + pte_miss - 201)) < 1e-9);
		else
			assert_true(pte_hit == 0);
		/* long after: a hit at the hit latency either way */
		assert_true(memsys_access(&ms, 2, a, false, true, 1e6) == 1e6 + hit);
		/* a store's allocation: a read right after it hits at once */
		uint64_t c = a + 8192;
		memsys_access(&ms, 0, c, true, false, 300);
		assert_true(memsys_access(&ms, 1, c, false, true, 301) == 301 + hit);
		memsys_free(&ms);
	}
}

/* l2.in_flight = wait with banked DRAM: a load's misses gather into a
 * run whose sectors arrive when the run is sent (memsys_flush_runs); a
 * later load's hit on one of them waits for that arrival, where hit
 * answers at the hit latency; a hit on a sector of a run still open sends
 * the run first (its arrival is not known before). */
static void test_l2_in_flight_banked(void **st)
{
	(void)st;
	for (uint32_t wait = 0; wait <= 1; wait++) {
		struct gpuvm_config cfg;
		small_config(&cfg, 1);
		cfg.dram_banks = 16;
		cfg.l2_in_flight_wait = wait;
		struct memsys ms;
		double hit = in_flight_init(&ms, &cfg);
		uint64_t a = 1ull << 30;
		/* one load: four sectors of a line, one run */
		double done = -INFINITY;
		for (uint32_t s = 0; s < 4; s++)
			done = memsys_load_run_sector(&ms, 0, a + 32 * s, 100, done);
		assert_true(done == -INFINITY); /* the run is open */
		double first = memsys_flush_runs(&ms, done);
		assert_true(first - 100 > hit + 20); /* DRAM */
		/* another SM's load of the third sector, just after */
		double second = memsys_flush_runs(&ms, memsys_load_run_sector(&ms, 1, a + 64, 101,
									     -INFINITY));
		assert_int_equal(stats.l2_sector_hits, 1);
		if (wait)
			assert_true(second == first);
		else
			assert_true(second == 101 + hit);
		/* a hit on a sector of the open run: the run is sent first */
		uint64_t b = a + 4096;
		done = memsys_load_run_sector(&ms, 0, b, 200, -INFINITY);
		assert_true(done == -INFINITY);
		double h = memsys_load_run_sector(&ms, 1, b, 201, -INFINITY);
		assert_true(ms.part[0].run.n == (wait ? 0u : 1u));
		double sent = memsys_flush_runs(&ms, -INFINITY);
		if (wait) {
			assert_true(sent == -INFINITY); /* nothing left open */
			assert_true(h > 201 + hit);     /* its data with the run */
		} else {
			assert_true(h == 201 + hit);
			assert_true(sent > 201 + hit);
		}
		/* long after: a plain hit */
		assert_true(memsys_flush_runs(&ms, memsys_load_run_sector(&ms, 2, a, 1e6,
									  -INFINITY)) == 1e6 + hit);
		memsys_free(&ms);
	}
}

/* l2.in_flight = wait with near and far partitions: the other half's
 * far hit on a line its near partition's fill has not brought yet waits
 * for it (under hit it is answered at the far hit's latency); the near
 * partition's copy then arrives at that time too. */
static void test_l2_in_flight_near_far(void **st)
{
	(void)st;
	for (uint32_t wait = 0; wait <= 1; wait++) {
		struct gpuvm_config cfg;
		small_config(&cfg, 2);
		cfg.mem_far_latency_cycles = 20;
		cfg.l2_in_flight_wait = wait;
		struct memsys ms;
		double hit = in_flight_init(&ms, &cfg);
		uint32_t last = cfg.sms - 1;
		uint64_t a = 1ull << 30;
		double first = memsys_access(&ms, 0, a, false, true, 0);
		assert_true(first > hit + 20 + 50); /* DRAM, well past a far hit */
		double near_again = memsys_access(&ms, 0, a, false, true, 1);
		double far = memsys_access(&ms, last, a, false, true, 1);
		double far_again = memsys_access(&ms, last, a, false, true, 2);
		if (wait) {
			assert_true(near_again == first);
			/* the near fill, then half the crossing back */
			assert_true(fabs(far - (first + 10)) < 1e-9);
			assert_true(far_again == far);
		} else {
			assert_true(near_again == 1 + hit);
			assert_true(far == 1 + hit + 20);
			assert_true(far_again == 2 + hit);
		}
		memsys_free(&ms);
	}
}

static void test_l2_slice_throughput(void **st)
{
	(void)st;
	double none = hit_burst_spread(0, 2048), one = hit_burst_spread(1, 2048);
	double eight = hit_burst_spread(8, 2048);
	printf("  2048 hits at once: spread without slices %.0f, 1 slice %.0f, 8 slices %.0f cycles\n",
	       none, one, eight);
	assert_true(none == 0);                   /* latency only */
	assert_true(one >= 2048 - 64 && one <= 2048); /* one sector a cycle, in whole slots */
	/* 8 slices: 256 sectors each at best; the hash's imbalance bounded */
	assert_true(eight >= 256 - 32 && eight <= 1.25 * 256);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_partition_is_identity),
		cmocka_unit_test(test_address_map),
		cmocka_unit_test(test_l2_slices_per_partition),
		cmocka_unit_test(test_partitions_do_not_contend),
		cmocka_unit_test(test_epoch_orders_partitions),
		cmocka_unit_test(test_near_far),
		cmocka_unit_test(test_partition_hash),
		cmocka_unit_test(test_partition_xor),
		cmocka_unit_test(test_far_home_dram_cycles),
		cmocka_unit_test(test_dram_interleave),
		cmocka_unit_test(test_l2_slice_throughput),
		cmocka_unit_test(test_copy_fill),
		cmocka_unit_test(test_l2_in_flight),
		cmocka_unit_test(test_l2_in_flight_banked),
		cmocka_unit_test(test_l2_in_flight_near_far),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
