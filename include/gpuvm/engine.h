/* The simulation engine: places CTAs on SMs, advances warps as discrete
 * events, and sends every memory instruction through coalescing,
 * translation (TLB levels, walker) and the data path (L2, DRAM, PCIe). */
#ifndef GPUVM_ENGINE_H
#define GPUVM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/progress.h"
#include "gpuvm/stats.h"
#include "gpuvm/stream.h"
#include "gpuvm/uvm.h"

/* The stalls' names ("memory", ...; src/system/run_loop.c). */
extern const char *const gpuvm_stall_names[GPUVM_STALLS];

/* Kernel sampling defaults: launches of a class run in detail until the
 * last GPUVM_KERNEL_SAMPLING_MIN_DETAILED agree on cycles per warp
 * instruction within GPUVM_KERNEL_SAMPLING_TOLERANCE (max/min - 1). */
#define GPUVM_KERNEL_SAMPLING_TOLERANCE 0.02
#define GPUVM_KERNEL_SAMPLING_MIN_DETAILED 3

struct gpuvm_sim_options {
	bool progress; /* draw the live progress line on stderr (callers pass isatty(2)) */
	/* Optional: told where the run is every few thousand events and at
	 * each launch's end (gpuvm/progress.h formats it; e.g. batch lines) */
	gpuvm_progress_fn *progress_fn;
	void *progress_ctx;
	/* Kernel sampling with functional fast-forward (docs/kernel-sampling.md):
	 * off by default; 0 picks the defaults above. */
	bool kernel_sampling;
	double kernel_sampling_tolerance;
	uint32_t kernel_sampling_min_detailed;
	/* told of every paging decision (NULL: nobody listens) */
	const struct gpuvm_uvm_observer *uvm_observer;
	/* --threads: with core.window = on and more than 1, a window's
	 * barrier runs its translations and its data accesses on two threads
	 * where nothing couples them (src/sm/sm_window.c); the results are
	 * the same at any count. 0 or 1: one thread. */
	uint32_t threads;
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

/* A run on a system of several GPUs (src/system/multi_gpu.c): one engine
 * per GPU, the program's operations each on its GPU (gpuvm_run_op.device),
 * peer copies over the system's GPU-GPU links. */
struct gpuvm_sysdesc;
struct gpuvm_system_stats {
	uint32_t n_gpus;
	struct gpuvm_stats *gpu;   /* [n_gpus], the caller's; each as a one-GPU run's */
	double sim_seconds;        /* when the host and every GPU were done */
	uint64_t peer_copies;      /* cudaMemcpyPeer(Async) calls timed */
	uint64_t peer_nvlink_bytes; /* over NVLink / NVSwitch */
	uint64_t peer_host_bytes;  /* staged through host memory (no GPU-GPU link) */
	double peer_copy_seconds;  /* their busy time, summed */
	/* managed memory shared by the GPUs (reported when managed is set) */
	bool managed;                  /* a managed allocation was made */
	uint64_t uvm_peer_pages;       /* pages migrated GPU to GPU (faults, prefetches) */
	uint64_t uvm_peer_nvlink_bytes; /* ... their bytes, and accessed-by accesses', over NVLink */
	uint64_t uvm_peer_host_bytes;  /* ... staged through host memory (no GPU-GPU link) */
	uint64_t uvm_invalidated_pages; /* pages a GPU lost to another's migration or write */
	uint64_t uvm_duplicated_pages; /* read duplicates made (cudaMemAdviseSetReadMostly) */
	uint64_t uvm_collapsed_pages;  /* duplicated pages a write collapsed to the writer */
	uint64_t uvm_peer_remote_bytes; /* read or written in another GPU's memory (accessed-by) */
	uint64_t managed_serialized_kernels; /* kernels held for another GPU's (docs/systems.md) */
	char result[GPUVM_RESULT_BYTES];
	uint64_t work_items;
	double wall_seconds;
};
int gpuvm_simulate_system(const struct gpuvm_sysdesc *desc,
			  const struct gpuvm_config *const *cfgs, struct gpuvm_source *src,
			  const struct gpuvm_sim_options *opt, struct gpuvm_system_stats *out,
			  struct gpuvm_error *err);

#endif
