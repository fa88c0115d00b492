/* next-n (src/uvm/prefetch_next_n.c): Smith's one-block lookahead on a
 * miss, in 64 KB basic blocks, inside the fault's 2 MB block; its degree
 * parameter; and a managed run that shows it is wired in: a forward stream
 * faults less with it than without a prefetcher. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/module.h"
#include "run_util.h"
#include "uvm/prefetch.h"

/* the pages next-n adds for faults at fault[0..nf) with degree (0: the
 * row default), given resident pages [res_lo, res_hi) */
static void next_n(const uint32_t *fault, size_t nf, double degree, uint32_t first, uint32_t end,
		   uvm_mask out)
{
	const struct gpuvm_module *m = gpuvm_module_find(GPUVM_MODULE_PREFETCH, "next-n");
	assert_non_null(m);
	const struct uvm_prefetch_ops *ops = m->ops;
	uvm_mask res = {0}, flt = {0};
	for (size_t i = 0; i < nf; i++)
		mask_set(flt, fault[i]);
	uint64_t rng = 1;
	double p[1] = {degree};
	struct uvm_prefetch_ctx c = {.resident = res, .faulted = flt, .first_page = first, .end_page = end,
				     .rng = &rng, .params = degree > 0 ? p : NULL};
	memset(out, 0, sizeof(uvm_mask));
	ops->compute(&c, out);
}

static void test_one_block_lookahead(void **state)
{
	(void)state;
	uvm_mask out;
	/* default degree 1: a fault in page 20 (basic block 1: pages 16-31)
	 * prefetches block 2 (32-47), not the rest of its own block */
	next_n((uint32_t[]){20}, 1, 0, 0, UVM_BLOCK_PAGES, out);
	assert_int_equal(mask_count(out), 16);
	assert_int_equal(mask_count_range(out, 32, 48), 16);
	assert_false(mask_test(out, 21));
	/* degree 3: blocks 2, 3, 4 */
	next_n((uint32_t[]){20}, 1, 3, 0, UVM_BLOCK_PAGES, out);
	assert_int_equal(mask_count(out), 48);
	assert_int_equal(mask_count_range(out, 32, 80), 48);
	/* never past the 2 MB block: the last basic block has no lookahead */
	next_n((uint32_t[]){UVM_BLOCK_PAGES - 1}, 1, 4, 0, UVM_BLOCK_PAGES, out);
	assert_true(mask_empty(out));
	next_n((uint32_t[]){UVM_BLOCK_PAGES - 20}, 1, 4, 0, UVM_BLOCK_PAGES, out);
	assert_int_equal(mask_count(out), 16);
	/* two faults: each gets its lookahead */
	next_n((uint32_t[]){0, 100}, 2, 1, 0, UVM_BLOCK_PAGES, out);
	assert_int_equal(mask_count(out), 32);
	assert_int_equal(mask_count_range(out, 16, 32), 16);
	assert_int_equal(mask_count_range(out, 112, 128), 16);
}

static double faults_of(const char *prefetcher, const char *degree)
{
	char pf[96], dg[96];
	struct gpuvm_run_spec spec = {.gpu = "p100", .workload = "stream-triad:elems=1048576,mem=managed",
				      .seed = 1};
	snprintf(pf, sizeof pf, "uvm.prefetcher=%s", prefetcher);
	spec.sets[spec.n_sets++] = pf;
	if (degree) {
		snprintf(dg, sizeof dg, "uvm.prefetcher.next-n.degree=%s", degree);
		spec.sets[spec.n_sets++] = dg;
	}
	cJSON *o = run_report(&spec);
	double f = report_num(cJSON_GetObjectItemCaseSensitive(o, "uvm"), "far_faults");
	cJSON_Delete(o);
	return f;
}

/* wired in: on a forward stream the lookahead turns faults into
 * prefetches, more of them with a larger degree */
static void test_managed_run(void **state)
{
	(void)state;
	double none = faults_of("none", NULL), one = faults_of("next-n", NULL),
	       four = faults_of("next-n", "4");
	assert_true(one < none);
	assert_true(four < one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_block_lookahead),
		cmocka_unit_test(test_managed_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
