/* Unified-memory paging (cudaMallocManaged): what a run reports about far
 * faults, migrations, eviction and the PCIe link, and the registries of
 * prefetchers and eviction policies (each a module in src/uvm/, chosen by
 * name with uvm.prefetcher / uvm.eviction). */
#ifndef GPUVM_UVM_H
#define GPUVM_UVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The driver's counters and decisions (enum gpuvm_uvm_decision, struct
 * gpuvm_uvm_observer, gpuvm_uvm_alloc_stats, gpuvm_uvm_stats) are types of
 * gpuvm/stats.h, which every component writing counters includes. */
#include "gpuvm/stats.h"

/* The decisions' names ("remote", ...). */
extern const char *const gpuvm_uvm_decision_names[GPUVM_UVM_DECISIONS];

/* "hot" or "cold" (gpuvm/stats.h: struct gpuvm_uvm_alloc_stats),
 * "untouched" without a count, "unclassified" without counters. */
const char *gpuvm_uvm_alloc_class(const struct gpuvm_uvm_alloc_stats *a);

/* A policy module's name and one line of help, for listings. */
struct gpuvm_uvm_policy_info {
	const char *name;
	const char *help;
};

size_t gpuvm_uvm_prefetcher_count(void);
const struct gpuvm_uvm_policy_info *gpuvm_uvm_prefetcher_info(size_t i);
size_t gpuvm_uvm_eviction_count(void);
const struct gpuvm_uvm_policy_info *gpuvm_uvm_eviction_info(size_t i);
bool gpuvm_uvm_prefetcher_known(const char *name);
bool gpuvm_uvm_eviction_known(const char *name);
size_t gpuvm_uvm_migration_count(void);
const struct gpuvm_uvm_policy_info *gpuvm_uvm_migration_info(size_t i);
bool gpuvm_uvm_migration_known(const char *name);

/* The host link's rates, gpuvm_uvm_transfer_seconds and
 * gpuvm_pcie_effective_gb_s, are declared in gpuvm/link_rate.h (the host
 * link defines them, src/link/link_rate.c). */

#endif
