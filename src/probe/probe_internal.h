/* Shared between the probe's methodology, analysis and backends. */
#ifndef GPUVM_PROBE_INTERNAL_H
#define GPUVM_PROBE_INTERNAL_H

#include "gpuvm/probe.h"

int probe_add_point(struct gpuvm_probe_result *res, uint64_t stride, uint32_t hops, double lat);
int probe_add_cell(struct gpuvm_probe_result *res, const struct gpuvm_probe_share_cell *c);
/* Sorts points by stride, then hops (stable order for the analysis). */
void probe_sort_points(struct gpuvm_probe_result *res);

#endif
