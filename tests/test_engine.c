/* End-to-end engine tests through gpuvm_run_point: functional results
 * match plain CPU references, runs are deterministic, and each part of the
 * model moves the numbers the way it must. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"
#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "xlat/xlat.h"
#include "workloads/hash_groupby.h"
#include "workloads/random_sampling.h"

static cJSON *run3(const char *gpu, const char *workload, const char *set1, const char *set2,
		   const char *set3)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = 7};
	/* the translation studies below run regions past the board (64 GiB on
	 * the 16 GB p100: past its L3 TLB's 33 GB reach), which cudaMalloc
	 * would refuse (gpu.memory): the limit is lifted so the TLB model is
	 * what is tested, with the same results as before the limit */
	spec.sets[spec.n_sets++] = "gpu.memory=0";
	const char *sets[] = {set1, set2, set3};
	for (int i = 0; i < 3; i++)
		if (sets[i])
			spec.sets[spec.n_sets++] = sets[i];
	return run_report(&spec);
}

static cJSON *run(const char *gpu, const char *workload, const char *set1, const char *set2)
{
	return run3(gpu, workload, set1, set2, NULL);
}

static const cJSON *level(const cJSON *o, int l)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, "tlb"), l);
}

static const char *result(const cJSON *o)
{
	return cJSON_GetObjectItemCaseSensitive(o, "result")->valuestring;
}

static void test_sampling_sum_matches_reference(void **state)
{
	(void)state;
	cJSON *o = run("p100", "random-sampling:region=64MiB,threads=1000,reads=37", NULL, NULL);
	char want[128];
	snprintf(want, sizeof want, "sum=%llu reads=37000",
		 (unsigned long long)random_sampling_reference(16ull << 20, 1000, 37, 7));
	assert_string_equal(result(o), want);
	assert_true(report_num(o, "thread_accesses") == 37000 + 1000); /* reads + final stores */
	cJSON_Delete(o);
}

static void test_groupby_table_matches_reference(void **state)
{
	(void)state;
	/* Small chunk so several launches run; uneven input tail. */
	cJSON *o = run("k80", "hash-groupby:groups=5000,input=123457,chunk=64KiB,threads=4096", NULL,
		       NULL);
	uint64_t found, total;
	uint64_t d = groupby_reference(7, 123457, 5000, &found, &total);
	char want[128];
	snprintf(want, sizeof want, "groups=%llu rows=%llu digest=%016llx",
		 (unsigned long long)found, (unsigned long long)total, (unsigned long long)d);
	assert_string_equal(result(o), want);
	assert_true(report_num(o, "kernel_launches") == 8); /* ceil(123457 / 16384) chunks */
	/* The input crossed PCIe as zero-copy reads, at least once per value. */
	assert_true(report_num(o, "zero_copy_bytes") >= 123457.0 * 4);
	cJSON_Delete(o);
}

static void test_same_seed_same_json(void **state)
{
	(void)state;
	cJSON *a = run("p100", "random-sampling:region=1GiB,threads=20000,reads=20", NULL, NULL);
	cJSON *b = run("p100", "random-sampling:region=1GiB,threads=20000,reads=20", NULL, NULL);
	cJSON_DeleteItemFromObject(a, "wall_seconds");
	cJSON_DeleteItemFromObject(b, "wall_seconds");
	cJSON_DeleteItemFromObject(a, "warp_instructions_per_wall_second");
	cJSON_DeleteItemFromObject(b, "warp_instructions_per_wall_second");
	cJSON_DeleteItemFromObject(a, "thread_accesses_per_wall_second");
	cJSON_DeleteItemFromObject(b, "thread_accesses_per_wall_second");
	char *ta = cJSON_PrintUnformatted(a), *tb = cJSON_PrintUnformatted(b);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

/* A region inside the L1 reach hits in L1 after the first touches; one
 * far past the last level's reach misses everywhere and walks. */
static void test_reach_decides_hits(void **state)
{
	(void)state;
	cJSON *small = run("p100", "random-sampling:region=16MiB,threads=8192,reads=64", NULL, NULL);
	cJSON *big = run("p100", "random-sampling:region=16GiB,threads=8192,reads=64", NULL, NULL);
	assert_true(report_num(level(small, 0), "hit_ratio") > 0.95);
	assert_true(report_num(level(big, 1), "hit_ratio") < 0.3);
	assert_true(report_num(big, "walks") > 100 * report_num(small, "walks"));
	assert_true(report_num(big, "sim_seconds") > 1.5 * report_num(small, "sim_seconds"));
	cJSON_Delete(small);
	cJSON_Delete(big);
}

/* Model knobs are wired in: each override changes the timing. */
static void test_overrides_move_timing(void **state)
{
	(void)state;
	/* past the p100's L3 TLB reach (1032 x 32 MiB, Karnagel 4.1), so it walks */
	const char *w = "random-sampling:region=64GiB,threads=16384,reads=32";
	cJSON *base = run("p100", w, NULL, NULL);
	cJSON *slow_walk = run("p100", w, "walker.latency_cycles=2000", NULL);
	cJSON *few_walkers = run("p100", w, "walker.walkers=1", NULL);
	cJSON *big_l2tlb = run("p100", w, "tlb.l2.entries=4096", NULL);
	/* DRAM-bound below it (8 GiB: L3 TLB hits, no walks) */
	const char *w_dram = "random-sampling:region=8GiB,threads=16384,reads=32";
	cJSON *base_dram = run("p100", w_dram, NULL, NULL);
	cJSON *slow_dram = run("p100", w_dram, "dram.bandwidth_gb_s=50", NULL);
	/* A page-walk cache covering the region shortens most walks. */
	cJSON *pwc = run3("p100", w, "walker.pwc_entries=64", "walker.pwc_entry_size=1GiB",
			  "walker.pwc_hit_latency_cycles=10");
	double t = report_num(base, "sim_seconds");
	assert_true(report_num(slow_walk, "sim_seconds") > 1.2 * t);
	assert_true(report_num(few_walkers, "sim_seconds") > 2 * t);
	assert_true(report_num(big_l2tlb, "sim_seconds") < t);
	assert_true(report_num(level(big_l2tlb, 1), "hit_ratio") > 0.9);
	assert_true(report_num(slow_dram, "sim_seconds") > 1.2 * report_num(base_dram, "sim_seconds"));
	assert_true(report_num(pwc, "pwc_hits") > 0.9 * report_num(pwc, "walks"));
	assert_true(report_num(base, "pwc_hits") == 0);
	assert_true(report_num(pwc, "sim_seconds") < t);
	cJSON_Delete(pwc);
	cJSON_Delete(base);
	cJSON_Delete(slow_walk);
	cJSON_Delete(few_walkers);
	cJSON_Delete(big_l2tlb);
	cJSON_Delete(slow_dram);
	cJSON_Delete(base_dram);
}

/* walker.pte_reads = l2: each walk reads its leaf entry through the L2.
 * On the k80 (128 KiB pages) an 8 GiB region has 512 KiB of leaf entries,
 * which random data sectors keep evicting from the 1.5 MiB L2: a good
 * part of the walks go to DRAM and hold their walker longer. */
static void test_page_table_reads_through_l2(void **state)
{
	(void)state;
	const char *w = "random-sampling:reads=16,threads=16384,region=8GiB";
	cJSON *none = run("k80", w, "walker.pte_reads=none", NULL);
	cJSON *l2 = run("k80", w, "walker.pte_reads=l2", NULL);
	double walks = report_num(l2, "walks");
	assert_true(report_num(none, "walk_pte_l2_misses") == 0);
	assert_true(report_num(l2, "walk_pte_l2_hits") + report_num(l2, "walk_pte_l2_misses") == walks);
	assert_true(report_num(l2, "walk_pte_l2_misses") > 0.2 * walks);
	assert_true(report_num(l2, "sim_seconds") > 1.3 * report_num(none, "sim_seconds"));
	cJSON_Delete(none);
	cJSON_Delete(l2);
}

/* Sharing: the same L2 TLB sees the misses of every SM mapped onto it. */
static void test_instances_follow_sharing_map(void **state)
{
	(void)state;
	cJSON *o = run("k80", "random-sampling:region=512MiB,threads=26624,reads=16", NULL, NULL);
	assert_int_equal((int)report_num(level(o, 0), "instances"), 13);
	assert_int_equal((int)report_num(level(o, 1), "instances"), 5);
	assert_int_equal((int)report_num(level(o, 2), "instances"), 1);
	cJSON_Delete(o);
}

/* The translation path uses each level's SM -> instance map: on the k80
 * (one L2 TLB per GPC, [K] 4.2) an L1 TLB miss of an SM finds the entry
 * another SM of its GPC brought into their L2 TLB, and misses there when
 * that SM sits in another GPC. A map that ignores the configured groups
 * (sm % instances, or every SM on instance 0) fails one of the two. */
static void test_translation_follows_sm_map(void **state)
{
	(void)state;
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&cfg, "k80", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&cfg, &err), 0);
	const uint16_t *l2 = cfg.tlb[1].instance_of_sm;
	uint32_t a = 0, same = 0, other = 0;
	for (uint32_t sm = 1; sm < cfg.sms; sm++) {
		if (!same && l2[sm] == l2[a])
			same = sm;
		if (!other && l2[sm] != l2[a] && sm % cfg.tlb[1].instances == a % cfg.tlb[1].instances)
			other = sm; /* where sm % instances would share */
	}
	assert_true(same && other);
	struct gpuvm_stats st;
	memset(&st, 0, sizeof st);
	struct xlat x;
	assert_int_equal(xlat_init(&x, &cfg, &st), 0);
	uint64_t addr = 5ull << 30;
	double t = xlat_translate(&x, a, addr, 0);
	xlat_sync_stats(&x);
	uint64_t hits0 = st.tlb[1].hits;
	t = xlat_translate(&x, same, addr, t + 1000);
	xlat_sync_stats(&x);
	assert_int_equal(st.tlb[1].hits, hits0 + 1); /* its GPC's L2 TLB has it */
	uint64_t misses0 = st.tlb[1].misses;
	xlat_translate(&x, other, addr, t + 1000);
	xlat_sync_stats(&x);
	assert_int_equal(st.tlb[1].misses, misses0 + 1); /* another GPC's does not */
	xlat_free(&x);
	gpuvm_stats_release(&st);
}

static void test_triad_checksum(void **state)
{
	(void)state;
	cJSON *o = run("v100", "stream-triad:elems=100003,threads=5000", NULL, NULL);
	double sum = 0;
	for (uint64_t i = 0; i < 100003; i++)
		sum += (double)(i & 1023) + 3.0 * (double)((i >> 10) & 1023);
	char want[128];
	snprintf(want, sizeof want, "checksum=%.17g elems=100003", sum);
	assert_string_equal(result(o), want);
	/* Coalesced: 32 lanes x 8 B = two lines, eight sectors per instruction. */
	assert_true(report_num(o, "sectors") <= report_num(o, "memory_instructions") * 8);
	cJSON_Delete(o);
}

static void test_bad_workload_input_fails_cleanly(void **state)
{
	(void)state;
	struct gpuvm_run_spec spec = {.gpu = "p100", .workload = "random-sampling:region=4GiX"};
	struct gpuvm_error err = {{0}};
	cJSON *out = NULL;
	assert_int_equal(gpuvm_run_point(&spec, &out, &err), -1);
	assert_null(out);
	assert_non_null(strstr(err.msg, "region"));
	spec.workload = "random-sampling:nosuch=1";
	assert_int_equal(gpuvm_run_point(&spec, &out, &err), -1);
	assert_non_null(strstr(err.msg, "nosuch"));
	spec.workload = "no-such-workload";
	assert_int_equal(gpuvm_run_point(&spec, &out, &err), -1);
	assert_non_null(strstr(err.msg, "unknown workload"));
}

/* Sampling prices its integer multiplies at the preset's
 * gpu.imul32_issue_slots in both loops. loop=estimate: 7 per read on
 * every preset. loop=listing (the default): the multiply-pipe instructions of
 * the compiled loop (k80, sm_35: 28 per 4-read body, 7 per remainder read;
 * p100's sm_60 loop has none, its XMADs are full-rate), the estimate where
 * the compute capability has no listing. insts_per_read overrides the
 * count in both. */
static void test_sampling_prices_integer_multiplies(void **state)
{
	(void)state;
	const char *wl = "random-sampling:region=1MiB,threads=64,block=64,reads=9,loop=estimate";
	const char *wl_listing = "random-sampling:region=1MiB,threads=64,block=64,reads=9,"
				 "loop=listing";
	const char *slots[] = {"gpu.imul32_issue_slots=1", "gpu.imul32_issue_slots=3", NULL};
	const char *gpus[] = {"k80", "p100"};
	double w[2];
	/* the estimate: 2 warps x 9 reads x 7 multiplies x 2 more
	 * slots each, on both presets */
	for (int g = 0; g < 2; g++) {
		for (int i = 0; i < 2; i++) {
			cJSON *o = run(gpus[g], wl, slots[i], NULL);
			w[i] = report_num(o, "warp_instructions");
			cJSON_Delete(o);
		}
		assert_int_equal((int)(w[1] - w[0]), 2 * 9 * 7 * 2);
	}
	/* the override: 10 + 7 x 3 = 31 per read, the estimate at 3 slots */
	cJSON *o = run("p100", "random-sampling:region=1MiB,threads=64,block=64,reads=9,"
			       "insts_per_read=31", slots[0], NULL);
	assert_true(report_num(o, "warp_instructions") == w[1]);
	cJSON_Delete(o);

	/* the listing: 2 warps x (2 bodies x 28 + 1 remainder read x 7) x 2
	 * more slots on k80; none on p100 */
	for (int i = 0; i < 2; i++) {
		o = run("k80", wl_listing, slots[i], NULL);
		w[i] = report_num(o, "warp_instructions");
		cJSON_Delete(o);
	}
	assert_int_equal((int)(w[1] - w[0]), 2 * (2 * 28 + 7) * 2);
	for (int i = 0; i < 2; i++) {
		o = run("p100", wl_listing, slots[i], NULL);
		w[i] = report_num(o, "warp_instructions");
		cJSON_Delete(o);
	}
	assert_true(w[1] == w[0]);
	/* no listing for the compute capability: the estimate */
	for (int i = 0; i < 2; i++) {
		o = run("p100", wl_listing, slots[i], "gpu.compute_capability=0");
		w[i] = report_num(o, "warp_instructions");
		cJSON_Delete(o);
	}
	assert_int_equal((int)(w[1] - w[0]), 2 * 9 * 7 * 2);
	o = run("p100", "random-sampling:region=1MiB,threads=64,block=64,reads=9,"
			"insts_per_read=31,loop=listing", slots[0], "gpu.compute_capability=0");
	assert_true(report_num(o, "warp_instructions") == w[1]);
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sampling_sum_matches_reference),
		cmocka_unit_test(test_groupby_table_matches_reference),
		cmocka_unit_test(test_same_seed_same_json),
		cmocka_unit_test(test_reach_decides_hits),
		cmocka_unit_test(test_overrides_move_timing),
		cmocka_unit_test(test_instances_follow_sharing_map),
		cmocka_unit_test(test_translation_follows_sm_map),
		cmocka_unit_test(test_page_table_reads_through_l2),
		cmocka_unit_test(test_triad_checksum),
		cmocka_unit_test(test_bad_workload_input_fails_cleanly),
		cmocka_unit_test(test_sampling_prices_integer_multiplies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
