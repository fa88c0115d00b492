// Shared device functions of the Karnagel et al. (DaMoN'17) operators, bit
// for bit the ones gpuvm's workload models use (src/workloads/
// random_sampling.h, hash_groupby.h, murmur3.h), so a GPU run and a gpuvm
// run with the same seed compute the same sum and the same group table.
#ifndef KARNAGEL_COMMON_CUH
#define KARNAGEL_COMMON_CUH

#include <cstdint>

#define SAMPLING_LCG_MUL 6364136223846793005ull
#define SAMPLING_LCG_ADD 1442695040888963407ull

__host__ __device__ inline uint64_t sampling_lcg_seed(uint64_t seed, uint64_t tid)
{
	uint64_t x = seed ^ (tid * 0xD1B54A32D192ED03ull);
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

// Advances the LCG and returns a position in [0, n): the high 32 bits
// scaled by n (a multiply-high, no division).
__host__ __device__ inline uint64_t sampling_next_position(uint64_t *state, uint64_t n)
{
	*state = *state * SAMPLING_LCG_MUL + SAMPLING_LCG_ADD;
	uint64_t r = *state >> 32;
#ifdef __CUDA_ARCH__
	// r < 2^32 and n < 2^40: the 128-bit product's bits 32..95
	uint64_t lo = r * n;
	uint64_t hi = __umul64hi(r, n);
	return (lo >> 32) | (hi << 32);
#else
	return (uint64_t)(((unsigned __int128)r * n) >> 32);
#endif
}

// The region's contents as gpuvm models them (data[i] is a function of i).
__host__ __device__ inline uint32_t sampling_value(uint64_t i)
{
	uint64_t x = i * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

__host__ __device__ inline uint32_t murmur3_rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

// MurmurHash3_x86_32 of one 32-bit key (Karnagel §2.2).
__host__ __device__ inline uint32_t murmur3_32(uint32_t key, uint32_t seed)
{
	uint32_t k = key * 0xcc9e2d51u;
	k = murmur3_rotl32(k, 15) * 0x1b873593u;
	uint32_t h = seed ^ k;
	h = murmur3_rotl32(h, 13) * 5 + 0xe6546b64u;
	h ^= 4;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

// One hash-table bucket: (value + 1, count); key 0 is empty.
struct groupby_bucket {
	uint32_t key;
	uint32_t count;
};

__host__ __device__ inline uint64_t groupby_home(uint32_t value, uint64_t buckets)
{
	return murmur3_32(value, 0) % buckets;
}

// Inserts one value by linear probing: atomicCAS claims an empty bucket or
// finds the value's own, then atomicAdd counts it.
__device__ inline void groupby_insert(groupby_bucket *table, uint64_t buckets, uint32_t value,
				      uint64_t b)
{
	uint32_t key = value + 1;
	for (;;) {
		uint32_t old = atomicCAS(&table[b].key, 0u, key);
		if (old == 0u || old == key) {
			atomicAdd(&table[b].count, 1u);
			return;
		}
		if (++b == buckets)
			b = 0;
	}
}

#endif
