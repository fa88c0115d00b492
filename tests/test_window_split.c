/* core.window with memory partitions on threads (src/sm/sm_split.c): a
 * barrier's memory side served one memory partition per task gives the
 * report one thread gives (the barrier served instruction by
 * instruction), every field, at 2, 3 and 8 threads. The cases take every
 * path a sector has there: the L1 with fills hit again in the same window
 * (cached global loads, a line's other sectors with l1.fill = line), DRAM
 * runs gathered per partition, atomics at the L2 with the atomic unit's
 * cycles and its queue per address, stores held by write-backs and acked to the warp's end,
 * zero-copy reads and atomics over the link (its own task). It also
 * checks that each partition gathers its own DRAM runs (memsys.h), and
 * that the split ran: the pool's threads - 1 helpers ended. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers" /* cases name what they set */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"
#include "tsan_env.h"
#include "gpuvm/config.h"
#include "memsys/memsys.h"
#include "par/thread_profile.h"

/* P100's eight memory controllers (GP100 whitepaper) as partitions,
 * chunks dealt out in turn (mem.partition_hash = xor). */
static const char *const partitions[] = {"core.window=on", "mem.partitions=8",
					 "mem.partition_hash=xor",
					 "mem.partition_interleave=256"};

struct split_case {
	const char *gpu, *workload;
	const char *extra[3];
	bool workers; /* a SIMT kernel: its worker threads end too */
	/* the workload under ThreadSanitizer, where not the same: smaller,
	 * the same threaded lines run (gcov, 2026-11-30) */
	const char *tsan_workload;
};

static cJSON *run_split(const struct split_case *c, uint32_t threads)
{
	struct gpuvm_run_spec spec = {.gpu = c->gpu, .workload = c->workload, .seed = 1,
				      .threads = threads};
	for (size_t i = 0; i < sizeof partitions / sizeof partitions[0]; i++)
		spec.sets[spec.n_sets++] = partitions[i];
	for (size_t i = 0; i < 3 && c->extra[i]; i++)
		spec.sets[spec.n_sets++] = c->extra[i];
	cJSON *o = run_report(&spec);
	report_drop_wall_fields(o);
	return o;
}

static void test_split_identical(void **state)
{
	(void)state;
	const struct split_case cases[] = {
		{"p100", "random-sampling:region=64MiB,reads=8,threads=14336"},
		{"p100", "stream-triad:elems=1048576",
		 {"l2.writeback_stall=on", "gpu.warp_exit_waits_stores=on"}},
		{"p100", "hash-groupby:input=131072,region=4MiB,chunk=256KiB",
		 {"l1.global_loads=cached", "l2.atomic_latency_cycles=40"}},
		{"p100", "bfs:graph=rmat:scale=11", {"l1.global_loads=cached", "l1.fill=line"}, true},
		{"p100", "stream-triad-simt:elems=65536,mem=pinned", {NULL}, true},
		{"p100", "stream-triad-simt:elems=1000003,block=96", {NULL}, true,
		 "stream-triad-simt:elems=200003,block=96"}, /* 2084 CTAs: more than fit */
		{"k80", "stream-triad:elems=262144", {"mem.partitions=6"}},
		/* atomics queued at their addresses (l2.atomic_address_cycles):
		 * each partition task keeps its own addresses' queues */
		{"p100", "hash-groupby:input=131072,region=1MiB,chunk=256KiB",
		 {"l2.atomic_address_cycles=2"}},
		{"p100", "ubench-atomic:mode=same,blocks=32,block=256,steps=4",
		 {"l2.atomic_address_cycles=1"}, true},
	};
	const uint32_t *threads;
	const size_t n_threads = test_thread_counts(&threads);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct split_case tc = cases[i];
		if (tc.tsan_workload && test_under_tsan())
			tc.workload = tc.tsan_workload;
		const struct split_case *c = &tc;
		/* under ThreadSanitizer the runs on threads alone, not
		 * compared: one thread's report is the other passes' to
		 * compare (tests/tsan_env.h) */
		setenv("GPUVM_WINDOW_SPLIT", "0", 1);
		cJSON *one = test_under_tsan() ? NULL : run_split(c, 1);
		setenv("GPUVM_WINDOW_SPLIT", "1", 1);
		for (size_t k = 0; k < n_threads; k++) {
			thread_profile_reset();
			cJSON *many = run_split(c, threads[k]);
			struct thread_profile_snapshot prof;
			thread_profile_read(&prof);
			bool same = !one || cJSON_Compare(one, many, true);
			printf("  %-5s %-52s --threads %u: %s, %u helper threads ended\n", c->gpu,
			       c->workload, threads[k],
			       !one ? "not compared" : same ? "same report" : "DIFFERENT REPORT",
			       prof.threads);
			assert_true(same);
			/* the split's pool, and nothing else (a SIMT kernel's
			 * workers aside) */
			if (!c->workers)
				assert_int_equal(prof.threads, threads[k] - 1);
			cJSON_Delete(many);
		}
		cJSON_Delete(one);
		unsetenv("GPUVM_WINDOW_SPLIT");
	}
}

/* Each partition gathers its own misses: a sector of another partition
 * between two of this one's neither extends nor sends its run, so two
 * partitions' runs stay open side by side and are sent at the end. */
static void test_runs_per_partition(void **state)
{
	(void)state;
	static struct gpuvm_config cfg;
	struct gpuvm_error err;
	struct gpuvm_stats stats;
	memset(&stats, 0, sizeof stats);
	assert_int_equal(gpuvm_config_load(&cfg, "p100", &err), 0);
	for (size_t i = 1; i < sizeof partitions / sizeof partitions[0]; i++)
		assert_int_equal(gpuvm_config_set(&cfg, partitions[i], "test", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	struct memsys ms;
	assert_int_equal(memsys_init(&ms, &cfg, &stats), 0);
	/* two chunks of 256 B in different partitions, their sectors
	 * alternating: a0 b0 a1 b1 ... */
	uint64_t a = 0, b = 256;
	while (memsys_partition_of(&ms, b) == memsys_partition_of(&ms, a))
		b += 256;
	double done = 0;
	for (uint32_t s = 0; s < 8; s++) {
		done = memsys_load_run_sector(&ms, 0, a + 32 * s, 100, done);
		done = memsys_load_run_sector(&ms, 0, b + 32 * s, 100, done);
	}
	struct mem_partition *pa = &ms.part[memsys_partition_of(&ms, a)];
	struct mem_partition *pb = &ms.part[memsys_partition_of(&ms, b)];
	assert_int_equal(pa->run.n, 8); /* one run each, open */
	assert_int_equal(pb->run.n, 8);
	assert_int_equal(stats.dram_bytes, 0);
	done = memsys_flush_runs(&ms, done);
	assert_int_equal(pa->run.n, 0);
	assert_int_equal(pb->run.n, 0);
	assert_int_equal(stats.dram_bytes, 16 * 32);
	assert_true(done > 100);
	memsys_free(&ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_identical),
		cmocka_unit_test(test_runs_per_partition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
