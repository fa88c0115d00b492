/* 2D Jacobi sweep kernel body (C and CUDA) of jacobi-mgpu: one GPU's
 * block of rows of an n x n float grid, with a halo row above and below
 * (local rows 0 and rows + 1). Owned local row li (1..rows) is global row
 * r0 + li - 1; the grid's border keeps its values (Dirichlet), every
 * other point becomes the mean of its four neighbours. */
#include "gpuvm/simt.h"

struct jacobi_args {
	const float *in;
	float *out;
	unsigned rows, n, r0, global_rows;
};

SIMT_KERNEL_ANY_ORDER(jacobi_kernel, struct jacobi_args, p)
{
	unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned li = blockIdx.y * blockDim.y + threadIdx.y + 1;
	if (j >= p.n || li > p.rows)
		return;
	unsigned gr = p.r0 + li - 1;
	unsigned long long k = (unsigned long long)li * p.n + j;
	if (gr == 0 || gr == p.global_rows - 1 || j == 0 || j == p.n - 1) {
		ST(p.out, k, LD(p.in, k));
		return;
	}
	COMPUTE(4); /* index math, three FADDs, the FMUL */
	float up = LD(p.in, k - p.n), down = LD(p.in, k + p.n);
	float left = LD(p.in, k - 1), right = LD(p.in, k + 1);
	ST(p.out, k, 0.25f * (((up + down) + left) + right));
}
