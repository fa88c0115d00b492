/* PageRank by pull, one GPU's vertex range: each vertex sums the
 * contributions (rank / out-degree) of its in-neighbours, read from the
 * GPU's full copy of the contribution vector, and writes its new rank and
 * its own new contribution into the next vector's slice of its range.
 * The multi-GPU form of the Pannotia iteration (pagerank_kernels.h pushes
 * with float atomics; pulling needs none, so each sum is in the order of
 * the vertex's in-edges and the ranks are the same bits on any number of
 * GPUs). */
#include "gpuvm/simt.h"

struct pagerank_pull_args {
	const int *row, *col;     /* the range's in-edges: local offsets [count+1], sources */
	const int *outdeg;        /* [count]: out-degree of the range's vertices */
	const float *contrib;     /* [n]: every vertex's rank / out-degree */
	float *contrib_next, *rank; /* [n] (the range's slice written), [count] */
	int v0, count, n;
};

/* Any order: a thread reads contrib (not written here) and writes only
 * its own vertex's entries. */
SIMT_KERNEL_ANY_ORDER(pagerank_pull, struct pagerank_pull_args, p)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < p.count) {
		int start = LD(p.row, i);
		int end = LD(p.row, i + 1);
		float sum = 0.0f;
		for (int e = start; e < end; e++) {
			int u = LD(p.col, e);
			sum += LD(p.contrib, u);
			COMPUTE(1);
		}
		float r = 0.15f / (float)p.n + 0.85f * sum;
		ST(p.rank, i, r);
		int d = LD(p.outdeg, i);
		COMPUTE(2);
		ST(p.contrib_next, p.v0 + i, d ? r / (float)d : 0.0f);
	}
}
