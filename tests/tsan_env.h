/* Whether a unit test runs in make check's ThreadSanitizer pass
 * (tests/CMakeLists.txt sets GPUVM_TEST_TSAN=1 in a GPUVM_TSAN build).
 * There a threaded test runs only what starts threads, on 3 of them: TSan
 * reports a race in the run that has it, so a one-thread run (no worker,
 * no pipe) can show it nothing, and whether N threads give one thread's
 * report is checked by the ASan + UBSan pass at 2 and 8, which runs every
 * case (test_thread_counts; scripts/check.sh). So the runs here are not
 * compared with one thread's: the windowed barrier's tests, test_simt_par
 * and test_graph run no one-thread reference under TSan (since
 * 2026-11-30: those references were a third of the pass's test CPU, and
 * every threaded line they ran the threaded runs run, measured with gcov:
 * docs/notes/2026-11-30-check-coverage-record.md). Three threads: a pipe
 * or pool with more than one helper, which race with each other as well
 * as with the engine. */
#ifndef GPUVM_TESTS_TSAN_ENV_H
#define GPUVM_TESTS_TSAN_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline bool test_under_tsan(void)
{
	const char *e = getenv("GPUVM_TEST_TSAN");
	return e && e[0] == '1' && e[1] == '\0';
}

/* The thread counts a threaded test runs (and, but under
 * ThreadSanitizer, compares with one thread's run): 2, 3 and 8, or 3
 * alone under ThreadSanitizer (not compared there: above), and 2 and 8
 * under ASan + UBSan (GPUVM_TEST_SANITIZED=1 without GPUVM_TEST_TSAN:
 * tests/sanitized_env.h). So make check compares at 2 and 8; 2 and 8 run
 * the lines 3 runs (one helper, and more than one: measured with
 * scripts/test-coverage.py). A build without sanitizers (make
 * check-quick) compares all three. Returns how many. */
static inline size_t test_thread_counts(const uint32_t **counts)
{
	static const uint32_t all[] = {2, 3, 8}, tsan[] = {3}, asan[] = {2, 8};
	const char *san = getenv("GPUVM_TEST_SANITIZED");
	if (test_under_tsan()) {
		*counts = tsan;
		return 1;
	}
	if (san && san[0] == '1' && san[1] == '\0') {
		*counts = asan;
		return sizeof asan / sizeof asan[0];
	}
	*counts = all;
	return sizeof all / sizeof all[0];
}

#endif
