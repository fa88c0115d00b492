/* Rodinia lud (lud/cuda/lud_kernel.cu): blocked LU decomposition in
 * place, without pivoting, 16 x 16 blocks. Per block step at `offset`:
 * lud_diagonal factors the diagonal block (one 16-thread CTA),
 * lud_perimeter the blocks right of it (row) and below it (column), 32
 * threads each, and lud_internal updates the trailing submatrix (16 x 16
 * threads per block). Shared blocks are flattened [row * 16 + col];
 * indices are 64-bit so matrices past 2^31 elements stay addressable. */
#include "gpuvm/simt.h"

#define LUD_BLOCK 16
#define LUD_S(r, c) ((r) * LUD_BLOCK + (c))

struct lud_args {
	float *m;
	int matrix_dim, offset;
};

/* shared memory per block: one tile (diagonal), three (perimeter), two (internal) */
#define LUD_TILE_BYTES ((uint32_t)sizeof(float) * LUD_BLOCK * LUD_BLOCK)

SIMT_KERNEL_ANY_ORDER(lud_diagonal, struct lud_args, p)
{
	SHARED(float, shadow, LUD_BLOCK * LUD_BLOCK);
	int tx = threadIdx.x;
	long long dim = p.matrix_dim;
	long long array_offset = p.offset * dim + p.offset;
	for (int i = 0; i < LUD_BLOCK; i++) {
		shadow[LUD_S(i, tx)] = LD(p.m, array_offset + tx);
		array_offset += dim;
	}
	SYNCTHREADS();
	for (int i = 0; i < LUD_BLOCK - 1; i++) {
		if (tx > i) {
			for (int j = 0; j < i; j++)
				shadow[LUD_S(tx, i)] -= shadow[LUD_S(tx, j)] * shadow[LUD_S(j, i)];
			shadow[LUD_S(tx, i)] /= shadow[LUD_S(i, i)];
			COMPUTE(2 * i + 2);
		}
		SYNCTHREADS();
		if (tx > i) {
			for (int j = 0; j < i + 1; j++)
				shadow[LUD_S(i + 1, tx)] -= shadow[LUD_S(i + 1, j)] * shadow[LUD_S(j, tx)];
			COMPUTE(2 * i + 2);
		}
		SYNCTHREADS();
	}
	/* the first row is not modified: no need to write it back */
	array_offset = (p.offset + 1) * dim + p.offset;
	for (int i = 1; i < LUD_BLOCK; i++) {
		ST(p.m, array_offset + tx, shadow[LUD_S(i, tx)]);
		array_offset += dim;
	}
}

SIMT_KERNEL_ANY_ORDER(lud_perimeter, struct lud_args, p)
{
	SHARED(float, dia, LUD_BLOCK * LUD_BLOCK);
	SHARED(float, peri_row, LUD_BLOCK * LUD_BLOCK);
	SHARED(float, peri_col, LUD_BLOCK * LUD_BLOCK);
	int idx, tx = threadIdx.x;
	long long dim = p.matrix_dim, array_offset;
	long long bcol = (long long)(blockIdx.x + 1) * LUD_BLOCK;
	if (tx < LUD_BLOCK) {
		idx = tx;
		array_offset = p.offset * dim + p.offset;
		for (int i = 0; i < LUD_BLOCK / 2; i++) {
			dia[LUD_S(i, idx)] = LD(p.m, array_offset + idx);
			array_offset += dim;
		}
		array_offset = p.offset * dim + p.offset;
		for (int i = 0; i < LUD_BLOCK; i++) {
			peri_row[LUD_S(i, idx)] = LD(p.m, array_offset + bcol + idx);
			array_offset += dim;
		}
	} else {
		idx = tx - LUD_BLOCK;
		array_offset = (p.offset + LUD_BLOCK / 2) * dim + p.offset;
		for (int i = LUD_BLOCK / 2; i < LUD_BLOCK; i++) {
			dia[LUD_S(i, idx)] = LD(p.m, array_offset + idx);
			array_offset += dim;
		}
		array_offset = (p.offset + bcol) * dim + p.offset;
		for (int i = 0; i < LUD_BLOCK; i++) {
			peri_col[LUD_S(i, idx)] = LD(p.m, array_offset + idx);
			array_offset += dim;
		}
	}
	SYNCTHREADS();
	if (tx < LUD_BLOCK) { /* peri-row: forward substitution with L */
		idx = tx;
		for (int i = 1; i < LUD_BLOCK; i++) {
			for (int j = 0; j < i; j++)
				peri_row[LUD_S(i, idx)] -= dia[LUD_S(i, j)] * peri_row[LUD_S(j, idx)];
			COMPUTE(2 * i);
		}
	} else { /* peri-col: solve with U */
		idx = tx - LUD_BLOCK;
		for (int i = 0; i < LUD_BLOCK; i++) {
			for (int j = 0; j < i; j++)
				peri_col[LUD_S(idx, i)] -= peri_col[LUD_S(idx, j)] * dia[LUD_S(j, i)];
			peri_col[LUD_S(idx, i)] /= dia[LUD_S(i, i)];
			COMPUTE(2 * i + 2);
		}
	}
	SYNCTHREADS();
	if (tx < LUD_BLOCK) {
		idx = tx;
		array_offset = (p.offset + 1) * dim + p.offset;
		for (int i = 1; i < LUD_BLOCK; i++) {
			ST(p.m, array_offset + bcol + idx, peri_row[LUD_S(i, idx)]);
			array_offset += dim;
		}
	} else {
		idx = tx - LUD_BLOCK;
		array_offset = (p.offset + bcol) * dim + p.offset;
		for (int i = 0; i < LUD_BLOCK; i++) {
			ST(p.m, array_offset + idx, peri_col[LUD_S(i, idx)]);
			array_offset += dim;
		}
	}
}

SIMT_KERNEL_ANY_ORDER(lud_internal, struct lud_args, p)
{
	SHARED(float, peri_row, LUD_BLOCK * LUD_BLOCK);
	SHARED(float, peri_col, LUD_BLOCK * LUD_BLOCK);
	int tx = threadIdx.x, ty = threadIdx.y;
	long long dim = p.matrix_dim;
	long long global_row_id = p.offset + (long long)(blockIdx.y + 1) * LUD_BLOCK;
	long long global_col_id = p.offset + (long long)(blockIdx.x + 1) * LUD_BLOCK;
	peri_row[LUD_S(ty, tx)] = LD(p.m, (p.offset + ty) * dim + global_col_id + tx);
	peri_col[LUD_S(ty, tx)] = LD(p.m, (global_row_id + ty) * dim + p.offset + tx);
	SYNCTHREADS();
	float sum = 0;
	for (int i = 0; i < LUD_BLOCK; i++)
		sum += peri_col[LUD_S(ty, i)] * peri_row[LUD_S(i, tx)];
	COMPUTE(2 * LUD_BLOCK);
	long long at = (global_row_id + ty) * dim + global_col_id + tx;
	float v = LD(p.m, at);
	ST(p.m, at, v - sum);
}
