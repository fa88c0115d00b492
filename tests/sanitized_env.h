/* Whether a unit test runs in make check's ASan + UBSan pass (or in the
 * coverage build that measures that pass, scripts/test-coverage.py):
 * tests/CMakeLists.txt sets GPUVM_TEST_SANITIZED=1 there, as it does for
 * the cli scripts. What that pass must run is every code path once, for
 * memory errors and undefined behaviour, which a small case reaches as
 * well as a large one (docs/testing.md); so a test whose assertions need a
 * large run may run a smaller case there, provided that
 *  - the lines it runs stay the same (scripts/test-coverage.py unique
 *    --leave shows what a test left out would lose; measure before and
 *    after), and
 *  - the test is labelled `release` (tests/CMakeLists.txt,
 *    GPUVM_TESTS_RELEASE), so its full-size case still runs in make
 *    check's Release pass. */
#ifndef GPUVM_TESTS_SANITIZED_ENV_H
#define GPUVM_TESTS_SANITIZED_ENV_H

#include <stdbool.h>
#include <stdlib.h>

static inline bool test_sanitized(void)
{
	const char *e = getenv("GPUVM_TEST_SANITIZED");
	return e && e[0] == '1' && e[1] == '\0';
}

#endif
