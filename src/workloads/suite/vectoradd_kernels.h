/* CUDA samples' vectorAdd (0_Introduction/vectorAdd/vectorAdd.cu): one
 * thread per element, C[i] = A[i] + B[i] + 0.0f over floats. Its two loads
 * are independent (LD_INDEP): the compiled kernel issues them back to back. */
#include "gpuvm/simt.h"

struct vectoradd_args {
	const float *a, *b;
	float *c;
	unsigned long long n;
};

SIMT_KERNEL_ANY_ORDER(vectoradd_kernel, struct vectoradd_args, p)
{
	unsigned long long i = (unsigned long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < p.n) {
		float a = LD_INDEP(p.a, i);
		float b = LD_INDEP(p.b, i);
		COMPUTE(1);
		ST(p.c, i, a + b + 0.0f);
	}
}
