/* CPU phases touching memory between kernels: the checks shared by the
 * run loops and the hand-over to the UVM driver (host_access.h holds the
 * contract). */
#include "system/host_access.h"

int host_access_check(const struct system *sys, const struct gpuvm_run_op *op, uint64_t *bytes,
		      struct gpuvm_error *err)
{
	const struct gpuvm_alloc *ca = alloc_table_find(&sys->allocs, op->copy_addr);
	*bytes = 0;
	if (!ca)
		return gpuvm_fail(err, "engine", 0, NULL, "CPU access (simt_host_access) of %llu "
				  "bytes at 0x%llx outside every allocation",
				  (unsigned long long)op->copy_bytes,
				  (unsigned long long)op->copy_addr);
	if (ca->kind == GPUVM_ALLOC_DEVICE)
		return gpuvm_fail(err, "engine", 0, NULL, "CPU access (simt_host_access) of device "
				  "memory '%s' (cudaMalloc): the CPU cannot touch it; allocate it "
				  "managed (mem=managed) or copy it down (simt_download)",
				  ca->name);
	/* zero-copy memory is the CPU's own; managed memory without paging
	 * (uvm off) never leaves it */
	if (ca->kind == GPUVM_ALLOC_HOST_PINNED || !sys->uvm_on)
		return 0;
	uint64_t room = ca->base + ca->bytes - op->copy_addr;
	*bytes = op->copy_bytes < room ? op->copy_bytes : room;
	return 0;
}

double host_access_gpu(struct system *sys, const struct gpuvm_run_op *op, uint64_t bytes, double t)
{
	if (!bytes)
		return t;
	double end = uvm_host_access(&sys->uvm, op->copy_addr, bytes,
				     op->host_write ? UVM_HOST_WRITE : UVM_HOST_READ, t);
	return end > t ? end : t;
}
