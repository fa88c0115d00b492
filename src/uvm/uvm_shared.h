/* The residency of managed pages shared by the GPUs of a system: which
 * processor holds each page (the CPU, or GPU g as nvidia-uvm's processor
 * id g + 1, uvm_page.h), consulted by every GPU's UVM driver on a system
 * of several GPUs (src/system/multi_gpu.c). A one-GPU run has none
 * (struct uvm.shared NULL) and takes no path of this file.
 *
 * Contract:
 *  - Owns: the owner of each managed page (a byte per 4 KiB page, per 2 MB
 *    VA block touched; a page of no block is on the CPU), the set of GPUs
 *    whose own page records hold pages another GPU has since taken
 *    (stale), the counters of migrations between GPUs.
 *  - Requests: uvm_shared_take (a GPU's driver made pages resident: a
 *    fault, a prefetch, a copy in), uvm_shared_release (its driver dropped
 *    them to the host: eviction, write-back, cudaFree), uvm_shared_owner
 *    (where a page the driver is about to migrate comes from). The
 *    transfer between two GPUs is the engine's (peer_copy, wired by
 *    multi_gpu.c to link/peer_link.h: NVLink / NVSwitch, or staged through
 *    host memory where no GPU-GPU link joins them).
 *  - Guarantees: each page has one owner (no read duplication in this
 *    slice); a GPU that lost pages is marked stale until its driver drops
 *    them (uvm_invalidate_taken, uvm_evict.c), which the engine asks for
 *    before that GPU's next kernel, copy or synchronisation. Dropping them
 *    then rather than at the taking is exact only because kernels that
 *    may share managed pages do not overlap in time (multi_gpu.c
 *    serialises them; docs/systems.md "Managed memory on several GPUs").
 *  - May call: libc, the block map (uvm_map.h). */
#ifndef GPUVM_UVM_SHARED_H
#define GPUVM_UVM_SHARED_H

#include <stdbool.h>
#include <stdint.h>

#include "uvm/uvm_map.h"
#include "uvm/uvm_page.h"

struct uvm_shared {
	uint32_t n_gpus;
	struct uvm_map blocks; /* VA block number -> uint8_t[UVM_BLOCK_PAGES] owner ids */
	uint64_t stale; /* bit proc - 1 (a GPU): its record holds pages another GPU took */
	/* a migration of bytes from processor src to dst (GPUs), ready at t
	 * seconds: when it is done (seconds) */
	double (*peer_copy)(void *ctx, uint32_t src, uint32_t dst, double t, uint64_t bytes);
	void *ctx;
	uint64_t peer_pages, peer_transfers; /* migrated GPU to GPU */
	uint64_t invalidated_pages;          /* dropped from a GPU another took them from */
	bool oom;
};

int uvm_shared_init(struct uvm_shared *sh, uint32_t n_gpus);
void uvm_shared_free(struct uvm_shared *sh);
/* The owners of the block at base (NULL: none kept, every page the CPU's). */
static inline const uint8_t *uvm_shared_block(const struct uvm_shared *sh, uint64_t base)
{
	const struct uvm_map_entry *x = uvm_map_find(&sh->blocks, base >> UVM_BLOCK_SHIFT);
	return x ? (const uint8_t *)(uintptr_t)x->val : NULL;
}
/* proc now holds the pages of mask in the block at base; a GPU that held
 * one before is marked stale. */
void uvm_shared_take(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc);
/* The pages of mask that proc holds go back to the CPU. */
void uvm_shared_release(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc);

#endif
