/* The DRAM side of a warp's load (C and CUDA, as calib_kernels.h):
 *   calib_warp_load     one warp's dependent loads of fresh DRAM lines by
 *                       the sectors each touches (1, 8, 16 in two arrays,
 *                       32)
 *   calib_loaded_chase  one thread chases while every other warp streams
 *                       (DRAM latency under load, Intel MLC's loaded-
 *                       latency curve)
 * Run by calib_dram.c's workloads and cuda/hwbench.cu; each does real
 * work on real data, the timing is the engine's. */
#ifndef GPUVM_CALIB_DRAM_KERNELS_H
#define GPUVM_CALIB_DRAM_KERNELS_H

#include "gpuvm/simt.h"

struct calib_warp_load_args {
	const unsigned long long *buf, *buf2; /* buf2: the second array (two) */
	unsigned long long region;            /* words each warp walks */
	unsigned int lane_stride;             /* words between lanes: 0, 1 or 4 */
	int two;                              /* a second load from buf2 */
	unsigned int steps;
	unsigned long long *out;
};

/* One warp's load by the sectors it touches: at step i every lane loads
 * word i x 512 (4 KiB apart, a line no earlier step touched) + lane x
 * lane_stride of its warp's region (__ldcg): lane stride 0 is one sector,
 * 1 (8 B) eight sectors in two lines, 4 (32 B) 32 sectors in eight lines;
 * `two` adds the same load from buf2 (the triad's pair). The next step's
 * address waits for every lane's value, so steps never overlap: time per
 * step is the warp's load latency (cuda/hwbench.cu warp_load times the
 * same accesses with clock64()). */
SIMT_KERNEL_ANY_ORDER(calib_warp_load, struct calib_warp_load_args, p)
{
	unsigned long long base = (unsigned long long)blockIdx.x * p.region;
	unsigned long long off = 0;
	for (unsigned int i = 0; i < p.steps; i++) {
		COMPUTE(4); /* the address and loop test */
		unsigned long long w = base + (unsigned long long)i * 512 +
				       threadIdx.x * p.lane_stride + off;
		unsigned long long v = p.two ? LDCG_INDEP(p.buf, w) + LDCG_INDEP(p.buf2, w)
					     : LDCG(p.buf, w);
		off = v == 0x123456789ull;
	}
	ST(p.out, (unsigned long long)blockIdx.x * 32 + threadIdx.x, off);
}

#define LOADED_L2_WINDOW_BYTES (2ull << 20)

struct calib_loaded_args {
	const unsigned int *next; /* the chase's chain (calib_chase's) */
	unsigned int steps;       /* the chase's dependent loads */
	double *buf;              /* the streamers' buffer, elems doubles */
	unsigned long long elems; /* a power of two */
	unsigned long long iters; /* each streamer's groups of four */
	/* 0: stream reads; 1: copy half to half; 2: the same copy with its
	 * stores folded into the second half's first LOADED_L2_WINDOW_BYTES
	 * (they stay in the L2: what stores cost a read without DRAM writes);
	 * 3: the copy with its loads folded into the first half's first
	 * LOADED_L2_WINDOW_BYTES (L2 hits: DRAM writes without DRAM reads,
	 * cuda/hwbench.cu's copyfroml2) */
	int writes;
	/* reads: 1 issues the four loads in two pairs with the first pair's
	 * sum between (as ptxas builds hwbench's loaded_chase), 0 all four
	 * back to back */
	int pairs;
	unsigned int *out;
};

/* A pointer chase's latency under load: warp 0 of CTA 0 chases (lane 0,
 * __ldcg, as calib_chase's cg mode) while every other warp streams the
 * buffer grid-stride, four independent loads a thread per group, in two
 * pairs as the compiled kernel issues them (pairs; writes:
 * one load and one store, the buffer's first half copied to its second).
 * The streamers do a fixed amount of work; how far the chase got by the
 * time they ended comes from the kernel's time against the chase alone
 * and the stream alone (docs/calibration.md, "Latency under load").
 * cuda/hwbench.cu's loaded_chase streams until the chase ends instead. */
SIMT_KERNEL_ANY_ORDER(calib_loaded_chase, struct calib_loaded_args, p)
{
	if (blockIdx.x == 0 && threadIdx.x < 32) {
		if (threadIdx.x != 0)
			return;
		unsigned int j = 0;
		for (unsigned int s = 0; s < p.steps; s++) {
			COMPUTE(2); /* index math and loop test */
			j = LDCG(p.next, j);
		}
		ST(p.out, 0, j);
		return;
	}
	unsigned long long nthreads = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long mask = p.elems - 1, half = p.elems / 2;
	double acc = 0;
	for (unsigned long long k = 0; k < p.iters; k++) {
		if (p.writes) {
			COMPUTE(4); /* index math, the add and loop test */
			unsigned long long j = i & (half - 1);
			double v = LD(p.buf, p.writes == 3 ? j & (LOADED_L2_WINDOW_BYTES / 8 - 1) : j);
			unsigned long long d = p.writes == 2 ? j & (LOADED_L2_WINDOW_BYTES / 8 - 1) : j;
			ST(p.buf, half + d, v + 1.0);
			i += nthreads + (v == -1.0); /* the next load waits for this one */
		} else {
			/* in pairs, as ptxas builds hwbench's loaded_chase for
			 * sm_90: LDG, LDG, the pair's DADD (which waits for both),
			 * LDG, LDG, the rest of the sum (cuobjdump -sass,
			 * validation/hw/h100-sxm-2026-11-26/run15): two round
			 * trips a group, not one */
			COMPUTE(p.pairs ? 9 : 10); /* four indices, the loop test */
			double v0 = LD_INDEP(p.buf, i & mask);
			double v1 = LD_INDEP(p.buf, (i + nthreads) & mask);
			if (p.pairs)
				COMPUTE(1); /* v0 + v1 */
			double v2 = LD_INDEP(p.buf, (i + 2 * nthreads) & mask);
			double v3 = LD_INDEP(p.buf, (i + 3 * nthreads) & mask);
			double sum = v0 + v1 + v2 + v3;
			acc += sum;
			/* the next group's addresses wait for this one (the sum
			 * is never -1), however nvcc unrolls */
			i += 4 * nthreads + (sum == -1.0);
		}
	}
	if (acc == -1.0)
		ST(p.out, 1, 1u);
}

#endif
