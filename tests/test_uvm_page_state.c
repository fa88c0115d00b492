/* A managed page's life cycle (src/uvm/uvm_page_state.h): every op tried
 * from every combination of a page's five state bits, against the legal
 * transitions listed here from docs/uvm.md's table (not from the code's
 * rules): each legal one is accepted and lands in its destination, by the
 * checked transition and by the build's own (the plain stores in
 * Release), and each other one is refused, reported to the hook and
 * leaves the page as it was. Then the per-page invariants of the
 * destination (U3, U9), a word with one bad page, and the per-processor
 * records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "uvm/uvm_page_state.h"

enum {
	H = 0, R = UVM_PG_R, P = UVM_PG_P, D = UVM_PG_D, E = UVM_PG_E, M = UVM_PG_M,
};

/* docs/uvm.md "A page's life cycle": op, from, to. */
static const struct {
	enum uvm_page_op op;
	uint32_t from, to;
} legal[] = {
	{UVM_OP_FAULT_IN, H, R}, {UVM_OP_FAULT_IN, E, R}, {UVM_OP_FAULT_IN, M, R},
	{UVM_OP_FAULT_IN, M | E, R},
	{UVM_OP_PREFETCH_IN, H, R | P}, {UVM_OP_PREFETCH_IN, E, R | P}, {UVM_OP_PREFETCH_IN, M, R | P},
	{UVM_OP_PREFETCH_IN, M | E, R | P},
	{UVM_OP_COPY_IN, H, R | D}, {UVM_OP_COPY_IN, E, R | D}, {UVM_OP_COPY_IN, M, R | D | M},
	{UVM_OP_COPY_IN, M | E, R | D | M},
	{UVM_OP_TOUCH, R | P, R}, {UVM_OP_TOUCH, R | P | D, R | D}, {UVM_OP_TOUCH, R | P | M, R | M},
	{UVM_OP_TOUCH, R | P | D | M, R | D | M},
	{UVM_OP_WRITE, R, R | D}, {UVM_OP_WRITE, R | P, R | P | D}, {UVM_OP_WRITE, R | D, R | D},
	{UVM_OP_WRITE, R | P | D, R | P | D}, {UVM_OP_WRITE, R | M, R | D | M},
	{UVM_OP_WRITE, R | P | M, R | P | D | M}, {UVM_OP_WRITE, R | D | M, R | D | M},
	{UVM_OP_WRITE, R | P | D | M, R | P | D | M},
	{UVM_OP_MAP_REMOTE, H, M}, {UVM_OP_MAP_REMOTE, E, E | M},
	{UVM_OP_NOTICE_KEEP, H, M}, {UVM_OP_NOTICE_KEEP, E, E | M}, {UVM_OP_NOTICE_KEEP, R, R | M},
	{UVM_OP_NOTICE_KEEP, R | P, R | P | M}, {UVM_OP_NOTICE_KEEP, R | D, R | D | M},
	{UVM_OP_NOTICE_KEEP, R | P | D, R | P | D | M},
	{UVM_OP_ARRIVED, R | M, R}, {UVM_OP_ARRIVED, R | P | M, R | P}, {UVM_OP_ARRIVED, R | D | M, R | D},
	{UVM_OP_ARRIVED, R | P | D | M, R | P | D},
	{UVM_OP_EVICT, R, E}, {UVM_OP_EVICT, R | P, E}, {UVM_OP_EVICT, R | D, E},
	{UVM_OP_EVICT, R | P | D, E}, {UVM_OP_EVICT, R | M, E}, {UVM_OP_EVICT, R | P | M, E},
	{UVM_OP_EVICT, R | D | M, E}, {UVM_OP_EVICT, R | P | D | M, E},
	{UVM_OP_WRITE_BACK, R | D, H}, {UVM_OP_WRITE_BACK, R | P | D, H},
	{UVM_OP_WRITE_BACK, R | D | M, H}, {UVM_OP_WRITE_BACK, R | P | D | M, H},
	{UVM_OP_FREE, R, H}, {UVM_OP_FREE, R | P, H}, {UVM_OP_FREE, R | D, H}, {UVM_OP_FREE, R | P | D, H},
	{UVM_OP_FREE, R | M, M}, {UVM_OP_FREE, R | P | M, M}, {UVM_OP_FREE, R | D | M, M},
	{UVM_OP_FREE, R | P | D | M, M},
	{UVM_OP_MIGRATE_IN, H, R}, {UVM_OP_MIGRATE_IN, E, R}, {UVM_OP_MIGRATE_IN, M, R},
	{UVM_OP_MIGRATE_IN, M | E, R},
	{UVM_OP_MIGRATE_OUT, R, H}, {UVM_OP_MIGRATE_OUT, R | P, H}, {UVM_OP_MIGRATE_OUT, R | D, H},
	{UVM_OP_MIGRATE_OUT, R | P | D, H}, {UVM_OP_MIGRATE_OUT, R | M, H},
	{UVM_OP_MIGRATE_OUT, R | P | M, H}, {UVM_OP_MIGRATE_OUT, R | D | M, H},
	{UVM_OP_MIGRATE_OUT, R | P | D | M, H},
};
#define N_LEGAL (sizeof legal / sizeof legal[0])

static int refusals, last_refusal;
static char last_why[512];

static void record(int refusal, const char *why)
{
	refusals++;
	last_refusal = refusal;
	snprintf(last_why, sizeof last_why, "%s", why);
}

/* A block whose managed span is the whole 2 MB, every page HOST. */
static struct uvm_block *block_new(void)
{
	struct uvm_block *b = calloc(1, sizeof *b);
	assert_non_null(b);
	b->base = 0x7f0000000000ull;
	b->first_page = 0;
	b->end_page = UVM_BLOCK_PAGES;
	return b;
}

static void set_state(struct uvm_proc_pages *m, uint32_t p, uint32_t s)
{
	uint64_t *masks[5] = {m->resident, m->prefetched, m->dirty, m->evicted, m->remote};
	for (int k = 0; k < 5; k++) {
		if (s & (1u << k))
			mask_set(masks[k], p);
		else
			mask_clear(masks[k], p);
	}
}

static int find_legal(enum uvm_page_op op, uint32_t from)
{
	for (size_t i = 0; i < N_LEGAL; i++)
		if (legal[i].op == op && legal[i].from == from)
			return (int)i;
	return -1;
}

static void test_every_op_from_every_state(void **state)
{
	(void)state;
	uvm_page_refusal_hook = record;
	const uint32_t p = 70; /* word 1, bit 6: neighbours on both sides */
	uint32_t accepted = 0, refused = 0;
	for (int op = 0; op < UVM_PAGE_OPS; op++) {
		for (uint32_t s = 0; s < UVM_PG_STATES; s++) {
			struct uvm_block *b = block_new();
			set_state(&b->gpu0, p, s);
			int k = uvm_page_state_legal(s) ? find_legal((enum uvm_page_op)op, s) : -1;
			refusals = 0;
			char from[64];
			uvm_page_state_name(s, from, sizeof from);
			int r = uvm_pages_transition_checked(b, UVM_PROC_GPU0, (enum uvm_page_op)op, p >> 6,
							     1ull << (p & 63));
			if (k >= 0) {
				if (r || refusals)
					fail_msg("%s from %s refused (%d): %s", uvm_page_op_name((enum uvm_page_op)op),
						 from, r, last_why);
				char got[64], want[64];
				uvm_page_state_name(uvm_page_state_of(b, UVM_PROC_GPU0, p), got, sizeof got);
				uvm_page_state_name(legal[k].to, want, sizeof want);
				if (uvm_page_state_of(b, UVM_PROC_GPU0, p) != legal[k].to)
					fail_msg("%s from %s: %s, want %s", uvm_page_op_name((enum uvm_page_op)op),
						 from, got, want);
				/* the build's own transition (Release: the plain stores) agrees */
				struct uvm_block *c = block_new();
				set_state(&c->gpu0, p, s);
				uvm_page_transition(c, UVM_PROC_GPU0, (enum uvm_page_op)op, p);
				assert_int_equal(uvm_page_state_of(c, UVM_PROC_GPU0, p), legal[k].to);
				free(c);
				accepted++;
			} else {
				if (!r || refusals != 1)
					fail_msg("%s from %s accepted", uvm_page_op_name((enum uvm_page_op)op), from);
				assert_int_equal(r, last_refusal);
				assert_int_equal(r, uvm_page_state_legal(s) ? UVM_PT_NOT_FROM : UVM_PT_CORRUPT);
				assert_int_equal(uvm_page_state_of(b, UVM_PROC_GPU0, p), s); /* unchanged */
				assert_non_null(strstr(last_why, uvm_page_op_name((enum uvm_page_op)op)));
				assert_non_null(strstr(last_why, "page 70"));
				refused++;
			}
			/* the neighbours stay HOST */
			assert_int_equal(uvm_page_state_of(b, UVM_PROC_GPU0, p - 1), 0);
			assert_int_equal(uvm_page_state_of(b, UVM_PROC_GPU0, p + 1), 0);
			free(b);
		}
	}
	/* every listed transition was tried from a legal state */
	assert_int_equal(accepted, N_LEGAL);
	assert_int_equal(refused, UVM_PAGE_OPS * UVM_PG_STATES - N_LEGAL);
	uvm_page_refusal_hook = NULL;
}

/* The legal states are exactly the twelve of the header's list. */
static void test_states(void **state)
{
	(void)state;
	uint32_t n = 0;
	for (uint32_t s = 0; s < UVM_PG_STATES; s++)
		n += (uint32_t)uvm_page_state_legal(s);
	assert_int_equal(n, 12);
	assert_false(uvm_page_state_legal(P));     /* U6 */
	assert_false(uvm_page_state_legal(D | M)); /* U7 */
	assert_false(uvm_page_state_legal(R | E)); /* U8 */
	char buf[64];
	uvm_page_state_name(R | P | D | M, buf, sizeof buf);
	assert_string_equal(buf, "resident+prefetched+dirty+remote");
	uvm_page_state_name(E, buf, sizeof buf);
	assert_string_equal(buf, "host+evicted");
}

/* A destination that breaks U3 or U9, and a word with one page a
 * transition does not apply to: refused whole, nothing changed. */
static void test_destination_and_words(void **state)
{
	(void)state;
	uvm_page_refusal_hook = record;
	struct uvm_block *b = block_new();
	b->first_page = 16;
	b->end_page = 100;
	refusals = 0;
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_GPU0, UVM_OP_FAULT_IN, 0, 1ull << 3),
			 UVM_PT_DESTINATION); /* page 3, outside the span */
	assert_non_null(strstr(last_why, "U3:"));
	b->arrive[20] = 50;
	b->arrive_max = 40;
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_GPU0, UVM_OP_FAULT_IN, 0, 1ull << 20),
			 UVM_PT_DESTINATION); /* arrives after arrive_max */
	assert_non_null(strstr(last_why, "U9:"));
	b->arrive_max = 50;
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_GPU0, UVM_OP_FAULT_IN, 0, 1ull << 20), 0);
	/* pages 20 (resident now) and 21 (host): FAULT_IN of both is refused */
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_GPU0, UVM_OP_FAULT_IN, 0,
						      (1ull << 20) | (1ull << 21)),
			 UVM_PT_NOT_FROM);
	assert_int_equal(uvm_page_state_of(b, UVM_PROC_GPU0, 21), 0);
	assert_int_equal(refusals, 3);
	/* a whole word at once: EVICT of 20 after PREFETCH_IN of 21..40 */
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_GPU0, UVM_OP_PREFETCH_IN, 0,
						      ((1ull << 20) - 1) << 21), 0);
	assert_int_equal(mask_count(b->prefetched), 20);
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_GPU0, UVM_OP_EVICT, 0, b->resident[0]), 0);
	assert_int_equal(mask_count(b->evicted), 21);
	assert_true(mask_empty(b->resident) && mask_empty(b->prefetched));
	free(b);
	uvm_page_refusal_hook = NULL;
}

/* Per processor: one GPU keeps no record for the host (derived: on the
 * host when not on GPU0) or another GPU; once a block has the others'
 * records, a transition of one processor changes its own record only. */
static void test_per_processor(void **state)
{
	(void)state;
	uvm_page_refusal_hook = record;
	struct uvm_block *b = block_new();
	assert_int_equal(uvm_page_state_of(b, UVM_PROC_CPU, 9), R);
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_GPU0, UVM_OP_FAULT_IN, 0, 1ull << 9), 0);
	assert_int_equal(uvm_page_state_of(b, UVM_PROC_CPU, 9), H);
	assert_int_equal(uvm_pages_transition_checked(b, UVM_PROC_CPU, UVM_OP_FAULT_IN, 0, 1ull << 9),
			 UVM_PT_NO_RECORD);
	assert_int_equal(uvm_pages_transition_checked(b, 2, UVM_OP_FAULT_IN, 0, 1ull << 9), UVM_PT_NO_RECORD);
	assert_int_equal(uvm_page_state_of(b, 2, 9), H);

	b->others = calloc(UVM_MAX_PROCS - 1, sizeof *b->others);
	assert_non_null(b->others);
	/* GPU 2 maps page 9 remotely while GPU0 holds it; GPU 8 faults page 10 */
	assert_int_equal(uvm_pages_transition_checked(b, 2, UVM_OP_MAP_REMOTE, 0, 1ull << 9), 0);
	assert_int_equal(uvm_pages_transition_checked(b, UVM_MAX_PROCS - 1, UVM_OP_FAULT_IN, 0, 1ull << 10), 0);
	assert_int_equal(uvm_page_state_of(b, 2, 9), M);
	assert_int_equal(uvm_page_state_of(b, UVM_PROC_GPU0, 9), R);
	assert_int_equal(uvm_page_state_of(b, UVM_MAX_PROCS - 1, 10), R);
	assert_int_equal(uvm_page_state_of(b, UVM_PROC_GPU0, 10), H);
	assert_int_equal(uvm_page_state_of(b, 2, 10), H);
	assert_int_equal(uvm_pages_transition_checked(b, UVM_MAX_PROCS, UVM_OP_FAULT_IN, 0, 1ull << 11),
			 UVM_PT_NO_RECORD); /* no such processor */
	free(b->others);
	free(b);
	uvm_page_refusal_hook = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_every_op_from_every_state),
		cmocka_unit_test(test_destination_and_words),
		cmocka_unit_test(test_per_processor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
