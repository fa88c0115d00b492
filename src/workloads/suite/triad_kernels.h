/* STREAM triad kernel body (C and CUDA): a[i] = b[i] + q * c[i],
 * grid-stride over n doubles. */
#include "gpuvm/simt.h"

struct triad_args {
	double *a;
	const double *b, *c;
	double q;
	unsigned long long n;
};

SIMT_KERNEL_ANY_ORDER(triad_kernel, struct triad_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(6); /* index math, FFMA, loop test: as the hand-written stream-triad */
		double b = LD(p.b, i);
		double c = LD(p.c, i);
		ST(p.a, i, b + p.q * c);
	}
}
