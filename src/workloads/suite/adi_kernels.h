/* PolyBench/GPU ADI (adi.cu): alternating-direction implicit sweeps over
 * n x n float arrays A, B, X, 256-thread blocks. Per time step:
 * adi_kernel1-3 run one thread per row, sweeping along it (forward
 * elimination, last column, back substitution); adi_kernel4 and 6 are
 * launched once per row i1 with one thread per column (the column-wise
 * sweeps), adi_kernel5 finishes the last row. Each statement's loads are
 * issued in source order, re-reading after a store as a compiler must
 * when A, B and X may alias. */
#include "gpuvm/simt.h"

#define ADI_BLOCK 256

struct adi_args {
	const float *A;
	float *B, *X;
	int n, i1;
};

SIMT_KERNEL_ANY_ORDER(adi_kernel1, struct adi_args, p)
{
	int i1 = blockIdx.x * blockDim.x + threadIdx.x;
	long long N = p.n, r = i1 * N;
	if (i1 < p.n) {
		for (int i2 = 1; i2 < p.n; i2++) {
			float x = LD(p.X, r + i2);
			float xp = LD(p.X, r + i2 - 1);
			float a = LD(p.A, r + i2);
			float bp = LD(p.B, r + i2 - 1);
			COMPUTE(3);
			ST(p.X, r + i2, x - xp * a / bp);
			float b = LD(p.B, r + i2);
			float a2 = LD(p.A, r + i2);
			float bp2 = LD(p.B, r + i2 - 1);
			COMPUTE(3);
			ST(p.B, r + i2, b - a2 * a2 / bp2);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(adi_kernel2, struct adi_args, p)
{
	int i1 = blockIdx.x * blockDim.x + threadIdx.x;
	long long N = p.n, at = i1 * N + (N - 1);
	if (i1 < p.n) {
		float x = LD(p.X, at);
		float b = LD(p.B, at);
		COMPUTE(1);
		ST(p.X, at, x / b);
	}
}

SIMT_KERNEL_ANY_ORDER(adi_kernel3, struct adi_args, p)
{
	int i1 = blockIdx.x * blockDim.x + threadIdx.x;
	long long N = p.n, r = i1 * N;
	if (i1 < p.n) {
		for (int i2 = 0; i2 < p.n - 2; i2++) {
			float x = LD(p.X, r + (N - 2 - i2));
			float xm = LD(p.X, r + (N - 2 - i2 - 1));
			float a = LD(p.A, r + (N - i2 - 3));
			float b = LD(p.B, r + (N - 3 - i2));
			COMPUTE(3);
			ST(p.X, r + (N - i2 - 2), (x - xm * a) / b);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(adi_kernel4, struct adi_args, p)
{
	int i2 = blockIdx.x * blockDim.x + threadIdx.x;
	long long N = p.n, i1 = p.i1;
	if (i2 < p.n) {
		float x = LD(p.X, i1 * N + i2);
		float xp = LD(p.X, (i1 - 1) * N + i2);
		float a = LD(p.A, i1 * N + i2);
		float bp = LD(p.B, (i1 - 1) * N + i2);
		COMPUTE(3);
		ST(p.X, i1 * N + i2, x - xp * a / bp);
		float b = LD(p.B, i1 * N + i2);
		float a2 = LD(p.A, i1 * N + i2);
		float bp2 = LD(p.B, (i1 - 1) * N + i2);
		COMPUTE(3);
		ST(p.B, i1 * N + i2, b - a2 * a2 / bp2);
	}
}

SIMT_KERNEL_ANY_ORDER(adi_kernel5, struct adi_args, p)
{
	int i2 = blockIdx.x * blockDim.x + threadIdx.x;
	long long N = p.n, at = (N - 1) * N + i2;
	if (i2 < p.n) {
		float x = LD(p.X, at);
		float b = LD(p.B, at);
		COMPUTE(1);
		ST(p.X, at, x / b);
	}
}

SIMT_KERNEL_ANY_ORDER(adi_kernel6, struct adi_args, p)
{
	int i2 = blockIdx.x * blockDim.x + threadIdx.x;
	long long N = p.n, i1 = p.i1;
	if (i2 < p.n) {
		float x = LD(p.X, (N - 2 - i1) * N + i2);
		float xm = LD(p.X, (N - i1 - 3) * N + i2);
		float a = LD(p.A, (N - 3 - i1) * N + i2);
		float b = LD(p.B, (N - 2 - i1) * N + i2);
		COMPUTE(3);
		ST(p.X, (N - 2 - i1) * N + i2, (x - xm * a) / b);
	}
}
