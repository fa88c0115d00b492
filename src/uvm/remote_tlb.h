/* Remote TLB entries of UVMSmart's delayed migration (uvm.remote_tlb_hits
 * = local). Owns, per 2 MB block, one bit per page and SM: "this SM's TLB
 * holds the entry a remote read of the page installed". Calls nothing
 * but calloc. Guarantees: with the key at link (the default) no block
 * gets the array and nothing here runs, so results are those without it.
 *
 * Why: in UVMSmart (gpgpu-sim_UVMSmart, the code behind seeds/004's
 * figures) a read below the access-counter threshold is a DMA
 * (gpu-sim.cc gmmu_t::cycle, should_cause_page_migration false:
 * latency_type::DMA, 200 cycles), and the returned request then takes the
 * ordinary path: ldst_unit::memory_cycle pushes it to the interconnect
 * (device L2/DRAM) and calls refresh_tlb(page), so the SM's later accesses
 * of the page hit the TLB in ldst_unit::access_cycle and never reach the
 * GMMU again: no link crossing, no migration decision (the counter still
 * counts them, shader.cc inc_bb_access_counter). Only a TLB miss (another
 * SM, a TLB eviction or shootdown) asks should_cause_page_migration again.
 * The bit is cleared at the SM's walk of the page (a walk is a TLB miss)
 * and set by the remote read that follows it.
 *
 * With uvm.remote_tlb_fill = return (b->rtlb_at, one time per page and
 * SM) the entry serves only from the read's return on: UVMSmart fills
 * the TLB when ldst_unit::memory_cycle serves the returned request
 * (refresh_tlb), so an access of the page issued before then misses the
 * TLB in ldst_unit::access_cycle, goes to the GMMU and walks on its own
 * (gmmu_t::cycle, one page_table_walk_queue entry per request, none
 * merged), and should_cause_page_migration decides it again: a DMA of
 * its own below t_s, a far fault at it (UVMSmart's sssp logs, 2be17e0:
 * both reads of a frontier vertex's row are DMAs). With the key at read (the
 * default) rtlb_at stays NULL and the entry serves from the read on. */
#ifndef GPUVM_UVM_REMOTE_TLB_H
#define GPUVM_UVM_REMOTE_TLB_H

#include <stdbool.h>
#include <stdint.h>

#include "uvm/uvm_page.h"

/* words of SM bits per page: enough for sms SMs */
static inline uint32_t uvm_rtlb_words(uint32_t sms)
{
	return (sms + 63u) / 64u;
}

/* Whether SM sm's TLB holds a remote entry of page p of b at time t
 * (from its read on, or with rtlb_at from the read's return on). */
static inline bool uvm_rtlb_hit(const struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm,
				double t)
{
	return b->rtlb && sm / 64u < words && ((b->rtlb[p * words + sm / 64u] >> (sm % 64u)) & 1u) &&
	       (!b->rtlb_at || b->rtlb_at[(size_t)p * words * 64u + sm] <= t);
}

/* SM sm walks page p of b: its TLB held no entry of it. */
static inline void uvm_rtlb_walk(struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm)
{
	if (b->rtlb && sm / 64u < words)
		b->rtlb[p * words + sm / 64u] &= ~(1ull << (sm % 64u));
}

/* A remote read by SM sm of page p of b fills its TLB; at_return: the
 * entry serves from back (the read's return) on, the earlier return
 * where an entry is already on its way (uvm.remote_tlb_fill = return).
 * Returns -1 when the block's arrays cannot be allocated. */
int uvm_rtlb_fill(struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm, bool at_return,
		  double back);

#endif
