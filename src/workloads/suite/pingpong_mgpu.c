/* pingpong-mgpu: the GPUs of a system take turns adding 1 to every
 * element of one shared managed array x (a read and a write of each
 * element per turn), one kernel per turn, GPU 0, 1, ..., 0, 1, ...: the
 * pages migrate back and forth between the GPUs, the case the driver's
 * thrashing detection is for (nvidia-uvm uvm_perf_thrashing.c). With
 * uvm.thrashing = on the detection pins each thrashing page where it is
 * and the other GPUs write it there over NVLink (uvm/thrashing_shared.h);
 * off, every turn migrates every page.
 * x starts as i mod 1024; after rounds turns of each of gpus GPUs every
 * x[i] is i mod 1024 + rounds x gpus, which verify=1 checks (exact in
 * float: the values stay below 2^24). The checksum (the sum of x) is the
 * same whatever the thrashing detection does; kernel_seconds is the
 * simulated span of the turns. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/mgpu.h"
#include "workloads/suite/suite.h"
#include "workloads/workload_util.h"

struct pingpong_args {
	float *x;
	unsigned long long n;
};

SIMT_KERNEL_ANY_ORDER(pingpong_kernel, struct pingpong_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(2);
		ST(p.x, i, LD(p.x, i) + 1.0f);
	}
}

struct pingpong_cfg {
	uint64_t elems, threads, block, rounds;
	uint32_t gpus;
	int verify;
};

static int pingpong_host(struct simt_host *h, void *user)
{
	const struct pingpong_cfg *c = user;
	float *x = simt_malloc(h, "x", c->elems * sizeof(float), GPUVM_ALLOC_MANAGED);
	if (!x)
		return -1;
	for (uint64_t i = 0; i < c->elems; i++)
		x[i] = (float)(i & 1023);
	double t0 = simt_now_seconds(h);
	for (uint64_t turn = 0; turn < c->rounds * c->gpus; turn++) {
		struct pingpong_args args = {x, c->elems};
		if (simt_set_device(h, (uint32_t)(turn % c->gpus)) ||
		    SIMT_LAUNCH(h, pingpong_kernel, simt_dim3(suite_div_up(c->threads, c->block), 1, 1),
				simt_dim3((uint32_t)c->block, 1, 1), args))
			return -1;
	}
	for (uint32_t g = 0; g < c->gpus; g++)
		if (simt_set_device(h, g) || simt_device_sync(h))
			return -1;
	double kernel_seconds = simt_now_seconds(h) - t0;
	double sum = 0;
	int ok = 1;
	float add = (float)(c->rounds * c->gpus);
	for (uint64_t i = 0; i < c->elems; i++) {
		sum += x[i];
		if (c->verify && x[i] != (float)(i & 1023) + add)
			ok = 0;
	}
	char v[64] = "";
	if (c->verify)
		snprintf(v, sizeof v, " verify=%s", ok ? "pass" : "FAIL");
	simt_result(h, "checksum=%.17g elems=%llu gpus=%u rounds=%llu kernel_seconds=%.6g%s", sum,
		    (unsigned long long)c->elems, c->gpus, (unsigned long long)c->rounds,
		    kernel_seconds, v);
	simt_work_items(h, c->elems * c->gpus * c->rounds);
	return 0;
}

static const struct gpuvm_param_def pingpong_params[] = {
	{"elems", GPUVM_PARAM_U64, "262144", "floats in the shared managed array x"},
	{"rounds", GPUVM_PARAM_U64, "8", "turns of every GPU adding 1 to x (1-1024)"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads per GPU (grid-stride); default fills every warp slot"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	{"verify", GPUVM_PARAM_U64, "0", "1: check every x[i] and report verify=pass or FAIL"},
	MGPU_GPUS_PARAM,
};

static int pingpong_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			   uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct pingpong_cfg c = {.elems = 262144, .threads = fill_gpu_threads(cfg), .block = 256,
				 .rounds = 8};
	uint64_t verify = 0;
	if (gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_u64(p, "rounds", &c.rounds, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c.threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "verify", &verify, err) < 0 || mgpu_gpus(cfg, p, &c.gpus, err))
		return -1;
	if (workload_check_launch(c.threads, c.block, err))
		return -1;
	c.verify = (int)verify;
	struct pingpong_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("pingpong-mgpu", pingpong_host, u, free, out, err);
}

/* A load and a store per element, GPU and round. */
static int pingpong_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			     uint64_t *thread_accesses, struct gpuvm_error *err)
{
	uint64_t elems = 262144, rounds = 8;
	uint32_t gpus = 1;
	if (gpuvm_params_u64(p, "elems", &elems, err) < 0 ||
	    gpuvm_params_u64(p, "rounds", &rounds, err) < 0 || mgpu_gpus(cfg, p, &gpus, err))
		return -1;
	*thread_accesses = workload_mul_sat(workload_mul_sat(elems, 2), workload_mul_sat(gpus, rounds));
	return 0;
}

static const struct gpuvm_param_range pingpong_ranges[] = {
	/* the values stay exact in float below 2^24 */
	GPUVM_RANGE("elems", 1, 1ull << 34),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	GPUVM_RANGE("verify", 0, 1),
	GPUVM_RANGE("rounds", 1, 1024),
	MGPU_GPUS_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_pingpong_mgpu = {
	.name = "pingpong-mgpu",
	.summary = "the GPUs of a system take turns writing one shared managed array (thrashing across GPUs)",
	.working_set = "4 B x elems managed, shared",
	.params = pingpong_params,
	.n_params = sizeof pingpong_params / sizeof pingpong_params[0],
	GPUVM_WORKLOAD_RANGES(pingpong_ranges),
	.constraints = "gpus at most the system's",
	.create = pingpong_create,
	.estimate = pingpong_estimate,
};
