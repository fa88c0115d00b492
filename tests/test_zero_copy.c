/* Zero-copy (host-pinned) accesses as PCIe transaction-layer packets
 * (src/link/pcie_tlp.h): one TLP per line a warp instruction touches,
 * each paying its header and framing, so scattered 32 B accesses cost
 * more link time per byte than coalesced lines (seeds/001 6.6.4: "many
 * small PCIe transactions ... much costlier than a few bulky" ones). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/engine.h"
#include "gpuvm/simt.h"
#include "run_util.h"

enum { ZC_BLOCKS = 64, ZC_THREADS = 256, ZC_PER_THREAD = 32 };
#define ZC_WORDS (1u << 21) /* 8 MiB of host-pinned memory */

struct zc_args {
	unsigned int *buf;
	unsigned int *out;
	unsigned int stride_words; /* 1: a warp reads one line; 32: 32 lines */
	int store; /* 1: stores, 2: atomic adds, else loads */
};

SIMT_KERNEL(zc_kernel, struct zc_args, p)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
	unsigned int s = 0;
	for (unsigned int k = 0; k < ZC_PER_THREAD; k++) {
		unsigned int w = ((k * n + t) * p.stride_words) & (ZC_WORDS - 1);
		if (p.store == 2)
			ATOMIC_ADD(p.buf, w, 1u);
		else if (p.store)
			ST(p.buf, w, t);
		else
			s += LD(p.buf, w);
	}
	if (!p.store)
		ST(p.out, t, s);
}

static struct zc_args zc_mode;

static int zc_host(struct simt_host *h, void *user)
{
	(void)user;
	unsigned int *buf = simt_malloc(h, "pinned", ZC_WORDS * 4ull, GPUVM_ALLOC_HOST_PINNED);
	unsigned int *out = simt_malloc(h, "out", ZC_BLOCKS * ZC_THREADS * 4ull, GPUVM_ALLOC_DEVICE);
	if (!buf || !out)
		return -1;
	struct zc_args a = zc_mode;
	a.buf = buf;
	a.out = out;
	if (SIMT_LAUNCH(h, zc_kernel, simt_dim3(ZC_BLOCKS, 1, 1), simt_dim3(ZC_THREADS, 1, 1), a))
		return -1;
	simt_result(h, "ok");
	return 0;
}

struct zc_run {
	double kernel_s, bytes, tlps, up_bytes, down_bytes;
};

static struct zc_run zc_simulate(unsigned int stride_words, int store)
{
	zc_mode.stride_words = stride_words;
	zc_mode.store = store;
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	struct gpuvm_error err = {{0}};
	if (gpuvm_config_load(cfg, "p100", &err) || gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("zc", zc_host, NULL, NULL, &src, &err), 0);
	struct gpuvm_stats st;
	if (gpuvm_simulate(cfg, &src, NULL, &st, &err))
		fail_msg("%s", err.msg);
	src.ops->destroy(&src);
	free(cfg);
	assert_true(st.n_kernel_list == 1);
	struct zc_run r = {st.kernel_list[0].sim_seconds, (double)st.zero_copy_bytes,
			   (double)st.zero_copy_tlps, (double)st.pcie_d2h_bytes,
			   (double)st.pcie_h2d_bytes};
	gpuvm_stats_release(&st);
	return r;
}

/* The link time of r's TLPs on p100's 16 GB/s link (raw): payload plus
 * overhead per TLP at 0.815 x 282 / 256 of raw (pcie_tlp.h). */
static double link_seconds(struct zc_run r, double overhead_bytes)
{
	return (r.bytes + r.tlps * overhead_bytes) / (0.815 * 282.0 / 256.0 * 16e9);
}

static void test_tlps_per_line_per_instruction(void **state)
{
	(void)state;
	struct zc_run c = zc_simulate(1, 0), s = zc_simulate(32, 0);
	double accesses = (double)ZC_BLOCKS * ZC_THREADS * ZC_PER_THREAD;
	/* coalesced: a warp's 32 words are one 128 B line, one TLP */
	assert_true(c.bytes == accesses * 4);
	assert_true(c.tlps == c.bytes / 128);
	/* stride of a line: every lane a sector of its own, a TLP each */
	assert_true(s.bytes == accesses * 32);
	assert_true(s.tlps == s.bytes / 32);
}

static void test_small_tlps_cost_their_overhead(void **state)
{
	(void)state;
	struct zc_run c = zc_simulate(1, 0), s = zc_simulate(32, 0), w = zc_simulate(32, 1);
	double lc = link_seconds(c, 22), ls = link_seconds(s, 22), lw = link_seconds(w, 26);
	printf("  coalesced reads: %.3g MB in %.0f TLPs, kernel %.3g us (link %.3g us)\n", c.bytes / 1e6,
	       c.tlps, c.kernel_s * 1e6, lc * 1e6);
	printf("  scattered reads: %.3g MB in %.0f TLPs, kernel %.3g us (link %.3g us)\n", s.bytes / 1e6,
	       s.tlps, s.kernel_s * 1e6, ls * 1e6);
	printf("  scattered writes: %.3g MB in %.0f TLPs, kernel %.3g us (link %.3g us)\n", w.bytes / 1e6,
	       w.tlps, w.kernel_s * 1e6, lw * 1e6);
	/* both read streams are link-bound: the kernel takes the TLPs' link
	 * time (headers included), plus the last round trip */
	assert_true(c.kernel_s > 0.93 * lc && c.kernel_s < 1.3 * lc);
	assert_true(s.kernel_s > 0.93 * ls && s.kernel_s < 1.3 * ls);
	assert_true(w.kernel_s > 0.93 * lw && w.kernel_s < 1.3 * lw);
	/* per byte, 32 B TLPs cost (32 + 22) / 32 against (128 + 22) / 128:
	 * 1.44x; without the headers the two would cost the same */
	double per_byte = (s.kernel_s / s.bytes) / (c.kernel_s / c.bytes);
	printf("  scattered / coalesced per byte: %.3f (TLP model: 1.44)\n", per_byte);
	assert_true(per_byte > 1.30 && per_byte < 1.60);
	/* a write TLP's header is 26 B: (32 + 26) / (32 + 22) of the reads */
	double w_over_r = (w.kernel_s / w.bytes) / (s.kernel_s / s.bytes);
	assert_true(w_over_r > 1.0 && w_over_r < 1.15);
}

/* An atomic on host-pinned memory is a PCIe AtomicOp: a request with its
 * 16 B of operands up, a completion with the 8 B old value down, one per
 * lane, never merged; the request lane (26 + 16 B a packet) bounds it. */
static void test_atomics_are_atomicops(void **state)
{
	(void)state;
	struct zc_run a = zc_simulate(32, 2);
	double ops = (double)ZC_BLOCKS * ZC_THREADS * ZC_PER_THREAD;
	assert_true(a.tlps == ops);
	assert_true(a.up_bytes == ops * 16 && a.down_bytes == ops * 8);
	double up = ops * (26 + 16) / (0.815 * 282.0 / 256.0 * 16e9);
	printf("  scattered atomics: %.0f AtomicOps, kernel %.3g us (up-link %.3g us)\n", a.tlps,
	       a.kernel_s * 1e6, up * 1e6);
	assert_true(a.kernel_s > 0.93 * up && a.kernel_s < 1.3 * up);
	/* a warp's 32 adjacent words: 4 sectors, but still 32 AtomicOps: an
	 * AtomicOp has one operand, so lanes sharing a sector are not merged
	 * over the link (was one per sector before issue 18's fourth round) */
	struct zc_run c = zc_simulate(1, 2);
	assert_true(c.tlps == ops);
	assert_true(c.up_bytes == ops * 16 && c.down_bytes == ops * 8);
	assert_true(c.kernel_s > 0.93 * up && c.kernel_s < 1.3 * up);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlps_per_line_per_instruction),
		cmocka_unit_test(test_small_tlps_cost_their_overhead),
		cmocka_unit_test(test_atomics_are_atomicops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
