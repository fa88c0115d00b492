/* Maximal independent set as Pannotia ran it (pannotia/pannotia
 * graph_app/mis/kernel/kernel.cl: init, mis1, mis2, mis3; mis.cpp loops
 * until no vertex is undecided), the MIS of the NeiDty seed: a vertex
 * whose random value is below every undecided neighbour's joins the set
 * (s = 2, status -2) and marks its undecided neighbours inactive through
 * the status-update array, which mis3 copies back. Status: -1 undecided,
 * -2 decided. col[edge] is loaded once per edge (the OpenCL indexes it up
 * to three times; a compiler keeps one load). */
#include "gpuvm/simt.h"

#define MIS_BIGNUM 99999999.0f

struct mis_args {
	const int *row, *col;
	const float *value;
	int *set, *status, *status_upd;
	float *min_value;
	int *stop;
	int n;
};

SIMT_KERNEL_ANY_ORDER(mis_init, struct mis_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		ST(p.status, tid, -1);
		ST(p.status_upd, tid, -1);
		ST(p.set, tid, 0);
	}
}

SIMT_KERNEL_ANY_ORDER(mis1, struct mis_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.status, tid) == -1) {
		ST_SAME(p.stop, 0, 1);
		int start = LD(p.row, tid);
		int end = LD(p.row, tid + 1);
		float mn = MIS_BIGNUM;
		for (int e = start; e < end; e++) {
			int nb = LD(p.col, e);
			COMPUTE(2);
			if (LD(p.status, nb) == -1) {
				float v = LD(p.value, nb);
				if (v < mn)
					mn = v;
			}
		}
		ST(p.min_value, tid, mn);
	}
}

/* Any order: a selected vertex's neighbours are never selected (each would
 * need a value below the other's; the graph is symmetric), so the status
 * of a neighbour it reads is not written in this launch. */
SIMT_KERNEL_ANY_ORDER(mis2, struct mis_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.value, tid) < LD(p.min_value, tid) && LD(p.status, tid) == -1) {
		ST(p.set, tid, 2);
		int start = LD(p.row, tid);
		int end = LD(p.row, tid + 1);
		ST(p.status, tid, -2);
		for (int e = start; e < end; e++) {
			int nb = LD(p.col, e);
			COMPUTE(2);
			if (LD(p.status, nb) == -1)
				ST_SAME(p.status_upd, nb, -2);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(mis3, struct mis_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.status_upd, tid) == -2)
		ST(p.status, tid, -2);
}
