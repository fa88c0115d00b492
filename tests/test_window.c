/* core.window (issue 34): the windowed algorithm a partitioned engine
 * runs. Checks its window from the presets by hand, that no result comes
 * back before its window's barrier, that it stays within a small band of
 * the event-order engine on the kinds of run the product has (generators,
 * SIMT kernels with barriers, a trace with registers, managed memory),
 * that the TLB probe's clock reads the same hops, that it is
 * deterministic, also with SIMT worker threads, and that its barrier on
 * two threads (--threads) gives the one-thread report, every field. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers" /* cases name what they set */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"
#include "tsan_env.h"
#include "gpuvm/config.h"
#include "gpuvm/probe.h"
#include "par/thread_profile.h"
#include "sm/sm.h"

static struct gpuvm_config cfg; /* large: not on the stack */

static void load(const char *name, const char *set)
{
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&cfg, name, &err), 0);
	if (set)
		assert_int_equal(gpuvm_config_set(&cfg, set, "test", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
}

/* The window is the shortest issue-to-result time of a global memory
 * instruction: the L1 hit, or without an L1 the L2 round trip. */
static void test_window_cycles(void **state)
{
	(void)state;
	load("p100", NULL); /* L1 82 (Jia et al.), L2 path 173 + 120 */
	assert_true(sm_window_cycles(&cfg) == 82);
	load("h100-pcie", NULL); /* L1 32 (Luo's H800 PCIe) */
	assert_true(sm_window_cycles(&cfg) == 32);
	load("p100", "l1.size=0"); /* no L1: the L2 round trip */
	assert_true(sm_window_cycles(&cfg) == 173 + 120);
	load("h100-pcie", "l1.hit_latency_cycles=0"); /* never below a cycle */
	assert_true(sm_window_cycles(&cfg) == 1);
}

struct win_case {
	const char *gpu, *workload, *trace;
	const char *extra; /* another --set, or NULL */
	double band;       /* |on / off - 1| at most */
	/* the work depends on the order warps ask for items (hash-groupby's
	 * threads race for buckets: who probes further changes) */
	bool racing;
};

static char bptree[1024];

static cJSON *run_case(const struct win_case *c, bool window, uint32_t threads)
{
	struct gpuvm_run_spec spec = {.gpu = c->gpu, .workload = c->workload, .seed = 1,
				      .threads = threads};
	char wl[1200];
	if (c->trace) {
		snprintf(wl, sizeof wl, "trace-accelsim:%s/kernelslist.g", bptree);
		spec.workload = wl;
	}
	if (window)
		spec.sets[spec.n_sets++] = "core.window=on";
	if (c->extra)
		spec.sets[spec.n_sets++] = c->extra;
	return run_report(&spec);
}

/* Within a small band of the event-order engine, both ways, with every
 * result at or after its barrier and the barriers counted; off, the
 * report has no window rows (its JSON as before the key). The bands are
 * the measured deviations (docs/parallel.md, "The windowed algorithm")
 * with room: applying a window's instructions in key order instead of
 * as they issue moves these runs by 0.003-0.3 %, hash-groupby's racing
 * inserts by 0.9 %. */
static void test_window_near_event_order(void **state)
{
	(void)state;
	/* one thread: nothing for ThreadSanitizer (tests/tsan_env.h) */
	if (test_under_tsan())
		skip();
	const struct win_case cases[] = {
		{"p100", "random-sampling:region=256MiB,reads=16,threads=57344", NULL, NULL, 0.005},
		{"h100", "stream-triad:elems=1048576", NULL, NULL, 0.005},
		/* a warp's end waits for its stores' acks: it ends at the barrier */
		{"h100", "stream-triad:elems=262144,block=64", NULL, "gpu.warp_exit_waits_stores=on", 0.005},
		{"h100-pcie", "gemm:n=64", NULL, NULL, 0.01},
		{"h100-pcie", "scalarprod:vectors=64,elements=1024", NULL, NULL, 0.01},
		/* 4,096 CTAs, four waves: slots freed in a window are refilled
		 * at its barrier */
		{"h100-pcie", "2dconv:n=1024", NULL, NULL, 0.005},
		{"h100-pcie", NULL, "bptree", NULL, 0.005},
		{"k80", "hash-groupby:input=262144,region=64MiB", NULL, NULL, 0.02, true},
		{"p100", "random-sampling:region=64MiB,reads=8,threads=14336,mem=managed", NULL,
		 "uvm.oversub_percent=125", 0.01},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct win_case *c = &cases[i];
		cJSON *off = run_case(c, false, 1), *on = run_case(c, true, 1);
		double t_off = report_num(off, "sim_cycles"), t_on = report_num(on, "sim_cycles");
		double dev = t_on / t_off - 1;
		printf("  %-10s %-58s off %.1f on %.1f (%+.3f %%), %.0f windows\n", c->gpu,
		       c->workload ? c->workload : "b+tree trace", t_off, t_on, 100 * dev,
		       report_num_or(on, "windows", -1));
		assert_true(fabs(dev) <= c->band);
		assert_true(report_num_or(on, "windows", 0) > 0);
		assert_true(report_num_or(on, "window_early_results", -1) == 0);
		assert_true(report_num_or(off, "windows", -1) == -1);
		/* the same work either way, unless threads race: every count
		 * the SM partitions keep in their shards and the barrier
		 * merges (src/system/partition.c), and every CTA placed,
		 * those refilled at a barrier too */
		const char *counts[] = {"memory_instructions", "warp_instructions", "thread_accesses",
					"local_instructions", "shared_instructions", "barriers",
					"shared_wavefronts", "ctas", "warps"};
		for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
			assert_true(c->racing ||
				    report_num(on, counts[k]) == report_num(off, counts[k]));
		/* the shards' stall cycles (a section of rows, merged by
		 * walking it): a cause that stalls the event-order run stalls
		 * the windowed one, whose timing differs by the band only */
		const cJSON *st_on = cJSON_GetObjectItemCaseSensitive(on, "stall_cycles");
		const cJSON *st_off = cJSON_GetObjectItemCaseSensitive(off, "stall_cycles");
		const char *causes[] = {"memory", "dependency", "barrier", "issue", "fault"};
		for (size_t k = 0; k < sizeof causes / sizeof causes[0]; k++)
			assert_true((report_num(st_on, causes[k]) > 0) ==
				    (report_num(st_off, causes[k]) > 0));
		cJSON_Delete(off);
		cJSON_Delete(on);
	}
}

/* The TLB probe's chase reads the clock after each load's value is used
 * (gpuvm_kernel.reads_clock): with the window its warp asks for the next
 * item only after the barrier applied the load, so the per-hop latencies
 * are the event-order engine's, to the cycle, below and past each TLB
 * level's reach (p100: 82-cycle L1 hit; 2 MiB strides past the L1 TLB's
 * 16 entries and the L2 TLB's 2048). */
static double chase_latency(const char *set, uint64_t stride, uint32_t hops)
{
	load("p100", set);
	struct gpuvm_probe_backend b;
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_probe_backend_sim(&b, &cfg, &err), 0);
	double lat = 0;
	if (b.ops->chase(&b, stride, hops, &lat, &err))
		fail_msg("chase: %s", err.msg);
	gpuvm_probe_backend_free(&b);
	return lat;
}

static void test_window_probe_clock(void **state)
{
	(void)state;
	/* one thread: nothing for ThreadSanitizer (tests/tsan_env.h) */
	if (test_under_tsan())
		skip();
	const struct {
		uint64_t stride;
		uint32_t hops;
	} pts[] = {{2u << 20, 8}, {2u << 20, 64}, {2u << 20, 4096}, {64u << 10, 64}};
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		double off = chase_latency(NULL, pts[i].stride, pts[i].hops);
		double on = chase_latency("core.window=on", pts[i].stride, pts[i].hops);
		printf("  chase stride %llu x %u hops: %.3f cycles per hop, windowed %.3f\n",
		       (unsigned long long)pts[i].stride, pts[i].hops, off, on);
		assert_true(off > 80);
		assert_true(on == off);
	}
}

/* Deterministic: the same run twice, and a SIMT kernel run ahead by
 * worker threads, give the same report. */
static void test_window_deterministic(void **state)
{
	(void)state;
	struct win_case c = {"h100", "stream-triad-simt:elems=262144", NULL, NULL, 0};
	/* not under ThreadSanitizer: a comparison of runs, whose threads'
	 * code test_window_threads_identical and test_window_split's SIMT
	 * triads run there (tests/tsan_env.h) */
	if (test_under_tsan())
		skip();
	cJSON *a = run_case(&c, true, 1), *b = run_case(&c, true, 1), *t = run_case(&c, true, 3);
	const char *keys[] = {"sim_cycles", "windows", "l2_sector_hits", "dram_bytes"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		assert_true(report_num_or(a, keys[i], -1) == report_num_or(b, keys[i], -2));
		assert_true(report_num_or(a, keys[i], -1) == report_num_or(t, keys[i], -2));
	}
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(t);
}

/* --threads with the window: a barrier's translations on this thread,
 * its sectors' data on another (sm_window.c), give the report one thread
 * gives, every field, at 2, 3 and 8 threads; every path of the second
 * stage is taken on the other thread (GPUVM_WINDOW_THREADS=all; the L1,
 * atomics at the L2, zero-copy reads over the link, stores held by the
 * L2's write-backs and acked to the warp's end, DRAM runs, a trace with
 * registers), and without it random sampling (a translation a lane) goes
 * there by itself while a triad (a translation a warp) does not. Where
 * the stages share state (managed memory, page-table reads through the
 * L2) the barrier stays on one thread: the same report too. The second
 * stage's thread reports its CPU time as it ends (bench --profile), as do
 * the helpers of the SM partitions' pool (src/system/partition.h),
 * which run the windows of kernels whose warps are independent (the
 * generators of random sampling and the triad; not hash-groupby's racing
 * buckets or a trace) when GPUVM_WINDOW_THREADS is partitions or all. */
static void test_window_threads_identical(void **state)
{
	(void)state;
	const struct {
		struct win_case c;
		const char *env; /* GPUVM_WINDOW_THREADS (NULL: unset) */
		int on_thread; /* 1: the second stage ran on a thread, 0: not, -1: either */
		int parts;     /* 1: the partitions ran on the pool's threads, 0: not, -1: either */
	} cases[] = {
		{{"p100", "random-sampling:region=256MiB,reads=16,threads=57344"}, NULL, 1, 0},
		{{"k80", "random-sampling:region=256MiB,reads=8,threads=14336"}, NULL, 1, 0},
		{{"p100", "stream-triad:elems=262144"}, NULL, 0, 0},
		{{"p100", "stream-triad:elems=262144"}, "partitions", 0, 1},
		{{"k80", "hash-groupby:input=131072,region=32MiB"}, "all", 1, 0},
		{{"h100-pcie", NULL, "bptree", "walker.pte_reads=none"}, "all", -1, 0},
		{{"h100", "stream-triad:elems=262144,block=64", NULL, "walker.pte_reads=none"}, "all", 1, 1},
		{{"h100-pcie", "gemm:n=64", NULL, "walker.pte_reads=none"}, "all", -1, 0},
		{{"p100", "random-sampling:region=64MiB,reads=8,threads=14336,mem=managed", NULL,
		  "uvm.oversub_percent=125"}, "all", 0, 1},
		{{"h100", "random-sampling:region=64MiB,reads=8,threads=14336"}, "all", 0, 1},
	};
	const uint32_t *threads;
	const size_t n_threads = test_thread_counts(&threads);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct win_case *c = &cases[i].c;
		if (cases[i].env)
			setenv("GPUVM_WINDOW_THREADS", cases[i].env, 1);
		/* under ThreadSanitizer the runs on threads alone, not
		 * compared: one thread's report is the other passes' to
		 * compare (tests/tsan_env.h) */
		cJSON *one = test_under_tsan() ? NULL : run_case(c, true, 1);
		if (one)
			report_drop_wall_fields(one);
		for (size_t k = 0; k < n_threads; k++) {
			thread_profile_reset();
			cJSON *many = run_case(c, true, threads[k]);
			struct thread_profile_snapshot prof;
			thread_profile_read(&prof);
			report_drop_wall_fields(many);
			bool same = !one || cJSON_Compare(one, many, true);
			printf("  %-9s %-52s --threads %u: %s, %u helper threads ended\n", c->gpu,
			       c->workload ? c->workload : "b+tree trace", threads[k],
			       !one ? "not compared" : same ? "same report" : "DIFFERENT REPORT",
			       prof.threads);
			assert_true(same);
			/* the generators start no other thread: the pipe's and
			 * the pool's (threads - 1 helpers) are all */
			if (cases[i].on_thread >= 0 && cases[i].parts >= 0)
				assert_int_equal(prof.threads,
						 (uint32_t)cases[i].on_thread +
							 (cases[i].parts ? threads[k] - 1 : 0));
			cJSON_Delete(many);
		}
		cJSON_Delete(one);
		unsetenv("GPUVM_WINDOW_THREADS");
	}
}

static int setup(void **state)
{
	(void)state;
	const char *src = getenv("GPUVM_SOURCE_DIR");
	snprintf(bptree, sizeof bptree, "%s/traces/accelsim-rodinia-bptree-h100", src ? src : ".");
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_cycles),
		cmocka_unit_test(test_window_near_event_order),
		cmocka_unit_test(test_window_probe_clock),
		cmocka_unit_test(test_window_deterministic),
		cmocka_unit_test(test_window_threads_identical),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
