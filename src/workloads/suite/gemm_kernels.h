/* PolyBench/GPU 1.0 GEMM (gemm.cu): C = alpha A B + beta C over float
 * matrices, one thread per element of C, blocks of 32 x 8 (gemm.cuh:
 * DIM_THREAD_BLOCK_X 32, DIM_THREAD_BLOCK_Y 8). The kernel updates
 * c[i][j] in memory at every k; a, b and c are not restrict, so the
 * compiled loop stores c[i][j] after each step (a later load of a or b
 * could read it) but keeps its value in a register (loads change nothing
 * it holds): each step loads a[i][k] and b[k][j], independent of each
 * other (LD_INDEP), multiplies, adds and stores. nvcc 13.0's PTX for
 * sm_90 of PolyBench's source has exactly that loop, unrolled by 4, with
 * 1.75 integer and loop instructions per step (docs/validation.md). */
#include "gpuvm/simt.h"

struct gemm_args {
	const float *a, *b;
	float *c;
	int ni, nj, nk;
	float alpha, beta;
};

SIMT_KERNEL_ANY_ORDER(gemm_kernel, struct gemm_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < p.ni && j < p.nj) {
		long long ij = (long long)i * p.nj + j;
		float acc = LD(p.c, ij) * p.beta;
		COMPUTE(1);
		ST(p.c, ij, acc);
		for (int k = 0; k < p.nk; k++) {
			float a = LD_INDEP(p.a, (long long)i * p.nk + k);
			float b = LD_INDEP(p.b, (long long)k * p.nj + j);
			COMPUTE(4); /* FMUL, FFMA, the two addresses and the loop test */
			acc += p.alpha * a * b;
			ST(p.c, ij, acc);
		}
	}
}
