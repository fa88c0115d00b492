/* PolyBench/GPU FDTD-2D (fdtd2d.cu): three kernels per time step over
 * ex (nx x ny+1), ey (nx+1 x ny), hz (nx x ny); 32x8 blocks. Each
 * kernel's loads are independent of each other (LD_INDEP). */
#include "gpuvm/simt.h"

struct fdtd_args {
	const float *fict;
	float *ex, *ey, *hz;
	int nx, ny, t;
};

SIMT_KERNEL_ANY_ORDER(fdtd_step1_kernel, struct fdtd_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	long long ny = p.ny;
	if (i < p.nx && j < p.ny) {
		if (i == 0) {
			ST(p.ey, i * ny + j, LD(p.fict, p.t));
		} else {
			float e = LD_INDEP(p.ey, i * ny + j);
			float h1 = LD_INDEP(p.hz, i * ny + j);
			float h0 = LD_INDEP(p.hz, (i - 1) * ny + j);
			COMPUTE(4);
			ST(p.ey, i * ny + j, e - 0.5f * (h1 - h0));
		}
	}
}

SIMT_KERNEL_ANY_ORDER(fdtd_step2_kernel, struct fdtd_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	long long ny = p.ny;
	if (i < p.nx && j < p.ny && j > 0) {
		float e = LD_INDEP(p.ex, i * (ny + 1) + j);
		float h1 = LD_INDEP(p.hz, i * ny + j);
		float h0 = LD_INDEP(p.hz, i * ny + (j - 1));
		COMPUTE(4);
		ST(p.ex, i * (ny + 1) + j, e - 0.5f * (h1 - h0));
	}
}

SIMT_KERNEL_ANY_ORDER(fdtd_step3_kernel, struct fdtd_args, p)
{
	int j = blockIdx.x * blockDim.x + threadIdx.x;
	int i = blockIdx.y * blockDim.y + threadIdx.y;
	long long ny = p.ny;
	if (i < p.nx && j < p.ny) {
		float h = LD_INDEP(p.hz, i * ny + j);
		float x1 = LD_INDEP(p.ex, i * (ny + 1) + (j + 1));
		float x0 = LD_INDEP(p.ex, i * (ny + 1) + j);
		float y1 = LD_INDEP(p.ey, (i + 1) * ny + j);
		float y0 = LD_INDEP(p.ey, i * ny + j);
		COMPUTE(6);
		ST(p.hz, i * ny + j, h - 0.7f * (x1 - x0 + y1 - y0));
	}
}
