/* Rodinia nw (nw/needle_kernel.cu): Needleman-Wunsch alignment score
 * matrix, filled by 16 x 16 tiles along anti-diagonals of tiles.
 * needle_cuda_shared_1 sweeps the top-left half (launch i has i tiles),
 * needle_cuda_shared_2 the bottom-right half; inside a tile 16 threads
 * walk its anti-diagonals in shared memory with a barrier per diagonal.
 * Shared arrays are flattened: temp[y * 17 + x], ref[y * 16 + x]. */
#include "gpuvm/simt.h"

#define NW_BLOCK 16
#define NW_T(y, x) ((y) * (NW_BLOCK + 1) + (x))

struct nw_args {
	const int *referrence;
	int *matrix;
	int cols, penalty, i, block_width;
};

SIMT_DEVFN int nw_maximum(int a, int b, int c)
{
	int k = a <= b ? b : a;
	return k <= c ? c : k;
}

/* The two diagonal sweeps inside one tile (shared by both kernels). */
SIMT_DEVFN void nw_tile(SIMT_CTX_ int *temp, const int *ref, int tx, int penalty)
{
	for (int m = 0; m < NW_BLOCK; m++) {
		if (tx <= m) {
			int x = tx + 1, y = m - tx + 1;
			temp[NW_T(y, x)] = nw_maximum(temp[NW_T(y - 1, x - 1)] + ref[(y - 1) * NW_BLOCK + x - 1],
						      temp[NW_T(y, x - 1)] - penalty,
						      temp[NW_T(y - 1, x)] - penalty);
			COMPUTE(6);
		}
		SYNCTHREADS();
	}
	for (int m = NW_BLOCK - 2; m >= 0; m--) {
		if (tx <= m) {
			int x = tx + NW_BLOCK - m, y = NW_BLOCK - tx;
			temp[NW_T(y, x)] = nw_maximum(temp[NW_T(y - 1, x - 1)] + ref[(y - 1) * NW_BLOCK + x - 1],
						      temp[NW_T(y, x - 1)] - penalty,
						      temp[NW_T(y - 1, x)] - penalty);
			COMPUTE(6);
		}
		SYNCTHREADS();
	}
}

/* shared memory per block of both kernels: temp and ref */
#define NW_SHARED_BYTES ((uint32_t)sizeof(int) * ((NW_BLOCK + 1) * (NW_BLOCK + 1) + NW_BLOCK * NW_BLOCK))

SIMT_KERNEL_ANY_ORDER(needle_cuda_shared_1, struct nw_args, p)
{
	int bx = blockIdx.x, tx = threadIdx.x;
	int b_index_x = bx, b_index_y = p.i - 1 - bx;
	long long base = (long long)p.cols * NW_BLOCK * b_index_y + NW_BLOCK * b_index_x;
	long long index = base + tx + (p.cols + 1);
	long long index_n = base + tx + 1;
	long long index_w = base + p.cols;
	long long index_nw = base;
	SHARED(int, temp, (NW_BLOCK + 1) * (NW_BLOCK + 1));
	SHARED(int, ref, NW_BLOCK * NW_BLOCK);
	if (tx == 0)
		temp[NW_T(tx, 0)] = LD(p.matrix, index_nw);
	for (int ty = 0; ty < NW_BLOCK; ty++)
		ref[ty * NW_BLOCK + tx] = LD(p.referrence, index + (long long)p.cols * ty);
	SYNCTHREADS();
	temp[NW_T(tx + 1, 0)] = LD(p.matrix, index_w + (long long)p.cols * tx);
	SYNCTHREADS();
	temp[NW_T(0, tx + 1)] = LD(p.matrix, index_n);
	SYNCTHREADS();
	nw_tile(SIMT_PASS_ temp, ref, tx, p.penalty);
	for (int ty = 0; ty < NW_BLOCK; ty++)
		ST(p.matrix, index + (long long)ty * p.cols, temp[NW_T(ty + 1, tx + 1)]);
}

SIMT_KERNEL_ANY_ORDER(needle_cuda_shared_2, struct nw_args, p)
{
	int bx = blockIdx.x, tx = threadIdx.x;
	int b_index_x = bx + p.block_width - p.i, b_index_y = p.block_width - bx - 1;
	long long base = (long long)p.cols * NW_BLOCK * b_index_y + NW_BLOCK * b_index_x;
	long long index = base + tx + (p.cols + 1);
	long long index_n = base + tx + 1;
	long long index_w = base + p.cols;
	long long index_nw = base;
	SHARED(int, temp, (NW_BLOCK + 1) * (NW_BLOCK + 1));
	SHARED(int, ref, NW_BLOCK * NW_BLOCK);
	for (int ty = 0; ty < NW_BLOCK; ty++)
		ref[ty * NW_BLOCK + tx] = LD(p.referrence, index + (long long)p.cols * ty);
	SYNCTHREADS();
	if (tx == 0)
		temp[NW_T(tx, 0)] = LD(p.matrix, index_nw);
	temp[NW_T(tx + 1, 0)] = LD(p.matrix, index_w + (long long)p.cols * tx);
	SYNCTHREADS();
	temp[NW_T(0, tx + 1)] = LD(p.matrix, index_n);
	SYNCTHREADS();
	nw_tile(SIMT_PASS_ temp, ref, tx, p.penalty);
	for (int ty = 0; ty < NW_BLOCK; ty++)
		ST(p.matrix, index + (long long)ty * p.cols, temp[NW_T(ty + 1, tx + 1)]);
}
