/* Shared pieces of the multi-GPU workloads (triad-mgpu, jacobi-mgpu,
 * allgather-mgpu): the gpus= parameter and the split of n items over
 * GPUs. They run on a system of several GPUs (gpuvm sim --system) with
 * device memory on each and peer copies between them; gpus=1 runs on a
 * plain preset too. */
#ifndef GPUVM_SUITE_MGPU_H
#define GPUVM_SUITE_MGPU_H

#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/workload.h"

#define MGPU_GPUS_PARAM                                                                   \
	{"gpus", GPUVM_PARAM_U64, "0",                                                    \
	 "GPUs to split over (GPU 0 to gpus-1); 0: every GPU of the system (--system)"}
/* its range (the system's GPU count is checked by mgpu_gpus) */
#define MGPU_GPUS_RANGE GPUVM_RANGE("gpus", 0, GPUVM_SYS_MAX_GPUS)

/* Reads gpus= (0: cfg->system_gpus, 1 on a preset); refuses more than
 * the system has, naming both. */
static inline int mgpu_gpus(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			    uint32_t *gpus, struct gpuvm_error *err)
{
	uint64_t n = 0, have = cfg->system_gpus ? cfg->system_gpus : 1;
	if (gpuvm_params_u64(p, "gpus", &n, err) < 0)
		return -1;
	if (!n)
		n = have;
	if (n > have)
		return gpuvm_params_constraint(err, "gpus",
				  "%llu GPUs asked for and the system has %llu (--system NAME with "
				  "more, e.g. dgx-h100-8)", (unsigned long long)n,
				  (unsigned long long)have);
	*gpus = (uint32_t)n;
	return 0;
}

/* Items [first, first + count) of n split as evenly as possible over
 * gpus, the first n % gpus GPUs taking one more. */
static inline void mgpu_split(uint64_t n, uint32_t gpus, uint32_t g, uint64_t *first,
			      uint64_t *count)
{
	uint64_t base = n / gpus, extra = n % gpus;
	*first = g * base + (g < extra ? g : extra);
	*count = base + (g < extra);
}

#endif
