/* The run's counters: struct gpuvm_stats and the structs it holds (TLB
 * levels, DRAM, kernels, kernel sampling; the driver's are gpuvm/uvm.h's
 * struct gpuvm_uvm_stats). Every component writes its own counters here
 * and the report reads them through the counter rows (gpuvm/counters.h).
 * Types only: the components include this header, low in the layers
 * (docs/layers.tsv), rather than gpuvm/engine.h, whose functions are the
 * system's at the top. gpuvm/engine.h includes it, so a program that
 * includes the engine sees the same structs as before. */
#ifndef GPUVM_STATS_H
#define GPUVM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/config.h"

/* A workload's result line, with its terminator: long enough for the
 * longest a workload writes (SePo's per-iteration breakdown, six
 * iterations of three fields, after its counts: about 300 characters) */
#define GPUVM_RESULT_BYTES 512

/* What the paging layer decided for a page or an access (seeds/004: the
 * choice between migrating and serving in place is the paper's subject;
 * the page-access map colours cells by it). */
enum gpuvm_uvm_decision {
	GPUVM_UVM_REMOTE = 0,       /* a sector read (or written) over PCIe in place */
	GPUVM_UVM_MIGRATE_FAULT,    /* a page migrated by its own far fault */
	GPUVM_UVM_MIGRATE_COUNTER,  /* ... once its block's access counter reached the threshold */
	GPUVM_UVM_PREFETCH,         /* ... by the prefetcher, with another page's fault */
	GPUVM_UVM_EVICT,            /* a page evicted to host memory */
	GPUVM_UVM_DECISIONS
};

/* Told of every decision as it is taken (gpuvm_sim_options.uvm_observer):
 * [addr, addr + bytes) is one page run, or one sector for REMOTE. */
struct gpuvm_uvm_observer {
	void (*decision)(void *ctx, uint64_t addr, uint64_t bytes, enum gpuvm_uvm_decision d);
	void *ctx;
};

/* One managed allocation's paging (JSON uvm.allocations[]): decisions
 * counted per page (per sector for REMOTE), and its hot/cold class from
 * the access counters of the 64 KB blocks it overlaps, read when it is
 * freed or at the end. seeds/004 III-B: "a small fraction of memory
 * footprint corresponds to the higher share of bandwidth"; hot data
 * structures are densely accessed, cold ones seldom. Over a whole run
 * nearly every touched block passes t_s (the counters only halve at
 * saturation), so the class is relative: hot when its count per touched
 * block is at least the run's (all managed allocations together). */
struct gpuvm_uvm_alloc_stats {
	char name[48];
	uint64_t base, bytes;
	uint64_t decisions[GPUVM_UVM_DECISIONS];
	uint64_t thrashed_pages;   /* faults on its pages evicted before */
	bool counted;              /* access counters were on */
	uint64_t chunks_touched;   /* 64 KB blocks with a count > 0 */
	uint64_t chunks_hot;       /* ... of which count >= t_s */
	uint64_t access_count;     /* their counts summed (halvings included) */
	bool hot;                  /* access_count / chunks_touched >= the run's */
};


struct gpuvm_uvm_stats {
	bool active;               /* the run touched managed memory */
	uint64_t far_faults;       /* faulted pages (faults coalesced per 4 KB page) */
	uint64_t fault_batches;    /* batches the fault handler serviced */
	uint64_t nacks;            /* Nack-Replayable: far-fault MSHRs full, replayed */
	uint64_t pages_h2d;        /* pages migrated to the GPU (faulted + prefetched) */
	uint64_t pages_d2h;        /* pages written back to the host on eviction */
	uint64_t pages_evicted;    /* pages dropped from device memory */
	uint64_t prefetched_pages; /* pages migrated without a fault of their own */
	uint64_t prefetched_used;  /* ... of which the GPU later touched */
	uint64_t prefetched_unused;/* ... evicted or left at the end untouched */
	uint64_t thrashed_pages;   /* faults on pages evicted before (per refault) */
	uint64_t transfers_h2d, transfers_d2h; /* PCIe transfers (one per contiguous run) */
	uint64_t bytes_h2d, bytes_d2h;         /* paging traffic on each lane */
	uint64_t capacity_pages;   /* device frames for managed data, 0 = unlimited */
	uint64_t peak_resident_pages;
	bool prefetcher_switched;  /* uvm.prefetcher_oversub took over */
	uint64_t pages_copied_in;  /* pages made resident by cudaMemcpy into managed memory */
	uint64_t l2_sectors_invalidated;   /* valid L2 sectors of evicted/freed pages dropped */
	uint64_t l2_dirty_sectors_written; /* ... of which dirty, written to DRAM first */

	/* stall time by cause, summed over faulting translations (cycles; they
	 * overlap across warps, so the sums can exceed the run time) */
	double stall_replay_cycles;   /* waiting for a far-fault MSHR (Nack, replay) */
	double stall_fault_cycles;    /* waiting for the batch to start and be handled */
	double stall_eviction_cycles; /* waiting for write-backs to free frames */
	double stall_pcie_cycles;     /* waiting for the page's transfer */
	double stall_blocked_cycles;  /* blocking model: translations held by the SM's blocked TLB */

	/* UVMSmart's post-hoc accounting: far faults x fault latency, added
	 * after the run (seeds/004; UVMSmart Tot_kernel_exec_time_and_fault_time) */
	double posthoc_fault_cycles;
	bool latency_in_timing;    /* false: uvm.fault_accounting = posthoc */

	/* delayed migration (uvm.migration, seeds/004 IV) */
	uint64_t remote_accesses;     /* sector accesses of non-resident managed pages served over PCIe */
	uint64_t remote_bytes;        /* ... their bytes */
	uint64_t delayed_migrations;  /* pages read remotely instead of migrating (once per stay in host memory) */
	uint64_t migrations_fault;    /* pages migrated by a far fault (first touch or write) */
	uint64_t migrations_counter;  /* pages migrated once their block's counter reached the threshold */
	uint64_t counter_notices;     /* ... of which served by notification, the access not waiting (uvm.counter_migration = async) */
	uint64_t notice_batches;      /* batches the access-counter bottom half serviced */
	uint64_t pages_returned;      /* migrated pages (prefetched ones too) that had been evicted before */
	uint64_t counter_halvings;    /* times every access count was halved (saturation) */
	uint64_t round_trip_halvings; /* times every round-trip count was halved */
	uint64_t hot_chunks, cold_chunks; /* touched 64 KB blocks at the end: count >= t_s, or not */
	uint64_t remote_map_faults;   /* faults that mapped a preferred-host page remotely (cudaMemAdvise) */
	uint64_t device_syncs;        /* cudaDeviceSynchronize calls of the program */
	uint64_t sync_writeback_pages; /* dirty pages written back and invalidated by them (uvm.device_sync) */
	/* CPU phases touching managed memory (simt_host_access, uvm_host_access.c) */
	uint64_t host_accesses;       /* host-access operations of the program */
	uint64_t cpu_faults;          /* CPU page faults on GPU-resident pages (one per 64 KB chunk) */
	uint64_t cpu_fault_pages;     /* pages those faults migrated to CPU memory */
	uint64_t cpu_duplicated_pages; /* read-mostly pages a CPU read duplicated (the GPU kept its copy) */
	uint64_t cpu_invalidated_copies; /* GPU read duplicates a CPU write invalidated */
	uint64_t cpu_remote_bytes;    /* GPU-resident bytes the CPU read or wrote in place over NVLink-C2C */
	/* the driver's thrashing detection (uvm.thrashing) */
	uint64_t thrash_events;       /* migration events it counted */
	uint64_t thrashing_pages;     /* pages it marked thrashing */
	uint64_t thrash_throttles;    /* faults delayed by a nap */
	uint64_t thrash_pins;         /* pages pinned (mapped remotely) */

	/* per managed allocation, in allocation order (gpuvm_stats_release frees it) */
	struct gpuvm_uvm_alloc_stats *allocs;
	size_t n_allocs;

	/* PCIe busy time per time bin (cycles busy in [i*bin, (i+1)*bin)) */
	uint32_t util_bins;
	double util_bin_cycles;
	double *util_h2d_busy_cycles; /* [util_bins], owned; gpuvm_stats_release frees */
	double *util_d2h_busy_cycles;
};

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
	/* asynchronous copies (link/copy_stream.h): how many, their transfer
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

	char result[GPUVM_RESULT_BYTES]; /* the workload's functional result */
	uint64_t work_items;   /* the workload's unit of work (0: not defined) */

	/* peer access (cudaDeviceEnablePeerAccess, several GPUs): this GPU's
	 * kernels' requests to other GPUs' device memory over NVLink /
	 * NVSwitch (reported when requests > 0) */
	struct gpuvm_peer_access_stats {
		uint64_t requests;    /* sector requests on the GPU-GPU route */
		uint64_t read_bytes;  /* loaded from a peer's memory */
		uint64_t write_bytes; /* stored (and atomics) into a peer's memory */
	} peer;
};

#endif
