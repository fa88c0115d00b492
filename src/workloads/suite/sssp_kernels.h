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
 * __restrict__ pointers. */
#include "gpuvm/simt.h"

#define SSSP_INF 0xffffffffu

struct sssp_args {
	const int *row, *col, *weight;
	unsigned char *mask;
	unsigned int *cost, *updating;
	int n, source;
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
		int first = LD(p.row, tid);
		int last = LD(p.row, tid + 1);
		unsigned int c = LD(p.cost, tid);
		for (int e = first; e < last; e++) {
			int nid = LD(p.col, e);
			unsigned int w = (unsigned int)LD(p.weight, e);
			COMPUTE(2);
			ATOMIC_MIN(p.updating, nid, c + w);
		}
	}
}

SIMT_KERNEL_ANY_ORDER(sssp_kernel2, struct sssp_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid < p.n) {
		unsigned int c = LD(p.cost, tid);
		unsigned int u = LD(p.updating, tid);
		if (c > u) {
			ST(p.cost, tid, u);
			ST(p.mask, tid, 1);
			c = u;
		}
		ST(p.updating, tid, c);
	}
}
