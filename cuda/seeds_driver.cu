// The seeds' experiments on a real GPU (issue 76 item 6): a host driver for
// the kernels gpuvm's seed workloads model, run by scripts/hw-seeds.sh, each
// section timing with cudaEvents and printing one TSV row per timed run:
//
//   sampling  Karnagel Fig. 1a: cuda/random_sampling.cu over device-memory
//             regions of 32 MiB up to what fits (gpuvm random-sampling:region=R)
//   groupby   Karnagel Fig. 1b: cuda/hash_groupby.cu, input zero-copy from
//             pinned host memory in 128 MB chunks, tables of 32 MiB up to
//             32 GiB or what fits (gpuvm hash-groupby:region=R,input=N)
//   oversub   Zheng et al.'s oversubscription: the STREAM triad of
//             src/workloads/suite/triad_kernels.h over cudaMallocManaged
//             arrays the host wrote, at PCT % of the device memory left free
//             by a cudaMalloc'd ballast (so an 80 or 141 GB board needs only a
//             few GB of managed data): on demand, cudaMemPrefetchAsync first,
//             and at <= 100 % cudaMemcpy first (copy-then-execute) and the
//             kernel alone on device memory (gpuvm stream-triad:elems=N,
//             mem=managed|copy|device, --oversub PCT)
//   counters  Migration over iterations: vectorAdd (the suite's kernel body)
//             launched ITERS times on managed arrays the host wrote first,
//             each launch timed: no hint (fault migration), AccessedBy the GPU
//             (a remote mapping; the driver's access counters may migrate),
//             preferred location the host + AccessedBy (remote throughout)
//             (gpuvm vectoradd:n=N,mem=managed,launches=K with uvm.* hints)
//
//   nvcc -O3 -arch=sm_90 -std=c++14 -Iinclude -o seeds_driver cuda/seeds_driver.cu
//   ./seeds_driver sampling [reads=1024] [min=32MiB] [max=BYTES] [reps=3]
//   ./seeds_driver groupby [input=268435456] [min=32MiB] [max=32GiB] [reps=2]
//   ./seeds_driver oversub [budget=2GiB] [pcts=50,100,110,125,150] [reps=1]
//   ./seeds_driver counters [n=16777216] [iters=8]
//
// Output: '# key=value' lines (the board), a header row, then rows
//   experiment variant region_bytes items seconds items_per_second iter params
// flushed one by one, so a run stopped by `timeout` keeps what it finished.
// scripts/hw-seeds-rows.py turns them into validation rows.
#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "random_sampling.cu"
#include "hash_groupby.cu"
#include "../src/workloads/suite/triad_kernels.h"
#include "../src/workloads/suite/vectoradd_kernels.h"

#define CHECK(call)                                                                          \
	do {                                                                                 \
		cudaError_t e_ = (call);                                                     \
		if (e_ != cudaSuccess) {                                                     \
			fprintf(stderr, "seeds_driver: %s:%d: %s: %s\n", __FILE__, __LINE__, \
				#call, cudaGetErrorString(e_));                              \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

// an allocation that may not fit: reports, clears the error, returns false
static bool soft(cudaError_t e, const char *what, uint64_t bytes)
{
	if (e == cudaSuccess)
		return true;
	printf("# skipped: %s of %llu bytes: %s\n", what, (unsigned long long)bytes,
	       cudaGetErrorString(e));
	fflush(stdout);
	cudaGetLastError();
	return false;
}

static int g_sms;
static const uint64_t MiB = 1ull << 20, GiB = 1ull << 30;

// ------------------------------------------------------------ arguments

static int g_argc;
static char **g_argv;

// "123", "32MiB", "2GiB", "64KiB" (also K/M/G)
static uint64_t parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t m = 1;
	if (*end == 'K' || *end == 'k')
		m = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		m = MiB;
	else if (*end == 'G' || *end == 'g')
		m = GiB;
	return (uint64_t)(v * (double)m);
}

static const char *arg(const char *key)
{
	size_t n = strlen(key);
	for (int i = 2; i < g_argc; i++)
		if (!strncmp(g_argv[i], key, n) && g_argv[i][n] == '=')
			return g_argv[i] + n + 1;
	return NULL;
}

static uint64_t arg_size(const char *key, uint64_t dflt)
{
	const char *v = arg(key);
	return v ? parse_size(v) : dflt;
}

// ------------------------------------------------------------ timing and rows

struct span {
	cudaEvent_t a, b;
};

static void span_start(span &s)
{
	CHECK(cudaEventCreate(&s.a));
	CHECK(cudaEventCreate(&s.b));
	CHECK(cudaEventRecord(s.a));
}

static double span_stop(span &s) // seconds
{
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(s.b));
	CHECK(cudaEventSynchronize(s.b));
	float ms;
	CHECK(cudaEventElapsedTime(&ms, s.a, s.b));
	CHECK(cudaEventDestroy(s.a));
	CHECK(cudaEventDestroy(s.b));
	return ms * 1e-3;
}

static void out_row(const char *exp, const char *variant, uint64_t region, uint64_t items,
		    double seconds, int iter, const char *params)
{
	printf("%s\t%s\t%llu\t%llu\t%.9g\t%.6g\t%d\t%s\n", exp, variant, (unsigned long long)region,
	       (unsigned long long)items, seconds, seconds > 0 ? (double)items / seconds : 0.0, iter,
	       params && *params ? params : "-");
	fflush(stdout);
}

static uint64_t free_bytes(void)
{
	size_t f, t;
	CHECK(cudaMemGetInfo(&f, &t));
	return f;
}

// ------------------------------------------------------------ managed memory

static cudaMemLocation loc_device(void)
{
	cudaMemLocation l;
	memset(&l, 0, sizeof l);
	l.type = cudaMemLocationTypeDevice;
	l.id = 0;
	return l;
}

static cudaMemLocation loc_host(void)
{
	cudaMemLocation l;
	memset(&l, 0, sizeof l);
	l.type = cudaMemLocationTypeHost;
	l.id = 0;
	return l;
}

#if CUDART_VERSION >= 13000
static cudaError_t prefetch_to_gpu(const void *p, size_t bytes)
{
	return cudaMemPrefetchAsync(p, bytes, loc_device(), 0, 0);
}
static cudaError_t advise(const void *p, size_t bytes, cudaMemoryAdvise a, bool host)
{
	return cudaMemAdvise(p, bytes, a, host ? loc_host() : loc_device());
}
#else
static cudaError_t prefetch_to_gpu(const void *p, size_t bytes)
{
	return cudaMemPrefetchAsync(p, bytes, 0, 0);
}
static cudaError_t advise(const void *p, size_t bytes, cudaMemoryAdvise a, bool host)
{
	return cudaMemAdvise(p, bytes, a, host ? cudaCpuDeviceId : 0);
}
#endif

// ------------------------------------------------------------ sampling

// Karnagel Fig. 1a. gpuvm's random-sampling default: every warp slot busy
// (SMs x 2048 threads), 256-thread blocks, `reads` reads each, seed 1.
static void sampling_section(void)
{
	uint64_t threads = (uint64_t)g_sms * 2048;
	uint32_t reads = (uint32_t)arg_size("reads", 1024);
	uint64_t lo = arg_size("min", 32 * MiB);
	uint64_t hi = arg_size("max", 1ull << 40);
	int reps = (int)arg_size("reps", 3);
	unsigned long long *sums;
	CHECK(cudaMalloc(&sums, threads * 8));
	// powers of two, and the steps past 32 GiB where the 64 GiB reach of
	// H100's 32 MiB-entry level lies
	std::vector<uint64_t> regions;
	for (uint64_t r = 32 * MiB; r <= 32 * GiB; r *= 2)
		regions.push_back(r);
	for (uint64_t g = 48; g <= 192; g += 16)
		regions.push_back(g * GiB);
	char params[160];
	snprintf(params, sizeof params, "threads=%llu;reads=%u;block=256;seed=1",
		 (unsigned long long)threads, reads);
	for (uint64_t region : regions) {
		if (region < lo || region > hi)
			continue;
		if (region + 2 * GiB > free_bytes()) {
			printf("# stop: %llu bytes do not fit with 2 GiB to spare\n",
			       (unsigned long long)region);
			break;
		}
		uint32_t *data;
		if (!soft(cudaMalloc(&data, region), "cudaMalloc", region))
			break;
		CHECK(cudaMemset(data, 7, region));
		uint64_t elems = region / 4;
		launch_random_sampling(data, elems, threads, reads, 1, sums, 0); // warm-up
		CHECK(cudaDeviceSynchronize());
		for (int r = 1; r <= reps; r++) {
			span s;
			span_start(s);
			launch_random_sampling(data, elems, threads, reads, 1, sums, 0);
			out_row("sampling", "device", region, threads * reads, span_stop(s), r, params);
		}
		CHECK(cudaFree(data));
	}
	CHECK(cudaFree(sums));
}

// ------------------------------------------------------------ group-by

__device__ inline uint64_t seeds_splitmix64(uint64_t x)
{
	uint64_t z = x + 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

// gpuvm's groupby_input (src/workloads/hash_groupby.h): value i of the
// column, uniform in [0, groups), written zero-copy into the pinned column
__global__ void groupby_fill(uint32_t *col, uint64_t n, uint64_t groups, uint64_t seed)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		col[i] = (uint32_t)__umul64hi(seeds_splitmix64(seed ^ (i * 0xA24BAED4963EE407ull)),
					      groups);
}

// Karnagel Fig. 1b: SELECT value, count(*) GROUP BY value over `input`
// values in pinned host memory, read zero-copy in 128 MB chunks, one launch
// each, into a table of region bytes (2 x groups buckets of 8 B).
static void groupby_section(void)
{
	uint64_t input = arg_size("input", 1ull << 28);
	uint64_t lo = arg_size("min", 32 * MiB);
	uint64_t hi = arg_size("max", 32 * GiB); // gpuvm: at most 2^31 groups
	int reps = (int)arg_size("reps", 2);
	const uint64_t chunk_elems = (128 * MiB) / 4;
	unsigned block = 256, grid = (unsigned)g_sms * 2048 / block;
	uint32_t *col_host, *col;
	CHECK(cudaHostAlloc(&col_host, input * 4, cudaHostAllocMapped));
	CHECK(cudaHostGetDevicePointer(&col, col_host, 0));
	char params[200];
	snprintf(params, sizeof params, "chunk=134217728;threads=%llu;block=%u;seed=1",
		 (unsigned long long)grid * block, block);
	for (uint64_t region = 32 * MiB; region <= 32 * GiB; region *= 2) {
		if (region < lo || region > hi)
			continue;
		if (region + 2 * GiB > free_bytes()) {
			printf("# stop: %llu bytes do not fit with 2 GiB to spare\n",
			       (unsigned long long)region);
			break;
		}
		uint64_t groups = region / 16, buckets = 2 * groups;
		groupby_bucket *table;
		if (!soft(cudaMalloc(&table, region), "cudaMalloc", region))
			break;
		groupby_fill<<<(unsigned)g_sms * 8, 256>>>(col, input, groups, 1);
		CHECK(cudaDeviceSynchronize());
		for (int r = 1; r <= reps; r++) {
			CHECK(cudaMemset(table, 0, region));
			CHECK(cudaDeviceSynchronize());
			span s;
			span_start(s);
			launch_hash_groupby(col, input, chunk_elems, table, buckets, grid, block, 0);
			out_row("groupby", "zero-copy", region, input, span_stop(s), r, params);
		}
		CHECK(cudaFree(table));
	}
	CHECK(cudaFreeHost(col_host));
}

// ------------------------------------------------------------ oversubscription

static void triad_host_init(double *a, double *b, double *c, uint64_t n)
{
	// gpuvm stream-triad's values (b[i] = i mod 1024, c[i] = (i / 1024) mod
	// 1024); every page written, so every page starts in host memory
	for (uint64_t i = 0; i < n; i++) {
		a[i] = 0.0;
		b[i] = (double)(i & 1023);
		c[i] = (double)((i >> 10) & 1023);
	}
}

static void triad_launch(double *a, const double *b, const double *c, uint64_t n)
{
	triad_args t = {a, b, c, 3.0, (unsigned long long)n};
	triad_kernel<<<(unsigned)g_sms * 8, 256>>>(t); // SMs x 2048 threads, grid-stride
}

// One managed run: the host writes the arrays, then (prefetch) every array
// is prefetched to the GPU and the kernel runs, all between two events.
static void oversub_managed(bool prefetch, uint64_t n, int pct, uint64_t budget, int rep)
{
	uint64_t bytes = n * 8;
	double *a, *b, *c;
	if (!soft(cudaMallocManaged(&a, bytes), "cudaMallocManaged", bytes))
		return;
	if (!soft(cudaMallocManaged(&b, bytes), "cudaMallocManaged", bytes)) {
		CHECK(cudaFree(a));
		return;
	}
	if (!soft(cudaMallocManaged(&c, bytes), "cudaMallocManaged", bytes)) {
		CHECK(cudaFree(a));
		CHECK(cudaFree(b));
		return;
	}
	triad_host_init(a, b, c, n);
	CHECK(cudaDeviceSynchronize());
	span s, k;
	span_start(s);
	if (prefetch) {
		CHECK(prefetch_to_gpu(a, bytes));
		CHECK(prefetch_to_gpu(b, bytes));
		CHECK(prefetch_to_gpu(c, bytes));
	}
	span_start(k);
	triad_launch(a, b, c, n);
	double kernel_s = span_stop(k);
	double total = span_stop(s);
	char params[200];
	snprintf(params, sizeof params, "pct=%d;device_free=%llu;kernel_s=%.9g;transfer_s=%.9g", pct,
		 (unsigned long long)budget, kernel_s, total - kernel_s);
	out_row("oversub", prefetch ? "prefetch" : "ondemand", 3 * bytes, n, total, rep, params);
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
}

// Copy-then-execute (every array copied from pinned host memory, then the
// kernel, between two events: gpuvm's mem=copy) and, on the same buffers,
// the kernel alone on device-resident data (mem=device).
static void oversub_copy(uint64_t n, int pct, uint64_t budget, int rep)
{
	uint64_t bytes = n * 8;
	double *a, *b, *c, *ha, *hb, *hc;
	if (!soft(cudaMalloc(&a, bytes), "cudaMalloc", bytes))
		return;
	if (!soft(cudaMalloc(&b, bytes), "cudaMalloc", bytes)) {
		CHECK(cudaFree(a));
		return;
	}
	if (!soft(cudaMalloc(&c, bytes), "cudaMalloc", bytes)) {
		CHECK(cudaFree(a));
		CHECK(cudaFree(b));
		return;
	}
	CHECK(cudaMallocHost(&ha, bytes));
	CHECK(cudaMallocHost(&hb, bytes));
	CHECK(cudaMallocHost(&hc, bytes));
	triad_host_init(ha, hb, hc, n);
	char params[200];
	span s, k;
	span_start(s);
	CHECK(cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(b, hb, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(c, hc, bytes, cudaMemcpyHostToDevice));
	span_start(k);
	triad_launch(a, b, c, n);
	double kernel_s = span_stop(k);
	double total = span_stop(s);
	snprintf(params, sizeof params, "pct=%d;device_free=%llu;kernel_s=%.9g;transfer_s=%.9g", pct,
		 (unsigned long long)budget, kernel_s, total - kernel_s);
	out_row("oversub", "copy", 3 * bytes, n, total, rep, params);
	span_start(k);
	triad_launch(a, b, c, n);
	kernel_s = span_stop(k);
	snprintf(params, sizeof params, "pct=%d;device_free=%llu;kernel_s=%.9g;transfer_s=0", pct,
		 (unsigned long long)budget, kernel_s);
	out_row("oversub", "device", 3 * bytes, n, kernel_s, rep, params);
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
	CHECK(cudaFreeHost(ha));
	CHECK(cudaFreeHost(hb));
	CHECK(cudaFreeHost(hc));
}

static void oversub_section(void)
{
	uint64_t want = arg_size("budget", 2 * GiB);
	int reps = (int)arg_size("reps", 1);
	const char *pl = arg("pcts");
	std::vector<int> pcts;
	if (pl) {
		for (const char *p = pl; *p;) {
			pcts.push_back(atoi(p));
			const char *comma = strchr(p, ',');
			p = comma ? comma + 1 : p + strlen(p);
		}
	} else {
		pcts = {50, 100, 110, 125, 150};
	}
	// the ballast: device memory the driver cannot evict, so that a few GB
	// of managed data oversubscribe what is left
	uint64_t before = free_bytes();
	void *ballast = NULL;
	uint64_t bsize = before > want + 256 * MiB ? before - want : 0;
	while (bsize && cudaMalloc(&ballast, bsize) != cudaSuccess) {
		cudaGetLastError();
		ballast = NULL;
		bsize = bsize > GiB ? bsize - GiB / 4 : 0;
	}
	uint64_t budget = free_bytes();
	printf("# oversub_free_before=%llu\n# oversub_ballast=%llu\n# oversub_device_free=%llu\n",
	       (unsigned long long)before, (unsigned long long)bsize, (unsigned long long)budget);
	fflush(stdout);
	for (int pct : pcts) {
		uint64_t n = (uint64_t)((double)budget * pct / 100.0 / 24.0);
		// whole 2 MiB per array (cudaMalloc's granularity): at 100 % the
		// three device arrays of the copy run fit in what is free
		n &= ~(uint64_t)((2 * MiB / 8) - 1);
		if (!n)
			continue;
		for (int r = 1; r <= reps; r++) {
			if (pct <= 100)
				oversub_copy(n, pct, budget, r);
			oversub_managed(true, n, pct, budget, r);
			oversub_managed(false, n, pct, budget, r);
		}
	}
	if (ballast)
		CHECK(cudaFree(ballast));
}

// ------------------------------------------------------------ migration over iterations

static void counters_run(const char *variant, uint64_t n, int iters)
{
	uint64_t bytes = n * 4;
	float *a, *b, *c;
	CHECK(cudaMallocManaged(&a, bytes));
	CHECK(cudaMallocManaged(&b, bytes));
	CHECK(cudaMallocManaged(&c, bytes));
	float *all[3] = {a, b, c};
	bool accessed_by = strcmp(variant, "fault") != 0;
	bool host_pref = !strcmp(variant, "remote");
	for (float *p : all) {
		if (host_pref)
			CHECK(advise(p, bytes, cudaMemAdviseSetPreferredLocation, true));
		if (accessed_by)
			CHECK(advise(p, bytes, cudaMemAdviseSetAccessedBy, false));
	}
	for (uint64_t i = 0; i < n; i++) { // first touch on the host
		a[i] = (float)(i % 977) * 0.5f;
		b[i] = (float)(i % 631) * 0.25f;
		c[i] = 0.0f;
	}
	CHECK(cudaDeviceSynchronize());
	vectoradd_args va = {a, b, c, (unsigned long long)n};
	char params[120];
	snprintf(params, sizeof params, "launches=%d;block=256", iters);
	for (int k = 1; k <= iters; k++) {
		span s;
		span_start(s);
		vectoradd_kernel<<<(unsigned)((n + 255) / 256), 256>>>(va);
		out_row("counters", variant, 3 * bytes, n, span_stop(s), k, params);
	}
	CHECK(cudaFree(a));
	CHECK(cudaFree(b));
	CHECK(cudaFree(c));
}

static void counters_section(void)
{
	uint64_t n = arg_size("n", 1ull << 24);
	int iters = (int)arg_size("iters", 8);
	int v = 0;
	CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, 0));
	printf("# concurrent_managed_access=%d\n", v);
	fflush(stdout);
	counters_run("fault", n, iters);
	counters_run("accessed_by", n, iters);
	counters_run("remote", n, iters);
}

int main(int argc, char **argv)
{
	g_argc = argc;
	g_argv = argv;
	const char *what = argc > 1 ? argv[1] : "";
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, 0));
	g_sms = p.multiProcessorCount;
	int drv = 0, rt = 0;
	CHECK(cudaDriverGetVersion(&drv));
	CHECK(cudaRuntimeGetVersion(&rt));
	size_t f, t;
	CHECK(cudaMemGetInfo(&f, &t));
	printf("# section=%s\n# device=%s\n# sms=%d\n# cc=%d.%d\n# l2_bytes=%d\n"
	       "# total_bytes=%zu\n# free_bytes=%zu\n# driver=%d\n# runtime=%d\n",
	       what, p.name, g_sms, p.major, p.minor, p.l2CacheSize, t, f, drv, rt);
	printf("experiment\tvariant\tregion_bytes\titems\tseconds\titems_per_second\titer\tparams\n");
	fflush(stdout);
	if (!strcmp(what, "sampling"))
		sampling_section();
	else if (!strcmp(what, "groupby"))
		groupby_section();
	else if (!strcmp(what, "oversub"))
		oversub_section();
	else if (!strcmp(what, "counters"))
		counters_section();
	else {
		fprintf(stderr, "usage: seeds_driver sampling|groupby|oversub|counters [key=value ...]\n");
		return 2;
	}
	CHECK(cudaDeviceSynchronize());
	printf("# done\n");
	return 0;
}
