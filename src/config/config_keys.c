/* The one table of configuration keys. Every key a preset, --set, a sweep
 * or the JSON dump can name is a row here: its dotted name, type, field,
 * bounds and help. INI parsing, --set, get, key_at and the single-field
 * checks of finalize are all driven by it, so adding a field to struct
 * gpuvm_config means adding one row (and one id in config_internal.h when
 * a cross-field check needs to name it). */
#include "config/config_internal.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuvm/stream.h"
#include "gpuvm/units.h"

#define OFF(field) offsetof(struct gpuvm_config, field)

_Static_assert(sizeof(enum gpuvm_share_domain) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum gpuvm_sm_numbering) == sizeof(int), "enums are stored as int");

_Static_assert(sizeof(enum gpuvm_uvm_fault_model) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum gpuvm_uvm_accounting) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum gpuvm_uvm_link) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum gpuvm_uvm_writeback) == sizeof(int), "enums are stored as int");
_Static_assert(sizeof(enum gpuvm_uvm_preferred) == sizeof(int), "enums are stored as int");

static const char *const share_names[] = {"sm", "tpc", "gpc", "gpu", "map"};
static const char *const numbering_names[] = {"linear", "interleaved"};
static const char *const fault_model_names[] = {"replayable", "blocking"};
static const char *const accounting_names[] = {"in_timing", "posthoc"};
static const char *const pte_read_names[] = {"none", "l2"};
static const char *const gmmu_names[] = {"driver", "zheng"};
static const char *const link_names[] = {"curve", "flat"};
static const char *const writeback_names[] = {"all", "dirty"};
static const char *const preferred_names[] = {"none", "gpu", "host"};
static const char *const accessed_by_names[] = {"none", "gpu"};
static const char *const off_on_names[] = {"off", "on"};
static const char *const partition_map_names[] = {"off", "on", "xor"};
static const char *const window_names[] = {"off", "on", "lagged"};
static const char *const future_fill_names[] = {"walk", "peek"};
static const char *const busy_unit_names[] = {"hold", "yield"};

/* Physical ranges. Every bound is far outside any real part, so it only
 * refuses values that are typos or nonsense - and that would otherwise make
 * a run hang or lie (a 1e-300 GB/s link turns one sector into 1e301 cycles).
 *   LAT_MAX  10^7 cycles: 10 ms at 1 GHz, ~10^4 x the slowest measured GPU
 *            memory latency (a TLB miss to DRAM, ~1 us; each preset cites its latencies)
 *   NS_MAX   10^7 ns = 10 ms for link latencies (PCIe: ~1 us)
 *   BW_MIN   1 MB/s = 10^-3 GB/s, below any bus that ever fed a GPU
 *   BW_MAX   10^5 GB/s = 100 TB/s, ~30 x H100's HBM3 (3.35 TB/s)
 *   US_MAX   10^6 us = 1 s for per-event microsecond costs (launch ~5 us,
 *            far fault 20-50 us: Zheng et al. HPCA'16) */
#define LAT_MAX 1e7
#define NS_MAX 1e7
#define BW_MIN 1e-3
#define BW_MAX 1e5
#define US_MAX 1e6
#define KiB 1024.0
#define TiB (1024.0 * 1024.0 * 1024.0 * 1024.0)

#define U32(nm, field, lo, hi, lvl, hlp) \
	{ .name = nm, .type = CT_U32, .off = OFF(field), .min = lo, .max = hi, .level = lvl, .help = hlp }
#define DBL(nm, field, lo, excl, hi, lvl, hlp) \
	{ .name = nm, .type = CT_DOUBLE, .off = OFF(field), .min = lo, .min_exclusive = excl, \
	  .max = hi, .level = lvl, .help = hlp }
/* optional, listed (reports, config_hash) only away from 0 */
#define DBL_QUIET(nm, field, hlp) \
	{ .name = nm, .type = CT_DOUBLE, .off = OFF(field), .min = 0, .max = LAT_MAX, .level = -1, \
	  .optional = true, .quiet_default = true, .def = 0, .help = hlp }
#define SIZE64(nm, field, lo, hi, p2, lvl, hlp) \
	{ .name = nm, .type = CT_SIZE64, .off = OFF(field), .min = lo, .max = hi, .pow2 = p2, \
	  .level = lvl, .help = hlp }
#define SIZE32(nm, field, lo, hi, p2, hlp) \
	{ .name = nm, .type = CT_SIZE32, .off = OFF(field), .min = lo, .max = hi, .pow2 = p2, \
	  .level = -1, .help = hlp }
#define ENUM(nm, field, names, lvl, hlp) \
	{ .name = nm, .type = CT_ENUM, .off = OFF(field), .enum_names = names, \
	  .enum_count = sizeof names / sizeof names[0], .min = 0, \
	  .max = (double)(sizeof names / sizeof names[0] - 1), .level = lvl, .help = hlp }
/* a module parameter's old key: the rest comes from the module's row */
#define FROM_MODULE(nm, fld, t) \
	{ .name = nm, .type = t, .off = OFF(fld), .level = -1, .from_module = true }
#define LIST(nm, field, lenfield, lvl, hlp) \
	{ .name = nm, .type = CT_U16_LIST, .off = OFF(field), .len_off = OFF(lenfield), \
	  .cap = GPUVM_MAX_SMS, .min = 0, .max = 65535, .level = lvl, .help = hlp }

static const char *const global_load_names[] = {"uncached", "cached"};
static const char *const l1_fill_names[] = {"sector", "line"};
static const char *const cta_issue_names[] = {"sm0", "after-last"};
/* in cta_place_policies order (src/sm/cta_place.c) */
static const char *const cta_placement_names[] = {"round-robin", "fill"};
static const char *const in_flight_names[] = {"merge", "miss"};
static const char *const l2_in_flight_names[] = {"hit", "wait"};
static const char *const device_sync_names[] = {"keep", "writeback"};
static const char *const counter_migration_names[] = {"async", "fault"};
static const char *const remote_tlb_hits_names[] = {"link", "local"};
static const char *const remote_tlb_fill_names[] = {"read", "return"};
static const char *const evict_whole_names[] = {"any", "whole"};
static const char *const peer_read_lru_names[] = {"keep", "touch"};
static const char *const translate_per_names[] = {"page", "access"};
static const char *const first_touch_names[] = {"host", "gpu"};

/* [core] keys of one kind for every gpuvm_op_class, in its order. */
#define CLASS_KEY(kind, arr, i, cls, hlp) \
	DBL("core." cls "_" #kind "_cycles", arr[i], 0, false, LAT_MAX, -1, hlp cls " instructions")
#define CLASS_KEYS(kind, arr, hlp)                                                          \
	CLASS_KEY(kind, arr, GPUVM_CLASS_ALU, "alu", hlp),                                  \
	CLASS_KEY(kind, arr, GPUVM_CLASS_FMA, "fma", hlp),                                  \
	CLASS_KEY(kind, arr, GPUVM_CLASS_IMAD, "imad", hlp),                                \
	CLASS_KEY(kind, arr, GPUVM_CLASS_SFU, "sfu", hlp),                                  \
	CLASS_KEY(kind, arr, GPUVM_CLASS_DP, "dp", hlp),                                    \
	CLASS_KEY(kind, arr, GPUVM_CLASS_TENSOR, "tensor", hlp),                            \
	CLASS_KEY(kind, arr, GPUVM_CLASS_BRANCH, "branch", hlp),                            \
	CLASS_KEY(kind, arr, GPUVM_CLASS_MEMISSUE, "mem", hlp)

/* The keys of [tlb.lN]; order must match enum cfg_tlb_key. */
#define TLB_LEVEL_KEYS(i, n)                                                                \
	U32("tlb.l" #n ".entries", tlb[i].entries, 1, 1 << 20, i,                           \
	    "entries of one TLB instance"),                                                 \
	U32("tlb.l" #n ".ways", tlb[i].ways, 0, 1 << 24, i,                                 \
	    "associativity; 0 = fully associative, else must divide entries"),              \
	SIZE64("tlb.l" #n ".entry_size", tlb[i].entry_bytes, 4 * KiB, TiB, true, i,         \
	       "virtual range one entry covers (power of two, >= 4KiB)"),                   \
	ENUM("tlb.l" #n ".share", tlb[i].share, share_names, i,                             \
	     "which SMs share one instance: sm, tpc, gpc, gpu or map"),                     \
	LIST("tlb.l" #n ".share_map", tlb[i].share_map, tlb[i].share_map_len, i,            \
	     "with share = map: instance id of each logical SM (one per active SM)"),       \
	DBL("tlb.l" #n ".hit_latency_cycles", tlb[i].hit_latency_cycles, 0, false, LAT_MAX, i, \
	    "lookup cost when the entry is present (SM cycles)"),                           \
	DBL("tlb.l" #n ".miss_penalty_cycles", tlb[i].miss_penalty_cycles, 0, false, LAT_MAX, i, \
	    "extra cost of a miss before the next level answers (SM cycles)"),              \
	U32("tlb.l" #n ".mshrs", tlb[i].mshrs, 1, 1 << 20, i,                               \
	    "outstanding misses per instance"),                                             \
	{ .name = "tlb.l" #n ".peer", .type = CT_STRING, .off = OFF(tlb[i].peer),           \
	  .cap = GPUVM_PEER_NAME, .level = i, .optional = true,                             \
	  .selects = GPUVM_MODULE_PEER + 1,                                                 \
	  .help = "inter-TLB sharing among the level's instances (docs/neidty.md)" }

const struct cfg_key cfg_keys[] = {
	/* [gpu]; order must match enum cfg_key_id */
	{ .name = "gpu.description", .type = CT_STRING, .off = OFF(description),
	  .cap = sizeof(((struct gpuvm_config *)0)->description), .level = -1,
	  .help = "free text shown in reports" },
	U32("gpu.sms", sms, 1, GPUVM_MAX_SMS, -1, "active SMs"),
	U32("gpu.gpcs", gpcs, 1, 256, -1, "graphics processing clusters of the full die"),
	U32("gpu.tpcs_per_gpc", tpcs_per_gpc, 1, 256, -1, "texture processing clusters per GPC"),
	U32("gpu.sms_per_tpc", sms_per_tpc, 1, 64, -1, "SMs per TPC"),
	LIST("gpu.disabled_sms", disabled_sms, disabled_sms_len, -1,
	     "physical ids of fused-off SMs, GPC-major: (gpc*tpcs_per_gpc + tpc)*sms_per_tpc + k"),
	ENUM("gpu.sm_numbering", sm_numbering, numbering_names, -1,
	     "how logical SM ids are laid over the grid: linear or interleaved (TPC round robin over GPCs)"),
	/* 1 MHz .. 10 GHz: GPUs clock at 0.5-2.5 GHz */
	DBL("gpu.clock_mhz", clock_mhz, 1, false, 1e4, -1, "SM clock; all *_cycles are SM cycles"),
	U32("gpu.max_warps_per_sm", max_warps_per_sm, 1, 1024, -1, "resident warps per SM"),
	U32("gpu.max_ctas_per_sm", max_ctas_per_sm, 1, 1024, -1, "resident CTAs per SM"),
	/* real SMs issue 1-4 per cycle; below 1/100 a compute gap is a hang */
	DBL("gpu.issue_warp_insts_per_cycle", issue_warp_insts_per_cycle, 0.01, false, 64, -1,
	    "warp instructions one SM issues per cycle, all schedulers together"),
	DBL("gpu.imul32_issue_slots", imul32_issue_slots, 0, true, 64, -1,
	    "issue slots one warp's 32-bit integer multiply takes (workloads' instruction counts)"),
	/* 99: past every part so far (9.0); 0 = no real part */
	U32("gpu.compute_capability", compute_capability, 0, 99, -1,
	    "CUDA compute capability x 10 (37 = sm_37): which compiled listing (cuda/sass/) "
	    "random-sampling:loop=listing counts; 0 = none, it keeps the estimate"),
	DBL("gpu.load_base_latency_cycles", load_base_latency_cycles, 0, false, LAT_MAX, -1,
	    "pipeline cost of any global access, before the TLB and L2"),
	DBL("gpu.kernel_launch_us", kernel_launch_us, 0, false, US_MAX, -1,
	    "a launch's overhead: from the host's call to the kernel's start on the GPU"),

	/* [tlb] */
	U32("tlb.levels", tlb_levels, 1, GPUVM_MAX_TLB_LEVELS, -1, "TLB levels in use (1..4)"),
	TLB_LEVEL_KEYS(0, 1),
	TLB_LEVEL_KEYS(1, 2),
	TLB_LEVEL_KEYS(2, 3),
	TLB_LEVEL_KEYS(3, 4),

	/* [walker] */
	U32("walker.walkers", walkers, 1, 1 << 24, -1, "page walks in flight"),
	DBL("walker.latency_cycles", walk_latency_cycles, 0, false, LAT_MAX, -1, "cost of a full page walk"),
	U32("walker.pwc_entries", pwc_entries, 0, 1 << 24, -1, "page-walk cache entries; 0 = no PWC"),
	SIZE64("walker.pwc_entry_size", pwc_entry_bytes, 4 * KiB, TiB, true, -1,
	       "virtual range one PWC entry covers (power of two)"),
	DBL("walker.pwc_hit_latency_cycles", pwc_hit_walk_latency_cycles, 0, false, LAT_MAX, -1,
	    "cost of a walk whose upper levels hit in the PWC"),
	ENUM("walker.pte_reads", pte_reads, pte_read_names, -1,
	     "none (latency_cycles holds the page-table reads) or l2 (each walk also reads its leaf entry "
	     "through the L2; an L2 miss adds the DRAM access, docs/timing.md)"),

	/* [l2] */
	/* the model allocates every line's tags: 1 GiB, 20 x H100's 50 MB */
	SIZE64("l2.size", l2_bytes, 1, 1024 * 1024 * KiB, false, -1, "L2 data cache capacity"),
	U32("l2.ways", l2_ways, 1, 4096, -1, "L2 associativity"),
	SIZE32("l2.line_size", l2_line_bytes, 1, 65536, true, "L2 line (power of two)"),
	SIZE32("l2.sector_size", l2_sector_bytes, 1, 65536, true,
	       "L2 sector, the fill unit (power of two dividing the line)"),
	DBL("l2.hit_latency_cycles", l2_hit_latency_cycles, 0, false, LAT_MAX, -1,
	    "added to load_base_latency for an L2 hit"),

	/* [dram] */
	DBL("dram.latency_cycles", dram_latency_cycles, 0, false, LAT_MAX, -1,
	    "added to the L2 hit latency for an L2 miss"),
	DBL("dram.bandwidth_gb_s", dram_bandwidth_gb_s, BW_MIN, false, BW_MAX, -1,
	    "DRAM bandwidth, 1 GB = 1e9 bytes"),

	/* [pcie] */
	DBL("pcie.latency_ns", pcie_latency_ns, 0, false, NS_MAX, -1, "one-way latency of a PCIe request"),
	DBL("pcie.bandwidth_gb_s", pcie_bandwidth_gb_s, BW_MIN, false, BW_MAX, -1,
	    "raw link rate of one direction (PCIe 3.0 x16 = 16, Gen4 = 32, Gen5 = 64), 1 GB = 1e9 bytes; "
	    "transfers achieve less (uvm.pcie_model, docs/uvm.md)"),

	/* [uvm] paging of managed allocations (docs/uvm.md) */
	DBL("uvm.fault_latency_us", uvm_fault_latency_us, 0, false, US_MAX, -1,
	    "far-fault handling time of one fault batch before its migrations start"),
	ENUM("uvm.fault_model", uvm_fault_model, fault_model_names, -1,
	     "replayable (far-fault MSHRs, Nack + replay) or blocking (the SM's TLB waits)"),
	U32("uvm.far_fault_mshrs", uvm_far_fault_mshrs, 1, 1 << 20, -1,
	    "far faults one SM may have outstanding (replayable model)"),
	U32("uvm.fault_batch", uvm_fault_batch, 1, 1 << 20, -1, "faults the handler takes per batch"),
	ENUM("uvm.gmmu", uvm_gmmu, gmmu_names, -1,
	     "fault service: driver (batches one after another; a migration's pages usable when it lands) or "
	     "zheng (faults drained as they arrive, fault_latency each; the faulted page first; pages usable as they land)"),
	ENUM("uvm.fault_accounting", uvm_fault_accounting, accounting_names, -1,
	     "in_timing, or posthoc (UVMSmart: latency added after the run, per faulted page)"),
	ENUM("uvm.pcie_model", uvm_pcie_model, link_names, -1,
	     "migration time: curve (UVMSmart's transfer-size curve) or flat bandwidth"),
	{ .name = "uvm.prefetcher", .type = CT_STRING, .off = OFF(uvm_prefetcher),
	  .cap = GPUVM_UVM_POLICY_NAME, .level = -1, .selects = GPUVM_MODULE_PREFETCH + 1,
	  .help = "prefetcher module" },
	{ .name = "uvm.prefetcher_oversub", .type = CT_STRING, .off = OFF(uvm_prefetcher_oversub),
	  .cap = GPUVM_UVM_POLICY_NAME, .level = -1, .selects = GPUVM_MODULE_PREFETCH + 1,
	  .help = "prefetcher once eviction starts (empty = keep uvm.prefetcher)" },
	{ .name = "uvm.eviction", .type = CT_STRING, .off = OFF(uvm_eviction),
	  .cap = GPUVM_UVM_POLICY_NAME, .level = -1, .selects = GPUVM_MODULE_EVICT + 1,
	  .help = "eviction module" },
	DBL("uvm.free_buffer_percent", uvm_free_buffer_percent, 0, false, 90, -1,
	    "pre-eviction: keep this % of device frames free"),
	ENUM("uvm.writeback", uvm_writeback, writeback_names, -1,
	     "on eviction write back all pages (driver, UVMSmart) or dirty pages only"),
	SIZE64("uvm.device_memory", uvm_device_memory_bytes, 0, TiB * 64, false, -1,
	       "device memory for managed data; 0 = unlimited (no eviction)"),
	/* 1000 %: a tenth of the working set resident, past every study's range
	 * (Zheng, Ganguly: 110-150 %) */
	DBL("uvm.oversub_percent", uvm_oversub_percent, 0, false, 1000, -1,
	    "> 0: device memory = managed working set x 100 / this (e.g. 125); overrides device_memory"),
	ENUM("uvm.preferred_location", uvm_preferred_location, preferred_names, -1,
	     "cudaMemAdviseSetPreferredLocation: none, gpu (tree-driver moves whole blocks on first touch) "
	     "or host (pages stay in host memory: every GPU access is remote, after a mapping fault "
	     "unless uvm.accessed_by = gpu); for the allocations of uvm.advise_allocations"),

	/* [l1] per-SM L1 data cache; sectors are l2.sector_size */
	SIZE64("l1.size", l1_bytes, 0, 4096 * KiB, false, -1,
	       "L1 data cache per SM; 0 = no L1 data cache (with l1.unified_size each launch's L1 is "
	       "the array minus its carve-out instead)"),
	U32("l1.ways", l1_ways, 1, 4096, -1, "L1 associativity"),
	SIZE32("l1.line_size", l1_line_bytes, 1, 65536, true, "L1 line (power of two, a multiple of l2.sector_size)"),
	DBL("l1.hit_latency_cycles", l1_hit_latency_cycles, 0, false, LAT_MAX, -1,
	    "load-to-use latency of an L1 hit (whole, not an increment)"),
	ENUM("l1.global_loads", l1_cache_global, global_load_names, -1,
	     "whether global loads allocate in L1 by default: uncached (Kepler..Pascal: L2 only unless "
	     "LDG.CONSTANT/.CA) or cached (Volta on)"),
	DBL("l1.bytes_per_cycle", l1_bytes_per_cycle, 1, false, 65536, -1,
	    "L1 tag/data throughput per SM: one line of this many bytes per cycle"),
	SIZE64("l1.unified_size", l1_unified_bytes, 0, 4096 * KiB, false, -1,
	       "L1 and shared memory in one array of this size per SM (Volta on; 0 = separate, l1.size "
	       "and smem.size fixed): each launch's L1 is this minus its carve-out (smem.carveouts)"),

	/* [smem] */
	SIZE64("smem.size", smem_bytes, 0, 4096 * KiB, false, -1,
	       "shared memory per SM (limits resident CTAs by their shared memory)"),
	DBL("smem.latency_cycles", smem_latency_cycles, 0, false, LAT_MAX, -1,
	    "load-to-use latency of a conflict-free shared-memory access"),
	U32("smem.banks", smem_banks, 1, 256, -1, "4-byte shared-memory banks (one access per bank per cycle)"),
	LIST("smem.carveouts", smem_carveouts_kib, smem_carveouts_len, -1,
	     "shared-memory carve-outs in KiB, ascending, the last = smem.size (with l1.unified_size; "
	     "empty otherwise): a launch gets the smallest that holds its blocks at full occupancy"),

	/* [core] */
	U32("core.schedulers", schedulers_per_sm, 1, 64, -1,
	    "warp schedulers per SM; gpu.issue_warp_insts_per_cycle is split among them"),
	CLASS_KEYS(latency, class_latency_cycles, "dependent-issue latency (cycles) of "),
	CLASS_KEYS(interval, class_interval_cycles, "initiation interval (cycles) per scheduler of "),

	/* [dram] structure: HBM/GDDR parts have 8-80 channels of 16-32 banks */
	U32("dram.channels", dram_channels, 1, 1024, -1, "memory channels, address-interleaved"),
	U32("dram.banks", dram_banks, 0, 1024, -1,
	    "banks per channel with a row buffer each; 0 = a plain bandwidth queue"),
	SIZE64("dram.row_size", dram_row_bytes, 64, 1024 * KiB, true, -1, "bytes of one bank row (power of two)"),
	DBL("dram.trcd_ns", dram_trcd_ns, 0, false, NS_MAX, -1, "activate to column command (row miss)"),
	DBL("dram.trp_ns", dram_trp_ns, 0, false, NS_MAX, -1, "precharge (closing the open row)"),
	DBL("dram.tcas_ns", dram_tcas_ns, 0, false, NS_MAX, -1, "column command to data"),
	DBL_QUIET("dram.trefi_ns", dram_trefi_ns,
		  "refresh interval: one refresh command per channel every trefi_ns (0 = no refresh)"),
	DBL_QUIET("dram.trfc_ns", dram_trfc_ns,
		  "refresh cycle time: the channel serves nothing for trfc_ns of every trefi_ns "
		  "(all-bank refresh)"),
	DBL_QUIET("dram.trfcsb_ns", dram_trfcsb_ns,
		  "per-bank refresh cycle time (JESD235 REFSB): > 0 refreshes one bank at a time, "
		  "each for trfcsb_ns of every trefi_ns, while the other banks and the bus serve "
		  "(dram.trfc_ns then unused)"),
	DBL_QUIET("dram.twtr_ns", dram_twtr_ns,
		  "write-to-read turnaround (JEDEC tWTR_S): after a write batch the data bus idles "
		  "twtr_ns + dram.tcas_ns before read data flows (0 = free turnaround)"),
	DBL_QUIET("dram.trtw_ns", dram_trtw_ns,
		  "read-to-write turnaround: the data bus's idle between read and write data "
		  "(JEDEC tRTW = CL + BL/2 + 2 - WL leaves 2 tCK)"),
	{ .name = "dram.write_batch_sectors", .type = CT_U32, .off = OFF(dram_write_batch_sectors),
	  .min = 0, .max = 1u << 20, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "write-drain batch: a channel's controller queues writes and drains them this many "
		  "sectors at a time, turning its bus around (dram.twtr_ns, dram.trtw_ns) once per "
		  "batch that reads came between (0 = no turnaround)" },


	/* [neidty] and [valkyrie]: tunables of the TLB sharing schemes
	 * (tlb.lN.peer), optional in presets. Parameters of the scheme
	 * modules (src/xlat/peer_neidty.c, peer_valkyrie.c), which hold their
	 * defaults, ranges, choices and help; the keys keep their names and
	 * places so reports and config_hash read as before. */
	FROM_MODULE("neidty.entries", neidty_entries, CT_U32),
	FROM_MODULE("neidty.tag_bits", neidty_tag_bits, CT_U32),
	FROM_MODULE("neidty.eviction", neidty_eviction, CT_ENUM),
	FROM_MODULE("neidty.update", neidty_update, CT_ENUM),
	FROM_MODULE("neidty.directory_latency_cycles", neidty_directory_latency_cycles, CT_DOUBLE),
	FROM_MODULE("neidty.neighbour_latency_cycles", neidty_neighbour_latency_cycles, CT_DOUBLE),
	FROM_MODULE("valkyrie.probing", valkyrie_probing, CT_ENUM),
	FROM_MODULE("valkyrie.ldt", valkyrie_ldt, CT_ENUM),
	FROM_MODULE("valkyrie.hop_cycles", valkyrie_hop_cycles, CT_DOUBLE),
	FROM_MODULE("valkyrie.ring_size", valkyrie_ring_size, CT_U32),
	FROM_MODULE("valkyrie.ttl_cw", valkyrie_ttl_cw, CT_U32),
	FROM_MODULE("valkyrie.ttl_ccw", valkyrie_ttl_ccw, CT_U32),
	FROM_MODULE("valkyrie.ldt_entries", valkyrie_ldt_entries, CT_U32),
	ENUM("tlb.sharing_analysis", tlb_sharing_analysis, off_on_names, -1,
		 "count Du et al.'s sharing analyses at the first TLB level: how many instances hold each "
		 "looked-up entry (Fig. 3) and each instance's neighbour correlation (Tables I-II); "
		 "gpuvm sim --tlb-sharing"),

	/* [uvm] delayed migration by access counters (seeds/004 IV, Table I;
	 * docs/uvm.md), optional in presets */
	{ .name = "uvm.migration", .type = CT_STRING, .off = OFF(uvm_migration),
	  .cap = GPUVM_UVM_POLICY_NAME, .level = -1, .selects = GPUVM_MODULE_MIGRATE + 1,
	  .help = "migration policy module (gpuvm sim --migration; first-touch, the default, migrates "
		  "on every fault; gpuvm presets --modules describes each)" },
	U32("uvm.access_counter_threshold", uvm_access_counter_threshold, 1, 1u << 26, -1,
	    "t_s: static access-counter threshold of 64 KB blocks (seeds/004 Table I: 8, 16, 32)"),
	U32("uvm.migration_penalty", uvm_migration_penalty, 1, 1u << 20, -1,
	    "p: multiplicative migration penalty after oversubscription (seeds/004 Eq. 1, Table I: 2, 4, 8, 1048576; "
	    "default 2; VI-C runs Fig. 6's adaptive at 8)"),
	DBL("uvm.remote_latency_cycles", uvm_remote_latency_cycles, 0, false, LAT_MAX, -1,
	    "a remote read of managed memory over PCIe, on top of its link time (seeds/004 Table I: 200)"),
	ENUM("uvm.thrashing", uvm_thrashing, off_on_names, -1,
	     "the driver's thrashing detection (uvm_perf_thrashing.c): per-page events within a lapse, "
	     "throttle and pin; on one GPU eviction migrations are not events (docs/uvm.md)"),
	ENUM("uvm.accessed_by", uvm_accessed_by, accessed_by_names, -1,
	     "cudaMemAdviseSetAccessedBy: none, or gpu (the GPU keeps a mapping of every page: a page "
	     "in host memory is accessed remotely without a fault and migrates only by access "
	     "counters); for the allocations of uvm.advise_allocations"),
	{ .name = "uvm.advise_allocations", .type = CT_STRING, .off = OFF(uvm_advise_allocations),
	  .cap = GPUVM_UVM_ADVISE_LIST, .level = -1,
	  .help = "comma-separated allocation names or shell patterns (fnmatch: 'graph*', "
		  "'cudaMalloc@0x7f*') that uvm.preferred_location and uvm.accessed_by apply to; "
		  "empty = every managed allocation" },
	/* appended after the optional keys (cfg_key_optional): a preset may
	 * leave it out and gets `sector` */
	ENUM("l1.fill", l1_fill_line, l1_fill_names, -1,
	     "what an L1 load miss fetches: sector (the sectors addressed; NVIDIA since Pascal) or "
	     "line (the whole line, 4 x 32 B for 128 B: Fermi/Kepler, seeds/001 5.3.2)"),
	/* optional too (after K_UVM_MIGRATION): a preset may leave it out */
	ENUM("gpu.cta_issue", cta_issue_after_last, cta_issue_names, -1,
	     "where each launch's first CTA goes: sm0 (SM 0, then round robin), or after-last (the SM "
	     "after the last one that was given a CTA, by any launch: GPGPU-Sim's "
	     "gpgpu_sim::issue_block2core, so small launches rotate over the SMs; its pointer "
	     "starts at SM 0, so the run's first CTA goes to SM 1)"),
	ENUM("tlb.l1_in_flight", tlb_l1_in_flight_miss, in_flight_names, -1,
	     "a first-level TLB lookup of an entry whose fill is still in flight: merge (waits for that "
	     "fill, a pending hit) or miss (counts as a miss and goes on to the sharing scheme and the "
	     "next level: gem5-gpu's ShaderTLB, which has no MSHRs and inserts at walk end)"),
	ENUM("uvm.device_sync", uvm_device_sync_writeback, device_sync_names, -1,
	     "what a cudaDeviceSynchronize of the program does to managed pages: keep (they stay where "
	     "they are, as with NVIDIA's driver) or writeback (UVMSmart, cuda_runtime_api.cc "
	     "cudaDeviceSynchronize: dirty pages written back and invalidated, access counters and the "
	     "oversubscription state cleared)"),
	ENUM("tlb.peer_read_lru", tlb_peer_read_touch, peer_read_lru_names, -1,
	     "a sharing scheme's read of another TLB's entry (a NeiDty neighbour hit, a Valkyrie ring "
	     "hit): keep (the owner's LRU order is left as it is) or touch (the entry becomes its "
	     "owner's most recently used, as any lookup of gem5-gpu's TLBMemory does)"),
	/* default page (the behaviour before the key); gem5gpu-neidty sets
	 * access from gem5-gpu src/gpu/shader_lsq.cc and lsq_warp_inst_buffer.cc */
	ENUM("tlb.translate_per", tlb_translate_per_access, translate_per_names, -1,
	     "how often a warp's memory instruction asks the first TLB level: page (once per distinct "
	     "first-level entry the lanes touch) or access (once per coalesced access, the 128 B "
	     "segment of the lanes' data: gem5-gpu's ShaderLSQ::issueWarpInstTranslations translates "
	     "every access WarpInstBuffer::coalesce makes, so two lines of one page are two lookups)"),
	/* optional: the shipped presets state them; left out they give one
	 * partition and round-robin placement, the model before the keys;
	 * [mem]: memory partitions (src/memsys/memsys.h) */
	U32("mem.partitions", mem_partitions, 1, 256, -1,
	    "memory partitions, each with l2.size / partitions of L2 and dram.channels / partitions "
	    "channels (both must divide)"),
	SIZE32("mem.partition_interleave", mem_partition_interleave_bytes, 1, 1u << 30, true,
	       "bytes of consecutive addresses one partition serves before the next (power of two, "
	       "at least l2.line_size)"),
	ENUM("gpu.cta_placement", cta_placement, cta_placement_names, -1,
	     "which SM takes a launch's next CTA (src/sm/cta_place.c): round-robin (one per SM in "
	     "turn, GPGPU-Sim issue_block2core) or fill (each SM up to its occupancy before the next)"),
	/* optional, reported only when not lru (the only policy before the key) */
	{ .name = "l1.replacement", .type = CT_STRING, .off = OFF(l1_replacement),
	  .cap = GPUVM_UVM_POLICY_NAME, .level = -1, .quiet_default = true, .def_str = "lru",
	  .selects = GPUVM_MODULE_L1_REPLACEMENT + 1,
	  .help = "L1 data cache replacement module" },
	/* optional, reported only when set (0 is the model before them):
	 * kernel front-end, tail and CTA dispatch (src/sm/sm.h, docs/launch.md) */
	DBL_QUIET("gpu.kernel_frontend_cycles", kernel_frontend_cycles,
		  "a kernel's start on the GPU to its first CTA dispatch, inside its duration (nsys/ncu)"),
	DBL_QUIET("gpu.kernel_tail_cycles", kernel_tail_cycles,
		  "a kernel's last warp to its completion, inside its duration (nsys/ncu)"),
	DBL_QUIET("gpu.cta_dispatch_cycles", cta_dispatch_cycles,
		  "interval between two CTA dispatches of the GPU's block scheduler (one CTA at a time)"),
	DBL_QUIET("gpu.cta_launch_cycles", cta_launch_cycles,
		  "a CTA's dispatch to its warps' first issue on the SM"),
	DBL_QUIET("gpu.cta_retire_cycles", cta_retire_cycles,
		  "a CTA's last warp to its slot being free for the next CTA"),
	DBL_QUIET("gpu.cta_release_cycles_per_warp", cta_release_cycles_per_warp,
		  "per warp of a CTA, on top of the retire: its slot's next CTA waits for it, the "
		  "kernel's end does not (releasing the warps' resources)"),
	/* optional, reported only when set (a copy paid pcie.latency_ns
	 * before the key) */
	{.name = "pcie.copy_latency_us", .type = CT_DOUBLE, .off = OFF(pcie_copy_latency_us), .min = 0,
	 .max = US_MAX, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	 .help = "fixed time of one synchronous cudaMemcpy (API call, DMA setup, completion) on top "
		 "of its bytes over the link's rate; 0: pcie.latency_ns (docs/uvm.md)"},
	/* optional, reported only when not 0 (one L2 latency, the model
	 * before the key) */
	{ .name = "mem.far_latency_cycles", .type = CT_DOUBLE, .off = OFF(mem_far_latency_cycles),
	  .min = 0, .max = LAT_MAX, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "with mem.partitions = 2: cycles a request served by the far partition adds "
		  "(each SM's near partition is its GPC's half; a near miss probes the far one, "
		  "whose lines are the near one's victims; src/memsys/memsys.c); 0 = off" },
	/* optional, listed only away from single issue (1, config.c key_active)
	 * and from no atomic-unit cost (0): the models before the keys */
	{ .name = "core.dispatch_units", .type = CT_U32, .off = OFF(dispatch_units), .min = 1,
	  .max = 2, .level = -1, .optional = true,
	  .help = "instructions a scheduler issues together from one warp when independent (2: "
		  "Kepler's dual issue; src/sm/sm_issue.c); 1 = single issue" },
	DBL_QUIET("l2.atomic_latency_cycles", l2_atomic_latency_cycles,
		  "cycles the L2's atomic unit adds to an atomic on device or managed memory"),
	/* optional, listed only when on (the model before the key) */
	{ .name = "mem.far_home_dram", .type = CT_ENUM, .off = OFF(mem_far_home_dram),
	  .enum_names = off_on_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "with near and far partitions: a sector missing in both reads DRAM through its "
		  "home partition, so a far home adds mem.far_latency_cycles (src/memsys/memsys.c); "
		  "off: DRAM is read at no crossing cost" },
	/* optional, listed only when set (the model before the keys: an L2
	 * hit costs its latency only, at any rate) */
	{ .name = "l2.slices", .type = CT_U32, .off = OFF(l2_slices), .min = 0, .max = 4096,
	  .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "L2 slices (banks) of the whole GPU, each serving l2.slice_bytes_per_cycle; a "
		  "sector goes to the slice its address hashes to (src/memsys/memsys.c); 0 = no "
		  "throughput limit" },
	DBL_QUIET("l2.slice_bytes_per_cycle", l2_slice_bytes_per_cycle,
		  "bytes one L2 slice returns per SM cycle (with l2.slices)"),
	/* optional, listed only when set (the model before the key: an SM
	 * takes its sectors from the L2 at any rate) */
	DBL_QUIET("l2.sm_port_bytes_per_cycle", l2_sm_port_bytes_per_cycle,
		  "bytes of read sectors (loads, L1 fills, atomics) one SM's port to the L2 passes "
		  "per SM cycle; each sector takes it for sector_size / this (src/sm/sm_issue.c); "
		  "0 = no limit"),
	/* optional, listed only when set (the model before the keys: a store
	 * took its slice at the read rate and no port, and left the SM at
	 * once whatever the queue) */
	DBL_QUIET("l2.slice_write_bytes_per_cycle", l2_slice_write_bytes_per_cycle,
		  "bytes of stores one L2 slice takes per SM cycle (with l2.slices and "
		  "l2.writeback_stall: a store leaves its SM once its slice takes it; "
		  "src/memsys/memsys.h memsys_l2_slice_store); 0 = l2.slice_bytes_per_cycle"),
	DBL_QUIET("l2.sm_port_write_bytes_per_cycle", l2_sm_port_write_bytes_per_cycle,
		  "bytes of store sectors one SM's port to the L2 passes per SM cycle (with "
		  "l2.writeback_stall; src/sm/sm_sector.h); 0 = no limit"),
	/* optional, listed only when on (the model before the key: copies
	 * left the L2 as it was) */
	{ .name = "l2.copy_fill", .type = CT_ENUM, .off = OFF(l2_copy_fill),
	  .enum_names = off_on_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "on: a copy's data written to device memory (cudaMemcpy, cudaMemcpyAsync) is "
		  "left in the L2, dirty, as the copy engine writes through it (the last L2-size "
		  "part of a larger copy; src/memsys/memsys.c memsys_copy_fill); off: copies leave "
		  "the L2 as it was" },
	/* on in every preset; off is the model before it (write-backs
	 * delayed nobody: a store stream ran at the L2's rate) */
	{ .name = "l2.writeback_stall", .type = CT_ENUM, .off = OFF(l2_writeback_stall),
	  .enum_names = off_on_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true,
	  .help = "on: an L2 fill that evicts dirty sectors waits while their write-back queues in "
		  "the DRAM, and a warp ends only once its stores have left the SM, so a store stream "
		  "runs at the DRAM's write rate (src/memsys/memsys.c memsys_writeback_sectors); off: "
		  "write-backs delay nothing" },
	/* optional, listed only when on (the model before the key: a warp
	 * ends when its stores have left the SM). Off in every preset: the
	 * boards' own CTA turnover says a warp does not wait for a store's
	 * full L2 round trip (docs/calibration.md, "A warp's exit and its
	 * stores' acknowledgements") */
	{ .name = "gpu.warp_exit_waits_stores", .type = CT_ENUM, .off = OFF(warp_exit_waits_stores),
	  .enum_names = off_on_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "on: a warp ends (and its CTA's slot frees) only once the L2 has acknowledged "
		  "its device and managed stores: the write reaching its slice plus the ack's way "
		  "back over the crossbar, as GPGPU-Sim's shd_warp_t::stores_done (src/sm/sm_issue.c); "
		  "off: a store is done once it has left the SM" },
	/* optional; peek unless a preset says walk (config.c), listed in
	 * every report (walk, the default's .def here, is the model before
	 * the key: the earlier request books a walk of its own;
	 * docs/timing.md, "TLB entries in time order") */
	{ .name = "tlb.future_fill", .type = CT_ENUM, .off = OFF(tlb_future_fill_peek),
	  .enum_names = future_fill_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "a last-level TLB lookup that finds an entry whose fill was asked for after it "
		  "(a later-timed miss handled first): walk (it books a page walk of its own, so "
		  "the pair walks twice) or peek (it reads the walkers' calendar for when its walk "
		  "would start and books nothing: one walk per page, as in time order; answered at "
		  "the earlier of that walk's end and the entry's fill) (src/xlat/xlat.c walk)" },
	/* optional; yield unless a preset says hold (config.c), listed in
	 * every report (hold, the .def here, is the model before the key: a
	 * warp whose unit is busy books its scheduler from when the unit
	 * frees; docs/timing.md, "A busy unit and its scheduler") */
	{ .name = "core.busy_unit", .type = CT_ENUM, .off = OFF(busy_unit_yield),
	  .enum_names = busy_unit_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "a warp whose instruction's unit (its op class's pipe, or the load/store "
		  "unit) is busy when its operands are ready: hold (it books its scheduler from "
		  "when the unit frees, so another warp's instruction for another unit ready "
		  "before then waits behind it) or yield (it waits until the unit frees without "
		  "the scheduler, which issues other warps' ready instructions meanwhile, as a "
		  "scheduler picks among the warps ready each cycle; src/system/kernel_run.c)" },
	DBL_QUIET("l1.tags_per_cycle", l1_tags_per_cycle,
		  "L1 tag stage: distinct lines of an instruction looked up per cycle (a wavefront), "
		  "the data stage moving only their sectors at l1.bytes_per_cycle; an instruction "
		  "holds the L1 for the longer of the two and its last wavefront's sectors return "
		  "that much later (NVIDIA on GV100 on: 4; off in every preset, docs/validation.md); "
		  "0 = off: each line it touches takes line_size / bytes_per_cycle cycles"),
	/* optional, listed only when on; off in every preset (the model
	 * before the key). The windowed algorithm a partitioned, threaded
	 * engine runs (issue 34), run on one thread: its deviations from the
	 * event-order engine are measured in docs/parallel.md */
	{ .name = "core.window", .type = CT_ENUM, .off = OFF(core_window),
	  .enum_names = window_names, .enum_count = 3, .min = 0, .max = 2, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "on: windowed timing: warps run a window of W cycles (the shortest time from a "
		  "global memory instruction's issue to its result: the L1 hit, or the L2 round "
		  "trip) between barriers; their global and local memory instructions are applied "
		  "at the barrier in the order of (issue cycle, SM, sequence), the order a "
		  "partitioned engine applies them in at any thread count (src/system/kernel_run.c, "
		  "docs/parallel.md); lagged: windows of W / 2, each window's barrier applied while "
		  "the next runs (on a second thread with --threads N), the next ending before any "
		  "of its results can be due; off: each is applied as it issues, in event order" },
	/* optional, listed only when set (the model before the key: one
	 * cycle a wavefront) */
	DBL_QUIET("smem.wavefront_cycles", smem_wavefront_cycles,
		  "cycles each shared-memory wavefront holds the banks: a k-way bank conflict adds "
		  "(k - 1) x this to the access (src/sm/sm_issue.c); 0: one cycle"),
	/* optional, listed only when on (the model before the key: chunks
	 * dealt round-robin) */
	{ .name = "mem.partition_hash", .type = CT_ENUM, .off = OFF(mem_partition_hash),
	  .enum_names = partition_map_names, .enum_count = 3, .min = 0, .max = 2, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "on: each mem.partition_interleave chunk's partition is a hash of its address "
		  "(as H100 spreads 256 B chunks over its two halves, cuda/hwbench.cu home), so no "
		  "power-of-two stride keeps to one partition; xor: each run of mem.partitions "
		  "chunks dealt out one to each partition, in an order a hash of the run's number "
		  "permutes (as dram.channels are), so a stream spreads evenly and strides still "
		  "do; off: chunks dealt round-robin" },
	/* optional, listed only when set (the model before the key: a far
	 * home's DRAM read crossed mem.far_latency_cycles) */
	DBL_QUIET("mem.far_home_dram_cycles", mem_far_home_dram_cycles,
		  "with mem.far_home_dram: cycles a DRAM read homed in the far partition adds "
		  "(its round trip across); 0: mem.far_latency_cycles"),
	/* optional, listed only when set (0: each launch's overhead after the
	 * work before it, the model before the key; docs/launch.md) */
	DBL_QUIET("gpu.kernel_launch_period_us", kernel_launch_period_us,
		  "host's launch period: launches issued back to back pipeline, one per this "
		  "many us, each starting kernel_launch_us after its issue or when the GPU is "
		  "free; 0 = no pipelining: kernel_launch_us is paid after the work before it"),
	/* optional, listed only when set (0: migrations at the link's rate,
	 * the model before the key; docs/uvm.md) */
	DBL_QUIET("uvm.migration_gb_s", uvm_migration_gb_s,
		  "rate the driver migrates managed pages at (GB/s; with uvm.pcie_model = curve, "
		  "the curve's asymptote): 0 = the link's (pcie.bandwidth_gb_s)"),
	/* optional, listed only when set (0: a chunk's sectors one burst
	 * apart, the model before the key) */
	DBL_QUIET("dram.tccdl_ns", dram_tccdl_ns,
		  "column-to-column delay within a bank group (JEDEC tCCD_L): a read's sectors of "
		  "one interleave chunk (one row of one bank) cross the bus no closer than this; "
		  "0 = one burst apart"),
	/* optional, listed only when set (0: 256 B chunks, the model before
	 * the key); a power of two of at least a sector (config_finalize.c) */
	{ .name = "dram.interleave", .type = CT_SIZE32, .off = OFF(dram_interleave_bytes), .min = 0,
	  .max = 1u << 20, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "bytes of consecutive addresses one DRAM channel serves before the next, within "
		  "a memory partition's own addresses (power of two, at least l2.sector_size); "
		  "0 = 256" },
	/* optional, listed only when on (the model before the key: a
	 * drain's writes took the bus at their arrivals, no read waited) */
	{ .name = "dram.drain_hold", .type = CT_ENUM, .off = OFF(dram_drain_hold),
	  .enum_names = off_on_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "on: a write batch (dram.write_batch_sectors) drained after reads came crosses "
		  "its channel's bus in one piece when it fills, and reads that want the bus "
		  "meanwhile wait until it and the turnaround are done (write-drain mode, "
		  "src/mem/dram_model.c dram_drain_writes); off: each write takes its burst at "
		  "its arrival and no read waits behind a drain" },
	{ .name = "dram.drain_group_channels", .type = CT_U32, .off = OFF(dram_drain_group_channels),
	  .min = 0, .max = 1024, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "channels one memory controller drains together: their writes count as one "
		  "queue (dram.write_batch_sectors each) and all of them drain at once when it is "
		  "full, so loads spread over them meet one drain (0 or 1 = each channel alone)" },
	{ .name = "uvm.counter_migration", .type = CT_ENUM, .off = OFF(uvm_counter_migration_fault),
	  .enum_names = counter_migration_names,
	  .enum_count = sizeof counter_migration_names / sizeof counter_migration_names[0], .min = 0,
	  .max = 1, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "what a read that brings its 64 KB block's access count to the threshold does: "
		  "async (it is served remotely and the counter's notification is serviced apart, by "
		  "the driver's access-counter bottom half, which migrates the page while accesses go "
		  "on: Volta's access counters, nvidia-uvm uvm_gpu_access_counters.c) or fault (it "
		  "raises a far fault and waits for the page, as UVMSmart's "
		  "should_cause_page_migration does)" },
	{ .name = "uvm.remote_tlb_hits", .type = CT_ENUM, .off = OFF(uvm_remote_tlb_hits_local),
	  .enum_names = remote_tlb_hits_names,
	  .enum_count = sizeof remote_tlb_hits_names / sizeof remote_tlb_hits_names[0], .min = 0,
	  .max = 1, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "how an SM's later accesses of a page that a read below the access-counter "
		  "threshold left in host memory are served while the SM's TLB keeps the entry: "
		  "link (each crosses the link and the counter decides again) or local (as "
		  "UVMSmart: the remote read fills the TLB, TLB hits go to device memory and only "
		  "the SM's next walk decides again; gpu-sim.cc should_cause_page_migration, "
		  "shader.cc ldst_unit::memory_cycle refresh_tlb)" },
	{ .name = "uvm.remote_tlb_fill", .type = CT_ENUM, .off = OFF(uvm_remote_tlb_fill_return),
	  .enum_names = remote_tlb_fill_names,
	  .enum_count = sizeof remote_tlb_fill_names / sizeof remote_tlb_fill_names[0], .min = 0,
	  .max = 1, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "with uvm.remote_tlb_hits = local, when the TLB entry a remote read installs "
		  "starts serving the SM: read (at the read) or return (as UVMSmart: when the read "
		  "is back, shader.cc ldst_unit::memory_cycle refresh_tlb; the SM's accesses of the "
		  "page before then miss the TLB, walk and are each decided again, gpu-sim.cc "
		  "gmmu_t::cycle one walk per request)" },
	/* optional: a preset of the user's without it has no limit */
	{ .name = "gpu.memory", .type = CT_SIZE64, .off = OFF(device_memory_bytes), .min = 0,
	  .max = TiB * 64, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "device memory of the board: a device allocation (cudaMalloc) past it fails "
		  "the run; 0 = unlimited; managed memory pages past it only with uvm.oversub_percent "
		  "or uvm.device_memory" },
	/* [c2c] a coherent CPU-GPU link (docs/systems.md "Grace Hopper
	 * memory"): optional, off, and reported only away from its defaults,
	 * so a preset without the section runs the model it always ran */
	{ .name = "c2c.coherent", .type = CT_ENUM, .off = OFF(c2c_coherent), .enum_names = off_on_names,
	  .enum_count = 2, .min = 0, .max = 1, .level = -1, .optional = true, .quiet_default = true,
	  .def = 0,
	  .help = "on: the host link is a coherent CPU-GPU link (NVLink-C2C): copies and migrations "
		  "at c2c.bandwidth_gb_s, and system-allocated memory (mem=system) is read by the GPU "
		  "over it a cache line at a time without faults, through the system page table (ATS)" },
	{ .name = "c2c.bandwidth_gb_s", .type = CT_DOUBLE, .off = OFF(c2c_bandwidth_gb_s), .min = BW_MIN,
	  .min_exclusive = false, .max = BW_MAX, .level = -1, .optional = true, .quiet_default = true,
	  .def = 450,
	  .help = "the coherent link's rate per direction, GB/s (NVLink-C2C: 450, 900 both ways; "
		  "NVIDIA Grace Hopper architecture blog)" },
	{ .name = "c2c.copy_h2d_gb_s", .type = CT_DOUBLE, .off = OFF(c2c_copy_h2d_gb_s), .min = 0,
	  .max = BW_MAX, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "a copy's (cudaMemcpy, cudaMemcpyAsync) achieved rate host-to-device over the "
		  "coherent link, GB/s, as a copy-engine benchmark measures it; 0: c2c.bandwidth_gb_s" },
	{ .name = "c2c.copy_d2h_gb_s", .type = CT_DOUBLE, .off = OFF(c2c_copy_d2h_gb_s), .min = 0,
	  .max = BW_MAX, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "the same device-to-host (GH200: slower than host-to-device); 0: "
		  "c2c.bandwidth_gb_s" },
	{ .name = "c2c.latency_ns", .type = CT_DOUBLE, .off = OFF(c2c_latency_ns), .min = 0,
	  .max = NS_MAX, .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "link latency of one remote access over the coherent link; 0: "
		  "uvm.remote_latency_cycles (no C2C load latency is published)" },
	{ .name = "c2c.cpu_memory_gb_s", .type = CT_DOUBLE, .off = OFF(c2c_cpu_memory_gb_s),
	  .min = BW_MIN, .max = BW_MAX, .level = -1, .optional = true, .quiet_default = true, .def = 546,
	  .help = "the CPU memory's bandwidth, GB/s: remote accesses of CPU-resident system memory get "
		  "the lesser of it and the link's rate (Grace LPDDR5X: up to 546)" },
	{ .name = "c2c.system_page_bytes", .type = CT_SIZE32, .off = OFF(c2c_system_page_bytes),
	  .min = 4096, .max = 65536, .pow2 = true, .level = -1, .optional = true, .quiet_default = true,
	  .def = 65536,
	  .help = "the system page table's page: the GPU's translations of system memory are this "
		  "wide (4KiB or 64KiB on Grace; NVIDIA recommends 64KiB)" },
	{ .name = "c2c.line_bytes", .type = CT_SIZE32, .off = OFF(c2c_line_bytes), .min = 32,
	  .max = 4096, .pow2 = true, .level = -1, .optional = true, .quiet_default = true, .def = 64,
	  .help = "the granularity of a remote access of system memory (a Grace cache line: 64)" },
	{ .name = "c2c.first_touch", .type = CT_ENUM, .off = OFF(c2c_first_touch_gpu),
	  .enum_names = first_touch_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "who touches system memory first: host (a workload's uploads of it are the CPU "
		  "initialising it: its pages go to CPU memory) or gpu (the program initialises it in "
		  "a kernel: the uploads place nothing and the GPU's first access puts each page in "
		  "device memory); a property of the program, not of the machine" },
	/* optional, listed only when set (0: a remote read holds the lane
	 * for its bytes at the link's rate, the model before the key;
	 * docs/uvm.md "Remote reads") */
	DBL_QUIET("uvm.remote_read_hold_cycles", uvm_remote_read_hold_cycles,
		  "cycles one remote read of managed memory (the sectors of one 128 B line one "
		  "instruction reads) holds the host-to-device lane, in place of its bytes at the "
		  "link's rate, so remote reads queue one after another and migrations wait for "
		  "them (UVMSmart's one PCIe read slot: 200); uvm.remote_latency_cycles follows the "
		  "hold; 0 = its bytes"),
	/* optional, reported only when not first-ready (the run loop's order,
	 * the model before the key) */
	{ .name = "core.warp_scheduler", .type = CT_STRING, .off = OFF(warp_scheduler),
	  .cap = GPUVM_UVM_POLICY_NAME, .level = -1, .optional = true, .quiet_default = true,
	  .def_str = "first-ready", .selects = GPUVM_MODULE_WARP_SCHEDULER + 1,
	  .help = "warp scheduler module: which ready warp takes a scheduler's next issue slot" },
	/* optional, listed only when set (the model before the key: atomics
	 * to one address overlap as freely as to distinct ones) */
	DBL_QUIET("l2.atomic_address_cycles", l2_atomic_address_cycles,
		  "cycles the L2's atomic unit gives one atomic to an address before the next to the "
		  "same address (lanes of a warp and other warps alike) may start; they queue "
		  "(src/memsys/memsys.h); 0 = no per-address queue"),
	/* optional, listed only when set (hit: the model before the key) */
	{ .name = "l2.in_flight", .type = CT_ENUM, .off = OFF(l2_in_flight_wait),
	  .enum_names = l2_in_flight_names, .enum_count = 2, .min = 0, .max = 1, .level = -1,
	  .optional = true, .quiet_default = true, .def = 0,
	  .help = "an L2 access to a sector whose DRAM fill is still on its way: hit (its data at "
		  "the hit latency, as if the fill had arrived) or wait (its data when the fill "
		  "arrives: an MSHR merge, as gem5-gpu's Ruby L2 stalls a Get to a block in a "
		  "transient state; src/memsys/memsys.h memsys_l2_fill_wait), on every DRAM model and with "
		  "near and far partitions" },
	{ .name = "uvm.evict_whole", .type = CT_ENUM, .off = OFF(uvm_evict_whole),
	  .enum_names = evict_whole_names,
	  .enum_count = sizeof evict_whole_names / sizeof evict_whole_names[0], .min = 0, .max = 1,
	  .level = -1, .optional = true, .quiet_default = true, .def = 0,
	  .help = "which 2 MB blocks lru-2mb-access, lfu-2mb, lfu-ac and lfu-uvmsmart may evict: "
		  "any (a block with "
		  "resident pages) or whole (as UVMSmart, gpu-sim.cc gmmu_t::is_block_evictable, "
		  "and seeds/004 II-C 'only when it is fully populated': every page of the block "
		  "resident and no fault migrating into it; the policy's first choice when no "
		  "block is)" },
};

_Static_assert(sizeof cfg_keys / sizeof cfg_keys[0] == K_COUNT, "key table and enum cfg_key_id disagree");
_Static_assert(K_COUNT + GPUVM_MODULE_PARAMS_MAX <= GPUVM_CONFIG_MAX_KEYS, "raise GPUVM_CONFIG_MAX_KEYS");

const size_t cfg_key_count = sizeof cfg_keys / sizeof cfg_keys[0];

/* ---- module parameter keys (gpuvm/module.h) ----
 * The table as used: cfg_keys[] with its from_module rows completed from
 * their module's parameter row, then one CT_DOUBLE row per parameter row
 * without a compat_key, "<selecting key>.<module>.<param>", stored in
 * cfg->module_params[slot], optional, reported only when set away from
 * its default. Built once from the registry. */
#define MODULE_KEY_NAME 96
static struct cfg_key keys_all[K_COUNT + GPUVM_MODULE_PARAMS_MAX];
static char module_key_names[GPUVM_MODULE_PARAMS_MAX][MODULE_KEY_NAME];
static size_t keys_all_n;
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

/* The table row of an old key, completed from its module row. */
static void complete_from_module(const struct gpuvm_module_param *r)
{
	for (size_t id = 0; id < cfg_key_count; id++) {
		struct cfg_key *k = &keys_all[id];
		if (!k->from_module || strcmp(k->name, r->compat_key) != 0)
			continue;
		k->min = r->min;
		k->max = r->max;
		k->integer = r->integer;
		k->def = r->def;
		k->help = r->help;
		k->enum_names = r->values;
		k->enum_count = r->n_values;
		return;
	}
}

static void keys_build(void)
{
	memcpy(keys_all, cfg_keys, sizeof cfg_keys);
	size_t n = cfg_key_count;
	for (size_t i = 0; i < gpuvm_module_count(); i++) {
		const struct gpuvm_module *m = gpuvm_module_at(i);
		for (uint32_t p = 0; p < m->n_params; p++) {
			const struct gpuvm_module_param *r = &m->params[p];
			if (r->compat_key) {
				complete_from_module(r);
				continue;
			}
			uint32_t slot = gpuvm_module_param_slot(m, p);
			if (slot >= GPUVM_MODULE_PARAMS_MAX)
				return; /* tests/test_modules.c fails on this */
			gpuvm_module_param_key(m, p, module_key_names[slot], MODULE_KEY_NAME);
			keys_all[n++] = (struct cfg_key){
				.name = module_key_names[slot], .type = CT_DOUBLE,
				.off = OFF(module_params) + slot * sizeof(double),
				.min = r->min, .max = r->max, .integer = r->integer, .level = -1,
				.optional = true, .quiet_default = true, .def = r->def, .help = r->help,
			};
		}
	}
	keys_all_n = n;
}

size_t cfg_key_total(void)
{
	pthread_once(&keys_once, keys_build);
	return keys_all_n;
}

const struct cfg_key *cfg_key_get(size_t id)
{
	pthread_once(&keys_once, keys_build);
	return &keys_all[id];
}

void cfg_compat_defaults(struct gpuvm_config *cfg)
{
	for (size_t id = 0; id < cfg_key_count; id++) {
		const struct cfg_key *k = cfg_key_get(id);
		if (k->from_module)
			cfg_key_store_number(k, cfg, k->def);
	}
}

bool cfg_key_optional(size_t id)
{
	/* the scheme tunables, the analysis switch and the delayed-migration
	 * keys, from K_NEIDTY_ENTRIES on */
	return cfg_key_get(id)->optional || id >= K_NEIDTY_ENTRIES;
}

int cfg_key_find(const char *name)
{
	for (size_t i = 0, n = cfg_key_total(); i < n; i++)
		if (strcasecmp(cfg_key_get(i)->name, name) == 0)
			return (int)i;
	return -1;
}

/* Length of the section part of a dotted key ("tlb.l1" of "tlb.l1.ways"). */
static size_t section_len(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot ? (size_t)(dot - name) : 0;
}

bool cfg_section_known(const char *sec)
{
	size_t n = strlen(sec);
	for (size_t i = 0, total = cfg_key_total(); i < total; i++)
		if (section_len(cfg_key_get(i)->name) == n && strncasecmp(cfg_key_get(i)->name, sec, n) == 0)
			return true;
	return false;
}

void cfg_section_keys(const char *sec, char *buf, size_t len)
{
	size_t n = strlen(sec), used = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0, total = cfg_key_total(); i < total; i++) {
		const char *name = cfg_key_get(i)->name;
		if (section_len(name) != n || strncasecmp(name, sec, n) != 0)
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name + n + 1);
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
	}
}

const char *gpuvm_config_key_help(const char *key)
{
	int k = key ? cfg_key_find(key) : -1;
	if (k < 0)
		return NULL;
	const struct cfg_key *row = cfg_key_get((size_t)k);
	if (!row->selects)
		return row->help;
	/* a key that names a module: its help and the registry's names */
	static _Thread_local char help[512];
	snprintf(help, sizeof help, "%s: %s", row->help,
		 gpuvm_module_names((enum gpuvm_module_kind)(row->selects - 1)));
	return help;
}

const char *gpuvm_share_domain_name(enum gpuvm_share_domain d)
{
	unsigned i = (unsigned)d;
	return i < sizeof share_names / sizeof share_names[0] ? share_names[i] : "?";
}
