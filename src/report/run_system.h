/* gpuvm_run_point on a system of several GPUs (run_system.c), for run.c. */
#ifndef GPUVM_REPORT_RUN_SYSTEM_H
#define GPUVM_REPORT_RUN_SYSTEM_H

#include <cjson/cJSON.h>

#include "gpuvm/run.h"
#include "gpuvm/sysdesc.h"

/* Resolves each GPU's configuration (gpuvm_sysdesc_gpu_config, then the
 * spec's --set overrides, on every GPU), builds the workload once, runs
 * gpuvm_simulate_system and reports with gpuvm_report_system. Traces,
 * wrap_source and kernel sampling are refused: one trace per GPU and
 * sampling across GPUs are not modelled yet. */
int gpuvm_run_system(const struct gpuvm_run_spec *spec, const struct gpuvm_sysdesc *desc,
		     cJSON **out, struct gpuvm_error *err);

#endif
