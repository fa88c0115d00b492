/* GESUMMV: y = alpha A x + beta B x, PolyBench/GPU 1.0's gesummv.cu
 * (PolyBench-ACC CUDA/linear-algebra/kernels/gesummv): one kernel, a
 * thread per row i, accumulating tmp[i] and y[i] in memory. gesummv.cuh
 * sets blocks of 256 x 1 threads (the index ignores threadIdx.y: with
 * more than one row of threads they would accumulate into the same rows,
 * racing). The loop
 * as nvcc 13.0 compiles it for sm_90 (`-O3 -arch=sm_90 -ptx`, unrolled by
 * 4): the two sums cannot stay in registers (a store to y[i] may change
 * tmp[i] and the other way round), so each step is two halves of three
 * independent loads (x[j], the matrix element, the sum; LD_INDEP), an
 * FFMA and a store, x[j] loaded again in the second half; per step two
 * address adds and 1.25 integer and loop instructions. After the loop
 * tmp[i] is loaded again and y[i] kept from its last store. */
#include "gpuvm/simt.h"

struct gesummv_args {
	const float *a, *b, *x;
	float *tmp, *y;
	int n;
	float alpha, beta;
};

SIMT_KERNEL(gesummv_kernel, struct gesummv_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n) {
		long long row = (long long)i * p.n;
		float yv = 0.0f;
		for (int j = 0; j < p.n; j++) {
			float x = LD_INDEP(p.x, j);
			float a = LD_INDEP(p.a, row + j);
			float t = LD_INDEP(p.tmp, i);
			COMPUTE(3); /* FFMA, A's address, 1.25 integer and loop */
			ST(p.tmp, i, a * x + t);
			float x2 = LD_INDEP(p.x, j);
			float b = LD_INDEP(p.b, row + j);
			float y = LD_INDEP(p.y, i);
			COMPUTE(2); /* FFMA, B's address */
			yv = b * x2 + y;
			ST(p.y, i, yv);
		}
		float t = LD(p.tmp, i);
		COMPUTE(2); /* FMUL, FFMA */
		ST(p.y, i, p.alpha * t + p.beta * yv);
	}
}
