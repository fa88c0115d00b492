// TLB probe recorder for NVIDIA GPUs: Karnagel et al.'s property and sharing
// benchmarks (DaMoN'17 section 3; gcoe-dresden/cuda-gpu-tlb
// src/tlb_benchmark.cu and src/tlb_sharing.cu), writing the CSV that
// `gpuvm probe --target cuda --input FILE` analyses.
//
// Build and run on a machine with a GPU (gpuvm never runs CUDA itself):
//   nvcc -O2 -o tlb_probe cuda/tlb_probe.cu
//   ./tlb_probe chase > chase.csv                  # property benchmark grid
//   gpuvm probe --target cuda --input chase.csv    # levels; prints nothing to share yet
//   ./tlb_probe share --stride B --hops N >> share.csv   # per level, the stride and
//   gpuvm probe --target cuda --input chase.csv --input share.csv  # hops gpuvm --json
//                                                  # reports as share_stride_bytes/share_hops
//
// Method: one thread chases dependent 8-byte pointers with ld.global.cg (L2
// only: the L1 is virtually indexed and would hide TLB misses: fast-interconnects
// microbench/cudautils/tlb_latency.cu),
// a warm-up pass then a timed pass between two clock64() reads; the result is
// cycles per hop. Sizes stay within half the L2's lines so the data always
// hits L2 and every step is a TLB step. Each point is the minimum of REPS
// launches (Karnagel's min_instead_avg). The sharing benchmark launches
// 2 x SMs one-thread blocks; a block reads %smid and works only on the
// wanted SM (the first such block), as tlb_sharing.cu does.
//
// Rows: kind,stride_bytes,hops,sm_fill,sm_disrupt,latency_cycles
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 3

#define CHECK(call)                                                                     \
	do {                                                                            \
		cudaError_t e_ = (call);                                                \
		if (e_ != cudaSuccess) {                                                \
			fprintf(stderr, "tlb_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
				cudaGetErrorString(e_));                                \
			exit(1);                                                        \
		}                                                                       \
	} while (0)

// Same offsets as gpuvm_probe_chain_offset(): a 64-byte line per hop
// cycling inside min(stride, 4 KiB), so hops spread over cache sets.
__host__ __device__ static inline uint64_t chain_offset(uint64_t i, uint64_t stride)
{
	uint64_t span = stride < 4096 ? stride : 4096;
	if (span < 128)
		return 0;
	return ((i * 64) % span) & ~(uint64_t)7;
}

__device__ static inline uint64_t load_cg(const uint64_t *p)
{
	uint64_t v;
	asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
	return v;
}

__device__ static inline unsigned smid(void)
{
	unsigned id;
	asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
	return id;
}

// data[base + i*stride + off(i)] = byte offset of hop i+1 (the last points
// back to hop 0): the chain of one region.
__global__ void init_chain(unsigned char *data, uint64_t base, uint64_t stride, uint32_t hops)
{
	uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= hops)
		return;
	uint64_t next = i + 1 == hops ? 0 : i + 1;
	uint64_t *at = (uint64_t *)(data + base + i * stride + chain_offset(i, stride));
	*at = base + next * stride + chain_offset(next, stride);
}

// One thread: `passes` passes over the chain; the last one is timed.
__device__ static void chase(const unsigned char *data, uint64_t start, uint32_t hops,
			     uint32_t passes, double *out)
{
	uint64_t pos = start, sum = 0;
	for (uint32_t p = 0; p + 1 < passes; p++)
		for (uint32_t i = 0; i < hops; i++)
			pos = load_cg((const uint64_t *)(data + pos));
	long long t0 = clock64();
	for (uint32_t i = 0; i < hops; i++) {
		pos = load_cg((const uint64_t *)(data + pos));
		sum += pos; // the clock read below waits for the last load
	}
	long long t1 = clock64();
	if (out)
		*out = (double)(t1 - t0) / hops + (sum == 0xffffffffffffffffull ? 1 : 0);
}

__global__ void chase_kernel(const unsigned char *data, uint32_t hops, double *out)
{
	chase(data, 0, hops, 2, out); /* chain_offset(0, s) == 0 */
}

// Works on SM `want` only; `claimed` makes it one block.
__global__ void pinned_chase(const unsigned char *data, uint64_t start, uint32_t hops,
			     unsigned want, int *claimed, double *out, int *ran_on)
{
	if (smid() != want || atomicCAS(claimed, 0, 1) != 0)
		return;
	*ran_on = (int)smid();
	chase(data, start, hops, 1, out);
}

static unsigned sm_count(int dev)
{
	int n;
	CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
	return (unsigned)n;
}

static void header(int dev)
{
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, dev));
	printf("# device=%s l2_bytes=%d compute_capability=%d.%d\n", p.name, p.l2CacheSize, p.major, p.minor);
	printf("# sms=%d\n", p.multiProcessorCount);
	printf("kind,stride_bytes,hops,sm_fill,sm_disrupt,latency_cycles\n");
}

static uint64_t arg_u64(int argc, char **argv, const char *name, uint64_t def)
{
	for (int i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtoull(argv[i + 1], NULL, 0);
	return def;
}

static int run_chase(int argc, char **argv, int dev)
{
	uint64_t smin = arg_u64(argc, argv, "--min-stride", 2048);
	uint64_t smax = arg_u64(argc, argv, "--max-stride", 128ull << 20);
	uint64_t hmax = arg_u64(argc, argv, "--max-hops", 12288);
	double ratio = 1.05; // no bisection on hardware: a fine grid instead
	int l2;
	CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
	if (hmax > (uint64_t)l2 / 128 / 2)
		hmax = (uint64_t)l2 / 128 / 2; // half the L2's 128-byte lines
	size_t free_b, total_b;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	uint64_t budget = (uint64_t)(free_b * 0.9);
	double *d_out;
	CHECK(cudaMalloc(&d_out, sizeof(double)));
	header(dev);
	for (uint64_t s = smin; s <= smax; s *= 2) {
		uint64_t h_here = hmax;
		if (h_here * s > budget)
			h_here = budget / s;
		if (h_here < 4)
			continue;
		unsigned char *data;
		CHECK(cudaMalloc(&data, h_here * s));
		uint32_t last = 0;
		for (double x = 2;; x *= ratio) {
			uint32_t h = x >= (double)h_here ? (uint32_t)h_here : (uint32_t)llround(x);
			if (h > last) {
				last = h;
				init_chain<<<(h + 255) / 256, 256>>>(data, 0, s, h);
				CHECK(cudaGetLastError());
				double best = INFINITY;
				for (int r = 0; r < REPS; r++) {
					chase_kernel<<<1, 1>>>(data, h, d_out);
					CHECK(cudaGetLastError());
					double v;
					CHECK(cudaMemcpy(&v, d_out, sizeof v, cudaMemcpyDeviceToHost));
					if (v < best)
						best = v;
				}
				printf("chase,%llu,%u,0,-1,%.3f\n", (unsigned long long)s, h, best);
				fflush(stdout);
			}
			if (h >= h_here)
				break;
		}
		CHECK(cudaFree(data));
	}
	CHECK(cudaFree(d_out));
	return 0;
}

static double pinned(const unsigned char *data, uint64_t start, uint32_t hops, unsigned sm,
		     unsigned sms, int *d_claim, double *d_out, int *d_ran)
{
	CHECK(cudaMemset(d_claim, 0, sizeof(int)));
	CHECK(cudaMemset(d_ran, 0xff, sizeof(int)));
	pinned_chase<<<2 * sms, 1>>>(data, start, hops, sm, d_claim, d_out, d_ran);
	CHECK(cudaGetLastError());
	int ran;
	double v;
	CHECK(cudaMemcpy(&ran, d_ran, sizeof ran, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&v, d_out, sizeof v, cudaMemcpyDeviceToHost));
	if (ran != (int)sm) {
		fprintf(stderr, "tlb_probe: no block of %u landed on SM %u; rerun\n", 2 * sms, sm);
		exit(1);
	}
	return v;
}

static int run_share(int argc, char **argv, int dev)
{
	uint64_t stride = arg_u64(argc, argv, "--stride", 0);
	uint64_t hops = arg_u64(argc, argv, "--hops", 0);
	if (!stride || !hops || hops > (1u << 24)) {
		fprintf(stderr, "tlb_probe share: --stride BYTES and --hops N are required "
				"(from gpuvm probe --json: share_stride_bytes, share_hops)\n");
		return 2;
	}
	unsigned sms = sm_count(dev);
	unsigned char *data;
	CHECK(cudaMalloc(&data, 2 * hops * stride));
	uint64_t a = 0, b = hops * stride;
	init_chain<<<(unsigned)((hops + 255) / 256), 256>>>(data, a, stride, (uint32_t)hops);
	init_chain<<<(unsigned)((hops + 255) / 256), 256>>>(data, b, stride, (uint32_t)hops);
	CHECK(cudaGetLastError());
	int *d_claim, *d_ran;
	double *d_out;
	CHECK(cudaMalloc(&d_claim, sizeof(int)));
	CHECK(cudaMalloc(&d_ran, sizeof(int)));
	CHECK(cudaMalloc(&d_out, sizeof(double)));
	header(dev);
	uint64_t sa = a + chain_offset(0, stride), sb = b + chain_offset(0, stride);
	for (unsigned i = 0; i < sms; i++) {
		for (int k = -1; k < (int)sms; k++) {
			double best = INFINITY;
			for (int r = 0; r < REPS; r++) {
				pinned(data, sa, (uint32_t)hops, i, sms, d_claim, d_out, d_ran); // fill
				if (k >= 0) // disrupt
					pinned(data, sb, (uint32_t)hops, (unsigned)k, sms, d_claim, d_out, d_ran);
				double v = pinned(data, sa, (uint32_t)hops, i, sms, d_claim, d_out, d_ran);
				if (v < best)
					best = v;
			}
			printf("share,%llu,%llu,%u,%d,%.3f\n", (unsigned long long)stride,
			       (unsigned long long)hops, i, k, best);
		}
		fflush(stdout);
	}
	CHECK(cudaFree(data));
	CHECK(cudaFree(d_claim));
	CHECK(cudaFree(d_ran));
	CHECK(cudaFree(d_out));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "chase") && strcmp(argv[1], "share"))) {
		fprintf(stderr, "usage: tlb_probe chase [--min-stride B] [--max-stride B] [--max-hops N] [--device D]\n"
				"       tlb_probe share --stride B --hops N [--device D]\n");
		return 2;
	}
	int dev = (int)arg_u64(argc, argv, "--device", 0);
	CHECK(cudaSetDevice(dev));
	return !strcmp(argv[1], "chase") ? run_chase(argc, argv, dev) : run_share(argc, argv, dev);
}
