/* The calibration microbenchmarks (src/workloads/calib/) do what their
 * rows in `gpuvm calibrate` assume: the atomic kernel adds every thread's
 * steps, an empty-kernel run launches what it was asked, the arithmetic
 * kernel issues insts + 1 warp instructions per warp, a dependent chain
 * costs its class's latency per step and 8 independent chains on a full
 * SM reach the class's issue rate, STREAM triad moves 24 B per element
 * through DRAM, a copy moves its bytes over the link, one SM reads the
 * L2 no faster than its port, the L2 store kernel writes each of its
 * buffer's sectors once a pass, a store stream runs at the DRAM's rate
 * (l2.writeback_stall), CTAs turn over at the measured rate, a warp
 * that waits for its stores' acks (gpu.warp_exit_waits_stores) holds its
 * CTA's slot one L2 round trip longer and a parallel chase flattens at
 * the L1 TLB's MSHRs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"

static cJSON *report(const char *gpu, const char *wl)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	return run_report(&spec);
}

/* The duration in cycles of spec's last kernel; *mhz (if not NULL) the
 * preset's clock. */
static double spec_kernel_cycles(const struct gpuvm_run_spec *spec, double *mhz)
{
	cJSON *o = run_report(spec);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	if (!k)
		fail_msg("%s: no kernel", spec->workload);
	double c = report_num(k, "end_cycle") - report_num(k, "start_cycle");
	if (mhz)
		*mhz = report_num(cJSON_GetObjectItemCaseSensitive(o, "config"), "gpu.clock_mhz");
	cJSON_Delete(o);
	return c;
}

static double kernel_cycles(const char *gpu, const char *wl)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
	return spec_kernel_cycles(&spec, NULL);
}

static void test_atomic_adds_every_step(void **state)
{
	(void)state;
	char *r = run_result("a100", "ubench-atomic:mode=same,blocks=3,block=64,steps=5", 1);
	assert_string_equal(r, "word0=960"); /* 3 x 64 threads x 5 */
	free(r);
	r = run_result("a100", "ubench-atomic:mode=chain,steps=7", 1);
	assert_string_equal(r, "word0=7");
	free(r);
}

/* cycles per step of one thread's dependent atomicAdds on one word */
static double atomic_step_cycles(const char *gpu)
{
	return (kernel_cycles(gpu, "ubench-atomic:mode=chain,steps=512") -
		kernel_cycles(gpu, "ubench-atomic:mode=chain,steps=256")) / 256;
}

/* An atomic is an L2 access plus the atomic unit's read-modify-write
 * (l2.atomic_latency_cycles): v100 states the Accel-Sim tuner's TITAN V
 * difference (atomic_add_lat 243.6 - l2_lat 211.1 = 32.5 cycles) over its
 * 214-cycle L2 hit; a100 states none, so its atomic costs its L2 hit
 * (203 cycles, presets/a100.ini). */
static void test_atomic_unit_latency(void **state)
{
	(void)state;
	double v = atomic_step_cycles("v100"), a = atomic_step_cycles("a100");
	printf("  atomic chain: v100 %.1f cycles per step, a100 %.1f\n", v, a);
	assert_true(v > 214 + 32.5 - 1 && v < 214 + 32.5 + 1);
	assert_true(a > 203 - 1 && a < 203 + 1);
}

/* A synchronous copy pays pcie.copy_latency_us once (k80: 6.5 us, the
 * gdrcopy README's cudaMemcpy overhead) on top of its bytes at the link's
 * rate; a100 states none and pays pcie.latency_ns (1 us) instead. */
static void test_copy_fixed_time(void **state)
{
	(void)state;
	cJSON *o = report("k80", "ubench-link:mode=copy,bytes=4KiB");
	double k80_us = report_num(o, "copy_seconds") * 1e6;
	cJSON_Delete(o);
	o = report("a100", "ubench-link:mode=copy,bytes=4KiB");
	double a100_us = report_num(o, "copy_seconds") * 1e6;
	cJSON_Delete(o);
	printf("  4 KiB copy: k80 %.2f us, a100 %.2f us\n", k80_us, a100_us);
	/* 6.5 us + 4 KiB at 0.815 x 16 GB/s (0.31 us) */
	assert_true(k80_us > 6.5 + 0.2 && k80_us < 6.5 + 0.45);
	assert_true(a100_us > 1.0 && a100_us < 2.5);
}

static void test_empty_launches(void **state)
{
	(void)state;
	cJSON *o = report("v100", "ubench-empty:grid=100,block=64,launches=3");
	assert_int_equal((int)report_num(o, "kernel_launches"), 3);
	assert_int_equal((int)report_num(o, "ctas"), 300);
	assert_int_equal((int)report_num(o, "warp_instructions"), 0);
	cJSON_Delete(o);
}

static void test_ops_chain_and_throughput(void **state)
{
	(void)state;
	cJSON *o = report("v100", "ubench-ops:op=dp,insts=100,blocks=2,block=64");
	/* 4 warps, each a gap of 100 DFMAs and the store */
	assert_int_equal((int)report_num(o, "warp_instructions"), 4 * 101);
	cJSON_Delete(o);
	/* v100: dependent DFMA 8 cycles, FFMA 4 (presets/v100.ini core.*) */
	double dp = (kernel_cycles("v100", "ubench-ops:op=dp,insts=512") -
		     kernel_cycles("v100", "ubench-ops:op=dp,insts=256")) / 256;
	assert_true(dp > 7.9 && dp < 8.1);
	/* 8 independent chains on 16 warps of every SM: the FP32 issue rate
	 * of 64 lanes per SM (CUDA guide, cc 7.0) */
	double t = kernel_cycles("v100", "ubench-ops:op=fma,insts=512,ilp=8,blocks=80,block=512") -
		   kernel_cycles("v100", "ubench-ops:op=fma,insts=256,ilp=8,blocks=80,block=512");
	double per_sm = 512.0 * 256 / t;
	printf("  v100 FFMA: %.1f per clock per SM (ilp 8); DFMA chain %.2f cycles\n", per_sm, dp);
	assert_true(per_sm > 60 && per_sm < 68);
	/* two warps per SM: one dependent chain each (a result every 4
	 * cycles) leaves the FP32 pipe (a warp every 2) half idle; 8 chains
	 * fill it */
	double c1 = kernel_cycles("v100", "ubench-ops:op=fma,insts=512,ilp=1,blocks=80,block=64") -
		    kernel_cycles("v100", "ubench-ops:op=fma,insts=256,ilp=1,blocks=80,block=64");
	double c8 = kernel_cycles("v100", "ubench-ops:op=fma,insts=512,ilp=8,blocks=80,block=64") -
		    kernel_cycles("v100", "ubench-ops:op=fma,insts=256,ilp=8,blocks=80,block=64");
	printf("  v100 FFMA, 2 warps per SM: ilp 1 %.0f cycles, ilp 8 %.0f cycles per 256\n", c1, c8);
	assert_true(c1 > 1.8 * c8 && c1 < 2.2 * c8);
}

static void test_stream_traffic(void **state)
{
	(void)state;
	/* p100: 4 MiB L2; 2 Mi doubles = 16 MiB per array */
	cJSON *o = report("p100", "ubench-stream:kernel=triad,elems=2097152,blocks_per_sm=2,block=256");
	double dram = report_num(o, "dram_bytes");
	printf("  p100 triad: %.1f DRAM bytes per element\n", dram / 2097152);
	/* two arrays read; the written one in DRAM by the end of the run
	 * unless the L2 still holds it */
	assert_true(dram >= 16.0 * 2097152 && dram <= 24.5 * 2097152);
	cJSON_Delete(o);
}

/* The carve-out (KiB) and CTAs of the last kernel of ubench-stream at
 * blocks_per_sm and 64-thread blocks. */
static double stream_carveout_kib(const char *gpu, unsigned blocks_per_sm, double *ctas)
{
	char wl[160];
	snprintf(wl, sizeof wl, "ubench-stream:kernel=triad,elems=65536,blocks_per_sm=%u,block=64",
		 blocks_per_sm);
	cJSON *o = report(gpu, wl);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	if (!k)
		fail_msg("%s: no kernel", wl);
	double kib = report_num(k, "smem_bytes") / 1024;
	*ctas = report_num(k, "ctas");
	cJSON_Delete(o);
	return kib;
}

/* gpu-stream's shape: one thread per element (65536 / 64 CTAs), and a
 * 6 KiB __shared__ array per CTA with a preferred carve-out that the
 * engine rounds up to the next carve-out: 8 KiB holds one array, 16 KiB
 * two. Without the preference the driver's choice for 32 CTAs of 6 KiB
 * would be the largest carve-out (96, 164, 228 KiB), holding 16-38. */
static void test_stream_caps_resident_ctas(void **state)
{
	(void)state;
	static const char *const gpus[] = {"v100", "a100", "h100"};
	for (int i = 0; i < 3; i++) {
		double ctas = 0;
		double two = stream_carveout_kib(gpus[i], 2, &ctas);
		double one = stream_carveout_kib(gpus[i], 1, &ctas);
		printf("  %s ubench-stream carve-out: 2 CTAs/SM %.0f KiB, 1 CTA/SM %.0f KiB, %.0f CTAs\n",
		       gpus[i], two, one, ctas);
		assert_true(two == 16 && one == 8);
		assert_true(ctas == 1024);
	}
}

/* GB/s over passes 2..6 of ubench-l2 on gtx-titan-black (980 MHz), with
 * the preset's SM port or with l2.sm_port_bytes_per_cycle = port (>= 0) */
static double titan_l2_gb_s(unsigned ctas, unsigned block, double port)
{
	/* 720 KiB: a whole number of 16-byte words per thread for 1 x 256,
	 * 1 x 512, 1 x 1024 and 15 x 1024 threads (calibrate's l2_port_row) */
	const unsigned long long bytes = 720ull << 10;
	double cyc[2];
	char set[64];
	snprintf(set, sizeof set, "l2.sm_port_bytes_per_cycle=%g", port);
	for (int k = 0; k < 2; k++) {
		char wl[160];
		snprintf(wl, sizeof wl, "ubench-l2:bytes=%llu,passes=%d,ctas=%u,block=%u,width=16",
			 bytes, k ? 6 : 2, ctas, block);
		struct gpuvm_run_spec spec = {.gpu = "gtx-titan-black", .workload = wl, .seed = 1};
		if (port >= 0)
			spec.sets[spec.n_sets++] = set;
		cyc[k] = spec_kernel_cycles(&spec, NULL);
	}
	return 4.0 * (double)bytes / ((cyc[1] - cyc[0]) / 980e6) / 1e9;
}

/* An SM's port to the L2 (l2.sm_port_bytes_per_cycle, set on
 * gtx-titan-black from Mokhtari's thesis, seeds/001 5.1.3): one SMX
 * reading the L2 flattens at ~32 GB/s from 512 threads on (Fig. 5.4),
 * and 15 SMX read 15 times that (~480 GB/s, Fig. 5.6), where without the
 * port the same kernel reads more than twice as fast. */
static void test_sm_l2_port(void **state)
{
	(void)state;
	double one = titan_l2_gb_s(1, 1024, -1), half = titan_l2_gb_s(1, 512, -1);
	double quarter = titan_l2_gb_s(1, 256, -1), all = titan_l2_gb_s(15, 1024, -1);
	print_message("gtx-titan-black L2 read GB/s: 1 CTA of 256 / 512 / 1024 threads %.1f / %.1f / "
		      "%.1f, 15 CTAs %.1f\n", quarter, half, one, all);
	/* the measured values, two-sided (the calibrate tolerance) */
	assert_true(one > 32 * 0.85 && one < 32 * 1.15);
	assert_true(all > 480 * 0.85 && all < 480 * 1.15);
	/* flat from 512 threads on, below it latency-bound */
	assert_true(half > one * 0.95 && half < one * 1.05);
	assert_true(quarter < one * 0.8);
	/* linear in the SMs: the port is per SM, not the L2's */
	assert_true(all > 14 * one && all < 16 * one);
	/* without the port the SM takes what the L2 gives */
	double free_one = titan_l2_gb_s(1, 1024, 0);
	print_message("without the port: 1 CTA %.1f GB/s\n", free_one);
	assert_true(free_one > 2 * one);
	/* a wider port moves the ceiling with it */
	double wide = titan_l2_gb_s(1, 1024, 48);
	assert_true(wide > one * 1.4 && wide < one * 1.6);
}

/* ubench-l2 op=write (calibrate's l2_write_gb_s_1cta_per_sm): the kernel
 * stores every 16-byte word of the buffer once a pass and loads nothing,
 * so the L2 sees each of the buffer's sectors once a pass, as stores; the
 * loads' kernel over the same buffer is the other half of the pair. */
static void test_l2_write_kernel(void **state)
{
	(void)state;
	const double bytes = 256 << 10, passes = 2;
	for (int write = 0; write < 2; write++) {
		char wl[160];
		snprintf(wl, sizeof wl, "ubench-l2:bytes=256KiB,passes=2,ctas=4,block=1024,width=16,op=%s",
			 write ? "write" : "read");
		cJSON *o = report("v100", wl);
		const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
		const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
		double sectors = report_num(k, "l2_sector_hits") + report_num(k, "l2_sector_misses");
		print_message("ubench-l2 op=%s: %g L2 sectors (buffer %g a pass)\n",
			      write ? "write" : "read", sectors, bytes / 32);
		/* the buffer's sectors every pass, and the loads' sums (4 B a
		 * thread, 512 sectors of 4 CTAs x 1024) only when reading */
		if (write)
			assert_true(sectors == passes * bytes / 32);
		else
			assert_true(sectors == passes * bytes / 32 + 4 * 1024 * 4 / 32);
		cJSON_Delete(o);
	}
}

/* seconds of a fault-bound managed run on gtx-titan-black with the SM
 * port at port bytes per cycle (0: none) */
static double titan_faulting_seconds(double port)
{
	char set[64];
	snprintf(set, sizeof set, "l2.sm_port_bytes_per_cycle=%g", port);
	struct gpuvm_run_spec spec = {.gpu = "gtx-titan-black",
				      .workload = "random-sampling:region=6MiB,reads=4,mem=managed",
				      .seed = 1,
				      .sets = {"uvm.prefetcher=none", "uvm.far_fault_mshrs=1", set},
				      .n_sets = 3};
	cJSON *o = run_report(&spec);
	double sec = report_num(o, "sim_seconds");
	cJSON_Delete(o);
	return sec;
}

/* A request booked far ahead (after a 20 us far fault, beyond the port
 * calendar's 32 K cycles) must not push the other warps' requests a
 * calendar's length into the future: one far-fault MSHR makes the run
 * fault-bound, where a port of 32 B/clk changes nothing (it took 1.98x
 * when old requests were served at the oldest kept slot). */
static void test_sm_l2_port_far_ahead(void **state)
{
	(void)state;
	double with = titan_faulting_seconds(32), without = titan_faulting_seconds(0);
	print_message("fault-bound managed run: %.4g s with the port, %.4g s without\n", with, without);
	assert_true(with < without * 1.05 && with > without * 0.95);
}

/* L2 sector misses of one pass over a 256 KiB buffer just uploaded
 * (cudaMemcpy), with l2.copy_fill off or on */
static double copied_pass_misses(const char *fill)
{
	char set[32];
	snprintf(set, sizeof set, "l2.copy_fill=%s", fill);
	struct gpuvm_run_spec spec = {.gpu = "v100", .workload = "ubench-l2:bytes=256KiB,passes=1",
				      .seed = 1, .sets = {set}, .n_sets = 1};
	cJSON *o = run_report(&spec);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	double m = report_num(cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1), "l2_sector_misses");
	cJSON_Delete(o);
	return m;
}

/* l2.copy_fill: the kernel's first pass over what was just copied hits
 * the L2 (the run loop hands the copy to memsys_copy_fill); off, every
 * sector of it misses once: 8192 sectors fewer misses with the fill (the
 * output's stores miss either way). */
static void test_copy_fill_wired(void **state)
{
	(void)state;
	double off = copied_pass_misses("off"), on = copied_pass_misses("on");
	print_message("one pass over a copied 256 KiB buffer: %g L2 sector misses, %g with "
		      "l2.copy_fill\n", off, on);
	assert_true(off - on >= 8192 - 64 && off - on <= 8192);
}

/* GB/s of gpu-stream's kernel (init: 8 B, read: 8 B, triad: 24 B per
 * element) on gpu at block threads per CTA, 2 CTAs per SM, over T(2n) -
 * T(n) as calibrate measures it (n: 16 MiB per array), with --set set
 * (NULL: none) */
static double stream_gb_s(const char *gpu, const char *kernel, unsigned block, const char *set)
{
	const unsigned long long n = 2097152;
	double cyc[2], mhz = 0;
	for (int k = 0; k < 2; k++) {
		char wl[160];
		snprintf(wl, sizeof wl, "ubench-stream:kernel=%s,elems=%llu,blocks_per_sm=2,block=%u",
			 kernel, (k + 1) * n, block);
		struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1};
		if (set)
			spec.sets[spec.n_sets++] = set;
		cyc[k] = spec_kernel_cycles(&spec, &mhz);
	}
	double bytes = (strcmp(kernel, "triad") ? 8.0 : 24.0) * (double)n;
	return bytes / ((cyc[1] - cyc[0]) / (mhz * 1e6)) / 1e9;
}

/* l2.writeback_stall: a store-only stream (gpu-stream's init) at full
 * occupancy runs at the DRAM's rate: v100 (900 GB/s) writes 895 GB/s in
 * te42kyfo/gpu-benches gpu-stream/v100.txt. Without the stall the L2
 * takes stores at its own rate and the dirty lines' write-backs delay
 * nobody: 15 times the DRAM's peak. */
static void test_store_stream_dram_bound(void **state)
{
	(void)state;
	double on = stream_gb_s("v100", "init", 1024, NULL);
	double off = stream_gb_s("v100", "init", 1024, "l2.writeback_stall=off");
	print_message("v100 init (stores only), 2048 threads/SM: %.0f GB/s, %.0f without "
		      "l2.writeback_stall (DRAM peak 900)\n", on, off);
	/* at the pin rate since per-bank refresh (901 GB/s): T(2n) - T(n)
	 * leaves the L2's dirty residue, within 1 % of the peak */
	assert_true(on > 895 * 0.85 && on < 900 * 1.01);
	assert_true(off > 2 * 900);
}

/* GB/s of ctas 1024-thread CTAs storing 16 B a thread over an L2-resident
 * buffer of rounds x ctas x 16 KiB (calibrate's l2_write rows): the bytes
 * of passes 2-3 over T(3 passes) - T(1). */
static double l2_store_gb_s(unsigned ctas, unsigned rounds, const char *set)
{
	unsigned long long bytes = (unsigned long long)rounds * ctas * 1024 * 16;
	double cyc[2], mhz = 0;
	for (int k = 0; k < 2; k++) {
		char wl[160];
		snprintf(wl, sizeof wl,
			 "ubench-l2:bytes=%llu,passes=%d,ctas=%u,block=1024,width=16,op=write", bytes,
			 k ? 3 : 1, ctas);
		struct gpuvm_run_spec spec = {.gpu = "h100", .workload = wl, .seed = 1};
		if (set) {
			spec.sets[0] = set;
			spec.n_sets = 1;
		}
		cyc[k] = spec_kernel_cycles(&spec, &mhz);
	}
	return 2.0 * (double)bytes / ((cyc[1] - cyc[0]) / (mhz * 1e6)) / 1e9;
}

/* The store direction (l2.sm_port_write_bytes_per_cycle,
 * l2.slice_write_bytes_per_cycle on h100, from cuda/hwbench.cu l2): one
 * SM's 16-byte stores reach the L2 at 63.1 GB/s, every SM's at 3937 GB/s,
 * half the loads' rate. Two-sided at calibrate's tolerance; without the
 * port one SM stores four times as fast, and without the slices' store
 * rate (and the hold at issue it brings) every SM stores far past the
 * L2's read rate. */
static void test_l2_store_path(void **state)
{
	(void)state;
	double one = l2_store_gb_s(1, 64, NULL);
	double all = l2_store_gb_s(132, 4, NULL);
	double one_free = l2_store_gb_s(1, 64, "l2.sm_port_write_bytes_per_cycle=0");
	double all_free = l2_store_gb_s(132, 4, "l2.slice_write_bytes_per_cycle=0");
	print_message("h100 16-byte stores to the L2: one CTA %.1f GB/s (63.1 measured), one per SM "
		      "%.0f (3937); without the port %.1f, without the slices' store rate %.0f\n",
		      one, all, one_free, all_free);
	assert_true(one > 63.1 * 0.85 && one < 63.1 * 1.15);
	assert_true(all > 3937 * 0.85 && all < 3937 * 1.15);
	assert_true(one_free > 3 * one);
	assert_true(all_free > 7371);
}

/* The CTA slots' turnover (gpu.cta_launch_cycles, gpu.cta_release_cycles_per_warp
 * on v100, from gpu-stream's init column): at 128 threads per SM a
 * store-only CTA of 2 warps turns over every ~410 cycles (306 GB/s
 * measured), so init runs far below the DRAM's rate; read adds a load's
 * latency to each CTA (139 GB/s measured). Two-sided, the calibrate
 * tolerance; and without the launch cost init is DRAM-bound instead. */
static void test_cta_turnover_low_occupancy(void **state)
{
	(void)state;
	double init = stream_gb_s("v100", "init", 64, NULL);
	double read = stream_gb_s("v100", "read", 64, NULL);
	double free_init = stream_gb_s("v100", "init", 64, "gpu.cta_launch_cycles=0");
	print_message("v100 at 128 threads/SM: init %.0f GB/s (306 measured), read %.0f (139), "
		      "init without the CTA launch %.0f\n", init, read, free_init);
	assert_true(init > 306 * 0.85 && init < 306 * 1.15);
	assert_true(read > 139 * 0.85 && read < 139 * 1.15);
	assert_true(free_init > 2 * init);
}

/* gpu.cta_release_cycles_per_warp delays a slot's next CTA, not the
 * kernel's end: one CTA takes the same time whatever the release, and a
 * grid of many waves takes longer by about the release per wave. */
static void test_cta_release_per_warp(void **state)
{
	(void)state;
	struct gpuvm_run_spec one = {.gpu = "h100-pcie", .workload = "ubench-empty:grid=1,block=1024",
				     .seed = 1, .sets = {"gpu.cta_release_cycles_per_warp=0"}, .n_sets = 1};
	struct gpuvm_run_spec many = one;
	many.workload = "ubench-empty:grid=16384,block=1024";
	double t[2][2];
	for (int r = 0; r < 2; r++) {
		one.sets[0] = many.sets[0] = r ? "gpu.cta_release_cycles_per_warp=20" : "gpu.cta_release_cycles_per_warp=0";
		for (int k = 0; k < 2; k++)
			t[r][k] = spec_kernel_cycles(k ? &many : &one, NULL);
	}
	/* 16384 CTAs of 32 warps, 2 per SM on 114 SMs: ~72 waves, each
	 * 20 x 32 = 640 cycles later */
	double waves = 16384.0 / (2 * 114);
	print_message("h100-pcie empty kernel: 1 CTA %.0f / %.0f cycles, 16384 CTAs %.0f / %.0f "
		      "(release 0 / 20 per warp)\n", t[0][0], t[1][0], t[0][1], t[1][1]);
	assert_true(t[0][0] == t[1][0]);
	double added = t[1][1] - t[0][1];
	assert_true(added > 0.8 * (waves - 1) * 640 && added < 1.2 * waves * 640);
}

/* Cycles per CTA slot of ubench-stream kernel at 64 threads per CTA, two
 * CTAs per SM on v100 (80 SMs): T(2n) - T(n) over the n / 64 CTAs more,
 * spread over 160 slots; n = 256 Ki elements, 4,096 CTAs, ~26 waves. */
static double v100_slot_cycles(const char *kernel, const char *set)
{
	const unsigned long long n = 262144;
	double cyc[2];
	for (int k = 0; k < 2; k++) {
		char wl[160];
		snprintf(wl, sizeof wl, "ubench-stream:kernel=%s,elems=%llu,blocks_per_sm=2,block=64",
			 kernel, (k + 1) * n);
		struct gpuvm_run_spec spec = {.gpu = "v100", .workload = wl, .seed = 1};
		spec.sets[spec.n_sets++] = set;
		/* the ack alone: behind the write drain's hold the triad's
		 * loads wait longer and hide part of it */
		spec.sets[spec.n_sets++] = "dram.drain_hold=off";
		cyc[k] = spec_kernel_cycles(&spec, NULL);
	}
	return (cyc[1] - cyc[0]) * 160.0 / (double)(n / 64);
}

/* gpu.warp_exit_waits_stores (off in every preset): a warp ends only once
 * the L2 has acknowledged its stores, so a CTA whose warps end with a
 * store (init: stores only; triad: two loads, then a store) holds its
 * slot one store round trip longer: the crossbar there and back (v100
 * gpu.load_base_latency_cycles 30) and the L2 slice's 184 cycles
 * (l2.hit_latency_cycles), 214 in all (MT4G's V100 L2 hit). A CTA of
 * loads only (read: the compare fails, no store) is bit for bit as
 * before. Two-sided: the ack is charged once per warp's last store, not
 * per store nor per warp in turn. */
static void test_warp_exit_waits_stores(void **state)
{
	(void)state;
	const double rt = 214;
	double init_off = v100_slot_cycles("init", "gpu.warp_exit_waits_stores=off");
	double init_on = v100_slot_cycles("init", "gpu.warp_exit_waits_stores=on");
	double triad_off = v100_slot_cycles("triad", "gpu.warp_exit_waits_stores=off");
	double triad_on = v100_slot_cycles("triad", "gpu.warp_exit_waits_stores=on");
	double read_off = v100_slot_cycles("read", "gpu.warp_exit_waits_stores=off");
	double read_on = v100_slot_cycles("read", "gpu.warp_exit_waits_stores=on");
	print_message("v100, 128 threads/SM, cycles per CTA slot without / with "
		      "gpu.warp_exit_waits_stores: init %.0f / %.0f, triad %.0f / %.0f, "
		      "read %.0f / %.0f (store round trip %.0f)\n",
		      init_off, init_on, triad_off, triad_on, read_off, read_on, rt);
	assert_true(init_on - init_off > 0.85 * rt && init_on - init_off < 1.15 * rt);
	assert_true(triad_on - triad_off > 0.85 * rt && triad_on - triad_off < 1.15 * rt);
	assert_true(read_on == read_off);
}

static void test_link_copy_bytes(void **state)
{
	(void)state;
	cJSON *o = report("a100", "ubench-link:mode=copy,bytes=1MiB");
	assert_int_equal((long)report_num(o, "pcie_h2d_bytes"), 1 << 20);
	assert_true(report_num(o, "copy_seconds") > 0);
	cJSON_Delete(o);
}

/* hops per 1000 cycles of calibrate's tlb_par rows (K warps on one SM,
 * `lanes` chasers each, 8 GiB of 2 MiB pages, passes 3..10) on p100 with
 * tlb.l1.mshrs = mshrs (0: the preset's) */
static double par_chase_rate(unsigned k, unsigned lanes, unsigned mshrs)
{
	double cyc[2];
	char set[48];
	snprintf(set, sizeof set, "tlb.l1.mshrs=%u", mshrs);
	for (int i = 0; i < 2; i++) {
		char wl[160];
		snprintf(wl, sizeof wl,
			 "ubench-chase:footprint=8GiB,stride=2MiB,chains=%u,lanes=%u,passes=%d", k, lanes,
			 i ? 10 : 2);
		struct gpuvm_run_spec spec = {.gpu = "p100", .workload = wl, .seed = 1};
		if (mshrs)
			spec.sets[spec.n_sets++] = set;
		cyc[i] = spec_kernel_cycles(&spec, NULL);
	}
	unsigned chasers = k * lanes;
	return 8.0 * (double)(4096 / chasers) * chasers / (cyc[1] - cyc[0]) * 1000;
}

/* The parallel chase measures the L1 TLB's MSHRs: K independent warps keep
 * K translations in flight until the MSHRs are full. With MSHRs to spare
 * the rate is linear in K; with 2 or 4 it flattens at MSHRs / (cycles a
 * miss holds one), so at 32 warps 4 MSHRs give twice what 2 give. With
 * every lane chasing (32 pages per load, as random sampling's), the
 * preset's 10 MSHRs fill between 2 and 4 warps: linear before, flat after. */
static void test_par_chase_mshr_knee(void **state)
{
	(void)state;
	double one = par_chase_rate(1, 1, 64), free32 = par_chase_rate(32, 1, 64);
	double two = par_chase_rate(32, 1, 2), four = par_chase_rate(32, 1, 4);
	double l1 = par_chase_rate(1, 32, 0), l2 = par_chase_rate(2, 32, 0);
	double l8 = par_chase_rate(8, 32, 0), l32 = par_chase_rate(32, 32, 0);
	print_message("p100 all 32 lanes chasing: K=1 %.1f, 2 %.1f, 8 %.1f, 32 %.1f hops/kcycle\n", l1,
		      l2, l8, l32);
	assert_true(l2 > 1.8 * l1 && l2 < 2.1 * l1);
	assert_true(l8 < 1.3 * l2 && l32 > 0.9 * l8 && l32 < 1.1 * l8);
	print_message("p100 parallel chase, hops/kcycle: K=1 %.2f, K=32 %.2f (64 MSHRs), %.2f (4), "
		      "%.2f (2)\n", one, free32, four, two);
	/* one warp: one hop at a time, an L2 hit behind a TLB miss (~386 cycles) */
	assert_true(one > 1000.0 / 450 && one < 1000.0 / 330);
	/* MSHRs to spare: 32 warps hop 32 times as often */
	assert_true(free32 > 29 * one && free32 < 33 * one);
	/* MSHR-bound: the rate follows the MSHR count, well below linear */
	assert_true(four > 1.6 * two && four < 2.2 * two);
	assert_true(four < 0.75 * free32);
}

/* ubench-warpload on h100: a warp's DRAM load waits for its last sector.
 * One 256 B chunk (8 sectors) crosses one HBM3 pseudo-channel's bus a
 * 3-cycle burst after another (the boards: +38.2 cycles over one sector);
 * two arrays' chunks (16) and eight lines (32) wait for the later chunk,
 * whose home may be the far partition. Two-sided: without the bursts'
 * order 8 sectors take +5.6, with each burst counted twice +42.5. */
static double warp_load_cycles(unsigned sectors, unsigned warps)
{
	char a[128], b[128];
	snprintf(a, sizeof a, "ubench-warpload:sectors=%u,steps=128,warps=%u", sectors, warps);
	snprintf(b, sizeof b, "ubench-warpload:sectors=%u,steps=256,warps=%u", sectors, warps);
	return (kernel_cycles("h100", b) - kernel_cycles("h100", a)) / 128;
}

static void test_warp_load_sectors(void **state)
{
	(void)state;
	double s1 = warp_load_cycles(1, 1), s8 = warp_load_cycles(8, 1);
	double s16 = warp_load_cycles(16, 1), s32 = warp_load_cycles(32, 1);
	printf("h100 warp load: %.1f / %.1f / %.1f / %.1f cycles at 1 / 8 / 16 / 32 sectors\n", s1, s8,
	       s16, s32);
	assert_true(s1 > 660 && s1 < 720); /* the chase's DRAM latency */
	assert_true(s8 - s1 > 15 && s8 - s1 < 35); /* 7 more bursts of 3.0 cycles */
	assert_true(s16 > s8 + 5 && s32 > s8 + 5);
}

/* ubench-loaded on p100: the chase's DRAM latency while the other warps
 * stream (scripts/loaded-latency.sh's three runs): near its unloaded
 * value under one streaming warp per CTA, well above it under eight. */
static double loaded_chase_cycles_set(unsigned warps, const char *mode, const char *set,
				      double *unloaded)
{
	char wl[4][160];
	const char *fmt =
		"ubench-loaded:warps=%u,mode=%s,stream=%s,steps=%u,footprint=64MiB,elems=2097152";
	snprintf(wl[0], sizeof wl[0], fmt, warps, mode, "0", 1024);
	snprintf(wl[1], sizeof wl[1], fmt, warps, mode, "0", 2048);
	snprintf(wl[2], sizeof wl[2], fmt, warps, mode, "16MiB", 0);
	snprintf(wl[3], sizeof wl[3], fmt, warps, mode, "16MiB", 1024);
	double c[4], mhz;
	for (int i = 0; i < 4; i++) {
		struct gpuvm_run_spec spec = {.gpu = "p100", .workload = wl[i], .seed = 1,
					      .sets = {set}, .n_sets = set ? 1 : 0};
		c[i] = spec_kernel_cycles(&spec, &mhz);
	}
	double c1 = c[0], c2 = c[1], ts = c[2], tb = c[3];
	*unloaded = (c2 - c1) / 1024;
	double done = 1024 - (tb - ts) / *unloaded;
	assert_true(done > 0 && done < 1024); /* the chase outlasted the stream */
	return (ts - (c1 - 1024 * *unloaded)) / done;
}

static double loaded_chase_cycles(unsigned warps, const char *mode, double *unloaded)
{
	return loaded_chase_cycles_set(warps, mode, NULL, unloaded);
}

/* GB/s of ubench-loaded's readers alone on h100 (steps=0), one warp a
 * CTA, two CTAs an SM: 16 MiB over T(32 MiB) - T(16 MiB) */
static double loaded_stream_gb_s(const char *order)
{
	double cyc[2], mhz = 0;
	for (int k = 0; k < 2; k++) {
		char wl[128];
		snprintf(wl, sizeof wl, "ubench-loaded:warps=1,order=%s,steps=0,stream=%s", order,
			 k ? "32MiB" : "16MiB");
		struct gpuvm_run_spec spec = {.gpu = "h100", .workload = wl, .seed = 1};
		cyc[k] = spec_kernel_cycles(&spec, &mhz);
	}
	return 16.0 * 1048576 / ((cyc[1] - cyc[0]) / (mhz * 1e6)) / 1e9;
}

/* hwbench's loaded_chase readers as ptxas builds them issue a group's four
 * loads in two pairs (LDG, LDG, DADD, LDG, LDG: cuobjdump -sass on the
 * board), two round trips a group: at two warps per SM the board streams
 * 334 GB/s (run13). The workload in that order within 15 %; all four in
 * flight at once (the order it had) about twice as fast, the 2x the
 * loaded curve had against the board. */
static void test_loaded_reader_pairs(void **state)
{
	(void)state;
	double pairs = loaded_stream_gb_s("pairs"), four = loaded_stream_gb_s("four");
	print_message("h100 loaded readers, 2 warps per SM: %.0f GB/s in pairs (board 334), %.0f "
		      "four at once\n", pairs, four);
	assert_true(pairs > 334 * 0.85 && pairs < 334 * 1.15);
	assert_true(four > 1.6 * pairs);
}

static void test_loaded_chase(void **state)
{
	(void)state;
	double u1, u8;
	double light = loaded_chase_cycles(1, "read", &u1), heavy = loaded_chase_cycles(8, "read", &u8);
	printf("p100 chase: %.1f alone, %.1f under 2 streaming warps per SM, %.1f under 16\n", u1,
	       light, heavy);
	assert_true(fabs(u1 - u8) < 5);
	assert_true(light > u1 && light < 1.2 * u1);
	assert_true(heavy > 1.4 * u8 && heavy < 10 * u8);
	/* a copy's stores folded into 2 MiB stay in the L2: the chase then
	 * waits for the copy's reads only, less than under the copy whose
	 * stores the L2 writes back to DRAM, more than alone */
	double uc, ul;
	double copy = loaded_chase_cycles(8, "copy", &uc), copyl2 = loaded_chase_cycles(8, "copyl2", &ul);
	printf("p100 chase under 16 copying warps per SM: %.1f (copy), %.1f (stores in the L2)\n",
	       copy, copyl2);
	assert_true(copyl2 > ul && copyl2 < copy);
}

/* The write drain (dram.drain_hold, p100's 384-sector batch): a chase
 * under a copy waits behind the drains that the copy's own reads made the
 * controller hold, so it costs at least 1.3 times as much over the chase
 * alone with the hold as without. The hold adds less where DRAM sees
 * fewer reads or fewer writes: under a copy whose loads hit the L2 (the
 * writes alone, turned only by the chase's own reads) under 0.6 of what
 * it adds under the copy, under one whose stores mostly stay in the L2
 * (only the dirty lines the reads' fills evict) under 0.4. */
static void test_loaded_drain_hold(void **state)
{
	(void)state;
	const char *off = "dram.drain_hold=off";
	double u[6];
	double copy = loaded_chase_cycles_set(4, "copy", NULL, &u[0]);
	double copy_off = loaded_chase_cycles_set(4, "copy", off, &u[1]);
	double l2 = loaded_chase_cycles_set(4, "copyl2", NULL, &u[2]);
	double l2_off = loaded_chase_cycles_set(4, "copyl2", off, &u[3]);
	double from = loaded_chase_cycles_set(4, "copyfroml2", NULL, &u[4]);
	double from_off = loaded_chase_cycles_set(4, "copyfroml2", off, &u[5]);
	print_message("p100 chase (alone %.1f) under 8 copying warps per SM: copy %.1f (%.1f "
		      "without the hold), stores in the L2 %.1f (%.1f), loads from it %.1f (%.1f)\n",
		      u[0], copy, copy_off, l2, l2_off, from, from_off);
	assert_true(copy - u[0] > 1.3 * (copy_off - u[1]));
	assert_true(from >= from_off && from - from_off < 0.6 * (copy - copy_off));
	assert_true(l2 >= l2_off && l2 - l2_off < 0.4 * (copy - copy_off));
}

/* One far fault on h100, calibrate's far_fault_us: (T(32) - T(16)) / 16 of
 * a chase over first touches 2 MiB apart, in us, with one extra key. */
static double h100_far_fault_us(const char *stride, const char *set)
{
	double t[2];
	for (int i = 0; i < 2; i++) {
		char wl[160];
		snprintf(wl, sizeof wl,
			 "ubench-chase:footprint=128MiB,stride=%s,order=sequential,passes=1,steps=%d,"
			 "mem=managed",
			 stride, 16 * (i + 1));
		struct gpuvm_run_spec spec = {.gpu = "h100", .workload = wl, .seed = 1,
					      .sets = {set}, .n_sets = set ? 1 : 0};
		double mhz;
		t[i] = spec_kernel_cycles(&spec, &mhz) / mhz;
	}
	return (t[1] - t[0]) / 16;
}

/* h100's paging from the boards (presets/h100.ini [uvm], docs/uvm.md):
 * the driver migrates at uvm.migration_gb_s (11 GB/s, the boards'
 * prefetch of 2 MiB) instead of the link's curve (47.8 GiB/s at 2 MiB),
 * and a fault costs what the boards' far_fault_us measured (35.57 us,
 * +-10 %). Two-sided: at the link's rate the faulting page moves 4.7 times
 * faster and the fault is cheaper by the difference; where the tree
 * prefetcher moves 1 MiB at once (64 KiB apart) the rate dominates. */
static void test_h100_migration_rate(void **state)
{
	(void)state;
	double ff = h100_far_fault_us("2MiB", NULL);
	double ff_link = h100_far_fault_us("2MiB", "uvm.migration_gb_s=0");
	printf("  h100 far fault: %.2f us (board 35.57), at the link's rate %.2f us\n", ff, ff_link);
	assert_true(fabs(ff - 35.57) / 35.57 <= 0.10);
	assert_true(ff - ff_link > 1.0 && ff - ff_link < 3.0);
	double near = h100_far_fault_us("64KiB", NULL);
	double near_link = h100_far_fault_us("64KiB", "uvm.migration_gb_s=0");
	printf("  h100 first touches 64 KiB apart: %.2f us each, at the link's rate %.2f us\n", near,
	       near_link);
	assert_true(near > 1.5 * near_link);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_adds_every_step),
		cmocka_unit_test(test_atomic_unit_latency),
		cmocka_unit_test(test_copy_fixed_time),
		cmocka_unit_test(test_empty_launches),
		cmocka_unit_test(test_ops_chain_and_throughput),
		cmocka_unit_test(test_stream_traffic),
		cmocka_unit_test(test_stream_caps_resident_ctas),
		cmocka_unit_test(test_link_copy_bytes),
		cmocka_unit_test(test_copy_fill_wired),
		cmocka_unit_test(test_l2_write_kernel),
		cmocka_unit_test(test_sm_l2_port),
		cmocka_unit_test(test_sm_l2_port_far_ahead),
		cmocka_unit_test(test_store_stream_dram_bound),
		cmocka_unit_test(test_l2_store_path),
		cmocka_unit_test(test_cta_turnover_low_occupancy),
		cmocka_unit_test(test_cta_release_per_warp),
		cmocka_unit_test(test_warp_exit_waits_stores),
		cmocka_unit_test(test_par_chase_mshr_knee),
		cmocka_unit_test(test_warp_load_sectors),
		cmocka_unit_test(test_loaded_chase),
		cmocka_unit_test(test_loaded_reader_pairs),
		cmocka_unit_test(test_loaded_drain_hold),
		cmocka_unit_test(test_h100_migration_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
