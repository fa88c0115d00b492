/* Shared by the tests that simulate a system of several GPUs: a system
 * description parsed, each GPU configured from its preset (with no host
 * launch period, so short kernels are bound by the GPUs rather than by
 * the host's calls, then the caller's settings), and a source simulated
 * on it. Include after <cmocka.h> (assert_*, fail_msg). */
#ifndef GPUVM_TESTS_SYSTEM_RUN_H
#define GPUVM_TESTS_SYSTEM_RUN_H

#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/sysdesc.h"

/* Parses sys (file names it in messages) into desc and configures its
 * GPUs into cfg[0 .. max_gpus) with settings (NULL-terminated; NULL:
 * none) on every GPU, then per_gpu[d]'s on GPU d (per_gpu NULL, or an
 * entry NULL: none); then simulates src (destroyed here) with out's
 * per-GPU statistics in stats. Returns gpuvm_simulate_system's status; a
 * bad description or setting fails the test. */
static inline int system_run_gpus(struct gpuvm_sysdesc *desc, struct gpuvm_config *cfg,
				  struct gpuvm_stats *stats, struct gpuvm_system_stats *out,
				  uint32_t max_gpus, const char *sys, const char *file,
				  const char *const *settings, const char *const *const *per_gpu,
				  struct gpuvm_source *src, struct gpuvm_error *err)
{
	assert_int_equal(gpuvm_sysdesc_parse(desc, sys, file, err), 0);
	assert_true(desc->n_gpus <= max_gpus);
	const struct gpuvm_config *cfgs[GPUVM_SYS_MAX_GPUS];
	for (uint32_t d = 0; d < desc->n_gpus; d++) {
		assert_int_equal(gpuvm_sysdesc_gpu_config(desc, d, &cfg[d], err), 0);
		assert_int_equal(gpuvm_config_set(&cfg[d], "gpu.kernel_launch_period_us=0", "test",
						  err), 0);
		for (const char *const *e = settings; e && *e; e++)
			if (gpuvm_config_set(&cfg[d], *e, "test", err))
				fail_msg("%s: %s", *e, err->msg);
		for (const char *const *e = per_gpu ? per_gpu[d] : NULL; e && *e; e++)
			if (gpuvm_config_set(&cfg[d], *e, "test", err))
				fail_msg("GPU %u, %s: %s", d, *e, err->msg);
		assert_int_equal(gpuvm_config_finalize(&cfg[d], err), 0);
		cfgs[d] = &cfg[d];
	}
	src->exec_threads = 0;
	out->gpu = stats;
	struct gpuvm_sim_options opt = {0};
	int rc = gpuvm_simulate_system(desc, cfgs, src, &opt, out, err);
	src->ops->destroy(src);
	return rc;
}

/* system_run_gpus with the same settings on every GPU. */
static inline int system_run(struct gpuvm_sysdesc *desc, struct gpuvm_config *cfg,
			     struct gpuvm_stats *stats, struct gpuvm_system_stats *out,
			     uint32_t max_gpus, const char *sys, const char *file,
			     const char *const *settings, struct gpuvm_source *src,
			     struct gpuvm_error *err)
{
	return system_run_gpus(desc, cfg, stats, out, max_gpus, sys, file, settings, NULL, src,
			       err);
}

#endif
