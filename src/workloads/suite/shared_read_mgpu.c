/* shared-read-mgpu: every GPU of a system reads one shared managed array
 * x (the host wrote it), one GPU after the other, each writing 2 x[i]
 * into an array of its own device memory: the unified-memory traffic
 * between GPUs that issue 78 asks to see. How x reaches each GPU is
 * mode=:
 *   fault     far faults: GPU 0 takes x from the host over its PCIe link,
 *             each next GPU from the one before over NVLink
 *             (uvm/uvm_shared.h);
 *   prefetch  cudaMemPrefetchAsync(x, g) before GPU g's kernel
 *             (simt_prefetch): the same moves, without far faults;
 *   read-mostly  cudaMemAdviseSetReadMostly(x) first (simt_mem_advise):
 *             each GPU faults in a copy of its own and keeps it, so a
 *             second round (rounds=2) reads without a migration.
 *   accessed-by  x prefetched to GPU 0, and cudaMemAdviseSetAccessedBy(x,
 *             g) for every other GPU: they read it in GPU 0's memory over
 *             NVLink, and nothing migrates (peer mappings); under
 *             access counters (uvm.migration = always) a GPU's own
 *             counters migrate the pages it reads to it past
 *             uvm.access_counter_threshold.
 *   preferred  cudaMemAdviseSetPreferredLocation(x, 0): GPU 0's faults
 *             bring x to it, every other GPU's first access of a page
 *             faults and maps it in GPU 0's memory over NVLink instead
 *             of migrating it (the page is moved to GPU 0 first if it is
 *             elsewhere), so x stays on GPU 0 and its second round
 *             (rounds=2) reads without a fault.
 *   peer      x is device memory of GPU 0 (cudaMalloc, uploaded there),
 *             not managed; every other GPU enables peer access to GPU 0
 *             (cudaDeviceEnablePeerAccess, simt_enable_peer_access) and
 *             reads x in place, each sector over NVLink / NVSwitch: no
 *             fault, no migration (src/system/peer_access.h). Refused
 *             where no NVLink joins the GPUs (nvlink=off).
 *   zero-copy x is host-pinned memory (cudaHostAlloc): every GPU reads it
 *             in place over its own PCIe link, no fault, no migration.
 *   system    x is system-allocated (malloc) memory, systems of GH200s:
 *             the host's write (its first touch) places it on cpu.0, and
 *             GPU 0 reads it there over its C2C link; another GPU's read
 *             of cpu.0's memory has no route the system files describe
 *             and stops the run naming it. With c2c.first_touch=gpu the
 *             program initialises x in GPU 0's kernel instead: its first
 *             touch places x in GPU 0's HBM and every other GPU reads it
 *             there over NVLink, no fault, no migration
 *             (docs/systems.md "System-allocated memory on several GPUs").
 * rounds= repeats the turn of the GPUs. The checksum (the sum of every
 * GPU's output) and verify are the same whatever mode=, gpus= and
 * rounds=; kernel_seconds is the simulated span from the first kernel's
 * launch to every GPU done. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/mgpu.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct shared_read_args {
	const float *x;
	float *out;
	unsigned long long n;
};

SIMT_KERNEL_ANY_ORDER(shared_read_kernel, struct shared_read_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(4);
		ST(p.out, i, 2.0f * LD(p.x, i));
	}
}

enum sr_mode { SR_FAULT, SR_PREFETCH, SR_READ_MOSTLY, SR_ACCESSED_BY, SR_PREFERRED, SR_PEER,
	       SR_ZERO_COPY, SR_SYSTEM };
#define SR_MODES "fault|prefetch|read-mostly|accessed-by|preferred|peer|zero-copy|system"

struct shared_read_cfg {
	uint64_t elems, threads, block, rounds;
	uint32_t gpus;
	enum sr_mode mode;
	int verify;
};

static int shared_read_host(struct simt_host *h, void *user)
{
	const struct shared_read_cfg *c = user;
	float *x = simt_malloc(h, "x", c->elems * sizeof(float),
			       c->mode == SR_PEER	  ? GPUVM_ALLOC_DEVICE
			       : c->mode == SR_ZERO_COPY ? GPUVM_ALLOC_HOST_PINNED
			       : c->mode == SR_SYSTEM	 ? GPUVM_ALLOC_SYSTEM
							 : GPUVM_ALLOC_MANAGED);
	float *out[GPUVM_RUN_MAX_DEVICES];
	if (!x)
		return -1;
	for (uint64_t i = 0; i < c->elems; i++)
		x[i] = (float)(i & 1023);
	/* system: the host's write of its own memory (c2c.first_touch = gpu:
	 * none, the run loop leaves x untouched for GPU 0's kernel) */
	if (c->mode == SR_SYSTEM && simt_upload(h, x, c->elems * sizeof(float)))
		return -1;
	/* peer: x lives in GPU 0's memory, the others map it there */
	if (c->mode == SR_PEER) {
		if (simt_upload(h, x, c->elems * sizeof(float)))
			return -1;
		for (uint32_t g = 1; g < c->gpus; g++)
			if (simt_set_device(h, g) || simt_enable_peer_access(h, 0))
				return -1;
	}
	for (uint32_t g = 0; g < c->gpus; g++) {
		char name[32];
		snprintf(name, sizeof name, "out%u", g);
		if (simt_set_device(h, g))
			return -1;
		out[g] = simt_malloc(h, name, c->elems * sizeof(float), GPUVM_ALLOC_DEVICE);
		if (!out[g])
			return -1;
	}
	if (c->mode == SR_READ_MOSTLY &&
	    simt_mem_advise(h, x, c->elems * sizeof(float), SIMT_ADVISE_READ_MOSTLY, 0))
		return -1;
	if (c->mode == SR_ACCESSED_BY) {
		if (simt_set_device(h, 0) || simt_prefetch(h, x, c->elems * sizeof(float), 0))
			return -1;
		for (uint32_t g = 1; g < c->gpus; g++)
			if (simt_mem_advise(h, x, c->elems * sizeof(float), SIMT_ADVISE_ACCESSED_BY,
					    (int)g))
				return -1;
	}
	if (c->mode == SR_PREFERRED &&
	    simt_mem_advise(h, x, c->elems * sizeof(float), SIMT_ADVISE_PREFERRED_LOCATION, 0))
		return -1;
	double t0 = simt_now_seconds(h);
	for (uint64_t turn = 0; turn < c->rounds * c->gpus; turn++) {
		uint32_t g = (uint32_t)(turn % c->gpus);
		struct shared_read_args args = {x, out[g], c->elems};
		if (simt_set_device(h, g))
			return -1;
		if (c->mode == SR_PREFETCH && simt_prefetch(h, x, c->elems * sizeof(float), (int)g))
			return -1;
		if (SIMT_LAUNCH(h, shared_read_kernel,
				simt_dim3(suite_div_up(c->threads, c->block), 1, 1),
				simt_dim3((uint32_t)c->block, 1, 1), args))
			return -1;
	}
	for (uint32_t g = 0; g < c->gpus; g++)
		if (simt_set_device(h, g) || simt_device_sync(h))
			return -1;
	double kernel_seconds = simt_now_seconds(h) - t0;
	double sum = 0;
	int ok = 1;
	for (uint32_t g = 0; g < c->gpus; g++) {
		if (simt_set_device(h, g) || simt_download(h, out[g], c->elems * sizeof(float)))
			return -1;
		for (uint64_t i = 0; i < c->elems; i++) {
			sum += out[g][i];
			if (c->verify && out[g][i] != 2.0f * x[i])
				ok = 0;
		}
	}
	char v[64] = "";
	if (c->verify)
		snprintf(v, sizeof v, " verify=%s", ok ? "pass" : "FAIL");
	simt_result(h, "checksum=%.17g elems=%llu gpus=%u kernel_seconds=%.6g%s", sum,
		    (unsigned long long)c->elems, c->gpus, kernel_seconds, v);
	simt_work_items(h, c->elems * c->gpus * c->rounds);
	return 0;
}

static const struct gpuvm_param_def shared_read_params[] = {
	{"elems", GPUVM_PARAM_U64, "4194304", "floats in the shared managed array x (every GPU reads all)"},
	{"mode", GPUVM_PARAM_CHOICE, SR_MODES,
	 "how x reaches each GPU: far faults, cudaMemPrefetchAsync before each kernel, far "
	 "faults of a read-mostly x (a copy per GPU), read in GPU 0's memory (accessed-by), "
	 "kept on GPU 0, its preferred location, and mapped there by the others after a fault "
	 "per page (preferred), x in GPU 0's device memory read by peer access (peer), or "
	 "host-pinned x read by every GPU over its own PCIe link (zero-copy), or "
	 "system-allocated x on GH200s, placed by the host on cpu.0 (the other GPUs' reads "
	 "have no described route and stop the run) or, with c2c.first_touch=gpu, by GPU 0's "
	 "first touch and read in place by the others over NVLink (system)"},
	{"rounds", GPUVM_PARAM_U64, "1", "turns of every GPU reading x (1-64)"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads per GPU (grid-stride); default fills every warp slot"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	{"verify", GPUVM_PARAM_U64, "0", "1: check every output is 2 x and report verify=pass or FAIL"},
	MGPU_GPUS_PARAM,
};

static int shared_read_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			      uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct shared_read_cfg c = {.elems = 1ull << 22, .threads = fill_gpu_threads(cfg), .block = 256,
				    .rounds = 1};
	uint64_t verify = 0;
	unsigned mode = 0;
	if (gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_choice(p, "mode", SR_MODES, &mode, err) < 0 ||
	    gpuvm_params_u64(p, "rounds", &c.rounds, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c.threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "verify", &verify, err) < 0 || mgpu_gpus(cfg, p, &c.gpus, err))
		return -1;
	if (workload_check_launch(c.threads, c.block, err))
		return -1;
	c.mode = (enum sr_mode)mode;
	c.verify = (int)verify;
	struct shared_read_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("shared-read-mgpu", shared_read_host, u, free, out, err);
}

/* A load and a store per element and GPU. */
static int shared_read_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
				uint64_t *thread_accesses, struct gpuvm_error *err)
{
	uint64_t elems = 1ull << 22, rounds = 1;
	uint32_t gpus = 1;
	if (gpuvm_params_u64(p, "elems", &elems, err) < 0 ||
	    gpuvm_params_u64(p, "rounds", &rounds, err) < 0 || mgpu_gpus(cfg, p, &gpus, err))
		return -1;
	*thread_accesses = workload_mul_sat(workload_mul_sat(elems, 2), workload_mul_sat(gpus, rounds));
	return 0;
}

static const struct gpuvm_param_range shared_read_ranges[] = {
	GPUVM_RANGE("elems", 1, 1ull << 34),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	GPUVM_RANGE("verify", 0, 1),
	GPUVM_RANGE("rounds", 1, 64),
	MGPU_GPUS_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_shared_read_mgpu = {
	.name = "shared-read-mgpu",
	.summary = "every GPU of a system reads one shared array in turn (fault, prefetch, read-mostly, accessed-by, preferred; peer: GPU 0's device memory by peer access; zero-copy: host-pinned)",
	.working_set = "4 B x elems managed, shared (peer: device memory of GPU 0); 4 B x elems device per GPU",
	.params = shared_read_params,
	.n_params = sizeof shared_read_params / sizeof shared_read_params[0],
	GPUVM_WORKLOAD_RANGES(shared_read_ranges),
	.constraints = "gpus at most the system's",
	.create = shared_read_create,
	.estimate = shared_read_estimate,
};
