/* sssp as the seeds ran it: UVMSmart's benchmarks/Managed/sssp/sssp.cu
 * (DebashisGanguly/gpgpu-sim_UVMSmart; Harish & Narayanan's two-kernel
 * Dijkstra-style relaxation, the "sssp" of Ganguly IPDPS'20 Fig. 2-3).
 * Kernel 1 relaxes the out-edges of the masked vertices into the updating
 * costs with atomicMin; kernel 2 takes the improved costs, re-masks those
 * vertices and copies the cost back. 16-thread blocks as there.
 * Deviation: integer weights and costs (the graph inputs' weights,
 * unsigned, exact) where UVMSmart uses floats with a CAS-loop atomicMin;
 * the accesses are the same 4-byte loads, stores and atomics. The cost
 * load is hoisted out of the edge loop as nvcc does with the original's
 * __restrict__ pointers.
 * Load dependences (loads=source, indep_loads = 1): loads whose
 * addresses come from no earlier load's value, issued back to back in
 * sssp.cu, are one LD_INDEP group (they wait for what the group's first
 * waits for; the next other item waits for all of them): Kernel1's
 * vertexArray[tid] and vertexArray[tid + 1] (sssp.cu lines 216-218;
 * UVMSmart's logs show both as DMAs of their own), edgeArray[edge] and
 * weightArray[edge] (line 223), Kernel2's shortestDistances[tid] and
 * updatingShortestDistances[tid] (line 240). The cost load waits for the
 * row bounds: hoisted out of the loop it sits under the loop's guard
 * (edgeStart < edgeEnd); an iteration's loads wait for the cost load or
 * the atomic before them, as every load did before. loads=chained
 * (indep_loads = 0): each load waits for the load before it. */
#include "gpuvm/simt.h"

#define SSSP_INF 0xffffffffu

struct sssp_args {
	const int *row, *col, *weight;
	unsigned char *mask;
	unsigned int *cost, *updating;
	int n, source;
	int indep_loads; /* loads=source: 1; loads=chained: 0 */
};

SIMT_KERNEL_ANY_ORDER(sssp_init, struct sssp_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		if (tid == p.source) {
			ST(p.mask, tid, 1);
			ST(p.cost, tid, 0u);
			ST(p.updating, tid, 0u);
		} else {
			ST(p.mask, tid, 0);
			ST(p.cost, tid, SSSP_INF);
			ST(p.updating, tid, SSSP_INF);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(sssp_kernel1, struct sssp_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n && LD(p.mask, tid)) {
		ST(p.mask, tid, 0);
		int first = LD_INDEP_IF(p.indep_loads, p.row, tid);
		int last = LD_INDEP_IF(p.indep_loads, p.row, tid + 1);
		unsigned int c = LD(p.cost, tid);
		for (int e = first; e < last; e++) {
			int nid = LD_INDEP_IF(p.indep_loads, p.col, e);
			unsigned int w = (unsigned int)LD_INDEP_IF(p.indep_loads, p.weight, e);
			COMPUTE(2);
			ATOMIC_MIN(p.updating, nid, c + w);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(sssp_kernel2, struct sssp_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		unsigned int c = LD_INDEP_IF(p.indep_loads, p.cost, tid);
		unsigned int u = LD_INDEP_IF(p.indep_loads, p.updating, tid);
		if (c > u) {
			ST(p.cost, tid, u);
			ST(p.mask, tid, 1);
			c = u;
		}
		ST(p.updating, tid, c);
	}
}
