/* 2MM: D = alpha A B C + beta D, PolyBench/GPU 1.0's 2mm.cu (PolyBench-ACC
 * CUDA/linear-algebra/kernels/2mm): tmp = alpha A B, then D = beta D +
 * tmp C, each kernel a thread per output element in blocks of 32 x 8
 * (2mm.cuh). As GEMM (gemm_kernels.h) the element is zeroed or scaled
 * and then updated in memory at every k: nvcc 13.0's PTX for sm_90
 * (`-O3 -arch=sm_90 -ptx`, unrolled by 4) keeps its value in a register
 * and stores it at each step, the step's two loads independent
 * (LD_INDEP); 4.5 (kernel 1: FMUL, FFMA) and 3.5 (kernel 2: FFMA)
 * non-memory instructions per step with the addresses and the loop. */
#include "gpuvm/simt.h"

struct mm2_args {
	const float *a, *b, *c;
	float *tmp, *d;
	int n;
	float alpha, beta;
};

SIMT_KERNEL_ANY_ORDER(mm2_kernel1, struct mm2_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < p.n && j < p.n) {
		long long ij = (long long)i * p.n + j;
		float acc = 0.0f;
		ST(p.tmp, ij, acc);
		for (int k = 0; k < p.n; k++) {
			float a = LD_INDEP(p.a, (long long)i * p.n + k);
			float b = LD_INDEP(p.b, (long long)k * p.n + j);
			COMPUTE(4); /* FMUL, FFMA, B's address, 1.5 integer and loop */
			acc += p.alpha * a * b;
			ST(p.tmp, ij, acc);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(mm2_kernel2, struct mm2_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < p.n && j < p.n) {
		long long ij = (long long)i * p.n + j;
		float acc = LD(p.d, ij) * p.beta;
		COMPUTE(1);
		ST(p.d, ij, acc);
		for (int k = 0; k < p.n; k++) {
			float t = LD_INDEP(p.tmp, (long long)i * p.n + k);
			float c = LD_INDEP(p.c, (long long)k * p.n + j);
			COMPUTE(4); /* FFMA, C's address, 1.5 integer and loop (3.5) */
			acc += t * c;
			ST(p.d, ij, acc);
		}
	}
}
