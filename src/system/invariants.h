/* The engine's invariant hook (GPUVM_CHECK_INVARIANTS builds): checks the
 * structures whose invariants are numbered at the top of their files --
 * every TLB instance and the page-walk cache (xlat/tlb.c), the L1 data
 * caches (mem/l1_cache.c), each memory partition's L2 (mem/l2_cache.c) and the UVM page state
 * (uvm/uvm.c, uvm/block_arena.c) -- and stops the run on the first
 * violation, naming the invariant, the structure and the kernel boundary.
 * It reads the components and changes nothing. */
#ifndef GPUVM_ENGINE_INVARIANTS_H
#define GPUVM_ENGINE_INVARIANTS_H

#include <stddef.h>
#include <stdint.h>

struct xlat;
struct l1_cache;
struct memsys;
struct uvm;

/* 0, or the first violated invariant's number with why set (the caller
 * decides what to do; engine_check_invariants_or_abort aborts). l1 and u
 * may be NULL (not in use). */
int engine_check_invariants(const struct xlat *x, const struct l1_cache *l1,
			    const struct memsys *ms, const struct uvm *u, char *why, size_t len);

/* Runs the checks; on a violation prints "gpuvm: invariant violated at
 * <when> of kernel <index>: <why>" and aborts, as an assert would. */
void engine_check_invariants_or_abort(const struct xlat *x, const struct l1_cache *l1,
				      const struct memsys *ms, const struct uvm *u,
				      const char *when, uint64_t kernel_index);

#endif
