/* Microbenchmark kernels: the timing model's unit tests, written like the
 * published microbenchmarks they reproduce (pointer chases of
 * Jia et al. arXiv:1804.06826, Luo et al. arXiv:2402.13499, MT4G; dependent FFMA chains; shared
 * memory bank-conflict strides; a barrier loop). Each runs on one CTA and
 * reports nothing but its functional result: the latency is the kernel's
 * time per step, which tests/test_ubench.c compares with the preset's
 * cited latencies. */
#include "gpuvm/simt.h"

struct ubench_chase_args {
	const unsigned int *next; /* next[j]: the index the chase visits after j */
	unsigned int *out;
	unsigned int steps;       /* dependent loads per pass */
	unsigned int passes;      /* the chain is walked this many times */
	int cache;                /* 0 LD (the part's default), 1 LDCG (L2 only), 2 LDCA (L1) */
};

/* One thread chases dependent indices: each load's address is the value
 * of the load before, so no two are ever in flight together. */
SIMT_KERNEL_ANY_ORDER(ubench_chase, struct ubench_chase_args, p)
{
	if (threadIdx.x != 0)
		return;
	unsigned int j = 0;
	for (unsigned int pass = 0; pass < p.passes; pass++)
		for (unsigned int s = 0; s < p.steps; s++) {
			if (p.cache == 1)
				j = LDCG(p.next, j);
			else if (p.cache == 2)
				j = LDCA(p.next, j);
			else
				j = LD(p.next, j);
		}
	ST(p.out, 0, j);
}

#define UBENCH_SMEM_WORDS 1024

struct ubench_smem_args {
	unsigned int *out;
	unsigned int steps;
	unsigned int lane_stride; /* words between lanes: 1 conflict-free, 2 two-way, ... */
};

/* A warp chases through shared memory: lane l starts at word l x stride
 * and every step moves 32 x stride words on, so each step is one warp
 * instruction whose lanes meet in banks exactly lane_stride-fold (for
 * strides that divide 32). */
#define UBENCH_SMEM_SHARED_BYTES ((uint32_t)sizeof(unsigned int) * UBENCH_SMEM_WORDS)

SIMT_KERNEL_ANY_ORDER(ubench_smem, struct ubench_smem_args, p)
{
	SHARED(unsigned int, s, UBENCH_SMEM_WORDS);
	unsigned int lane = threadIdx.x;
	for (unsigned int i = lane; i < UBENCH_SMEM_WORDS; i += blockDim.x)
		s[i] = (i + 32 * p.lane_stride) % UBENCH_SMEM_WORDS;
	SYNCTHREADS();
	unsigned int j = (lane * p.lane_stride) % UBENCH_SMEM_WORDS;
	for (unsigned int k = 0; k < p.steps; k++)
		j = SLD(s, j);
	ST(p.out, lane, j);
}

struct ubench_fma_args {
	float *out;
	unsigned int steps;
	float a, b;
};

/* A chain of dependent FFMAs: each multiplies the last result. */
SIMT_KERNEL_ANY_ORDER(ubench_fma, struct ubench_fma_args, p)
{
	float x = (float)threadIdx.x;
	for (unsigned int k = 0; k < p.steps; k++)
		x = x * p.a + p.b;
	COMPUTE_CHAIN(p.steps, GPUVM_CLASS_FMA);
	ST(p.out, threadIdx.x, x);
}

struct ubench_sync_args {
	unsigned int *out;
	unsigned int steps;
	unsigned int work; /* dependent ALU instructions warp 0 does before each barrier */
};

/* Warp 0 works, the CTA's other warps wait for it at every barrier. */
SIMT_KERNEL_ANY_ORDER(ubench_sync, struct ubench_sync_args, p)
{
	unsigned int acc = threadIdx.x;
	for (unsigned int k = 0; k < p.steps; k++) {
		if (threadIdx.x < 32) {
			for (unsigned int w = 0; w < p.work; w++)
				acc = acc * 3u + 1u;
			COMPUTE_CHAIN(p.work, GPUVM_CLASS_ALU);
		}
		SYNCTHREADS();
	}
	ST(p.out, threadIdx.x, acc);
}
