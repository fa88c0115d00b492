/* Rodinia srad_v2 (srad_v2/srad_kernel.cu): speckle-reducing anisotropic
 * diffusion, two kernels per iteration on 16x16 tiles in shared memory.
 * srad_cuda_1 computes the four directional derivatives and the
 * diffusion coefficient C; srad_cuda_2 takes the divergence and updates
 * J. Grid edges clamp to the edge cell. Shared tiles are flattened
 * [ty * 16 + tx]. The one change from Rodinia: srad_cuda_2 loads
 * C[index_s] / C[index_e] only when the index lies inside the image
 * (Rodinia reads past the end for the last tile row and overwrites the
 * value at once; here that would be an access outside the allocation). */
#include "gpuvm/simt.h"

#define SRAD_BLOCK 16

struct srad_args {
	float *E_C, *W_C, *N_C, *S_C, *J, *C;
	int cols, rows;
	float lambda, q0sqr;
};

/* shared memory per block: six tiles (srad_cuda_1), five (srad_cuda_2) */
#define SRAD_1_SHARED_BYTES ((uint32_t)sizeof(float) * 6 * SRAD_BLOCK * SRAD_BLOCK)
#define SRAD_2_SHARED_BYTES ((uint32_t)sizeof(float) * 5 * SRAD_BLOCK * SRAD_BLOCK)

SIMT_KERNEL_ANY_ORDER(srad_cuda_1, struct srad_args, p)
{
	const int B = SRAD_BLOCK;
	int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
	int base = p.cols * B * by + B * bx;
	int index = base + p.cols * ty + tx;
	int index_n = base + tx - p.cols;
	int index_s = base + p.cols * B + tx;
	int index_w = base + p.cols * ty - 1;
	int index_e = base + p.cols * ty + B;
	int me = ty * B + tx, size = p.rows * p.cols;
	float n, w, e, s, jc, g2, l, num, den, qsqr, c;
	SHARED(float, temp, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, temp_result, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, north, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, south, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, east, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, west, SRAD_BLOCK * SRAD_BLOCK);
	if (index_n < size && index_n >= 0)
		north[me] = LD(p.J, index_n);
	if (index_s < size && index_s >= 0)
		south[me] = LD(p.J, index_s);
	if (by == 0)
		north[me] = LD(p.J, B * bx + tx);
	else if (by == (int)gridDim.y - 1)
		south[me] = LD(p.J, p.cols * B * ((int)gridDim.y - 1) + B * bx + p.cols * (B - 1) + tx);
	SYNCTHREADS();
	if (index_w < size && index_w >= 0)
		west[me] = LD(p.J, index_w);
	if (index_e < size && index_e >= 0)
		east[me] = LD(p.J, index_e);
	if (bx == 0)
		west[me] = LD(p.J, p.cols * B * by + p.cols * ty);
	else if (bx == (int)gridDim.x - 1)
		east[me] = LD(p.J, p.cols * B * by + B * ((int)gridDim.x - 1) + p.cols * ty + B - 1);
	SYNCTHREADS();
	temp[me] = LD(p.J, index);
	SYNCTHREADS();
	jc = temp[me];
	/* the tile's edge cells take their neighbour from the halo rows */
	n = (ty == 0 ? north[me] : temp[me - B]) - jc;
	s = (ty == B - 1 ? south[me] : temp[me + B]) - jc;
	w = (tx == 0 ? west[me] : temp[me - 1]) - jc;
	e = (tx == B - 1 ? east[me] : temp[me + 1]) - jc;
	g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
	l = (n + s + w + e) / jc;
	num = (float)((0.5 * g2) - ((1.0 / 16.0) * (l * l)));
	den = (float)(1 + (.25 * l));
	qsqr = num / (den * den);
	/* diffusion coefficient (equ 33), saturated to [0, 1] */
	den = (qsqr - p.q0sqr) / (p.q0sqr * (1 + p.q0sqr));
	c = (float)(1.0 / (1.0 + den));
	COMPUTE(40);
	temp_result[me] = c < 0 ? 0 : (c > 1 ? 1 : c);
	SYNCTHREADS();
	ST(p.C, index, temp_result[me]);
	ST(p.E_C, index, e);
	ST(p.W_C, index, w);
	ST(p.S_C, index, s);
	ST(p.N_C, index, n);
}

SIMT_KERNEL_ANY_ORDER(srad_cuda_2, struct srad_args, p)
{
	const int B = SRAD_BLOCK;
	int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
	int base = p.cols * B * by + B * bx;
	int index = base + p.cols * ty + tx;
	int index_s = base + p.cols * B + tx;
	int index_e = base + p.cols * ty + B;
	int me = ty * B + tx, size = p.rows * p.cols;
	float cc, cn, cs, ce, cw, d_sum;
	SHARED(float, south_c, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, east_c, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, c_cuda_temp, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, c_cuda_result, SRAD_BLOCK * SRAD_BLOCK);
	SHARED(float, temp, SRAD_BLOCK * SRAD_BLOCK);
	temp[me] = LD(p.J, index);
	SYNCTHREADS();
	if (index_s < size)
		south_c[me] = LD(p.C, index_s);
	if (by == (int)gridDim.y - 1)
		south_c[me] = LD(p.C, p.cols * B * ((int)gridDim.y - 1) + B * bx + p.cols * (B - 1) + tx);
	SYNCTHREADS();
	if (index_e < size)
		east_c[me] = LD(p.C, index_e);
	if (bx == (int)gridDim.x - 1)
		east_c[me] = LD(p.C, p.cols * B * by + B * ((int)gridDim.x - 1) + p.cols * ty + B - 1);
	SYNCTHREADS();
	c_cuda_temp[me] = LD(p.C, index);
	SYNCTHREADS();
	cc = c_cuda_temp[me];
	cn = cc;
	cw = cc;
	cs = ty == B - 1 ? south_c[me] : c_cuda_temp[me + B];
	ce = tx == B - 1 ? east_c[me] : c_cuda_temp[me + 1];
	/* divergence (equ 58) */
	float dn = LD(p.N_C, index);
	float ds = LD(p.S_C, index);
	float dw = LD(p.W_C, index);
	float de = LD(p.E_C, index);
	d_sum = cn * dn + cs * ds + cw * dw + ce * de;
	/* image update (equ 61) */
	COMPUTE(12);
	c_cuda_result[me] = (float)(temp[me] + 0.25 * p.lambda * d_sum);
	SYNCTHREADS();
	ST(p.J, index, c_cuda_result[me]);
}
