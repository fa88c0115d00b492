/* Unified-memory paging (cudaMallocManaged): what a run reports about far
 * faults, migrations, eviction and the PCIe link, and the registries of
 * prefetchers and eviction policies (each a module in src/uvm/, chosen by
 * name with uvm.prefetcher / uvm.eviction). */
#ifndef GPUVM_UVM_H
#define GPUVM_UVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
extern const char *const gpuvm_uvm_decision_names[GPUVM_UVM_DECISIONS];

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

/* "hot" or "cold" (see above), "untouched" without a count,
 * "unclassified" without counters. */
const char *gpuvm_uvm_alloc_class(const struct gpuvm_uvm_alloc_stats *a);

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

/* PCIe transfer time of one migration or copy of `bytes` on one lane, in
 * seconds, over a link of raw rate bandwidth_gb_s (pcie.bandwidth_gb_s:
 * PCIe 3.0 x16 = 16, Gen4 = 32, Gen5 = 64; never an already derated
 * value). curve: UVMSmart's speed = (2a/pi) atan(0.07292 KB) GiB/s with
 * a = 0.75 x raw (a = 12 for 16 GB/s; UVMSmart gpu-sim.cc),
 * which produces the derating itself; flat: bytes over
 * gpuvm_pcie_effective_gb_s(raw). */
double gpuvm_uvm_transfer_seconds(uint64_t bytes, double bandwidth_gb_s, bool curve);

/* The rate a large pinned transfer achieves on a link of raw rate
 * raw_gb_s (0.815 x raw, measured: GPUInspector.jl v100_sxm2.md): the flat
 * link model, zero-copy sectors (link/link.c) and the scope model use it, so
 * that every path derates the raw pcie.bandwidth_gb_s exactly once. */
double gpuvm_pcie_effective_gb_s(double raw_gb_s);

#endif
