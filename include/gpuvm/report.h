/* Reports of a run: the JSON object `--json` writes (also what sweeps
 * collect) and the human-readable summary `gpuvm sim` prints. */
#ifndef GPUVM_REPORT_H
#define GPUVM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"

/* The resolved configuration as a flat object of dotted keys; values that
 * are numbers become JSON numbers. */
cJSON *gpuvm_report_config(const struct gpuvm_config *cfg);

/* FNV-1a 64 of the resolved configuration (every key=value), as 16 hex
 * digits: runs with equal hashes simulated the same machine. */
void gpuvm_report_config_hash(const struct gpuvm_config *cfg, char out[17]);

/* preset: the --gpu argument as given (NULL: left out). The members
 * after "config" are generated from the registered counters
 * (gpuvm/counters.h). */
cJSON *gpuvm_report_run(const struct gpuvm_config *cfg, const char *preset, const char *workload,
			uint64_t seed, const struct gpuvm_stats *st);

/* Adds the "uvm" object (paging statistics, PCIe utilisation over
 * normalized runtime) to a run object when the run used managed memory. */
void gpuvm_report_uvm(cJSON *run, const struct gpuvm_config *cfg, const struct gpuvm_stats *st);

/* Draws a run's PCIe utilisation over normalized runtime (Zheng et al.
 * Fig. 6) with gnuplot. -1 with err set when the run has no paging. */
int gpuvm_report_pcie_plot(const cJSON *run, const char *path, struct gpuvm_error *err);

/* One launch's results (an element of the run's "kernels" array) of the
 * run st. */
cJSON *gpuvm_report_kernel(const struct gpuvm_config *cfg, const struct gpuvm_stats *st,
			   const struct gpuvm_kernel_stats *k);

/* --stats-csv: the run's statistics in long form (gpu, workload, seed,
 * scope run|kernel|alloc, index, name, kind, metric, value, unit; see
 * stats_csv.c). pa (may be NULL) gives the allocations. path names the
 * output in messages. Returns 0, or -1 with err set. */
struct gpuvm_page_access;
int gpuvm_report_stats_csv(FILE *f, const cJSON *run, const struct gpuvm_page_access *pa,
			   const char *path, struct gpuvm_error *err);

/* Pretty summary of a run object made by gpuvm_report_run. */
void gpuvm_report_print(FILE *out, const cJSON *run);

/* A run on a system of several GPUs (report_system.c): "system", "gpus",
 * the run's "sim_seconds" (every GPU and copy done), "result",
 * "work_items", the peer copies' "peer_*" totals, and "gpu": an array of
 * one gpuvm_report_run object per GPU (with its "index"). Each GPU's
 * "workload" is gpu_workloads[d] where given (a trace per GPU), else the
 * run's workload. */
struct gpuvm_sysdesc;
cJSON *gpuvm_report_system(const struct gpuvm_sysdesc *desc,
			   const struct gpuvm_config *const *cfgs, const char *workload,
			   const char *const *gpu_workloads, uint64_t seed,
			   const struct gpuvm_system_stats *st);
/* Whether run is gpuvm_report_system's (its "gpu" is an array). */
bool gpuvm_report_is_system(const cJSON *run);
/* Its summary: the run's lines, then each GPU's gpuvm_report_print. */
void gpuvm_report_print_system(FILE *out, const cJSON *run);

#endif
