/* The statistics registry (gpuvm/stats_registry.h): one row per value a
 * run reports, with its unit and what it counts. A key added to the JSON
 * (report.c, report_uvm.c, the per-kernel and per-allocation rows) needs a
 * row here: tests/cli/stats.sh runs sims that emit every key and fails on
 * one missing. Units: count, cycles, s (simulated seconds unless the name
 * says wall), bytes, pages, ratio (0..1), 1/s, bool, text, index. */
#include "gpuvm/stats_registry.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/suggest.h"

#define R GPUVM_STAT_RUN
#define K GPUVM_STAT_KERNEL
#define A GPUVM_STAT_ALLOC
#define M GPUVM_STAT_META

static const struct gpuvm_stat_info stats[] = {
	/* ---- what produced the numbers */
	{"gpuvm_version", "text", NULL, "version of the gpuvm that made the run", M},
	{"gpuvm_commit", "text", NULL, "git commit of that gpuvm (unknown outside a checkout)", M},
	{"preset", "text", NULL, "the --gpu argument: a shipped preset name or a preset file", M},
	{"config_hash", "text", NULL, "FNV-1a 64 hash of the resolved configuration (every key=value after --set); equal hashes, same machine model", M},
	{"gpu", "text", "GPU", "name of the resolved GPU configuration (its gpu.name)", M},
	{"workload", "text", NULL, "the workload spec as run (name:key=value,... or trace:PATH)", M},
	{"seed", "count", NULL, "random seed of the workload", M},
	{"result", "text", NULL, "the workload's functional result (checksum, group count, verify=pass ...)", M},
	{"config.*", "text", NULL, "the resolved configuration, one member per preset key (gpuvm presets NAME lists them; docs/ name each)", M},
	{"point.*", "text", NULL, "sweep JSON: the grid point (index, gpu, workload, seed, varied values)", M},
	{"error", "text", NULL, "sweep: why the point failed (empty when it ran)", M},

	/* ---- time and work */
	{"sim_cycles", "cycles", "simulated cycles", "simulated GPU cycles of the whole run (kernels, copies, launch overheads)", R},
	{"sim_seconds", "s", "simulated time", "simulated time of the whole run: sim_cycles / gpu clock", R},
	{"kernel_seconds", "s", "kernel time", "simulated time inside kernels (launch overheads included)", R},
	{"copy_seconds", "s", "copy time", "simulated time of explicit host<->device copies", R},
	{"async_copies", "count", "asynchronous copies", "cudaMemcpyAsync copies on the copy engines, beside the kernels (only in runs that issue them; docs/timing.md)", R},
	{"async_copy_seconds", "s", "asynchronous copy time", "the asynchronous copies' transfer time on a free lane, summed (they overlap kernels, so it is not part of sim_seconds as such)", R},
	{"async_wait_seconds", "s", "wait for copies", "time kernels waited for the asynchronous copy of their input before starting", R},
	{"launch_seconds", "s", "launch overhead", "of kernel_seconds, the launch overheads before first CTAs start", R},
	{"accesses_per_sim_second", "1/s", "thread accesses per simulated second", "thread accesses / sim_seconds: Karnagel's throughput measure", R},
	{"work_items", "count", "work items", "the workload's unit of work (reads, rows, edges; 0: not defined)", R},
	{"items_per_sim_second", "1/s", "work items per simulated second", "work_items / sim_seconds", R},
	{"kernel_launches", "count", "kernel launches", "kernel launches in the run", R},
	{"ctas", "count", "CTAs", "thread blocks run", R},
	{"warps", "count", "warps", "warps run", R},
	{"warp_instructions", "count", "warp instructions", "warp instructions issued (compute + memory)", R},
	{"memory_instructions", "count", "memory instructions", "memory warp instructions (global, local, shared)", R},
	{"thread_accesses", "count", "thread accesses", "active lanes of memory instructions", R},
	{"sectors", "count", "sectors", "32 B sectors after coalescing", R},
	{"lines", "count", "lines", "128 B lines after coalescing", R},
	{"translation_units", "count", "translation units", "distinct pages per warp instruction after coalescing: translation requests", R},

	/* ---- address translation */
	{"tlb[].level", "index", "TLB level", "TLB level, 1 = closest to the SM (CSV: the N of tlb_lN_*)", R},
	{"tlb[].lookups", "count", "TLB lookups", "translation requests reaching this TLB level", R},
	{"tlb[].hits", "count", "TLB hits", "lookups that found the entry filled", R},
	{"tlb[].pending_hits", "count", "TLB pending hits", "lookups that found the entry still being filled (merged into its MSHR)", R},
	{"tlb[].misses", "count", "TLB misses", "lookups that missed and went to the next level or the page walk", R},
	{"tlb[].hit_ratio", "ratio", "TLB hit ratio", "(hits + pending_hits) / lookups", R},
	{"tlb[].mshr_wait_cycles", "cycles", "TLB MSHR wait", "summed wait for a free TLB MSHR", R},
	{"tlb[].instances", "count", "TLB instances", "instances of this level (per SM, TPC, GPC or GPU)", R},
	{"tlb[].peer", "text", NULL, "inter-TLB sharing scheme of the level (none, neidty, valkyrie)", R},
	{"tlb[].r_local", "ratio", "local TLB hit ratio", "Du et al. Eq. 1: lookups served by the local instance / lookups", R},
	{"tlb[].r_remote", "ratio", "remote TLB hit ratio", "Du et al. Eq. 1: lookups served by a neighbour instance / lookups", R},
	{"tlb[].r_l1", "ratio", "L1 TLB hit ratio with sharing", "r_local + r_remote (Du et al. Eq. 1)", R},
	{"tlb[].avg_translation_cycles", "cycles", "translation latency", "mean cycles per lookup to translate (null unless a sharing scheme or --tlb-sharing runs)", R},
	{"tlb[].remote_hits", "count", "remote TLB hits", "local misses served by another instance (sharing schemes)", R},
	{"tlb[].remote_fills", "count", "remote TLB fills", "remote hits also filled into the local TLB", R},
	{"tlb[].directory_hits", "count", "directory hits", "NeiDty: the directory named a neighbour", R},
	{"tlb[].directory_false_hits", "count", "directory false hits", "NeiDty: the named neighbour lacked the page", R},
	{"tlb[].neighbour_port_waits", "count", "neighbour port waits", "NeiDty: requests that found the neighbour's port busy", R},
	{"tlb[].neighbour_port_wait_cycles", "cycles", "neighbour port wait", "NeiDty: cycles waited for neighbour ports", R},
	{"tlb[].ring_probes", "count", "ring probes", "Valkyrie: probes sent into the ring", R},
	{"tlb[].ring_hops", "count", "ring hops", "Valkyrie: hops of probes and answers", R},
	{"tlb[].ring_misses", "count", "ring misses", "Valkyrie: probed, no instance held the page", R},
	{"tlb[].ldt_pushes", "count", "LDT pushes", "Valkyrie: entries pushed into L1 TLBs by the L2-TLB eviction prefetcher", R},
	{"tlb[].instance_hits[]", "count", NULL, "hits per instance of the level (JSON only)", R},
	{"tlb[].instance_misses[]", "count", NULL, "misses per instance of the level (JSON only)", R},
	{"tlb_sharing.lookups_by_holders.*", "count", "lookups", "--tlb-sharing: first-level lookups by how many instances held the entry (0, 1, 2-4, 5-8, 9-12, 13-16; Du et al. Fig. 3)", R},
	{"tlb_sharing.fraction_of_held_lookups.*", "ratio", "fraction of lookups", "--tlb-sharing: share of lookups of held entries, by holder count bucket", R},
	{"tlb_sharing.neighbour_correlation[]", "ratio", NULL, "--tlb-sharing: per instance, local misses a neighbour held / local misses (Du et al. Tables I-II; JSON only)", R},
	{"tlb_sharing.neighbour_correlation_avg", "ratio", "neighbour correlation", "mean of neighbour_correlation over instances", R},
	{"tlb_sharing.neighbour_correlation_pooled", "ratio", "neighbour correlation", "neighbour-held misses / local misses, pooled over instances", R},
	{"walks", "count", "page walks", "page walks (misses of the last TLB level)", R},
	{"pwc_hits", "count", "page-walk cache hits", "page walks whose upper levels hit the page-walk cache", R},
	{"walk_queue_cycles", "cycles", "walk queueing", "summed wait for a free page walker", R},
	{"walk_pte_l2_hits", "count", "PTE L2 hits", "page-table-entry reads of walks that hit in L2", R},
	{"walk_pte_l2_misses", "count", "PTE L2 misses", "page-table-entry reads of walks that missed L2 (went to DRAM)", R},
	{"walk_pte_l2_hit_ratio", "ratio", "PTE L2 hit ratio", "CSV: walk_pte_l2_hits / (hits + misses)", R},

	/* ---- SM, caches, memory */
	{"local_instructions", "count", "local instructions", "local-memory warp instructions (spills, stack)", R},
	{"shared_instructions", "count", "shared instructions", "shared-memory warp instructions", R},
	{"barriers", "count", "barriers", "CTA barriers (__syncthreads) executed per warp", R},
	{"shared_wavefronts", "count", "shared wavefronts", "shared-memory cycles (bank conflicts add wavefronts)", R},
	{"l1_sector_hits", "count", "L1 data-cache sector hits", "L1 data cache sector hits", R},
	{"l1_sector_misses", "count", "L1 data-cache sector misses", "L1 data cache sector misses", R},
	{"l1_sector_hit_ratio", "ratio", "L1 data-cache hit ratio", "CSV: l1_sector_hits / (hits + misses)", R},
	{"l1_writeback_sectors", "count", "L1 write-back sectors", "dirty local-memory sectors evicted from L1", R},
	{"stall_cycles.*", "cycles", "stall cycles", "warp-cycles between a warp being ready and issuing, by cause (memory, dependency, barrier, issue, fault)", R},
	{"l2_sector_hits", "count", "L2 data-cache sector hits", "L2 data cache sector hits (not the L2 TLB: that is tlb_l2_*)", R},
	{"l2_sector_misses", "count", "L2 data-cache sector misses", "L2 data cache sector misses", R},
	{"l2_sector_hit_ratio", "ratio", "L2 data-cache hit ratio", "CSV: l2_sector_hits / (hits + misses)", R},
	{"dram_bytes", "bytes", "DRAM traffic", "bytes read and written in device DRAM", R},
	{"pcie_h2d_bytes", "bytes", "PCIe host-to-device traffic", "bytes host to device: copies, zero-copy reads, migrations", R},
	{"pcie_d2h_bytes", "bytes", "PCIe device-to-host traffic", "bytes device to host: copies, zero-copy writes, write-backs", R},
	{"zero_copy_bytes", "bytes", "zero-copy traffic", "of the PCIe bytes, zero-copy (host-pinned) accesses", R},
	{"zero_copy_tlps", "count", "zero-copy PCIe packets", "transaction-layer packets of zero-copy accesses: one per line an instruction touches, one per atomic sector", R},

	/* ---- unified memory (present when the run used managed memory) */
	{"uvm.far_faults", "count", "far faults", "faulted pages (faults coalesced per 4 KB page)", R},
	{"uvm.fault_batches", "count", "fault batches", "batches the fault handler serviced", R},
	{"uvm.nacks", "count", "nacks", "replayable faults refused for want of a far-fault MSHR and replayed", R},
	{"uvm.pages_h2d", "pages", "pages migrated in", "pages migrated to the GPU (faulted + prefetched)", R},
	{"uvm.pages_d2h", "pages", "pages written back", "pages written back to the host on eviction", R},
	{"uvm.pages_evicted", "pages", "pages evicted", "pages dropped from device memory", R},
	{"uvm.prefetched_pages", "pages", "prefetched pages", "pages migrated without a fault of their own", R},
	{"uvm.prefetched_used", "pages", "prefetched pages used", "prefetched pages the GPU later touched", R},
	{"uvm.prefetched_unused", "pages", "prefetched pages unused", "prefetched pages evicted or left untouched at the end", R},
	{"uvm.thrashed_pages", "pages", "thrashed pages", "faults on pages evicted before (one per refault)", R},
	{"uvm.transfers_h2d", "count", "h2d transfers", "PCIe transfers host to device (one per contiguous run of pages)", R},
	{"uvm.transfers_d2h", "count", "d2h transfers", "PCIe transfers device to host", R},
	{"uvm.bytes_h2d", "bytes", "paging traffic h2d", "paging bytes host to device", R},
	{"uvm.bytes_d2h", "bytes", "paging traffic d2h", "paging bytes device to host", R},
	{"uvm.capacity_pages", "pages", "device capacity", "device frames for managed data (0 = unlimited)", R},
	{"uvm.peak_resident_pages", "pages", "peak resident pages", "most managed pages resident at once", R},
	{"uvm.pages_copied_in", "pages", "pages copied in", "pages made resident by cudaMemcpy into managed memory", R},
	{"uvm.l2_sectors_invalidated", "count", "L2 sectors invalidated", "valid L2 sectors of evicted or freed pages dropped", R},
	{"uvm.l2_dirty_sectors_written", "count", "L2 dirty sectors written", "of those, dirty sectors written to DRAM first", R},
	{"uvm.prefetcher_switched", "bool", NULL, "uvm.prefetcher_oversub replaced the prefetcher at the first eviction", R},
	{"uvm.remote_accesses", "count", "remote accesses", "sector reads of non-resident managed pages served over PCIe (delayed migration)", R},
	{"uvm.remote_map_faults", "count", "remote-map faults", "faults that mapped a preferred-host page remotely instead of migrating it (cudaMemAdvise)", R},
	{"uvm.device_syncs", "count", "device syncs", "cudaDeviceSynchronize calls of the program", R},
	{"uvm.sync_writeback_pages", "pages", "sync write-backs", "dirty pages written back and invalidated at device syncs (uvm.device_sync = writeback, UVMSmart)", R},
	{"uvm.remote_bytes", "bytes", "remote bytes", "bytes of those remote reads", R},
	{"uvm.delayed_migrations", "pages", "delayed migrations", "pages read remotely instead of migrating (once per stay in host memory)", R},
	{"uvm.migrations_fault", "pages", "fault migrations", "pages migrated by a far fault (first touch or write)", R},
	{"uvm.migrations_counter", "pages", "counter migrations", "pages migrated once their block's access counter reached the threshold", R},
	{"uvm.migrations_prefetch", "pages", "prefetch migrations", "pages migrated by the prefetcher (= prefetched_pages)", R},
	{"uvm.pages_returned", "pages", "pages returned", "migrated pages that had been evicted before", R},
	{"uvm.counter_halvings", "count", "counter halvings", "times every access count was halved (saturation)", R},
	{"uvm.round_trip_halvings", "count", "round-trip halvings", "times every round-trip count was halved", R},
	{"uvm.hot_chunks", "count", "hot 64 KB blocks", "touched 64 KB blocks whose count reached t_s at the end", R},
	{"uvm.cold_chunks", "count", "cold 64 KB blocks", "touched 64 KB blocks below t_s at the end", R},
	{"uvm.thrash_events", "count", "thrashing events", "migration events the driver's thrashing detection counted", R},
	{"uvm.thrashing_pages", "pages", "thrashing pages", "pages marked thrashing", R},
	{"uvm.thrash_throttles", "count", "thrashing throttles", "faults delayed by a nap (thrashing mitigation)", R},
	{"uvm.thrash_pins", "pages", "thrashing pins", "pages pinned (mapped remotely) by thrashing mitigation", R},
	{"uvm.stall_replay_seconds", "s", "replay stall", "summed wait of faulting translations for a far-fault MSHR", R},
	{"uvm.stall_fault_seconds", "s", "fault stall", "summed wait for the fault batch to start and be handled", R},
	{"uvm.stall_eviction_seconds", "s", "eviction stall", "summed wait for write-backs to free frames", R},
	{"uvm.stall_pcie_seconds", "s", "PCIe stall", "summed wait for the page's transfer", R},
	{"uvm.stall_blocked_seconds", "s", "blocked stall", "blocking fault model: time translations were held by the SM's blocked TLB", R},
	{"uvm.fault_latency_in_timing", "bool", NULL, "fault latency is part of the simulated time (false: uvm.fault_accounting = posthoc)", R},
	{"uvm.posthoc_fault_seconds", "s", "post-hoc fault time", "fault latency summed after the run (UVMSmart's accounting)", R},
	{"uvm.posthoc_total_seconds", "s", "kernel + fault time", "sim_seconds plus post-hoc fault time when it was left out of the timing", R},
	{"uvm.pcie_utilization.normalized_time[]", "ratio", "normalized runtime", "bin centres over the run, 0..1 (JSON only)", R},
	{"uvm.pcie_utilization.h2d[]", "ratio", "PCIe h2d utilization", "host-to-device lane busy fraction per bin (JSON only; Zheng Fig. 6)", R},
	{"uvm.pcie_utilization.d2h[]", "ratio", "PCIe d2h utilization", "device-to-host lane busy fraction per bin (JSON only)", R},
	{"uvm.pcie_h2d_utilization_mean", "ratio", "mean PCIe h2d utilization", "host-to-device lane busy fraction over the run", R},
	{"uvm.pcie_d2h_utilization_mean", "ratio", "mean PCIe d2h utilization", "device-to-host lane busy fraction over the run", R},

	/* ---- kernel sampling */
	{"kernel_sampling.enabled", "bool", NULL, "--kernel-sampling was on", R},
	{"kernel_sampling.tolerance", "ratio", NULL, "agreement of cycles per warp instruction needed to fast-forward", R},
	{"kernel_sampling.min_detailed", "count", NULL, "launches of a class simulated in detail before sampling may start", R},
	{"kernel_sampling.classes", "count", NULL, "classes of alike launches seen", R},
	{"kernel_sampling.detailed_kernels", "count", "detailed launches", "launches simulated in detail", R},
	{"kernel_sampling.fast_forwarded_kernels", "count", "fast-forwarded launches", "launches driven functionally and charged the mean rate", R},
	{"kernel_sampling.refused", "text", NULL, "why sampleable launches ran in detail (empty if not)", R},
	{"kernel_sampling.estimated[]", "text", NULL, "JSON keys that are estimates when launches were fast-forwarded", R},

	/* ---- the simulator itself */
	{"wall_seconds", "s", "simulator wall time", "the simulator's own wall-clock time for the run (varies run to run)", R},
	{"warp_instructions_per_wall_second", "1/s", "warp instructions per wall second", "simulator speed: warp_instructions / wall_seconds", R},
	{"thread_accesses_per_wall_second", "1/s", "thread accesses per wall second", "simulator speed: thread_accesses / wall_seconds", R},

	/* ---- per kernel launch: kernels[] in JSON, kernel.* rows of --stats-csv */
	{"kernels[].name", "text", NULL, "kernel name", K},
	{"kernels[].grid[]", "count", NULL, "grid dimensions x, y, z (CTAs)", K},
	{"kernels[].block[]", "count", NULL, "block dimensions x, y, z (threads)", K},
	{"kernels[].start_cycle", "cycles", "start cycle", "cycle the first CTA started (after the launch overhead)", K},
	{"kernels[].end_cycle", "cycles", "end cycle", "cycle the last warp ended", K},
	{"kernels[].sim_seconds", "s", "kernel time", "simulated time of the launch: (end - start) / clock", K},
	{"kernels[].launch_seconds", "s", "launch overhead", "launch overhead before the first CTA", K},
	{"kernels[].warp_instructions", "count", "warp instructions", "warp instructions of the launch", K},
	{"kernels[].ipc", "ratio", "IPC", "warp instructions per cycle of the launch (whole GPU)", K},
	{"kernels[].memory_instructions", "count", "memory instructions", "memory warp instructions of the launch", K},
	{"kernels[].thread_accesses", "count", "thread accesses", "active lanes of memory instructions", K},
	{"kernels[].l1_sector_hits", "count", "L1 sector hits", "L1 data cache sector hits", K},
	{"kernels[].l1_sector_misses", "count", "L1 sector misses", "L1 data cache sector misses", K},
	{"kernels[].l2_sector_hits", "count", "L2 sector hits", "L2 data cache sector hits", K},
	{"kernels[].l2_sector_misses", "count", "L2 sector misses", "L2 data cache sector misses", K},
	{"kernels[].tlb_l1_hits", "count", "L1 TLB hits", "first-level TLB hits (pending hits included)", K},
	{"kernels[].tlb_l1_misses", "count", "L1 TLB misses", "first-level TLB misses", K},
	{"kernels[].dram_bytes", "bytes", "DRAM traffic", "DRAM bytes of the launch", K},
	{"kernels[].stall_cycles.*", "cycles", "stall cycles", "warp stall cycles of the launch by cause", K},
	{"kernels[].fast_forwarded", "bool", NULL, "kernel sampling drove the launch functionally (its time is estimated)", K},
	{"kernels[].l1_bytes", "bytes", "L1 capacity", "L1 data capacity per SM during the launch", K},
	{"kernels[].smem_bytes", "bytes", "shared memory", "shared memory an SM offered the launch (the carve-out)", K},

	/* ---- per allocation: alloc.* rows of --stats-csv */
	{"alloc.bytes", "bytes", "allocation size", "bytes allocated", A},
	{"alloc.base", "bytes", NULL, "GPU virtual base address", A},
	{"alloc.pages", "pages", "pages", "pages of the allocation (--page-map-page, default 4 KiB)", A},
	{"alloc.accesses", "count", "page accesses", "(memory instruction, page) pairs that touched it: an access counter's view", A},
	{"alloc.thread_accesses", "count", "thread accesses", "active lanes of memory instructions that touched it", A},
	{"alloc.first_access", "index", "first access", "memory warp instructions pulled before its first access (time proxy)", A},
	{"alloc.last_access", "index", "last access", "memory warp instructions pulled before its last access", A},
	{"alloc.share_of_thread_accesses", "ratio", "share of accesses", "its thread accesses / all global thread accesses of the run", A},
	/* per managed allocation: JSON uvm.allocations[], --stats-csv alloc rows uvm.* */
	{"uvm.allocations[].name", "text", NULL, "the managed allocation's name", A},
	{"uvm.allocations[].base", "bytes", NULL, "GPU virtual base address", A},
	{"uvm.allocations[].bytes", "bytes", "allocation size", "bytes allocated", A},
	{"uvm.allocations[].class", "text", NULL, "hot (its access count per touched 64 KB block is at least the run's), cold, untouched, or unclassified (no access counters): Ganguly et al. III-B", A},
	{"uvm.allocations[].hot", "bool", "hot allocation", "--stats-csv: 1 hot, 0 cold (left out when untouched or unclassified)", A},
	{"uvm.allocations[].chunks_touched", "count", "touched 64 KB blocks", "its 64 KB blocks with an access count > 0 (read at free or at the end)", A},
	{"uvm.allocations[].chunks_hot", "count", "64 KB blocks past t_s", "... of which count >= t_s", A},
	{"uvm.allocations[].access_count", "count", "access count", "the access counts of its 64 KB blocks summed (read at free or at the end; halvings included)", A},
	{"uvm.allocations[].remote_accesses", "count", "remote accesses", "sector accesses of its pages served over PCIe", A},
	{"uvm.allocations[].migrations_fault", "pages", "fault migrations", "its pages migrated by their own far fault", A},
	{"uvm.allocations[].migrations_counter", "pages", "counter migrations", "its pages migrated once the access counter reached the threshold", A},
	{"uvm.allocations[].migrations_prefetch", "pages", "prefetched pages", "its pages migrated by the prefetcher", A},
	{"uvm.allocations[].pages_evicted", "pages", "evicted pages", "its pages evicted to host memory", A},
	{"uvm.allocations[].thrashed_pages", "pages", "thrashed pages", "faults on its pages evicted before", A},
};

#undef R
#undef K
#undef A
#undef M

#define N_STATS (sizeof stats / sizeof stats[0])

size_t gpuvm_stat_count(void) { return N_STATS; }

const struct gpuvm_stat_info *gpuvm_stat_at(size_t i) { return i < N_STATS ? &stats[i] : NULL; }

/* Does pattern (a registry name, "*" matching one trailing component)
 * match path after both are normalized to JSON form with "[]"? */
static bool match_json(const char *pat, const char *path)
{
	size_t lp = strlen(pat);
	if (lp >= 2 && pat[lp - 1] == '*' && pat[lp - 2] == '.')
		return strncmp(pat, path, lp - 1) == 0 && path[lp - 1] &&
		       !strchr(path + lp - 1, '.');
	return strcmp(pat, path) == 0;
}

/* "tlb[2].hits" -> "tlb[].hits"; "tlb.0.hits" stays. */
static void normalize_json(const char *in, char *out, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; in[i] && o + 1 < len; i++) {
		out[o++] = in[i];
		if (in[i] == '[') {
			while (isdigit((unsigned char)in[i + 1]))
				i++;
		}
	}
	out[o] = 0;
}

/* A registry name in CSV spelling: '.' -> '_', "tlb[]." -> "tlb_l#_".
 * Returns false for names no sweep CSV carries (lists, kernels[]: the
 * per-kernel rows are --stats-csv's kernel.NAME). */
static bool csv_form(const char *name, char *out, size_t len)
{
	if (strstr(name, "[]") && strncmp(name, "tlb[].", 6) != 0)
		return false; /* lists stay in the JSON */
	if (!strncmp(name, "tlb[].", 6) && strstr(name + 6, "[]"))
		return false;
	size_t o = 0;
	const char *p = name;
	if (!strncmp(p, "tlb[].", 6)) {
		o = (size_t)snprintf(out, len, "tlb_l#_");
		p += 6;
	}
	for (; *p && o + 1 < len; p++)
		out[o++] = *p == '.' ? '_' : *p;
	out[o] = 0;
	return true;
}

/* CSV pattern match: '#' matches one or more digits, a trailing '*' one
 * or more characters. */
static bool match_csv(const char *pat, const char *col)
{
	while (*pat) {
		if (*pat == '#') {
			if (!isdigit((unsigned char)*col))
				return false;
			while (isdigit((unsigned char)*col))
				col++;
			pat++;
		} else if (*pat == '*' && !pat[1]) {
			return *col != 0;
		} else {
			if (*pat != *col)
				return false;
			pat++;
			col++;
		}
	}
	return *col == 0;
}

const struct gpuvm_stat_info *gpuvm_stat_find(const char *name)
{
	char norm[256], full[300];
	/* --stats-csv spellings: kernel.X -> kernels[].X; alloc.uvm.X ->
	 * uvm.allocations[].X; alloc.X stays */
	if (!strncmp(name, "kernel.", 7))
		snprintf(full, sizeof full, "kernels[].%s", name + 7);
	else if (!strncmp(name, "alloc.uvm.", 10))
		snprintf(full, sizeof full, "uvm.allocations[].%s", name + 10);
	else
		snprintf(full, sizeof full, "%s", name);
	normalize_json(full, norm, sizeof norm);
	for (size_t i = 0; i < N_STATS; i++)
		if (match_json(stats[i].name, norm))
			return &stats[i];
	for (size_t i = 0; i < N_STATS; i++) {
		char pat[256];
		if (stats[i].scope == GPUVM_STAT_KERNEL || stats[i].scope == GPUVM_STAT_ALLOC ||
		    !csv_form(stats[i].name, pat, sizeof pat))
			continue;
		if (match_csv(pat, name))
			return &stats[i];
	}
	return NULL;
}

void gpuvm_stat_axis_label(const char *name, char *buf, size_t len)
{
	const struct gpuvm_stat_info *s = gpuvm_stat_find(name);
	if (!s) {
		snprintf(buf, len, "%s", name);
		return;
	}
	const char *label = s->label ? s->label : name;
	/* a TLB level's label names the level: "L2 TLB hit ratio" */
	char lv[16] = "";
	if (!strncmp(s->name, "tlb[]", 5) && !strncmp(name, "tlb_l", 5) && isdigit((unsigned char)name[5]))
		snprintf(lv, sizeof lv, "L%d ", (int)strtol(name + 5, NULL, 10));
	if (!strcmp(s->unit, "count") || !strcmp(s->unit, "text") || !strcmp(s->unit, "bool") ||
	    !strcmp(s->unit, "index"))
		snprintf(buf, len, "%s%s", lv, label);
	else if (!strcmp(s->unit, "ratio"))
		snprintf(buf, len, "%s%s (0-1)", lv, label);
	else
		snprintf(buf, len, "%s%s (%s)", lv, label, s->unit);
}

/* Candidates of gpuvm_stat_suggest: registry names, or their CSV
 * spellings. */
static char csv_names[N_STATS][128];

static const char *stat_name_at(size_t i, const void *ctx)
{
	bool csv = *(const bool *)ctx;
	if (i >= N_STATS)
		return NULL;
	return csv ? csv_names[i] : stats[i].name;
}

const char *gpuvm_stat_suggest(const char *name, bool csv)
{
	/* a TLB level reads as the level the user named: tlb_l2_... */
	char level = !strncmp(name, "tlb_l", 5) && isdigit((unsigned char)name[5]) ? name[5] : '1';
	if (csv)
		for (size_t i = 0; i < N_STATS; i++) {
			if (!csv_form(stats[i].name, csv_names[i], sizeof csv_names[i]) ||
			    stats[i].scope == GPUVM_STAT_KERNEL || stats[i].scope == GPUVM_STAT_ALLOC)
				snprintf(csv_names[i], sizeof csv_names[i], "%s", stats[i].name);
			char *h = strchr(csv_names[i], '#');
			if (h)
				*h = level;
		}
	return gpuvm_suggest(name, stat_name_at, &csv);
}
