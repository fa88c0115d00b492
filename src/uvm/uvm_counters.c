/* The paging counters (struct gpuvm_uvm_stats, include/gpuvm/uvm.h),
 * registered as gpuvm/counters.h describes: the JSON's "uvm" object (only
 * when the run used managed memory), sweep CSV columns uvm_NAME, and per
 * launch kernels[].uvm.NAME for the GPUVM_CTR_SUM ones. Row order is JSON
 * order. Counts that only make sense for the whole run (capacity, peak,
 * hot/cold blocks at the end, prefetched pages never used) are not SUM.
 * TOT (GPUVM_CTR_TOTAL): counts that add over a system's GPUs though not
 * over launches (CPU phases happen between kernels; prefetched pages
 * never used are known at the end), so the system's totals carry them;
 * a capacity, a peak and the end's hot/cold blocks are each GPU's own. */
/* Rows are written positionally; the callbacks they leave out are NULL. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <math.h>
#include <stddef.h>

#include "gpuvm/config.h"
#include "gpuvm/counters.h"
#include "gpuvm/stats.h"
#include "gpuvm/uvm.h"

#define U(f) offsetof(struct gpuvm_uvm_stats, f)
#define SUM GPUVM_CTR_SUM
#define TOT GPUVM_CTR_TOTAL
#define SEC GPUVM_CTR_SECONDS
#define U64 GPUVM_CTR_U64
#define F64 GPUVM_CTR_F64
#define BOOL GPUVM_CTR_BOOL
#define FN GPUVM_CTR_FN
#define EMIT GPUVM_CTR_EMIT
#define DOC GPUVM_CTR_DOC

#define UTIL_POINTS 100

static const struct gpuvm_uvm_stats *UV(const struct gpuvm_counter_ctx *c) { return c->base; }

/* The host-access rows appear in the reports of programs with CPU phases
 * alone, so every other report keeps its keys. */
static bool host_present(const struct gpuvm_counter_ctx *c) { return UV(c)->host_accesses != 0; }

/* Busy fraction of a lane over [lo, hi) from its bins. */
static double busy_fraction(const struct gpuvm_uvm_stats *u, const double *bins, double lo, double hi)
{
	if (!bins || hi <= lo)
		return 0;
	double w = u->util_bin_cycles, busy = 0;
	for (uint32_t i = (uint32_t)(lo / w); i < u->util_bins && i * w < hi; i++) {
		double a = fmax(lo, i * w), b = fmin(hi, (i + 1) * w);
		if (b > a)
			busy += bins[i] * (b - a) / w; /* busy time spread evenly in a bin */
	}
	double f = busy / (hi - lo);
	return f > 1 ? 1 : f;
}

/* Mean busy fraction of a lane over UTIL_POINTS bins of the run, each bin
 * written to series (may be NULL). */
static double utilization(const struct gpuvm_counter_ctx *c, bool h2d, cJSON *series)
{
	const struct gpuvm_uvm_stats *u = UV(c);
	double T = c->st->sim_cycles, mean = 0;
	for (int i = 0; i < UTIL_POINTS; i++) {
		double lo = T * i / UTIL_POINTS, hi = T * (i + 1) / UTIL_POINTS;
		double f = busy_fraction(u, h2d ? u->util_h2d_busy_cycles : u->util_d2h_busy_cycles, lo, hi);
		mean += f / UTIL_POINTS;
		if (series)
			cJSON_AddItemToArray(series, cJSON_CreateNumber(f));
	}
	return mean;
}

static void emit_pcie_utilization(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	cJSON *pu = cJSON_AddObjectToObject(o, "pcie_utilization");
	cJSON *tn = cJSON_AddArrayToObject(pu, "normalized_time");
	for (int i = 0; i < UTIL_POINTS; i++)
		cJSON_AddItemToArray(tn, cJSON_CreateNumber((i + 0.5) / UTIL_POINTS));
	utilization(c, true, cJSON_AddArrayToObject(pu, "h2d"));
	utilization(c, false, cJSON_AddArrayToObject(pu, "d2h"));
}

static double h2d_mean(const struct gpuvm_counter_ctx *c) { return utilization(c, true, NULL); }
static double d2h_mean(const struct gpuvm_counter_ctx *c) { return utilization(c, false, NULL); }

/* UVMSmart's Tot_kernel_exec_time_and_fault_time: meaningful when the
 * latency was left out of the timing (uvm.fault_accounting = posthoc) */
static double posthoc_total(const struct gpuvm_counter_ctx *c)
{
	return c->st->sim_seconds + (UV(c)->latency_in_timing ? 0 : UV(c)->posthoc_fault_cycles / c->hz);
}

/* per allocation: its decisions and hot/cold class (the run-level names,
 * so a sum over allocations gives the run's count); documented with the
 * allocation rows in src/report/stats_registry.c */
static void emit_allocations(cJSON *o, const struct gpuvm_counter_ctx *c)
{
	const struct gpuvm_uvm_stats *u = UV(c);
	cJSON *al = cJSON_AddArrayToObject(o, "allocations");
	for (size_t i = 0; i < u->n_allocs; i++) {
		const struct gpuvm_uvm_alloc_stats *a = &u->allocs[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", a->name);
		cJSON_AddNumberToObject(x, "base", (double)a->base);
		cJSON_AddNumberToObject(x, "bytes", (double)a->bytes);
		cJSON_AddStringToObject(x, "class", gpuvm_uvm_alloc_class(a));
		cJSON_AddNumberToObject(x, "chunks_touched", (double)a->chunks_touched);
		cJSON_AddNumberToObject(x, "chunks_hot", (double)a->chunks_hot);
		cJSON_AddNumberToObject(x, "access_count", (double)a->access_count);
		cJSON_AddNumberToObject(x, "remote_accesses", (double)a->decisions[GPUVM_UVM_REMOTE]);
		cJSON_AddNumberToObject(x, "migrations_fault", (double)a->decisions[GPUVM_UVM_MIGRATE_FAULT]);
		cJSON_AddNumberToObject(x, "migrations_counter",
					(double)a->decisions[GPUVM_UVM_MIGRATE_COUNTER]);
		cJSON_AddNumberToObject(x, "migrations_prefetch", (double)a->decisions[GPUVM_UVM_PREFETCH]);
		cJSON_AddNumberToObject(x, "pages_evicted", (double)a->decisions[GPUVM_UVM_EVICT]);
		cJSON_AddNumberToObject(x, "thrashed_pages", (double)a->thrashed_pages);
		cJSON_AddItemToArray(al, x);
	}
}

static const struct gpuvm_counter rows[] = {
	{"far_faults", "count", "far faults", "faulted pages (faults coalesced per 4 KB page)", U64, SUM, U(far_faults)},
	{"fault_batches", "count", "fault batches", "batches the fault handler serviced", U64, SUM, U(fault_batches)},
	{"nacks", "count", "nacks", "replayable faults refused for want of a far-fault MSHR and replayed", U64, SUM, U(nacks)},
	{"pages_h2d", "pages", "pages migrated in", "pages migrated to the GPU (faulted + prefetched)", U64, SUM, U(pages_h2d)},
	{"pages_d2h", "pages", "pages written back", "pages written back to the host on eviction", U64, SUM, U(pages_d2h)},
	{"pages_evicted", "pages", "pages evicted", "pages dropped from device memory", U64, SUM, U(pages_evicted)},
	{"prefetched_pages", "pages", "prefetched pages", "pages migrated without a fault of their own", U64, SUM, U(prefetched_pages)},
	{"prefetched_used", "pages", "prefetched pages used", "prefetched pages the GPU later touched", U64, SUM, U(prefetched_used)},
	{"prefetched_unused", "pages", "prefetched pages unused", "prefetched pages evicted or left untouched at the end", U64, TOT, U(prefetched_unused)},
	{"thrashed_pages", "pages", "thrashed pages", "faults on pages evicted before (one per refault)", U64, SUM, U(thrashed_pages)},
	{"transfers_h2d", "count", "h2d transfers", "PCIe transfers host to device (one per contiguous run of pages)", U64, SUM, U(transfers_h2d)},
	{"transfers_d2h", "count", "d2h transfers", "PCIe transfers device to host", U64, SUM, U(transfers_d2h)},
	{"bytes_h2d", "bytes", "paging traffic h2d", "paging bytes host to device", U64, SUM, U(bytes_h2d)},
	{"bytes_d2h", "bytes", "paging traffic d2h", "paging bytes device to host", U64, SUM, U(bytes_d2h)},
	{"capacity_pages", "pages", "device capacity", "device frames for managed data (0 = unlimited)", U64, 0, U(capacity_pages)},
	{"peak_resident_pages", "pages", "peak resident pages", "most managed pages resident at once", U64, 0, U(peak_resident_pages)},
	{"pages_copied_in", "pages", "pages copied in", "pages made resident by cudaMemcpy into managed memory", U64, SUM, U(pages_copied_in)},
	{"l2_sectors_invalidated", "count", "L2 sectors invalidated", "valid L2 sectors of evicted or freed pages dropped", U64, SUM, U(l2_sectors_invalidated)},
	{"l2_dirty_sectors_written", "count", "L2 dirty sectors written", "of those, dirty sectors written to DRAM first", U64, SUM, U(l2_dirty_sectors_written)},
	{"prefetcher_switched", "bool", NULL, "uvm.prefetcher_oversub replaced the prefetcher at the first eviction", BOOL, 0, U(prefetcher_switched)},
	{"remote_accesses", "count", "remote accesses", "sector reads of non-resident managed pages served over PCIe (delayed migration)", U64, SUM, U(remote_accesses)},
	{"remote_map_faults", "count", "remote-map faults", "faults that mapped a preferred-host page remotely instead of migrating it (cudaMemAdvise)", U64, SUM, U(remote_map_faults)},
	{"device_syncs", "count", "device syncs", "cudaDeviceSynchronize calls of the program", U64, SUM, U(device_syncs)},
	{"sync_writeback_pages", "pages", "sync write-backs", "dirty pages written back and invalidated at device syncs (uvm.device_sync = writeback, UVMSmart)", U64, SUM, U(sync_writeback_pages)},
	/* CPU phases (simt_host_access): written only when the program has one */
	{"host_accesses", "count", "host accesses", "CPU phases touching managed memory between kernels (simt_host_access)", U64, TOT, U(host_accesses), NULL, host_present},
	{"cpu_faults", "count", "CPU faults", "CPU page faults on GPU-resident managed pages (one per 64 KB chunk; uvm.fault_latency_us each)", U64, TOT, U(cpu_faults), NULL, host_present},
	{"cpu_fault_pages", "pages", "CPU fault migrations", "pages CPU faults migrated back to CPU memory", U64, TOT, U(cpu_fault_pages), NULL, host_present},
	{"cpu_duplicated_pages", "pages", "CPU read duplicates", "read-mostly pages a CPU read copied while the GPU kept its copy", U64, TOT, U(cpu_duplicated_pages), NULL, host_present},
	{"cpu_invalidated_copies", "pages", "copies a CPU write dropped", "GPU read duplicates a CPU write invalidated (several GPUs)", U64, TOT, U(cpu_invalidated_copies), NULL, host_present},
	{"cpu_remote_bytes", "bytes", "CPU in-place bytes", "GPU-resident bytes of system memory the CPU reached in place over NVLink-C2C", U64, TOT, U(cpu_remote_bytes), NULL, host_present},
	{"remote_bytes", "bytes", "remote bytes", "bytes of those remote reads", U64, SUM, U(remote_bytes)},
	{"delayed_migrations", "pages", "delayed migrations", "pages read remotely instead of migrating (once per stay in host memory)", U64, SUM, U(delayed_migrations)},
	{"migrations_fault", "pages", "fault migrations", "pages migrated by a far fault (first touch or write)", U64, SUM, U(migrations_fault)},
	{"migrations_counter", "pages", "counter migrations", "pages migrated once their block's access counter reached the threshold", U64, SUM, U(migrations_counter)},
	{"counter_notices", "pages", "counter notices", "counter migrations served by notification while the access went on remotely (uvm.counter_migration = async)", U64, SUM, U(counter_notices)},
	{"notice_batches", "count", "notice batches", "batches the driver's access-counter bottom half serviced", U64, SUM, U(notice_batches)},
	{"migrations_prefetch", "pages", "prefetch migrations", "pages migrated by the prefetcher (= prefetched_pages)", U64, SUM, U(prefetched_pages)},
	{"pages_returned", "pages", "pages returned", "migrated pages that had been evicted before", U64, SUM, U(pages_returned)},
	{"counter_halvings", "count", "counter halvings", "times every access count was halved (saturation)", U64, SUM, U(counter_halvings)},
	{"round_trip_halvings", "count", "round-trip halvings", "times every round-trip count was halved", U64, SUM, U(round_trip_halvings)},
	{"hot_chunks", "count", "hot 64 KB blocks", "touched 64 KB blocks whose count reached t_s at the end", U64, 0, U(hot_chunks)},
	{"cold_chunks", "count", "cold 64 KB blocks", "touched 64 KB blocks below t_s at the end", U64, 0, U(cold_chunks)},
	{"allocations", NULL, NULL, NULL, EMIT, 0, 0, NULL, NULL, emit_allocations},
	{"thrash_events", "count", "thrashing events", "migration events the driver's thrashing detection counted", U64, SUM, U(thrash_events)},
	{"thrashing_pages", "pages", "thrashing pages", "pages marked thrashing", U64, SUM, U(thrashing_pages)},
	{"thrash_throttles", "count", "thrashing throttles", "faults delayed by a nap (thrashing mitigation)", U64, SUM, U(thrash_throttles)},
	{"thrash_pins", "pages", "thrashing pins", "pages pinned (mapped remotely) by thrashing mitigation", U64, SUM, U(thrash_pins)},
	{"stall_replay_seconds", "s", "replay stall", "summed wait of faulting translations for a far-fault MSHR", F64, SUM | SEC, U(stall_replay_cycles)},
	{"stall_fault_seconds", "s", "fault stall", "summed wait for the fault batch to start and be handled", F64, SUM | SEC, U(stall_fault_cycles)},
	{"stall_eviction_seconds", "s", "eviction stall", "summed wait for write-backs to free frames", F64, SUM | SEC, U(stall_eviction_cycles)},
	{"stall_pcie_seconds", "s", "PCIe stall", "summed wait for the page's transfer", F64, SUM | SEC, U(stall_pcie_cycles)},
	{"stall_blocked_seconds", "s", "blocked stall", "blocking fault model: time translations were held by the SM's blocked TLB", F64, SUM | SEC, U(stall_blocked_cycles)},
	{"fault_latency_in_timing", "bool", NULL, "fault latency is part of the simulated time (false: uvm.fault_accounting = posthoc)", BOOL, 0, U(latency_in_timing)},
	{"posthoc_fault_seconds", "s", "post-hoc fault time", "fault latency summed after the run (UVMSmart's accounting)", F64, SEC | TOT, U(posthoc_fault_cycles)},
	{"posthoc_total_seconds", "s", "kernel + fault time", "sim_seconds plus post-hoc fault time when it was left out of the timing", FN, 0, 0, posthoc_total},
	{"pcie_utilization", NULL, NULL, NULL, EMIT, 0, 0, NULL, NULL, emit_pcie_utilization},
	{"pcie_utilization.normalized_time[]", "ratio", "normalized runtime", "bin centres over the run, 0..1 (JSON only)", DOC},
	{"pcie_utilization.h2d[]", "ratio", "PCIe h2d utilization", "host-to-device lane busy fraction per bin (JSON only; Zheng Fig. 6)", DOC},
	{"pcie_utilization.d2h[]", "ratio", "PCIe d2h utilization", "device-to-host lane busy fraction per bin (JSON only)", DOC},
	{"pcie_h2d_utilization_mean", "ratio", "mean PCIe h2d utilization", "host-to-device lane busy fraction over the run", FN, 0, 0, h2d_mean},
	{"pcie_d2h_utilization_mean", "ratio", "mean PCIe d2h utilization", "device-to-host lane busy fraction over the run", FN, 0, 0, d2h_mean},
};

static uint32_t active(const struct gpuvm_stats *st) { return st->uvm.active; }

const struct gpuvm_counter_section gpuvm_uvm_section = {
	"uvm", GPUVM_STAT_RUN, false, GPUVM_COUNTER_ROWS(rows), active,
	offsetof(struct gpuvm_stats, uvm), 0, 1,
};
