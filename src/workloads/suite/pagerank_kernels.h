/* PageRank as Pannotia ran it (pannotia/pannotia graph_app/prk/
 * kernel/kernel.cl: inibuffer, pagerank1, pagerank2; pagerank.cpp: 20
 * iterations, 256-thread work groups), the PAGERANK of the NeiDty seed.
 * pagerank1 pushes rank / out-degree to every out-neighbour with a float
 * atomic add (a CAS loop in the OpenCL; atomicAdd here, RED_ADD in the
 * simulator: the same access, its sum in thread order), reading the
 * vertex's own rank once per edge as the original does; pagerank2 applies
 * the damping factor 0.85 and clears the accumulator. */
#include "gpuvm/simt.h"

struct pagerank_args {
	const int *row, *col;
	float *rank, *next; /* page_rank1, page_rank2 */
	int n;
};

SIMT_KERNEL_ANY_ORDER(pagerank_init, struct pagerank_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		ST(p.rank, tid, 1.0f / (float)p.n);
		ST(p.next, tid, 0.0f);
	}
}

/* Any order: the pushes are RED_ADDs (next is not read here), applied in
 * thread order, so the ranks are the same bits whatever ran first. */
SIMT_KERNEL_ANY_ORDER(pagerank1, struct pagerank_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		int start = LD(p.row, tid);
		int end = LD(p.row, tid + 1);
		for (int e = start; e < end; e++) {
			int nid = LD(p.col, e);
			float share = LD(p.rank, tid) / (float)(end - start);
			COMPUTE(3);
			RED_ADD(p.next, nid, share);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(pagerank2, struct pagerank_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		float r = 0.15f / (float)p.n + 0.85f * LD(p.next, tid);
		ST(p.rank, tid, r);
		ST(p.next, tid, 0.0f);
	}
}
