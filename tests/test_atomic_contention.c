/* The L2 atomic unit's per-address queue (l2.atomic_address_cycles,
 * memsys_atomic_address): atomics to one address are performed one after
 * another, one per l2.atomic_address_cycles, while atomics to distinct
 * addresses overlap. Many warps incrementing one counter must take at
 * least (atomics x the key) cycles, and that much longer than the same
 * warps incrementing a counter each; twice the key must add that many
 * cycles again. Without the queue the two layouts take about the same
 * time and the first test fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "gpuvm/engine.h"
#include "gpuvm/simt.h"

/* 512 warps, the whole of gtx680's 8 SMs at 64 warps each, so every warp
 * is resident and the distinct layout is a few atomic latencies long */
enum { AC_BLOCKS = 64, AC_THREADS = 256, AC_PER_THREAD = 4 };
#define AC_OPS ((double)AC_BLOCKS * AC_THREADS * AC_PER_THREAD)

struct ac_args {
	unsigned int *ctr;
	int shared; /* 1: every thread's counter is word 0; else its warp's own line */
};

SIMT_KERNEL(ac_kernel, struct ac_args, p)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
	/* distinct: the warp's 32 lanes on one word of a 128 B line of its
	 * own, so both layouts queue 32 lanes per instruction at an address
	 * and differ only in whether other warps share it */
	unsigned int w = p.shared ? 0 : (t / 32) * 32;
	for (unsigned int k = 0; k < AC_PER_THREAD; k++)
		ATOMIC_ADD(p.ctr, w, 1u);
}

static struct ac_args ac_mode;
static unsigned int ac_first; /* word 0 after the launch */

static int ac_host(struct simt_host *h, void *user)
{
	(void)user;
	size_t words = (size_t)AC_BLOCKS * AC_THREADS;
	unsigned int *ctr = simt_malloc(h, "ctr", words * 4, GPUVM_ALLOC_DEVICE);
	if (!ctr)
		return -1;
	struct ac_args a = ac_mode;
	a.ctr = ctr;
	if (SIMT_LAUNCH(h, ac_kernel, simt_dim3(AC_BLOCKS, 1, 1), simt_dim3(AC_THREADS, 1, 1), a))
		return -1;
	ac_first = ctr[0];
	simt_result(h, "ok");
	return 0;
}

/* The kernel's cycles on gtx680 with l2.atomic_address_cycles = hold. */
static double ac_cycles(int shared, double hold)
{
	ac_mode.shared = shared;
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	struct gpuvm_error err = {{0}};
	if (gpuvm_config_load(cfg, "gtx680", &err))
		fail_msg("%s", err.msg);
	cfg->l2_atomic_address_cycles = hold;
	if (gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	struct gpuvm_source src;
	assert_int_equal(simt_program_source("ac", ac_host, NULL, NULL, &src, &err), 0);
	struct gpuvm_stats st;
	if (gpuvm_simulate(cfg, &src, NULL, &st, &err))
		fail_msg("%s", err.msg);
	src.ops->destroy(&src);
	assert_true(st.n_kernel_list == 1);
	double cycles = st.kernel_list[0].sim_seconds * cfg->clock_mhz * 1e6;
	gpuvm_stats_release(&st);
	free(cfg);
	/* the functional result: every increment counted */
	assert_int_equal(ac_first, shared ? (unsigned int)AC_OPS : 32u * AC_PER_THREAD);
	return cycles;
}

static void test_one_address_serializes(void **state)
{
	(void)state;
	/* gtx680's preset value: one atomic per cycle to an address */
	double shared = ac_cycles(1, 1), distinct = ac_cycles(0, 1);
	printf("  %.0f atomics: one counter %.0f cycles, a counter per warp %.0f\n", AC_OPS, shared,
	       distinct);
	/* the unit performs them one a cycle: no faster than that */
	assert_true(shared >= AC_OPS);
	/* and the queue is what the shared counter adds: the distinct
	 * counters' time (a few atomic latencies) plus at most the queue */
	assert_true(distinct < 0.2 * AC_OPS);
	assert_true(shared - distinct > 0.9 * AC_OPS);
	assert_true(shared < AC_OPS + distinct);
}

static void test_rate_is_the_key(void **state)
{
	(void)state;
	double one = ac_cycles(1, 1), two = ac_cycles(1, 2);
	printf("  one counter: %.0f cycles at 1 cycle an atomic, %.0f at 2\n", one, two);
	/* each atomic's turn one cycle longer: AC_OPS cycles more */
	assert_true(two - one > 0.9 * AC_OPS && two - one < 1.1 * AC_OPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_address_serializes),
		cmocka_unit_test(test_rate_is_the_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
