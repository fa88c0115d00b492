// Karnagel et al. §5.3 TLB-scoped hash group-by. The table is split into
// scopes of scope_buckets buckets; a row belongs to the scope of its home
// bucket. Per 128 MB chunk, one pass per scope:
//  - naive: every pass reads the chunk zero-copy from pinned host memory
//    and inserts the rows of its scope;
//  - copy (Fig. 9): pass 0 reads it zero-copy, inserts the rows of scope 0
//    and writes every row to a chunk-sized device buffer; passes 1.. read
//    the buffer (rows of scope 0 fail their scope test there).
// gpuvm's hash-groupby:scope=S,scoped=naive|copy models these kernels
// (src/workloads/hash_groupby.c).
#include <cstdint>

#include "karnagel_common.cuh"

__global__ void scoped_groupby(const uint32_t *__restrict__ rows, uint64_t count,
			       groupby_bucket *table, uint64_t buckets, uint64_t scope_buckets,
			       uint32_t scope, uint32_t *__restrict__ buffer_out)
{
	uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
		uint32_t value = rows[i];
		uint64_t home = groupby_home(value, buckets);
		if (buffer_out)
			buffer_out[i] = value; // copy variant, pass 0 (coalesced)
		if (home / scope_buckets == scope) // in_current_TLB_scope()
			groupby_insert(table, buckets, value, home);
	}
}

// Host side. input_host: device pointer of the mapped pinned column;
// buffer: a device allocation of chunk_elems values (copy only, else null).
void launch_scoped_groupby(const uint32_t *input_host, uint64_t input, uint64_t chunk_elems,
			   groupby_bucket *table, uint64_t buckets, uint64_t scope_bytes,
			   bool copy, uint32_t *buffer, unsigned grid, unsigned block,
			   cudaStream_t stream)
{
	uint64_t scope_buckets = scope_bytes / sizeof(groupby_bucket);
	if (scope_buckets == 0 || scope_buckets > buckets)
		scope_buckets = buckets;
	uint32_t passes = (uint32_t)((buckets + scope_buckets - 1) / scope_buckets);
	for (uint64_t first = 0; first < input; first += chunk_elems) {
		uint64_t count = input - first < chunk_elems ? input - first : chunk_elems;
		for (uint32_t p = 0; p < passes; p++) {
			bool from_buffer = copy && p > 0;
			const uint32_t *rows = from_buffer ? buffer : input_host + first;
			uint32_t *out = copy && p == 0 && passes > 1 ? buffer : nullptr;
			scoped_groupby<<<grid, block, 0, stream>>>(rows, count, table, buckets,
								   scope_buckets, p, out);
		}
	}
}
