/* Which allocation a managed page lies in, for what the allocation says
 * about it: its hints where allocations with different hints share a
 * block, and whether it is system-allocated memory the host touched.
 * Linear over the allocations (few; a block's common case is answered
 * from the block by the callers in uvm_fault.c). Reads struct uvm's
 * allocation table only. */
#include "uvm/uvm_impl.h"
#include "uvm/uvm.h"

/* The UVM_ADVISE_* hints of page p of b's allocation (b->advise_mixed:
 * the block holds allocations with different hints). */
uint32_t uvm_alloc_advise(const struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	uint64_t a = b->base + ((uint64_t)p << UVM_PAGE_SHIFT);
	for (uint32_t i = 0; i < u->n_allocs; i++)
		if (a >= u->allocs[i].base && a - u->allocs[i].base < u->allocs[i].bytes)
			return u->allocs[i].advise;
	return 0;
}

/* c2c.coherent: the system-allocated allocation page p of b lies in, or
 * NULL (not system memory). */
const struct uvm_range *uvm_system_range(const struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	uint64_t a = b->base + ((uint64_t)p << UVM_PAGE_SHIFT);
	for (uint32_t i = 0; i < u->n_allocs; i++) {
		const struct uvm_range *r = &u->allocs[i];
		if (a - r->base < r->bytes)
			return (r->advise & UVM_ADVISE_SYSTEM) ? r : NULL;
	}
	return NULL;
}

/* c2c.coherent: whether page p of b is system-allocated memory
 * (UVM_ADVISE_SYSTEM) and, if so, whether the host touched it first
 * (*host: it is in CPU memory; uvm_host_touch). */
bool uvm_system_page(const struct uvm *u, const struct uvm_block *b, uint32_t p, bool *host)
{
	const struct uvm_range *r = uvm_system_range(u, b, p);
	if (!r)
		return false;
	uint64_t a = b->base + ((uint64_t)p << UVM_PAGE_SHIFT);
	*host = uvm_range_host_touched(r, (a - r->base) >> UVM_PAGE_SHIFT);
	return true;
}

bool uvm_system_where(const struct uvm *u, const struct uvm_block *b, uint32_t p,
		      enum uvm_sys_where *where, uint32_t *who)
{
	bool host = false;
	if (!uvm_system_page(u, b, p, &host))
		return false;
	*who = 0;
	if (!u->shared) {
		*where = host ? UVM_SYS_CPU : UVM_SYS_UNPLACED;
		return true;
	}
	uint32_t gpu_proc, node;
	bool placed = uvm_shared_placed(uvm_shared_block(u->shared, b->base), p, &gpu_proc, &node);
	*where = !placed ? UVM_SYS_UNPLACED : gpu_proc != UVM_PROC_CPU ? UVM_SYS_GPU : UVM_SYS_CPU;
	*who = *where == UVM_SYS_GPU ? gpu_proc : node;
	return true;
}
