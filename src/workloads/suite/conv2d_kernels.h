/* PolyBench/GPU 2DCONV (2DConvolution.cu): 3x3 convolution, one thread
 * per output element, 32x8 blocks. The window's nine loads are independent
 * of each other (LD_INDEP): the compiled kernel issues them back to back. */
#include "gpuvm/simt.h"

struct conv2d_args {
	const float *A;
	float *B;
	int ni, nj;
};

SIMT_KERNEL_ANY_ORDER(conv2d_kernel, struct conv2d_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	const float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
	const float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
	const float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
	long long nj = p.nj;
	if (i < p.ni - 1 && j < p.nj - 1 && i > 0 && j > 0) {
		float v = c11 * LD_INDEP(p.A, (i - 1) * nj + (j - 1));
		v += c21 * LD_INDEP(p.A, (i - 1) * nj + j);
		v += c31 * LD_INDEP(p.A, (i - 1) * nj + (j + 1));
		v += c12 * LD_INDEP(p.A, i * nj + (j - 1));
		v += c22 * LD_INDEP(p.A, i * nj + j);
		v += c32 * LD_INDEP(p.A, i * nj + (j + 1));
		v += c13 * LD_INDEP(p.A, (i + 1) * nj + (j - 1));
		v += c23 * LD_INDEP(p.A, (i + 1) * nj + j);
		v += c33 * LD_INDEP(p.A, (i + 1) * nj + (j + 1));
		COMPUTE(20);
		ST(p.B, i * nj + j, v);
	}
}
