/* CLN, S-L1's cache lines per thread (Mokhtari's thesis, seeds/001,
 * 5.2.1): (shared memory per SM left by the application / threads per
 * SM) / 16, capped at one line per data structure and at CUDA's 48 KiB of
 * shared memory per block; 0 when a thread's share is below 16 B. Shared
 * by the S-L1 applications (sl1_apps.c) and BigKernel's computation
 * kernel with S-L1 (bigkernel/bk_runtime.c, Fig. 5.14). */
#ifndef GPUVM_SL1_CLN_H
#define GPUVM_SL1_CLN_H

#include <stdint.h>

#include "gpuvm/sl1.h"

/* The launch: grid CTAs of block threads, app_smem shared bytes per CTA
 * of the application's own, nds data structures; the preset's SM limits. */
static inline int sl1_cln_of(uint64_t smem_per_sm, uint32_t sms, uint32_t max_warps,
			     uint32_t max_ctas, uint64_t grid, uint64_t block, uint64_t app_smem, int nds)
{
	uint64_t warps = (block + GPUVM_WARP_LANES - 1) / GPUVM_WARP_LANES;
	uint64_t ctas = max_ctas;
	if (max_warps / warps < ctas)
		ctas = max_warps / warps;
	if (app_smem && smem_per_sm / app_smem < ctas)
		ctas = smem_per_sm / app_smem;
	uint64_t want = (grid + sms - 1) / sms; /* the launch's CTAs per SM */
	if (want < ctas)
		ctas = want;
	if (!ctas)
		return 0;
	uint64_t left = smem_per_sm - ctas * app_smem;
	uint64_t cln = left / (ctas * block) / SL1_LINE;
	/* CUDA's 48 KiB of shared memory per block */
	uint64_t per_block_max = ((48u << 10) - app_smem) / (block * SL1_LINE);
	if (cln > per_block_max)
		cln = per_block_max;
	return cln > (uint64_t)nds ? nds : (int)cln;
}

#endif
