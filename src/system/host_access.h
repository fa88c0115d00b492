/* CPU phases touching memory between kernels (GPUVM_RUN_HOST_ACCESS,
 * simt_host_access), for the run loop of one GPU (run_loop.c) and of
 * several (multi_gpu.c).
 *
 * Contract:
 *  - Owns nothing: checks the operation against the GPU's allocations and
 *    hands managed ranges to the UVM driver's CPU-fault side
 *    (uvm_host_access, src/uvm/uvm_host_access.c).
 *  - May call: mem/ (alloc_table_find), uvm/ (uvm_host_access).
 *  - Guarantees: device memory (cudaMalloc) is refused with a message
 *    naming the allocation (the CPU cannot reach it); zero-copy memory
 *    and managed memory of a run without paging change nothing; the
 *    result is when the CPU has the data, never before t. */
#ifndef GPUVM_SYSTEM_HOST_ACCESS_H
#define GPUVM_SYSTEM_HOST_ACCESS_H

#include "system/system.h"

/* The bytes of op's range on sys's allocations the driver is to see
 * (clamped to the allocation; 0: nothing to model), or -1 with err set. */
int host_access_check(const struct system *sys, const struct gpuvm_run_op *op, uint64_t *bytes,
		      struct gpuvm_error *err);
/* The CPU touches [op->copy_addr, + bytes) on sys's GPU from t (cycles of
 * that GPU's clock): returns when the CPU has the data. */
double host_access_gpu(struct system *sys, const struct gpuvm_run_op *op, uint64_t bytes, double t);

#endif
