/* BigKernel's fidelity at CI scale (Mokhtari's thesis ch. 4, src/bigkernel):
 * Fig. 4.10's ordering of BigKernel over single and double buffering on a
 * communication-bound and a computation-bound application, and Table
 * 4.2's pattern recognition on byte-granular and record-granular address
 * streams, two-sided. Their ratios need 16 MiB runs (the thesis's gains
 * are per chunk of records), so they are a fidelity test, which make
 * check runs in its Release pass alone; tests/test_bigkernel.c runs each
 * application in every variant at 1 MiB, in every pass (issue 80: these
 * two cases were 72 % of test_bigkernel's time under ASan). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "run_util.h"

/* Fig. 4.10 (4.4.1): BigKernel beats double buffering on a
 * communication-bound application (Netflix: 30 % of each record read,
 * the rest need not cross PCIe) by far more than on Opinion Finder,
 * whose lexical analysis dominates (thesis: 1.7x on average, up to 3.1x;
 * Opinion Finder among the least improved); the interleaved layout speeds
 * the computation itself up (4.4.2: coalescing). Table 4.2: patterns
 * instead of addresses help byte-granular Opinion Finder. */
static void test_fidelity(void **state)
{
	(void)state;
	char *nf = run_result("k80", "bigkernel:app=netflix,size=16MiB,chunk=2MiB,um=0", 1);
	char *of = run_result("k80", "bigkernel:app=of,size=16MiB,chunk=2MiB,um=0", 1);
	double nf_d = result_line_ratio(nf, "double_us=", "bk_us=");
	double nf_s = result_line_ratio(nf, "single_us=", "bk_us=");
	double of_d = result_line_ratio(of, "double_us=", "bk_us=");
	double of_pat = result_line_ratio(of, "bknp_us=", "bk_us=");
	/* 4.4.2: the interleaved layout coalesces the computation's reads */
	double nf_c = result_line_ratio(nf, "base_comp_us=", "comp_us=");
	print_message("netflix: %.2fx over single, %.2fx over double, computation %.2fx; of: %.2fx "
		      "over double, patterns %.2fx\n", nf_s, nf_d, nf_c, of_d, of_pat);
	assert_in_range((long)(nf_c * 100), 130, 400);
	assert_in_range((long)(nf_d * 100), 140, 340);
	assert_in_range((long)(nf_s * 100), 200, 600);
	/* Opinion Finder gains less than Netflix and at most 1.6x; that
	 * BigKernel beats double buffering on it too (the thesis: "across
	 * all applications", 4.4.1) is a known miss at this configuration
	 * since its dictionaries hold words (of_keys=1, 2026-11-30): its
	 * computation dominates, and at the full GPU's threads address
	 * generation shares the GPU serially with it (bkser_us), 0.965x
	 * here (1.22x with of_keys=0); the sweep's best configurations on
	 * gtx680 give 1.30x (docs/notes/2026-11-30-bigkernel-ofwords-record.md) */
	assert_true(of_d * 100 <= 160);
	fidelity_known_miss(of_d >= 1.0, "Opinion Finder: BigKernel at least double buffering's speed "
					 "(k80, 16 MiB, 2 MiB chunks)");
	assert_true(of_d < nf_d);
	/* patterns help; how much is the address stream's link time (8 B
	 * written per byte read without them, 4.65x since zero-copy stores
	 * cost link time; the thesis's Table 4.2 has +6 %, see the BigKernel section of
	 * docs/notes/2026-11-29-readme-lab-notebook.md) */
	assert_in_range((long)(of_pat * 100), 110, 900);
	free(nf);
	free(of);
}

/* Table 4.2 (4.4.4: the gain "depends on the number of addresses sent
 * ... which in turn depends on the granularity of the data being
 * accessed"): DNA Assembly sends one address per fragment read (46 bytes
 * of its 128-byte record), as the author's own prediction threads do
 * (bk_template's addr_per_run), so patterns save little (thesis +7 %;
 * here 0.70-1.39x around 1.00x: at these 2 MiB chunks a thread has one
 * record, one address, which no pattern compresses; it was 0.80x while
 * a single address went out as a 5-word pattern, bk_pat_finish), where
 * a byte stream's address per byte makes them
 * worth several times (Opinion Finder above, Word Count here: the thesis
 * says one address per character). Two-sided: an address per base
 * (addr_per_run off) gives DNA 5.5x and fails. */
static void test_address_granularity(void **state)
{
	(void)state;
	char *dna = run_result("k80", "bigkernel:app=dna,size=16MiB,chunk=2MiB,um=0,volume=0", 1);
	char *wc = run_result("k80", "bigkernel:app=wc,size=4MiB,chunk=1MiB,um=0,volume=0", 1);
	double dna_pat = result_line_ratio(dna, "bknp_us=", "bk_us=");
	double wc_pat = result_line_ratio(wc, "bknp_us=", "bk_us=");
	print_message("patterns over addresses: dna %.2fx (an address per read), wc %.2fx (per "
		      "character)\n", dna_pat, wc_pat);
	assert_in_range((long)(dna_pat * 100), 70, 139);
	assert_in_range((long)(wc_pat * 100), 150, 900);
	assert_true(wc_pat > 1.5 * dna_pat);
	free(dna);
	free(wc);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fidelity),
		cmocka_unit_test(test_address_granularity),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	printf("known misses reported (not asserted; GPUVM_FIDELITY_STRICT=1 asserts them): %d\n",
	       fidelity_known_misses);
	return rc;
}
