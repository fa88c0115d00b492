// Karnagel et al. §5.2 TLB-scoped random sampling: one pass per TLB scope.
// Every pass regenerates the same LCG stream (same seed per thread) and
// reads only the positions inside its scope [lo, hi); the per-thread sum
// is kept across passes in sums[]. gpuvm's random-sampling:scope=S models
// this kernel (src/workloads/random_sampling.c).
#include <cstdint>

#include "karnagel_common.cuh"

__global__ void scoped_sampling(const uint32_t *__restrict__ data, uint64_t elems,
				uint64_t threads, uint32_t reads, uint64_t seed, uint64_t lo,
				uint64_t hi, int first_pass, unsigned long long *__restrict__ sums)
{
	uint64_t tid = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= threads)
		return;
	uint64_t lcg = sampling_lcg_seed(seed, tid);
	unsigned long long sum = 0;
	uint64_t width = hi - lo;
	for (uint32_t i = 0; i < reads; i++) {
		uint64_t pos = sampling_next_position(&lcg, elems);
		if (pos - lo < width) // in_current_TLB_scope(): one unsigned compare
			sum += data[pos];
	}
	sums[tid] = first_pass ? sum : sums[tid] + sum;
}

// Host side: passes = ceil(elems / scope_elems), one launch each, in stream
// order so every pass sees the sums of the ones before.
void launch_scoped_sampling(const uint32_t *data, uint64_t elems, uint64_t threads,
			    uint32_t reads, uint64_t seed, uint64_t scope_bytes,
			    unsigned long long *sums, cudaStream_t stream)
{
	const unsigned block = 256;
	unsigned grid = (unsigned)((threads + block - 1) / block);
	uint64_t scope_elems = scope_bytes / sizeof(uint32_t);
	if (scope_elems == 0 || scope_elems > elems)
		scope_elems = elems;
	for (uint64_t lo = 0; lo < elems; lo += scope_elems) {
		uint64_t hi = elems - lo < scope_elems ? elems : lo + scope_elems;
		scoped_sampling<<<grid, block, 0, stream>>>(data, elems, threads, reads, seed, lo, hi,
							    lo == 0, sums);
	}
}
