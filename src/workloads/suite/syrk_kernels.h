/* SYRK: C = alpha A A^T + beta C, PolyBench/GPU 1.0's syrk.cu
 * (PolyBench-ACC CUDA/linear-algebra/kernels/syrk): a thread per element
 * c[i][j] in blocks of 32 x 8 (syrk.cuh). A warp's lanes are 32 values of
 * j, so a[i][k] is one address for the warp and a[j][k] a column walk, 32
 * rows apart: 32 lines per load, which the L1 keeps from step to step.
 * Compiled (nvcc 13.0, sm_90, `-O3`, unrolled by 4) as GEMM: c[i][j]
 * scaled, kept in a register and stored each step, two independent loads,
 * 3.75 non-memory instructions per step (FMUL, FFMA, addresses, loop). */
#include "gpuvm/simt.h"

struct syrk_args {
	const float *a;
	float *c;
	int n;
	float alpha, beta;
};

SIMT_KERNEL_ANY_ORDER(syrk_kernel, struct syrk_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < p.n && j < p.n) {
		long long ij = (long long)i * p.n + j;
		float acc = LD(p.c, ij) * p.beta;
		COMPUTE(1);
		ST(p.c, ij, acc);
		for (int k = 0; k < p.n; k++) {
			float ai = LD_INDEP(p.a, (long long)i * p.n + k);
			float aj = LD_INDEP(p.a, (long long)j * p.n + k);
			COMPUTE(4); /* FMUL, FFMA, two addresses, loop (3.75) */
			acc += p.alpha * ai * aj;
			ST(p.c, ij, acc);
		}
	}
}
