/* stream-triad-simt: the STREAM triad written as a kernel body on the
 * SIMT executor. Same parameters, launch and checksum as the hand-written
 * generator stream-triad (kept as the executor's speed baseline; the two
 * must agree: tests/test_suite.c). */
#include <stdio.h>
#include <stdlib.h>

#include "workloads/suite/suite.h"
#include "workloads/suite/triad_kernels.h"
#include "workloads/workload_util.h"

#define TRIAD_SCALAR 3.0

struct triad_cfg {
	uint64_t elems, threads, block;
	struct suite_opts o;
};

static int triad_host(struct simt_host *h, void *user)
{
	const struct triad_cfg *c = user;
	uint64_t n = c->elems, bytes = n * sizeof(double);
	double *a = simt_malloc(h, "a", bytes, c->o.mem);
	double *b = simt_malloc(h, "b", bytes, c->o.mem);
	double *cc = simt_malloc(h, "c", bytes, c->o.mem);
	if (!a || !b || !cc)
		return -1;
	/* As stream-triad: values vary with i so a wrong index shows. */
	for (uint64_t i = 0; i < n; i++) {
		b[i] = (double)(i & 1023);
		cc[i] = (double)((i >> 10) & 1023);
	}
	if (simt_upload(h, b, bytes) || simt_upload(h, cc, bytes))
		return -1;
	struct triad_args args = {a, b, cc, TRIAD_SCALAR, n};
	if (SIMT_LAUNCH(h, triad_kernel, simt_dim3(suite_div_up(c->threads, c->block), 1, 1),
			simt_dim3((uint32_t)c->block, 1, 1), args))
		return -1;
	if (simt_download(h, a, bytes))
		return -1;
	double sum = 0;
	int ok = 1;
	for (uint64_t i = 0; i < n; i++) {
		sum += a[i];
		if (c->o.verify && a[i] != b[i] + TRIAD_SCALAR * cc[i])
			ok = 0;
	}
	char v[64] = "";
	if (c->o.verify)
		snprintf(v, sizeof v, " verify=%s", ok ? "pass" : "FAIL");
	simt_result(h, "checksum=%.17g elems=%llu%s", sum, (unsigned long long)n, v);
	simt_work_items(h, n);
	return 0;
}

static const struct gpuvm_param_def triad_params[] = {
	{"elems", GPUVM_PARAM_U64, "33554432", "elements per array (doubles); working set 24 B each"},
	{"threads", GPUVM_PARAM_U64, NULL, "threads (grid-stride); default fills every warp slot"},
	{"block", GPUVM_PARAM_U64, "256", "threads per block"},
	SUITE_COMMON_PARAMS,
};

static int triad_create(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			uint64_t seed, struct gpuvm_source *out, struct gpuvm_error *err)
{
	(void)seed;
	struct triad_cfg c = {.elems = 1ull << 25, .threads = fill_gpu_threads(cfg), .block = 256};
	if (gpuvm_params_u64(p, "elems", &c.elems, err) < 0 ||
	    gpuvm_params_u64(p, "threads", &c.threads, err) < 0 ||
	    gpuvm_params_u64(p, "block", &c.block, err) < 0 || suite_opts_parse(p, &c.o, err))
		return -1;
	if (workload_check_launch(c.threads, c.block, err))
		return -1;
	struct triad_cfg *u = malloc(sizeof *u);
	if (!u)
		return gpuvm_fail(err, "--workload", 0, NULL, "out of memory");
	*u = c;
	return simt_program_source("stream-triad-simt", triad_host, u, free, out, err);
}

static const struct gpuvm_param_range stream_triad_simt_ranges[] = {
	GPUVM_RANGE("elems", 1, 1ull << 38),
	GPUVM_RANGE("threads", 1, 4294967296.0),
	GPUVM_RANGE_STEP("block", 32, 1024, 32),
	SUITE_COMMON_RANGES,
};

const struct gpuvm_workload_def gpuvm_workload_stream_triad_simt = {
	.name = "stream-triad-simt",
	.summary = "STREAM triad a = b + q*c as a kernel body on the SIMT executor (real data)",
	.working_set = "24 B x elems",
	.params = triad_params,
	.n_params = sizeof triad_params / sizeof triad_params[0],
	GPUVM_WORKLOAD_RANGES(stream_triad_simt_ranges),
	.create = triad_create,
};
