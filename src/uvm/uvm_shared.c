/* Residency shared by the GPUs of a system (uvm_shared.h holds the contract). */
#include "uvm/uvm_shared.h"

#include <stdlib.h>
#include <string.h>

int uvm_shared_init(struct uvm_shared *sh, uint32_t n_gpus)
{
	memset(sh, 0, sizeof *sh);
	sh->n_gpus = n_gpus;
	return uvm_map_init(&sh->blocks, 64);
}

void uvm_shared_free(struct uvm_shared *sh)
{
	for (uint32_t i = u64map_next(&sh->blocks, 0); i < u64map_slots(&sh->blocks);
	     i = u64map_next(&sh->blocks, i + 1))
		free((void *)(uintptr_t)sh->blocks.e[i].val);
	uvm_map_free(&sh->blocks);
}

/* The block's owners, made (every page the CPU's) at its first take. */
static uint8_t *owners(struct uvm_shared *sh, uint64_t base)
{
	struct uvm_map_entry *x = uvm_map_find(&sh->blocks, base >> UVM_BLOCK_SHIFT);
	if (x)
		return (uint8_t *)(uintptr_t)x->val;
	uint8_t *o = calloc(UVM_BLOCK_PAGES, 1); /* 0: UVM_PROC_CPU */
	if (!o || !uvm_map_insert(&sh->blocks, base >> UVM_BLOCK_SHIFT, (uint64_t)(uintptr_t)o)) {
		free(o);
		sh->oom = true;
		return NULL;
	}
	return o;
}

void uvm_shared_take(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc)
{
	uint8_t *o = owners(sh, base);
	if (!o)
		return;
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p + 1, true)) {
		if (o[p] != UVM_PROC_CPU && o[p] != proc)
			sh->stale |= 1ull << (o[p] - 1);
		o[p] = (uint8_t)proc;
	}
}

void uvm_shared_release(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc)
{
	struct uvm_map_entry *x = uvm_map_find(&sh->blocks, base >> UVM_BLOCK_SHIFT);
	if (!x)
		return;
	uint8_t *o = (uint8_t *)(uintptr_t)x->val;
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p + 1, true))
		if (o[p] == proc)
			o[p] = UVM_PROC_CPU;
}
