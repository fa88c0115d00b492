/* Shared-memory bank conflicts: shared memory is banks x 4-byte words,
 * each bank serving one word per cycle (NVIDIA since Maxwell: 32 banks,
 * 128 B per cycle per SM; Accel-Sim GPU_Microbenchmark on a TITAN V: shared 126-128 B/clk).
 * Lanes reading the same word are served together (broadcast), so a
 * warp instruction takes as many cycles (wavefronts) as the most distinct
 * words any one bank must deliver, and at least its bytes / (banks x 4). */
#ifndef GPUVM_SMEM_BANKS_H
#define GPUVM_SMEM_BANKS_H

#include <stdint.h>

#include "gpuvm/config.h"

static inline uint32_t smem_wavefronts(const uint64_t *addr, uint32_t mask, uint32_t bytes_per_lane,
				       uint32_t banks)
{
	if (!mask)
		return 0;
	uint32_t words_per_lane = bytes_per_lane < 4 ? 1 : bytes_per_lane / 4;
	/* distinct words seen per bank; a warp touches at most 32 x 4 words */
	enum { MAX_WORDS = GPUVM_WARP_LANES * 4 };
	uint64_t word[MAX_WORDS];
	uint32_t n = 0, worst = 1;
	uint32_t count[256] = {0};
	if (banks > 256)
		banks = 256;
	for (uint32_t m = mask; m; m &= m - 1) {
		uint64_t a = addr[__builtin_ctz(m)] >> 2;
		for (uint32_t k = 0; k < words_per_lane && k < 4; k++) {
			uint64_t w = a + k;
			uint32_t b = (uint32_t)(w % banks);
			uint32_t i = 0;
			for (; i < n; i++)
				if (word[i] == w)
					break;
			if (i < n)
				continue; /* broadcast */
			word[n] = w;
			n++;
			if (++count[b] > worst)
				worst = count[b];
		}
	}
	uint32_t lanes = (uint32_t)__builtin_popcount(mask);
	uint32_t min_cycles = (lanes * bytes_per_lane + banks * 4 - 1) / (banks * 4);
	return worst > min_cycles ? worst : min_cycles;
}

#endif
