/* ATAX: y = A^T (A x), two kernels, a thread per row (kernel 1) and per
 * column (kernel 2). atax_kernel1/2: UVMSmart's port (256 x 1 blocks,
 * tmp and y zeroed by the host). atax_pb_kernel1/2: PolyBench/GPU 1.0's
 * atax.cu (PolyBench-ACC CUDA/linear-algebra/kernels/atax): blocks of
 * 32 x 8 threads whose index ignores threadIdx.y, so a CTA's 8 warps
 * compute the same 32 rows (columns), each zeroing tmp[i] (y[j]) first.
 * An iteration's three loads are independent of each other (LD_INDEP: the
 * compiled loop issues them back to back); the next iteration's wait for
 * the accumulation before it (its loads come after the store). */
#include "gpuvm/simt.h"

struct atax_args {
	const float *A, *x;
	float *y, *tmp;
	int nx, ny;
};

SIMT_KERNEL_ANY_ORDER(atax_kernel1, struct atax_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.nx) {
		long long row = (long long)i * p.ny;
		for (int j = 0; j < p.ny; j++) {
			float a = LD_INDEP(p.A, row + j);
			float x = LD_INDEP(p.x, j);
			float t = LD_INDEP(p.tmp, i);
			COMPUTE(4);
			ST(p.tmp, i, t + a * x);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(atax_kernel2, struct atax_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < p.ny) {
		for (int i = 0; i < p.nx; i++) {
			float a = LD_INDEP(p.A, (long long)i * p.ny + j);
			float t = LD_INDEP(p.tmp, i);
			float y = LD_INDEP(p.y, j);
			COMPUTE(4);
			ST(p.y, j, y + a * t);
		}
	}
}

/* PolyBench/GPU 1.0: the 8 warps of a 32 x 8 block share their rows and
 * each re-zeroes and re-accumulates tmp[i] (y[j]): they read one another's
 * writes, so not SIMT_ANY_ORDER. */
SIMT_KERNEL(atax_pb_kernel1, struct atax_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.nx) {
		long long row = (long long)i * p.ny;
		ST(p.tmp, i, 0.0f);
		for (int j = 0; j < p.ny; j++) {
			float a = LD_INDEP(p.A, row + j);
			float x = LD_INDEP(p.x, j);
			float t = LD_INDEP(p.tmp, i);
			COMPUTE(4);
			ST(p.tmp, i, t + a * x);
		}
	}
}

SIMT_KERNEL(atax_pb_kernel2, struct atax_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < p.ny) {
		ST(p.y, j, 0.0f);
		for (int i = 0; i < p.nx; i++) {
			float a = LD_INDEP(p.A, (long long)i * p.ny + j);
			float t = LD_INDEP(p.tmp, i);
			float y = LD_INDEP(p.y, j);
			COMPUTE(4);
			ST(p.y, j, y + a * t);
		}
	}
}
