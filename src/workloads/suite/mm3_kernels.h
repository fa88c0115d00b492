/* 3MM: G = (A B)(C D), PolyBench/GPU 1.0's 3mm.cu (PolyBench-ACC
 * CUDA/linear-algebra/kernels/3mm): E = A B, F = C D, G = E F, three
 * launches of one kernel shape, a thread per output element in blocks of
 * 32 x 8 (3mm.cuh). The element is zeroed, then updated in memory at
 * every k; compiled as 2MM's second kernel (nvcc 13.0, sm_90: value kept
 * in a register and stored each step, two independent loads, 3.5
 * non-memory instructions per step). */
#include "gpuvm/simt.h"

struct mm3_args {
	const float *x, *y; /* the product's left and right factors */
	float *out;
	int n;
};

SIMT_KERNEL_ANY_ORDER(mm3_kernel, struct mm3_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	if (i < p.n && j < p.n) {
		long long ij = (long long)i * p.n + j;
		float acc = 0.0f;
		ST(p.out, ij, acc);
		for (int k = 0; k < p.n; k++) {
			float x = LD_INDEP(p.x, (long long)i * p.n + k);
			float y = LD_INDEP(p.y, (long long)k * p.n + j);
			COMPUTE(4); /* FFMA, the right factor's address, 1.5 integer and loop (3.5) */
			acc += x * y;
			ST(p.out, ij, acc);
		}
	}
}
