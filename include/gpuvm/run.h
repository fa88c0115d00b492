/* One simulation point, end to end: load the preset, apply --set
 * overrides, build the workload, simulate, and report as JSON. This is
 * what `gpuvm sim` runs once and `gpuvm sweep` runs per grid point. */
#ifndef GPUVM_RUN_H
#define GPUVM_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/progress.h"
#include "gpuvm/stream.h"

#define GPUVM_MAX_SETS 64

struct gpuvm_run_spec {
	const char *gpu;        /* preset name or file */
	/* or a system (gpuvm/sysdesc.h, gpuvm_sysdesc_load_spec: a name, a
	 * file, "NAME:gpus=N,nvlink=off"); one of gpu and system is set. A
	 * system of one GPU runs as its preset with the description's numbers
	 * of it (gpuvm_sysdesc_gpu_config) and reports as a --gpu run;
	 * several run on gpuvm_simulate_system and report per GPU
	 * (gpuvm_report_system). */
	const char *system;
	const char *workload;   /* "name:k=v,..." */
	const char *sets[GPUVM_MAX_SETS]; /* "key=value" overrides in order */
	int n_sets;
	uint64_t seed;
	bool progress;
	/* Optional progress reporter (gpuvm/progress.h); when set it replaces
	 * the live line of `progress`, and is told the workload's estimate of
	 * its thread accesses before the run starts */
	struct gpuvm_progress *progress_reporter;
	/* run even past GPUVM_WORK_CAP_THREAD_ACCESSES (--force) */
	bool force;
	/* kernel sampling (gpuvm_sim_options); tolerance 0 = default */
	bool kernel_sampling;
	double kernel_sampling_tolerance;
	/* --threads: threads that execute SIMT kernels declared any-order
	 * ahead of the engine (gpuvm_source.exec_threads); 0 or 1 = none */
	uint32_t threads;
	/* Optional: called on the workload's source before it is simulated;
	 * may replace *src by a wrapper that owns the original (gpuvm sim
	 * --page-map wraps it in the page-access recorder). On failure it
	 * must leave *src as it was. */
	int (*wrap_source)(void *ctx, struct gpuvm_source *src, struct gpuvm_error *err);
	void *wrap_ctx;
	/* Optional: told of every paging decision (gpuvm_sim_options) */
	const struct gpuvm_uvm_observer *uvm_observer;
};

/* A run whose workload estimates more than GPUVM_WORK_CAP_THREAD_ACCESSES
 * thread accesses is refused (unless spec->force) before anything is
 * allocated or simulated, with the estimate in the message. */
struct gpuvm_workload_def;
struct gpuvm_params;
int gpuvm_run_check_work(const struct gpuvm_run_spec *spec, const struct gpuvm_config *cfg,
			 const struct gpuvm_workload_def *def, const struct gpuvm_params *params,
			 struct gpuvm_error *err);

/* --threads N: N from 1 to GPUVM_MAX_THREADS (gpuvm/config.h; the help
 * texts say 64). */
/* Parses a --threads value; -1 when it is not an integer in range. */
int gpuvm_parse_threads(const char *text, uint32_t *out);

/* On success *out is a JSON object with keys config, workload, tlb, walks,
 * dram_bytes, pcie_*, sim_cycles, sim_seconds, accesses_per_sim_second,
 * wall_seconds, warp_instructions, thread_accesses, ... (see report.c).
 * Returns 0, or -1 with err set (bad input); the caller exits 2. */
int gpuvm_run_point(const struct gpuvm_run_spec *spec, cJSON **out,
		    struct gpuvm_error *err);

#endif
