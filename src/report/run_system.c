/* One run on a system of several GPUs (run_system.h holds the contract). */
#include "report/run_system.h"

#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/host_memory.h"
#include "gpuvm/report.h"
#include "gpuvm/trace.h"
#include "gpuvm/workload.h"

#include "core/input_threads.h"

int gpuvm_run_system(const struct gpuvm_run_spec *spec, const struct gpuvm_sysdesc *desc,
		     cJSON **out, struct gpuvm_error *err)
{
	uint32_t n = desc->n_gpus;
	if (gpuvm_trace_spec_is(spec->workload))
		return gpuvm_fail(err, "--system", 0, NULL, "a trace on a system of %u GPUs: one "
				  "trace per GPU is not modelled yet (run it with --gpu)", n);
	if (spec->kernel_sampling)
		return gpuvm_fail(err, "--kernel-sampling", 0, NULL, "not on a system of several "
				  "GPUs yet");
	struct gpuvm_config **cfgs = calloc(n, sizeof *cfgs);
	struct gpuvm_stats *stats = calloc(n, sizeof *stats);
	struct gpuvm_system_stats st = {.gpu = stats};
	struct gpuvm_source src = {0};
	int rc = -1;
	if (!cfgs || !stats) {
		gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
		goto out;
	}
	for (uint32_t d = 0; d < n; d++) {
		cfgs[d] = malloc(sizeof *cfgs[d]);
		if (!cfgs[d]) {
			gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
			goto out;
		}
		if (gpuvm_sysdesc_gpu_config(desc, d, cfgs[d], err))
			goto out;
		for (int i = 0; i < spec->n_sets; i++)
			if (gpuvm_config_set(cfgs[d], spec->sets[i], "--set", err))
				goto out;
		if (gpuvm_config_finalize(cfgs[d], err))
			goto out;
		cfgs[d]->system_gpus = n;
	}
	const struct gpuvm_workload_def *def = NULL;
	struct gpuvm_params params;
	gpuvm_host_memory_set_context(spec->workload);
	gpuvm_input_threads_set(spec->threads);
	int bad = gpuvm_workload_parse(spec->workload, &def, &params, err) ||
		  gpuvm_run_check_work(spec, cfgs[0], def, &params, err) ||
		  def->create(cfgs[0], &params, spec->seed, &src, err);
	gpuvm_input_threads_set(0);
	if (bad)
		goto out;
	src.exec_threads = spec->threads;
	struct gpuvm_sim_options opt = {.uvm_observer = spec->uvm_observer,
					.threads = spec->threads};
	if (gpuvm_simulate_system(desc, (const struct gpuvm_config *const *)cfgs, &src, &opt, &st,
				  err) == 0) {
		*out = gpuvm_report_system(desc, (const struct gpuvm_config *const *)cfgs,
					   spec->workload, spec->seed, &st);
		rc = 0;
	}
	for (uint32_t d = 0; d < n; d++)
		gpuvm_stats_release(&stats[d]);
out:
	if (src.ops)
		src.ops->destroy(&src);
	for (uint32_t d = 0; cfgs && d < n; d++)
		free(cfgs[d]);
	free(cfgs);
	free(stats);
	return rc;
}
