/* BiCG: s = A^T r and q = A p, PolyBench/GPU 1.0's bicg.cu (PolyBench-ACC
 * CUDA/linear-algebra/kernels/bicg): kernel 1 a thread per element of s
 * (column j of A), kernel 2 per element of q (row i). bicg.cuh sets
 * blocks of 256 x 1 threads (the index ignores threadIdx.y: with more
 * than one row of threads they would zero and accumulate the same
 * elements, racing). The loop as nvcc 13.0 compiles it for sm_90 (`-O3 -arch=sm_90 -ptx`,
 * unrolled by 4): the element zeroed by a store before the loop, its sum
 * kept in a register, each step two independent loads (LD_INDEP), one
 * FFMA and a store of the element (A and r may alias s, so the store
 * stays in the loop); per step 1.25 integer and loop instructions, one
 * more address add for the column walk of kernel 1. */
#include "gpuvm/simt.h"

struct bicg_args {
	const float *a, *r, *p;
	float *s, *q;
	int nx, ny;
};

SIMT_KERNEL(bicg_kernel1, struct bicg_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < p.ny) {
		float acc = 0.0f;
		ST(p.s, j, acc);
		for (int i = 0; i < p.nx; i++) {
			float r = LD_INDEP(p.r, i);
			float a = LD_INDEP(p.a, (long long)i * p.ny + j);
			COMPUTE(3); /* FFMA, the column address, 1.25 integer and loop */
			acc += r * a;
			ST(p.s, j, acc);
		}
	}
}

SIMT_KERNEL(bicg_kernel2, struct bicg_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.nx) {
		long long row = (long long)i * p.ny;
		float acc = 0.0f;
		ST(p.q, i, acc);
		for (int j = 0; j < p.ny; j++) {
			float a = LD_INDEP(p.a, row + j);
			float x = LD_INDEP(p.p, j);
			COMPUTE(2); /* FFMA, 1.25 integer and loop */
			acc += a * x;
			ST(p.q, i, acc);
		}
	}
}
