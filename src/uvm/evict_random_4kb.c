/* random-4kb: UVMSmart Random-4KB (-eviction_policy 3): one resident page
 * chosen uniformly at random (research/uvm-anchors.md 2.4). */
#include "uvm/evict.h"

#include "uvm/prefetch.h"

static struct uvm_block *random_pick(void *st, const struct uvm_space *sp, uint64_t *mask)
{
	(void)st;
	if (!sp->resident_pages)
		return NULL;
	uint64_t k = uvm_rng_next(sp->rng) % sp->resident_pages;
	for (uint32_t i = 0; i < sp->n; i++) {
		struct uvm_block *b = sp->blocks[i];
		if (k >= b->resident_count) {
			k -= b->resident_count;
			continue;
		}
		for (uint32_t p = 0; p < UVM_BLOCK_PAGES; p++)
			if (mask_test(b->resident, p) && k-- == 0) {
				mask_set(mask, p);
				return b;
			}
	}
	return NULL;
}

const struct uvm_evict_ops uvm_evict_random_4kb = {
	.name = "random-4kb",
	.help = "UVMSmart Random-4KB: one resident 4 KB page chosen at random",
	.pick = random_pick,
};
