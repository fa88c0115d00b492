/* Tests that notice a missing mechanism (issue 76, item 5). Each test runs
 * a small workload with a mechanism on and with the preset or config that
 * turns it off, and asserts the effect the mechanism has; a source edit
 * that removes the mechanism (docs/mutations.md lists the edits tried and
 * what caught each) makes both runs alike and fails the test. The
 * thresholds sit well inside the measured effects (quoted at each test)
 * and well outside zero. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run_util.h"

static cJSON *run_sets(const char *gpu, const char *workload, const char *const *sets)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = 1};
	for (int i = 0; sets && sets[i]; i++)
		spec.sets[spec.n_sets++] = sets[i];
	return run_report(&spec);
}

static double run_seconds(const char *gpu, const char *workload, const char *const *sets)
{
	cJSON *o = run_sets(gpu, workload, sets);
	double t = report_num(o, "sim_seconds");
	cJSON_Delete(o);
	return t;
}

/* A number of the report's "uvm" object. */
static double uvm_num(const cJSON *o, const char *key)
{
	return report_num(cJSON_GetObjectItemCaseSensitive(o, "uvm"), key);
}

/* DRAM refresh (src/memsys/memsys.c: the channels serve 1 - tRFC / tREFI
 * of the time). A STREAM triad over 24 MiB on p100 (4 MiB L2) with
 * JESD235 all-bank refresh (dram.trfcsb_ns = 0: tRFC 350 of tREFI 3900 ns)
 * against none: 3.768e-5 -> 4.077e-5 s, x1.082. */
static void test_dram_refresh(void **state)
{
	(void)state;
	const char *wl = "stream-triad:elems=1048576";
	static const char *const all_bank[] = {"dram.trfcsb_ns=0", NULL};
	static const char *const none[] = {"dram.trefi_ns=0", "dram.trfc_ns=0", "dram.trfcsb_ns=0",
					   NULL};
	double on = run_seconds("p100", wl, all_bank), off = run_seconds("p100", wl, none);
	printf("refresh: all-bank %.6g s, none %.6g s (x%.4f)\n", on, off, on / off);
	assert_true(on > 1.04 * off);
}

/* The L2 partition crossing (mem.far_latency_cycles, memsys.c
 * memsys_access_near_far): h100's L2 cut to 4,096,000 B (two partitions
 * of 2 MB), a one-thread chase over 3 MiB, so half the chain's lines live
 * in the far partition. With the crossing at 245 cycles a step costs 613
 * cycles, at 1 cycle 515: a far hit pays half the crossing each way. */
static double chase_cycles_per_step(const char *far)
{
	static const char *sets[3] = {"l2.size=4096000", NULL, NULL};
	sets[1] = far;
	cJSON *o = run_sets("h100", "ubench:test=chase,footprint=3MiB", sets);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	assert_non_null(k);
	/* steps = footprint / stride (128 B), two passes */
	double c = (report_num(k, "end_cycle") - report_num(k, "start_cycle")) / (2.0 * 24576);
	cJSON_Delete(o);
	return c;
}

static void test_l2_partition_crossing(void **state)
{
	(void)state;
	double far = chase_cycles_per_step("mem.far_latency_cycles=245");
	double near = chase_cycles_per_step("mem.far_latency_cycles=1");
	printf("partition crossing: %.1f cycles a step, %.1f without the crossing\n", far, near);
	assert_true(far - near > 50);
}

/* Far-fault MSHRs (uvm.far_fault_mshrs, uvm_fault.c: a fault finding
 * every MSHR of its SM busy is Nacked and replayed). K80, 64 MiB managed,
 * random reads, no prefetcher: 1 MSHR 2.48e-2 s, 16 MSHRs 5.53e-3 s. */
static void test_far_fault_mshrs(void **state)
{
	(void)state;
	const char *wl = "random-sampling:region=64MiB,reads=2,mem=managed";
	static const char *const one[] = {"uvm.prefetcher=none", "uvm.far_fault_mshrs=1", NULL};
	static const char *const sixteen[] = {"uvm.prefetcher=none", "uvm.far_fault_mshrs=16", NULL};
	double t1 = run_seconds("k80", wl, one), t16 = run_seconds("k80", wl, sixteen);
	printf("far-fault MSHRs: 1: %.6g s, 16: %.6g s\n", t1, t16);
	assert_true(t1 > 2 * t16);
}

/* TLB coalescing (sm/coalescer.h, sm_issue.c: the lanes of one warp
 * instruction that fall in one first-level TLB entry make one lookup). A
 * STREAM triad's warp reads 32 consecutive doubles, 256 B of one page:
 * one lookup per memory instruction (98304 of 98304 on p100); without
 * coalescing, one per lane. */
static void test_tlb_coalescing(void **state)
{
	(void)state;
	cJSON *o = run_sets("p100", "stream-triad:elems=1048576", NULL);
	double mi = report_num(o, "memory_instructions");
	double lookups = report_num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "tlb"), 0),
				    "lookups");
	cJSON_Delete(o);
	printf("coalescing: %.0f L1 TLB lookups for %.0f memory instructions\n", lookups, mi);
	assert_true(mi > 0 && lookups <= 1.01 * mi);
}

/* The page-walk cache (walker.pwc_*, xlat.c walk: a walk whose upper
 * levels hit takes pwc_hit_latency_cycles). K80 past its TLB reach
 * (3 GiB) with 4 walkers, so walks bound the run; 16 PWC entries of 1 GiB
 * hold every upper level: walks of 50 cycles instead of 150, 7.08e-4 ->
 * 2.67e-4 s, and 17939 of 17943 walks hit. */
static void test_page_walk_cache(void **state)
{
	(void)state;
	const char *wl = "random-sampling:region=3GiB,reads=4,threads=13312";
	static const char *const pwc[] = {"walker.walkers=4", "walker.pwc_entries=16",
					  "walker.pwc_entry_size=1GiB",
					  "walker.pwc_hit_latency_cycles=50", NULL};
	static const char *const nopwc[] = {"walker.walkers=4", NULL};
	cJSON *o = run_sets("k80", wl, pwc);
	double t_pwc = report_num(o, "sim_seconds"), hits = report_num(o, "pwc_hits");
	double walks = report_num(o, "walks");
	cJSON_Delete(o);
	double t_none = run_seconds("k80", wl, nopwc);
	printf("page-walk cache: %.0f of %.0f walks hit, %.6g s (none: %.6g s)\n", hits, walks,
	       t_pwc, t_none);
	assert_true(hits > 0.9 * walks);
	assert_true(t_pwc < 0.8 * t_none);
}

/* Access-counter migration (Ganguly et al., ISCA 2019; uvm.migration =
 * adaptive: a page read remotely migrates once its 64 KB block's access
 * count reaches the threshold). P100, 64 MiB managed at 110 %
 * oversubscription: 157 counter migrations beside 13548 remote reads. */
static void test_access_counter_migration(void **state)
{
	(void)state;
	static const char *const sets[] = {"uvm.migration=adaptive", "uvm.oversub_percent=110", NULL};
	cJSON *o = run_sets("p100", "random-sampling:region=64MiB,reads=8,mem=managed,threads=14336",
			    sets);
	double counter = uvm_num(o, "migrations_counter"), remote = uvm_num(o, "remote_accesses");
	cJSON_Delete(o);
	printf("access counters: %.0f counter migrations, %.0f remote reads\n", counter, remote);
	assert_true(remote > 0);
	assert_true(counter > 50);
}

/* The tree prefetcher (uvm.prefetcher = tree-driver, nvidia-uvm's
 * uvm_perf_prefetch.c): a managed STREAM triad on p100 takes 72 far
 * faults and prefetches 6072 pages; without the prefetcher every page
 * faults (6144 far faults). */
static void test_tree_prefetcher(void **state)
{
	(void)state;
	const char *wl = "stream-triad:elems=1048576,mem=managed";
	static const char *const none[] = {"uvm.prefetcher=none", NULL};
	cJSON *o = run_sets("p100", wl, NULL);
	double tree = uvm_num(o, "far_faults"), pf = uvm_num(o, "prefetched_pages");
	cJSON_Delete(o);
	o = run_sets("p100", wl, none);
	double plain = uvm_num(o, "far_faults");
	cJSON_Delete(o);
	printf("tree prefetcher: %.0f far faults, %.0f pages prefetched (none: %.0f faults)\n", tree,
	       pf, plain);
	assert_true(pf > 0);
	assert_true(tree * 10 < plain);
}

/* UVMSmart's one PCIe read slot (uvm.remote_read_hold_cycles, gpu-sim.cc
 * get_ready_cycle_dma): on gtx1080ti-uvmsmart each remote read of a page
 * below t_s holds the host-to-device lane 200 cycles, so the reads queue
 * and the kernel grows by most of that per read. UVMSmart's ra
 * (kind=lookup, 2^18 entries) under always-migrate at t_s = 8, against
 * the same run with the hold off (the latency at the preset's 0 both
 * times). */
static void test_remote_read_hold(void **state)
{
	(void)state;
	const char *wl = "ra:kind=lookup,elems=262144,mem=managed";
	static const char *const held[] = {"uvm.migration=always", "uvm.eviction=lfu-ac", NULL};
	static const char *const off[] = {"uvm.migration=always", "uvm.eviction=lfu-ac",
					  "uvm.remote_read_hold_cycles=0", NULL};
	cJSON *o = run_sets("gtx1080ti-uvmsmart", wl, held);
	double t_held = report_num(o, "sim_seconds"), reads = uvm_num(o, "remote_accesses");
	cJSON_Delete(o);
	double t_off = run_seconds("gtx1080ti-uvmsmart", wl, off);
	double per_read = (t_held - t_off) * 1481e6 / reads; /* the preset's 1481 MHz */
	printf("remote read hold: %.6g s against %.6g s over %.0f remote reads (%.0f cycles each)\n",
	       t_held, t_off, reads, per_read);
	assert_true(reads > 20);
	assert_true(per_read > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dram_refresh),
		cmocka_unit_test(test_l2_partition_crossing),
		cmocka_unit_test(test_far_fault_mshrs),
		cmocka_unit_test(test_tlb_coalescing),
		cmocka_unit_test(test_page_walk_cache),
		cmocka_unit_test(test_access_counter_migration),
		cmocka_unit_test(test_tree_prefetcher),
		cmocka_unit_test(test_remote_read_hold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
