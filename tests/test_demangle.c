/* src/core/demangle.h: kernel names as the text report shows them.
 * Mangled C++ names (the Itanium ABI names that Accel-Sim and NVBit traces
 * record) come back demangled with their parameter types; anything else
 * (a C kernel, a synthetic workload's kernel, a name that only looks
 * mangled, an empty name) comes back unchanged, never NULL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/demangle.h"

static void expect(const char *name, const char *want)
{
	char *got = gpuvm_demangle(name);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_mangled_names_demangle(void **state)
{
	(void)state;
	/* the two kernels of the shipped traces (traces/accelsim-*) */
	expect("_Z6vecAddPdS_S_i", "vecAdd(double*, double*, double*, int)");
	expect("_Z15find_key_kernelPK5knodeiPKiPii",
	       "find_key_kernel(knode const*, int, int const*, int*, int)");
	/* a template kernel, as CUTLASS and CUB name theirs */
	expect("_ZN7cutlass6KernelINS_4gemm6kernel4GemmIiEEEEvNT_6ParamsE",
	       "void cutlass::Kernel<cutlass::gemm::kernel::Gemm<int> >"
	       "(cutlass::gemm::kernel::Gemm<int>::Params)");
}

static void test_other_names_unchanged(void **state)
{
	(void)state;
	expect("vecAdd", "vecAdd");       /* extern "C" kernel */
	expect("bfs_kernel1", "bfs_kernel1");
	expect("i", "i");                 /* not read as the type "int" */
	expect("_Zbogus", "_Zbogus");     /* looks mangled, is not */
	expect("_Z", "_Z");
	expect("", "");
	char *got = gpuvm_demangle(NULL);
	assert_non_null(got);
	assert_string_equal(got, "");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mangled_names_demangle),
		cmocka_unit_test(test_other_names_unchanged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
