/* Rodinia pathfinder (pathfinder/pathfinder.cu, dynproc_kernel): dynamic
 * programming down a rows x cols wall, pyramid_height rows per launch
 * with a halo in shared memory and a barrier per row; 256-thread blocks. */
#include "gpuvm/simt.h"

#define PF_BLOCK 256
#define PF_IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
#define PF_MIN(a, b) ((a) <= (b) ? (a) : (b))

struct pf_args {
	const int *wall; /* rows - 1 rows below the source row */
	const int *src;
	int *results;
	int iteration, cols, start_step, border;
};

#define PF_SHARED_BYTES ((uint32_t)sizeof(int) * 2 * PF_BLOCK) /* prev, result */

SIMT_KERNEL_ANY_ORDER(pf_kernel, struct pf_args, p)
{
	SHARED(int, prev, PF_BLOCK);
	SHARED(int, result, PF_BLOCK);
	int bx = blockIdx.x, tx = threadIdx.x;
	int small_block_cols = PF_BLOCK - p.iteration * 2; /* HALO = 1 */
	int blkX = small_block_cols * bx - p.border;
	int blkXmax = blkX + PF_BLOCK - 1;
	int xidx = blkX + tx;
	int validXmin = blkX < 0 ? -blkX : 0;
	int validXmax = blkXmax > p.cols - 1 ? PF_BLOCK - 1 - (blkXmax - p.cols + 1) : PF_BLOCK - 1;
	int W = tx - 1 < validXmin ? validXmin : tx - 1;
	int E = tx + 1 > validXmax ? validXmax : tx + 1;
	int is_valid = PF_IN_RANGE(tx, validXmin, validXmax);
	if (PF_IN_RANGE(xidx, 0, p.cols - 1))
		prev[tx] = LD(p.src, xidx);
	SYNCTHREADS();
	int computed = 0;
	for (int i = 0; i < p.iteration; i++) {
		computed = 0;
		if (PF_IN_RANGE(tx, i + 1, PF_BLOCK - i - 2) && is_valid) {
			computed = 1;
			int shortest = PF_MIN(prev[W], prev[tx]);
			shortest = PF_MIN(shortest, prev[E]);
			long long index = (long long)p.cols * (p.start_step + i) + xidx;
			COMPUTE(8);
			result[tx] = shortest + LD(p.wall, index);
		}
		SYNCTHREADS();
		if (i == p.iteration - 1)
			break;
		if (computed)
			prev[tx] = result[tx];
		SYNCTHREADS();
	}
	if (computed)
		ST(p.results, xidx, result[tx]);
}
