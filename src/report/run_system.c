/* One run on a system of several GPUs (run_system.h holds the contract). */
#include "report/run_system.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/host_memory.h"
#include "gpuvm/report.h"
#include "gpuvm/trace.h"
#include "gpuvm/workload.h"

#include "core/input_threads.h"

/* "trace[-F][+managed]:A;B;C": the prefix and the paths' count (';'
 * separates them). */
static uint32_t trace_paths(const char *spec, size_t *prefix_len)
{
	const char *colon = strchr(spec, ':');
	*prefix_len = (size_t)(colon - spec) + 1;
	uint32_t k = 1;
	for (const char *p = colon; (p = strchr(p + 1, ';'));)
		k++;
	return k;
}

/* One trace per GPU (docs/traces.md "A trace per GPU"): GPU d replays the
 * d-th path on its own engine, as a --gpu run of its preset would; a
 * trace records one GPU's kernels and copies, so no op of it names
 * another GPU, and the GPUs share nothing here (no peer traffic, no
 * managed page another GPU holds). The run ends with the last GPU. */
static int run_traces(const struct gpuvm_run_spec *spec, const struct gpuvm_sysdesc *desc,
		      struct gpuvm_config **cfgs, struct gpuvm_system_stats *st,
		      char **names, struct gpuvm_error *err)
{
	size_t plen;
	uint32_t n = desc->n_gpus, k = trace_paths(spec->workload, &plen);
	if (k != n)
		return gpuvm_fail(err, "--trace", 0, NULL, "%u trace%s for the %u GPU%s of "
				  "system %s: give one per GPU, in order (--trace A --trace B, or "
				  "--workload trace:A;B)", k, k == 1 ? "" : "s", n, n == 1 ? "" : "s",
				  desc->name);
	const char *path = spec->workload + plen;
	for (uint32_t d = 0; d < n; d++) {
		size_t len = strcspn(path, ";");
		names[d] = malloc(plen + len + 1);
		if (!names[d])
			return gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
		snprintf(names[d], plen + len + 1, "%.*s%.*s", (int)plen, spec->workload,
			 (int)len, path);
		path += len + (path[len] == ';');
	}
	struct gpuvm_sim_options opt = {.uvm_observer = spec->uvm_observer,
					.threads = spec->threads};
	for (uint32_t d = 0; d < n; d++) {
		struct gpuvm_source src = {0};
		struct gpuvm_error e = {{0}};
		int bad = gpuvm_trace_open_spec(names[d], &src, &e);
		if (!bad) {
			src.exec_threads = spec->threads;
			bad = gpuvm_simulate(cfgs[d], &src, &opt, &st->gpu[d], &e);
		}
		if (src.ops)
			src.ops->destroy(&src);
		if (bad)
			return gpuvm_fail(err, "--trace", 0, NULL, "GPU %u: %s", d, e.msg);
		/* a trace's allocations are known only once replayed (run.c) */
		if (cfgs[d]->uvm_oversub_percent > 0 && !st->gpu[d].uvm.active)
			return gpuvm_fail(err, "--oversub", 0, NULL, "GPU %u's trace has no managed "
					  "memory to oversubscribe (replay it with --trace-managed)", d);
		st->sim_seconds = st->gpu[d].sim_seconds > st->sim_seconds ? st->gpu[d].sim_seconds
									  : st->sim_seconds;
		st->work_items += st->gpu[d].work_items;
		st->wall_seconds += st->gpu[d].wall_seconds;
	}
	st->n_gpus = n;
	return 0;
}

int gpuvm_run_system(const struct gpuvm_run_spec *spec, const struct gpuvm_sysdesc *desc,
		     cJSON **out, struct gpuvm_error *err)
{
	uint32_t n = desc->n_gpus;
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
	if (gpuvm_trace_spec_is(spec->workload)) {
		char **names = calloc(n, sizeof *names);
		if (!names) {
			gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
			goto out;
		}
		if (run_traces(spec, desc, cfgs, &st, names, err) == 0) {
			*out = gpuvm_report_system(desc, (const struct gpuvm_config *const *)cfgs,
						   spec->workload, (const char *const *)names,
						   spec->seed, &st);
			rc = 0;
		}
		for (uint32_t d = 0; d < n; d++) {
			gpuvm_stats_release(&stats[d]);
			free(names[d]);
		}
		free(names);
		goto out;
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
					   spec->workload, NULL, spec->seed, &st);
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
