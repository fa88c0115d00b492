/* CUDA samples' scalarProd (2_Concepts_and_Techniques/scalarProd,
 * scalarProd_kernel.cuh): vectorN dot products of elementN floats, a CTA
 * per vector (grid-stride), each of its threads accumulating every
 * ACCUM_N-th product into one of 1024 shared accumulators, then a tree
 * reduction of the 1024 with a barrier per level and thread 0 storing the
 * result. The accumulation as nvcc 13.0 compiles it for sm_90 (`-O3
 * -arch=sm_90 -ptx`): the loop unrolled by 4 with the remainder (count mod
 * 4) peeled in front, one iteration after the other; the sum stays in a
 * register and nothing is stored in the loop, so a group of 4 iterations'
 * 8 loads is in flight at once (LD_INDEP; that ptxas keeps them grouped is
 * assumed, no SASS disassembler here), while each peeled iteration waits
 * for its own FFMA before the next issues. */
#include "gpuvm/simt.h"

#define SCALARPROD_ACCUM_N 1024

struct scalarprod_args {
	const float *a, *b;
	float *c;
	int vector_n, element_n;
};

SIMT_KERNEL_ANY_ORDER(scalarprod_kernel, struct scalarprod_args, p)
{
	SHARED(float, accum, SCALARPROD_ACCUM_N);
	for (int vec = blockIdx.x; vec < p.vector_n; vec += gridDim.x) {
		int base = p.element_n * vec, end = base + p.element_n;
		for (int i = threadIdx.x; i < SCALARPROD_ACCUM_N; i += blockDim.x) {
			float sum = 0;
			int pos = base + i;
			int count = pos < end ? (end - pos + SCALARPROD_ACCUM_N - 1) / SCALARPROD_ACCUM_N : 0;
			for (int k = 0; k < (count & 3); k++, pos += SCALARPROD_ACCUM_N) {
				float a = LD_INDEP(p.a, pos);
				float b = LD_INDEP(p.b, pos);
				COMPUTE(3); /* FFMA, the index add, compare-and-branch */
				sum += a * b;
			}
			for (; pos < end; pos += 4 * SCALARPROD_ACCUM_N) {
				float a[4], b[4];
				for (int u = 0; u < 4; u++) {
					a[u] = LD_INDEP(p.a, pos + u * SCALARPROD_ACCUM_N);
					b[u] = LD_INDEP(p.b, pos + u * SCALARPROD_ACCUM_N);
				}
				COMPUTE(9); /* 4 FFMA, 3 adds, compare-and-branch */
				for (int u = 0; u < 4; u++)
					sum += a[u] * b[u];
			}
			SST(accum, i, sum);
			COMPUTE(2); /* iAccum += blockDim.x, compare-and-branch */
		}
		for (int stride = SCALARPROD_ACCUM_N / 2; stride > 0; stride >>= 1) {
			SYNCTHREADS();
			for (int i = threadIdx.x; i < stride; i += blockDim.x) {
				float x = SLD(accum, i);
				float y = SLD(accum, stride + i);
				COMPUTE(3); /* FADD, iAccum += blockDim.x, compare-and-branch */
				SST(accum, i, x + y);
			}
		}
		SYNCTHREADS();
		if (threadIdx.x == 0)
			ST(p.c, vec, SLD(accum, 0));
	}
}
