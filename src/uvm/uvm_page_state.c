/* The checker of a managed page's transitions (uvm_page_state.h, which
 * draws the life cycle): whether an op is legal from each page's state
 * and leaves the per-page invariants of uvm.c (U3, U6-U9) true; the
 * checked transition that debug and sanitizer builds make; the names of
 * ops and states for its messages. */
#include "uvm/uvm_page_state.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/invariant.h"

void (*uvm_page_refusal_hook)(int refusal, const char *why);

static const char *const op_names[UVM_PAGE_OPS] = {
	[UVM_OP_FAULT_IN] = "FAULT_IN",       [UVM_OP_PREFETCH_IN] = "PREFETCH_IN",
	[UVM_OP_COPY_IN] = "COPY_IN",         [UVM_OP_TOUCH] = "TOUCH",
	[UVM_OP_WRITE] = "WRITE",             [UVM_OP_MAP_REMOTE] = "MAP_REMOTE",
	[UVM_OP_NOTICE_KEEP] = "NOTICE_KEEP", [UVM_OP_ARRIVED] = "ARRIVED",
	[UVM_OP_EVICT] = "EVICT",             [UVM_OP_WRITE_BACK] = "WRITE_BACK",
	[UVM_OP_FREE] = "FREE",
	[UVM_OP_MIGRATE_IN] = "MIGRATE_IN",
	[UVM_OP_MIGRATE_OUT] = "MIGRATE_OUT",
};

const char *uvm_page_op_name(enum uvm_page_op op)
{
	return (unsigned)op < UVM_PAGE_OPS ? op_names[op] : "?";
}

void uvm_page_state_name(uint32_t s, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", s & UVM_PG_R ? "resident" : "host",
		 s & UVM_PG_P ? "+prefetched" : "", s & UVM_PG_D ? "+dirty" : "",
		 s & UVM_PG_E ? "+evicted" : "", s & UVM_PG_M ? "+remote" : "");
}

#define refuse(why, len, code, n, ...) (gpuvm_violated(why, len, "UVM page transition", "U", n, __VA_ARGS__), (code))

int uvm_page_transition_legal(const struct uvm_block *b, uint32_t proc, enum uvm_page_op op,
			      uint32_t w, uint64_t bits, char *why, size_t len)
{
	if (why && len)
		why[0] = 0;
	unsigned long long base = (unsigned long long)b->base;
	const struct uvm_proc_pages *m = uvm_proc_pages_of((struct uvm_block *)(uintptr_t)b, proc);
	if ((unsigned)op >= UVM_PAGE_OPS || w >= UVM_MASK_WORDS || !m) {
		if (why && len)
			snprintf(why, len, "UVM page transition %s refused: processor %u keeps no record "
				 "in block %#llx (word %u)", uvm_page_op_name(op), proc, base, w);
		return UVM_PT_NO_RECORD;
	}
	struct uvm_page_rule r = uvm_page_rule(op);
	char from[64], to[64];
	for (uint64_t left = bits; left; left &= left - 1) {
		uint32_t p = w * 64 + (uint32_t)__builtin_ctzll(left);
		uint32_t s = uvm_page_state_of(b, proc, p);
		uint32_t d = (s & ~(uint32_t)r.clear) | r.set;
		uvm_page_state_name(s, from, sizeof from);
		uvm_page_state_name(d, to, sizeof to);
		if (!uvm_page_state_legal(s))
			return refuse(why, len, UVM_PT_CORRUPT, s & UVM_PG_R ? 8 : (s & UVM_PG_P ? 6 : 7),
				      "%s of page %u of block %#llx on processor %u: it is %s, no state",
				      uvm_page_op_name(op), p, base, proc, from);
		if ((s & r.need) != r.need || (s & r.forbid)) {
			if (why && len)
				snprintf(why, len, "UVM page transition %s refused for page %u of block "
					 "%#llx on processor %u: not a transition from %s",
					 uvm_page_op_name(op), p, base, proc, from);
			return UVM_PT_NOT_FROM;
		}
		if (!uvm_page_state_legal(d))
			return refuse(why, len, UVM_PT_DESTINATION, d & UVM_PG_R ? 8 : (d & UVM_PG_P ? 6 : 7),
				      "%s of page %u of block %#llx on processor %u: %s -> %s, no state",
				      uvm_page_op_name(op), p, base, proc, from, to);
		if (!(d & UVM_PG_R))
			continue;
		if (p < b->first_page || p >= b->end_page)
			return refuse(why, len, UVM_PT_DESTINATION, 3, "%s of page %u of block %#llx on "
				      "processor %u: resident outside the managed span [%u, %u)",
				      uvm_page_op_name(op), p, base, proc, b->first_page, b->end_page);
		/* arrive[] is GPU0's; another processor's record will carry its own */
		if (proc == UVM_PROC_GPU0 && b->arrive[p] > b->arrive_max)
			return refuse(why, len, UVM_PT_DESTINATION, 9, "%s of page %u of block %#llx on "
				      "processor %u: resident, arriving at %.17g after arrive_max %.17g",
				      uvm_page_op_name(op), p, base, proc, b->arrive[p], b->arrive_max);
	}
	return UVM_PT_LEGAL;
}

int uvm_pages_transition_checked(struct uvm_block *b, uint32_t proc, enum uvm_page_op op,
				 uint32_t w, uint64_t bits)
{
	char why[256];
	int r = uvm_page_transition_legal(b, proc, op, w, bits, why, sizeof why);
	if (!r) {
		uvm_pages_apply(uvm_proc_pages_of(b, proc), op, w, bits);
		return 0;
	}
	if (uvm_page_refusal_hook) {
		uvm_page_refusal_hook(r, why);
		return r;
	}
	fprintf(stderr, "gpuvm: %s\n", why);
	abort();
}
