/* Remote TLB entries of UVMSmart's delayed migration: see remote_tlb.h. */
#include "uvm/remote_tlb.h"

#include <stdlib.h>

int uvm_rtlb_fill(struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm, bool at_return,
		  double back)
{
	/* allocated at the block's first remote read, so runs that never
	 * read remotely pay nothing: 512 pages x words x 8 B (4 KB for a
	 * GPU of at most 64 SMs) */
	if (sm / 64u >= words)
		return 0; /* not an SM of this GPU: nothing to remember */
	if (!b->rtlb) {
		b->rtlb = calloc((size_t)UVM_BLOCK_PAGES * words, sizeof *b->rtlb);
		if (!b->rtlb)
			return -1;
	}
	uint64_t *w = &b->rtlb[p * words + sm / 64u];
	bool held = (*w >> (sm % 64u)) & 1u;
	if (at_return) {
		/* 512 pages x words x 64 times (256 KB a block for at most 64
		 * SMs), at the block's first remote read under the key */
		if (!b->rtlb_at) {
			b->rtlb_at = malloc((size_t)UVM_BLOCK_PAGES * words * 64u * sizeof *b->rtlb_at);
			if (!b->rtlb_at)
				return -1;
		}
		double *at = &b->rtlb_at[(size_t)p * words * 64u + sm];
		if (!held || back < *at)
			*at = back;
	}
	*w |= 1ull << (sm % 64u);
	return 0;
}
