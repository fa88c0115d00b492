/* PolyBench/GPU ATAX (atax.cu): y = A^T (A x), two kernels, a thread per
 * row (kernel 1) and per column (kernel 2), 256-thread blocks. */
#include "gpuvm/simt.h"

struct atax_args {
	const float *A, *x;
	float *y, *tmp;
	int nx, ny;
};

SIMT_KERNEL_ANY_ORDER(atax_kernel1, struct atax_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.nx) {
		long long row = (long long)i * p.ny;
		for (int j = 0; j < p.ny; j++) {
			float a = LD(p.A, row + j);
			float x = LD(p.x, j);
			float t = LD(p.tmp, i);
			COMPUTE(4);
			ST(p.tmp, i, t + a * x);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(atax_kernel2, struct atax_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < p.ny) {
		for (int i = 0; i < p.nx; i++) {
			float a = LD(p.A, (long long)i * p.ny + j);
			float t = LD(p.tmp, i);
			float y = LD(p.y, j);
			COMPUTE(4);
			ST(p.y, j, y + a * t);
		}
	}
}
