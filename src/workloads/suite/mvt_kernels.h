/* MVT: x1 = x1 + A y1 and x2 = x2 + A^T y2, PolyBench/GPU 1.0's mvt.cu
 * (PolyBench-ACC CUDA/linear-algebra/kernels/mvt): two kernels, a thread
 * per element of x1 (row i of A) and of x2 (column i of A). mvt.cuh sets
 * blocks of 32 x 8 threads and the index ignores threadIdx.y, so a CTA's
 * 8 warps work on the same 32 elements and their stores race, as on the
 * GPU (block_y=1 runs one thread per element).
 * The loop as nvcc 13.0 compiles it for sm_90 (`nvcc -O3 -arch=sm_90
 * -ptx`, unrolled by 4): x1[i] loaded once before the loop and kept in a
 * register, each step two independent loads (LD_INDEP), one FFMA and a
 * store of x1[i] (a and y1 may alias x1, so the store stays in the loop
 * and the next step's loads are issued after it); per step 1.25 integer
 * and loop instructions, and one more address add for A's column walk in
 * kernel 2. */
#include "gpuvm/simt.h"

struct mvt_args {
	const float *a, *y1, *y2;
	float *x1, *x2;
	int n;
};

SIMT_KERNEL(mvt_kernel1, struct mvt_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n) {
		long long row = (long long)i * p.n;
		float acc = LD(p.x1, i);
		for (int j = 0; j < p.n; j++) {
			float a = LD_INDEP(p.a, row + j);
			float y = LD_INDEP(p.y1, j);
			COMPUTE(2); /* FFMA, 1.25 integer and loop */
			acc += a * y;
			ST(p.x1, i, acc);
		}
	}
}

SIMT_KERNEL(mvt_kernel2, struct mvt_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.n) {
		float acc = LD(p.x2, i);
		for (int j = 0; j < p.n; j++) {
			float a = LD_INDEP(p.a, (long long)j * p.n + i);
			float y = LD_INDEP(p.y2, j);
			COMPUTE(3); /* FFMA, the column address, 1.25 integer and loop */
			acc += a * y;
			ST(p.x2, i, acc);
		}
	}
}
