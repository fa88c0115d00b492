#include "gpuvm/run.h"

#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/host_memory.h"
#include "gpuvm/report.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/trace.h"
#include "gpuvm/units.h"
#include "gpuvm/workload.h"

#include "core/input_threads.h"
#include "report/run_system.h"

/* Builds the finalized configuration of a spec: preset (or GPU gpu of
 * the system desc, gpuvm_sysdesc_gpu_config), then overrides. */
static int resolve_gpu_config(const struct gpuvm_run_spec *spec, const struct gpuvm_sysdesc *desc,
			      uint32_t gpu, struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	if (desc ? gpuvm_sysdesc_gpu_config(desc, gpu, cfg, err)
		 : gpuvm_config_load(cfg, spec->gpu, err))
		return -1;
	for (int i = 0; i < spec->n_sets; i++)
		if (gpuvm_config_set(cfg, spec->sets[i], "--set", err))
			return -1;
	if (gpuvm_config_finalize(cfg, err))
		return -1;
	cfg->system_gpus = desc ? desc->n_gpus : 1;
	return 0;
}

#define OVERSUB_NEEDS_MANAGED \
	"oversubscription (uvm.oversub_percent = %g) pages managed memory, and this run has none"

/* --oversub on a run without managed memory would silently run unpaged. */
static int oversub_without_managed(const struct gpuvm_config *cfg,
				   const struct gpuvm_workload_def *def,
				   const struct gpuvm_params *params, struct gpuvm_error *err)
{
	if (!(cfg->uvm_oversub_percent > 0))
		return 0;
	bool has_mem = false;
	for (size_t i = 0; i < def->n_params; i++)
		has_mem |= strcmp(def->params[i].key, "mem") == 0;
	const char *mem = gpuvm_params_text(params, "mem");
	/* name where it was set: a preset line, or --oversub / --set */
	const struct gpuvm_config_origin *o = gpuvm_config_key_origin(cfg, "uvm.oversub_percent");
	bool from_file = o && o->seq && strcmp(o->origin, "--set") != 0;
	const char *where = from_file ? o->origin : "--oversub";
	int line = from_file ? o->line : 0;
	if (!has_mem)
		return gpuvm_fail(err, where, line, NULL, OVERSUB_NEEDS_MANAGED
				  " ('%s' allocates device memory only)", cfg->uvm_oversub_percent,
				  def->name);
	if (!mem || strcmp(mem, "managed") != 0)
		return gpuvm_fail(err, where, line, NULL, OVERSUB_NEEDS_MANAGED
				  " (add the workload parameter mem=managed)", cfg->uvm_oversub_percent);
	return 0;
}

int gpuvm_run_check_work(const struct gpuvm_run_spec *spec, const struct gpuvm_config *cfg,
			 const struct gpuvm_workload_def *def, const struct gpuvm_params *params,
			 struct gpuvm_error *err)
{
	uint64_t n;
	if (spec->force || !def->estimate)
		return 0;
	if (def->estimate(cfg, params, &n, err))
		return -1;
	if ((double)n <= GPUVM_WORK_CAP_THREAD_ACCESSES)
		return 0;
	/* 20 M thread accesses per CPU second: the bench's random-sampling row */
	return gpuvm_fail(err, "--workload", 0, NULL,
			  "'%s' makes about %.3g thread accesses (about %.3g CPU hours to "
			  "simulate), past the cap of %.0e; use --force to run it anyway",
			  spec->workload, (double)n, (double)n / 20e6 / 3600,
			  GPUVM_WORK_CAP_THREAD_ACCESSES);
}

int gpuvm_parse_threads(const char *text, uint32_t *out)
{
	uint64_t n;
	if (gpuvm_parse_u64(text, &n) || n < 1 || n > GPUVM_MAX_THREADS)
		return -1;
	*out = (uint32_t)n;
	return 0;
}

int gpuvm_run_point(const struct gpuvm_run_spec *spec, cJSON **out, struct gpuvm_error *err)
{
	*out = NULL;
	struct gpuvm_sysdesc *desc = NULL;
	if (spec->system) {
		desc = malloc(sizeof *desc);
		if (!desc)
			return gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
		if (gpuvm_sysdesc_load_spec(desc, spec->system, err)) {
			free(desc);
			return -1;
		}
		/* several traces on a system of one: run_system's count check */
		bool traces = gpuvm_trace_spec_is(spec->workload) && strchr(spec->workload, ';');
		if (desc->n_gpus > 1 || traces) {
			int rc = gpuvm_run_system(spec, desc, out, err);
			free(desc);
			return rc;
		}
	}
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	if (!cfg) {
		free(desc);
		return gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
	}
	/* a system of one reports as its preset's run (the same JSON) */
	const char *preset = desc ? desc->gpus[0].preset : spec->gpu;
	int rc = -1;
	const struct gpuvm_workload_def *def = NULL;
	struct gpuvm_params params;
	struct gpuvm_source src = {0};
	struct gpuvm_stats st;
	memset(&st, 0, sizeof st);
	if (resolve_gpu_config(spec, desc, 0, cfg, err))
		goto out;
	/* A trace spec ("trace:PATH") stands wherever a workload spec does. */
	if (gpuvm_trace_spec_is(spec->workload)) {
		if (gpuvm_trace_open_spec(spec->workload, &src, err))
			goto out;
	} else {
		gpuvm_host_memory_set_context(spec->workload);
		/* --threads builds the input too (graph generation): the same
		 * input at any count */
		gpuvm_input_threads_set(spec->threads);
		int bad = gpuvm_workload_parse(spec->workload, &def, &params, err) ||
			  gpuvm_run_check_work(spec, cfg, def, &params, err) ||
			  oversub_without_managed(cfg, def, &params, err) ||
			  def->create(cfg, &params, spec->seed, &src, err);
		gpuvm_input_threads_set(0);
		if (bad)
			goto out;
	}
	/* the time-left estimate of batch progress lines wants the total */
	uint64_t expected = 0;
	if (spec->progress_reporter && !gpuvm_trace_spec_is(spec->workload) && def->estimate &&
	    def->estimate(cfg, &params, &expected, err) == 0)
		gpuvm_progress_expect(spec->progress_reporter, expected);
	src.exec_threads = spec->threads;
	if (spec->wrap_source && spec->wrap_source(spec->wrap_ctx, &src, err))
		goto out;
	struct gpuvm_sim_options opt = {.progress = spec->progress,
					.kernel_sampling = spec->kernel_sampling,
					.kernel_sampling_tolerance = spec->kernel_sampling_tolerance,
					.uvm_observer = spec->uvm_observer,
					.threads = spec->threads,
					.progress_fn = spec->progress_reporter ? gpuvm_progress_report
										: NULL,
					.progress_ctx = spec->progress_reporter};
	if (gpuvm_simulate(cfg, &src, &opt, &st, err) == 0) {
		/* a trace's allocations are known only once replayed */
		if (cfg->uvm_oversub_percent > 0 && !st.uvm.active) {
			gpuvm_fail(err, "--oversub", 0, NULL, OVERSUB_NEEDS_MANAGED " (replay the trace "
				   "with --trace-managed, or trace+managed:PATH)", cfg->uvm_oversub_percent);
		} else {
			*out = gpuvm_report_run(cfg, preset, spec->workload, spec->seed, &st);
			rc = 0;
		}
	}
	gpuvm_stats_release(&st);
out:
	if (src.ops)
		src.ops->destroy(&src);
	free(cfg);
	free(desc);
	return rc;
}
