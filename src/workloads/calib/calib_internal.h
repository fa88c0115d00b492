/* What the calibration workloads' files share (calib.c, calib_dram.c):
 * a workload source over a host program with a copy of its settings, and
 * the visiting order of a pointer chase's nodes. Internal to
 * src/workloads/calib. */
#ifndef GPUVM_CALIB_INTERNAL_H
#define GPUVM_CALIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/simt.h"

/* out: a source running fn on a copy of cfg (bytes of it), named name. */
int calib_source(const char *name, simt_host_fn fn, const void *cfg, size_t bytes,
		 struct gpuvm_source *out, struct gpuvm_error *err);

/* Nodes 0..nodes-1 in visiting order, node 0 first: in order, or
 * shuffled (Fisher-Yates over SplitMix64 from seed, as cuda/hwbench.cu's
 * chase_order); malloc'd, NULL when out of memory. */
uint32_t *calib_order(uint64_t nodes, bool shuffled, uint64_t seed);

/* A chase's chain: next[ord[s] x words_per_node] = ord[s + 1] x
 * words_per_node for the first `steps` nodes of ord, the last back to
 * ord[0]. */
void calib_link_cycle(unsigned int *next, const uint32_t *ord, uint64_t steps,
		      uint64_t words_per_node);

/* 0 if a chain over footprint in nodes `stride` apart fits a chase's
 * indices (at most 2^26 nodes and 2^32 words); else -1, err set. */
int calib_chain_fits(uint64_t footprint, uint64_t stride, struct gpuvm_error *err);

#endif
