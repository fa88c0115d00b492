/* gpuvm_run_point on a system of several GPUs (run_system.c), for run.c. */
#ifndef GPUVM_REPORT_RUN_SYSTEM_H
#define GPUVM_REPORT_RUN_SYSTEM_H

#include <cjson/cJSON.h>

#include "gpuvm/run.h"
#include "gpuvm/sysdesc.h"

/* Resolves each GPU's configuration (gpuvm_sysdesc_gpu_config, then the
 * spec's --set overrides, on every GPU), builds the workload once, runs
 * gpuvm_simulate_system and reports with gpuvm_report_system. A trace
 * spec names one trace per GPU ("trace:A;B", as many paths as GPUs, else
 * an error naming --trace): GPU d replays path d on its own engine
 * (gpuvm_simulate, as a --gpu run), the run's sim_seconds is the latest
 * GPU's end, and each GPU's report names its own trace. wrap_source and
 * kernel sampling are refused: sampling across GPUs is not modelled yet. */
int gpuvm_run_system(const struct gpuvm_run_spec *spec, const struct gpuvm_sysdesc *desc,
		     cJSON **out, struct gpuvm_error *err);

#endif
