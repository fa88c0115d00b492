/* Betweenness centrality as Pannotia ran it (pannotia/pannotia
 * graph_app/bc/kernel/kernel.cl: clean_bc, clean_1d_array, bfs_kernel,
 * backtrack_kernel; BC.cpp: 128-thread work groups, per source a forward
 * level-synchronous BFS counting shortest paths (rho) and a backward sweep
 * over the transposed graph accumulating dependencies (sigma) into bc),
 * the BC of the NeiDty seed. Float atomics as there (a CAS loop in the
 * OpenCL; RED_ADD here, its sums in thread order). Pannotia's num_nodes^2
 * array p is only ever cleared, never read, so it is left out (it alone
 * would be 4 n^2 bytes). */
#include "gpuvm/simt.h"

struct bc_args {
	const int *row, *col;     /* forward graph */
	const int *row_t, *col_t; /* transposed graph (in-edges) */
	int *d;
	float *rho, *sigma, *bc;
	int *cont;
	int n, dist, source;
};

SIMT_KERNEL_ANY_ORDER(bc_clean_bc, struct bc_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n)
		ST(p.bc, tid, 0.0f);
}

SIMT_KERNEL_ANY_ORDER(bc_clean_1d, struct bc_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		ST(p.sigma, tid, 0.0f);
		if (tid == p.source) {
			ST(p.rho, tid, 1.0f);
			ST(p.d, tid, 0);
		} else {
			ST(p.rho, tid, 0.0f);
			ST(p.d, tid, -1);
		}
	}
}

/* Not any order: whether a thread claims w (d[w] < 0) depends on who came
 * first (which stores issue; every claimant stores the same values).
 * rho's adds are RED_ADDs: rho[w] of the next level is not read here. */
SIMT_KERNEL(bc_bfs, struct bc_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.d, tid) == p.dist) {
		int start = LD(p.row, tid);
		int end = LD(p.row, tid + 1);
		for (int e = start; e < end; e++) {
			int w = LD(p.col, e);
			COMPUTE(2);
			if (LD(p.d, w) < 0) {
				ST(p.cont, 0, 1);
				ST(p.d, w, p.dist + 1);
			}
			if (LD(p.d, w) == p.dist + 1)
				RED_ADD(p.rho, w, LD(p.rho, tid));
		}
	}
}

/* Any order: the adds are RED_ADDs into sigma of level dist - 2, while
 * the kernel reads sigma of level dist - 1 only. */
SIMT_KERNEL_ANY_ORDER(bc_backtrack, struct bc_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.d, tid) == p.dist - 1) {
		int start = LD(p.row_t, tid);
		int end = LD(p.row_t, tid + 1);
		for (int e = start; e < end; e++) {
			int w = LD(p.col_t, e);
			COMPUTE(2);
			if (LD(p.d, w) == p.dist - 2) {
				float rw = LD(p.rho, w);
				float rt = LD(p.rho, tid);
				float st = LD(p.sigma, tid);
				float add = rw / rt * (1.0f + st);
				COMPUTE(3);
				RED_ADD(p.sigma, w, add);
			}
		}
		if (tid != p.source) {
			float b = LD(p.bc, tid);
			float s = LD(p.sigma, tid);
			ST(p.bc, tid, b + s);
		}
	}
}
