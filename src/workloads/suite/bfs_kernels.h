/* Rodinia bfs (bfs/kernel.cu, kernel2.cu): level-synchronous BFS over a
 * CSR graph; kernel 1 expands the frontier mask, kernel 2 forms the next
 * one and raises the host's `over` flag; 512-thread blocks.
 * Load dependences (loads=source, indep_loads = 1): the vertex's edge
 * range, kernel.cu's g_graph_nodes[tid].starting and .no_of_edges (here
 * row_start[tid] and row_start[tid + 1]), are two loads whose addresses
 * come from no load's value, issued back to back: one LD_INDEP group,
 * which the cost load waits for. loads=chained (indep_loads = 0): the
 * second waits for the first. */
#include "gpuvm/simt.h"

struct bfs_args {
	const int *row_start; /* n + 1 offsets into col */
	const int *col;
	unsigned char *mask, *updating, *visited;
	int *cost;
	int *over;
	int n;
	int indep_loads; /* loads=source: 1; loads=chained: 0 */
};

SIMT_KERNEL_ANY_ORDER(bfs_kernel1, struct bfs_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.mask, tid)) {
		ST(p.mask, tid, 0);
		int first = LD_INDEP_IF(p.indep_loads, p.row_start, tid);
		int last = LD_INDEP_IF(p.indep_loads, p.row_start, tid + 1);
		int c = LD(p.cost, tid);
		for (int e = first; e < last; e++) {
			int id = LD(p.col, e);
			COMPUTE(3);
			if (!LD(p.visited, id)) {
				ST_SAME(p.cost, id, c + 1);
				ST_SAME(p.updating, id, 1);
			}
		}
	}
}

SIMT_KERNEL_ANY_ORDER(bfs_kernel2, struct bfs_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.updating, tid)) {
		ST(p.mask, tid, 1);
		ST(p.visited, tid, 1);
		ST_SAME(p.over, 0, 1);
		ST(p.updating, tid, 0);
	}
}
