/* The SIMT executor and the suite kernels: every suite workload matches
 * its plain CPU reference on two presets (same digest on both), the
 * executor's triad agrees with the hand-written generator, divergent
 * lanes form separate instructions, and bad accesses are errors. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpuvm/engine.h"
#include "run_util.h"
#include "gpuvm/simt.h"
#include "simt/simt_internal.h" /* simt_buffer_peak_slots_take */

static char *result_of(const char *gpu, const char *workload)
{
	return run_result(gpu, workload, 11);
}

static const char *const small_specs[] = {
	"stream-triad-simt:elems=5000,threads=1024,verify=1",
	"2dconv:n=70,verify=1",
	"vectoradd:n=5000,block=96,verify=1",
	"atax:n=90,verify=1",
	"gemm:n=40,verify=1",
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

static void div_inputs(float *a, float *b)
{
	for (int i = 0; i < 256; i++) {
		a[i] = (float)i;
		b[i] = (float)(10 * i);
	}
}

/* Runs div_kernel over a and b into c and checks c; b is freed after the
 * launch when free_b. */
static int div_run(struct simt_host *h, float *a, float *b, float *c, int free_b)
{
	if (!a || !b || !c)
		return -1;
	struct div_args args = {a, b, c, n_elems};
	if (SIMT_LAUNCH(h, div_kernel, simt_dim3(2, 1, 1), simt_dim3(128, 1, 1), args) ||
	    (free_b && simt_free(h, b)))
		return -1;
	for (int i = 0; i < 256; i++)
		if (c[i] != (i % 2 ? 10.0f * (float)i + 1 : (float)i))
			return simt_fail(h, "c[%d] = %g", i, (double)c[i]);
	simt_result(h, "ok");
	return 0;
}

static int div_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 256 * 4, GPUVM_ALLOC_DEVICE);
	float *b = simt_malloc(h, "b", 256 * 4, GPUVM_ALLOC_DEVICE);
	float *c = simt_malloc(h, "c", 256 * 4, GPUVM_ALLOC_DEVICE);
	if (a && b)
		div_inputs(a, b);
	return div_run(h, a, b, c, 0);
}

/* div_host with a and b filled on the host first and then adopted
 * (simt_adopt): b is freed by the program, a with it. */
static int adopt_host(struct simt_host *h, void *user)
{
	(void)user;
	float *ha = malloc(256 * 4), *hb = malloc(256 * 4);
	if (!ha || !hb) {
		free(ha);
		free(hb);
		return simt_fail(h, "out of memory");
	}
	div_inputs(ha, hb);
	float *a = simt_adopt(h, "a", ha, 256 * 4, GPUVM_ALLOC_DEVICE);
	float *b = simt_adopt(h, "b", hb, 256 * 4, GPUVM_ALLOC_DEVICE);
	float *c = simt_malloc(h, "c", 256 * 4, GPUVM_ALLOC_DEVICE);
	return div_run(h, a, b, c, 1);
}

/* An adopted buffer whose malloc failed: the program fails, where a zeroed
 * buffer in its place would run on without the data. */
static int adopt_null_host(struct simt_host *h, void *user)
{
	(void)user;
	return simt_adopt(h, "lost", NULL, 64, GPUVM_ALLOC_DEVICE) ? 0 : -1;
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

/* ---- LD_INDEP: independent loads issue back to back ---------------- */

struct ilp_args {
	const float *a;
	float *out;
	int mode; /* 0: 8 x LD, 1: 8 x LD_INDEP, 2: 8 x LD_INDEP then a dependent LD */
};

/* One warp reads 8 lines far apart (each its own DRAM access): with LD
 * every load waits for the one before, with LD_INDEP they are in flight
 * together; the COMPUTE after them waits for all 8 either way, and a load
 * after it waits for the COMPUTE. */
SIMT_KERNEL(ilp_kernel, struct ilp_args, p)
{
	int i = threadIdx.x;
	float v = 0;
	for (int k = 0; k < 8; k++)
		v += p.mode ? LD_INDEP(p.a, k * 65536 + i) : LD(p.a, k * 65536 + i);
	COMPUTE(1);
	if (p.mode == 2)
		v += LD(p.a, 8 * 65536 + i);
	ST(p.out, i, v);
}

static int ilp_mode;

static int ilp_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 9 * 65536 * 4, GPUVM_ALLOC_DEVICE);
	float *out = simt_malloc(h, "out", 32 * 4, GPUVM_ALLOC_DEVICE);
	if (!a || !out)
		return -1;
	for (int i = 0; i < 9 * 65536; i++)
		a[i] = 1.0f;
	struct ilp_args args = {a, out, ilp_mode};
	if (SIMT_LAUNCH(h, ilp_kernel, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), args))
		return -1;
	for (int i = 0; i < 32; i++)
		if (out[i] != (ilp_mode == 2 ? 9.0f : 8.0f))
			return simt_fail(h, "out[%d] = %g", i, (double)out[i]);
	return 0;
}

static double ilp_cycles(int mode)
{
	struct gpuvm_stats st;
	struct gpuvm_error err;
	memset(&st, 0, sizeof st);
	ilp_mode = mode;
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	if (gpuvm_config_load(cfg, "p100", &err) || gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("ilp", ilp_host, NULL, NULL, &src, &err), 0);
	if (gpuvm_simulate(cfg, &src, NULL, &st, &err))
		fail_msg("%s", err.msg);
	src.ops->destroy(&src);
	double c = st.kernel_cycles - st.launch_cycles;
	gpuvm_stats_release(&st);
	free(cfg);
	return c;
}

static void test_ld_indep_overlaps_loads(void **state)
{
	(void)state;
	double chain = ilp_cycles(0), indep = ilp_cycles(1), after = ilp_cycles(2);
	printf("  8 loads: %.0f cycles as LD, %.0f as LD_INDEP, %.0f with a dependent load after\n",
	       chain, indep, after);
	/* a DRAM load is ~500 cycles on p100: 8 in a row cost ~8 of them */
	double one = (chain - indep) / 7;
	assert_true(one > 300 && one < 900);
	/* in flight together: about one latency, not none (the COMPUTE waits) */
	assert_true(indep > one && indep < 2.5 * one);
	/* the load after the COMPUTE waits for all 8: one more latency */
	assert_true(after - indep > 0.6 * one && after - indep < 1.6 * one);
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

/* An adopted buffer is the allocation simt_malloc would have made, with
 * the host's contents: the kernel reads them, and the run is the one
 * div_host's copy into fresh buffers gives. ASan checks that the program
 * frees each adopted buffer once. */
static void test_adopted_buffers_run_as_allocated(void **state)
{
	(void)state;
	struct gpuvm_stats copied, adopted;
	struct gpuvm_error err = {{0}};
	if (simulate(div_host, &copied, &err) || simulate(adopt_host, &adopted, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(adopted.result, "ok");
	assert_int_equal(adopted.mem_insts, copied.mem_insts);
	assert_int_equal(adopted.thread_accesses, copied.thread_accesses);
	assert_true(adopted.sim_cycles == copied.sim_cycles);
	gpuvm_stats_release(&copied);
	gpuvm_stats_release(&adopted);
	assert_int_not_equal(simulate(adopt_null_host, &adopted, &err), 0);
	assert_non_null(strstr(err.msg, "out of host memory for 'lost'"));
	gpuvm_stats_release(&adopted);
}

/* ---- the zipper's item stream, driven without the engine ------------- */

struct hub_args {
	float *a, *c;
	int loops;
};

/* All 32 lanes load (with a cache operator), lane 0 alone runs a loop of
 * `loops` dependent-FMA loads (several buffer refills, so the warp's
 * buffer changes layout between its lanes running together and apart),
 * then all store together. */
SIMT_KERNEL(hub_kernel, struct hub_args, p)
{
	int i = threadIdx.x;
	float v = LDCG(p.a, i);
	if (i == 0)
		for (int k = 0; k < p.loops; k++) {
			COMPUTE_CHAIN(2, GPUVM_CLASS_FMA);
			v += LD(p.a, k % 64);
		}
	COMPUTE(1);
	ST(p.c, i, v);
}

enum { HUB_LOOPS = 200, HUB_LAUNCHES = 2 };

static int hub_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 64 * 4, GPUVM_ALLOC_DEVICE);
	float *c = simt_malloc(h, "c", 32 * 4, GPUVM_ALLOC_DEVICE);
	if (!a || !c)
		return -1;
	struct hub_args args = {a, c, HUB_LOOPS};
	for (int i = 0; i < HUB_LAUNCHES; i++)
		if (SIMT_LAUNCH(h, hub_kernel, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), args))
			return -1;
	return 0;
}

static int next_item(struct gpuvm_kernel *k, void *w, struct gpuvm_warp_item *it)
{
	struct gpuvm_error err = {{0}};
	memset(it, 0, sizeof *it);
	gpuvm_item_reset_timing(it);
	if (k->ops->warp_next(k, w, it, &err))
		fail_msg("%s", err.msg);
	return it->kind;
}

/* Opens SIMT program `name` and reads its first n operations, its
 * allocations, into va (their bases). */
static void open_program(const char *name, simt_host_fn host, struct gpuvm_source *src,
			 uint64_t *va, int n)
{
	struct gpuvm_error err = {{0}};
	struct gpuvm_run_op op;
	assert_int_equal(simt_program_source(name, host, NULL, NULL, src, &err), 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(src->ops->next_op(src, &op, &err), 0);
		assert_int_equal(op.kind, GPUVM_RUN_ALLOC);
		va[i] = op.alloc.base;
	}
}

/* The program's next operation, which must be a kernel launch. */
static struct gpuvm_kernel *next_kernel(struct gpuvm_source *src)
{
	struct gpuvm_error err = {{0}};
	struct gpuvm_run_op op;
	assert_int_equal(src->ops->next_op(src, &op, &err), 0);
	assert_int_equal(op.kind, GPUVM_RUN_KERNEL);
	return op.kernel;
}

static void check_mem(const struct gpuvm_warp_item *it, uint32_t mask, enum gpuvm_mem_op op,
		      uint32_t cache_op, uint64_t base, uint64_t lane_stride)
{
	assert_int_equal(it->kind, GPUVM_ITEM_MEM);
	assert_int_equal(it->active_mask, mask);
	assert_int_equal(it->op, op);
	assert_int_equal(it->bytes_per_lane, 4);
	assert_int_equal(it->space, GPUVM_SPACE_GLOBAL);
	assert_int_equal(it->cache_op, cache_op);
	for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++)
		if (mask >> l & 1)
			assert_int_equal(it->addr[l], base + l * lane_stride);
}

static void test_zipper_items_of_a_lone_lane(void **state)
{
	(void)state;
	struct gpuvm_source src;
	struct gpuvm_error err = {{0}};
	struct gpuvm_run_op op;
	uint64_t va[2];
	open_program("hub", hub_host, &src, va, 2);
	for (int launch = 0; launch < HUB_LAUNCHES; launch++) {
		struct gpuvm_kernel *k = next_kernel(&src);
		void *w = calloc(1, k->ops->warp_state_bytes);
		assert_non_null(w);
		struct gpuvm_warp_item it;
		k->ops->warp_begin(k, w, 0, 0);
		next_item(k, w, &it);
		check_mem(&it, 0xffffffffu, GPUVM_OP_LOAD, GPUVM_CACHE_GLOBAL, va[0], 4);
		for (int j = 0; j < HUB_LOOPS; j++) {
			assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_COMPUTE);
			assert_int_equal(it.compute_insts, 2);
			assert_int_equal(it.chain_insts, 2);
			assert_int_equal(it.op_class, GPUVM_CLASS_FMA);
			next_item(k, w, &it);
			check_mem(&it, 1, GPUVM_OP_LOAD, GPUVM_CACHE_DEFAULT, va[0] + 4u * (j % 64), 0);
		}
		assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_COMPUTE);
		assert_int_equal(it.compute_insts, 1);
		assert_int_equal(it.chain_insts, 0); /* a plain COMPUTE: no chain */
		next_item(k, w, &it);
		check_mem(&it, 0xffffffffu, GPUVM_OP_STORE, GPUVM_CACHE_DEFAULT, va[1], 4);
		assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_END);
		free(w);
	}
	assert_int_equal(src.ops->next_op(&src, &op, &err), 0);
	assert_int_equal(op.kind, GPUVM_RUN_END);
	src.ops->destroy(&src);
}

/* ---- a store whose value reads memory -------------------------------- */

/* ST's and SST's value is evaluated before the store is recorded: the
 * loads it reads come first, as in compiled code (until 5d46d5e the
 * store was recorded before its own value's load). */
SIMT_KERNEL(copy_kernel, struct hub_args, p)
{
	SHARED(float, tile, 32);
	int i = threadIdx.x;
	ST(p.c, i, LD(p.a, i));
	SST(tile, i, LD(p.a, 32 + i));
	ST(p.c, i, 2.0f * SLD(tile, i));
}

static int copy_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 64 * 4, GPUVM_ALLOC_DEVICE);
	float *c = simt_malloc(h, "c", 32 * 4, GPUVM_ALLOC_DEVICE);
	if (!a || !c)
		return -1;
	for (int i = 0; i < 64; i++)
		a[i] = (float)i;
	struct hub_args args = {a, c, 0};
	if (SIMT_LAUNCH_SHARED(h, copy_kernel, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), 128, args))
		return -1;
	for (int i = 0; i < 32; i++)
		if (c[i] != 2.0f * (float)(32 + i))
			return -1;
	return 0;
}

static void test_store_after_its_value(void **state)
{
	(void)state;
	struct gpuvm_source src;
	struct gpuvm_error err = {{0}};
	struct gpuvm_run_op op;
	uint64_t va[2];
	open_program("copy", copy_host, &src, va, 2);
	struct gpuvm_kernel *k = next_kernel(&src);
	void *w = calloc(1, k->ops->warp_state_bytes);
	assert_non_null(w);
	struct gpuvm_warp_item it;
	k->ops->warp_begin(k, w, 0, 0);
	next_item(k, w, &it);
	check_mem(&it, 0xffffffffu, GPUVM_OP_LOAD, GPUVM_CACHE_DEFAULT, va[0], 4);
	next_item(k, w, &it);
	check_mem(&it, 0xffffffffu, GPUVM_OP_STORE, GPUVM_CACHE_DEFAULT, va[1], 4);
	next_item(k, w, &it);
	check_mem(&it, 0xffffffffu, GPUVM_OP_LOAD, GPUVM_CACHE_DEFAULT, va[0] + 128, 4);
	assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_MEM);
	assert_int_equal(it.space, GPUVM_SPACE_SHARED);
	assert_int_equal(it.op, GPUVM_OP_STORE);
	assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_MEM);
	assert_int_equal(it.space, GPUVM_SPACE_SHARED);
	assert_int_equal(it.op, GPUVM_OP_LOAD);
	next_item(k, w, &it);
	check_mem(&it, 0xffffffffu, GPUVM_OP_STORE, GPUVM_CACHE_DEFAULT, va[1], 4);
	assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_END);
	free(w);
	/* the host checks the values the kernel stored */
	assert_int_equal(src.ops->next_op(&src, &op, &err), 0);
	assert_int_equal(op.kind, GPUVM_RUN_END);
	src.ops->destroy(&src);
}

/* ---- lockstep: a converged warp's instructions, row by row ----------- */

struct step_args {
	int *a, *b, *c;
};

enum { STEP_LOOPS = 40, STEP_THREADS = 40 };

/* 40 threads: a full warp and one of 8 lanes. Converged loop of 80
 * accesses (more than one refill): a coalesced load (the slot's row),
 * then a permuted store (entries outside the row, same instruction);
 * lane 5's longer gap at k = 3 and two chains at k = 7 (lane 9's class
 * wins: the first of the longest). Then every 4th lane stores alone (the
 * lanes' sites differ: lockstep ends) and lanes 0..15 load (lanes 16..31
 * that do not store have ended and leave the warp). */
SIMT_KERNEL(step_kernel, struct step_args, p)
{
	int i = threadIdx.x;
	for (int k = 0; k < STEP_LOOPS; k++) {
		if (k == 7 && (i == 9 || i == 20))
			COMPUTE_CHAIN(3, i == 9 ? GPUVM_CLASS_FMA : GPUVM_CLASS_SFU);
		else
			COMPUTE(k == 3 && i == 5 ? 4 : 1);
		int v = LD(p.a, 32 * k + i);
		ST(p.b, 32 * k + (i * 7) % 32, v);
	}
	if (i % 4 == 0)
		ST(p.c, i, 1);
	if (i < 16)
		(void)LD(p.a, i);
}

static int step_host(struct simt_host *h, void *user)
{
	(void)user;
	int *a = simt_malloc(h, "a", 32 * (STEP_LOOPS + 1) * 4, GPUVM_ALLOC_DEVICE);
	int *b = simt_malloc(h, "b", 32 * (STEP_LOOPS + 1) * 4, GPUVM_ALLOC_DEVICE);
	int *c = simt_malloc(h, "c", STEP_THREADS * 4, GPUVM_ALLOC_DEVICE);
	if (!a || !b || !c)
		return -1;
	struct step_args args = {a, b, c};
	return SIMT_LAUNCH(h, step_kernel, simt_dim3(1, 1, 1), simt_dim3(STEP_THREADS, 1, 1), args);
}

/* The items of one warp (lanes first..first+n-1 of the block). */
static void check_step_warp(struct gpuvm_kernel *k, void *w, const uint64_t *va, uint32_t first,
			    uint32_t n)
{
	struct gpuvm_warp_item it;
	uint32_t all = n == 32 ? 0xffffffffu : (1u << n) - 1;
	for (uint32_t kk = 0; kk < STEP_LOOPS; kk++) {
		assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_COMPUTE);
		int chained = kk == 7 && first == 0;
		assert_int_equal(it.compute_insts, chained ? 3 : kk == 3 && first == 0 ? 4 : 1);
		assert_int_equal(it.chain_insts, chained ? 3 : 0);
		if (chained)
			assert_int_equal(it.op_class, GPUVM_CLASS_FMA);
		next_item(k, w, &it);
		check_mem(&it, all, GPUVM_OP_LOAD, GPUVM_CACHE_DEFAULT, va[0] + 4 * (32 * kk + first), 4);
		next_item(k, w, &it);
		assert_int_equal(it.kind, GPUVM_ITEM_MEM);
		assert_int_equal(it.active_mask, all);
		assert_int_equal(it.op, GPUVM_OP_STORE);
		for (uint32_t l = 0; l < n; l++)
			assert_int_equal(it.addr[l], va[1] + 4 * (32 * kk + ((first + l) * 7) % 32));
	}
	next_item(k, w, &it);
	check_mem(&it, 0x11111111u & all, GPUVM_OP_STORE, GPUVM_CACHE_DEFAULT, va[2] + 4 * first, 4);
	if (first == 0) {
		next_item(k, w, &it);
		check_mem(&it, 0xffffu, GPUVM_OP_LOAD, GPUVM_CACHE_DEFAULT, va[0], 4);
	}
	assert_int_equal(next_item(k, w, &it), GPUVM_ITEM_END);
}

static void test_lockstep_rows_and_divergence(void **state)
{
	(void)state;
	struct gpuvm_source src;
	struct gpuvm_error err = {{0}};
	struct gpuvm_run_op op;
	uint64_t va[3];
	open_program("step", step_host, &src, va, 3);
	struct gpuvm_kernel *k = next_kernel(&src);
	void *w0 = calloc(1, k->ops->warp_state_bytes), *w1 = calloc(1, k->ops->warp_state_bytes);
	assert_non_null(w0);
	assert_non_null(w1);
	k->ops->warp_begin(k, w0, 0, 0);
	k->ops->warp_begin(k, w1, 0, 1);
	/* warp 0 first: the body's first warp lays its buffer out slot-major
	 * (struct simt_wbuf), as lockstep needs; warp 1 follows its record */
	check_step_warp(k, w0, va, 0, 32);
	check_step_warp(k, w1, va, 32, STEP_THREADS - 32);
	free(w0);
	free(w1);
	assert_int_equal(src.ops->next_op(&src, &op, &err), 0);
	assert_int_equal(op.kind, GPUVM_RUN_END);
	src.ops->destroy(&src);
}

/* ---- the warp's final gap: kept as its lanes finish ------------------ */

struct tail_args {
	int *a, *c;
};

enum { TAIL_LOOPS = 100 };

/* Lanes end with different COMPUTE hints after their last access: lane 25
 * the most (9), lanes 3 and 20 equally long chains of different classes.
 * Lane 3 loops past the run-ahead (SIMT_RUNAHEAD), so it finishes after
 * lane 20: the final gap must still take the lowest lane's chain class,
 * as the zipper always has. */
SIMT_KERNEL(tail_kernel, struct tail_args, p)
{
	int i = threadIdx.x;
	int v = LD(p.a, i);
	if (i == 3)
		for (int k = 0; k < TAIL_LOOPS; k++)
			v += LD(p.a, k % 32);
	ST(p.c, i, v);
	if (i == 3)
		COMPUTE_CHAIN(5, GPUVM_CLASS_FMA);
	if (i == 20) {
		COMPUTE_CHAIN(5, GPUVM_CLASS_SFU);
		COMPUTE(2);
	}
	if (i == 25)
		COMPUTE(9);
}

static int tail_host(struct simt_host *h, void *user)
{
	(void)user;
	int *a = simt_malloc(h, "a", 32 * 4, GPUVM_ALLOC_DEVICE);
	int *c = simt_malloc(h, "c", 32 * 4, GPUVM_ALLOC_DEVICE);
	if (!a || !c)
		return -1;
	struct tail_args args = {a, c};
	return SIMT_LAUNCH(h, tail_kernel, simt_dim3(1, 1, 1), simt_dim3(32, 1, 1), args);
}

static void test_final_gap_of_lanes_finishing_out_of_order(void **state)
{
	(void)state;
	struct gpuvm_source src;
	struct gpuvm_error err = {{0}};
	assert_int_equal(simt_program_source("tail", tail_host, NULL, NULL, &src, &err), 0);
	struct gpuvm_run_op op;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(src.ops->next_op(&src, &op, &err), 0);
		assert_int_equal(op.kind, GPUVM_RUN_ALLOC);
	}
	assert_int_equal(src.ops->next_op(&src, &op, &err), 0);
	assert_int_equal(op.kind, GPUVM_RUN_KERNEL);
	struct gpuvm_kernel *k = op.kernel;
	void *w = calloc(1, k->ops->warp_state_bytes);
	assert_non_null(w);
	k->ops->warp_begin(k, w, 0, 0);
	struct gpuvm_warp_item it, last;
	uint32_t items = 0, stores = 0;
	memset(&last, 0, sizeof last);
	while (next_item(k, w, &it) != GPUVM_ITEM_END) {
		assert_true(++items < 1000);
		stores += it.kind == GPUVM_ITEM_MEM && it.op == GPUVM_OP_STORE;
		last = it;
	}
	assert_int_equal(stores, 1); /* (lanes reconverge at the store) */
	assert_int_equal(last.kind, GPUVM_ITEM_COMPUTE);
	assert_int_equal(last.compute_insts, 9);
	assert_int_equal(last.chain_insts, 5);
	assert_int_equal(last.op_class, GPUVM_CLASS_FMA);
	free(w);
	assert_int_equal(src.ops->next_op(&src, &op, &err), 0);
	assert_int_equal(op.kind, GPUVM_RUN_END);
	src.ops->destroy(&src);
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


/* ---- SIMT_NO_YIELD: an empty body runs without a coroutine ---------- */

struct none_args {
	int *a;
};

SIMT_KERNEL_ANY_ORDER(empty_any, struct none_args, p)
{
	(void)p;
	(void)threadIdx;
}

SIMT_KERNEL_NO_YIELD(empty_no_yield, struct none_args, p)
{
	(void)p;
	(void)threadIdx;
}

/* wrongly declared: a barrier suspends every thread at it */
SIMT_KERNEL_NO_YIELD(barrier_no_yield, struct none_args, p)
{
	(void)p;
	(void)threadIdx;
	SYNCTHREADS();
}

static int none_launch(struct simt_host *h, int which)
{
	int *a = simt_malloc(h, "a", 256 * 4, GPUVM_ALLOC_DEVICE);
	if (!a)
		return -1;
	struct none_args args = {a};
	if (which == 0)
		return SIMT_LAUNCH(h, empty_any, simt_dim3(64, 1, 1), simt_dim3(96, 1, 1), args);
	if (which == 1)
		return SIMT_LAUNCH(h, empty_no_yield, simt_dim3(64, 1, 1), simt_dim3(96, 1, 1), args);
	return SIMT_LAUNCH(h, barrier_no_yield, simt_dim3(1, 1, 1), simt_dim3(64, 1, 1), args);
}
static int none_any_host(struct simt_host *h, void *u) { (void)u; return none_launch(h, 0); }
static int none_ny_host(struct simt_host *h, void *u) { (void)u; return none_launch(h, 1); }
static int none_bad_host(struct simt_host *h, void *u) { (void)u; return none_launch(h, 2); }

/* The same empty kernel declared SIMT_NO_YIELD gives the run it gives
 * with coroutines, and a body so declared that suspends is not run on a
 * coroutine after all: the process aborts (the thread had none). */
static void test_no_yield_runs_without_coroutines(void **state)
{
	(void)state;
	struct gpuvm_stats a, b;
	struct gpuvm_error err = {{0}};
	assert_int_equal(simulate(none_any_host, &a, &err), 0);
	assert_int_equal(simulate(none_ny_host, &b, &err), 0);
	assert_true(a.sim_cycles > 0);
	assert_true(a.sim_cycles == b.sim_cycles);
	assert_int_equal(a.warp_insts, b.warp_insts);
	assert_int_equal(a.ctas, b.ctas);
	gpuvm_stats_release(&a);
	gpuvm_stats_release(&b);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *quiet = tmpfile(); /* the abort's message, not the test's output */
		if (quiet)
			dup2(fileno(quiet), 2);
		struct gpuvm_stats c;
		struct gpuvm_error e = {{0}};
		simulate(none_bad_host, &c, &e);
		_exit(0); /* ran on a coroutine: the path was not taken */
	}
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

/* ---- a barrier then a long loop: the buffers stay bounded ---------- */

#define LOOP_ITERS 20000

struct loop_args {
	const float *a;
	float *out;
};

SIMT_KERNEL_ANY_ORDER(barrier_loop_kernel, struct loop_args, p)
{
	SHARED(float, tile, 64);
	SHARED(float, sums, 64);
	SST(tile, threadIdx.x, (float)threadIdx.x);
	SYNCTHREADS();
	float s = 0;
	for (int k = 0; k < LOOP_ITERS; k++)
		s += LD(p.a, (k * 64 + (int)threadIdx.x) % 4096) + SLD(tile, (threadIdx.x + 1) % 64);
	SST(sums, threadIdx.x, s);
	SYNCTHREADS(); /* (past the eager run's cap: passed lazily) */
	ST(p.out, blockIdx.x * 64 + threadIdx.x, s + SLD(sums, (threadIdx.x + 1) % 64));
}

/* thread t's sum over the loop (exact: integers below 2^24) */
static float loop_sum(int t)
{
	return (float)LOOP_ITERS * (float)(1 + (t + 1) % 64);
}

static int barrier_loop_host(struct simt_host *h, void *user)
{
	(void)user;
	float *a = simt_malloc(h, "a", 4096 * 4, GPUVM_ALLOC_DEVICE);
	float *out = simt_malloc(h, "out", 128 * 4, GPUVM_ALLOC_DEVICE);
	if (!a || !out)
		return -1;
	for (int i = 0; i < 4096; i++)
		a[i] = 1.0f;
	struct loop_args args = {a, out};
	if (SIMT_LAUNCH_SHARED(h, barrier_loop_kernel, simt_dim3(2, 1, 1), simt_dim3(64, 1, 1),
			       2 * 64 * 4, args))
		return -1;
	for (int i = 0; i < 128; i++)
		if (out[i] != loop_sum(i % 64) + loop_sum((i % 64 + 1) % 64))
			return simt_fail(h, "out[%d] = %g", i, (double)out[i]);
	simt_result(h, "ok");
	return 0;
}

/* A CTA at its barrier runs ahead at once only up to SIMT_EAGER_SLOTS
 * accesses per lane, then lazily, as a barrier-free one does: its
 * buffers do not hold the 40,000 accesses per thread of the loop after
 * the barrier (they did when a CTA at a barrier ran to its end at once:
 * 64 Ki slots per lane). With 3 worker threads the same run, where a
 * worker pulls warp 0 past the second barrier before warp 1 came: warp 1
 * must run to it first, or lane 31 reads its neighbour's sum unwritten. */
static void test_barrier_then_loop_buffers_bounded(void **state)
{
	(void)state;
	uint64_t cycles[2];
	for (uint32_t threads = 1, r = 0; r < 2; threads = 3, r++) {
		struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
		struct gpuvm_stats st;
		struct gpuvm_error err = {{0}};
		assert_non_null(cfg);
		if (gpuvm_config_load(cfg, "p100", &err) || gpuvm_config_finalize(cfg, &err))
			fail_msg("%s", err.msg);
		struct gpuvm_source src;
		assert_int_equal(simt_program_source("test", barrier_loop_host, NULL, NULL, &src, &err), 0);
		src.exec_threads = threads;
		(void)simt_buffer_peak_slots_take();
		int rc = gpuvm_simulate(cfg, &src, NULL, &st, &err);
		uint32_t peak = simt_buffer_peak_slots_take();
		src.ops->destroy(&src);
		free(cfg);
		if (rc)
			fail_msg("%u threads: %s", threads, err.msg);
		/* (workers: the laggards run to the second barrier whole,
		 * one phase's accesses, docs/simt.md) */
		if (threads == 1 && peak > SIMT_EAGER_SLOTS)
			fail_msg("%u threads: %u slots per lane buffered, more than %u", threads, peak,
				 SIMT_EAGER_SLOTS);
		assert_non_null(strstr(st.result, "ok"));
		cycles[r] = (uint64_t)st.sim_cycles;
		gpuvm_stats_release(&st);
	}
	assert_true(cycles[0] == cycles[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_matches_reference_on_two_presets),
		cmocka_unit_test(test_triad_simt_equals_generator),
		cmocka_unit_test(test_barrier_then_loop_buffers_bounded),
		cmocka_unit_test(test_divergent_lanes_split_and_reconverge),
		cmocka_unit_test(test_ld_indep_overlaps_loads),
		cmocka_unit_test(test_zipper_items_of_a_lone_lane),
		cmocka_unit_test(test_store_after_its_value),
		cmocka_unit_test(test_lockstep_rows_and_divergence),
		cmocka_unit_test(test_final_gap_of_lanes_finishing_out_of_order),
		cmocka_unit_test(test_access_outside_allocation_is_an_error),
		cmocka_unit_test(test_adopted_buffers_run_as_allocated),
		cmocka_unit_test(test_shared_beyond_declared_is_an_error),
		cmocka_unit_test(test_no_yield_runs_without_coroutines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
