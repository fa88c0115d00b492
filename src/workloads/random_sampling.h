/* Karnagel et al. §2.1 random sampling: every thread draws `reads`
 * positions from its own LCG stream and sums the 32-bit values there. */
#ifndef GPUVM_RANDOM_SAMPLING_H
#define GPUVM_RANDOM_SAMPLING_H

#include <stdint.h>

#include "core/splitmix.h"

/* Knuth's MMIX LCG; positions come from the high 32 bits, which are the
 * well-mixed ones in a power-of-two-modulus LCG. */
#define SAMPLING_LCG_MUL 6364136223846793005ull
#define SAMPLING_LCG_ADD 1442695040888963407ull

static inline uint64_t sampling_lcg_seed(uint64_t seed, uint64_t tid)
{
	return splitmix64(seed ^ (tid * 0xD1B54A32D192ED03ull));
}

/* Advances the stream and returns a position in [0, n). */
static inline uint64_t sampling_next_position(uint64_t *state, uint64_t n)
{
	*state = *state * SAMPLING_LCG_MUL + SAMPLING_LCG_ADD;
	uint64_t r = *state >> 32;
	return (uint64_t)(((unsigned __int128)r * n) >> 32);
}

/* The region's contents: data[i] is a fixed function of i, so the region
 * need not be stored to know what the GPU would have summed. */
static inline uint32_t sampling_value(uint64_t i)
{
	uint64_t x = i * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

struct gpuvm_config;
struct gpuvm_params;
struct gpuvm_error;
struct scope_profile;

/* Describes a random-sampling spec to the scope model. */
int sampling_scope_profile(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			   struct scope_profile *prof, struct gpuvm_error *err);

/* Plain CPU reference of the whole kernel's sum (tests). */
uint64_t random_sampling_reference(uint64_t elems, uint64_t threads, uint64_t reads,
				   uint64_t seed);

#endif
