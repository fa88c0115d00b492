/* The run's counters (struct gpuvm_stats, include/gpuvm/stats.h) and a
 * launch's (struct gpuvm_kernel_stats), registered as gpuvm/counters.h
 * describes. The root of the tree lives with the system, which builds
 * every component whose section it links in (src/xlat, src/uvm, src/mem),
 * below the report that writes it (docs/layers.tsv). Row order is JSON order. Components with structs of their
 * own register them in their own files (src/xlat/tlb_counters.c,
 * src/uvm/uvm_counters.c) and appear here as SECTION rows.
 *
 * Units: count, cycles, s (simulated seconds unless the name says wall),
 * bytes, pages, ratio (0..1), 1/s, bool, text, index. */
/* Rows are written positionally; the callbacks they leave out are NULL. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/counters.h"
#include "gpuvm/engine.h"
#include "core/demangle.h"

#define ST(f) offsetof(struct gpuvm_stats, f)
#define KS(f) offsetof(struct gpuvm_kernel_stats, f)
#define SUM GPUVM_CTR_SUM
/* written into an SM partition's shard inside a window (partition.c) */
#define SHARD GPUVM_CTR_SHARD
#define SEC GPUVM_CTR_SECONDS
#define U64 GPUVM_CTR_U64
#define U32 GPUVM_CTR_U32
#define F64 GPUVM_CTR_F64
#define FN GPUVM_CTR_FN
#define BOOL GPUVM_CTR_BOOL
#define TEXT GPUVM_CTR_TEXT
#define DOC GPUVM_CTR_DOC
#define EMIT GPUVM_CTR_EMIT
#define SECTION GPUVM_CTR_SECTION

/* A thread instruction per active lane. Memory instructions report their
 * lanes (thread_accesses); compute, barrier, local and shared ones do not
 * (struct gpuvm_warp_item has no mask for them), so they count 32 lanes. */
#define WARP_LANES 32

static double ratio(double a, double b) { return b ? a / b : 0.0; }

static const struct gpuvm_stats *S(const struct gpuvm_counter_ctx *c) { return c->st; }

/* ---- derived run values --------------------------------------------- */

static bool has_async(const struct gpuvm_counter_ctx *c) { return S(c)->async_copies != 0; }
static bool has_windows(const struct gpuvm_counter_ctx *c) { return S(c)->windows != 0; }

static double accesses_per_sim_second(const struct gpuvm_counter_ctx *c)
{
	return S(c)->sim_seconds > 0 ? (double)S(c)->thread_accesses / S(c)->sim_seconds : 0;
}

static double items_per_sim_second(const struct gpuvm_counter_ctx *c)
{
	return S(c)->sim_seconds > 0 ? (double)S(c)->work_items / S(c)->sim_seconds : 0;
}

static double wall(const struct gpuvm_counter_ctx *c)
{
	return S(c)->wall_seconds > 0 ? S(c)->wall_seconds : 1e-9;
}

static double warp_insts_per_wall(const struct gpuvm_counter_ctx *c)
{
	return (double)S(c)->warp_insts / wall(c);
}

static double accesses_per_wall(const struct gpuvm_counter_ctx *c)
{
	return (double)S(c)->thread_accesses / wall(c);
}

static double run_thread_insts(const struct gpuvm_counter_ctx *c)
{
	return (double)S(c)->thread_accesses + WARP_LANES * (double)(S(c)->warp_insts - S(c)->mem_insts);
}

/* cycles inside launches, from their records */
static double launch_cycles(const struct gpuvm_counter_ctx *c)
{
	double t = 0;
	for (size_t i = 0; i < S(c)->n_kernel_list; i++)
		t += S(c)->kernel_list[i].end_cycle - S(c)->kernel_list[i].start_cycle;
	return t;
}

static double run_warp_ipc(const struct gpuvm_counter_ctx *c)
{
	double t = launch_cycles(c);
	return t > 0 ? (double)S(c)->warp_insts / t : 0;
}

static double run_thread_ipc(const struct gpuvm_counter_ctx *c)
{
	double t = launch_cycles(c);
	return t > 0 ? run_thread_insts(c) / t : 0;
}

/* Du et al.'s sharing analyses (seeds/002 Fig. 3, Tables I-II), defined
 * in docs/neidty.md: lookups by holders, and per instance the share of
 * its local misses that its left or right neighbour held. */
static bool sharing_on(const struct gpuvm_counter_ctx *c) { return S(c)->tlb_sharing.enabled; }

static void emit_tlb_sharing(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	const struct gpuvm_tlb_sharing_stats *sh = &S(c)->tlb_sharing;
	static const char *const names[GPUVM_SHARING_BUCKETS] = {"0", "1", "2-4", "5-8", "9-12", "13-16"};
	cJSON *t = cJSON_AddObjectToObject(o, "tlb_sharing");
	cJSON *h = cJSON_AddObjectToObject(t, "lookups_by_holders");
	uint64_t held = 0;
	for (int b = 0; b < GPUVM_SHARING_BUCKETS; b++) {
		cJSON_AddNumberToObject(h, names[b], (double)sh->holders[b]);
		held += b ? sh->holders[b] : 0;
	}
	cJSON *f = cJSON_AddObjectToObject(t, "fraction_of_held_lookups");
	for (int b = 1; b < GPUVM_SHARING_BUCKETS; b++)
		cJSON_AddNumberToObject(f, names[b], ratio((double)sh->holders[b], (double)held));
	cJSON *a = cJSON_AddArrayToObject(t, "neighbour_correlation");
	uint64_t num = 0, den = 0;
	double mean = 0;
	for (uint32_t i = 0; i < sh->instances; i++) {
		double r = ratio((double)sh->neighbour_held[i], (double)sh->local_misses[i]);
		cJSON_AddItemToArray(a, cJSON_CreateNumber(r));
		mean += r;
		num += sh->neighbour_held[i];
		den += sh->local_misses[i];
	}
	cJSON_AddNumberToObject(t, "neighbour_correlation_avg", sh->instances ? mean / sh->instances : 0);
	cJSON_AddNumberToObject(t, "neighbour_correlation_pooled", ratio((double)num, (double)den));
}

/* Each launch's record: its rows (gpuvm_kernel_section below) over its
 * struct, in a context built as gpuvm_report_kernel builds it. */
static void emit_kernels(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	cJSON *kl = cJSON_AddArrayToObject(o, "kernels");
	for (size_t i = 0; i < S(c)->n_kernel_list; i++) {
		cJSON *k = cJSON_CreateObject();
		struct gpuvm_counter_ctx kc = {.cfg = c->cfg, .st = S(c), .base = &S(c)->kernel_list[i],
					       .hz = c->cfg->clock_mhz * 1e6};
		gpuvm_counters_emit(k, &gpuvm_kernel_section, &kc);
		cJSON_AddItemToArray(kl, k);
	}
}

/* ---- kernel sampling ------------------------------------------------ */

#define KSS(f) offsetof(struct gpuvm_kernel_sampling_stats, f)

static void emit_estimated(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	const struct gpuvm_kernel_sampling_stats *ks = c->base;
	cJSON *est = cJSON_AddArrayToObject(o, "estimated");
	for (size_t i = 0; ks->fast_forwarded_kernels && gpuvm_kernel_sampling_estimated[i]; i++)
		cJSON_AddItemToArray(est, cJSON_CreateString(gpuvm_kernel_sampling_estimated[i]));
}

/* Always present, so sweeps get the same columns with sampling on or off;
 * "estimated" (strings) stays out of sweep CSVs. */
static const struct gpuvm_counter kernel_sampling_rows[] = {
	{"enabled", "bool", NULL, "--kernel-sampling was on", BOOL, 0, KSS(enabled)},
	{"tolerance", "ratio", NULL, "agreement of cycles per warp instruction needed to fast-forward", F64, 0, KSS(tolerance)},
	{"min_detailed", "count", NULL, "launches of a class simulated in detail before sampling may start", U32, 0, KSS(min_detailed)},
	{"classes", "count", NULL, "classes of alike launches seen", U64, 0, KSS(classes)},
	{"detailed_kernels", "count", "detailed launches", "launches simulated in detail", U64, 0, KSS(detailed_kernels)},
	{"fast_forwarded_kernels", "count", "fast-forwarded launches", "launches driven functionally and charged the mean rate", U64, 0, KSS(fast_forwarded_kernels)},
	{"refused", "text", NULL, "why sampleable launches ran in detail (empty if not)", TEXT, 0, KSS(refused)},
	{"estimated[]", "text", NULL, "JSON keys that are estimates when launches were fast-forwarded", EMIT, 0, 0, NULL, NULL, emit_estimated},
};

static const struct gpuvm_counter_section kernel_sampling_section = {
	"kernel_sampling", GPUVM_STAT_RUN, false, GPUVM_COUNTER_ROWS(kernel_sampling_rows),
	NULL, ST(kernel_sampling), 0, 0,
};

/* ---- stall cycles: an object by cause (run and launch) --------------- */

#define STALL_ROW(i, n) {n, "cycles", NULL, NULL, F64, SUM, (i) * sizeof(double)}
static const struct gpuvm_counter stall_rows[] = {
	{"*", "cycles", "stall cycles", "warp-cycles between a warp being ready and issuing, by cause (memory, dependency, barrier, issue, fault)", DOC, GPUVM_CTR_TOTAL, 0}, /* TOTAL: totals.stall_cycles.* are documented */
	STALL_ROW(GPUVM_STALL_MEMORY, "memory"),
	STALL_ROW(GPUVM_STALL_DEPENDENCY, "dependency"),
	STALL_ROW(GPUVM_STALL_BARRIER, "barrier"),
	STALL_ROW(GPUVM_STALL_ISSUE, "issue"),
	STALL_ROW(GPUVM_STALL_FAULT, "fault"),
};
_Static_assert(GPUVM_STALLS == 5, "a stall cause needs its row in stall_rows");

static const struct gpuvm_counter_section stall_section = {
	"stall_cycles", GPUVM_STAT_RUN, false, GPUVM_COUNTER_ROWS(stall_rows), NULL, ST(stall_cycles), 0, 0,
};

/* ---- peer access (several GPUs) -------------------------------------- */

#define PA(f) offsetof(struct gpuvm_peer_access_stats, f)

static uint32_t peer_count(const struct gpuvm_stats *st) { return st->peer.requests != 0; }

static const struct gpuvm_counter peer_rows[] = {
	{"requests", "count", "peer requests", "sector requests this GPU's kernels sent to other GPUs' device memory (cudaDeviceEnablePeerAccess)", U64, GPUVM_CTR_TOTAL, PA(requests)},
	{"read_bytes", "bytes", "peer bytes read", "bytes loaded from other GPUs' device memory over NVLink / NVSwitch", U64, GPUVM_CTR_TOTAL, PA(read_bytes)},
	{"write_bytes", "bytes", "peer bytes written", "bytes stored (and atomics) into other GPUs' device memory over NVLink / NVSwitch", U64, GPUVM_CTR_TOTAL, PA(write_bytes)},
};

static const struct gpuvm_counter_section peer_section = {
	"peer_access", GPUVM_STAT_RUN, false, GPUVM_COUNTER_ROWS(peer_rows), peer_count, ST(peer), 0, 0,
};

/* ---- the run -------------------------------------------------------- */

static const struct gpuvm_counter run_rows[] = {
	/* time and work */
	{"sim_cycles", "cycles", "simulated cycles", "simulated GPU cycles of the whole run (kernels, copies, launch overheads)", F64, 0, ST(sim_cycles)},
	{"sim_seconds", "s", "simulated time", "simulated time of the whole run: sim_cycles / gpu clock", F64, 0, ST(sim_seconds)},
	{"kernel_seconds", "s", "kernel time", "simulated time inside kernels (launch overheads included)", F64, SEC, ST(kernel_cycles)},
	{"copy_seconds", "s", "copy time", "simulated time of explicit host<->device copies", F64, SEC, ST(copy_cycles)},
	/* only runs that issue them: other JSON stays as it was */
	{"async_copies", "count", "asynchronous copies", "cudaMemcpyAsync copies on the copy engines, beside the kernels (only in runs that issue them; docs/timing.md)", U64, 0, ST(async_copies), NULL, has_async},
	{"async_copy_seconds", "s", "asynchronous copy time", "the asynchronous copies' transfer time on a free lane, summed (they overlap kernels, so it is not part of sim_seconds as such)", F64, SEC, ST(async_copy_cycles), NULL, has_async},
	{"async_wait_seconds", "s", "wait for copies", "time kernels waited for the asynchronous copy of their input before starting", F64, SEC, ST(async_wait_cycles), NULL, has_async},
	{"accesses_per_sim_second", "1/s", "thread accesses per simulated second", "thread accesses / sim_seconds: Karnagel's throughput measure", FN, 0, 0, accesses_per_sim_second},
	{"work_items", "count", "work items", "the workload's unit of work (reads, rows, edges; 0: not defined)", U64, 0, ST(work_items)},
	{"items_per_sim_second", "1/s", "work items per simulated second", "work_items / sim_seconds", FN, 0, 0, items_per_sim_second},
	{"kernel_launches", "count", "kernel launches", "kernel launches in the run", U64, 0, ST(kernels)},
	{"launch_seconds", "s", "launch overhead", "of kernel_seconds, the launch overheads before first CTAs start", F64, SEC, ST(launch_cycles)},
	{"ctas", "count", "CTAs", "thread blocks run", U64, SUM, ST(ctas)},
	{"warps", "count", "warps", "warps run", U64, SUM, ST(warps)},
	{"warp_instructions", "count", "warp instructions", "warp instructions issued (compute + memory)", U64, SUM | SHARD, ST(warp_insts)},
	{"memory_instructions", "count", "memory instructions", "global-memory warp instructions (local and shared ones are counted in local_instructions and shared_instructions)", U64, SUM | SHARD, ST(mem_insts)},
	{"thread_accesses", "count", "thread accesses", "active lanes of memory instructions", U64, SUM | SHARD, ST(thread_accesses)},
	{"sectors", "count", "sectors", "32 B sectors after coalescing", U64, SUM, ST(sectors)},
	{"lines", "count", "lines", "128 B lines after coalescing", U64, SUM, ST(lines)},
	{"translation_units", "count", "translation units", "distinct pages per warp instruction after coalescing: translation requests", U64, SUM, ST(xlat_units)},

	/* address translation */
	{"tlb", NULL, NULL, NULL, SECTION, 0, 0, NULL, NULL, NULL, &gpuvm_tlb_level_section},
	{"tlb_sharing", NULL, NULL, NULL, EMIT, 0, 0, NULL, sharing_on, emit_tlb_sharing},
	{"tlb_sharing.lookups_by_holders.*", "count", "lookups", "--tlb-sharing: first-level lookups by how many instances held the entry (0, 1, 2-4, 5-8, 9-12, 13-16; Du et al. Fig. 3)", DOC},
	{"tlb_sharing.fraction_of_held_lookups.*", "ratio", "fraction of lookups", "--tlb-sharing: share of lookups of held entries, by holder count bucket", DOC},
	{"tlb_sharing.neighbour_correlation[]", "ratio", NULL, "--tlb-sharing: per instance, local misses a neighbour held / local misses (Du et al. Tables I-II; JSON only)", DOC},
	{"tlb_sharing.neighbour_correlation_avg", "ratio", "neighbour correlation", "mean of neighbour_correlation over instances", DOC},
	{"tlb_sharing.neighbour_correlation_pooled", "ratio", "neighbour correlation", "neighbour-held misses / local misses, pooled over instances", DOC},
	{"walks", "count", "page walks", "page walks (misses of the last TLB level)", U64, SUM, ST(walks)},
	{"pwc_hits", "count", "page-walk cache hits", "page walks whose upper levels hit the page-walk cache", U64, SUM, ST(pwc_hits)},
	{"walk_queue_cycles", "cycles", "walk queueing", "summed wait for a free page walker", F64, SUM, ST(walk_queue_cycles)},
	{"walk_pte_l2_hits", "count", "PTE L2 hits", "page-table-entry reads of walks that hit in L2", U64, SUM, ST(walk_pte_l2_hits)},
	{"walk_pte_l2_misses", "count", "PTE L2 misses", "page-table-entry reads of walks that missed L2 (went to DRAM)", U64, SUM, ST(walk_pte_l2_misses)},
	{"walk_pte_l2_hit_ratio", "ratio", "PTE L2 hit ratio", "CSV: walk_pte_l2_hits / (hits + misses)", DOC, GPUVM_CTR_CSV},

	/* SM, caches, memory */
	{"local_instructions", "count", "local instructions", "local-memory warp instructions (spills, stack)", U64, SUM | SHARD, ST(local_insts)},
	{"shared_instructions", "count", "shared instructions", "shared-memory warp instructions", U64, SUM | SHARD, ST(shared_insts)},
	{"barriers", "count", "barriers", "CTA barriers (__syncthreads) executed per warp", U64, SUM | SHARD, ST(barriers)},
	/* only with core.window = on: other JSON stays as it was */
	{"windows", "count", "timing windows", "core.window: the barriers at which the window's memory instructions were applied (only with core.window = on; docs/parallel.md)", U64, 0, ST(windows), NULL, has_windows},
	{"window_early_results", "count", "results before their window's end", "core.window: memory results due before the barrier that applied them (0 unless the window is longer than the shortest memory latency)", U64, 0, ST(window_early), NULL, has_windows},
	{"shared_wavefronts", "count", "shared wavefronts", "shared-memory cycles (bank conflicts add wavefronts)", U64, SUM | SHARD, ST(smem_wavefronts)},
	{"l1_sector_hits", "count", "L1 data-cache sector hits", "L1 data cache sector hits", U64, SUM, ST(l1_sector_hits)},
	{"l1_sector_misses", "count", "L1 data-cache sector misses", "L1 data cache sector misses", U64, SUM, ST(l1_sector_misses)},
	{"l1_sector_hit_ratio", "ratio", "L1 data-cache hit ratio", "CSV: l1_sector_hits / (hits + misses)", DOC, GPUVM_CTR_CSV},
	{"l1_writeback_sectors", "count", "L1 write-back sectors", "dirty local-memory sectors evicted from L1", U64, SUM, ST(l1_writeback_sectors)},
	{"stall_cycles", NULL, NULL, NULL, SECTION, SHARD, 0, NULL, NULL, NULL, &stall_section},
	{"l2_sector_hits", "count", "L2 data-cache sector hits", "L2 data cache sector hits (not the L2 TLB: that is tlb_l2_*)", U64, SUM, ST(l2_sector_hits)},
	{"l2_sector_misses", "count", "L2 data-cache sector misses", "L2 data cache sector misses", U64, SUM, ST(l2_sector_misses)},
	{"l2_sector_hit_ratio", "ratio", "L2 data-cache hit ratio", "CSV: l2_sector_hits / (hits + misses)", DOC, GPUVM_CTR_CSV},
	{"dram_bytes", "bytes", "DRAM traffic", "bytes read and written in device DRAM", U64, SUM, ST(dram_bytes)},
	{"pcie_h2d_bytes", "bytes", "PCIe host-to-device traffic", "bytes host to device: copies, zero-copy reads, migrations (paging bytes are added at the end of the run, so launches do not carry this: see zero_copy_bytes and uvm.bytes_h2d)", U64, 0, ST(pcie_h2d_bytes)},
	{"pcie_d2h_bytes", "bytes", "PCIe device-to-host traffic", "bytes device to host: copies, zero-copy writes, write-backs (added at the end of the run: launches carry zero_copy_bytes and uvm.bytes_d2h)", U64, 0, ST(pcie_d2h_bytes)},
	{"zero_copy_bytes", "bytes", "zero-copy traffic", "of the PCIe bytes, zero-copy (host-pinned) accesses", U64, SUM, ST(zero_copy_bytes)},
	{"zero_copy_tlps", "count", "zero-copy PCIe packets", "transaction-layer packets of zero-copy accesses: one per line an instruction touches, one per atomic sector", U64, SUM, ST(zero_copy_tlps)},

	/* unified memory (present when the run used managed memory) */
	{"uvm", NULL, NULL, NULL, SECTION, 0, 0, NULL, NULL, NULL, &gpuvm_uvm_section},
	{"kernel_sampling", NULL, NULL, NULL, SECTION, 0, 0, NULL, NULL, NULL, &kernel_sampling_section},
	{"kernels", NULL, NULL, NULL, EMIT, 0, 0, NULL, NULL, emit_kernels},

	/* the simulator itself */
	{"wall_seconds", "s", "simulator wall time", "the simulator's own wall-clock time for the run (varies run to run)", F64, 0, ST(wall_seconds)},
	{"warp_instructions_per_wall_second", "1/s", "warp instructions per wall second", "simulator speed: warp_instructions / wall_seconds", FN, 0, 0, warp_insts_per_wall},
	{"thread_accesses_per_wall_second", "1/s", "thread accesses per wall second", "simulator speed: thread_accesses / wall_seconds", FN, 0, 0, accesses_per_wall},

	/* added after 1b4e3ad: at the end, so sweep CSVs keep their column order */
	{"thread_instructions", "count", "thread instructions", "thread instructions: active lanes of global memory instructions, 32 per other warp instruction (sources report no mask for those)", FN, 0, 0, run_thread_insts},
	{"warp_ipc", "ratio", "warp IPC", "warp instructions per cycle over the launches' cycles (first CTA start to last warp end; launch overheads and copies left out)", FN, 0, 0, run_warp_ipc},
	{"thread_ipc", "ratio", "thread IPC", "thread instructions per cycle over the launches' cycles: GPGPU-Sim's gpu_tot_ipc", FN, 0, 0, run_thread_ipc},
	/* the banked DRAM model (present when the preset has it) */
	{"dram", NULL, NULL, NULL, SECTION, 0, 0, NULL, NULL, NULL, &gpuvm_dram_section},
	/* peer access on a system of several GPUs (present when used) */
	{"peer_access", NULL, NULL, NULL, SECTION, 0, 0, NULL, NULL, NULL, &peer_section},
};

const struct gpuvm_counter_section gpuvm_run_section = {
	"", GPUVM_STAT_RUN, false, GPUVM_COUNTER_ROWS(run_rows), NULL, 0, 0, 0,
};

/* ---- a launch (JSON kernels[], --stats-csv scope kernel) ------------- */

static const struct gpuvm_kernel_stats *K(const struct gpuvm_counter_ctx *c) { return c->base; }

static void emit_dim(cJSON *o, const char *name, const uint32_t d[3])
{
	cJSON *a = cJSON_AddArrayToObject(o, name);
	for (int i = 0; i < 3; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(d[i]));
}

static void emit_grid(cJSON *o, const struct gpuvm_counter_ctx *c) { emit_dim(o, "grid", K(c)->grid); }

/* "name" stays as the trace recorded it (what tools and scripts match on);
 * this is the same name as a person reads it */
static void emit_name_demangled(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	char *d = gpuvm_demangle(K(c)->name);
	cJSON_AddStringToObject(o, "name_demangled", d ? d : K(c)->name);
	free(d);
}
static void emit_block(cJSON *o, const struct gpuvm_counter_ctx *c) { emit_dim(o, "block", K(c)->block); }

static double kernel_cycles(const struct gpuvm_counter_ctx *c)
{
	return K(c)->end_cycle - K(c)->start_cycle;
}

static double kernel_ipc(const struct gpuvm_counter_ctx *c)
{
	double cycles = kernel_cycles(c);
	return cycles > 0 ? (double)K(c)->warp_insts / cycles : 0;
}

/* GPGPU-Sim's gpu_ipc counts thread instructions; ipc (kept for
 * compatibility) and warp_ipc count warp instructions. */
static double kernel_thread_insts(const struct gpuvm_counter_ctx *c)
{
	return (double)K(c)->thread_accesses + WARP_LANES * (double)(K(c)->warp_insts - K(c)->mem_insts);
}

static double kernel_thread_ipc(const struct gpuvm_counter_ctx *c)
{
	double cycles = kernel_cycles(c);
	return cycles > 0 ? kernel_thread_insts(c) / cycles : 0;
}

static void emit_kernel_deltas(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	if (K(c)->counters)
		gpuvm_counters_emit_delta(o, &gpuvm_run_section, K(c)->counters, c);
}

static const struct gpuvm_counter kernel_stall_rows[] = {
	{"*", "cycles", "stall cycles", "warp stall cycles of the launch by cause", DOC, 0, 0},
	STALL_ROW(GPUVM_STALL_MEMORY, "memory"),
	STALL_ROW(GPUVM_STALL_DEPENDENCY, "dependency"),
	STALL_ROW(GPUVM_STALL_BARRIER, "barrier"),
	STALL_ROW(GPUVM_STALL_ISSUE, "issue"),
	STALL_ROW(GPUVM_STALL_FAULT, "fault"),
};

static const struct gpuvm_counter_section kernel_stall_section = {
	"stall_cycles", GPUVM_STAT_KERNEL, false, GPUVM_COUNTER_ROWS(kernel_stall_rows), NULL, KS(stall_cycles), 0, 0,
};

static const struct gpuvm_counter kernel_rows[] = {
	{"name", "text", NULL, "kernel name, as the trace or workload recorded it (mangled C++ names stay mangled)", TEXT, 0, KS(name)},
	{"name_demangled", "text", NULL, "kernel name demangled (C++ names, by libiberty, with parameter types); the same as name when it is not a mangled C++ name", EMIT, 0, 0, NULL, NULL, emit_name_demangled},
	{"grid[]", "count", NULL, "grid dimensions x, y, z (CTAs)", EMIT, 0, 0, NULL, NULL, emit_grid},
	{"block[]", "count", NULL, "block dimensions x, y, z (threads)", EMIT, 0, 0, NULL, NULL, emit_block},
	{"start_cycle", "cycles", "start cycle", "cycle the kernel started on the GPU (after the launch overhead; the front-end, then the first CTA)", F64, 0, KS(start_cycle)},
	{"end_cycle", "cycles", "end cycle", "cycle the kernel completed (its last warp ended, then the tail)", F64, 0, KS(end_cycle)},
	{"frontend_cycles", "cycles", "front-end", "of end - start, the kernel's start to its first CTA dispatch (gpu.kernel_frontend_cycles)", F64, 0, KS(frontend_cycles)},
	{"tail_cycles", "cycles", "tail", "of end - start, the last warp's end to the kernel's completion (gpu.kernel_tail_cycles)", F64, 0, KS(tail_cycles)},
	{"sim_seconds", "s", "kernel time", "simulated time of the launch: (end - start) / clock", F64, 0, KS(sim_seconds)},
	{"launch_seconds", "s", "launch overhead", "launch overhead the GPU waited for before the kernel started (gpu.kernel_launch_us, less what a pipelined launch hid behind the kernels before it; outside start..end)", F64, SEC, KS(launch_cycles)},
	{"warp_instructions", "count", "warp instructions", "warp instructions of the launch", U64, 0, KS(warp_insts)},
	{"ipc", "ratio", "IPC", "warp instructions per cycle of the launch (whole GPU); the same as warp_ipc, kept for compatibility (GPGPU-Sim's gpu_ipc is thread_ipc)", FN, 0, 0, kernel_ipc},
	{"memory_instructions", "count", "memory instructions", "global-memory warp instructions of the launch", U64, 0, KS(mem_insts)},
	{"thread_accesses", "count", "thread accesses", "active lanes of memory instructions", U64, 0, KS(thread_accesses)},
	{"l1_sector_hits", "count", "L1 sector hits", "L1 data cache sector hits", U64, 0, KS(l1_hits)},
	{"l1_sector_misses", "count", "L1 sector misses", "L1 data cache sector misses", U64, 0, KS(l1_misses)},
	{"l2_sector_hits", "count", "L2 sector hits", "L2 data cache sector hits", U64, 0, KS(l2_hits)},
	{"l2_sector_misses", "count", "L2 sector misses", "L2 data cache sector misses", U64, 0, KS(l2_misses)},
	{"tlb_l1_hits", "count", "L1 TLB hits", "first-level TLB hits (pending hits included)", U64, 0, KS(tlb_l1_hits)},
	{"tlb_l1_misses", "count", "L1 TLB misses", "first-level TLB misses", U64, 0, KS(tlb_l1_misses)},
	{"dram_bytes", "bytes", "DRAM traffic", "DRAM bytes of the launch", U64, 0, KS(dram_bytes)},
	{"stall_cycles", NULL, NULL, NULL, SECTION, 0, 0, NULL, NULL, NULL, &kernel_stall_section},
	{"fast_forwarded", "bool", NULL, "kernel sampling drove the launch functionally (its time is estimated)", BOOL, 0, KS(fast_forwarded)},
	{"l1_bytes", "bytes", "L1 capacity", "L1 data capacity per SM during the launch", U64, 0, KS(l1_bytes)},
	{"smem_bytes", "bytes", "shared memory", "shared memory an SM offered the launch (the carve-out)", U64, 0, KS(smem_bytes)},
	{"warp_ipc", "ratio", "warp IPC", "warp instructions per cycle of the launch, whole GPU (= ipc)", FN, 0, 0, kernel_ipc},
	{"thread_instructions", "count", "thread instructions", "thread instructions of the launch: active lanes of global memory instructions, 32 per other warp instruction (sources report no mask for those)", FN, 0, 0, kernel_thread_insts},
	{"thread_ipc", "ratio", "thread IPC", "thread instructions per cycle of the launch, whole GPU: what GPGPU-Sim's gpu_ipc counts (up to 32 x warp_ipc)", FN, 0, 0, kernel_thread_ipc},
	/* then every GPUVM_CTR_SUM counter of the run, as its difference over
	 * the launch, under the run's name (listed as kernels[].NAME) */
	{"counters", NULL, NULL, NULL, EMIT, 0, 0, NULL, NULL, emit_kernel_deltas},
};

const struct gpuvm_counter_section gpuvm_kernel_section = {
	"kernels", GPUVM_STAT_KERNEL, true, GPUVM_COUNTER_ROWS(kernel_rows), NULL, 0, 0, 0,
};
