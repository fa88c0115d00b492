/* Asynchronous copies (src/link/copy_stream.h): the copy engine's
 * arithmetic, and a pipelined host program on the engine -- a kernel never
 * starts before the copy of its input has ended, and overlapping copies
 * with kernels takes no longer than running them in series and no less
 * than the longer of the two. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "link/copy_stream.h"
#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/simt.h"

/* ---- the copy engine alone ------------------------------------------ */

static void test_copies_run_in_order_and_record_events(void **state)
{
	(void)state;
	struct copy_stream cs;
	copy_stream_init(&cs, 10);
	assert_int_equal(copy_stream_issue(&cs, 0, 0, 1000, 1), 0);
	assert_int_equal(copy_stream_issue(&cs, 0, 100, 500, 2), 0);
	/* the second waits for the first: 1010 + 500 + 10 */
	assert_true(copy_stream_event_end(&cs, 2) == 1520);
	assert_true(copy_stream_event_end(&cs, 1) == 1010);
	/* issued after the lane is free: starts at its issue */
	assert_int_equal(copy_stream_issue(&cs, 0, 5000, 100, 1), 0);
	assert_true(copy_stream_event_end(&cs, 1) == 5110);
	/* the other direction is another engine */
	assert_int_equal(copy_stream_issue(&cs, 1, 0, 100, 3), 0);
	assert_true(copy_stream_drain(&cs, 1) == 110);
	copy_stream_free(&cs);
}

static void test_a_copy_gets_what_kernels_leave_of_the_lane(void **state)
{
	(void)state;
	struct copy_stream cs;
	copy_stream_init(&cs, 0);
	assert_int_equal(copy_stream_issue(&cs, 0, 0, 1000, 1), 0);
	/* a kernel over [200, 1200) whose own packets took half the lane */
	assert_int_equal(copy_stream_span(&cs, 200, 1200, 500, 900), 0);
	/* 200 alone, then 500 at half rate over the kernel's 1000, then the
	 * last 300 alone: 1500 */
	double end = copy_stream_event_end(&cs, 1);
	printf("  copy of 1000 beside a kernel using half the lane: ends at %.0f\n", end);
	assert_true(end == 1500);
	/* a kernel that saturates the lane stops the copy for its span */
	assert_int_equal(copy_stream_issue(&cs, 0, 2000, 100, 2), 0);
	assert_int_equal(copy_stream_span(&cs, 2000, 3000, 1000, 0), 0);
	assert_true(copy_stream_event_end(&cs, 2) == 3100);
	copy_stream_free(&cs);
}

/* ---- a pipelined program on the engine ------------------------------ */

enum { CH_CHUNKS = 8, CH_WORDS = 1 << 18, CH_BLOCKS = 64, CH_THREADS = 256 }; /* 1 MiB chunks */

struct ch_args {
	const unsigned int *in;
	unsigned int *out;
};

/* reads its chunk (16 words a thread, coalesced) and does some work */
SIMT_KERNEL(ch_kernel, struct ch_args, p)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
	unsigned int s = 0;
	for (unsigned int k = 0; k < CH_WORDS / (CH_BLOCKS * CH_THREADS); k++) {
		s += LD(p.in, k * n + t);
		COMPUTE(240);
	}
	ST(p.out, t, s);
}

struct ch_ctx {
	unsigned int buffers;   /* 1: synchronous copies; else rotating buffers */
	double copy_end_s[CH_CHUNKS];
	unsigned int sum_ok;
};

static int ch_host(struct simt_host *h, void *user)
{
	struct ch_ctx *c = user;
	unsigned int nb = c->buffers;
	unsigned int *buf[4], *out = simt_malloc(h, "out", CH_BLOCKS * CH_THREADS * 4ull, GPUVM_ALLOC_DEVICE);
	for (unsigned int b = 0; b < nb; b++)
		if (!(buf[b] = simt_malloc(h, "in", CH_WORDS * 4ull, GPUVM_ALLOC_DEVICE)))
			return -1;
	if (!out)
		return -1;
	c->sum_ok = 1;
	for (unsigned int k = 0; k < CH_CHUNKS + nb; k++) {
		if (k >= nb || nb == 1) {
			unsigned int j = nb == 1 ? k : k - nb;
			if (j >= CH_CHUNKS)
				break;
			if (nb == 1) {
				for (unsigned int i = 0; i < CH_WORDS; i++)
					buf[0][i] = j;
				if (simt_upload(h, buf[0], CH_WORDS * 4ull))
					return -1;
			} else if (simt_wait_event(h, j % nb + 1)) {
				return -1;
			}
			struct ch_args a = {buf[j % nb], out};
			if (SIMT_LAUNCH(h, ch_kernel, simt_dim3(CH_BLOCKS, 1, 1), simt_dim3(CH_THREADS, 1, 1), a))
				return -1;
			if (nb > 1)
				c->copy_end_s[j] = simt_event_seconds(h, j % nb + 1);
			/* the kernel read chunk j's data, not a later chunk's */
			if (out[0] != 16 * j)
				c->sum_ok = 0;
			if (nb == 1)
				continue;
		}
		if (k < CH_CHUNKS) {
			/* buffer k % nb is free: its last chunk's kernel ran */
			for (unsigned int i = 0; i < CH_WORDS; i++)
				buf[k % nb][i] = k;
			if (simt_upload_async(h, buf[k % nb], CH_WORDS * 4ull, k % nb + 1))
				return -1;
		}
	}
	simt_result(h, "ok");
	return 0;
}

static void ch_run(struct ch_ctx *c, struct gpuvm_stats *st)
{
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	struct gpuvm_error err = {{0}};
	assert_non_null(cfg);
	if (gpuvm_config_load(cfg, "p100", &err) || gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("pipe", ch_host, c, NULL, &src, &err), 0);
	src.exec_threads = 1;
	if (gpuvm_simulate(cfg, &src, NULL, st, &err))
		fail_msg("%s", err.msg);
	src.ops->destroy(&src);
	/* kernel start times in seconds, in copy_end_s's unit */
	for (size_t i = 0; i < st->n_kernel_list; i++)
		st->kernel_list[i].start_cycle /= cfg->clock_mhz * 1e6;
	free(cfg);
}

static void test_pipeline_waits_for_each_chunk_and_overlaps(void **state)
{
	(void)state;
	struct ch_ctx ser = {.buffers = 1}, pipe = {.buffers = 3};
	struct gpuvm_stats s1, s3;
	ch_run(&ser, &s1);
	ch_run(&pipe, &s3);
	assert_int_equal(ser.sum_ok, 1);
	assert_int_equal(pipe.sum_ok, 1);
	assert_int_equal((int)s3.n_kernel_list, CH_CHUNKS);
	assert_int_equal((int)s3.async_copies, CH_CHUNKS);
	for (unsigned int j = 0; j < CH_CHUNKS; j++) {
		/* never computes on a chunk before its transfer has ended */
		assert_true(pipe.copy_end_s[j] > 0);
		assert_true(s3.kernel_list[j].start_cycle >= pipe.copy_end_s[j]);
	}
	double clock = s3.sim_cycles / s3.sim_seconds;
	double copies = s3.async_copy_cycles / clock, kernels = s3.kernel_cycles / clock;
	printf("  8 x 1 MiB: serial %.1f us, pipelined %.1f us (copies %.1f us, kernels %.1f us, "
	       "waited %.1f us)\n", s1.sim_seconds * 1e6, s3.sim_seconds * 1e6, copies * 1e6,
	       kernels * 1e6, s3.async_wait_cycles / clock * 1e6);
	/* overlapped: no longer than in series, no shorter than either part */
	assert_true(s3.sim_seconds <= s1.sim_seconds);
	assert_true(s3.sim_seconds >= (copies > kernels ? copies : kernels));
	/* and it does overlap: the serial run pays both in full */
	assert_true(s3.sim_seconds < 0.9 * s1.sim_seconds);
	assert_true(s1.sim_seconds >= 0.99 * (copies + kernels));
	gpuvm_stats_release(&s1);
	gpuvm_stats_release(&s3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies_run_in_order_and_record_events),
		cmocka_unit_test(test_a_copy_gets_what_kernels_leave_of_the_lane),
		cmocka_unit_test(test_pipeline_waits_for_each_chunk_and_overlaps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
