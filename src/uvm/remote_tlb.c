/* Remote TLB entries of UVMSmart's delayed migration: see remote_tlb.h. */
#include "uvm/remote_tlb.h"

#include <stdlib.h>

int uvm_rtlb_fill(struct uvm_block *b, uint32_t words, uint32_t p, uint32_t sm)
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
	b->rtlb[p * words + sm / 64u] |= 1ull << (sm % 64u);
	return 0;
}
