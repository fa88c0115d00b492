// Karnagel et al. §2.2 hash group-by: SELECT value, count(*) GROUP BY value.
// The input column lives in pinned host memory (cudaHostAlloc, mapped) and
// is read zero-copy, one 128 MB chunk per launch; each thread walks its
// chunk grid-stride and inserts by Murmur3 + linear probing into a table
// of 2 x groups buckets (fill factor 0.5). gpuvm's hash-groupby workload
// models this kernel (src/workloads/hash_groupby.c).
#include <cstdint>

#include "karnagel_common.cuh"

__global__ void hash_groupby(const uint32_t *__restrict__ chunk, uint64_t count,
			     groupby_bucket *table, uint64_t buckets)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
		uint32_t value = chunk[i]; // zero-copy read over PCIe/NVLink
		groupby_insert(table, buckets, value, groupby_home(value, buckets));
	}
}

// Host side: input_host is the device pointer of the mapped pinned column
// (cudaHostGetDevicePointer); one launch per chunk.
void launch_hash_groupby(const uint32_t *input_host, uint64_t input, uint64_t chunk_elems,
			 groupby_bucket *table, uint64_t buckets, unsigned grid, unsigned block,
			 cudaStream_t stream)
{
	for (uint64_t first = 0; first < input; first += chunk_elems) {
		uint64_t count = input - first < chunk_elems ? input - first : chunk_elems;
		hash_groupby<<<grid, block, 0, stream>>>(input_host + first, count, table, buckets);
	}
}
