// Karnagel et al. §2.1 random sampling: every thread sums `reads` values
// at LCG-random positions of `data` (elems 32-bit values). gpuvm's
// random-sampling workload models this kernel (src/workloads/random_sampling.c).
#include <cstdint>

#include "karnagel_common.cuh"

__global__ void random_sampling(const uint32_t *__restrict__ data, uint64_t elems,
				uint64_t threads, uint32_t reads, uint64_t seed,
				unsigned long long *__restrict__ sums)
{
	uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= threads)
		return;
	uint64_t lcg = sampling_lcg_seed(seed, tid);
	unsigned long long sum = 0;
	for (uint32_t i = 0; i < reads; i++)
		sum += data[sampling_next_position(&lcg, elems)];
	sums[tid] = sum;
}

// Host launch: one kernel over the whole region.
void launch_random_sampling(const uint32_t *data, uint64_t elems, uint64_t threads,
			    uint32_t reads, uint64_t seed, unsigned long long *sums,
			    cudaStream_t stream)
{
	const unsigned block = 256;
	unsigned grid = (unsigned)((threads + block - 1) / block);
	random_sampling<<<grid, block, 0, stream>>>(data, elems, threads, reads, seed, sums);
}
