/* gpuvm calibrate: the microbenchmark suite (src/workloads/calib/) run on
 * each preset, every quantity beside the value published for the real GPU
 * (validation/microbench.tsv). This is the calibration half of Accel-Sim's
 * method (Khairy et al., ISCA'20): components are tuned on microbenchmarks
 * measured on hardware, whole applications are validated afterwards
 * (`gpuvm validate`) without touching the parameters again.
 *
 * Every quantity is a difference of two runs divided by the work between
 * them, so launch, warm-up and the final store cancel: a latency is
 * (T(2N steps) - T(N steps)) / N, a warm chase (T(2 passes) - T(1 pass))
 * per node. The table is a report: rows outside their tolerance do not
 * change the exit status unless --strict. docs/calibration.md explains each
 * row and what the failing ones lack. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/calib_published.h"
#include "gpuvm/number.h"
#include "cli/calib_rows.h"
#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/config.h"
#include "gpuvm/output_file.h"
#include "gpuvm/plot.h"
#include "gpuvm/run.h"

#define DEFAULT_TABLE "validation/microbench.tsv"

static const char *const all_presets[] = {"k80", "p100", "v100", "a100", "h100", "h100-pcie"};
#define N_ALL (sizeof all_presets / sizeof all_presets[0])

/* ----------------------------------------------------------------- rows */

/* One run's report; NULL (c->failed set, message in c->err) when refused,
 * or (c->failed not set) with names_only, which runs nothing. */
static cJSON *run(struct calib *c, const char *gpu, const char *wl)
{
	if (c->failed || c->names_only)
		return NULL;
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = wl, .seed = 1, .force = true};
	cJSON *o = NULL;
	if (gpuvm_run_point(&spec, &o, c->err)) {
		c->failed = 1;
		return NULL;
	}
	if (c->progress)
		fprintf(stderr, "calibrate: %s %s\n", gpu, wl);
	return o;
}

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The last kernel's duration (its start on the GPU to its completion:
 * front-end and tail included, as nsys times it). */
static double kernel_cycles(struct calib *c, const char *gpu, const char *wl)
{
	cJSON *o = run(c, gpu, wl);
	if (!o)
		return NAN;
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(o, "kernels");
	const cJSON *k = cJSON_GetArrayItem(ks, cJSON_GetArraySize(ks) - 1);
	double cyc = NAN;
	if (k)
		cyc = num(k, "end_cycle") - num(k, "start_cycle");
	cJSON_Delete(o);
	return cyc;
}

/* --------------------------------------------------------------- chases */

/* The L2 an SM reads at its near latency: one half of a near/far pair
 * (mem.far_latency_cycles), else all of it, however many memory
 * partitions hold it. */
static uint64_t l2_near_bytes(const struct gpuvm_config *cfg)
{
	return cfg->mem_far_latency_cycles > 0 ? cfg->l2_bytes / cfg->mem_partitions : cfg->l2_bytes;
}

/* Load latency of a chase over footprint fp (stride between nodes).
 * Within the L2 the chase is walked warm: (T(2 passes) - T(1 pass)) per
 * node, every line of the footprint a node. Where that is more nodes than
 * c->chase_steps, the nodes are spread over the footprint (the stride
 * grows) and the loads bypass the L1 (__ldcg): a subset of lines would
 * otherwise fit an L1 the whole footprint does not, and a shuffled chase
 * over more than chase_steps x 128 B hits the L1 in at most
 * L1 size / footprint of its loads (but past one partition of a
 * partitioned L2, below). Beyond the L2 the lines are visited
 * cold, N and 2N of them: a shuffled chase over more than the L2 misses
 * it, as a line never touched before does. */
static double chase_latency(struct calib *c, const struct gpuvm_config *cfg, const char *gpu,
			    uint64_t fp, uint64_t stride, const char *order, const char *cache)
{
	char a[256], b[256];
	uint64_t nodes = fp / stride;
	bool cold = fp > cfg->l2_bytes && !strcmp(order, "shuffled");
	/* past one partition of a partitioned L2 (mem.far_latency_cycles)
	 * every line is a node: which partition holds a line depends on
	 * what the others evicted, so a subset would stay near */
	bool every_line = cfg->mem_far_latency_cycles > 0 && fp > l2_near_bytes(cfg);
	if (!cold) {
		if (nodes > c->chase_steps && !every_line) {
			stride = (fp / c->chase_steps + 127) / 128 * 128;
			nodes = fp / stride;
			if (!strcmp(cache, "default"))
				cache = "cg";
		}
		snprintf(a, sizeof a,
			 "ubench-chase:footprint=%llu,stride=%llu,order=%s,cache=%s,passes=1",
			 (unsigned long long)fp, (unsigned long long)stride, order, cache);
		snprintf(b, sizeof b,
			 "ubench-chase:footprint=%llu,stride=%llu,order=%s,cache=%s,passes=2",
			 (unsigned long long)fp, (unsigned long long)stride, order, cache);
		return (kernel_cycles(c, gpu, b) - kernel_cycles(c, gpu, a)) /
		       (double)nodes;
	}
	uint64_t n = c->chase_steps / 2;
	if (2 * n > nodes)
		n = nodes / 2;
	snprintf(a, sizeof a,
		 "ubench-chase:footprint=%llu,stride=%llu,cache=%s,passes=1,steps=%llu",
		 (unsigned long long)fp, (unsigned long long)stride, cache, (unsigned long long)n);
	snprintf(b, sizeof b,
		 "ubench-chase:footprint=%llu,stride=%llu,cache=%s,passes=1,steps=%llu",
		 (unsigned long long)fp, (unsigned long long)stride, cache,
		 (unsigned long long)(2 * n));
	return (kernel_cycles(c, gpu, b) - kernel_cycles(c, gpu, a)) / (double)n;
}

/* The far-L2 chase runs where the published row was measured (its at
 * column: gpu-benches' gpu-latency rows, the near/far mix past one of two
 * partitions), else at 70 % of the L2. */
static uint64_t far_footprint(const struct calib *c, const char *gpu,
			      const struct gpuvm_config *cfg)
{
	const struct pub *p = c->pub ? pub_find(c->pub, gpu, "chase_l2_far_cycles") : NULL;
	if (p && p->at_bytes)
		return p->at_bytes;
	return cfg->l2_bytes / 10 * 7;
}

static void chase_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	/* the curve: latency vs footprint, shuffled lines, default loads */
	uint64_t top = 2 * cfg->l2_bytes < (256ull << 20) ? 256ull << 20 : 4 * cfg->l2_bytes;
	for (uint64_t fp = 4096; fp <= top; fp *= c->quick ? 4 : 2) {
		double l = chase_latency(c, cfg, gpu, fp, 128, "shuffled", "default");
		calib_add_row(c, gpu, "chase_cycles", "cycles", K_CURVE, (double)fp, l);
	}
	/* __ldca so that parts whose L1 skips globals (Kepler, Pascal) cache
	 * them, as the published L1 chases do */
	calib_add_row(c, gpu, "chase_l1_hit_cycles", "cycles", K_LATENCY, 4096,
		      chase_latency(c, cfg, gpu, 4096, 128, "shuffled", "ca"));
	calib_add_row(c, gpu, "chase_l2_hit_cycles", "cycles", K_LATENCY, 475 * 1024,
		      chase_latency(c, cfg, gpu, 475 * 1024, 128, "shuffled", "default"));
	uint64_t far = far_footprint(c, gpu, cfg) / 128 * 128;
	calib_add_row(c, gpu, "chase_l2_far_cycles", "cycles", K_LATENCY, (double)far,
		      chase_latency(c, cfg, gpu, far, 128, "shuffled", "default"));
	uint64_t dram = 125026ull * 1024;
	calib_add_row(c, gpu, "chase_dram_cycles", "cycles", K_LATENCY, (double)dram,
		      chase_latency(c, cfg, gpu, dram, 128, "shuffled", "default"));
	/* The DRAM chase over 1 GiB, 1 KiB between nodes (caps-tum/mt4g's
	 * footprint and stride), TLB-warm as every cold chase here: N then 2N
	 * hops, the first touches of the pages cancelling. Published values
	 * are warm chases too (gpu-benches' rows at 905 MiB and 1.46 GiB, the
	 * H100 boards' calib_chase): translation levels whose reach lies
	 * between 122 MiB and 1 GiB would miss here. MT4G's own values time the
	 * first 2048 ld.global.cv hops of a fresh context, another quantity
	 * (docs/calibration.md, "The 1 GiB chase") */
	calib_add_row(c, gpu, "chase_dram_1gib_cycles", "cycles", K_LATENCY, (double)(1ull << 30),
		      chase_latency(c, cfg, gpu, 1ull << 30, 1024, "shuffled", "cg"));
}

/* Karnagel's "delay on miss" of TLB level i: a sequential chase at the
 * level's entry size over twice its reach, against one over half of it
 * (both past the levels below). */
static void tlb_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	for (uint32_t i = 0; i < cfg->tlb_levels && i < 3; i++) {
		char q[64];
		snprintf(q, sizeof q, "tlb_l%u_miss_delay_cycles", i + 1);
		uint64_t stride = cfg->tlb[i].entry_bytes;
		uint64_t reach = stride * cfg->tlb[i].entries;
		double v = NAN;
		struct row *r;
		if (2 * reach < (16ull << 30) && 2 * reach / stride <= (1u << 16)) {
			double hi = chase_latency(c, cfg, gpu, 2 * reach, stride, "sequential", "cg");
			double lo = chase_latency(c, cfg, gpu, reach / 2, stride, "sequential", "cg");
			v = hi - lo;
		}
		r = calib_add_row(c, gpu, q, "cycles", K_LATENCY, (double)(2 * reach), v);
		if (r && !isfinite(v))
			snprintf(r->note, sizeof r->note, "reach %llu MiB: too large to chase here",
				 (unsigned long long)(reach >> 20));
	}
}

/* TLB-miss concurrency, the curves cuda/hwbench.cu's tlbpar section
 * measures on a board with the same kernel and chain: K warps (one CTA on
 * one SM, or one warp on each of K SMs) whose lane 0 (or every lane, as
 * random sampling's loads) each chase their share of one shuffled cycle
 * over 2 MiB pages whose lines stay in the L2, so a hop is a TLB miss and
 * an L2 hit; hops per 1000 cycles over passes 3..10 (T(10) - T(2)). It
 * grows with K until the misses in flight fill a level's MSHRs or the
 * walkers: the knee is what tlb.*.mshrs and walker.walkers assume
 * (docs/calibration.md, "What would measure the MSHRs"). No published
 * values: curves only. */
static void tlb_par_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	static const struct {
		uint64_t fp_mib;
		int spread;
		unsigned lanes;
		bool quick;
	} curves[] = {{256, 0, 1, false}, {256, 1, 1, false}, {8192, 0, 1, false},
		      {8192, 1, 1, false}, {8192, 0, 32, true}};
	static const unsigned ks[] = {1, 2, 4, 8, 16, 32, 64};
	for (size_t v = 0; v < sizeof curves / sizeof curves[0]; v++) {
		if (c->quick && !curves[v].quick)
			continue;
		uint64_t mib = curves[v].fp_mib, nodes = mib / 2;
		int spread = curves[v].spread;
		unsigned lanes = curves[v].lanes;
		char q[64];
		snprintf(q, sizeof q, "tlb_par_hops_per_kcycle_%s%s_fp%llumib", spread ? "sms" : "sm",
			 lanes == 32 ? "_lanes32" : "", (unsigned long long)mib);
		for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
			unsigned k = ks[i];
			if ((!spread && k > 32) || (spread && k > cfg->sms) || k * lanes > nodes / 2)
				continue;
			char spec[2][192];
			for (int j = 0; j < 2; j++)
				snprintf(spec[j], sizeof spec[j],
					 "ubench-chase:footprint=%lluMiB,stride=2MiB,chains=%u,spread=%s,"
					 "lanes=%u,passes=%d",
					 (unsigned long long)mib, k, spread ? "sms" : "sm", lanes, j ? 10 : 2);
			double dt = kernel_cycles(c, gpu, spec[1]) - kernel_cycles(c, gpu, spec[0]);
			uint64_t chasers = (uint64_t)k * lanes;
			double hops = 8.0 * (double)(nodes / chasers) * (double)chasers;
			calib_add_row(c, gpu, q, "hops/kcycle", K_CURVE, k, hops / dt * 1000);
		}
	}
}

/* ----------------------------------------------------------- arithmetic */

static void ops_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	static const char *const ops[] = {"fma", "imad", "dp", "sfu"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		char a[160], b[160], q[64];
		/* one warp, one dependent chain: N vs 2N instructions */
		snprintf(a, sizeof a, "ubench-ops:op=%s,insts=256", ops[i]);
		snprintf(b, sizeof b, "ubench-ops:op=%s,insts=512", ops[i]);
		snprintf(q, sizeof q, "%s_latency_cycles", ops[i]);
		calib_add_row(c, gpu, q, "cycles", K_LATENCY, NAN,
			      (kernel_cycles(c, gpu, b) - kernel_cycles(c, gpu, a)) / 256);
		/* every SM full of warps, 8 independent chains each (quick:
		 * 128, not 64, whose warps all store their result in one
		 * cycle, a burst the store path's rate takes cycles for that
		 * the 2N kernel's drifted warps do not pay:
		 * tests/test_issue_rates.c) */
		unsigned n = c->quick ? 128 : 256;
		snprintf(a, sizeof a, "ubench-ops:op=%s,insts=%u,ilp=8,blocks=%u,block=512", ops[i],
			 n, cfg->sms);
		snprintf(b, sizeof b, "ubench-ops:op=%s,insts=%u,ilp=8,blocks=%u,block=512", ops[i],
			 2 * n, cfg->sms);
		double dt = kernel_cycles(c, gpu, b) - kernel_cycles(c, gpu, a);
		snprintf(q, sizeof q, "%s_ops_per_clk_sm", ops[i]);
		calib_add_row(c, gpu, q, "ops/clk/SM", K_THROUGHPUT, NAN, 512.0 * n / dt);
	}
}

static void smem_atomic_rows(struct calib *c, const char *gpu)
{
	double s1 = (kernel_cycles(c, gpu, "ubench:test=smem,steps=512") -
		     kernel_cycles(c, gpu, "ubench:test=smem,steps=256")) / 256;
	calib_add_row(c, gpu, "smem_latency_cycles", "cycles", K_LATENCY, NAN, s1);
	double s2 = (kernel_cycles(c, gpu, "ubench:test=smem,steps=512,lane_stride=2") -
		     kernel_cycles(c, gpu, "ubench:test=smem,steps=256,lane_stride=2")) / 256;
	calib_add_row(c, gpu, "smem_2way_conflict_extra_cycles", "cycles", K_LATENCY, NAN, s2 - s1);
	double at = (kernel_cycles(c, gpu, "ubench-atomic:mode=chain,steps=512") -
		     kernel_cycles(c, gpu, "ubench-atomic:mode=chain,steps=256")) / 256;
	calib_add_row(c, gpu, "atomic_latency_cycles", "cycles", K_LATENCY, NAN, at);
}

/* --------------------------------------------------------------- stream */

/* GB/s of one STREAM kernel in steady state: streams x 8 B x n over
 * T(2n elements) - T(n elements), so that the ramp-up, the tail and the
 * written lines still dirty in the L2 when a kernel ends (which no DRAM
 * traffic pays for within it) cancel. gpu-benches divides the same bytes
 * by one kernel's time, over arrays much larger than the L2. */
static double stream_gb_s(struct calib *c, const struct gpuvm_config *cfg, const char *gpu,
			  const char *kernel, unsigned block, uint64_t n)
{
	char a[200], b[200];
	snprintf(a, sizeof a, "ubench-stream:kernel=%s,elems=%llu,blocks_per_sm=2,block=%u", kernel,
		 (unsigned long long)n, block);
	snprintf(b, sizeof b, "ubench-stream:kernel=%s,elems=%llu,blocks_per_sm=2,block=%u", kernel,
		 (unsigned long long)(2 * n), block);
	double cyc = kernel_cycles(c, gpu, b) - kernel_cycles(c, gpu, a);
	/* arrays moved: copy and scale 2, triad 3, init (stores) and read
	 * (loads) 1 */
	double streams = !strcmp(kernel, "triad") ? 3 : !strcmp(kernel, "copy") || !strcmp(kernel, "scale") ? 2 : 1;
	return streams * 8.0 * (double)n / (cyc / (cfg->clock_mhz * 1e6)) / 1e9;
}

static void stream_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	/* n: arrays of half the L2 (--quick) or the L2 each, so that both
	 * runs stream DRAM with the L2 full of the arrays' lines */
	uint64_t elems = c->quick ? cfg->l2_bytes / 16 : cfg->l2_bytes / 8;
	uint64_t floor_elems = c->quick ? 1ull << 19 : 1ull << 21;
	if (elems < floor_elems)
		elems = floor_elems;
	calib_add_row(c, gpu, "stream_copy_gb_s", "GB/s", K_THROUGHPUT, 2048,
		      stream_gb_s(c, cfg, gpu, "copy", 1024, elems));
	double triad = stream_gb_s(c, cfg, gpu, "triad", 1024, elems);
	calib_add_row(c, gpu, "stream_triad_gb_s", "GB/s", K_THROUGHPUT, 2048, triad);
	/* the fraction of the board's datasheet peak, which each preset's
	 * dram.bandwidth_gb_s holds (cited there): the published rows divide
	 * by the same datasheet value */
	double peak = cfg->dram_bandwidth_gb_s;
	calib_add_row(c, gpu, "stream_triad_fraction_of_peak", "fraction", K_THROUGHPUT, NAN, triad / peak);
	/* lower occupancies and the curve vs threads per SM (2 CTAs each):
	 * each point costs as much as the full one, so not with --quick.
	 * gpu-stream's init (stores only) and read (a load and a compare)
	 * kernels at the same occupancies: at 128 threads per SM the CTA
	 * slots' turnover sets init's rate and turnover plus a load's
	 * latency read's (docs/launch.md) */
	static const unsigned blocks[] = {64, 256, 1024};
	static const char *const kernels[] = {"triad", "init", "read"};
	static const char *const occ[] = {"_occ6", "_occ25", ""};
	double at[2] = {NAN, NAN};
	for (int k = 0; k < 3; k++) {
		/* the triad at full occupancy is the row above */
		for (int i = 0; i < (k ? 3 : 2); i++) {
			char name[40];
			snprintf(name, sizeof name, "stream_%s_gb_s%s", kernels[k], occ[i]);
			double v = c->quick ? NAN : stream_gb_s(c, cfg, gpu, kernels[k], blocks[i], elems);
			if (k == 0)
				at[i] = v;
			struct row *r = calib_add_row(c, gpu, name, "GB/s", K_THROUGHPUT, 2.0 * blocks[i], v);
			if (r && c->quick) {
				r->status = "skipped";
				snprintf(r->note, sizeof r->note, "not run with --quick");
			}
		}
	}
	for (unsigned b = 32; b <= 1024; b *= 2) {
		double v = b == 1024 ? triad : b == 64 ? at[0] : b == 256 ? at[1] : NAN;
		if (!c->quick && !isfinite(v))
			v = stream_gb_s(c, cfg, gpu, "triad", b, elems);
		if (isfinite(v) || c->names_only) /* names_only: every name checked */
			calib_add_row(c, gpu, "triad_gb_s", "GB/s", K_CURVE, 2.0 * b, v);
	}
}

/* ------------------------------------------------------------- L2 */

/* GB/s that ctas CTAs of 1024 threads (one per SM, placed round-robin)
 * read with 16-byte __ldcg loads from a buffer of bytes (ubench-l2
 * width=16), over passes lo + 1 .. hi: bytes of hi - lo passes over
 * T(hi passes) - T(lo passes). */
static double wide_gb_s(struct calib *c, const struct gpuvm_config *cfg, const char *gpu,
			uint64_t bytes, uint32_t ctas, int lo, int hi, const char *op)
{
	char spec[2][192];
	for (int k = 0; k < 2; k++)
		snprintf(spec[k], sizeof spec[k],
			 "ubench-l2:bytes=%llu,passes=%d,ctas=%u,block=1024,width=16,op=%s",
			 (unsigned long long)bytes, k ? hi : lo, ctas, op);
	double cyc = kernel_cycles(c, gpu, spec[1]) - kernel_cycles(c, gpu, spec[0]);
	return (double)(hi - lo) * (double)bytes / (cyc / (cfg->clock_mhz * 1e6)) / 1e9;
}

/* Mokhtari's L2 microbenchmark (seeds/001 5.1.3, Figs. 5.4 and 5.6: one
 * CTA of 1024 threads per SMX, 1 to 15 of them; bytes moved over the
 * network per second) on ctas CTAs: an L2-resident buffer, 4 passes after
 * the first two. 16-byte loads keep more in flight than one SM's port
 * passes, as the thesis's curves flatten from 512 threads on. The buffer
 * is a whole number of 16-byte words per thread, so that no SM has a
 * pass's last iteration to itself. */
static void l2_port_row(struct calib *c, const struct gpuvm_config *cfg, const char *gpu,
			uint32_t ctas, const char *quantity, const char *op)
{
	uint64_t per_round = (uint64_t)ctas * 1024 * 16;
	uint64_t rounds = l2_near_bytes(cfg) / 2 / per_round;
	calib_add_row(c, gpu, quantity, "GB/s", K_THROUGHPUT, (double)ctas,
		      rounds ? wide_gb_s(c, cfg, gpu, rounds * per_round, ctas, 2, 6, op) : NAN);
}

/* The same kernel over a buffer of four times the L2, one pass (T(2) -
 * T(1)): every load misses, so one 1024-thread CTA per SM reads DRAM
 * (Mokhtari 5.1.3, Fig. 5.5: "a peak bandwidth of 307 GB/s with 15
 * blocks" on the GTX Titan Black). */
static void dram_read_row(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	uint64_t per_round = (uint64_t)cfg->sms * 1024 * 16;
	uint64_t bytes = (4 * cfg->l2_bytes + per_round - 1) / per_round * per_round;
	calib_add_row(c, gpu, "dram_read_gb_s_1cta_per_sm", "GB/s", K_THROUGHPUT, (double)cfg->sms,
		      wide_gb_s(c, cfg, gpu, bytes, cfg->sms, 1, 2, "read"));
}

/* Bytes per SM clock the whole L2 serves to reads: an L2-resident buffer
 * of half a partition's L2 read by every SM (2 CTAs of 1024 threads, 4-byte
 * __ldcg loads, grid-stride), bytes of 4 passes over T(6 passes) - T(2
 * passes): the first pass fills the L2, the rest are hits. The Accel-Sim
 * tuner's l2_bw_32f (4-byte loads, every SM) and Luo et al.'s L2
 * throughput measure the same quantity in the same unit. */
static void l2_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	uint64_t bytes = l2_near_bytes(cfg) / 2 / 4 * 4;
	char a[160], b[160];
	snprintf(a, sizeof a, "ubench-l2:bytes=%llu,passes=2", (unsigned long long)bytes);
	snprintf(b, sizeof b, "ubench-l2:bytes=%llu,passes=6", (unsigned long long)bytes);
	double cyc = kernel_cycles(c, gpu, b) - kernel_cycles(c, gpu, a);
	calib_add_row(c, gpu, "l2_read_bytes_per_clk", "B/clk", K_THROUGHPUT, NAN, 4.0 * (double)bytes / cyc);
	l2_port_row(c, cfg, gpu, 1, "l2_read_gb_s_1cta", "read");
	l2_port_row(c, cfg, gpu, cfg->sms, "l2_read_gb_s_1cta_per_sm", "read");
	/* the same with 16-byte stores: an SM's store path to the L2 */
	l2_port_row(c, cfg, gpu, cfg->sms, "l2_write_gb_s_1cta_per_sm", "write");
	/* where the store path's limit lies (hwbench l2 times the same):
	 * one SM alone (its port), half the SMs (between the port's and the
	 * slices'), two CTAs an SM (more stores in flight change nothing
	 * once the slices are the limit); and half the SMs' loads */
	l2_port_row(c, cfg, gpu, 1, "l2_write_gb_s_1cta", "write");
	l2_port_row(c, cfg, gpu, cfg->sms / 2, "l2_write_gb_s_1cta_per_2sm", "write");
	l2_port_row(c, cfg, gpu, 2 * cfg->sms, "l2_write_gb_s_2cta_per_sm", "write");
	l2_port_row(c, cfg, gpu, cfg->sms / 2, "l2_read_gb_s_1cta_per_2sm", "read");
	dram_read_row(c, cfg, gpu);
}

/* ------------------------------------------------- a warp's DRAM loads */

/* One warp's dependent loads of fresh DRAM lines by the sectors each
 * touches (ubench-warpload, (T(512 steps) - T(256)) / 256): 1 is a chase,
 * 8 a coalesced 8-byte load (one 256 B chunk), 16 two such loads from two
 * arrays (the triad's pair), 32 eight lines; one warp, then one per SM.
 * What the chase does not show: a load waits for its last sector. */
static void warp_load_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	static const unsigned sectors[] = {1, 8, 16, 32};
	for (int all = 0; all < 2; all++)
		for (size_t i = 0; i < sizeof sectors / sizeof sectors[0]; i++) {
			char a[160], b[160], q[64];
			unsigned warps = all ? cfg->sms : 1;
			snprintf(a, sizeof a, "ubench-warpload:sectors=%u,steps=256,warps=%u", sectors[i], warps);
			snprintf(b, sizeof b, "ubench-warpload:sectors=%u,steps=512,warps=%u", sectors[i], warps);
			snprintf(q, sizeof q, "warp_load_cycles_s%u%s", sectors[i], all ? "_sms" : "");
			calib_add_row(c, gpu, q, "cycles", K_LATENCY, sectors[i],
				      (kernel_cycles(c, gpu, b) - kernel_cycles(c, gpu, a)) / 256);
		}
}

/* ---------------------------------------------------- launch, link, fault */

/* The period of back-to-back launches of an empty kernel, in cycles, as
 * hwbench's launch section times 200 of them between two events:
 * (T(3 launches) - T(1)) / 2 of the whole run, so that the first launch's
 * exposed overhead cancels. Without launch pipelining
 * (gpu.kernel_launch_period_us = 0) that is the launch's overhead plus
 * the kernel's duration; with it, the host's period or the kernel's
 * duration, whichever is longer. */
static double launch_period_cycles(struct calib *c, const char *gpu, unsigned grid, unsigned block)
{
	double t[2];
	for (int i = 0; i < 2; i++) {
		char wl[96];
		snprintf(wl, sizeof wl, "ubench-empty:grid=%u,block=%u,launches=%d", grid, block,
			 1 + 2 * i);
		cJSON *o = run(c, gpu, wl);
		t[i] = o ? num(o, "sim_cycles") : NAN;
		cJSON_Delete(o);
	}
	return (t[1] - t[0]) / 2;
}

static void launch_link_rows(struct calib *c, const struct gpuvm_config *cfg, const char *gpu)
{
	calib_add_row(c, gpu, "kernel_launch_cycles", "cycles", K_THROUGHPUT, NAN,
		      launch_period_cycles(c, gpu, 1, 32));
	double us = launch_period_cycles(c, gpu, 4096, 256) / cfg->clock_mhz;
	calib_add_row(c, gpu, "empty_kernel_us_grid4096", "us", K_THROUGHPUT, NAN, us);
	/* An empty kernel's duration as nsys times it (start to completion:
	 * front-end, CTA dispatch, launch and retire, tail; no launch
	 * overhead), vs grid and block size: the rows mgpusim's H100 PCIe
	 * ground truth has (docs/launch.md). 16384 CTAs of 1024 threads are
	 * 0.5 M warps: not with --quick. */
	static const struct {
		const char *q, *period_q;
		unsigned grid, block;
		bool slow;
	} empties[] = {
		{"empty_kernel_cycles_grid1", "empty_kernel_period_us_grid1", 1, 128, false},
		{"empty_kernel_cycles_grid1024", "empty_kernel_period_us_grid1024", 1024, 128, false},
		{"empty_kernel_cycles_grid4096", "empty_kernel_period_us_grid4096", 4096, 128, false},
		{"empty_kernel_cycles_grid65536", "empty_kernel_period_us_grid65536", 65536, 128, false},
		{"empty_kernel_cycles_grid4096_block1024", "empty_kernel_period_us_grid4096_block1024",
		 4096, 1024, false},
		{"empty_kernel_cycles_grid16384_block1024", "empty_kernel_period_us_grid16384_block1024",
		 16384, 1024, true},
	};
	for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
		char w[96];
		snprintf(w, sizeof w, "ubench-empty:grid=%u,block=%u", empties[i].grid,
			 empties[i].block);
		bool skip = empties[i].slow && c->quick;
		struct row *r = calib_add_row(c, gpu, empties[i].q, "cycles", K_THROUGHPUT, empties[i].grid,
					      skip ? NAN : kernel_cycles(c, gpu, w));
		/* the same kernel launched back to back: its period (the host's
		 * launches against the kernel's duration, docs/launch.md) */
		struct row *pr = calib_add_row(c, gpu, empties[i].period_q, "us", K_THROUGHPUT, empties[i].grid,
					       skip ? NAN
					            : launch_period_cycles(c, gpu, empties[i].grid,
								           empties[i].block) /
						          cfg->clock_mhz);
		for (int k = 0; k < 2 && skip; k++) {
			struct row *x = k ? pr : r;
			if (x) {
				x->status = "skipped";
				snprintf(x->note, sizeof x->note, "not run with --quick");
			}
		}
	}
	/* host-to-device copies: bandwidth vs size */
	static const uint64_t sizes[] = {4096, 65536, 1u << 20, 16u << 20, 256u << 20};
	double at256 = NAN;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] - c->quick; i++) {
		char w[128];
		snprintf(w, sizeof w, "ubench-link:mode=copy,bytes=%llu", (unsigned long long)sizes[i]);
		cJSON *o = run(c, gpu, w);
		double s = o ? num(o, "copy_seconds") : NAN;
		cJSON_Delete(o);
		double gbs = (double)sizes[i] / s / 1e9;
		calib_add_row(c, gpu, "h2d_gb_s", "GB/s", K_CURVE, (double)sizes[i], gbs);
		/* a small copy is its fixed time: the API call, the DMA setup
		 * and completion, the link latency */
		if (sizes[i] == 4096)
			calib_add_row(c, gpu, "h2d_copy_4k_us", "us", K_LATENCY, 4096, s * 1e6);
		if (sizes[i] == 256u << 20)
			at256 = gbs;
	}
	struct row *r = calib_add_row(c, gpu, "h2d_pinned_gb_s", "GB/s", K_THROUGHPUT, 256u << 20, at256);
	if (r && c->quick) {
		r->status = "skipped";
		snprintf(r->note, sizeof r->note, "not run with --quick");
	}
	/* far faults: a chase over managed 2 MiB blocks, each a first touch */
	double ff = (kernel_cycles(c, gpu, "ubench-chase:footprint=128MiB,stride=2MiB,order="
					   "sequential,passes=1,steps=32,mem=managed") -
		     kernel_cycles(c, gpu, "ubench-chase:footprint=128MiB,stride=2MiB,order="
					   "sequential,passes=1,steps=16,mem=managed")) /
		    16 / cfg->clock_mhz;
	calib_add_row(c, gpu, "far_fault_us", "us", K_LATENCY, NAN, ff);
	/* a zero-copy read's round trip: a chase over pinned host memory, one
	 * 4 KiB node a step (cuda/hwbench.cu zero_copy_read_ns: the same
	 * kernel, chain and steps) */
	double zc = (kernel_cycles(c, gpu, "ubench-chase:footprint=8MiB,stride=4096,cache=cg,"
					   "passes=1,steps=1024,mem=pinned") -
		     kernel_cycles(c, gpu, "ubench-chase:footprint=8MiB,stride=4096,cache=cg,"
					   "passes=1,steps=512,mem=pinned")) /
		    512 / cfg->clock_mhz * 1e3;
	calib_add_row(c, gpu, "zero_copy_read_ns", "ns", K_LATENCY, NAN, zc);
}

int calibrate_preset(struct calib *c, const char *gpu)
{
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	if (!cfg)
		return gpuvm_fail(c->err, "gpuvm", 0, NULL, "out of memory");
	struct gpuvm_error e;
	if (gpuvm_config_load(cfg, gpu, &e) || gpuvm_config_finalize(cfg, &e)) {
		const char *msg = strncmp(e.msg, "argument: ", 10) ? e.msg : e.msg + 10;
		free(cfg);
		return gpuvm_fail(c->err, "--gpu", 0, NULL, "%s", msg);
	}
	size_t first = c->n;
	chase_rows(c, cfg, gpu);
	tlb_rows(c, cfg, gpu);
	tlb_par_rows(c, cfg, gpu);
	ops_rows(c, cfg, gpu);
	smem_atomic_rows(c, gpu);
	stream_rows(c, cfg, gpu);
	warp_load_rows(c, cfg, gpu);
	l2_rows(c, cfg, gpu);
	launch_link_rows(c, cfg, gpu);
	if (!c->failed && calib_add_other_published(c, first)) {
		free(cfg);
		return gpuvm_fail(c->err, "gpuvm", 0, NULL, "out of memory");
	}
	if (!c->failed)
		calib_flag_implausible(c, first, cfg, gpu);
	free(cfg);
	return c->failed ? -1 : 0;
}

/* ------------------------------------------------------------------ CLI */

static void calibrate_usage(FILE *out)
{
	fputs("usage: gpuvm calibrate [--gpu PRESET|all] [--table FILE] [--json FILE] [--csv FILE]\n"
	      "                       [--plot FILE] [--quick] [--strict] [--progress] [--jobs N]\n"
	      "\n"
	      "Runs the calibration microbenchmarks on a preset and prints each simulated\n"
	      "quantity beside the value published for the real GPU, its error and tolerance,\n"
	      "then how many rows with a published value pass and their mean |error|,\n"
	      "overall and per preset. This is the first half of the method\n"
	      "(docs/calibration.md): a model's components are tuned on microbenchmarks\n"
	      "measured on hardware; applications are then validated (gpuvm validate)\n"
	      "without touching the parameters again.\n"
	      "\n"
	      "Each published value has a role: calibration (a preset parameter was set\n"
	      "from it, so it can only echo its input) or validation (nothing was: the\n"
	      "evidence). The summary gives the validation rows alone, per preset too. A\n"
	      "quantity may have several published values, each compared on its own row.\n"
	      "\n"
	      "Rows (each a difference of two runs over the work between them):\n"
	      "  chase_*_cycles          one thread chasing shuffled 128 B lines (ubench-chase):\n"
	      "                          L1 hit (4 KiB, __ldca), L2 hit (475 KiB), far L2 (past\n"
	      "                          one L2 partition), DRAM (122 MiB); and a curve vs footprint\n"
	      "  tlb_lN_miss_delay       Karnagel's delay on miss: sequential chase at the level's\n"
	      "                          entry size, 2x its reach minus 1/2 its reach\n"
	      "  OP_latency_cycles       dependent chain: FFMA, IMAD, DFMA, MUFU.RCP (ubench-ops)\n"
	      "  OP_ops_per_clk_sm       thread-instructions per clock per SM, every SM busy\n"
	      "  smem_*, atomic_*        shared-memory chase and 2-way bank conflict; atomicAdd chain\n"
	      "  stream_*                STREAM copy / triad GB/s in steady state (ubench-stream,\n"
	      "                          one thread per element, 2 CTAs resident per SM as\n"
	      "                          gpu-stream; bytes of n elements over T(2n) - T(n)) at\n"
	      "                          2048, 512 (occ25) and 128 (occ6) threads per SM; triad /\n"
	      "                          board peak; and a curve vs threads per SM. gpu-stream's\n"
	      "                          init (stores) and read (loads) at occ6 and occ25: the\n"
	      "                          CTA slots' turnover, and it plus a load's latency; at\n"
	      "                          2048 threads per SM: the DRAM's write and read rates\n"
	      "  warp_load_cycles_sN     one warp's dependent DRAM loads of N sectors (ubench-\n"
	      "                          warpload: 1, 8 = a 256 B chunk, 16 = two arrays, 32);\n"
	      "                          _sms: a warp on every SM\n"
	      "  l2_read_bytes_per_clk   every SM reading an L2-resident buffer (ubench-l2,\n"
	      "                          __ldcg): bytes per SM clock over 4 passes\n"
	      "  l2_read_gb_s_1cta,      one CTA of 1024 threads / one per SM reading an L2-\n"
	      "  l2_read_gb_s_1cta_per_sm  resident buffer with 16-byte loads (Mokhtari 5.1.3):\n"
	      "                          the SM's port to the L2\n"
	      "  l2_write_gb_s_1cta_per_sm  the same with 16-byte stores: the SMs' store path\n"
	      "  l2_write_gb_s_1cta, _1cta_per_2sm, _2cta_per_sm, l2_read_gb_s_1cta_per_2sm\n"
	      "                          the store path from one SM, half the SMs, two CTAs an\n"
	      "                          SM; half the SMs' loads: where each limit lies\n"
	      "  dram_read_gb_s_1cta_per_sm  the same over four times the L2: DRAM read rate\n"
	      "  kernel_launch_cycles,   back-to-back empty kernels: the launch period (launch\n"
	      "                          + duration, or the host's period where launches pipeline)\n"
	      "  empty_kernel_us_grid4096\n"
	      "  empty_kernel_cycles_*    an empty kernel's duration as nsys times it (front-end,\n"
	      "                          CTA dispatch, launch and retire, tail) vs grid and block\n"
	      "  empty_kernel_period_us_*  the same kernels launched back to back: the period\n"
	      "  h2d_pinned_gb_s         host-to-device copy of 256 MiB; a curve vs size\n"
	      "  h2d_copy_4k_us          one host-to-device copy of 4 KiB: its fixed time\n"
	      "  far_fault_us            first touch of a managed 2 MiB block, per fault\n"
	      "  zero_copy_read_ns       a chase over pinned host memory: one read's round trip\n"
	      "Tolerance: +-10 % for latencies, +-15 % for throughputs, bandwidths and\n"
	      "empty-kernel times. status: pass, FAIL (outside), no-ref (nothing published:\n"
	      "the table shows \"none published\"), implausible (nothing published, and\n"
	      "physically impossible: a duration of zero or less, a rate above the preset's\n"
	      "own DRAM, L2 or link peak; the note says why; a compared row so keeps its\n"
	      "verdict and gets the note), n/a (not measurable on this preset), skipped\n"
	      "(not run with --quick).\n"
	      "\n"
	      "  --gpu PRESET|all  a preset name or .ini file, a comma-separated list of them,\n"
	      "                    or all (k80 p100 v100 a100 h100 h100-pcie); default all\n"
	      "  --table FILE      published values (default validation/microbench.tsv here,\n"
	      "                    else next to the binary's parent directory); tab-separated\n"
	      "                    gpu, quantity, value (a number or \"none published\"), unit,\n"
	      "                    source, convention; '#' lines are comments\n"
	      "  --csv FILE        every row and curve point as CSV (pd.read_csv); - for stdout\n"
	      "  --json FILE       the same as a JSON array of records\n"
	      "                    (pd.read_json(FILE, orient='records')); - for stdout\n"
	      "  --plot FILE       per preset FILE-PRESET-latency.EXT (latency vs footprint, log\n"
	      "                    x) and FILE-PRESET-bandwidth.EXT (triad vs threads per SM);\n"
	      "                    .png, .svg or .pdf; needs gnuplot\n"
	      "  --quick           reduced sizes for CI: shorter chases, a coarser sweep, STREAM\n"
	      "                    arrays of half the L2; the lower-occupancy STREAM rows and\n"
	      "                    the 256 MiB copy are skipped (status skipped)\n"
	      "  --strict          exit 3 when a row with a published value fails\n"
	      "  --progress        name each run on stderr\n"
	      "  --jobs N          with several presets: N at once, each in a worker process\n"
	      "                    (the same rows as one job, in the same order; a failing\n"
	      "                    preset reported as with one job, the first named, and\n"
	      "                    the presets after it stopped)\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm calibrate --gpu a100 --quick\n"
	      "  gpuvm calibrate --gpu all --csv calib.csv --plot calib.png\n"
	      "\n"
	      "exit status: 0 the table was produced (rows may fail: it is a report), 1 an\n"
	      "output could not be written, 2 bad input (the message names the option or the\n"
	      "table's file and line), 3 with --strict when a row fails.\n",
	      out);
}

static const char *default_table(char *buf, size_t len)
{
	if (access(DEFAULT_TABLE, R_OK) == 0)
		return DEFAULT_TABLE;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *s = strrchr(exe, '/');
		if (s) {
			*s = '\0';
			int w = snprintf(buf, len, "%.*s/../" DEFAULT_TABLE, PATH_MAX - 64, exe);
			if (w > 0 && (size_t)w < len && access(buf, R_OK) == 0)
				return buf;
		}
	}
	return DEFAULT_TABLE;
}

int gpuvm_cmd_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"gpu", required_argument, NULL, 'g'},  {"table", required_argument, NULL, 't'},
		{"csv", required_argument, NULL, 'c'},  {"json", required_argument, NULL, 'j'},
		{"plot", required_argument, NULL, 'p'}, {"quick", no_argument, NULL, 'Q'},
		{"strict", no_argument, NULL, 'S'},     {"progress", no_argument, NULL, 'P'},
		{"jobs", required_argument, NULL, 'J'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t jobs = 1;
	const char *gpu = "all", *table = NULL, *csv = NULL, *json = NULL, *plot = NULL;
	bool quick = false, strict = false, progress = false;
	int ch;
	opterr = 0;
	optind = 1;
	struct gpuvm_getopt go; /* no valued option may repeat (cli_options.h) */
	static const struct gpuvm_cli_output outputs[] = {
		{"csv", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		/* BASE.png itself is not written: its per-preset figures are
		 * claimed once the presets are known (calib_plot_claim) */
		{"plot", GPUVM_CLI_OUT_FIGURE, 0, 0, 0, 0},
		{0},
	};
	gpuvm_getopt_init(&go, opts, NULL);
	gpuvm_getopt_outputs(&go, outputs);
	while ((ch = gpuvm_getopt(&go, argc, argv, "h")) != -1) {
		if (ch == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm calibrate: %s\n", go.why);
			return 2;
		}
		switch (ch) {
		case 'g': gpu = optarg; break;
		case 't': table = optarg; break;
		case 'c': csv = optarg; break;
		case 'j': json = optarg; break;
		case 'p': plot = optarg; break;
		case 'Q': quick = true; break;
		case 'S': strict = true; break;
		case 'P': progress = true; break;
		case 'J':
			if (gpuvm_num_u64(optarg, strlen(optarg), 1, 1024, &jobs)) {
				fprintf(stderr, "gpuvm calibrate: --jobs: '%s': expected a whole number of "
						"worker processes, 1 to 1024\n", optarg);
				return 2;
			}
			break;
		case 'h': calibrate_usage(stdout); return 0;
		default:
			fprintf(stderr, "gpuvm calibrate: %s (see gpuvm calibrate --help)\n", go.why);
			return 2;
		}
	}
	if (gpuvm_cli_claim_or_report(&go, "calibrate"))
		return 2;
	if (optind < argc) {
		fprintf(stderr, "gpuvm calibrate: unexpected argument '%s' (see --help)\n",
			argv[optind]);
		return 2;
	}
	struct gpuvm_error err = {{0}};
	if (!*gpu) {
		fprintf(stderr, "gpuvm calibrate: --gpu: empty (a preset name, .ini file or all)\n");
		return 2;
	}
	if ((csv && gpuvm_output_check(csv, "--csv", true, &err)) ||
	    (json && gpuvm_output_check(json, "--json", true, &err)) ||
	    (plot && gpuvm_plot_check_path(plot, &err))) {
		fprintf(stderr, "gpuvm calibrate: %s\n", err.msg);
		return 2;
	}
	if (plot && !gpuvm_plot_available()) {
		fprintf(stderr, "gpuvm calibrate: --plot: gnuplot is not on PATH\n");
		return 2;
	}
	char tbuf[PATH_MAX];
	struct pub_table pub = {0};
	if (pub_load(&pub, table ? table : default_table(tbuf, sizeof tbuf), &err)) {
		fprintf(stderr, "gpuvm calibrate: %s%s\n", table ? "--table: " : "", err.msg);
		free(pub.rows);
		free(pub.text);
		return 2;
	}
	/* all, one preset, or a comma-separated list of them */
	char *list = strdup(gpu);
	const char *named[N_ALL * 4];
	size_t n_presets = 0;
	for (char *save = NULL, *p = list ? strtok_r(list, ",", &save) : NULL; p;
	     p = strtok_r(NULL, ",", &save)) {
		if (n_presets == sizeof named / sizeof named[0]) {
			fprintf(stderr, "gpuvm calibrate: --gpu: more than %zu presets\n", n_presets);
			free(list);
			free(pub.rows);
			free(pub.text);
			return 2;
		}
		named[n_presets++] = p;
	}
	if (!n_presets) {
		fprintf(stderr, "gpuvm calibrate: --gpu: '%s' names no preset\n", gpu);
		free(list);
		free(pub.rows);
		free(pub.text);
		return 2;
	}
	const char *const *presets = strcmp(gpu, "all") ? named : all_presets;
	n_presets = strcmp(gpu, "all") ? n_presets : N_ALL;
	/* a row naming no GPU known here, or a figure on another output, is
	 * refused before any run */
	struct calib c = {.pub = &pub, .quick = quick, .progress = progress, .err = &err,
			  .chase_steps = quick ? 4096 : 65536};
	int rc = pub_check_rows(&pub, presets, n_presets, NULL, &err) ||
			 calib_check_table_before(&c, presets, n_presets) ||
			 (plot && calib_plot_claim(plot, presets, n_presets, &err))
		 ? 2 : 0;
	if (!rc && jobs > 1 && n_presets > 1)
		rc = calib_run_jobs(&c, presets, n_presets, (unsigned)jobs) ? 2 : 0;
	for (size_t i = 0; i < n_presets && !rc && (jobs == 1 || n_presets == 1); i++)
		if (calibrate_preset(&c, presets[i]))
			rc = 2;
	if (!rc && calib_check_table(&c, presets, n_presets))
		rc = 2; /* a table row no run compared: a typo, not a report */
	if (rc) {
		fprintf(stderr, "gpuvm calibrate: %s\n", err.msg);
	} else {
		calib_print_table(&c, stdout);
		gpuvm_output_batch_begin();
		if ((csv && calib_write_csv(&c, csv, &err)) || (json && calib_write_json(&c, json, &err)))
			rc = GPUVM_EXIT_OUTPUT_FAILED;
		for (size_t i = 0; plot && !rc && i < n_presets; i++)
			if (calib_plot_preset(&c, presets[i], plot, &err))
				rc = GPUVM_EXIT_OUTPUT_FAILED;
		if (!rc && gpuvm_output_batch_commit(&err))
			rc = GPUVM_EXIT_OUTPUT_FAILED;
		if (rc) {
			gpuvm_output_batch_abort();
			fprintf(stderr, "gpuvm calibrate: %s\n", err.msg);
		}
	}
	if (!rc && strict)
		for (size_t i = 0; i < c.n; i++)
			if (!strcmp(c.rows[i].status, "FAIL"))
				rc = 3;
	free(c.rows);
	free(list);
	free(pub.rows);
	free(pub.text);
	return rc;
}
