/* A virtual-address layout that hands out aligned addresses like
 * cudaMalloc / cudaHostAlloc: the SIMT host side (simt_host.c) and the
 * built-in workloads (workloads/workload_util.h) allocate with it. It sits
 * in src/simt, below the workloads, so that the executor does not reach up
 * into the workloads' folder (docs/layers.tsv). */
#ifndef GPUVM_SIMT_VA_LAYOUT_H
#define GPUVM_SIMT_VA_LAYOUT_H

#include <stdint.h>

#include "gpuvm/stream.h"

/* Device allocations start 1 GiB aligned and are 2 MiB aligned after that
 * (cudaMalloc's large-allocation granularity); pinned host memory lives in
 * a separate range, as the UVA space does. */
#define VA_DEVICE_BASE 0x0000700000000000ull
#define VA_HOST_BASE 0x00007f0000000000ull
/* system-allocated memory: a region of its own, so the translation layer
 * tells its pages by address (xlat_set_system_range) */
#define VA_SYSTEM_BASE 0x0000780000000000ull
#define VA_ALIGN (2ull << 20)

struct va_layout {
	uint64_t next_device, next_host, next_system;
};

void va_layout_init(struct va_layout *v);
/* Fills *a and returns its base. */
uint64_t va_layout_alloc(struct va_layout *v, struct gpuvm_alloc *a, const char *name,
			 uint64_t bytes, enum gpuvm_alloc_kind kind);

#endif
