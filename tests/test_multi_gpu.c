/* The multi-GPU engine (src/system/multi_gpu.c) on small host programs of
 * its own: the order of peer copies (a copy forwarding what another
 * brought waits for it), a kernel waits for the copy into its memory,
 * kernels of two GPUs overlap, and a program that uses a GPU the system
 * lacks, or a kernel that reads another GPU's memory without peer access
 * (tests/test_multi_gpu_peer.c has it with), is refused. tests/cli/sim_system.sh covers the CLI and the
 * workloads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/simt.h"
#include "gpuvm/sysdesc.h"
#include "system_run.h"

/* two h100 joined by 2 x 100 GB/s NVLink per direction */
static const char two_gpus[] = "[system]\nname = two\ndescription = test\nsource = test\n"
			       "[gpu.0]\npreset = h100\n[gpu.1]\npreset = h100\n"
			       "[cpu.0]\nmemory_bytes = 1TiB\nbandwidth_gb_s = 300\n"
			       "[link.0]\nkind = pcie\nendpoints = gpu.0 cpu.0\nbandwidth_gb_s = 64\n"
			       "[link.1]\nkind = pcie\nendpoints = gpu.1 cpu.0\nbandwidth_gb_s = 64\n"
			       "[link.2]\nkind = nvlink\nendpoints = gpu.0 gpu.1\n"
			       "bandwidth_gb_s = 100\ncount = 2\n";

#define COPY_BYTES (32ull << 20)

struct touch_args {
	float *a;
	unsigned n;
};

SIMT_KERNEL_ANY_ORDER(touch_kernel, struct touch_args, p)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n)
		ST(p.a, i, LD(p.a, i) + 1.0f);
}

enum prog { ONE_COPY, FORWARD, COPY_THEN_KERNEL, TWO_KERNELS, ONE_KERNEL, BAD_DEVICE, PEER_ACCESS };

static int launch_touch(struct simt_host *h, float *a, unsigned n)
{
	struct touch_args args = {a, n};
	return SIMT_LAUNCH(h, touch_kernel, simt_dim3((n + 255) / 256, 1, 1), simt_dim3(256, 1, 1),
			   args);
}

static int program(struct simt_host *h, void *user)
{
	enum prog k = *(enum prog *)user;
	if (k == BAD_DEVICE)
		return simt_set_device(h, 2) || !simt_malloc(h, "x", 64, GPUVM_ALLOC_DEVICE) ? -1 : 0;
	float *a0 = simt_malloc(h, "a0", COPY_BYTES, GPUVM_ALLOC_DEVICE);
	float *c0 = simt_malloc(h, "c0", COPY_BYTES, GPUVM_ALLOC_DEVICE);
	if (!a0 || !c0 || simt_set_device(h, 1))
		return -1;
	float *b1 = simt_malloc(h, "b1", COPY_BYTES, GPUVM_ALLOC_DEVICE);
	if (!b1)
		return -1;
	unsigned n = 1u << 20;
	switch (k) {
	case ONE_COPY:
		return simt_memcpy_peer_async(h, b1, a0, COPY_BYTES);
	case FORWARD: /* b1 <- a0, then c0 <- b1: the second waits for the first */
		return simt_memcpy_peer_async(h, b1, a0, COPY_BYTES) ||
		       simt_memcpy_peer_async(h, c0, b1, COPY_BYTES);
	case COPY_THEN_KERNEL:
		return simt_memcpy_peer_async(h, b1, a0, COPY_BYTES) || launch_touch(h, b1, n);
	case TWO_KERNELS:
		return launch_touch(h, b1, n) || simt_set_device(h, 0) || launch_touch(h, a0, n);
	case ONE_KERNEL:
		return launch_touch(h, b1, n);
	case PEER_ACCESS: /* a kernel on GPU 1 touching GPU 0's memory */
		return launch_touch(h, a0, n);
	default:
		return -1;
	}
}

struct run {
	struct gpuvm_sysdesc desc;
	struct gpuvm_config cfg[2];
	struct gpuvm_stats stats[2];
	struct gpuvm_system_stats out;
};

static int run_prog(struct run *r, enum prog k, struct gpuvm_error *err)
{
	memset(r, 0, sizeof *r);
	static enum prog which;
	which = k;
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("multi", program, &which, NULL, &src, err), 0);
	return system_run(&r->desc, r->cfg, r->stats, &r->out, 2, two_gpus, "two.ini", NULL, &src,
			  err);
}

static void release(struct run *r)
{
	gpuvm_stats_release(&r->stats[0]);
	gpuvm_stats_release(&r->stats[1]);
}

static void test_forwarded_copy_waits(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *one = malloc(sizeof *one), *fwd = malloc(sizeof *fwd);
	assert_non_null(one);
	assert_non_null(fwd);
	assert_int_equal(run_prog(one, ONE_COPY, &err), 0);
	assert_int_equal(run_prog(fwd, FORWARD, &err), 0);
	/* 32 MiB at 200 GB/s: 168 us, plus 9.62 us each; the forward on the
	 * other direction's lane would otherwise end with the first */
	double t1 = one->out.sim_seconds, t2 = fwd->out.sim_seconds;
	if (!(t2 > 1.9 * t1 && t2 < 2.1 * t1))
		fail_msg("a copy forwarding another's data: %g s, one copy %g s", t2, t1);
	assert_true(fwd->out.peer_nvlink_bytes == 2 * COPY_BYTES);
	release(one);
	release(fwd);
	free(one);
	free(fwd);
}

static void test_kernel_waits_for_its_copy(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *r = malloc(sizeof *r);
	assert_non_null(r);
	assert_int_equal(run_prog(r, COPY_THEN_KERNEL, &err), 0);
	assert_int_equal(r->stats[1].n_kernel_list, 1);
	double start_s = r->stats[1].kernel_list[0].start_cycle / (r->cfg[1].clock_mhz * 1e6);
	double copy_s = (double)COPY_BYTES / 200e9;
	if (!(start_s > copy_s))
		fail_msg("the kernel starts at %g s, before its data is in (%g s)", start_s, copy_s);
	release(r);
	free(r);
}

static void test_kernels_of_two_gpus_overlap(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *one = malloc(sizeof *one), *two = malloc(sizeof *two);
	assert_non_null(one);
	assert_non_null(two);
	assert_int_equal(run_prog(one, ONE_KERNEL, &err), 0);
	assert_int_equal(run_prog(two, TWO_KERNELS, &err), 0);
	double t1 = one->out.sim_seconds, t2 = two->out.sim_seconds;
	if (!(t2 < 1.15 * t1))
		fail_msg("two GPUs' kernels take %g s, one %g s: not overlapped", t2, t1);
	release(one);
	release(two);
	free(one);
	free(two);
}

static void test_missing_gpu_refused(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *r = malloc(sizeof *r);
	assert_non_null(r);
	assert_int_not_equal(run_prog(r, BAD_DEVICE, &err), 0);
	if (!strstr(err.msg, "uses GPU 2 and the system has 2"))
		fail_msg("message: %s", err.msg);
	release(r);
	free(r);
}

static void test_peer_access_refused(void **state)
{
	(void)state;
	struct gpuvm_error err = {{0}};
	struct run *r = malloc(sizeof *r);
	assert_non_null(r);
	assert_int_not_equal(run_prog(r, PEER_ACCESS, &err), 0);
	if (!strstr(err.msg, "'a0' is device memory of GPU 0 and the kernel runs on GPU 1 "
			     "without peer access"))
		fail_msg("message: %s", err.msg);
	release(r);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forwarded_copy_waits),
		cmocka_unit_test(test_kernel_waits_for_its_copy),
		cmocka_unit_test(test_kernels_of_two_gpus_overlap),
		cmocka_unit_test(test_missing_gpu_refused),
		cmocka_unit_test(test_peer_access_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
