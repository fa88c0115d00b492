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
 * and set by the remote read that follows it. */
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

/* Whether SM sm's TLB holds a remote entry of page p of b. */
static inline bool uvm_rtlb_hit(const struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm)
{
	return b->rtlb && sm / 64u < words && ((b->rtlb[p * words + sm / 64u] >> (sm % 64u)) & 1u);
}

/* SM sm walks page p of b: its TLB held no entry of it. */
static inline void uvm_rtlb_walk(struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm)
{
	if (b->rtlb && sm / 64u < words)
		b->rtlb[p * words + sm / 64u] &= ~(1ull << (sm % 64u));
}

/* A remote read by SM sm of page p of b fills its TLB. Returns -1 when
 * the block's array cannot be allocated. */
int uvm_rtlb_fill(struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm);

#endif
