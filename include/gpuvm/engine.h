/* The simulation engine: places CTAs on SMs, advances warps as discrete
 * events, and sends every memory instruction through coalescing,
 * translation (TLB levels, walker) and the data path (L2, DRAM, PCIe). */
#ifndef GPUVM_ENGINE_H
#define GPUVM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/stream.h"
#include "gpuvm/uvm.h"

struct gpuvm_tlb_level_stats {
	uint64_t lookups;       /* translation requests reaching this level */
	uint64_t hits;          /* entry present and filled */
	uint64_t pending_hits;  /* entry present, fill still in flight (MSHR merge) */
	uint64_t misses;
	double mshr_wait_cycles; /* summed wait for a free MSHR */
	uint32_t instances;
	uint64_t *instance_hits;   /* [instances] */
	uint64_t *instance_misses; /* [instances] */
};

struct gpuvm_stats {
	/* work simulated */
	uint64_t kernels, ctas, warps;
	uint64_t warp_insts;       /* compute + memory warp instructions */
	uint64_t mem_insts;        /* memory warp instructions */
	uint64_t thread_accesses;  /* active lanes of memory instructions */
	uint64_t sectors, lines, xlat_units; /* after coalescing */

	/* translation */
	uint32_t tlb_levels;
	struct gpuvm_tlb_level_stats tlb[GPUVM_MAX_TLB_LEVELS];
	uint64_t walks, pwc_hits;
	double walk_queue_cycles;

	/* data path */
	uint64_t l2_sector_hits, l2_sector_misses;
	uint64_t dram_bytes;
	uint64_t pcie_h2d_bytes, pcie_d2h_bytes; /* copies + zero-copy */
	uint64_t zero_copy_bytes;

	/* time */
	double sim_cycles;
	double sim_seconds;
	double kernel_cycles;  /* cycles spent inside kernels */
	double copy_cycles;    /* cycles spent in explicit copies */
	double wall_seconds;   /* the simulator's own run time */

	/* unified-memory paging of managed allocations (uvm.active when any) */
	struct gpuvm_uvm_stats uvm;

	/* kernel sampling (gpuvm_sim_options.kernel_sampling) */
	struct gpuvm_kernel_sampling_stats {
		bool enabled;
		double tolerance;
		uint32_t min_detailed;
		uint64_t detailed_kernels;       /* launches simulated in detail */
		uint64_t fast_forwarded_kernels; /* launches driven functionally */
		uint64_t classes;                /* classes of sampleable launches seen */
		char refused[128]; /* why sampleable launches ran in detail ("" if not) */
	} kernel_sampling;

	char result[256];      /* the workload's functional result */
	uint64_t work_items;   /* the workload's unit of work (0: not defined) */
};

/* Kernel sampling defaults: launches of a class run in detail until the
 * last GPUVM_KERNEL_SAMPLING_MIN_DETAILED agree on cycles per warp
 * instruction within GPUVM_KERNEL_SAMPLING_TOLERANCE (max/min - 1). */
#define GPUVM_KERNEL_SAMPLING_TOLERANCE 0.02
#define GPUVM_KERNEL_SAMPLING_MIN_DETAILED 3

struct gpuvm_sim_options {
	bool progress; /* draw progress on stderr (callers pass isatty(2)) */
	/* Kernel sampling with functional fast-forward (docs/kernel-sampling.md):
	 * off by default; 0 picks the defaults above. */
	bool kernel_sampling;
	double kernel_sampling_tolerance;
	uint32_t kernel_sampling_min_detailed;
};

/* Names of the report's counters that kernel sampling estimates (scaled
 * from the detailed launches) rather than counts; NULL-terminated. */
extern const char *const gpuvm_kernel_sampling_estimated[];

/* Runs src to completion on cfg (which must be finalized). On error the
 * message names the source position. stats must be released with
 * gpuvm_stats_release. */
int gpuvm_simulate(const struct gpuvm_config *cfg, struct gpuvm_source *src,
		   const struct gpuvm_sim_options *opt, struct gpuvm_stats *stats,
		   struct gpuvm_error *err);

void gpuvm_stats_release(struct gpuvm_stats *stats);

#endif
