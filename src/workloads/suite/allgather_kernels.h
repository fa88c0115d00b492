/* The chunk each GPU contributes to allgather-mgpu (C and CUDA): element
 * i of GPU g's chunk, a value a wrong offset or GPU would change. */
#include "gpuvm/simt.h"

struct ag_fill_args {
	unsigned *chunk;
	unsigned long long n;
	unsigned gpu;
};

static inline unsigned ag_value(unsigned gpu, unsigned long long i)
{
	return (unsigned)(gpu * 2654435761u) ^ (unsigned)(i * 40503u + 1u);
}

SIMT_KERNEL_ANY_ORDER(ag_fill_kernel, struct ag_fill_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(4);
		ST(p.chunk, i, ag_value(p.gpu, i));
	}
}
