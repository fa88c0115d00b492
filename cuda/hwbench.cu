// gpuvm's calibration microbenchmarks and validation programs run on a real
// GPU: the same kernel bodies `gpuvm calibrate` and `gpuvm validate` run in
// the simulator (src/workloads/calib/calib_kernels.h, the suite's vectorAdd,
// 2DCONV and ATAX, Karnagel's random sampling), launched with the same grids,
// so each simulated value has a measured one from the same program.
//
// Build and run on a machine with a GPU (gpuvm itself never runs CUDA):
//   nvcc -O3 -arch=sm_90 -std=c++14 -Iinclude -o hwbench cuda/hwbench.cu
//   ./hwbench all > hw.tsv          # every section below, one TSV row each
//   ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum \
//       --csv ./hwbench durations   # kernel durations as nsys/ncu time them
// scripts/hw-measure.sh runs all of it and writes the files docs/hardware.md
// reads.
//
// Conventions (each row's last column repeats the one that applies):
// - cycles are SM cycles at the clock measured during the run (clock64()
//   against %globaltimer on one SM: `clock_mhz`);
// - a latency is a difference of two launches with N and 2N dependent steps
//   divided by N (launch and warm-up cancel), as gpuvm calibrate computes it;
//   `chase_inkernel` rows time a chain with clock64() inside the kernel after
//   a warm pass (gpu-benches gpu-latency's convention);
// - a bandwidth is bytes over the median of 7 event-timed launches;
// - L2 is flushed (a 4x-L2 buffer written) before each cold chase launch.
//
// Rows: row<TAB>section<TAB>quantity<TAB>x<TAB>value<TAB>unit<TAB>method
#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "../src/workloads/calib/calib_dram_kernels.h"
#include "../src/workloads/calib/calib_kernels.h"
#include "../src/workloads/suite/atax_kernels.h"
#include "../src/workloads/suite/bicg_kernels.h"
#include "../src/workloads/suite/gesummv_kernels.h"
#include "../src/workloads/suite/mvt_kernels.h"
#include "../src/workloads/suite/conv2d_kernels.h"
#include "../src/workloads/suite/gemm_kernels.h"
#include "../src/workloads/suite/ubench_kernels.h"
#include "../src/workloads/suite/vectoradd_kernels.h"
#include "random_sampling.cu"

#define CHECK(call)                                                                          \
	do {                                                                                 \
		cudaError_t e_ = (call);                                                     \
		if (e_ != cudaSuccess) {                                                     \
			fprintf(stderr, "hwbench: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
				cudaGetErrorString(e_));                                     \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

static double g_mhz;          // measured SM clock
static int g_sms;             // multiprocessors
static size_t g_l2;           // L2 bytes
static unsigned char *g_flush; // 4 x L2, written to evict the L2

static void row(const char *section, const char *q, double x, double v, const char *unit,
		const char *method)
{
	printf("row\t%s\t%s\t%.0f\t%.4f\t%s\t%s\n", section, q, x, v, unit, method);
	fflush(stdout);
}

// ------------------------------------------------------------- timing

typedef void (*launch_fn)(void *ctx);

static double time_once_us(launch_fn f, void *ctx)
{
	cudaEvent_t a, b;
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	CHECK(cudaEventRecord(a));
	f(ctx);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(b));
	CHECK(cudaEventSynchronize(b));
	float ms;
	CHECK(cudaEventElapsedTime(&ms, a, b));
	CHECK(cudaEventDestroy(a));
	CHECK(cudaEventDestroy(b));
	return ms * 1e3;
}

static void flush_l2(void)
{
	CHECK(cudaMemset(g_flush, 0x5a, 4 * g_l2));
	CHECK(cudaDeviceSynchronize());
}

// the median of v (sorted in place); NAN when empty
static double median_of(std::vector<double> &v)
{
	if (v.empty())
		return NAN;
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

// median of reps event-timed launches; flush first when cold
static double median_us(launch_fn f, void *ctx, int reps, bool cold)
{
	std::vector<double> v;
	f(ctx); // warm-up: module load, first-touch of the driver's state
	CHECK(cudaDeviceSynchronize());
	for (int r = 0; r < reps; r++) {
		if (cold)
			flush_l2();
		v.push_back(time_once_us(f, ctx));
	}
	return median_of(v);
}

__global__ void clock_kernel(long long spin, unsigned long long *out)
{
	unsigned long long g0, g1;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
	long long c0 = clock64();
	while (clock64() - c0 < spin)
		;
	long long c1 = clock64();
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
	out[0] = (unsigned long long)(c1 - c0);
	out[1] = g1 - g0;
}

// SM clock in MHz: clock64() cycles over %globaltimer ns while spinning
static double measure_mhz(void)
{
	unsigned long long *d, h[2];
	CHECK(cudaMalloc(&d, 2 * sizeof *d));
	double best = 0;
	for (int i = 0; i < 5; i++) {
		clock_kernel<<<1, 1>>>(200000000LL, d);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
		double mhz = (double)h[0] / (double)h[1] * 1e3;
		best = std::max(best, mhz);
	}
	CHECK(cudaFree(d));
	return best;
}

// ------------------------------------------------------------- chases

struct chase_ctx {
	calib_chase_args a;
};

static void launch_chase(void *p)
{
	chase_ctx *c = (chase_ctx *)p;
	calib_chase<<<1, 32>>>(c->a);
}

// The visiting order of ubench-chase (src/workloads/calib/calib.c
// chase_order, seed 1): Fisher-Yates driven by SplitMix64, node 0 first,
// so a chain here is node for node the one the simulator chases.
static std::vector<uint32_t> chase_order(uint64_t nodes, bool shuffled)
{
	std::vector<uint32_t> ord(nodes);
	for (uint64_t i = 0; i < nodes; i++)
		ord[i] = (uint32_t)i;
	uint64_t s = 1;
	if (shuffled)
		for (uint64_t k = nodes - 1; k > 1; k--) {
			uint64_t z = (s += 0x9e3779b97f4a7c15ull);
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			z ^= z >> 31;
			std::swap(ord[k], ord[1 + z % k]);
		}
	return ord;
}

// A cyclic chain over footprint/stride nodes in chase_order: next[j] is the
// word index of the node after j, as gpuvm's ubench-chase builds it (there
// the cycle is the first `steps` nodes of the order; N steps along this one
// visit the same nodes in the same order).
static unsigned int *build_chain(uint64_t footprint, uint64_t stride, bool shuffled,
				 bool managed)
{
	uint64_t nodes = footprint / stride, wpn = stride / 4;
	std::vector<uint32_t> ord = chase_order(nodes, shuffled);
	unsigned int *d;
	if (managed) {
		CHECK(cudaMallocManaged(&d, footprint));
		for (uint64_t i = 0; i < nodes; i++)
			d[ord[i] * wpn] = (unsigned int)(ord[(i + 1) % nodes] * wpn);
		return d;
	}
	CHECK(cudaMalloc(&d, footprint));
	std::vector<unsigned int> next(nodes);
	// written node by node on the device: only one word per node matters
	for (uint64_t i = 0; i < nodes; i++)
		next[ord[i]] = (unsigned int)(ord[(i + 1) % nodes] * wpn);
	unsigned int *dn;
	CHECK(cudaMalloc(&dn, nodes * 4));
	CHECK(cudaMemcpy(dn, next.data(), nodes * 4, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy2D(d, stride, dn, 4, 4, nodes, cudaMemcpyDeviceToDevice));
	CHECK(cudaFree(dn));
	return d;
}

// (T(2N steps) - T(N steps)) / N in cycles, the calib_chase kernel
static double chase_diff_cycles(unsigned int *chain, unsigned int *out, uint64_t n, int cache,
				bool cold)
{
	chase_ctx c1 = {{chain, out, (unsigned)n, 1, cache}};
	chase_ctx c2 = {{chain, out, (unsigned)(2 * n), 1, cache}};
	double t1 = median_us(launch_chase, &c1, 5, cold);
	double t2 = median_us(launch_chase, &c2, 5, cold);
	return (t2 - t1) / (double)n * g_mhz;
}

// gpu-benches gpu-latency's convention: a warm pass, then timed steps
__global__ void chase_inkernel(const unsigned int *next, unsigned int warm, unsigned int steps,
			       int cg, double *out)
{
	unsigned int j = 0;
	for (unsigned int i = 0; i < warm; i++)
		j = cg ? __ldcg(&next[j]) : next[j];
	long long t0 = clock64();
	for (unsigned int i = 0; i < steps; i++)
		j = cg ? __ldcg(&next[j]) : next[j];
	long long t1 = clock64();
	out[0] = (double)(t1 - t0) / steps + (j == 0xffffffffu ? 1 : 0);
}

// One point of the in-kernel curve: a warm pass of every node (up to
// 2^22), then 4096 to 2^16 timed steps, min of 3
static void chase_curve_row(uint64_t fp, double *dres)
{
	unsigned int *ch = build_chain(fp, 128, true, false);
	uint64_t nodes = fp / 128;
	unsigned warm = (unsigned)std::min<uint64_t>(nodes, 1u << 22);
	unsigned steps = (unsigned)std::max<uint64_t>(std::min<uint64_t>(nodes, 1u << 16), 4096);
	double best = INFINITY;
	for (int r = 0; r < 3; r++) {
		chase_inkernel<<<1, 1>>>(ch, warm, steps, 0, dres);
		CHECK(cudaGetLastError());
		double v;
		CHECK(cudaMemcpy(&v, dres, sizeof v, cudaMemcpyDeviceToHost));
		best = std::min(best, v);
	}
	row("chase", "chase_cycles", (double)fp, best, "cycles",
	    "in-kernel clock64, warm pass then timed, shuffled 128 B lines, default loads, min of 3");
	CHECK(cudaFree(ch));
}

static void chase_section(void)
{
	unsigned int *out;
	double *dres;
	CHECK(cudaMalloc(&out, 4096));
	CHECK(cudaMalloc(&dres, sizeof(double)));
	// the curve, in-kernel timing
	for (uint64_t fp = 4096; fp <= 4 * (uint64_t)g_l2 && fp <= (1ull << 30); fp *= 2)
		chase_curve_row(fp, dres);
	// the L2's edge in finer steps: where the doubling above jumps from
	// L2 hits to DRAM (A100/H100: two partitions, a far plateau between)
	for (uint64_t mib : {20, 24, 28, 36, 40, 44, 48, 56})
		if ((mib << 20) <= 4 * (uint64_t)g_l2)
			chase_curve_row(mib << 20, dres);
	// the calibrate rows with the calibrate kernel: (T(2N) - T(N)) / N
	struct {
		const char *q;
		uint64_t fp, stride;
		int cache;
		bool cold;
	} rows[] = {
		{"chase_l1_hit_cycles", 4096, 128, 2, false},
		{"chase_l2_hit_cycles", 475 * 1024, 128, 0, false},
		{"chase_l2_far_cycles", (uint64_t)(g_l2 / 10 * 7) / 128 * 128, 128, 0, false},
		{"chase_dram_cycles", 125026ull * 1024, 128, 0, true},
		{"chase_dram_1gib_cycles", 1ull << 30, 1024, 1, true},
	};
	for (auto &r : rows) {
		unsigned int *ch = build_chain(r.fp, r.stride, true, false);
		uint64_t nodes = r.fp / r.stride;
		// warm: whole passes over every node, as calibrate's T(2 passes) -
		// T(1 pass) (past one L2 partition the simulator visits every line,
		// so a chase over only the first 2N nodes would stay near); at least
		// 2^16 steps so that the events resolve the difference
		uint64_t n = r.cold ? std::min<uint64_t>(nodes / 2, 1u << 15)
				    : (((1u << 16) + nodes - 1) / nodes) * nodes;
		double v = chase_diff_cycles(ch, out, n, r.cache, r.cold);
		row("chase", r.q, (double)r.fp, v, "cycles",
		    r.cold ? "calib_chase, (T(2N)-T(N))/N, L2 flushed before each launch, median of 5"
			   : "calib_chase, (T(2N)-T(N))/N, N whole passes >= 2^16 steps, warm, median of 5");
		CHECK(cudaFree(ch));
	}
	CHECK(cudaFree(out));
	CHECK(cudaFree(dres));
}

// ---------------------------------------------------- MT4G's 1 GiB convention

// caps-tum/mt4g's mainMemoryLatency, as its sample results were taken: one
// thread times each of its hops with %clock around an ld.global.cv load,
// 2048 hops from node 0 of a shuffled cycle over 1 GiB with 1 KiB between
// nodes, no warm-up. Its A100 and H100 results split into two modes
// 150-185 cycles apart that calibrate's warm chase on the same parts does
// not show (docs/calibration.md, "The 1 GiB chase"). The variants below
// change one thing each, so one board names the cause: the first launch
// in a fresh context, the same launch again (translations warm), and
// ld.global.cg in place of .cv (the L2 keeps the line).
#define MT4G_HOPS 2048
__global__ void mt4g_hops(const unsigned int *chain, int cv, unsigned int *cycles)
{
	// the times kept in shared memory until the end, as MT4G keeps them
	__shared__ unsigned int t[MT4G_HOPS];
	unsigned int j = 0;
	for (int i = 0; i < MT4G_HOPS; i++) {
		unsigned int t0, t1, v;
		asm volatile("mov.u32 %0, %%clock;" : "=r"(t0));
		if (cv)
			asm volatile("ld.global.cv.u32 %0, [%1];" : "=r"(v) : "l"(chain + j));
		else
			asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(chain + j));
		j = v;
		// the clock waits for the load: it reads the loaded value
		asm volatile("mov.u32 %0, %%clock;" : "=r"(t1) : "r"(v));
		t[i] = t1 - t0;
	}
	for (int i = 0; i < MT4G_HOPS; i++)
		cycles[i] = t[i];
}

static void mt4g_row(const char *variant, const std::vector<unsigned int> &c, double warm)
{
	// the first hop is left out, as MT4G does
	std::vector<double> v(c.begin() + 1, c.end());
	double mean = 0;
	for (double x : v)
		mean += x;
	mean /= (double)v.size();
	std::vector<double> s = v;
	std::sort(s.begin(), s.end());
	// hops more than 100 cycles above calibrate's warm chase: MT4G's
	// second mode
	double slow = 0;
	for (double x : v)
		slow += x > warm + 100;
	char q[64];
	snprintf(q, sizeof q, "mt4g_1gib_%s_mean_cycles", variant);
	row("mt4g", q, MT4G_HOPS - 1, mean, "cycles", "per-hop %clock, 1 GiB, 1 KiB nodes, MT4G's kernel");
	snprintf(q, sizeof q, "mt4g_1gib_%s_p50_cycles", variant);
	row("mt4g", q, MT4G_HOPS - 1, s[s.size() / 2], "cycles", "median hop");
	snprintf(q, sizeof q, "mt4g_1gib_%s_slow_fraction", variant);
	row("mt4g", q, warm + 100, slow / (double)v.size(), "fraction",
	    "hops above the warm chase + 100 cycles (x = that bound)");
}

// Resets the device: run on its own (`hwbench mt4g`), before anything else
static void mt4g_section(void)
{
	CHECK(cudaDeviceReset());
	g_mhz = measure_mhz();
	// written as MT4G writes it: the whole array in one host-to-device copy
	// (build_chain's device-to-device scatter could run on the SMs and warm
	// their translations before the fresh launch)
	const uint64_t bytes = 1ull << 30, wpn = 1024 / 4, nodes = bytes / 1024;
	std::vector<uint32_t> ord = chase_order(nodes, true);
	std::vector<unsigned int> host(bytes / 4, 0);
	for (uint64_t i = 0; i < nodes; i++)
		host[ord[i] * wpn] = (unsigned int)(ord[(i + 1) % nodes] * wpn);
	unsigned int *ch, *dc;
	CHECK(cudaMalloc(&ch, bytes));
	CHECK(cudaMemcpy(ch, host.data(), bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&dc, MT4G_HOPS * sizeof(unsigned int)));
	std::vector<unsigned int> c(MT4G_HOPS);
	auto hops = [&](int cv) {
		mt4g_hops<<<1, 1>>>(ch, cv, dc);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(c.data(), dc, MT4G_HOPS * sizeof(unsigned int), cudaMemcpyDeviceToHost));
		return c;
	};
	// the fresh launch first: the warm chase it is classed against would
	// warm the translations
	std::vector<unsigned int> fresh = hops(1);
	unsigned int *out;
	CHECK(cudaMalloc(&out, 4096));
	CHECK(cudaMalloc(&g_flush, 4 * g_l2));
	double warm = chase_diff_cycles(ch, out, 1u << 15, 1, true);
	printf("# clock_mhz=%.1f\n", g_mhz);
	row("mt4g", "chase_dram_1gib_cycles", 1ull << 30, warm, "cycles",
	    "calib_chase, (T(2N)-T(N))/N, L2 flushed before each launch, median of 5");
	mt4g_row("fresh_cv", fresh, warm);
	mt4g_row("again_cv", hops(1), warm);
	mt4g_row("again_cg", hops(0), warm);
	CHECK(cudaFree(out));
	CHECK(cudaFree(dc));
	CHECK(cudaFree(ch));
}

// ------------------------------------------------------------- arithmetic

// one dependent chain of the op per thread (ilp 1) or 8 independent ones
template <int OP, int ILP>
__global__ void ops_kernel(unsigned int *out, unsigned int iters, long long *cycles)
{
	float f[ILP];
	unsigned int u[ILP];
	double d[ILP];
	for (int k = 0; k < ILP; k++) {
		f[k] = 1.0f + threadIdx.x * 1e-3f + k;
		u[k] = threadIdx.x * 7u + k;
		d[k] = 1.0 + threadIdx.x * 1e-3 + k;
	}
	__syncthreads();
	long long t0 = clock64();
	// unrolled so that the loop's counter, compare and branch take a
	// small share of the issue slots the throughput rows measure
#pragma unroll 16
	for (unsigned int i = 0; i < iters; i++) {
#pragma unroll
		for (int k = 0; k < ILP; k++) {
			if (OP == 0)
				asm volatile("fma.rn.f32 %0, %0, %0, %0;" : "+f"(f[k]));
			else if (OP == 1)
				asm volatile("mad.lo.u32 %0, %0, %0, %0;" : "+r"(u[k]));
			else if (OP == 2)
				asm volatile("fma.rn.f64 %0, %0, %0, %0;" : "+d"(d[k]));
			else
				asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(f[k]));
		}
	}
	__syncthreads();
	long long t1 = clock64();
	unsigned int acc = 0;
	for (int k = 0; k < ILP; k++)
		acc ^= u[k] ^ __float_as_uint(f[k]) ^ (unsigned int)__double2loint(d[k]);
	out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
	if (threadIdx.x == 0)
		cycles[blockIdx.x] = t1 - t0;
}

template <int OP>
static void ops_one(const char *name, unsigned int *out, long long *cyc)
{
	// latency: one warp, one chain, N vs 2N (in-kernel clock)
	long long h[2];
	unsigned n = 4096;
	ops_kernel<OP, 1><<<1, 32>>>(out, n, cyc);
	CHECK(cudaMemcpy(&h[0], cyc, sizeof(long long), cudaMemcpyDeviceToHost));
	ops_kernel<OP, 1><<<1, 32>>>(out, 2 * n, cyc);
	CHECK(cudaMemcpy(&h[1], cyc, sizeof(long long), cudaMemcpyDeviceToHost));
	char q[64];
	snprintf(q, sizeof q, "%s_latency_cycles", name);
	row("ops", q, 0, (double)(h[1] - h[0]) / n, "cycles",
	    "one warp, dependent chain of one PTX op (fma.rn.f32, mad.lo.u32, fma.rn.f64, ex2.approx), clock64 (T(2N)-T(N))/N");
	// throughput: one CTA of 512 threads per SM, 8 chains each
	std::vector<long long> c(g_sms);
	double rate[2];
	for (int k = 0; k < 2; k++) {
		ops_kernel<OP, 8><<<g_sms, 512>>>(out, (k + 1) * 1024, cyc);
		CHECK(cudaGetLastError());
		CHECK(cudaMemcpy(c.data(), cyc, g_sms * sizeof(long long), cudaMemcpyDeviceToHost));
		std::sort(c.begin(), c.end());
		rate[k] = (double)c[c.size() / 2];
	}
	snprintf(q, sizeof q, "%s_ops_per_clk_sm", name);
	row("ops", q, 0, 512.0 * 8 * 1024 / (rate[1] - rate[0]), "ops/clk/SM",
	    "one 512-thread CTA per SM, 8 independent chains, clock64 per CTA, (T(2N)-T(N)), median CTA");
}

static void ops_section(void)
{
	unsigned int *out;
	long long *cyc;
	CHECK(cudaMalloc(&out, (size_t)g_sms * 512 * 4));
	CHECK(cudaMalloc(&cyc, (size_t)g_sms * sizeof(long long)));
	ops_one<0>("fma", out, cyc);
	ops_one<1>("imad", out, cyc);
	ops_one<2>("dp", out, cyc);
	ops_one<3>("sfu", out, cyc);
	CHECK(cudaFree(out));
	CHECK(cudaFree(cyc));
}

// ------------------------------------------------------- smem, atomics

struct smem_ctx {
	ubench_smem_args a;
};
static void launch_smem(void *p)
{
	ubench_smem<<<1, 32>>>(((smem_ctx *)p)->a);
}
struct atomic_ctx {
	calib_atomic_args a;
};
static void launch_atomic(void *p)
{
	calib_atomic<<<1, 32>>>(((atomic_ctx *)p)->a);
}

// cycles a step of ubench_smem at lane stride k (a k-way conflict)
static double smem_step_cycles(unsigned int *out, unsigned k)
{
	unsigned n = 1u << 16;
	smem_ctx a = {{out, n, k}}, b = {{out, 2 * n, k}};
	return (median_us(launch_smem, &b, 7, false) - median_us(launch_smem, &a, 7, false)) / n * g_mhz;
}

static void smem_atomic_section(void)
{
	unsigned int *out, *words;
	CHECK(cudaMalloc(&out, 4096));
	CHECK(cudaMalloc(&words, 4096));
	CHECK(cudaMemset(words, 0, 4096));
	double s[2] = {smem_step_cycles(out, 1), smem_step_cycles(out, 2)};
	row("smem", "smem_latency_cycles", 0, s[0], "cycles", "ubench_smem, stride 1, (T(2N)-T(N))/N, events");
	row("smem", "smem_2way_conflict_extra_cycles", 0, s[1] - s[0], "cycles",
	    "ubench_smem, stride 2 minus stride 1");
	unsigned n = 1u << 14;
	atomic_ctx a = {{words, out, n, 0}}, b = {{words, out, 2 * n, 0}};
	double at = (median_us(launch_atomic, &b, 7, false) - median_us(launch_atomic, &a, 7, false)) /
		    n * g_mhz;
	// not a latency on H100: these atomics' results feed only a sum, and
	// the board pipelines them on the one word (127 cycles apart, under an
	// L2 hit); mechanisms_section's atomic_chase is the dependent chain
	row("atomic", "atomic_same_word_cycles", 0, at, "cycles", "calib_atomic mode 0 (one thread's atomicAdds on one word, results summed), (T(2N)-T(N))/N");
	CHECK(cudaFree(out));
	CHECK(cudaFree(words));
}

// ------------------------------------------------------------- stream

struct stream_ctx {
	int kernel; // 0 copy, 1 triad, 2 init, 3 read, 4 scale, 5 read2
	unsigned block;
	size_t smem; // dynamic shared bytes: two CTAs per SM, whatever the block
	calib_stream_args a;
};

static void launch_stream(void *p)
{
	stream_ctx *c = (stream_ctx *)p;
	unsigned grid = (unsigned)((c->a.n + c->block - 1) / c->block);
	size_t sh = c->smem;
	switch (c->kernel) {
	case 0: calib_copy<<<grid, c->block, sh>>>(c->a); break;
	case 1: calib_triad<<<grid, c->block, sh>>>(c->a); break;
	case 2: calib_stream_init<<<grid, c->block, sh>>>(c->a); break;
	case 3: calib_stream_read<<<grid, c->block, sh>>>(c->a); break;
	case 4: calib_stream_scale<<<grid, c->block, sh>>>(c->a); break;
	default: calib_stream_read2<<<grid, c->block, sh>>>(c->a); break;
	}
}

__global__ void fill_index(double *a, unsigned long long n)
{
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] = (double)(i & 1023);
}

// the calib STREAM kernels in launch_stream's numbering, and their names
static void *const stream_fns[] = {(void *)calib_copy, (void *)calib_triad, (void *)calib_stream_init,
				   (void *)calib_stream_read, (void *)calib_stream_scale,
				   (void *)calib_stream_read2};
static const char *const stream_names[] = {"copy", "triad", "init", "read", "scale", "read2"};

// Three arrays of n doubles (i & 1023 each) for the STREAM kernels, and
// the dynamic shared bytes that keep two CTAs resident per SM, as
// gpu-stream and gpuvm calibrate run them: each CTA takes half of the SM's
// shared memory (less the per-block reservation), so a third never fits
// whatever carve-out the driver picks; every kernel is allowed that much.
static size_t stream_setup(unsigned long long n, double **a, double **b, double **c)
{
	for (double **p : {a, b, c}) {
		CHECK(cudaMalloc(p, n * 8));
		fill_index<<<(unsigned)(n / 256), 256>>>(*p, n);
	}
	CHECK(cudaDeviceSynchronize());
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	size_t smem = prop.sharedMemPerMultiprocessor / 2 - prop.reservedSharedMemPerBlock;
	for (void *fn : stream_fns) {
		CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
		CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
	}
	return smem;
}

static void stream_free(double *a, double *b, double *c)
{
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
}

static void stream_section(void)
{
	unsigned long long n = 1ull << 26; // 512 MiB per array, 10x the L2
	double *a, *b, *c;
	size_t smem = stream_setup(n, &a, &b, &c);
	static const double streams[] = {2, 3, 1, 1, 2};
	static const unsigned blocks[] = {32, 64, 128, 256, 512, 1024};
	for (int k = 0; k < 5; k++)
		for (unsigned bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
			stream_ctx s = {k, blocks[bi], smem, {a, b, c, 1.2, n}};
			int occ = 0;
			CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, stream_fns[k], (int)blocks[bi], smem));
			double us = median_us(launch_stream, &s, 7, false);
			char q[64];
			snprintf(q, sizeof q, "stream_%s_gb_s", stream_names[k]);
			char m[160];
			snprintf(m, sizeof m, "gpu-stream grid: one element per thread, %zu B shared per CTA (occupancy API: %d CTAs/SM), 2^26 doubles, median of 7", smem, occ);
			row("stream", q, 2.0 * blocks[bi], streams[k] * 8.0 * (double)n / us / 1e3, "GB/s", m);
		}
	stream_free(a, b, c);
}

// ------------------------------------------------- a CTA slot's parts

// What one CTA of a low-occupancy stream spends its slot on: the gpu-stream
// kernels (and read2: two loads, no store) at two CTAs per SM, as the time
// one CTA holds its slot, (T(2n) - T(n)) / (CTAs per slot in n) in cycles.
// read vs read2 is a second independent load; read vs scale a store after
// the load; init the slot's turnover with a store only.
static void stream_parts_section(void)
{
	unsigned long long n = 1ull << 25;
	double *a, *b, *c;
	size_t smem = stream_setup(2 * n, &a, &b, &c);
	static const unsigned blocks[] = {32, 64, 128, 256, 512};
	for (int k = 0; k < 6; k++)
		for (unsigned bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++) {
			stream_ctx s1 = {k, blocks[bi], smem, {a, b, c, 1.2, n}};
			stream_ctx s2 = {k, blocks[bi], smem, {a, b, c, 1.2, 2 * n}};
			double t1 = median_us(launch_stream, &s1, 7, false);
			double t2 = median_us(launch_stream, &s2, 7, false);
			double ctas_per_slot = (double)(n / blocks[bi]) / (2.0 * g_sms);
			char q[64];
			snprintf(q, sizeof q, "stream_%s_slot_cycles", stream_names[k]);
			row("slot", q, (double)blocks[bi], (t2 - t1) * g_mhz / ctas_per_slot, "cycles",
			    "gpu-stream grid at 2 CTAs/SM (x = threads per CTA): (T(2^26) - T(2^25)) x clock / CTAs per slot, medians of 7");
		}
	stream_free(a, b, c);
}

// ------------------------------------------------ a CTA slot's timeline

// Where a low-occupancy stream's slot time goes, CTA by CTA (the slot
// section gives only its mean). Each CTA's thread 0 notes its SM and its
// clock64() as its first act: one 16-byte store before any load, which is
// what gpu-stream's init does (and init's slot costs ~400 cycles at any
// block: the store is not what a slot waits for). One CTA in
// CTA_LINE_SAMPLE also notes, per warp, when its loads' values were in (a
// clock read behind a branch on them) and when it issued its last
// instruction: stores after the loads that only those CTAs make. On one
// SM clock64() is one clock, so per SM the CTAs' starts in order give:
// the period (a slot's CTA to the one after it in the same slot: every
// second start, two slots an SM), and for a sampled CTA its successor in
// its slot (the first start on its SM after its last warp's end). Rows:
// load = values in - start, internal = end - start, gap = successor's
// start - end, the medians; period over every CTA. If what a store after
// a load or a second load adds to the slot (docs/hardware.md, "A CTA
// slot's parts") is in the gap, the slot waits for something after the
// warps are done; if in load or internal, the CTA runs longer.
#define CTA_LINE_SAMPLE 16

struct cta_line_rec {
	unsigned long long start;
	unsigned int sm, pad;
};

struct cta_line_warp {
	unsigned long long load, end;
};

// K: 0 read, 1 read2, 2 scale, 3 triad, 4 init (stream_names' kernels,
// one element a thread as gpu-stream launches them, no grid-stride loop)
template <int K>
__global__ void cta_line(double *A, const double *__restrict__ B, const double *__restrict__ C,
			 unsigned long long n, cta_line_rec *rec, cta_line_warp *wrec)
{
	extern __shared__ double spoiler[]; // the slot's share of shared memory, as gpu-stream's
	unsigned long long t0 = clock64();
	if (threadIdx.x == 0) {
		unsigned s;
		asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
		rec[blockIdx.x].start = t0;
		rec[blockIdx.x].sm = s;
	}
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	bool sampled = blockIdx.x % CTA_LINE_SAMPLE == 0;
	unsigned long long tl = t0;
	if (K == 4) {
		A[i] = 0.23;
	} else if (K == 0 || K == 2) {
		double b = B[i];
		if (sampled && b != -2.0) // b is 0..1023: taken once b is in
			tl = clock64();
		if (K == 2)
			A[i] = 1.2 * b;
		else if (b == -1.0)
			A[i] = b + spoiler[0];
	} else {
		double b = B[i], c = C[i];
		if (sampled && b + c != -2.0)
			tl = clock64();
		if (K == 3)
			A[i] = 1.2 * b + c;
		else if (b + c == -1.0)
			A[i] = b + spoiler[0];
	}
	if (sampled) {
		unsigned long long te = clock64();
		if ((threadIdx.x & 31) == 0) {
			unsigned long long w = (unsigned long long)(blockIdx.x / CTA_LINE_SAMPLE) *
						       (blockDim.x / 32) +
					       threadIdx.x / 32;
			wrec[w].load = tl;
			wrec[w].end = te;
		}
	}
}

template <int K>
static void cta_line_launch(unsigned grid, unsigned block, size_t smem, double *a, double *b,
			    double *c, unsigned long long n, cta_line_rec *rec, cta_line_warp *wrec)
{
	CHECK(cudaFuncSetAttribute(cta_line<K>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	CHECK(cudaFuncSetAttribute(cta_line<K>, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
	cta_line<K><<<grid, block, smem>>>(a, b, c, n, rec, wrec);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
}

static void cta_line_section(void)
{
	unsigned long long n = 1ull << 24; // 128 MiB an array: 2.6x H100's L2
	double *a, *b, *c;
	size_t smem = stream_setup(n, &a, &b, &c);
	static const int kernels[] = {3, 5, 4, 1, 2}; // stream_names' read, read2, scale, triad, init
	static const unsigned blocks[] = {64, 256};
	for (unsigned bi = 0; bi < 2; bi++) {
		unsigned block = blocks[bi], grid = (unsigned)(n / block), warps = block / 32;
		unsigned sampled = (grid + CTA_LINE_SAMPLE - 1) / CTA_LINE_SAMPLE;
		cta_line_rec *drec;
		cta_line_warp *dwrec;
		CHECK(cudaMalloc(&drec, grid * sizeof *drec));
		CHECK(cudaMalloc(&dwrec, (size_t)sampled * warps * sizeof *dwrec));
		std::vector<cta_line_rec> rec(grid);
		std::vector<cta_line_warp> wrec((size_t)sampled * warps);
		for (int ki = 0; ki < 5; ki++) {
			// a warm-up launch, then the one whose records are read
			for (int run = 0; run < 2; run++) {
				switch (kernels[ki]) {
				case 3: cta_line_launch<0>(grid, block, smem, a, b, c, n, drec, dwrec); break;
				case 5: cta_line_launch<1>(grid, block, smem, a, b, c, n, drec, dwrec); break;
				case 4: cta_line_launch<2>(grid, block, smem, a, b, c, n, drec, dwrec); break;
				case 1: cta_line_launch<3>(grid, block, smem, a, b, c, n, drec, dwrec); break;
				default: cta_line_launch<4>(grid, block, smem, a, b, c, n, drec, dwrec); break;
				}
			}
			CHECK(cudaMemcpy(rec.data(), drec, grid * sizeof *drec, cudaMemcpyDeviceToHost));
			CHECK(cudaMemcpy(wrec.data(), dwrec, wrec.size() * sizeof *dwrec, cudaMemcpyDeviceToHost));
			// each SM's starts in order (%smid may exceed the SM count)
			unsigned max_sm = 0;
			for (unsigned j = 0; j < grid; j++)
				max_sm = std::max(max_sm, rec[j].sm);
			std::vector<std::vector<unsigned long long>> starts(max_sm + 1);
			for (unsigned j = 0; j < grid; j++)
				starts[rec[j].sm].push_back(rec[j].start);
			std::vector<double> period, load, internal, gap;
			for (auto &s : starts) {
				std::sort(s.begin(), s.end());
				for (size_t k = 0; k + 2 < s.size(); k++)
					period.push_back((double)(s[k + 2] - s[k]));
			}
			for (unsigned j = 0; j < grid; j += CTA_LINE_SAMPLE) {
				const cta_line_warp *w = &wrec[(size_t)(j / CTA_LINE_SAMPLE) * warps];
				unsigned long long end = 0, in = 0;
				for (unsigned k = 0; k < warps; k++) {
					end = std::max(end, w[k].end);
					in = std::max(in, w[k].load);
				}
				const std::vector<unsigned long long> &s = starts[rec[j].sm];
				auto next = std::upper_bound(s.begin(), s.end(), end);
				load.push_back((double)(in - rec[j].start));
				internal.push_back((double)(end - rec[j].start));
				if (next != s.end())
					gap.push_back((double)(*next - end));
			}
			const char *name = stream_names[kernels[ki]];
			const char *m = "per CTA at 2 CTAs/SM (x = threads per CTA), 2^24 doubles, clock64() on the CTA's SM, median (cta_line)";
			char q[64];
			snprintf(q, sizeof q, "cta_%s_period_cycles", name);
			row("ctaline", q, block, median_of(period), "cycles", m);
			snprintf(q, sizeof q, "cta_%s_load_cycles", name);
			row("ctaline", q, block, median_of(load), "cycles", m);
			snprintf(q, sizeof q, "cta_%s_internal_cycles", name);
			row("ctaline", q, block, median_of(internal), "cycles", m);
			snprintf(q, sizeof q, "cta_%s_gap_cycles", name);
			row("ctaline", q, block, median_of(gap), "cycles", m);
		}
		CHECK(cudaFree(drec));
		CHECK(cudaFree(dwrec));
	}
	stream_free(a, b, c);
}

// ------------------------------------------- a warp's load vs its sectors

// One warp's load from DRAM by how many sectors it touches: lane stride 0
// (one sector), 8 B (8 sectors, two lines), 32 B (32 sectors, eight lines),
// or two 8 B-stride loads from two arrays (16 sectors, the triad's pair).
// Each access is to a line no earlier access touched (4 KiB apart), its
// page's translation warmed by a pass over the page's second half; the
// next address waits for the load's value, so the loads do not overlap,
// and the loop's time over its steps is the mean latency (clock64() read
// around single loads is scheduled around them). One warp per SM or one.
__global__ void warp_load(const unsigned char *buf, const unsigned char *buf2, uint64_t region,
			  unsigned lane_stride, int two, unsigned steps, unsigned warm,
			  unsigned step_mul, double *mean_cycles)
{
	const unsigned char *p = buf + (uint64_t)blockIdx.x * region;
	const unsigned char *q = buf2 + (uint64_t)blockIdx.x * region;
	unsigned lane = threadIdx.x;
	unsigned long long acc = 0;
	for (unsigned i = 0; i < warm; i++)
		acc += __ldcg((const unsigned long long *)(p + (uint64_t)i * 4096 + 2048 + lane * 8)) +
		       (two ? __ldcg((const unsigned long long *)(q + (uint64_t)i * 4096 + 2048 + lane * 8)) : 0);
	unsigned off = (unsigned)(acc == 0x123456789ull);
	long long t0 = clock64();
	for (unsigned i = 0; i < steps; i++) {
		// step_mul 1: the pages in order; an odd one (steps a power of
		// two): the same pages in a scrambled order
		uint64_t o = (uint64_t)((i * step_mul) % steps) * 4096 + lane * lane_stride + off * 8;
		unsigned long long v = __ldcg((const unsigned long long *)(p + o));
		if (two)
			v += __ldcg((const unsigned long long *)(q + o));
		off = (unsigned)(v == 0x123456789ull);
	}
	long long t1 = clock64();
	if (lane == 0)
		mean_cycles[blockIdx.x] = (double)(t1 - t0) / steps + off;
}

struct warp_load_shape {
	unsigned stride; // bytes between lanes
	int two;         // a second load from the second array
	int sectors;
};

// The median over 3 runs (and over the warps) of warp_load's cycles a step
static double warp_load_median(const unsigned char *buf, const unsigned char *buf2, uint64_t region,
			       unsigned steps, const warp_load_shape &sh, int warps, unsigned step_mul,
			       double *res)
{
	std::vector<double> all;
	for (int rep = 0; rep < 3; rep++) {
		flush_l2();
		warp_load<<<warps, 32>>>(buf, buf2, region, sh.stride, sh.two, steps, steps, step_mul, res);
		CHECK(cudaGetLastError());
		std::vector<double> h((size_t)warps);
		CHECK(cudaMemcpy(h.data(), res, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
		all.insert(all.end(), h.begin(), h.end());
	}
	return median_of(all);
}

static void warp_load_section(void)
{
	const unsigned steps = 256;
	const uint64_t region = (uint64_t)steps * 4096;
	unsigned char *buf, *buf2;
	double *res;
	CHECK(cudaMalloc(&buf, region * g_sms));
	CHECK(cudaMalloc(&buf2, region * g_sms));
	CHECK(cudaMemset(buf, 0, region * g_sms));
	CHECK(cudaMemset(buf2, 0, region * g_sms));
	CHECK(cudaMalloc(&res, sizeof(double) * g_sms));
	static const warp_load_shape shapes[] = {{0, 0, 1}, {8, 0, 8}, {32, 0, 32}, {8, 1, 16}};
	for (int warps : {1, g_sms})
		for (const warp_load_shape &sh : shapes) {
			char m[200];
			snprintf(m, sizeof m, "one warp's dependent __ldcg of fresh DRAM lines (4 KiB apart, TLB warmed), %d warp(s), one per SM; median over warps and 3 runs", warps);
			char q[80];
			snprintf(q, sizeof q, "warp_load_cycles_w%d", warps);
			row("warpload", q, sh.sectors, warp_load_median(buf, buf2, region, steps, sh, warps, 1, res),
			    "cycles", m);
		}
	// one warp, the same pages in a scrambled order (step i reads page
	// 97 i mod 256): is the sequential walk's DRAM cost the pages' order?
	for (const warp_load_shape &sh : shapes)
		row("warpload", "warp_load_cycles_w1_scrambled", sh.sectors,
		    warp_load_median(buf, buf2, region, steps, sh, 1, 97, res), "cycles",
		    "as warp_load_cycles_w1, the pages visited in the order 97 i mod 256; median of 3 runs");
	CHECK(cudaFree(buf));
	CHECK(cudaFree(buf2));
	CHECK(cudaFree(res));
}

// ------------------------------------------------ DRAM latency under load

static void loaded_latency_curve(int l2, int writes);

// A pointer chase's DRAM latency while the other warps stream reads (the
// loaded-latency curve of Intel MLC, here inside one kernel): block 0's
// lane 0 chases a shuffled chain over 512 MiB with clock64(); every other
// warp of the 2 CTAs per SM reads a 1 GiB buffer grid-stride, four
// independent loads a thread, until the chase is done. x = streaming
// warps per SM; the row pairs the chase's cycles with the stream's GB/s.
// Each group's addresses wait for the group before (a copy's for its
// load), so a thread has exactly the loads in flight that ubench-loaded
// gives it, whatever nvcc unrolls: before (runs 7 and 8, 2026-11-26) it
// unrolled the 16 groups whole (sm_90 PTX: 64 loads a thread with no
// dependence between groups), and how many of them ptxas kept in flight
// is not known, so those runs' curves are not like for like with
// gpuvm's (docs/hardware.md).
// The streaming warps of loaded_chase and loaded_chase_hist: every warp
// but the chaser's reads (writes 0) or copies (1-4) until *done.
__device__ __forceinline__ void loaded_stream(double *buf, unsigned long long elems, int writes,
					      volatile int *done, unsigned long long *loads)
{
	unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long nthreads = (unsigned long long)gridDim.x * blockDim.x;
	double acc = 0;
	unsigned long long i = tid, n = 0;
	while (!*done && writes) {
		// writes: a copy of the buffer's first half into its second half
		unsigned long long h = elems / 2;
		for (int k = 0; k < 16; k++) {
			unsigned long long j = i & (h - 1);
			// writes 3: the loads folded into 2 MiB instead (L2 hits):
			// DRAM writes without DRAM reads
			double v = buf[writes == 3 ? j & (LOADED_L2_WINDOW_BYTES / 8 - 1) : j];
			// writes 2: the stores folded into 2 MiB, which the L2 keeps
			// (calib_dram_kernels.h LOADED_L2_WINDOW_BYTES): the
			// stores without DRAM writes
			// writes 4: the stores 192 KiB further on (a copy whose read
			// and write streams are not a power of two apart)
			unsigned long long d = writes == 2   ? j & (LOADED_L2_WINDOW_BYTES / 8 - 1)
					       : writes == 4 ? (j + 24576) & (h - 1)
							     : j;
			buf[h + d] = v + 1.0;
			// the next index waits for this load (v is never -1): one
			// load in flight a thread, as ubench-loaded's copy has it,
			// whatever nvcc unrolls (fully, 16 pairs, before this)
			i += nthreads + (v == -1.0);
			n += 1;
		}
	}
	while (!*done && !writes) {
		for (int k = 0; k < 16; k++) {
			// elems is a power of two: the mask wraps without a division
			double v0 = buf[i & (elems - 1)], v1 = buf[(i + nthreads) & (elems - 1)];
			double v2 = buf[(i + 2 * nthreads) & (elems - 1)], v3 = buf[(i + 3 * nthreads) & (elems - 1)];
			double sum = v0 + v1 + v2 + v3;
			acc += sum;
			// the next group's addresses wait for this group's loads
			// (the sum is never -1); ptxas issues the four in two
			// pairs, the first pair's sum between (cuobjdump -sass,
			// run15), as ubench-loaded's order=pairs does
			i += 4 * nthreads + (sum == -1.0);
			n += 4;
		}
	}
	if (acc == -1.0)
		loads[1] = 1;
	atomicAdd(loads, n);
}

__global__ void loaded_chase(const unsigned int *next, unsigned steps, double *buf,
			     unsigned long long elems, int writes, volatile int *done,
			     double *chase_cycles, unsigned long long *loads)
{
	bool chaser = blockIdx.x == 0 && threadIdx.x < 32;
	if (chaser) {
		if (threadIdx.x == 0) {
			unsigned j = 0;
			for (unsigned i = 0; i < 64; i++)
				j = __ldcg(&next[j]);
			long long t0 = clock64();
			for (unsigned i = 0; i < steps; i++)
				j = __ldcg(&next[j]);
			long long t1 = clock64();
			chase_cycles[0] = (double)(t1 - t0) / steps + (j == 0xffffffffu ? 1 : 0);
			*done = 1;
		}
		return;
	}
	loaded_stream(buf, elems, writes, done, loads);
}

// The chase's hops one by one (loadhist): each hop's cycles into a
// histogram of LOADHIST_BIN-cycle bins (the last one open), so that a
// drain's hold shows as the tail it adds, its length as the tail's
// extent, where loaded's mean folds how often and how long together.
// The hop's value goes to shared memory before the clock is read, so the
// clock waits for it (in-order issue after the store that needs it); the
// bookkeeping adds a constant to every hop, which the unloaded
// histogram (no streamers) carries too.
#define LOADHIST_BIN 16
#define LOADHIST_BINS 512
__global__ void loaded_chase_hist(const unsigned int *next, unsigned steps, double *buf,
				  unsigned long long elems, int writes, volatile int *done,
				  unsigned int *hist, unsigned long long *loads)
{
	__shared__ unsigned int bins[LOADHIST_BINS];
	__shared__ volatile unsigned int sink;
	bool chaser = blockIdx.x == 0 && threadIdx.x < 32;
	if (chaser) {
		for (unsigned b = threadIdx.x; b < LOADHIST_BINS; b += 32)
			bins[b] = 0;
		__syncwarp();
		if (threadIdx.x == 0) {
			unsigned j = 0;
			for (unsigned i = 0; i < 64; i++)
				j = __ldcg(&next[j]);
			sink = j;
			long long t0 = clock64();
			for (unsigned i = 0; i < steps; i++) {
				j = __ldcg(&next[j]);
				sink = j;
				long long t1 = clock64();
				unsigned b = (unsigned)((t1 - t0) / LOADHIST_BIN);
				bins[b < LOADHIST_BINS ? b : LOADHIST_BINS - 1]++;
				t0 = clock64();
			}
			*done = 1;
		}
		__syncwarp();
		for (unsigned b = threadIdx.x; b < LOADHIST_BINS; b += 32)
			hist[b] = bins[b];
		return;
	}
	loaded_stream(buf, elems, writes, done, loads);
}

// ------------------------------------- loads in flight a warp keeps

// K independent 8-byte loads a thread per group (__ldcg, coalesced: each a
// warp's 256 B chunk), the next group's addresses waiting for this group's
// sum, as loaded_chase's readers; the K chunks `apart` doubles from each
// other (the grid's width: far apart, as loaded_chase's; or 32: adjacent
// chunks, one DRAM row). Each warp's lane 0 notes its cycles per group.
template <int K>
__global__ void mlp_stream(const double *buf, unsigned long long elems, unsigned long long apart,
			   unsigned groups, long long *cycles, double *sink)
{
	unsigned long long nthreads = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	// far (apart = the grid's width): chunk j of thread t at t + j x width;
	// near (apart = 32): a warp's K chunks side by side, no chunk shared
	// with another warp
	unsigned long long i = apart == 32 ? tid / 32 * 32 * K + tid % 32 : tid;
	double acc = 0;
	long long t0 = clock64();
	for (unsigned g = 0; g < groups; g++) {
		double sum = 0;
#pragma unroll
		for (int j = 0; j < K; j++)
			sum += __ldcg(&buf[(i + j * apart) & (elems - 1)]);
		acc += sum;
		i += K * nthreads + (sum == -1.0);
	}
	long long t1 = clock64();
	if ((threadIdx.x & 31) == 0)
		cycles[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = t1 - t0;
	if (acc == -1.0)
		sink[0] = acc;
}

template <int K>
static double mlp_cycles_per_group(const double *buf, unsigned long long elems, bool near,
				   unsigned warps_per_cta, long long *dcyc, double *sink, double *gb_s,
				   bool l2)
{
	unsigned ctas = 2 * (unsigned)g_sms, threads = 32 * warps_per_cta;
	unsigned long long nthreads = (unsigned long long)ctas * threads;
	unsigned long long apart = near ? 32 : nthreads;
	unsigned groups = 256;
	std::vector<double> per;
	double best_ms = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		// the groups read 17 MB-550 MB: from DRAM every rep, not from
		// the L2 the last rep (or the memset) filled; l2: an 8 MiB
		// buffer the first rep leaves in the L2, every load a hit
		if (!l2)
			flush_l2();
		cudaEvent_t a, b;
		CHECK(cudaEventCreate(&a));
		CHECK(cudaEventCreate(&b));
		CHECK(cudaEventRecord(a));
		mlp_stream<K><<<ctas, threads>>>(buf, elems, apart, groups, dcyc, sink);
		CHECK(cudaEventRecord(b));
		CHECK(cudaEventSynchronize(b));
		CHECK(cudaGetLastError());
		float ms;
		CHECK(cudaEventElapsedTime(&ms, a, b));
		best_ms = std::min(best_ms, (double)ms);
		CHECK(cudaEventDestroy(a));
		CHECK(cudaEventDestroy(b));
	}
	unsigned nw = ctas * warps_per_cta;
	std::vector<long long> h(nw);
	CHECK(cudaMemcpy(h.data(), dcyc, nw * sizeof(long long), cudaMemcpyDeviceToHost));
	for (unsigned w = 0; w < nw; w++)
		per.push_back((double)h[w] / groups);
	*gb_s = (double)nthreads * groups * K * 8 / (best_ms * 1e-3) / 1e9;
	return median_of(per);
}

// mlp_cycles_per_group for a K known at run time (1, 2, 4 or 8)
static double mlp_cycles_k(int k, const double *buf, unsigned long long elems, bool near,
			   unsigned warps_per_cta, long long *dcyc, double *sink, double *gb_s, bool l2)
{
	switch (k) {
	case 1: return mlp_cycles_per_group<1>(buf, elems, near, warps_per_cta, dcyc, sink, gb_s, l2);
	case 2: return mlp_cycles_per_group<2>(buf, elems, near, warps_per_cta, dcyc, sink, gb_s, l2);
	case 4: return mlp_cycles_per_group<4>(buf, elems, near, warps_per_cta, dcyc, sink, gb_s, l2);
	default: return mlp_cycles_per_group<8>(buf, elems, near, warps_per_cta, dcyc, sink, gb_s, l2);
	}
}

// What loaded_chase's readers showed at 2 warps per SM (docs/hardware.md,
// "The open questions, run"): a group of four independent loads cost the
// board ~1600 cycles, twice the chase's latency, where the model keeps all
// four in flight. K = 1, 2, 4, 8 loads a group at 2 and 8 warps per SM,
// the chunks far apart or adjacent: whether a warp keeps fewer loads in
// flight than it issues (per-warp limit: the adjacent chunks cost the
// same) or far chunks meet in DRAM (only the far ones cost more).
static void mlp_section(void)
{
	unsigned long long elems = 1ull << 27; // 1 GiB of doubles
	double *buf, *sink;
	long long *dcyc;
	CHECK(cudaMalloc(&buf, elems * 8));
	CHECK(cudaMemset(buf, 0, elems * 8));
	CHECK(cudaMalloc(&sink, 8));
	CHECK(cudaMalloc(&dcyc, (size_t)2 * g_sms * 32 * sizeof(long long)));
	for (unsigned wpc : {1u, 4u})
		for (int near = 0; near < 2; near++)
			for (int k : {1, 2, 4, 8}) {
				double gbs = 0;
				double c = mlp_cycles_k(k, buf, elems, near, wpc, dcyc, sink, &gbs, false);
				char q[96], m[200];
				snprintf(q, sizeof q, "mlp_group_cycles_w%u_%s", 2 * wpc, near ? "near" : "far");
				snprintf(m, sizeof m,
					 "mlp_stream: x loads a thread a group (__ldcg, coalesced), %u warps per SM, "
					 "chunks %s, 256 groups, median over warps of clock64 per group",
					 2 * wpc, near ? "adjacent (256 B apart)" : "the grid's width apart");
				row("mlp", q, k, c, "cycles", m);
				snprintf(q, sizeof q, "mlp_gb_s_w%u_%s", 2 * wpc, near ? "near" : "far");
				row("mlp", q, k, gbs, "GB/s", "the same kernel: bytes loaded over its time (events, best of 3)");
			}
	// the same loads hitting the L2 (the group wraps over 8 MiB): is what
	// each more load costs a warp on the DRAM side or before the L2
	for (int k : {1, 2, 4, 8}) {
		double gbs = 0;
		double c = mlp_cycles_k(k, buf, 1ull << 20, false, 1, dcyc, sink, &gbs, true);
		row("mlp", "mlp_group_cycles_w2_l2", k, c, "cycles",
		    "mlp_stream over an 8 MiB buffer the L2 holds (no flush; the last of 3 runs), 2 warps per SM, "
		    "chunks the grid's width apart, median over warps of clock64 per group");
	}
	CHECK(cudaFree(buf));
	CHECK(cudaFree(sink));
	CHECK(cudaFree(dcyc));
}

static void loaded_latency_section(void)
{
	for (int l2 = 0; l2 < 2; l2++)
		for (int writes = 0; writes < 5; writes++)
			if (!(l2 && writes))
				loaded_latency_curve(l2, writes);
}

// l2: the chase over 16 lines (2 KiB: L2 hits between the stream's
// evictions) instead of 512 MiB; writes: the streamers copy (a load and a
// store each) instead of reading; 2: a copy whose stores stay in the L2
// (copyl2: if it slows the chase as the copy does, what a store costs a
// read is on the way to the L2, not in DRAM's writes); 3: a copy whose
// loads hit the L2 (copyfroml2: DRAM writes and no DRAM reads, what the
// writes alone cost a read); 4: a copy whose stores land 192 KiB past the
// power-of-two offset (copyshift: if it slows the chase less than the copy,
// the read and write streams meet in the DRAM's banks)
// What loaded_chase and loaded_chase_hist run on: the chase's chain over
// fp bytes, the streamers' 1 GiB buffer, the done flag and the loads count.
struct loaded_bufs {
	unsigned int *chain;
	double *buf;
	unsigned long long elems;
	int *done;
	unsigned long long *loads;
};

static struct loaded_bufs loaded_bufs_alloc(uint64_t fp)
{
	struct loaded_bufs b;
	b.chain = build_chain(fp, 128, true, false);
	b.elems = (1ull << 30) / 8;
	CHECK(cudaMalloc(&b.buf, b.elems * 8));
	fill_index<<<(unsigned)(b.elems / 256), 256>>>(b.buf, b.elems);
	CHECK(cudaMalloc(&b.done, sizeof(int)));
	CHECK(cudaMalloc(&b.loads, 2 * sizeof(unsigned long long)));
	CHECK(cudaDeviceSynchronize());
	return b;
}

static void loaded_bufs_free(struct loaded_bufs *b)
{
	CHECK(cudaFree(b->chain));
	CHECK(cudaFree(b->buf));
	CHECK(cudaFree(b->done));
	CHECK(cudaFree(b->loads));
}

static void loaded_latency_curve(int l2, int writes)
{
	struct loaded_bufs b = loaded_bufs_alloc(l2 ? 2048 : 512ull << 20);
	unsigned int *chain = b.chain;
	unsigned long long elems = b.elems;
	double *buf = b.buf, *dres;
	int *done = b.done;
	unsigned long long *loads = b.loads;
	CHECK(cudaMalloc(&dres, sizeof(double)));
	for (unsigned wpc : {1u, 2u, 4u, 8u, 16u, 32u}) {
		double best_cyc = INFINITY, gbs_at_best = 0;
		for (int rep = 0; rep < 3; rep++) {
			CHECK(cudaMemset(done, 0, sizeof(int)));
			CHECK(cudaMemset(loads, 0, 2 * sizeof(unsigned long long)));
			unsigned steps = 8192;
			cudaEvent_t e0, e1;
			CHECK(cudaEventCreate(&e0));
			CHECK(cudaEventCreate(&e1));
			CHECK(cudaEventRecord(e0));
			loaded_chase<<<2 * g_sms, 32 * wpc>>>(chain, steps, buf, elems, writes, done, dres, loads);
			CHECK(cudaGetLastError());
			CHECK(cudaEventRecord(e1));
			CHECK(cudaEventSynchronize(e1));
			float ms;
			CHECK(cudaEventElapsedTime(&ms, e0, e1));
			double cyc;
			unsigned long long nl[2];
			CHECK(cudaMemcpy(&cyc, dres, sizeof cyc, cudaMemcpyDeviceToHost));
			CHECK(cudaMemcpy(nl, loads, sizeof nl, cudaMemcpyDeviceToHost));
			if (cyc < best_cyc) {
				best_cyc = cyc;
				gbs_at_best = (double)nl[0] * (writes ? 16.0 : 8.0) / (ms * 1e-3) / 1e9;
			}
			CHECK(cudaEventDestroy(e0));
			CHECK(cudaEventDestroy(e1));
		}
		double warps_per_sm = 2.0 * wpc - 1.0 / g_sms; // block 0 gives its first warp to the chase
		const char *tag = l2 ? "l2" : writes == 4 ? "copyshift" : writes == 3 ? "copyfroml2" : writes == 2 ? "copyl2" : writes ? "copy" : "read";
		char q[64], m[240];
		snprintf(q, sizeof q, "loaded_chase_%s_cycles", tag);
		snprintf(m, sizeof m, "block 0 lane 0 chases 8192 hops over shuffled 128 B lines, %s (__ldcg), while the other warps of 2 CTAs/SM stream %s, min of 3",
			 l2 ? "16 lines (L2 hits)" : "512 MiB",
			 writes == 4 ? "a copy, its stores 192 KiB past half the buffer (load + store)"
			 : writes == 3 ? "a copy from 2 MiB (load + store, the loads L2 hits)"
			 : writes == 2 ? "a copy into 2 MiB (load + store, the stores L2 hits)"
				     : writes ? "a copy (load + store)" : "reads");
		row("loaded", q, warps_per_sm, best_cyc, "cycles", m);
		snprintf(q, sizeof q, "loaded_stream_%s_gb_s", tag);
		row("loaded", q, warps_per_sm, gbs_at_best, "GB/s",
		    "the streaming warps' bytes (read + written) over the kernel's event time, in the run the chase row took");
	}
	CHECK(cudaFree(dres));
	loaded_bufs_free(&b);
}

// loadhist: the chase's hop latencies one by one under reads, a copy and
// a copy from 2 MiB (its writes alone) at 2, 8 and 32 streaming warps per
// SM, and alone (one warp, no streamers). Rows per curve: the hops'
// quantiles and mean (cycles, including the bookkeeping's constant), and
// the histogram's non-empty bins (x = the bin's first cycle, value = its
// hops of 8192). What it settles: how long one drain holds a read
// (the tail's extent above the chase alone) and how often a read meets
// one (the tail's mass), which the mean of `loaded` cannot separate and
// gpuvm's dram.write_batch_sectors and drain_group_channels set
// (docs/timing.md, "Write-drain mode").
static void loadhist_curve(int writes, unsigned wpc, const struct loaded_bufs *b,
			   unsigned int *dhist)
{
	const unsigned steps = 8192;
	unsigned int h[LOADHIST_BINS];
	CHECK(cudaMemset(b->done, 0, sizeof(int)));
	CHECK(cudaMemset(b->loads, 0, 2 * sizeof(unsigned long long)));
	// wpc 0: the chaser alone
	loaded_chase_hist<<<wpc ? 2 * g_sms : 1, wpc ? 32 * wpc : 32>>>(
		b->chain, steps, b->buf, b->elems, writes, b->done, dhist, b->loads);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaMemcpy(h, dhist, sizeof h, cudaMemcpyDeviceToHost));
	const char *tag = !wpc ? "alone" : writes == 3 ? "copyfroml2" : writes ? "copy" : "read";
	double x = wpc ? 2.0 * wpc : 0;
	char q[64], m[200];
	double sum = 0, n = 0;
	for (unsigned b = 0; b < LOADHIST_BINS; b++) {
		n += h[b];
		sum += (double)h[b] * (b + 0.5) * LOADHIST_BIN;
	}
	snprintf(m, sizeof m, "block 0 lane 0's 8192 hops over shuffled 128 B lines, 512 MiB (__ldcg), "
		 "each hop's clock64 cycles binned by %d, %s",
		 LOADHIST_BIN, wpc ? "under 2 CTAs/SM streaming" : "no streamers");
	snprintf(q, sizeof q, "loadhist_%s_mean_cycles", tag);
	row("loadhist", q, x, n ? sum / n : 0, "cycles", m);
	const double qs[] = {0.1, 0.5, 0.9, 0.99, 0.999};
	for (double qq : qs) {
		double want = qq * n, acc = 0;
		unsigned b = 0;
		for (; b < LOADHIST_BINS - 1; b++) {
			acc += h[b];
			if (acc >= want)
				break;
		}
		snprintf(q, sizeof q, "loadhist_%s_p%g_cycles", tag, qq * 100);
		row("loadhist", q, x, (b + 1.0) * LOADHIST_BIN, "cycles",
		    "the hop latency below which this fraction of hops lie (a bin's upper edge)");
	}
	snprintf(q, sizeof q, "loadhist_%s_bin_hops_at%u", tag, wpc ? 2 * wpc : 0);
	for (unsigned b = 0; b < LOADHIST_BINS; b++)
		if (h[b])
			row("loadhist", q, (double)b * LOADHIST_BIN, h[b], "hops",
			    "of the 8192 hops, those in [x, x + 16) cycles (the last bin: all above)");
}

static void loadhist_section(void)
{
	struct loaded_bufs b = loaded_bufs_alloc(512ull << 20);
	unsigned int *dhist;
	CHECK(cudaMalloc(&dhist, LOADHIST_BINS * sizeof(unsigned int)));
	loadhist_curve(0, 0, &b, dhist);
	for (int writes : {0, 1, 3})
		for (unsigned wpc : {1u, 4u, 16u})
			loadhist_curve(writes, wpc, &b, dhist);
	CHECK(cudaFree(dhist));
	loaded_bufs_free(&b);
}

// ---------------------------------------------- L2 partition homes

// How the L2 treats each 128 B line (A100/H100 split the L2 in two): from
// one thread, each line of 1 MiB is loaded 16 times in a row (its word
// points at itself, __ldcg, an L2 hit after the first), and its time per
// load sorts it into a near (fast) or far (slow) class. gpuvm takes the
// classes as the partitions' homes (mem.partition_interleave and _hash
// model the map's granularity); probed from other SMs the classes mostly
// agree, so what they are on the die is open (docs/hardware.md). A warp's
// load whose lines straddle both classes waits for the slow one.
__device__ void home_probe_lines(const unsigned int *buf, unsigned lines, double *lat)
{
	unsigned int j0 = 0;
	for (unsigned i = 0; i < lines; i++) {
		unsigned int j = __ldcg(&buf[i * 32 + j0]); // the line into the L2
		long long t0 = clock64();
		for (int h = 0; h < 16; h++)
			j = __ldcg(&buf[j]);
		long long t1 = clock64();
		lat[i] = (double)(t1 - t0) / 16 + (j == 0xffffffffu ? 1 : 0);
		j0 = j - i * 32; // 0: keeps the next line's address behind this chain
	}
}

__global__ void home_probe(const unsigned int *buf, unsigned lines, double *lat, int *smid)
{
	home_probe_lines(buf, lines, lat);
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	*smid = (int)s;
}

// home_probe from the SM numbered want (the one block of the grid that
// lands there and claims it): are the classes the SM's near and far?
__global__ void home_probe_on(const unsigned int *buf, unsigned lines, double *lat, int *smid,
			      unsigned want, unsigned *claim)
{
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	if (s != want || atomicCAS(claim, 0u, 1u) != 0u)
		return;
	home_probe_lines(buf, lines, lat);
	*smid = (int)s;
}

static void home_section(void)
{
	const unsigned lines = 8192; // 1 MiB
	unsigned int *buf;
	double *dlat;
	int *dsm;
	CHECK(cudaMalloc(&buf, (size_t)lines * 128 + (2u << 20)));
	// 2 MiB-aligned start: the map's offsets are offsets within a page
	unsigned int *b = (unsigned int *)(((uintptr_t)buf + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
	std::vector<unsigned int> h((size_t)lines * 32, 0);
	for (unsigned i = 0; i < lines; i++)
		h[(size_t)i * 32] = i * 32;
	CHECK(cudaMemcpy(b, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
	CHECK(cudaMalloc(&dlat, lines * sizeof(double)));
	CHECK(cudaMalloc(&dsm, sizeof(int)));
	home_probe<<<1, 1>>>(b, lines, dlat, dsm);
	CHECK(cudaGetLastError());
	std::vector<double> lat(lines);
	int sm;
	CHECK(cudaMemcpy(lat.data(), dlat, lines * sizeof(double), cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&sm, dsm, sizeof sm, cudaMemcpyDeviceToHost));
	std::vector<double> sorted = lat;
	std::sort(sorted.begin(), sorted.end());
	double lo = sorted[lines / 20], hi = sorted[lines - 1 - lines / 20];
	double cut = (lo + hi) / 2;
	std::vector<int> far(lines);
	double near_sum = 0, far_sum = 0;
	unsigned nfar = 0, differ = 0;
	for (unsigned i = 0; i < lines; i++) {
		far[i] = lat[i] > cut;
		nfar += far[i];
		(far[i] ? far_sum : near_sum) += lat[i];
		if (i && far[i] != far[i - 1])
			differ++;
	}
	const char *m = "one thread on one SM, each 128 B line of a 2 MiB-aligned 1 MiB loaded 16 times (__ldcg, self-pointing), split at the midpoint of its 5th and 95th percentile latencies";
	row("home", "home_near_l2_cycles", sm, near_sum / (lines - nfar), "cycles", m);
	row("home", "home_far_l2_cycles", sm, far_sum / nfar, "cycles", m);
	row("home", "home_far_fraction", sm, (double)nfar / lines, "fraction", m);
	row("home", "home_adjacent_lines_differ", sm, (double)differ / (lines - 1), "fraction", m);
	// the fraction of aligned blocks of k lines whose lines are not all in
	// one home: 1 KiB (8 lines) is a warp's 32 B-a-lane load
	for (unsigned k = 2; k <= 64; k *= 2) {
		unsigned mixed = 0;
		for (unsigned i = 0; i < lines; i += k) {
			int any_near = 0, any_far = 0;
			for (unsigned j = 0; j < k; j++)
				(far[i + j] ? any_far : any_near) = 1;
			mixed += any_near && any_far;
		}
		row("home", "home_mixed_blocks_fraction", k * 128, (double)mixed / (lines / k), "fraction",
		    "aligned blocks of x bytes whose lines are homed in both partitions");
	}
	// DRAM by home: a shuffled chase once through the near (then the far)
	// lines, the L2 flushed first, timed in the kernel after one hop
	double *dres;
	CHECK(cudaMalloc(&dres, sizeof(double)));
	for (int want_far = 0; want_far < 2; want_far++) {
		std::vector<unsigned> sel;
		for (unsigned i = 0; i < lines; i++)
			if (far[i] == want_far)
				sel.push_back(i);
		std::vector<uint32_t> ord = chase_order(sel.size(), true);
		std::vector<unsigned int> nx((size_t)lines * 32, 0);
		for (size_t k = 0; k < sel.size(); k++)
			nx[(size_t)sel[ord[k]] * 32] = sel[ord[(k + 1) % sel.size()]] * 32;
		if (far[0] != want_far)
			nx[0] = sel[ord[0]] * 32; // the chase starts at word 0: its one warm hop enters the chain
		CHECK(cudaMemcpy(b, nx.data(), nx.size() * 4, cudaMemcpyHostToDevice));
		double best = INFINITY;
		for (int r = 0; r < 3; r++) {
			flush_l2();
			chase_inkernel<<<1, 1>>>(b, 1, (unsigned)sel.size(), 1, dres);
			CHECK(cudaGetLastError());
			double v;
			CHECK(cudaMemcpy(&v, dres, sizeof v, cudaMemcpyDeviceToHost));
			best = std::min(best, v);
		}
		row("home", want_far ? "home_far_dram_cycles" : "home_near_dram_cycles", sm, best, "cycles",
		    "a shuffled chase once through the near (far) lines of the map, L2 flushed, in-kernel clock64, min of 3");
	}
	CHECK(cudaFree(dres));
	// the same lines from other SMs: a partition's near lines are the
	// other's far ones if the classes are the two halves
	for (unsigned want : {0u, (unsigned)g_sms / 4, (unsigned)g_sms / 2, 3u * (unsigned)g_sms / 4,
			      (unsigned)g_sms - 1}) {
		unsigned *claim;
		// the DRAM chases rewrote the lines: every line points at itself again
		CHECK(cudaMemcpy(b, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
		CHECK(cudaMalloc(&claim, sizeof(unsigned)));
		CHECK(cudaMemset(claim, 0, sizeof(unsigned)));
		CHECK(cudaMemset(dsm, 0xff, sizeof(int)));
		home_probe_on<<<4 * g_sms, 1>>>(b, lines, dlat, dsm, want, claim);
		CHECK(cudaGetLastError());
		std::vector<double> lat2(lines);
		int sm2;
		CHECK(cudaMemcpy(lat2.data(), dlat, lines * sizeof(double), cudaMemcpyDeviceToHost));
		CHECK(cudaMemcpy(&sm2, dsm, sizeof sm2, cudaMemcpyDeviceToHost));
		if (sm2 >= 0) {
			std::vector<double> s2 = lat2;
			std::sort(s2.begin(), s2.end());
			double cut2 = (s2[lines / 20] + s2[lines - 1 - lines / 20]) / 2;
			unsigned flipped = 0, far2 = 0;
			for (unsigned i = 0; i < lines; i++) {
				int f2 = lat2[i] > cut2;
				far2 += f2;
				flipped += f2 != far[i];
			}
			row("home", "home_far_fraction_other_sm", sm2, (double)far2 / lines, "fraction",
			    "the same probe from another SM (x = its number)");
			row("home", "home_classes_flipped_fraction", sm2, (double)flipped / lines, "fraction",
			    "lines whose class differs between the two SMs: 1 if the classes are each SM's near and far half");
		}
		CHECK(cudaFree(claim));
	}
	// the map itself, 1 = far: 64 lines (8 KiB) a line of hex
	for (unsigned i = 0; i < lines; i += 64) {
		unsigned long long bits = 0;
		for (unsigned j = 0; j < 64; j++)
			bits |= (unsigned long long)far[i + j] << j;
		printf("# homemap %6u %016llx\n", i * 128, bits);
	}
	CHECK(cudaFree(buf));
	CHECK(cudaFree(dlat));
	CHECK(cudaFree(dsm));
}

// ------------------------------------------------------------- L2

struct l2_ctx {
	unsigned grid, block;
	int wide; // 0: 4-byte loads, 1: 16-byte loads, 2: 16-byte stores
	calib_l2read_args a;
	calib_l2read16_args w;
	calib_l2write16_args s;
};
static void launch_l2(void *p)
{
	l2_ctx *c = (l2_ctx *)p;
	if (c->wide == 2)
		calib_l2write16<<<c->grid, c->block>>>(c->s);
	else if (c->wide)
		calib_l2read16<<<c->grid, c->block>>>(c->w);
	else
		calib_l2read<<<c->grid, c->block>>>(c->a);
}

static double l2_gb_s(void *buf, uint64_t bytes, unsigned grid, unsigned block, int wide, int lo, int hi,
		      unsigned int *out, bool cold)
{
	l2_ctx c[2];
	for (int k = 0; k < 2; k++) {
		c[k].grid = grid;
		c[k].block = block;
		c[k].wide = wide;
		c[k].a = {(const unsigned int *)buf, out, bytes / 4, (unsigned)(k ? hi : lo)};
		c[k].w = {(const calib_u4 *)buf, out, bytes / 16, (unsigned)(k ? hi : lo)};
		c[k].s = {(calib_u4 *)buf, bytes / 16, (unsigned)(k ? hi : lo)};
	}
	double t0 = median_us(launch_l2, &c[0], 7, cold), t1 = median_us(launch_l2, &c[1], 7, cold);
	return (double)(hi - lo) * (double)bytes / (t1 - t0) / 1e3;
}

static void l2_section(void)
{
	unsigned int *out;
	CHECK(cudaMalloc(&out, (size_t)g_sms * 2048 * 4));
	uint64_t half_part = g_l2 / 2 / 2 / 4 * 4; // half of one of the two partitions
	void *buf;
	uint64_t big = 4 * (uint64_t)g_l2;
	CHECK(cudaMalloc(&buf, big + (1u << 24)));
	CHECK(cudaMemset(buf, 1, big + (1u << 24)));
	double gbs = l2_gb_s(buf, half_part, 2 * g_sms, 1024, 0, 2, 6, out, false);
	row("l2", "l2_read_bytes_per_clk", 0, gbs * 1e3 / g_mhz, "B/clk",
	    "calib_l2read, 2 CTAs x 1024 per SM, 4-byte __ldcg, half a partition's L2, 4 passes (T(6)-T(2))");
	uint64_t per = 1024 * 16;
	uint64_t b1 = half_part / per * per;
	row("l2", "l2_read_gb_s_1cta", 1, l2_gb_s(buf, b1, 1, 1024, 1, 2, 6, out, false), "GB/s",
	    "calib_l2read16, one CTA of 1024 threads, 16-byte __ldcg, T(6)-T(2)");
	uint64_t bs = half_part / (per * g_sms) * per * g_sms;
	row("l2", "l2_read_gb_s_1cta_per_sm", g_sms, l2_gb_s(buf, bs, g_sms, 1024, 1, 2, 6, out, false),
	    "GB/s", "calib_l2read16, one CTA of 1024 threads per SM, T(6)-T(2)");
	row("l2", "l2_write_gb_s_1cta_per_sm", g_sms, l2_gb_s(buf, bs, g_sms, 1024, 2, 2, 6, out, false),
	    "GB/s", "calib_l2write16 (16-byte stores over the same L2-resident buffer), one CTA of "
	    "1024 threads per SM, T(6)-T(2)");
	// where the store path's limit lies: one SM's own (one CTA alone, or
	// the rate per SM the same at half the SMs) or the L2's (the total the
	// same at half the SMs)
	row("l2", "l2_write_gb_s_1cta", 1, l2_gb_s(buf, b1, 1, 1024, 2, 2, 6, out, false), "GB/s",
	    "calib_l2write16, one CTA of 1024 threads alone, 16-byte stores, T(6)-T(2)");
	unsigned halfsms = (unsigned)g_sms / 2;
	uint64_t bh = half_part / (per * halfsms) * per * halfsms;
	row("l2", "l2_write_gb_s_1cta_per_2sm", halfsms, l2_gb_s(buf, bh, halfsms, 1024, 2, 2, 6, out, false),
	    "GB/s", "calib_l2write16, one CTA of 1024 threads on half the SMs (x = CTAs), T(6)-T(2)");
	row("l2", "l2_read_gb_s_1cta_per_2sm", halfsms, l2_gb_s(buf, bh, halfsms, 1024, 1, 2, 6, out, false),
	    "GB/s", "calib_l2read16, one CTA of 1024 threads on half the SMs (x = CTAs), T(6)-T(2)");
	row("l2", "l2_write_gb_s_2cta_per_sm", 2 * g_sms,
	    l2_gb_s(buf, bs, 2 * g_sms, 1024, 2, 2, 6, out, false), "GB/s",
	    "calib_l2write16, two CTAs of 1024 threads per SM (x = CTAs), T(6)-T(2)");
	uint64_t bd = (big + per * g_sms - 1) / (per * g_sms) * (per * g_sms);
	row("l2", "dram_read_gb_s_1cta_per_sm", g_sms, l2_gb_s(buf, bd, g_sms, 1024, 1, 1, 2, out, true),
	    "GB/s", "calib_l2read16 over 4x the L2, one CTA of 1024 per SM, T(2)-T(1), L2 flushed");
	CHECK(cudaFree(buf));
	CHECK(cudaFree(out));
}

// ------------------------------------- what the L2 keeps across launches

// One CTA per SM (its dynamic shared memory leaves no room for a second)
// reads the chunk of the buffer numbered (its %smid + shift) mod SMs with
// 16-byte __ldcg loads: the data a given SM reads is fixed by the shift,
// whatever order the CTAs are dispatched in. A second launch that reads
// the buffer again with the same shift meets it in the L2 as the first
// left it, each line read by the SM that read it before; with another
// shift every chunk is read by another SM, on A100/H100 often one whose
// near L2 partition is the other one (docs/validation.md, "Repeated
// launches on the H100 SXM5": the boards keep less than the model of a
// working set near the L2's size, and whether a line read from both
// halves is kept twice decides how much).
__global__ void keep_read(const float4 *buf, unsigned long long per_sm4, int shift, int sms,
			  float *sink)
{
	unsigned s;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
	const float4 *p = buf + (unsigned long long)((s + (unsigned)shift) % (unsigned)sms) * per_sm4;
	float acc = 0;
	for (unsigned long long i = threadIdx.x; i < per_sm4; i += blockDim.x) {
		float4 v = __ldcg(p + i);
		acc += v.x + v.y + v.z + v.w;
	}
	if (acc == -1.0f)
		sink[blockIdx.x] = acc;
}

struct keep_ctx {
	const float4 *buf;
	unsigned long long per_sm4;
	int shift;
	size_t smem;
	float *sink;
};
static void launch_keep(void *p)
{
	keep_ctx *c = (keep_ctx *)p;
	keep_read<<<g_sms, 1024, c->smem>>>(c->buf, c->per_sm4, c->shift, g_sms, c->sink);
}

// What a host-to-device copy leaves in the L2 (docs/validation.md, the
// copy_fill question: PolyBench's matrix kernels on the H100 PCIe fit a
// copy left in the L2, vectorAdd and scalarProd one that is not). Each
// timed read starts from an L2 holding clean lines of another buffer (a
// flush, then a read of 1.5 L2 of it, so no dirty line of the flush is
// left to write back):
// - keep_clean_cold_gb_s: keep_read of MB that are not in the L2;
// - keep_after_copy_gb_s: keep_read of MB just copied from pinned host
//   memory (cudaMemcpy): what of the copy the L2 holds, near or far;
// - keep_other_after_copy_gb_s: keep_read of MB not in the L2 after an
//   L2-sized copy elsewhere: slower than clean_cold if the copy's lines
//   sit dirty in the L2 and the read evicts them.
static void keep_copy_rows(void *buf, size_t most, size_t smem, float *sink)
{
	void *other, *host;
	CHECK(cudaMalloc(&other, most));
	CHECK(cudaMemset(other, 2, most));
	CHECK(cudaMallocHost(&host, most));
	memset(host, 3, most);
	unsigned long long clean4 = most / 16 / g_sms;
	keep_ctx clean = {(const float4 *)other, clean4, 0, smem, sink};
	static const int eighths[] = {2, 4, 6, 8, 12};
	for (int e : eighths) {
		unsigned long long bytes = (unsigned long long)g_l2 * e / 8;
		unsigned long long per_sm4 = bytes / 16 / g_sms;
		double moved = (double)per_sm4 * 16 * g_sms;
		keep_ctx rd = {(const float4 *)buf, per_sm4, 0, smem, sink};
		std::vector<double> t[3];
		for (int r = 0; r < 3; r++)
			for (int v = 0; v < 3; v++) {
				flush_l2();
				launch_keep(&clean);
				if (v == 1)
					CHECK(cudaMemcpy(buf, host, (size_t)moved, cudaMemcpyHostToDevice));
				if (v == 2) // an L2's worth copied into the other buffer
					CHECK(cudaMemcpy(other, host, g_l2, cudaMemcpyHostToDevice));
				CHECK(cudaDeviceSynchronize());
				t[v].push_back(time_once_us(launch_keep, &rd));
			}
		static const char *const q[3] = {"keep_clean_cold_gb_s", "keep_after_copy_gb_s",
						 "keep_other_after_copy_gb_s"};
		static const char *const how[3] = {
			"keep_read of MB not in the L2, which holds clean lines of another buffer; median of 3",
			"keep_read of MB just copied from pinned host memory (cudaMemcpy), the L2 clean before "
			"the copy; median of 3",
			"keep_read of MB not in the L2 after an L2-sized cudaMemcpy into another buffer, the L2 "
			"clean before the copy; median of 3"};
		for (int v = 0; v < 3; v++) {
			row("keep", q[v], moved / 1e6, moved / median_of(t[v]) / 1e3, "GB/s", how[v]);
		}
	}
	CHECK(cudaFreeHost(host));
	CHECK(cudaFree(other));
}

static void keep_section(void)
{
	cudaDeviceProp prop;
	CHECK(cudaGetDeviceProperties(&prop, 0));
	// more than half of an SM's shared memory: one CTA per SM
	size_t smem = prop.sharedMemPerMultiprocessor / 2 + 1024;
	if (smem + prop.reservedSharedMemPerBlock > prop.sharedMemPerBlockOptin)
		smem = prop.sharedMemPerBlockOptin - prop.reservedSharedMemPerBlock;
	CHECK(cudaFuncSetAttribute(keep_read, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	float *sink;
	CHECK(cudaMalloc(&sink, g_sms * sizeof(float)));
	size_t most = g_l2 + g_l2 / 2;
	void *buf;
	CHECK(cudaMalloc(&buf, most));
	CHECK(cudaMemset(buf, 1, most));
	// footprints from a sixth of the L2 to one and a half times it
	static const int eighths[] = {2, 4, 5, 6, 7, 8, 10, 12};
	static const int shifts[] = {0, 1, -1, -2}; // -1: SMs / 4, -2: SMs / 2
	for (int e : eighths) {
		unsigned long long bytes = (unsigned long long)g_l2 * e / 8;
		unsigned long long per_sm4 = bytes / 16 / g_sms;
		keep_ctx first = {(const float4 *)buf, per_sm4, 0, smem, sink};
		double moved = (double)per_sm4 * 16 * g_sms;
		std::vector<double> cold;
		for (int r = 0; r < 3; r++) {
			flush_l2();
			cold.push_back(time_once_us(launch_keep, &first));
		}
		row("keep", "keep_cold_gb_s", moved / 1e6, moved / median_of(cold) / 1e3, "GB/s",
		    "keep_read after an L2 flush (x = MB read), median of 3");
		for (int sh : shifts) {
			int shift = sh == -1 ? g_sms / 4 : sh == -2 ? g_sms / 2 : sh;
			keep_ctx again = {(const float4 *)buf, per_sm4, shift, smem, sink};
			std::vector<double> t;
			for (int r = 0; r < 3; r++) {
				flush_l2();
				launch_keep(&first);
				CHECK(cudaDeviceSynchronize());
				t.push_back(time_once_us(launch_keep, &again));
			}
			char q[64];
			snprintf(q, sizeof q, "keep_again_gb_s_shift%d", shift);
			row("keep", q, moved / 1e6, moved / median_of(t) / 1e3, "GB/s",
			    "keep_read again after one pass with shift 0 (each SM's chunk: its smid + shift), "
			    "median of 3; x = MB read");
		}
	}
	keep_copy_rows(buf, most, smem, sink);
	CHECK(cudaFree(buf));
	CHECK(cudaFree(sink));
}

// ------------------------------------------------- launch, link, faults

struct empty_ctx {
	unsigned grid, block, times;
};
static void launch_empty(void *p)
{
	empty_ctx *c = (empty_ctx *)p;
	calib_empty_args a = {0};
	for (unsigned i = 0; i < c->times; i++)
		calib_empty<<<c->grid, c->block>>>(a);
}

// us a first touch of host-written managed memory costs: calib_chase over
// 128 MiB, sequential nodes `stride` apart, a fresh allocation per launch,
// (T(32 steps) - T(16)) / 16, median of 3
static double far_fault_us(uint64_t stride, unsigned int *out)
{
	double t[2][3];
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 2; k++) {
			unsigned int *ch = build_chain(128u << 20, stride, false, true);
			chase_ctx c = {{ch, out, (unsigned)(16 * (k + 1)), 1, 0}};
			t[k][r] = time_once_us(launch_chase, &c);
			CHECK(cudaFree(ch));
		}
	for (int k = 0; k < 2; k++)
		std::sort(t[k], t[k] + 3);
	return (t[1][1] - t[0][1]) / 16;
}

static void launch_section(void)
{
	static const unsigned cfgs[][2] = {{1, 32}, {1, 128}, {1024, 128}, {4096, 128}, {4096, 256},
					   {65536, 128}, {4096, 1024}, {16384, 1024}};
	for (auto &k : cfgs) {
		empty_ctx one = {k[0], k[1], 1}, many = {k[0], k[1], 200};
		double t1 = median_us(launch_empty, &one, 15, false);
		double tn = median_us(launch_empty, &many, 5, false) / 200;
		char q[96];
		snprintf(q, sizeof q, "empty_kernel_event_us_block%u", k[1]);
		row("launch", q, k[0], t1, "us", "one launch between two events, median of 15 (launch overhead in)");
		snprintf(q, sizeof q, "empty_kernel_back_to_back_us_block%u", k[1]);
		row("launch", q, k[0], tn, "us", "200 launches back to back between two events, per launch");
	}
	// host-to-device copies, pinned and pageable
	static const uint64_t sizes[] = {4096, 65536, 1u << 20, 16u << 20, 256u << 20};
	void *dst, *pin, *pg;
	CHECK(cudaMalloc(&dst, 256u << 20));
	CHECK(cudaMallocHost(&pin, 256u << 20));
	pg = malloc(256u << 20);
	memset(pin, 3, 256u << 20);
	memset(pg, 3, 256u << 20);
	for (auto s : sizes)
		for (int pinned = 1; pinned >= 0; pinned--) {
			std::vector<double> v;
			for (int r = 0; r < 11; r++) {
				cudaEvent_t a, b;
				CHECK(cudaEventCreate(&a));
				CHECK(cudaEventCreate(&b));
				CHECK(cudaEventRecord(a));
				CHECK(cudaMemcpy(dst, pinned ? pin : pg, s, cudaMemcpyHostToDevice));
				CHECK(cudaEventRecord(b));
				CHECK(cudaEventSynchronize(b));
				float ms;
				CHECK(cudaEventElapsedTime(&ms, a, b));
				v.push_back(ms * 1e3);
				CHECK(cudaEventDestroy(a));
				CHECK(cudaEventDestroy(b));
			}
			double us = median_of(v);
			row("link", pinned ? "h2d_pinned_gb_s" : "h2d_pageable_gb_s", (double)s, (double)s / us / 1e3,
			    "GB/s", "cudaMemcpy H2D between two events, median of 11");
			if (s == 4096)
				row("link", pinned ? "h2d_copy_4k_us" : "h2d_pageable_copy_4k_us", 4096, us, "us",
				    "cudaMemcpy H2D of 4 KiB between two events, median of 11");
		}
	CHECK(cudaFree(dst));
	CHECK(cudaFreeHost(pin));
	free(pg);
	// far faults: a chase over managed 2 MiB blocks the host wrote, each a
	// first touch
	unsigned int *out;
	CHECK(cudaMalloc(&out, 4096));
	row("fault", "far_fault_us", 0, far_fault_us(2u << 20, out), "us",
	    "calib_chase over 128 MiB managed, 2 MiB stride, host-written: (T(32)-T(16))/16, median of 3");
	CHECK(cudaFree(out));
}

// ------------------------------------- zero copy, TLB miss concurrency

// Zero-copy latency: calib_chase over pinned, mapped host memory, one
// 4 KiB node per step so that no two steps share a line; the L2 is
// flushed before each launch, so that host lines an earlier launch left in
// it cannot answer a step.
static void zero_copy_section(void)
{
	uint64_t fp = 8u << 20, stride = 4096, nodes = fp / stride, wpn = stride / 4;
	unsigned int *host, *dev, *out;
	CHECK(cudaHostAlloc(&host, fp, cudaHostAllocMapped));
	std::vector<uint32_t> ord = chase_order(nodes, true);
	for (uint64_t i = 0; i < nodes; i++)
		host[ord[i] * wpn] = (unsigned int)(ord[(i + 1) % nodes] * wpn);
	CHECK(cudaHostGetDevicePointer(&dev, host, 0));
	CHECK(cudaMalloc(&out, 4096));
	double cyc = chase_diff_cycles(dev, out, nodes / 4, 1, true);
	row("link", "zero_copy_read_cycles", (double)fp, cyc, "cycles",
	    "calib_chase (__ldcg) over pinned mapped host memory, 4 KiB nodes shuffled, (T(2N)-T(N))/N");
	row("link", "zero_copy_read_ns", (double)fp, cyc / g_mhz * 1e3, "ns", "the row above in ns");
	CHECK(cudaFreeHost(host));
	CHECK(cudaFree(out));
}

// TLB-miss concurrency: `gpuvm calibrate`'s tlb_par rows, the same kernel
// (calib_par_chase) on the same chain: K warps (one CTA on one SM, or one
// warp on each of K SMs) whose lane 0 (or every lane) each chase their
// share of one shuffled cycle over 2 MiB pages per pass; the lines stay in
// the L2, so each hop is a TLB miss and an L2 hit. Hops per 1000 cycles over
// passes 3..10 (T(10) - T(2)): it grows with K until the misses in flight
// fill the MSHRs or walkers.
struct par_ctx {
	calib_par_chase_args a;
	unsigned grid, block;
};
static void launch_par(void *p)
{
	par_ctx *c = (par_ctx *)p;
	calib_par_chase<<<c->grid, c->block>>>(c->a);
}

static void tlb_concurrency_section(void)
{
	// the curves of gpuvm calibrate's tlb_par_rows: footprint, spread, lanes
	static const struct {
		uint64_t mib;
		int spread;
		unsigned lanes;
	} curves[] = {{256, 0, 1}, {256, 1, 1}, {8192, 0, 1}, {8192, 1, 1}, {8192, 0, 32}};
	static const unsigned ks[] = {1, 2, 4, 8, 16, 32, 64};
	unsigned int *out, *starts;
	CHECK(cudaMalloc(&out, 65536 * 4));
	CHECK(cudaMalloc(&starts, 65536 * 4));
	size_t free_b, total_b;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	uint64_t built = 0;
	unsigned int *chain = NULL;
	for (auto &v : curves) {
		uint64_t fp = v.mib << 20, stride = 2u << 20, nodes = fp / stride, wpn = stride / 4;
		if (fp > free_b * 0.8)
			continue;
		if (built != fp) {
			if (chain)
				CHECK(cudaFree(chain));
			chain = build_chain(fp, stride, true, false);
			built = fp;
		}
		std::vector<uint32_t> ord = chase_order(nodes, true);
		for (unsigned k : ks) {
			uint64_t chasers = (uint64_t)k * v.lanes;
			if ((!v.spread && k > 32) || (v.spread && (int)k > g_sms) || chasers > nodes / 2)
				continue;
			std::vector<unsigned int> st(chasers);
			for (uint64_t w = 0; w < chasers; w++)
				st[w] = (unsigned int)(ord[w * nodes / chasers] * wpn);
			CHECK(cudaMemcpy(starts, st.data(), chasers * 4, cudaMemcpyHostToDevice));
			par_ctx c[2];
			for (int i = 0; i < 2; i++) {
				unsigned passes = i ? 10 : 2;
				c[i].a = {chain, starts, out, (unsigned)(nodes / chasers * passes), v.lanes};
				c[i].grid = v.spread ? k : 1;
				c[i].block = v.spread ? 32 : 32 * k;
			}
			double dt = median_us(launch_par, &c[1], 5, false) - median_us(launch_par, &c[0], 5, false);
			char q[96];
			snprintf(q, sizeof q, "tlb_par_hops_per_kcycle_%s%s_fp%llumib", v.spread ? "sms" : "sm",
				 v.lanes == 32 ? "_lanes32" : "", (unsigned long long)v.mib);
			row("tlbpar", q, k, 8.0 * (double)(nodes / chasers) * chasers / (dt * g_mhz) * 1e3,
			    "hops/kcycle",
			    "calib_par_chase over 2 MiB pages, L2-resident lines, (T(10 passes)-T(2)), events, median of 5");
		}
	}
	if (chain)
		CHECK(cudaFree(chain));
	CHECK(cudaFree(out));
	CHECK(cudaFree(starts));
}

// ------------------------------------- TLB misses in flight, past the reach

// One node per `stride` bytes, in address order, cyclic; each node holds the
// byte offset of the next (64-bit: the chain spans more than 16 GiB). The
// line inside the node moves with i so that the nodes spread over the L2's
// sets and stay resident.
__global__ void init_chain64(unsigned char *data, uint64_t stride, uint64_t hops)
{
	uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (i >= hops)
		return;
	uint64_t next = i + 1 == hops ? 0 : i + 1;
	*(uint64_t *)(data + i * stride + (i % 8192) * 128) = next * stride + (next % 8192) * 128;
}

// Lane 0 of each warp (lanes = 1) or every lane chases from its own start
__global__ void par_chase64(const unsigned char *data, const uint64_t *starts, uint32_t steps,
			    unsigned lanes, uint64_t *out)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	if (lanes == 1 && threadIdx.x % 32 != 0)
		return;
	unsigned w = lanes == 1 ? t / 32 : t;
	uint64_t pos = starts[w];
	for (uint32_t s = 0; s < steps; s++)
		pos = __ldcg((const unsigned long long *)(data + pos));
	out[w] = pos;
}

struct par64_ctx {
	const unsigned char *data;
	const uint64_t *starts;
	uint32_t steps;
	unsigned lanes, grid, block;
	uint64_t *out;
};
static void launch_par64(void *p)
{
	par64_ctx *c = (par64_ctx *)p;
	par_chase64<<<c->grid, c->block>>>(c->data, c->starts, c->steps, c->lanes, c->out);
}

// The tlbpar curves stay inside the reach of H100's TLBs (no step up to
// 64 GiB in tlb_chase.csv); this one chases 32 MiB strides over as much of
// the memory as is free, more distinct 32 MiB regions than the 2048 the
// chase found, so that every hop misses the level whose reach it exceeds.
static void tlb_miss_par_section(void)
{
	size_t free_b, total_b;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	const uint64_t stride = 32ull << 20;
	uint64_t hops = (uint64_t)(free_b * 0.9) / stride; // as tlb_probe chase
	if (hops < 64)
		return;
	unsigned char *data;
	uint64_t *starts, *out;
	CHECK(cudaMalloc(&data, hops * stride));
	CHECK(cudaMalloc(&starts, 65536 * 8));
	CHECK(cudaMalloc(&out, 65536 * 8));
	init_chain64<<<(unsigned)((hops + 255) / 256), 256>>>(data, stride, hops);
	CHECK(cudaDeviceSynchronize());
	char method[256];
	snprintf(method, sizeof method,
		 "par_chase64 over %llu nodes 32 MiB apart (%.1f GiB), L2-resident lines, (T(10 passes)-T(2)), events, median of 5",
		 (unsigned long long)hops, hops * stride / 1073741824.0);
	static const struct {
		const char *q;
		int spread;
		unsigned lanes;
	} curves[] = {{"tlb_miss_par_hops_per_kcycle_sm", 0, 1},
		      {"tlb_miss_par_hops_per_kcycle_sms", 1, 1},
		      {"tlb_miss_par_hops_per_kcycle_sm_lanes32", 0, 32}};
	static const unsigned ks[] = {1, 2, 4, 8, 16, 32, 64, 128};
	for (auto &v : curves)
		for (unsigned k : ks) {
			uint64_t chasers = (uint64_t)k * v.lanes;
			if ((!v.spread && k > 32) || (v.spread && (int)k > g_sms) || chasers > hops / 2)
				continue;
			std::vector<uint64_t> st(chasers);
			for (uint64_t w = 0; w < chasers; w++) {
				uint64_t i = w * hops / chasers;
				st[w] = i * stride + (i % 8192) * 128;
			}
			CHECK(cudaMemcpy(starts, st.data(), chasers * 8, cudaMemcpyHostToDevice));
			par64_ctx c[2];
			for (int i = 0; i < 2; i++) {
				unsigned passes = i ? 10 : 2;
				c[i] = {data, starts, (uint32_t)(hops / chasers * passes), v.lanes,
					v.spread ? k : 1u, v.spread ? 32u : 32u * k, out};
			}
			double dt = median_us(launch_par64, &c[1], 5, false) -
				    median_us(launch_par64, &c[0], 5, false);
			row("tlbmiss", v.q, k, 8.0 * (double)(hops / chasers) * chasers / (dt * g_mhz) * 1e3,
			    "hops/kcycle", method);
		}
	CHECK(cudaFree(data));
	CHECK(cudaFree(starts));
	CHECK(cudaFree(out));
}

// ------------------------------------------- mechanisms behind the misses

// A chase through global memory by atomics (atomicAdd of 0 returns the next
// node's index) or by __ldcg loads over the same lines: whether an atomic
// costs an L2 read hit plus the atomic unit (gpuvm's model) or less.
__global__ void atomic_chase(unsigned int *w, unsigned int steps, int atomic, unsigned int *out)
{
	unsigned int j = 0;
	for (unsigned int i = 0; i < steps; i++)
		j = atomic ? atomicAdd(&w[j], 0u) : __ldcg(&w[j]);
	out[0] = j;
}
struct achase_ctx {
	unsigned int *w, steps;
	int atomic;
	unsigned int *out;
};
static void launch_achase(void *p)
{
	achase_ctx *c = (achase_ctx *)p;
	atomic_chase<<<1, 1>>>(c->w, c->steps, c->atomic, c->out);
}

static void mechanisms_section(void)
{
	unsigned int *out;
	CHECK(cudaMalloc(&out, 4096));
	// shared-memory conflicts: the extra cycles of a k-way conflict
	double base = smem_step_cycles(out, 1);
	for (unsigned k = 2; k <= 32; k *= 2)
		row("mech", "smem_conflict_extra_cycles", k, smem_step_cycles(out, k) - base, "cycles",
		    "ubench_smem at lane stride k (a k-way conflict) minus stride 1, (T(2N)-T(N))/N");
	// atomics against loads on the same shuffled lines (L2-resident)
	for (uint64_t lines : {1ull, 64ull, 4096ull}) {
		std::vector<uint32_t> ord = chase_order(lines, true);
		std::vector<unsigned int> h(lines * 32, 0);
		for (uint64_t i = 0; i < lines; i++)
			h[ord[i] * 32] = (unsigned int)(ord[(i + 1) % lines] * 32);
		unsigned int *w;
		CHECK(cudaMalloc(&w, lines * 128));
		CHECK(cudaMemcpy(w, h.data(), lines * 128, cudaMemcpyHostToDevice));
		for (int atomic = 0; atomic < 2; atomic++) {
			unsigned n = 1u << 14;
			achase_ctx a = {w, n, atomic, out}, b = {w, 2 * n, atomic, out};
			double c = (median_us(launch_achase, &b, 7, false) - median_us(launch_achase, &a, 7, false)) / n * g_mhz;
			row("mech", atomic ? "atomic_chase_cycles" : "ldcg_chase_cycles", (double)lines, c, "cycles",
			    "one thread, dependent atomicAdd(w, 0) or __ldcg over shuffled 128 B lines (x = lines), (T(2N)-T(N))/N");
		}
		CHECK(cudaFree(w));
	}
	// far faults vs the stride between first touches (the 2 MiB row above:
	// a whole block moved per touch, or a fixed cost per fault?)
	for (uint64_t stride : {4096ull, 65536ull, 262144ull, 2097152ull})
		row("mech", "far_fault_us_vs_stride", (double)stride, far_fault_us(stride, out), "us",
		    "calib_chase over 128 MiB of host-written managed memory, sequential nodes `x` bytes apart, (T(32)-T(16))/16, median of 3, fresh allocation each");
	// migrations on their own, prefetched: host-written managed memory to
	// the GPU, and back, at 64 KiB-64 MiB. The 2 MiB row is the one
	// recorded first (199 us on the run4 board, against gpuvm's 41 us at
	// the link's curve): the sizes split a fixed cost from the rate at
	// which the driver migrates, which uvm.* would be calibrated on
	// (docs/hardware.md, far faults)
	for (uint64_t bytes : {64ull << 10, 256ull << 10, 2ull << 20, 16ull << 20, 64ull << 20}) {
		std::vector<double> h2d, d2h;
		for (int r = 0; r < 5; r++) {
			unsigned char *m;
			CHECK(cudaMallocManaged(&m, bytes));
			memset(m, 1, bytes);
			for (int dir = 0; dir < 2; dir++) {
				cudaEvent_t a, b;
				CHECK(cudaEventCreate(&a));
				CHECK(cudaEventCreate(&b));
				CHECK(cudaEventRecord(a));
				// the host's id is ignored (cuda_runtime_api.h)
				cudaMemLocation loc = {dir ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice, 0};
				CHECK(cudaMemPrefetchAsync(m, bytes, loc, 0, 0));
				CHECK(cudaEventRecord(b));
				CHECK(cudaEventSynchronize(b));
				float ms;
				CHECK(cudaEventElapsedTime(&ms, a, b));
				(dir ? d2h : h2d).push_back(ms * 1e3);
				CHECK(cudaEventDestroy(a));
				CHECK(cudaEventDestroy(b));
			}
			CHECK(cudaFree(m));
		}
		std::sort(h2d.begin(), h2d.end());
		std::sort(d2h.begin(), d2h.end());
		if (bytes == (2ull << 20))
			row("mech", "prefetch_2mib_us", (double)bytes, h2d[2], "us",
			    "cudaMemPrefetchAsync of 2 MiB the host wrote, to the GPU, between two events, median of 5");
		row("mech", "prefetch_h2d_us_vs_bytes", (double)bytes, h2d[2], "us",
		    "cudaMemPrefetchAsync of `x` bytes the host wrote, to the GPU, between two events, median of 5");
		row("mech", "prefetch_d2h_us_vs_bytes", (double)bytes, d2h[2], "us",
		    "cudaMemPrefetchAsync of the same `x` bytes back to the host, between two events, median of 5");
	}
	CHECK(cudaFree(out));
}

// ---------------------------------------------------- random sampling

static void sampling_section(void)
{
	uint64_t threads = (uint64_t)g_sms * 2048;
	uint32_t reads = 1024;
	unsigned long long *sums;
	CHECK(cudaMalloc(&sums, threads * 8));
	size_t free_b, total_b;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	for (uint64_t region = 32ull << 20; region <= (64ull << 30) && region < free_b * 0.85; region *= 2) {
		uint32_t *data;
		CHECK(cudaMalloc(&data, region));
		CHECK(cudaMemset(data, 7, region));
		uint64_t elems = region / 4;
		std::vector<double> v;
		for (int r = 0; r < 3; r++) {
			cudaEvent_t a, b;
			CHECK(cudaEventCreate(&a));
			CHECK(cudaEventCreate(&b));
			CHECK(cudaEventRecord(a));
			launch_random_sampling(data, elems, threads, reads, 1, sums, 0);
			CHECK(cudaGetLastError());
			CHECK(cudaEventRecord(b));
			CHECK(cudaEventSynchronize(b));
			float ms;
			CHECK(cudaEventElapsedTime(&ms, a, b));
			v.push_back(ms * 1e3);
		}
		row("sampling", "random_sampling_greads_s", (double)region,
		    (double)threads * reads / median_of(v) / 1e3, "Greads/s",
		    "cuda/random_sampling.cu, threads = SMs x 2048, 1024 reads each, 256-thread blocks, median of 3");
		CHECK(cudaFree(data));
	}
	CHECK(cudaFree(sums));
}

// ---------------------------------------------- validation programs

// Launched several times each: `ncu ... ./hwbench durations` times every
// launch as nsys does; the events give a second convention.
static void durations_section(void)
{
	calib_empty_args e = {0};
	static const unsigned empties[][2] = {{1, 128}, {1024, 128}, {4096, 128}, {65536, 128},
					      {4096, 1024}, {16384, 1024}};
	for (int r = 0; r < 5; r++)
		for (auto &k : empties)
			calib_empty<<<k[0], k[1]>>>(e);
	CHECK(cudaDeviceSynchronize());
	// the CTA slot's time vs block size: grids of 1 to 512 CTAs per SM of
	// 32-1024 threads (the turnover of occupancy-limited waves, the
	// dispatch rate of small CTAs), three launches each
	for (unsigned block = 32; block <= 1024; block *= 2)
		for (unsigned per_sm : {1u, 8u, 32u, 128u, 512u})
			for (int r = 0; r < 3; r++)
				calib_empty<<<per_sm * (unsigned)g_sms, block>>>(e);
	CHECK(cudaDeviceSynchronize());
	// vectorAdd, 256-thread blocks
	for (unsigned long long n = 16384; n <= 16777216; n *= 2) {
		float *a, *b, *c;
		CHECK(cudaMalloc(&a, n * 4));
		CHECK(cudaMalloc(&b, n * 4));
		CHECK(cudaMalloc(&c, n * 4));
		std::vector<float> h(n);
		for (unsigned long long i = 0; i < n; i++)
			h[i] = (float)(i % 977) * 0.5f;
		CHECK(cudaMemcpy(a, h.data(), n * 4, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(b, h.data(), n * 4, cudaMemcpyHostToDevice));
		vectoradd_args va = {a, b, c, n};
		for (int r = 0; r < 5; r++)
			vectoradd_kernel<<<(unsigned)((n + 255) / 256), 256>>>(va);
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaMemcpy(h.data(), c, 4, cudaMemcpyDeviceToHost));
		CHECK(cudaFree(a));
		CHECK(cudaFree(b));
		CHECK(cudaFree(c));
	}
	// 2DCONV, 32 x 8 blocks
	static const int conv_n[] = {128, 256, 384, 512, 768, 1024, 2048, 4096};
	for (int n : conv_n) {
		float *A, *B;
		size_t bytes = (size_t)n * n * 4;
		CHECK(cudaMalloc(&A, bytes));
		CHECK(cudaMalloc(&B, bytes));
		std::vector<float> h((size_t)n * n);
		for (size_t i = 0; i < h.size(); i++)
			h[i] = (float)(i % 1013) / 1013.0f;
		CHECK(cudaMemcpy(A, h.data(), bytes, cudaMemcpyHostToDevice));
		conv2d_args ca = {A, B, n, n};
		dim3 grid((n + 31) / 32, (n + 7) / 8), block(32, 8);
		for (int r = 0; r < 5; r++)
			conv2d_kernel<<<grid, block>>>(ca);
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaFree(A));
		CHECK(cudaFree(B));
	}
	// ATAX, PolyBench/GPU blocks (32 x 8)
	static const int atax_n[] = {128, 256, 384, 512, 1024, 2048};
	for (int n : atax_n) {
		float *A, *x, *y, *tmp;
		CHECK(cudaMalloc(&A, (size_t)n * n * 4));
		CHECK(cudaMalloc(&x, (size_t)n * 4));
		CHECK(cudaMalloc(&y, (size_t)n * 4));
		CHECK(cudaMalloc(&tmp, (size_t)n * 4));
		std::vector<float> h((size_t)n * n);
		for (size_t i = 0; i < h.size(); i++)
			h[i] = (float)(i % 1009) / 1009.0f;
		CHECK(cudaMemcpy(A, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(x, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
		atax_args aa = {A, x, y, tmp, n, n};
		dim3 grid((n + 31) / 32), block(32, 8);
		for (int r = 0; r < 5; r++) {
			atax_pb_kernel1<<<grid, block>>>(aa);
			atax_pb_kernel2<<<grid, block>>>(aa);
		}
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaFree(A));
		CHECK(cudaFree(x));
		CHECK(cudaFree(y));
		CHECK(cudaFree(tmp));
	}
	// MVT (32 x 8 blocks), BiCG and GESUMMV (256 x 1): gpuvm's defaults,
	// the .cuh's blocks
	for (int n : {128, 256, 512, 1024, 2048}) {
		size_t mat = (size_t)n * n * 4, vec = (size_t)n * 4;
		float *A, *B, *v[5];
		CHECK(cudaMalloc(&A, mat));
		CHECK(cudaMalloc(&B, mat));
		for (auto &x : v)
			CHECK(cudaMalloc(&x, vec));
		std::vector<float> h((size_t)n * n);
		for (size_t i = 0; i < h.size(); i++)
			h[i] = (float)(i % 1021) / 1021.0f;
		CHECK(cudaMemcpy(A, h.data(), mat, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(B, h.data(), mat, cudaMemcpyHostToDevice));
		for (auto &x : v)
			CHECK(cudaMemcpy(x, h.data(), vec, cudaMemcpyHostToDevice));
		mvt_args ma = {A, v[0], v[1], v[2], v[3], n};
		bicg_args ba = {A, v[0], v[1], v[2], v[3], n, n};
		gesummv_args ga = {A, B, v[0], v[1], v[2], n, 1.5f, 1.2f};
		for (int r = 0; r < 5; r++) {
			mvt_kernel1<<<(n + 31) / 32, dim3(32, 8)>>>(ma);
			mvt_kernel2<<<(n + 31) / 32, dim3(32, 8)>>>(ma);
			bicg_kernel1<<<(n + 255) / 256, 256>>>(ba);
			bicg_kernel2<<<(n + 255) / 256, 256>>>(ba);
			gesummv_kernel<<<(n + 255) / 256, 256>>>(ga);
		}
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaFree(A));
		CHECK(cudaFree(B));
		for (auto &x : v)
			CHECK(cudaFree(x));
	}
	// GEMM, PolyBench/GPU blocks (32 x 8)
	static const int gemm_n[] = {32, 64, 128, 256, 384, 512};
	for (int n : gemm_n) {
		size_t bytes = (size_t)n * n * 4;
		float *A, *B, *C;
		CHECK(cudaMalloc(&A, bytes));
		CHECK(cudaMalloc(&B, bytes));
		CHECK(cudaMalloc(&C, bytes));
		std::vector<float> h((size_t)n * n);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				h[(size_t)i * n + j] = (float)i * j / n;
		CHECK(cudaMemcpy(A, h.data(), bytes, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(B, h.data(), bytes, cudaMemcpyHostToDevice));
		CHECK(cudaMemcpy(C, h.data(), bytes, cudaMemcpyHostToDevice));
		gemm_args ga = {A, B, C, n, n, n, 32412.0f, 2123.0f};
		dim3 grid((n + 31) / 32, (n + 7) / 8), block(32, 8);
		for (int r = 0; r < 5; r++)
			gemm_kernel<<<grid, block>>>(ga);
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaFree(A));
		CHECK(cudaFree(B));
		CHECK(cudaFree(C));
	}
	CHECK(cudaGetLastError());
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, 0));
	g_sms = p.multiProcessorCount;
	g_l2 = (size_t)p.l2CacheSize;
	if (!strcmp(what, "durations")) {
		durations_section();
		return 0;
	}
	if (!strcmp(what, "mt4g")) {
		printf("row\tsection\tquantity\tx\tvalue\tunit\tmethod\n");
		mt4g_section();
		CHECK(cudaFree(g_flush));
		return 0;
	}
	CHECK(cudaMalloc(&g_flush, 4 * g_l2));
	g_mhz = measure_mhz();
	printf("# device=%s sms=%d l2_bytes=%zu cc=%d.%d mem_bus_bits=%d clock_mhz=%.1f\n", p.name,
	       g_sms, g_l2, p.major, p.minor, p.memoryBusWidth, g_mhz);
	printf("row\tsection\tquantity\tx\tvalue\tunit\tmethod\n");
	bool all = !strcmp(what, "all");
	if (all || !strcmp(what, "chase"))
		chase_section();
	if (all || !strcmp(what, "ops"))
		ops_section();
	if (all || !strcmp(what, "smem"))
		smem_atomic_section();
	if (all || !strcmp(what, "stream"))
		stream_section();
	if (all || !strcmp(what, "l2"))
		l2_section();
	if (all || !strcmp(what, "launch"))
		launch_section();
	if (all || !strcmp(what, "zerocopy"))
		zero_copy_section();
	if (all || !strcmp(what, "tlbpar"))
		tlb_concurrency_section();
	if (all || !strcmp(what, "mech"))
		mechanisms_section();
	if (all || !strcmp(what, "tlbmiss"))
		tlb_miss_par_section();
	if (all || !strcmp(what, "sampling"))
		sampling_section();
	if (all || !strcmp(what, "slot"))
		stream_parts_section();
	if (all || !strcmp(what, "ctaline"))
		cta_line_section();
	if (all || !strcmp(what, "warpload"))
		warp_load_section();
	if (all || !strcmp(what, "loaded"))
		loaded_latency_section();
	if (all || !strcmp(what, "mlp"))
		mlp_section();
	if (all || !strcmp(what, "loadhist"))
		loadhist_section();
	if (all || !strcmp(what, "home"))
		home_section();
	if (all || !strcmp(what, "keep"))
		keep_section();
	g_mhz = measure_mhz();
	printf("# clock_mhz_end=%.1f\n", g_mhz);
	CHECK(cudaFree(g_flush));
	return 0;
}
