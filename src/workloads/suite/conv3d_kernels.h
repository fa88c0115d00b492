/* PolyBench/GPU 1.0 3DCONV (PolyBench-ACC CUDA/medley/convolution-3d,
 * 3DConvolution.cu): one launch per interior plane i (i = 1 .. NI - 2),
 * a thread per (j, k) of the plane in blocks of DIM_THREAD_BLOCK_X x 8
 * (3DConvolution.cuh: 32 x 8), each output the weighted sum of fifteen
 * terms over eleven distinct elements of the planes i - 1, i and i + 1
 * (the source names A[i-1][j-1][k-1] and A[i+1][j-1][k-1] three times
 * each). As nvcc 13.0 compiles it for sm_90 (`nvcc -O3 -arch=sm_90 -ptx`
 * with NI = NJ = NK = 256, run here): the repeated terms are loaded once,
 * eleven independent loads (LD_INDEP), 22 instructions of indices and the
 * guard's compares before the branch, 10 of addresses and 17 of
 * arithmetic (12 FFMA, 3 FMUL, 2 FADD) before the store; the parameter
 * loads and address-space conversions are not instructions of their own. */
#include "gpuvm/simt.h"

struct conv3d_args {
	const float *A;
	float *B;
	int ni, nj, nk;
	int i; /* the plane this launch computes */
};

SIMT_KERNEL_ANY_ORDER(conv3d_kernel, struct conv3d_args, p)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	int j = blockIdx.y * blockDim.y + threadIdx.y;
	int i = p.i;
	const float c11 = +2, c21 = +5, c31 = -8;
	const float c12 = -3, c22 = +6, c32 = -9;
	const float c13 = +4, c23 = +7, c33 = +10;
	long long nk = p.nk, plane = (long long)p.nj * p.nk;
	COMPUTE(22); /* indices, the guard's five compares and their ORs, its branch */
	if (i < p.ni - 1 && j < p.nj - 1 && k < p.nk - 1 && i > 0 && j > 0 && k > 0) {
		long long lo = (i - 1) * plane, mid = i * plane, hi = (i + 1) * plane;
		float a = LD_INDEP(p.A, lo + (j - 1) * nk + (k - 1));
		float b = LD_INDEP(p.A, hi + (j - 1) * nk + (k - 1));
		float c = LD_INDEP(p.A, mid + (j - 1) * nk + k);
		float d = LD_INDEP(p.A, mid + j * nk + k);
		float e = LD_INDEP(p.A, mid + (j + 1) * nk + k);
		float f = LD_INDEP(p.A, lo + (j - 1) * nk + (k + 1));
		float g = LD_INDEP(p.A, hi + (j - 1) * nk + (k + 1));
		float h = LD_INDEP(p.A, lo + j * nk + (k + 1));
		float l = LD_INDEP(p.A, hi + j * nk + (k + 1));
		float m = LD_INDEP(p.A, lo + (j + 1) * nk + (k + 1));
		float o = LD_INDEP(p.A, hi + (j + 1) * nk + (k + 1));
		COMPUTE(27); /* addresses 10, FFMA 12, FMUL 3, FADD 2 */
		float v = c11 * a + c13 * b + c21 * a + c23 * b + c31 * a + c33 * b + c12 * c +
			  c22 * d + c32 * e + c11 * f + c13 * g + c21 * h + c23 * l + c31 * m +
			  c33 * o;
		ST(p.B, mid + j * nk + k, v);
	}
}
