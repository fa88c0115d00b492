/* Rodinia hotspot (hotspot/hotspot.cu, calculate_temp): transient thermal
 * simulation on a grid_rows x grid_cols chip. Each launch advances
 * `iteration` (pyramid height) time steps inside 16x16 tiles held in
 * shared memory, recomputing a halo that shrinks by one cell per step
 * (temporal blocking), with a barrier per step; only the inner small
 * block is written back. Shared tiles are flattened [ty * 16 + tx]. */
#include "gpuvm/simt.h"

#define HS_BLOCK 16
#define HS_IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

struct hs_args {
	const float *power, *temp_src;
	float *temp_dst;
	int iteration, grid_cols, grid_rows, border_cols, border_rows;
	float Cap, Rx, Ry, Rz, step;
};

/* temp_on_cuda, power_on_cuda, temp_t */
#define HS_SHARED_BYTES ((uint32_t)sizeof(float) * 3 * HS_BLOCK * HS_BLOCK)

SIMT_KERNEL_ANY_ORDER(hs_calculate_temp, struct hs_args, p)
{
	SHARED(float, temp_on_cuda, HS_BLOCK * HS_BLOCK);
	SHARED(float, power_on_cuda, HS_BLOCK * HS_BLOCK);
	SHARED(float, temp_t, HS_BLOCK * HS_BLOCK); /* this step's result */
	float amb_temp = 80.0f;
	int bx = blockIdx.x, by = blockIdx.y;
	int tx = threadIdx.x, ty = threadIdx.y;
	float step_div_Cap = p.step / p.Cap;
	float Rx_1 = 1 / p.Rx, Ry_1 = 1 / p.Ry, Rz_1 = 1 / p.Rz;
	/* the non-overlapping small blocks cover the grid; each tile is a
	 * small block plus `iteration` halo cells on every side */
	int small_block_rows = HS_BLOCK - p.iteration * 2;
	int small_block_cols = HS_BLOCK - p.iteration * 2;
	int blkY = small_block_rows * by - p.border_rows;
	int blkX = small_block_cols * bx - p.border_cols;
	int blkYmax = blkY + HS_BLOCK - 1;
	int blkXmax = blkX + HS_BLOCK - 1;
	int yidx = blkY + ty, xidx = blkX + tx;
	int index = p.grid_cols * yidx + xidx;
	int me = ty * HS_BLOCK + tx;
	if (HS_IN_RANGE(yidx, 0, p.grid_rows - 1) && HS_IN_RANGE(xidx, 0, p.grid_cols - 1)) {
		temp_on_cuda[me] = LD(p.temp_src, index);
		power_on_cuda[me] = LD(p.power, index);
	}
	SYNCTHREADS();
	/* the part of the tile inside the grid; neighbours clamp to it */
	int validYmin = (blkY < 0) ? -blkY : 0;
	int validYmax = (blkYmax > p.grid_rows - 1) ? HS_BLOCK - 1 - (blkYmax - p.grid_rows + 1)
						     : HS_BLOCK - 1;
	int validXmin = (blkX < 0) ? -blkX : 0;
	int validXmax = (blkXmax > p.grid_cols - 1) ? HS_BLOCK - 1 - (blkXmax - p.grid_cols + 1)
						     : HS_BLOCK - 1;
	int N = ty - 1 < validYmin ? validYmin : ty - 1;
	int S = ty + 1 > validYmax ? validYmax : ty + 1;
	int W = tx - 1 < validXmin ? validXmin : tx - 1;
	int E = tx + 1 > validXmax ? validXmax : tx + 1;
	int computed = 0;
	for (int i = 0; i < p.iteration; i++) {
		computed = 0;
		if (HS_IN_RANGE(tx, i + 1, HS_BLOCK - i - 2) && HS_IN_RANGE(ty, i + 1, HS_BLOCK - i - 2) &&
		    HS_IN_RANGE(tx, validXmin, validXmax) && HS_IN_RANGE(ty, validYmin, validYmax)) {
			computed = 1;
			float t = temp_on_cuda[me];
			/* 2.0 is a double in Rodinia too: same promotion here */
			temp_t[me] = (float)(t + step_div_Cap *
						     (power_on_cuda[me] +
						      (temp_on_cuda[S * HS_BLOCK + tx] +
						       temp_on_cuda[N * HS_BLOCK + tx] - 2.0 * t) * Ry_1 +
						      (temp_on_cuda[ty * HS_BLOCK + E] +
						       temp_on_cuda[ty * HS_BLOCK + W] - 2.0 * t) * Rx_1 +
						      (amb_temp - t) * Rz_1));
			COMPUTE(20);
		}
		SYNCTHREADS();
		if (i == p.iteration - 1)
			break;
		if (computed)
			temp_on_cuda[me] = temp_t[me];
		SYNCTHREADS();
	}
	/* after the last step only the small block's threads are `computed` */
	if (computed)
		ST(p.temp_dst, index, temp_t[me]);
}
