/* Parboil stencil: 7-point Jacobi on an nx x ny x nz float grid; a thread
 * per (i, j) column walks k (the naive kernel of Parboil's "base" CUDA
 * version), 32x4 blocks. A point's seven loads are independent of each
 * other (LD_INDEP); the next point's wait for its store's operands. */
#include "gpuvm/simt.h"

struct stencil_args {
	const float *A0;
	float *Anext;
	int nx, ny, nz;
	float c0, c1;
};

SIMT_KERNEL_ANY_ORDER(stencil_kernel, struct stencil_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int j = blockIdx.y * blockDim.y + threadIdx.y;
	long long nx = p.nx, plane = (long long)p.nx * p.ny;
	if (i > 0 && i < p.nx - 1 && j > 0 && j < p.ny - 1) {
		for (int k = 1; k < p.nz - 1; k++) {
			long long c = i + nx * j + plane * k;
			float v = LD_INDEP(p.A0, c + plane);
			v += LD_INDEP(p.A0, c - plane);
			v += LD_INDEP(p.A0, c + nx);
			v += LD_INDEP(p.A0, c - nx);
			v += LD_INDEP(p.A0, c + 1);
			v += LD_INDEP(p.A0, c - 1);
			float mid = LD_INDEP(p.A0, c);
			COMPUTE(12);
			ST(p.Anext, c, v * p.c1 - mid * p.c0);
		}
	}
}
