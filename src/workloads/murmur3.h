/* MurmurHash3_x86_32 (Austin Appleby, public domain) specialised to one
 * 32-bit key, the hash Karnagel et al. §2.2 use for group-by. */
#ifndef GPUVM_MURMUR3_H
#define GPUVM_MURMUR3_H

#include <stdint.h>

static inline uint32_t murmur3_rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t murmur3_32(uint32_t key, uint32_t seed)
{
	uint32_t k = key * 0xcc9e2d51u;
	k = murmur3_rotl32(k, 15) * 0x1b873593u;
	uint32_t h = seed ^ k;
	h = murmur3_rotl32(h, 13) * 5 + 0xe6546b64u;
	h ^= 4; /* length in bytes */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

#endif
