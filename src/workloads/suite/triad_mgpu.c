/* triad-mgpu: the STREAM triad (stream-triad-simt's kernel body) split
 * data-parallel over GPUs: GPU g holds its contiguous share of a, b and c
 * in its own device memory, gets b and c uploaded, runs the triad on them
 * and sends a back. The launches of the GPUs overlap (the host launches
 * each and goes on); the copies are cudaMemcpy, synchronous, so the
 * uploads and downloads of the GPUs follow one another. The checksum and
 * verify are stream-triad-simt's for the same elems, whatever gpus=;
 * kernel_seconds is the simulated span of the launches alone (uploads
 * done to every GPU done), what the scaling experiment compares. */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/mgpu.h"
#include "workloads/suite/suite.h"
#include "workloads/suite/triad_kernels.h"
#include "workloads/workload_util.h"

#define TRIAD_SCALAR 3.0

struct triad_mgpu_cfg {
	uint64_t elems, threads, block, launches;
	uint32_t gpus;
	int verify;
};

struct part {
	double *a, *b, *c;
	uint64_t first, n;
};

static int triad_mgpu_host(struct simt_host *h, void *user)
{
	const struct triad_mgpu_cfg *c = user;
	struct part parts[GPUVM_RUN_MAX_DEVICES];
	for (uint32_t g = 0; g < c->gpus; g++) {
		struct part *pt = &parts[g];
		mgpu_split(c->elems, c->gpus, g, &pt->first, &pt->n);
		uint64_t bytes = pt->n * sizeof(double);
		char name[3][32];
		snprintf(name[0], sizeof name[0], "a%u", g);
		snprintf(name[1], sizeof name[1], "b%u", g);
		snprintf(name[2], sizeof name[2], "c%u", g);
		if (simt_set_device(h, g))
			return -1;
		pt->a = simt_malloc(h, name[0], bytes, GPUVM_ALLOC_DEVICE);
		pt->b = simt_malloc(h, name[1], bytes, GPUVM_ALLOC_DEVICE);
		pt->c = simt_malloc(h, name[2], bytes, GPUVM_ALLOC_DEVICE);
		if (!pt->a || !pt->b || !pt->c)
			return -1;
		/* stream-triad's values, by global index */
		for (uint64_t i = 0; i < pt->n; i++) {
			uint64_t gi = pt->first + i;
			pt->b[i] = (double)(gi & 1023);
			pt->c[i] = (double)((gi >> 10) & 1023);
		}
		if (simt_upload(h, pt->b, bytes) || simt_upload(h, pt->c, bytes))
			return -1;
	}
	/* the launches' span: from the end of the uploads to every GPU done */
	double t0 = simt_now_seconds(h);
	for (uint64_t r = 0; r < c->launches; r++)
		for (uint32_t g = 0; g < c->gpus; g++) {
			struct part *pt = &parts[g];
			if (!pt->n)
				continue;
			struct triad_args args = {pt->a, pt->b, pt->c, TRIAD_SCALAR, pt->n};
			if (simt_set_device(h, g) ||
			    SIMT_LAUNCH(h, triad_kernel,
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
		struct part *pt = &parts[g];
		if (simt_download(h, pt->a, pt->n * sizeof(double)))
			return -1;
		for (uint64_t i = 0; i < pt->n; i++) {
			sum += pt->a[i];
			if (c->verify && pt->a[i] != pt->b[i] + TRIAD_SCALAR * pt->c[i])
				ok = 0;
		}
	}
	char v[64] = "";
	if (c->verify)
		snprintf(v, sizeof v, " verify=%s", ok ? "pass" : "FAIL");
	simt_result(h, "checksum=%.17g elems=%llu gpus=%u kernel_seconds=%.6g%s", sum,
		    (unsigned long long)c->elems, c->gpus, kernel_seconds, v);
	simt_work_items(h, c->elems * c->launches);
	return 0;
}

static const struct gpuvm_param_def triad_mgpu_params[] = {
	{"elems", GPUVM_PARAM_U64, "33554432", "elements per array in all (doubles), split over the GPUs"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads per GPU (grid-stride); default fills every warp slot"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	{"launches", GPUVM_PARAM_U64, "1", "triad launches on every GPU after the upload (1-4096)"},
	{"verify", GPUVM_PARAM_U64, "0", "1: check a = b + q*c and report verify=pass or FAIL"},
	MGPU_GPUS_PARAM,
};

static int triad_mgpu_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			     uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct triad_mgpu_cfg c = {.elems = 1ull << 25, .threads = fill_gpu_threads(cfg),
				   .block = 256, .launches = 1};
	uint64_t verify = 0;
	if (gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c.threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 ||
	    gpuvm_params_u64(p, "launches", &c.launches, err) < 0 ||
	    gpuvm_params_u64(p, "verify", &verify, err) < 0 || mgpu_gpus(cfg, p, &c.gpus, err))
		return -1;
	if (workload_check_launch(c.threads, c.block, err))
		return -1;
	c.verify = (int)verify;
	struct triad_mgpu_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("triad-mgpu", triad_mgpu_host, u, free, out, err);
}

/* Two loads and a store per element and launch. */
static int triad_mgpu_estimate(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			       uint64_t *thread_accesses, struct gpuvm_error *err)
{
	(void)cfg;
	uint64_t elems = 1ull << 25, launches = 1;
	if (gpuvm_params_u64(p, "elems", &elems, err) < 0 ||
	    gpuvm_params_u64(p, "launches", &launches, err) < 0)
		return -1;
	*thread_accesses = workload_mul_sat(workload_mul_sat(elems, 3), launches);
	return 0;
}

static const struct gpuvm_param_range triad_mgpu_ranges[] = {
	GPUVM_RANGE("elems", 1, 1ull << 38),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	GPUVM_RANGE("launches", 1, 4096),
	GPUVM_RANGE("verify", 0, 1),
	MGPU_GPUS_RANGE,
};

const struct gpuvm_workload_def gpuvm_workload_triad_mgpu = {
	.name = "triad-mgpu",
	.summary = "STREAM triad split data-parallel over the GPUs of a system (device memory each)",
	.working_set = "24 B x elems, split",
	.params = triad_mgpu_params,
	.n_params = sizeof triad_mgpu_params / sizeof triad_mgpu_params[0],
	GPUVM_WORKLOAD_RANGES(triad_mgpu_ranges),
	.constraints = "gpus at most the system's",
	.create = triad_mgpu_create,
	.estimate = triad_mgpu_estimate,
};
