/* cpu-gpu-phases kernel body (C and CUDA): one relaxation step of a
 * managed array, x[i] = x[i] / 2 + y[i], grid-stride over n doubles. */
#include "gpuvm/simt.h"

struct phases_args {
	double *x;
	const double *y;
	unsigned long long n;
};

SIMT_KERNEL_ANY_ORDER(phases_kernel, struct phases_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(6); /* index math, FMUL + FADD, loop test (as stream-triad-simt) */
		double x = LD(p.x, i);
		double y = LD(p.y, i);
		ST(p.x, i, x * 0.5 + y);
	}
}
