/* PolyBench/GPU 2DCONV (2DConvolution.cu): 3x3 convolution, one thread
 * per output element, 32x8 blocks. */
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
		float v = c11 * LD(p.A, (i - 1) * nj + (j - 1));
		v += c21 * LD(p.A, (i - 1) * nj + j);
		v += c31 * LD(p.A, (i - 1) * nj + (j + 1));
		v += c12 * LD(p.A, i * nj + (j - 1));
		v += c22 * LD(p.A, i * nj + j);
		v += c32 * LD(p.A, i * nj + (j + 1));
		v += c13 * LD(p.A, (i + 1) * nj + (j - 1));
		v += c23 * LD(p.A, (i + 1) * nj + j);
		v += c33 * LD(p.A, (i + 1) * nj + (j + 1));
		COMPUTE(20);
		ST(p.B, i * nj + j, v);
	}
}
