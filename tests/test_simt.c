/* The SIMT executor and the suite kernels: every suite workload matches
 * its plain CPU reference on two presets (same digest on both), the
 * executor's triad agrees with the hand-written generator, divergent
 * lanes form separate instructions, and bad accesses are errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/engine.h"
#include "run_util.h"
#include "gpuvm/simt.h"

static char *result_of(const char *gpu, const char *workload)
{
	return run_result(gpu, workload, 11);
}

static const char *const small_specs[] = {
	"stream-triad-simt:elems=5000,threads=1024,verify=1",
	"2dconv:n=70,verify=1",
	"atax:n=90,verify=1",
	"fdtd-2d:n=50,steps=3,verify=1",
	"stencil:nx=34,ny=20,nz=9,iters=3,verify=1",
	"ra:elems=8192,threads=512,verify=1",
	"ra:kind=lookup,elems=65536,verify=1",
	"bfs:vertices=3000,degree=4,verify=1",
	"bfs:vertices=3000,degree=4,verify=1,mem=managed",
	"pathfinder:cols=1500,rows=45,pyramid=6,verify=1",
};

static void test_suite_matches_reference_on_two_presets(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof small_specs / sizeof small_specs[0]; i++) {
		char *a = result_of("p100", small_specs[i]);
		char *b = result_of("k80", small_specs[i]);
		if (!strstr(a, "verify=pass"))
			fail_msg("%s: %s", small_specs[i], a);
		assert_string_equal(a, b); /* same output whatever the timing */
		free(a);
		free(b);
	}
}

static void test_triad_simt_equals_generator(void **state)
{
	(void)state;
	char *g = result_of("v100", "stream-triad:elems=100003,threads=4096");
	char *s = result_of("v100", "stream-triad-simt:elems=100003,threads=4096");
	assert_string_equal(g, s);
	free(g);
	free(s);
}

/* ---- a hand-written kernel: divergence and reconvergence ------------- */

struct div_args {
	const float *a, *b;
	float *c;
	int n;
};

SIMT_KERNEL(div_kernel, struct div_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v;
	if (i % 2 == 0)
		v = LD(p.a, i);
	else
		v = LD(p.b, i) + 1;
	COMPUTE(3);
	ST(p.c, i, v);
}

struct bad_args {
	float *a;
	int n;
};

SIMT_KERNEL(bad_kernel, struct bad_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	ST(p.a, i + p.n, 1.0f); /* one past the end for the last thread */
}

SIMT_KERNEL(greedy_kernel, struct bad_args, p)
{
	SHARED(float, tile, 256); /* 1 KiB, but its launch declares 512 B */
	SST(tile, threadIdx.x, 1.0f);
	ST(p.a, threadIdx.x, SLD(tile, threadIdx.x));
}

static int n_elems = 256;

static int div_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 256 * 4, GPUVM_ALLOC_DEVICE);
	float *b = simt_malloc(h, "b", 256 * 4, GPUVM_ALLOC_DEVICE);
	float *c = simt_malloc(h, "c", 256 * 4, GPUVM_ALLOC_DEVICE);
	if (!a || !b || !c)
		return -1;
	for (int i = 0; i < 256; i++) {
		a[i] = (float)i;
		b[i] = (float)(10 * i);
	}
	struct div_args args = {a, b, c, n_elems};
	if (SIMT_LAUNCH(h, div_kernel, simt_dim3(2, 1, 1), simt_dim3(128, 1, 1), args))
		return -1;
	for (int i = 0; i < 256; i++)
		if (c[i] != (i % 2 ? 10.0f * (float)i + 1 : (float)i))
			return simt_fail(h, "c[%d] = %g", i, (double)c[i]);
	simt_result(h, "ok");
	return 0;
}

static int bad_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 64 * 4, GPUVM_ALLOC_DEVICE);
	if (!a)
		return -1;
	struct bad_args args = {a, 1};
	if (SIMT_LAUNCH(h, bad_kernel, simt_dim3(1, 1, 1), simt_dim3(64, 1, 1), args))
		return -1;
	return 0;
}

static int greedy_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 64 * 4, GPUVM_ALLOC_DEVICE);
	if (!a)
		return -1;
	struct bad_args args = {a, 0};
	return SIMT_LAUNCH_SHARED(h, greedy_kernel, simt_dim3(1, 1, 1), simt_dim3(64, 1, 1), 512, args);
}

static int simulate(simt_host_fn fn, struct gpuvm_stats *st, struct gpuvm_error *err)
{
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	if (gpuvm_config_load(cfg, "p100", err) || gpuvm_config_finalize(cfg, err))
		fail_msg("%s", err->msg);
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("test", fn, NULL, NULL, &src, err), 0);
	int rc = gpuvm_simulate(cfg, &src, NULL, st, err);
	src.ops->destroy(&src);
	free(cfg);
	return rc;
}

static void test_divergent_lanes_split_and_reconverge(void **state)
{
	(void)state;
	struct gpuvm_stats st;
	struct gpuvm_error err = {{0}};
	if (simulate(div_host, &st, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(st.result, "ok");
	/* 8 warps: the a-load (even lanes), the b-load (odd lanes), then one
	 * store with all 32 lanes back together. */
	assert_int_equal(st.mem_insts, 8 * 3);
	assert_int_equal(st.thread_accesses, 256 * 2);
	/* COMPUTE(3) once per warp before the store */
	assert_int_equal(st.warp_insts, 8 * 3 + 8 * 3);
	gpuvm_stats_release(&st);
}

static void test_access_outside_allocation_is_an_error(void **state)
{
	(void)state;
	struct gpuvm_stats st;
	struct gpuvm_error err = {{0}};
	assert_int_not_equal(simulate(bad_host, &st, &err), 0);
	assert_non_null(strstr(err.msg, "bad_kernel"));
	assert_non_null(strstr(err.msg, "outside every allocation"));
	gpuvm_stats_release(&st);
}

/* SHARED arrays beyond what the launch declares (the size the engine
 * placed the block by) are an error, not silently more memory. */
static void test_shared_beyond_declared_is_an_error(void **state)
{
	(void)state;
	struct gpuvm_stats st;
	struct gpuvm_error err = {{0}};
	assert_int_not_equal(simulate(greedy_host, &st, &err), 0);
	assert_non_null(strstr(err.msg, "greedy_kernel"));
	assert_non_null(strstr(err.msg, "more than its launch declares"));
	gpuvm_stats_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_matches_reference_on_two_presets),
		cmocka_unit_test(test_triad_simt_equals_generator),
		cmocka_unit_test(test_divergent_lanes_split_and_reconverge),
		cmocka_unit_test(test_access_outside_allocation_is_an_error),
		cmocka_unit_test(test_shared_beyond_declared_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
