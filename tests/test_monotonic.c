/* Monotonicity property (issue 76, item 4): over a grid of small runs, the
 * simulated time must not increase as a resource grows: host link
 * bandwidth, DRAM bandwidth, TLB entries, TLB MSHRs, page walkers. Each
 * sweep runs one workload that the resource bounds (or that it could
 * bound) at a few values and checks every step from a value to the next
 * larger one.
 *
 * The simulator is deterministic for a seed (a run repeated gives the same
 * time to the last bit: checked below), so no noise tolerance is needed.
 * Two kinds of step may still raise the time, and both are declared here
 * by name, with the mechanism that allows them (docs/monotonicity.md):
 *
 *  - SCHEDULING_ANOMALY: a step may raise the time by at most
 *    ANOMALY_REL (0.5 %). Changing one service time reorders the requests
 *    that greedy, work-conserving queues serve, and such list schedules
 *    are not monotone in their task times: Graham, "Bounds on
 *    multiprocessing timing anomalies", SIAM J. Appl. Math. 17(2), 1969
 *    (shorter tasks or more processors can lengthen the schedule). Seen
 *    here as +0.03 % on p100 random-sampling 64 MiB, DRAM 366 -> 732 GB/s,
 *    a run no DRAM rate bounds.
 *  - L2_REUSE_LOST_UNDER_DRAM_QUEUEING: the P100 group-by over a table
 *    16x its L2 is faster at 32 GB/s of link than at 64 (issue 76: 1 GiB,
 *    3.13e9 -> 2.69e9 rows/s at 16 -> 64). A slow link keeps the warps'
 *    queue at the zero-copy input, upstream of the L2, so the atomicAdd
 *    on a bucket comes soon after the atomicCAS that brought its line and
 *    hits it. A fast link moves the queue to DRAM: with every warp slot
 *    issuing, the CAS's round trip outlasts the L2's residency time, the
 *    Add misses too and each row reads DRAM twice (L2 hits 1.05 M -> 48 K,
 *    DRAM bytes x2). Too much thread-level parallelism thrashing a cache
 *    is a real GPU mechanism (Rogers, O'Connor, Aamodt, "Cache-Conscious
 *    Wavefront Scheduling", MICRO 2012; Kayiran et al., "Neither More Nor
 *    Less: Optimizing Thread-level Parallelism for GPGPUs", PACT 2013);
 *    the link throttled it. The test checks that it is this mechanism:
 *    with an L2 that holds the table the same sweep is monotone. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run_util.h"

#define ANOMALY_REL 0.005

static double run_time(const char *gpu, const char *workload, const char *const *sets,
		       int n_sets)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = 1};
	for (int i = 0; i < n_sets; i++)
		spec.sets[spec.n_sets++] = sets[i];
	cJSON *o = run_report(&spec);
	double t = report_num(o, "sim_seconds");
	cJSON_Delete(o);
	return t;
}

struct sweep {
	const char *gpu, *workload;
	const char *fixed[2]; /* further --set overrides (NULL: none) */
	const char *key;
	double values[6];     /* increasing; 0 ends the list */
	/* a declared exception: the step from values[exc_from] may raise the
	 * time by at most exc_rel (named in exc_name); -1: none */
	int exc_from;
	double exc_rel;
	const char *exc_name;
};

/* Runs s and checks each step; returns how many steps the declared
 * exception excused (so a test can check the exception still shows). */
static int check_sweep(const struct sweep *s)
{
	double prev = 0;
	int excused = 0;
	const char *sets[3];
	int n_fixed = 0;
	while (n_fixed < 2 && s->fixed[n_fixed]) {
		sets[n_fixed] = s->fixed[n_fixed];
		n_fixed++;
	}
	char set[96];
	printf("%s %s%s%s %s:", s->gpu, s->workload, n_fixed ? " " : "", n_fixed ? s->fixed[0] : "",
	       s->key);
	for (int i = 0; i < 6 && s->values[i] > 0; i++) {
		snprintf(set, sizeof set, "%s=%g", s->key, s->values[i]);
		sets[n_fixed] = set;
		double t = run_time(s->gpu, s->workload, sets, n_fixed + 1);
		printf(" %g:%.6g", s->values[i], t);
		if (i > 0 && t > prev) {
			double rel = t / prev - 1;
			if (s->exc_from == i - 1 && rel <= s->exc_rel) {
				printf(" [+%.2f %% %s]", 100 * rel, s->exc_name);
				excused++;
			} else if (rel <= ANOMALY_REL) {
				printf(" [+%.3f %% SCHEDULING_ANOMALY]", 100 * rel);
			} else {
				printf("\n");
				fail_msg("%s %s: %s %g -> %g raises the time %.6g -> %.6g s (+%.2f %%)",
					 s->gpu, s->workload, s->key, s->values[i - 1], s->values[i], prev,
					 t, 100 * rel);
			}
		}
		prev = t;
	}
	printf("\n");
	return excused;
}

/* Same seed, same time, to the last bit: the property needs no noise
 * allowance. */
static void test_deterministic(void **state)
{
	(void)state;
	const char *wl = "hash-groupby:input=65536,region=64MiB";
	double a = run_time("p100", wl, NULL, 0), b = run_time("p100", wl, NULL, 0);
	assert_true(a == b);
}

/* Translation resources on the post-cliff random sampling of Karnagel
 * Fig. 1a / 10a (P100 4 GiB, K80 3 GiB past its 2 GiB L3 reach), a quarter
 * of the warp slots and 4 reads a thread to keep the runs short. */
#define P100_RS "random-sampling:region=4GiB,reads=4,threads=14336"
#define K80_RS "random-sampling:region=3GiB,reads=4,threads=13312"

static void test_tlb_and_walkers(void **state)
{
	(void)state;
	static const struct sweep sweeps[] = {
		{"p100", P100_RS, {NULL}, "tlb.l1.entries", {8, 16, 32, 64}, -1, 0, NULL},
		{"p100", P100_RS, {NULL}, "tlb.l2.entries", {32, 65, 130, 260}, -1, 0, NULL},
		{"p100", P100_RS, {NULL}, "tlb.l1.mshrs", {2, 4, 10, 16, 32}, -1, 0, NULL},
		{"p100", P100_RS, {NULL}, "tlb.l2.mshrs", {16, 32, 64, 128}, -1, 0, NULL},
		{"p100", P100_RS, {NULL}, "walker.walkers", {4, 8, 16, 32, 64}, -1, 0, NULL},
		{"k80", K80_RS, {NULL}, "tlb.l3.entries", {516, 1032, 2064}, -1, 0, NULL},
		{"k80", K80_RS, {NULL}, "tlb.l1.mshrs", {4, 8, 16, 32}, -1, 0, NULL},
		{"k80", K80_RS, {NULL}, "walker.walkers", {4, 8, 11, 16, 32, 64}, -1, 0, NULL},
	};
	for (size_t i = 0; i < sizeof sweeps / sizeof sweeps[0]; i++)
		check_sweep(&sweeps[i]);
}

/* DRAM bandwidth: a STREAM triad over arrays larger than the L2 (p100:
 * 24 MiB against 4; h100: 12 MiB of 50, so the L2's write-back is out of
 * it) and random reads of a 64 MiB region (no DRAM rate bounds it: the
 * anomaly allowance's case). */
static void test_dram_bandwidth(void **state)
{
	(void)state;
	static const struct sweep sweeps[] = {
		{"p100", "stream-triad:elems=1048576", {NULL}, "dram.bandwidth_gb_s",
		 {183, 366, 732, 1464}, -1, 0, NULL},
		{"h100", "stream-triad:elems=524288", {NULL}, "dram.bandwidth_gb_s",
		 {838, 1675, 3350, 6700}, -1, 0, NULL},
		{"p100", "random-sampling:region=64MiB,reads=16", {NULL}, "dram.bandwidth_gb_s",
		 {183, 366, 732, 1464}, -1, 0, NULL},
	};
	for (size_t i = 0; i < sizeof sweeps / sizeof sweeps[0]; i++)
		check_sweep(&sweeps[i]);
}

/* Host link bandwidth: managed memory past device memory (125 %
 * oversubscription: migrations and evictions ride the link) and the
 * group-by's zero-copy input. */
static void test_link_bandwidth(void **state)
{
	(void)state;
	static const struct sweep sweeps[] = {
		{"p100", "random-sampling:region=256MiB,reads=2,mem=managed", {"uvm.oversub_percent=125"},
		 "pcie.bandwidth_gb_s", {4, 16, 64}, -1, 0, NULL},
		{"p100", "stream-triad:elems=4194304,mem=managed", {"uvm.oversub_percent=125"},
		 "pcie.bandwidth_gb_s", {4, 16, 64}, -1, 0, NULL},
		/* the table in an L2 that holds it: the group-by is monotone */
		{"p100", "hash-groupby:input=262144,region=64MiB", {"l2.size=256MiB"},
		 "pcie.bandwidth_gb_s", {4, 8, 16, 32, 64}, -1, 0, NULL},
	};
	for (size_t i = 0; i < sizeof sweeps / sizeof sweeps[0]; i++)
		check_sweep(&sweeps[i]);
}

/* The declared exception, where it shows: the P100's own 4 MiB L2 and a
 * 64 MiB table. 32 -> 64 GB/s may cost at most 25 % (it costs 15 %), and
 * it must still show: when it no longer does, the exception goes. */
static void test_link_bandwidth_l2_reuse_exception(void **state)
{
	(void)state;
	static const struct sweep s = {
		"p100", "hash-groupby:input=262144,region=64MiB", {NULL}, "pcie.bandwidth_gb_s",
		{4, 8, 16, 32, 64}, 3, 0.25, "L2_REUSE_LOST_UNDER_DRAM_QUEUEING"};
	assert_int_equal(check_sweep(&s), 1);
}

/* Last kernel's cycles of a run (the STREAM microbenchmark's timed
 * kernel). */
static double last_kernel_cycles(const char *gpu, const char *workload, const char *const *sets,
				 int n_sets)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = 1};
	for (int i = 0; i < n_sets; i++)
		spec.sets[spec.n_sets++] = sets[i];
	cJSON *o = run_report(&spec);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	assert_non_null(k);
	double c = report_num(k, "end_cycle") - report_num(k, "start_cycle");
	cJSON_Delete(o);
	return c;
}

/* The triad's steady rate as gpuvm calibrate measures it (bytes per
 * cycle over T(2n) - T(n), so each kernel's ramp and tail cancel), n the
 * elements of an L2's worth of one array. */
static double triad_rate(const char *gpu, uint64_t n, const char *const *sets, int n_sets)
{
	char a[128], b[128];
	snprintf(a, sizeof a, "ubench-stream:kernel=triad,elems=%llu,blocks_per_sm=2,block=1024",
		 (unsigned long long)n);
	snprintf(b, sizeof b, "ubench-stream:kernel=triad,elems=%llu,blocks_per_sm=2,block=1024",
		 (unsigned long long)(2 * n));
	return 24.0 * (double)n /
	       (last_kernel_cycles(gpu, b, sets, n_sets) - last_kernel_cycles(gpu, a, sets, n_sets));
}

/* DRAM refresh takes service time: the all-bank refresh (dram.trfcsb_ns =
 * 0) more than the presets' per-bank one, and no refresh none, so the
 * triad's steady rate must not fall from all-bank to per-bank to none
 * (issue 76 reported h100's calibrate --quick triad slower without refresh:
 * a kernel-end offset of the write-drain hold that the short two-kernel
 * difference did not cancel, docs/monotonicity.md; at an L2's worth of
 * each array, as here, it does). p100 and v100 (h100's runs take 25 s). */
static void test_refresh_removed(void **state)
{
	(void)state;
	static const char *const all_bank[] = {"dram.trfcsb_ns=0"};
	static const char *const none[] = {"dram.trefi_ns=0", "dram.trfc_ns=0", "dram.trfcsb_ns=0"};
	static const struct {
		const char *gpu;
		uint64_t n;
	} parts[] = {{"p100", 524288}, {"v100", 786432}};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		double r_all = triad_rate(parts[i].gpu, parts[i].n, all_bank, 1);
		double r_bank = triad_rate(parts[i].gpu, parts[i].n, NULL, 0);
		double r_none = triad_rate(parts[i].gpu, parts[i].n, none, 3);
		printf("%s triad, bytes a cycle: all-bank refresh %.4f, per-bank %.4f, none %.4f\n",
		       parts[i].gpu, r_all, r_bank, r_none);
		assert_true(r_bank >= r_all * (1 - ANOMALY_REL));
		assert_true(r_none >= r_bank * (1 - ANOMALY_REL));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_tlb_and_walkers),
		cmocka_unit_test(test_dram_bandwidth),
		cmocka_unit_test(test_link_bandwidth),
		cmocka_unit_test(test_link_bandwidth_l2_reuse_exception),
		cmocka_unit_test(test_refresh_removed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
