/* GPU configuration: the resolved contents of a preset file plus --set
 * overrides. Every field has a dotted key ("tlb.l2.entries") that presets,
 * --set, sweeps and the JSON report all use; the key table lives in
 * src/config/config_keys.c so adding a field touches one place. */
#ifndef GPUVM_CONFIG_H
#define GPUVM_CONFIG_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/module.h"

#include "gpuvm/error.h"
/* GPUVM_WARP_LANES and the instruction classes the issue rates are keyed
 * by (enum gpuvm_op_class) are the stream's */
#include "gpuvm/stream.h"

#define GPUVM_MAX_TLB_LEVELS 4
#define GPUVM_MAX_SMS 256
/* --threads N: N from 1 to GPUVM_MAX_THREADS (the help texts say 64); here,
 * low in the layers, because graph building takes the same limit */
#define GPUVM_MAX_THREADS 64
/* room in set_at[]: the key table has fewer than 192 rows, the modules'
 * parameters (gpuvm/module.h) come after them */
#define GPUVM_CONFIG_MAX_KEYS (216 + GPUVM_MODULE_PARAMS_MAX)

enum gpuvm_share_domain {
	GPUVM_SHARE_SM = 0, /* one instance per SM (private) */
	GPUVM_SHARE_TPC,    /* one per texture processing cluster */
	GPUVM_SHARE_GPC,    /* one per graphics processing cluster */
	GPUVM_SHARE_GPU,    /* one for the whole GPU */
	GPUVM_SHARE_MAP,    /* explicit share_map: instance id per logical SM */
};

/* How logical SM ids (%smid) are laid over the physical GPC/TPC grid. */
enum gpuvm_sm_numbering {
	GPUVM_SM_LINEAR = 0,  /* logical ids follow physical order, GPC-major */
	GPUVM_SM_INTERLEAVED, /* TPC-granular round robin over GPCs (Karnagel Fig. 5-7, 12) */
};

/* Unified-memory paging (src/uvm/). */
enum gpuvm_uvm_fault_model {
	GPUVM_UVM_REPLAYABLE = 0, /* Nack-replayable faults, far-fault MSHRs per SM (Zheng Fig. 4) */
	GPUVM_UVM_BLOCKING,       /* the faulting SM's TLB blocks until serviced */
};
enum gpuvm_uvm_accounting {
	GPUVM_UVM_IN_TIMING = 0, /* fault latency delays the faulting translation */
	GPUVM_UVM_POSTHOC,       /* UVMSmart: latency left out, far faults x latency added after */
};
enum gpuvm_uvm_gmmu {
	/* one batch at a time (nvidia-uvm uvm_gpu_replayable_faults.c), address-order runs */
	GPUVM_UVM_GMMU_DRIVER = 0,
	GPUVM_UVM_GMMU_ZHENG,      /* seeds/003 3.1: faults drained as they arrive, faulted page first */
};
enum gpuvm_uvm_link { GPUVM_UVM_LINK_CURVE = 0, GPUVM_UVM_LINK_FLAT };
enum gpuvm_pte_reads {
	GPUVM_PTE_READS_NONE = 0, /* the walk latency holds the entry reads, whatever the footprint */
	GPUVM_PTE_READS_L2,       /* the leaf entry is a sector read through the L2 (and DRAM) */
};
enum gpuvm_uvm_writeback { GPUVM_UVM_WB_ALL = 0, GPUVM_UVM_WB_DIRTY };
enum gpuvm_uvm_preferred { GPUVM_UVM_PREFERRED_NONE = 0, GPUVM_UVM_PREFERRED_GPU, GPUVM_UVM_PREFERRED_HOST };

#define GPUVM_UVM_POLICY_NAME 32
#define GPUVM_UVM_ADVISE_LIST 256 /* uvm.advise_allocations */
#define GPUVM_PEER_NAME 16

struct gpuvm_tlb_level_config {
	uint32_t entries;       /* total entries of one instance */
	uint32_t ways;          /* 0 = fully associative; else entries % ways == 0 */
	uint64_t entry_bytes;   /* virtual range one entry covers, power of two */
	enum gpuvm_share_domain share;
	uint16_t share_map[GPUVM_MAX_SMS]; /* read when share == MAP */
	uint32_t share_map_len;
	double hit_latency_cycles;   /* lookup cost when the entry is present */
	double miss_penalty_cycles;  /* extra cost of a miss before the next level answers */
	uint32_t mshrs;              /* outstanding misses per instance */
	/* inter-TLB sharing scheme among this level's instances
	 * (src/xlat/peer.h): none, neidty or valkyrie */
	char peer[GPUVM_PEER_NAME];

	/* Derived by gpuvm_config_finalize(), not keys. */
	uint16_t instance_of_sm[GPUVM_MAX_SMS]; /* logical SM -> dense instance id */
	uint32_t instances;
};

/* Where a key got its current value (private to src/config). */
struct gpuvm_config_origin {
	char origin[200]; /* file path or "--set"; "" = built-in default */
	int line;         /* line in origin, 0 when there is none */
	uint32_t seq;     /* order of settings, 0 = never set */
};

struct gpuvm_config {
	char name[64];        /* preset name or file stem */
	char source[256];     /* file the preset came from (for messages) */
	char description[256];

	/* [gpu] */
	uint32_t sms;            /* active SMs */
	uint32_t gpcs, tpcs_per_gpc, sms_per_tpc;
	uint16_t disabled_sms[GPUVM_MAX_SMS]; /* physical ids, GPC-major */
	uint32_t disabled_sms_len;
	enum gpuvm_sm_numbering sm_numbering;
	double clock_mhz;                 /* SM clock; cycles are SM cycles */
	/* gpu.memory: the board's device memory. A device allocation
	 * (cudaMalloc) that does not fit beside the live ones fails the run as
	 * cudaMalloc would; managed memory is not bounded by it (uvm.*
	 * oversubscription pages it). 0 = unlimited (a user preset without it). */
	uint64_t device_memory_bytes;
	uint32_t max_warps_per_sm;
	uint32_t max_ctas_per_sm;
	double issue_warp_insts_per_cycle; /* per SM, all schedulers together */
	/* Issue slots a 32-bit integer multiply(-add) takes: workloads count
	 * their SASS with it, since the multiply is native on some parts and
	 * emulated or rate-limited on others. */
	double imul32_issue_slots;
	/* CUDA compute capability x 10 (37 = sm_37): which compiled listing
	 * of cuda/sass/ a workload that models one counts (random-sampling
	 * with loop=listing); 0 = not a real part, workloads keep their
	 * estimates. */
	uint32_t compute_capability;
	double load_base_latency_cycles;   /* pipeline cost of any global access */
	double kernel_launch_us;
	/* The host's launch period: 0, each launch's overhead
	 * (kernel_launch_us) runs after the work before it, as one gap; above
	 * 0, launches pipeline: the host issues one every this many us while
	 * earlier kernels run, and a kernel starts kernel_launch_us after its
	 * issue or when the GPU is free, whichever is later
	 * (src/system/run_loop.c; docs/launch.md). */
	double kernel_launch_period_us;
	/* Inside a kernel's duration, as nsys/ncu time it (src/sm/sm.h): the
	 * front-end from the kernel's start on the GPU to its first CTA
	 * dispatch, the tail from its last warp to its completion, the CTA
	 * dispatcher's interval between two CTAs (whole GPU), and each CTA's
	 * launch (dispatch to first warp) and retire (last warp to a free
	 * slot) cost, and the release of its warps' resources (per warp,
	 * delaying only the slot's next CTA). All 0 (the model before them)
	 * unless a preset sets them. */
	double kernel_frontend_cycles;
	double kernel_tail_cycles;
	double cta_dispatch_cycles;
	double cta_launch_cycles;
	double cta_retire_cycles;
	double cta_release_cycles_per_warp;

	/* [tlb.l1] .. [tlb.l4] */
	uint32_t tlb_levels;
	struct gpuvm_tlb_level_config tlb[GPUVM_MAX_TLB_LEVELS];

	/* [walker] page-walk unit behind the last TLB level */
	uint32_t walkers;             /* walks in flight */
	double walk_latency_cycles;   /* full walk */
	uint32_t pwc_entries;         /* page-walk cache entries, 0 = off */
	uint64_t pwc_entry_bytes;     /* range one PWC entry covers (upper-level PDE) */
	double pwc_hit_walk_latency_cycles; /* walk cost when the PWC hits */
	enum gpuvm_pte_reads pte_reads;

	/* [l2] sectored data cache, physically indexed */
	uint64_t l2_bytes;
	uint32_t l2_ways;
	uint32_t l2_line_bytes;
	uint32_t l2_sector_bytes;
	double l2_hit_latency_cycles;
	double l2_atomic_latency_cycles; /* the atomic unit's read-modify-write (0: none) */
	/* cycles the atomic unit spends on one atomic to an address before it
	 * takes the next to the same address (0: no per-address queue) */
	double l2_atomic_address_cycles;

	/* [l1] per-SM L1 data cache (src/mem/l1_cache.h) */
	uint64_t l1_bytes;             /* data capacity at the default carve-out; 0 = none */
	uint32_t l1_ways;
	uint32_t l1_line_bytes;        /* sectors are l2.sector_size */
	double l1_hit_latency_cycles;  /* whole load-to-use latency of an L1 hit */
	uint32_t l1_cache_global;      /* 1: global loads allocate in L1 by default */
	double l1_bytes_per_cycle;     /* tag/data throughput per SM */
	/* tag lookups (distinct lines) per cycle; 0: each line moves whole */
	double l1_tags_per_cycle;

	/* [smem] shared memory */
	uint64_t smem_bytes;           /* per SM, limits resident CTAs */
	/* Volta on: L1 and shared memory share one array of l1_unified_bytes
	 * (0 = separate); each launch gets the smallest carve-out (KiB) that
	 * holds its blocks at full occupancy, the L1 the rest */
	uint64_t l1_unified_bytes;
	uint16_t smem_carveouts_kib[GPUVM_MAX_SMS];
	uint32_t smem_carveouts_len;
	double smem_latency_cycles;    /* load-to-use latency without conflicts */
	uint32_t smem_banks;           /* 4-byte banks */
	double smem_wavefront_cycles;  /* cycles a wavefront holds the banks; 0: 1 */

	/* [core] instruction timing: per functional-unit class (enum
	 * gpuvm_op_class) the dependent-issue latency and the initiation
	 * interval of one scheduler's unit */
	uint32_t schedulers_per_sm;
	uint32_t dispatch_units;   /* per scheduler: 2 = dual issue of independent instructions */
	double class_latency_cycles[8];
	double class_interval_cycles[8];

	/* [dram] */
	double dram_latency_cycles;
	double dram_bandwidth_gb_s;   /* 1 GB = 1e9 bytes */
	/* channels and banks (src/mem/dram_model.h); banks = 0: one
	 * bandwidth queue, no row buffers */
	uint32_t dram_channels, dram_banks;
	uint64_t dram_row_bytes;
	/* [mem] memory partitions (src/memsys/memsys.h): each holds
	 * l2.size / partitions of L2 and dram.channels / partitions channels
	 * with their share of the bandwidth; addresses are dealt to them in
	 * partition_interleave chunks */
	uint32_t mem_partitions;
	uint32_t mem_partition_interleave_bytes;
	double mem_far_latency_cycles; /* 0: no near/far partitions */
	uint32_t mem_far_home_dram; /* 0 off, 1: a DRAM read homed far crosses */
	double mem_far_home_dram_cycles; /* its crossing; 0: mem_far_latency_cycles */
	/* how chunks find their partition: 0 dealt round-robin, 1 hashed
	 * from the chunk (its lines keep their global address), 2 dealt in
	 * turn with a hash of the chunk's group folded in (its lines at a
	 * dense address of their partition's own) */
	uint32_t mem_partition_hash;
	double dram_trcd_ns, dram_trp_ns, dram_tcas_ns;
	/* all-bank refresh (JEDEC tREFI, tRFC): the channels serve requests
	 * for 1 - trfc / trefi of the time; 0 = no refresh */
	double dram_trefi_ns, dram_trfc_ns;
	/* per-bank refresh (JESD235 REFSB): > 0 replaces the all-bank one;
	 * each bank refreshes for trfcsb_ns of every trefi_ns while the
	 * others and the bus serve */
	double dram_trfcsb_ns;
	/* read/write turnaround of a channel's data bus: the write-to-read
	 * command gap (JEDEC tWTR_S; the bus then idles twtr + tcas) and the
	 * data bus's idle from read to write data (2 tCK in JEDEC's tRTW);
	 * charged once per drained batch of write_batch_sectors writes when
	 * reads came between batches. 0 = free turnaround */
	double dram_twtr_ns, dram_trtw_ns;
	/* column-to-column delay within a bank group (JEDEC tCCD_L): a
	 * read's sectors of one chunk, one row of one bank, cross the bus no
	 * closer than this; 0 = one burst apart (no bank groups) */
	double dram_tccdl_ns;
	/* bytes of consecutive addresses one DRAM channel serves before the
	 * next (within a memory partition's own addresses); 0 = 256 */
	uint32_t dram_interleave_bytes;
	uint32_t dram_write_batch_sectors;
	/* 1: the controller's write-drain mode: writes that come after reads
	 * wait for their batch, which crosses the bus in one piece while the
	 * reads that want it wait. 0: each write takes its burst at its
	 * arrival and nothing waits behind a drain (the calendar counts the
	 * bus's time, not its order) */
	uint32_t dram_drain_hold;
	/* channels one controller drains together (their writes one queue,
	 * their drains at once); 0 or 1 = each channel on its own */
	uint32_t dram_drain_group_channels;
	/* L2 slices (whole GPU; 0 = no throughput limit) and the bytes each
	 * serves per SM cycle */
	uint32_t l2_slices;
	double l2_slice_bytes_per_cycle;
	/* each SM's port to the L2 (the crossbar's SM side): bytes of read
	 * sectors it passes per SM cycle (0 = no limit) */
	double l2_sm_port_bytes_per_cycle;
	/* the store direction: bytes of store sectors a slice takes and an
	 * SM's port passes per SM cycle (0: a slice at the read rate, no port) */
	double l2_slice_write_bytes_per_cycle;
	double l2_sm_port_write_bytes_per_cycle;
	/* 1: a cudaMemcpy's data into device memory is left in the L2 (the
	 * copy engine writes through it); 0: the copy bypasses it */
	uint32_t l2_copy_fill;
	/* 1: write-backs the DRAM cannot take at once hold the L2 fill that
	 * evicted them, and a warp's end waits for its stores to leave */
	uint32_t l2_writeback_stall;
	/* l2.in_flight: 1 (wait): an access to a sector whose DRAM fill is
	 * still on its way has its data when that fill arrives; 0 (hit): at
	 * the hit latency, as if the data were there (the model before the
	 * key) */
	uint32_t l2_in_flight_wait;
	/* 1: a warp ends only once the L2 has acknowledged its device and
	 * managed stores (the write's arrival at its slice plus the ack's way
	 * back over the crossbar), so its CTA's slot waits for them too */
	uint32_t warp_exit_waits_stores;
	/* tlb.future_fill: 0 walk, 1 peek (src/xlat/xlat.c walk) */
	uint32_t tlb_future_fill_peek;
	/* core.busy_unit: 0 hold, 1 yield (src/system/kernel_run.c) */
	uint32_t busy_unit_yield;
	/* core.window: 0 off, 1 on (windowed timing, docs/parallel.md) */
	uint32_t core_window;

	/* [pcie] zero-copy and copies, one serial lane per direction */
	double pcie_latency_ns;
	double pcie_bandwidth_gb_s;
	double pcie_copy_latency_us; /* one cudaMemcpy's fixed time (0: pcie_latency_ns) */

	/* [uvm] paging of managed allocations */
	double uvm_fault_latency_us;          /* far-fault handling, per batch */
	/* the rate managed pages migrate at, GB/s (0: the link's); with the
	 * curve link model, the curve's asymptote (src/uvm/uvm_lane.c) */
	double uvm_migration_gb_s;
	enum gpuvm_uvm_fault_model uvm_fault_model;
	uint32_t uvm_far_fault_mshrs;         /* per SM, replayable model */
	uint32_t uvm_fault_batch;             /* faults per batch at most */
	enum gpuvm_uvm_gmmu uvm_gmmu;
	enum gpuvm_uvm_accounting uvm_fault_accounting;
	enum gpuvm_uvm_link uvm_pcie_model;   /* migration transfer time */
	char uvm_prefetcher[GPUVM_UVM_POLICY_NAME];
	char uvm_prefetcher_oversub[GPUVM_UVM_POLICY_NAME]; /* "" = keep uvm_prefetcher */
	char uvm_eviction[GPUVM_UVM_POLICY_NAME];
	double uvm_free_buffer_percent;       /* pre-eviction headroom */
	enum gpuvm_uvm_writeback uvm_writeback;
	uint64_t uvm_device_memory_bytes;     /* frames for managed data, 0 = unlimited */
	double uvm_oversub_percent;           /* > 0: capacity = managed bytes x 100 / this */
	enum gpuvm_uvm_preferred uvm_preferred_location;

	/* [neidty] neighbouring directories (Du et al., seeds/002 III;
	 * src/xlat/peer_neidty.c) */
	uint32_t neidty_entries;      /* per directory; 0 = as the level's TLB */
	uint32_t neidty_tag_bits;     /* hashed VPN tag width */
	uint32_t neidty_eviction;     /* 0 fifo, 1 local-first */
	uint32_t neidty_update;       /* 0 default, 1 exclusive, 2 twice */
	double neidty_directory_latency_cycles;
	double neidty_neighbour_latency_cycles;
	/* [valkyrie] ring probing + LDT (Baruah et al., PACT'20;
	 * src/xlat/peer_valkyrie.c) */
	uint32_t valkyrie_probing, valkyrie_ldt; /* 0 off, 1 on */
	double valkyrie_hop_cycles;
	uint32_t valkyrie_ring_size;  /* TLBs per shader engine ring */
	uint32_t valkyrie_ttl_cw, valkyrie_ttl_ccw;
	uint32_t valkyrie_ldt_entries;
	/* 1: count the sharing analyses of Du et al. Fig. 3 / Tables I-II at
	 * the first TLB level (gpuvm sim --tlb-sharing) */
	uint32_t tlb_sharing_analysis;
	/* delayed migration by access counters (seeds/004 IV, Table I) */
	char uvm_migration[GPUVM_UVM_POLICY_NAME]; /* first-touch, always, oversub, adaptive */
	uint32_t uvm_access_counter_threshold;     /* t_s */
	uint32_t uvm_migration_penalty;            /* p */
	double uvm_remote_latency_cycles;          /* a remote (zero-copy) read of managed memory */
	/* cycles one remote read of managed memory (a coalesced access: the
	 * sectors of one 128 B line one instruction reads) holds the
	 * host-to-device lane, in place of its bytes at the link's rate; 0:
	 * its bytes (the model before the key). UVMSmart: 200, its one PCIe
	 * read slot held per DMA (gpu-sim.cc get_ready_cycle_dma) */
	double uvm_remote_read_hold_cycles;
	uint32_t uvm_thrashing;                    /* 0 off, 1 the driver's thrashing detection */
	uint32_t uvm_accessed_by;                  /* 0 none, 1 cudaMemAdviseSetAccessedBy(GPU) */
	char uvm_advise_allocations[GPUVM_UVM_ADVISE_LIST]; /* name patterns the hints apply to; "" all */
	/* 1: an L1 load miss fetches every sector of its line (Fermi/Kepler:
	 * seeds/001 5.3.2, Jia et al. ICS'12); 0: only the sectors addressed */
	uint32_t l1_fill_line;
	/* where a launch's first CTA goes: 0 SM 0; 1 the SM after the last
	 * one given a CTA, over launches (GPGPU-Sim's issue_block2core) */
	uint32_t cta_issue_after_last;
	/* gpu.cta_placement: index into cta_place_policies (src/sm/cta_place.h) */
	uint32_t cta_placement;
	/* 1: a first-level TLB lookup of an entry still being filled is a miss
	 * (gem5-gpu's ShaderTLB inserts at walk end); 0: it waits for the fill */
	uint32_t tlb_l1_in_flight_miss;
	uint32_t uvm_device_sync_writeback; /* uvm.device_sync: 0 keep, 1 writeback */
	/* uvm.counter_migration: 0 async (the access that reaches the
	 * threshold is served remotely and the notification is serviced on
	 * its own, as Volta's access counters are), 1 fault (that access
	 * raises a far fault and waits for the page, as UVMSmart does) */
	uint32_t uvm_counter_migration_fault;
	/* uvm.remote_tlb_hits: 0 link (every access of a page the driver left
	 * in host memory crosses the link), 1 local (as UVMSmart: the TLB
	 * entry a remote read installs serves that SM's later accesses from
	 * device memory, and only its next walk decides again) */
	uint32_t uvm_remote_tlb_hits_local;
	/* uvm.remote_tlb_fill (with remote_tlb_hits = local): 0 read (the
	 * entry serves the SM's accesses from the remote read on), 1 return
	 * (as UVMSmart: from the read's return, when ldst_unit::memory_cycle
	 * serves the returned request and calls refresh_tlb; an access
	 * before it misses the TLB, walks and is decided on its own) */
	uint32_t uvm_remote_tlb_fill_return;
	/* uvm.evict_whole: 1 (whole): the UVMSmart 2 MB block modules
	 * (lru-2mb-access, lfu-2mb, lfu-ac, lfu-uvmsmart) evict only a block whose pages are all resident and that
	 * no fault is migrating into (UVMSmart gmmu_t::is_block_evictable),
	 * their first choice when none is; 0 (any): any block with resident
	 * pages, the model before the key */
	uint32_t uvm_evict_whole;
	/* [c2c] a coherent CPU-GPU link and the CPU's memory (NVLink-C2C on
	 * Grace Hopper; docs/systems.md "Grace Hopper memory"). Off by default:
	 * with c2c_coherent 0 nothing below is read and every run is the
	 * model without the section. */
	uint32_t c2c_coherent;          /* 0 off, 1 on: the host link is C2C, mem=system allowed */
	double c2c_bandwidth_gb_s;      /* the link's rate per direction */
	double c2c_copy_h2d_gb_s;       /* a copy's achieved rate host-to-device; 0: c2c_bandwidth_gb_s */
	double c2c_copy_d2h_gb_s;       /* the same device-to-host */
	double c2c_latency_ns;          /* one remote access's link latency; 0: uvm.remote_latency_cycles */
	double c2c_cpu_memory_gb_s;     /* the CPU memory's bandwidth (LPDDR5X) */
	uint32_t c2c_system_page_bytes; /* the system page table's page (4 KiB or 64 KiB) */
	uint32_t c2c_line_bytes;        /* a remote access's granularity (a CPU cache line) */
	/* who touches system memory first: 0 host (a program's uploads of
	 * it are its CPU initialisation), 1 gpu (it initialises its data in
	 * a kernel, so the uploads place nothing: the GPU's first access
	 * does) */
	uint32_t c2c_first_touch_gpu;
	/* 1: a sharing scheme's read of another TLB's entry makes it that
	 * TLB's most recently used (gem5-gpu's TLBMemory::lookup); 0: not */
	uint32_t tlb_peer_read_touch;
	/* 1: a memory instruction looks up the first TLB level once per
	 * coalesced access (128 B segment; gem5-gpu's ShaderLSQ); 0: once per
	 * distinct first-level entry (page) */
	uint32_t tlb_translate_per_access;
	/* l1.replacement: the L1 data cache's replacement module (lru, fifo,
	 * srrip: src/mem/l1_repl_*.c) */
	char l1_replacement[GPUVM_UVM_POLICY_NAME];
	/* core.warp_scheduler: which ready warp takes a scheduler's slot
	 * (first-ready, gto: src/sm/warp_sched_*.c) */
	char warp_scheduler[GPUVM_UVM_POLICY_NAME];
	/* every module's parameters (gpuvm/module.h), slot =
	 * gpuvm_module_param_slot(); the rows' defaults unless set */
	double module_params[GPUVM_MODULE_PARAMS_MAX];

	/* Not a key: the GPUs of the system the run simulates (gpuvm sim
	 * --system), set by the run after finalize; 0 or 1 for a preset.
	 * Multi-GPU workloads split their work over this many by default. */
	uint32_t system_gpus;

	/* Private to src/config: where each key was last set, indexed by key
	 * id, so gpuvm_config_finalize() can name the file and line of a value
	 * that only fails a cross-field check. */
	/* Loaded as a preset (by name or file): finalize requires every key in
	 * use to have been set, by the preset, its base or --set, rather than
	 * silently completing it from the built-in generic GPU. */
	bool require_every_key;
	uint32_t set_seq;
	struct gpuvm_config_origin set_at[GPUVM_CONFIG_MAX_KEYS];
};

/* Fills cfg with built-in defaults (no preset). */
void gpuvm_config_defaults(struct gpuvm_config *cfg);

/* Loads a shipped preset by name ("p100") or a file path. Names are tried
 * first; anything containing '/' or ending in ".ini" is a path. Starts from
 * gpuvm_config_defaults(); keys the file leaves out keep their defaults. A
 * key given twice in one file is an error. */
int gpuvm_config_load(struct gpuvm_config *cfg, const char *name_or_path,
		      struct gpuvm_error *err);

/* Parses INI text (starting from defaults, like gpuvm_config_load); origin
 * names it in messages and its stem becomes cfg->name. */
int gpuvm_config_load_string(struct gpuvm_config *cfg, const char *text,
			     const char *origin, struct gpuvm_error *err);

/* Parses INI text as the preset file origin would be read (`--gpu FILE`:
 * every key in use set, or a base named; finalize checks it), so a
 * program writing a preset can check that it loads. */
int gpuvm_config_load_preset_text(struct gpuvm_config *cfg, const char *text,
				  const char *origin, struct gpuvm_error *err);

/* Applies one "key=value" override; origin is used in messages ("--set").
 * Single-value checks happen here; cross-field checks in finalize. */
int gpuvm_config_set(struct gpuvm_config *cfg, const char *assignment,
		     const char *origin, struct gpuvm_error *err);

/* Where key was last set (origin "" and line 0: its built-in default, or
 * cfg->source when the preset file named it); NULL for an unknown key.
 * For messages about a key checked outside src/config. */
const struct gpuvm_config_origin *gpuvm_config_key_origin(const struct gpuvm_config *cfg,
							  const char *key);

/* Checks every field and derives instance maps. Must succeed before use. */
int gpuvm_config_finalize(struct gpuvm_config *cfg, struct gpuvm_error *err);

/* Writes the value of key into buf in a form gpuvm_config_set() parses
 * back (sizes as 2MiB/1536KiB, lists space separated, enums by name);
 * returns 0, or -1 for an unknown key or a buf too small. */
int gpuvm_config_get(const struct gpuvm_config *cfg, const char *key,
		     char *buf, size_t buflen);

/* The value of a number or choice key (a choice's index) into *out;
 * returns 0, or -1 for an unknown key or a list or string. */
int gpuvm_config_number(const struct gpuvm_config *cfg, const char *key, double *out);

/* Iterates all keys in order (for JSON/CSV dumps). Returns NULL past the end.
 * With a cfg, keys of TLB levels >= cfg->tlb_levels and share_map of levels
 * whose share is not "map" are skipped; with NULL, every key is listed. */
const char *gpuvm_config_key_at(const struct gpuvm_config *cfg, size_t i);

/* One line of help for a key ("entries of one TLB instance"), NULL if unknown. */
const char *gpuvm_config_key_help(const char *key);

/* Shipped presets, embedded at build time from presets/ *.ini. */
struct gpuvm_preset_text {
	const char *name;     /* "p100" */
	const char *path;     /* "presets/p100.ini" */
	const char *text;
};
extern const struct gpuvm_preset_text gpuvm_shipped_presets[];
extern const size_t gpuvm_shipped_presets_count;

const char *gpuvm_share_domain_name(enum gpuvm_share_domain d);

/* m's parameter values under cfg (the defaults when cfg is NULL), in row
 * order, into out[m->n_params] (src/config/config_modules.c). */
void gpuvm_module_params(const struct gpuvm_config *cfg, const struct gpuvm_module *m, double *out);

#endif
