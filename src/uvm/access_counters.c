/* Access counters of 64 KB basic blocks (seeds/004 IV, "Access Counter
 * Maintenance"): see migrate.h. */
#include "uvm/migrate.h"

/* Halves the field (count or round trips) of every block's counters. */
static void halve_all(const struct uvm_space *sp, bool round_trips)
{
	for (uint32_t i = 0; i < sp->n; i++) {
		uint32_t *ac = sp->blocks[i]->ac;
		if (!ac)
			continue;
		for (uint32_t c = 0; c < UVM_BLOCK_CHUNKS; c++) {
			uint32_t n = uvm_ac_count(ac[c]), r = uvm_ac_round_trips(ac[c]);
			if (round_trips)
				r /= 2;
			else
				n /= 2;
			ac[c] = (r << UVM_AC_COUNT_BITS) | n;
		}
	}
}

bool uvm_ac_access(const struct uvm_space *sp, struct uvm_block *b, uint32_t ch)
{
	uint32_t *reg = &b->ac[ch];
	*reg = *reg + 1; /* the count is below its maximum: no carry into r */
	if (uvm_ac_count(*reg) < UVM_AC_COUNT_MAX)
		return false;
	halve_all(sp, false);
	return true;
}

bool uvm_ac_round_trip(const struct uvm_space *sp, struct uvm_block *b, uint32_t ch)
{
	uint32_t *reg = &b->ac[ch];
	*reg += 1u << UVM_AC_COUNT_BITS;
	if (uvm_ac_round_trips(*reg) < UVM_AC_RT_MAX)
		return false;
	halve_all(sp, true);
	return true;
}

uint64_t uvm_ac_block_count(const struct uvm_block *b)
{
	uint64_t n = 0;
	if (b->ac)
		for (uint32_t c = 0; c < UVM_BLOCK_CHUNKS; c++)
			n += uvm_ac_count(b->ac[c]);
	return n;
}
