/* SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): the one 64-bit mixer behind the workloads'
 * input streams, the policies' random choices, the probes' shuffles and
 * the memory side's address hashes. splitmix64_next(&s) is the generator
 * (the state advances by the golden gamma, the new state is mixed),
 * splitmix64(x) the counter-based form (x's own stream value), and
 * splitmix64_mix(z) the finalizer alone, for a hash of a value already
 * spread. (cuda/karnagel_common.cuh keeps its own copy: it compiles for
 * the device.) */
#ifndef GPUVM_SPLITMIX_H
#define GPUVM_SPLITMIX_H

#include <stdint.h>

#define SPLITMIX64_GAMMA 0x9E3779B97F4A7C15ull

static inline uint64_t splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static inline uint64_t splitmix64(uint64_t x)
{
	return splitmix64_mix(x + SPLITMIX64_GAMMA);
}

static inline uint64_t splitmix64_next(uint64_t *s)
{
	return splitmix64_mix(*s += SPLITMIX64_GAMMA);
}

#endif
