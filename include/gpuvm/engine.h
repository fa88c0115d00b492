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

	/* translation delay: cycles from this level's lookup until the
	 * translation is available (seeds/002 IV.B's performance measure at
	 * the first level). Counted on xlat.c's slow path only (a sharing
	 * scheme or the sharing analysis on), so the default path pays
	 * nothing for it; translation_counted says whether it was. */
	double translation_cycles;
	bool translation_counted;
	/* inter-TLB sharing (tlb.lN.peer; src/xlat/peer.h). Local misses are
	 * counted in misses; remote_hits of them were served by another
	 * instance: r_local = (hits + pending_hits) / lookups, r_remote =
	 * remote_hits / lookups (seeds/002 Eq. 1). */
	const char *peer;            /* scheme name */
	uint64_t remote_hits;
	uint64_t remote_fills;       /* remote hits kept in the local TLB */
	uint64_t directory_hits;     /* neidty: directory names a neighbour */
	uint64_t directory_false_hits; /* neidty: ... which lacked the page */
	uint64_t port_waits;         /* neidty: requests that found the neighbour port busy */
	double port_wait_cycles;
	uint64_t ring_probes;        /* valkyrie: probes sent into the ring */
	uint64_t ring_hops;          /* valkyrie: hops of probes and answers */
	uint64_t ring_misses;        /* valkyrie: probed, no instance held it */
	uint64_t ldt_pushes;         /* valkyrie: entries pushed by the LDT */
};

/* Du et al.'s sharing analyses (seeds/002 II.B) at the first TLB level,
 * with tlb.sharing_analysis = on. */
#define GPUVM_SHARING_BUCKETS 6
struct gpuvm_tlb_sharing_stats {
	bool enabled;
	/* lookups by how many instances held the entry as the lookup began:
	 * 0, 1, 2-4, 5-8, 9-12, 13+ (Fig. 3's buckets, plus 0) */
	uint64_t holders[GPUVM_SHARING_BUCKETS];
	uint32_t instances;
	/* per instance: local misses, and those of them that the left or
	 * right neighbour (ring order of instance ids) held (Tables I-II) */
	uint64_t *local_misses;
	uint64_t *neighbour_held;
};

/* Why warps waited, in warp-cycles: the time between a warp being able
 * to issue its next instruction and issuing it, split by cause. */
enum gpuvm_stall {
	GPUVM_STALL_MEMORY = 0, /* an operand comes from a load still in flight */
	GPUVM_STALL_DEPENDENCY, /* an operand comes from an ALU result not yet ready */
	GPUVM_STALL_BARRIER,    /* waiting at a barrier for the CTA's other warps */
	GPUVM_STALL_ISSUE,      /* operands ready, scheduler or unit busy */
	GPUVM_STALL_FAULT,      /* the SM's TLB blocked by a far fault (blocking model) */
	GPUVM_STALLS
};
extern const char *const gpuvm_stall_names[GPUVM_STALLS];

/* The banked DRAM model's own counts (JSON "dram", only when the preset
 * has dram.channels), summed over the memory partitions' models at each
 * launch's start and end and at the run's end (memsys_sync_stats). */
struct gpuvm_dram_stats {
	uint32_t banked;         /* the banked model ran */
	uint64_t row_hits, row_misses;
	uint64_t turnarounds;    /* write drains that turned the bus around */
	uint64_t reads_held;     /* read runs that waited for a drain (dram.drain_hold) */
	double held_cycles;      /* their summed wait */
};

/* One kernel launch's results (JSON "kernels"). Time excludes the launch
 * overhead (gpu.kernel_launch_us), reported apart; it includes the
 * front-end and tail (gpu.kernel_frontend_cycles, kernel_tail_cycles;
 * 0 unless a preset sets them), as nsys/ncu kernel durations do. */
struct gpuvm_kernel_stats {
	char name[96];
	uint32_t grid[3], block[3];
	double launch_cycles;   /* overhead before the kernel starts on the GPU */
	double start_cycle;     /* the kernel starts (its front-end, then the first CTA) */
	double end_cycle;       /* completes: last warp ends, then the tail */
	double frontend_cycles; /* of end - start, start to the first CTA dispatch */
	double tail_cycles;     /* of end - start, last warp to completion */
	double sim_seconds;     /* (end - start) / clock */
	uint64_t warp_insts, mem_insts, thread_accesses;
	uint64_t l1_hits, l1_misses, l2_hits, l2_misses;
	uint64_t tlb_l1_hits, tlb_l1_misses;
	uint64_t dram_bytes;
	double stall_cycles[GPUVM_STALLS];
	bool fast_forwarded;    /* kernel sampling drove it functionally */
	uint64_t l1_bytes;      /* L1 data capacity per SM during the launch */
	uint64_t smem_bytes;    /* shared memory an SM offered it (the carve-out) */
	/* every GPUVM_CTR_SUM counter's difference over the launch, in
	 * gpuvm_counters_snapshot's layout (gpuvm/counters.h); owned */
	double *counters;
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
	/* each walk reads its leaf page-table entry through the L2 */
	uint64_t walk_pte_l2_hits, walk_pte_l2_misses;
	struct gpuvm_tlb_sharing_stats tlb_sharing;

	/* SM core: local and shared memory, barriers, why warps waited */
	uint64_t local_insts, shared_insts, barriers;
	uint64_t smem_wavefronts;          /* shared-memory cycles (bank conflicts add) */
	double stall_cycles[GPUVM_STALLS];
	/* core.window: the barriers the run synchronised at, and results that
	 * came back before their window's end (none by construction) */
	uint64_t windows, window_early;

	/* data path */
	uint64_t l1_sector_hits, l1_sector_misses;
	uint64_t l1_writeback_sectors;     /* dirty local data evicted from L1 */
	uint64_t l2_sector_hits, l2_sector_misses;
	uint64_t dram_bytes;
	uint64_t pcie_h2d_bytes, pcie_d2h_bytes; /* copies + zero-copy */
	uint64_t zero_copy_bytes;
	uint64_t zero_copy_tlps; /* PCIe packets of zero-copy accesses (pcie_tlp.h) */

	/* time */
	double sim_cycles;
	double sim_seconds;
	double kernel_cycles;  /* cycles spent inside kernels */
	double copy_cycles;    /* cycles spent in explicit copies */
	double launch_cycles;  /* of kernel_cycles, the launch overheads */
	/* asynchronous copies (engine/copy_stream.h): how many, their transfer
	 * time on a free lane (beside the kernels, so not in sim_cycles as
	 * such), and the time kernels waited for one before starting */
	uint64_t async_copies;
	double async_copy_cycles, async_wait_cycles;
	/* per launch, in order (gpuvm_stats_release frees it) */
	struct gpuvm_kernel_stats *kernel_list;
	size_t n_kernel_list;
	double wall_seconds;   /* the simulator's own run time */

	/* unified-memory paging of managed allocations (uvm.active when any) */
	struct gpuvm_uvm_stats uvm;

	/* the banked DRAM model (dram.banked when it ran) */
	struct gpuvm_dram_stats dram;

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

#endif
