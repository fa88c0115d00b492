/* Shared pieces of the built-in workloads: the virtual-address layout
 * (simt/va_layout.h, which the SIMT host side uses too), a source
 * that replays a short list of run operations (allocations, copies,
 * kernel launches: never per-instruction data), and small hash helpers. */
#ifndef GPUVM_WORKLOAD_UTIL_H
#define GPUVM_WORKLOAD_UTIL_H

#include <stdint.h>

#include "core/splitmix.h"
#include "gpuvm/stream.h"
#include "gpuvm/workload.h"
#include "simt/va_layout.h"

/* A source replaying a fixed list of operations. The workload owns impl
 * and frees it in destroy_impl. */
struct op_list {
	struct gpuvm_run_op *ops;
	size_t n, cap, next;
	void *impl;
	void (*result)(void *impl, char *buf, size_t len);
	uint64_t (*work_items)(void *impl);
	void (*destroy_impl)(void *impl);
};

int op_list_alloc(struct op_list *l, const struct gpuvm_alloc *a);
int op_list_kernel(struct op_list *l, struct gpuvm_kernel *k);
int op_list_copy(struct op_list *l, enum gpuvm_run_op_kind kind, uint64_t addr, uint64_t bytes);
/* Wraps l (moved into a heap object) as a source. */
int op_list_source(struct op_list *l, struct gpuvm_source *out, struct gpuvm_error *err);

/* Where a workload's data lives (the mem= parameter): device memory,
 * managed memory paged on demand, or copy-then-execute (explicit
 * host-to-device copies of every allocation up front, then device memory;
 * the baseline of Zheng et al., seeds/003 2). */
enum workload_mem { WL_MEM_DEVICE = 0, WL_MEM_MANAGED, WL_MEM_COPY };
#define WORKLOAD_MEM_CHOICES "device|managed|copy"
#define WORKLOAD_MEM_PARAM                                                                  \
	{ "mem", GPUVM_PARAM_CHOICE, WORKLOAD_MEM_CHOICES,                                   \
	  "device, managed (cudaMallocManaged, paged on demand) or copy (H2D copies first)" }

int workload_mem_param(const struct gpuvm_params *p, enum workload_mem *out,
		       struct gpuvm_error *err);
static inline enum gpuvm_alloc_kind workload_mem_kind(enum workload_mem m)
{
	return m == WL_MEM_MANAGED ? GPUVM_ALLOC_MANAGED : GPUVM_ALLOC_DEVICE;
}
/* Adds an allocation and, in copy mode, its up-front H2D copy. */
int workload_mem_alloc(struct op_list *l, enum workload_mem m, const struct gpuvm_alloc *a);

/* Checks a 1-D launch's threads and block parameters (messages name the
 * workload parameter). */
int workload_check_launch(uint64_t threads, uint64_t block, struct gpuvm_error *err);

/* Fills a 1-D kernel of ceil(threads / block) blocks. */
void workload_kernel_1d(struct gpuvm_kernel *k, const char *name,
			const struct gpuvm_kernel_ops *ops, void *impl, uint64_t threads,
			uint64_t block);

/* Issue slots of `muls` 32-bit integer multiplies on this GPU (preset key
 * gpu.imul32_issue_slots): a loop body's SASS estimate counts its
 * multiplies apart from its other instructions with this. */
static inline uint32_t workload_imul_insts(const struct gpuvm_config *cfg, uint32_t muls)
{
	return (uint32_t)(muls * cfg->imul32_issue_slots + 0.5);
}

/* Default thread count: every warp slot of the GPU busy. */
static inline uint64_t fill_gpu_threads(const struct gpuvm_config *cfg)
{
	return (uint64_t)cfg->sms * cfg->max_warps_per_sm * GPUVM_WARP_LANES;
}

/* a x b, or UINT64_MAX when it overflows (work estimates). */
static inline uint64_t workload_mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

#endif
