/* The paging part of a run's report: the "uvm" object (counts, stall time
 * by cause, post-hoc fault accounting, PCIe utilisation over normalized
 * runtime) and the Zheng-Fig.-6-style utilisation figure. */
#include "gpuvm/report.h"

#include <math.h>
#include <string.h>

#include "gpuvm/plot.h"

#define UTIL_POINTS 100

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

void gpuvm_report_uvm(cJSON *o, const struct gpuvm_config *cfg, const struct gpuvm_stats *st)
{
	const struct gpuvm_uvm_stats *u = &st->uvm;
	if (!u->active)
		return;
	double hz = cfg->clock_mhz * 1e6;
	cJSON *j = cJSON_AddObjectToObject(o, "uvm");
	cJSON_AddNumberToObject(j, "far_faults", (double)u->far_faults);
	cJSON_AddNumberToObject(j, "fault_batches", (double)u->fault_batches);
	cJSON_AddNumberToObject(j, "nacks", (double)u->nacks);
	cJSON_AddNumberToObject(j, "pages_h2d", (double)u->pages_h2d);
	cJSON_AddNumberToObject(j, "pages_d2h", (double)u->pages_d2h);
	cJSON_AddNumberToObject(j, "pages_evicted", (double)u->pages_evicted);
	cJSON_AddNumberToObject(j, "prefetched_pages", (double)u->prefetched_pages);
	cJSON_AddNumberToObject(j, "prefetched_used", (double)u->prefetched_used);
	cJSON_AddNumberToObject(j, "prefetched_unused", (double)u->prefetched_unused);
	cJSON_AddNumberToObject(j, "thrashed_pages", (double)u->thrashed_pages);
	cJSON_AddNumberToObject(j, "transfers_h2d", (double)u->transfers_h2d);
	cJSON_AddNumberToObject(j, "transfers_d2h", (double)u->transfers_d2h);
	cJSON_AddNumberToObject(j, "bytes_h2d", (double)u->bytes_h2d);
	cJSON_AddNumberToObject(j, "bytes_d2h", (double)u->bytes_d2h);
	cJSON_AddNumberToObject(j, "capacity_pages", (double)u->capacity_pages);
	cJSON_AddNumberToObject(j, "peak_resident_pages", (double)u->peak_resident_pages);
	cJSON_AddNumberToObject(j, "pages_copied_in", (double)u->pages_copied_in);
	cJSON_AddNumberToObject(j, "l2_sectors_invalidated", (double)u->l2_sectors_invalidated);
	cJSON_AddNumberToObject(j, "l2_dirty_sectors_written", (double)u->l2_dirty_sectors_written);
	cJSON_AddBoolToObject(j, "prefetcher_switched", u->prefetcher_switched);
	cJSON_AddNumberToObject(j, "remote_accesses", (double)u->remote_accesses);
	cJSON_AddNumberToObject(j, "remote_map_faults", (double)u->remote_map_faults);
	cJSON_AddNumberToObject(j, "device_syncs", (double)u->device_syncs);
	cJSON_AddNumberToObject(j, "sync_writeback_pages", (double)u->sync_writeback_pages);
	cJSON_AddNumberToObject(j, "remote_bytes", (double)u->remote_bytes);
	cJSON_AddNumberToObject(j, "delayed_migrations", (double)u->delayed_migrations);
	cJSON_AddNumberToObject(j, "migrations_fault", (double)u->migrations_fault);
	cJSON_AddNumberToObject(j, "migrations_counter", (double)u->migrations_counter);
	cJSON_AddNumberToObject(j, "migrations_prefetch", (double)u->prefetched_pages);
	cJSON_AddNumberToObject(j, "pages_returned", (double)u->pages_returned);
	cJSON_AddNumberToObject(j, "counter_halvings", (double)u->counter_halvings);
	cJSON_AddNumberToObject(j, "round_trip_halvings", (double)u->round_trip_halvings);
	cJSON_AddNumberToObject(j, "hot_chunks", (double)u->hot_chunks);
	cJSON_AddNumberToObject(j, "cold_chunks", (double)u->cold_chunks);
	/* per allocation: its decisions and hot/cold class (the run-level
	 * names, so a sum over allocations gives the run's count) */
	cJSON *al = cJSON_AddArrayToObject(j, "allocations");
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
	cJSON_AddNumberToObject(j, "thrash_events", (double)u->thrash_events);
	cJSON_AddNumberToObject(j, "thrashing_pages", (double)u->thrashing_pages);
	cJSON_AddNumberToObject(j, "thrash_throttles", (double)u->thrash_throttles);
	cJSON_AddNumberToObject(j, "thrash_pins", (double)u->thrash_pins);
	cJSON_AddNumberToObject(j, "stall_replay_seconds", u->stall_replay_cycles / hz);
	cJSON_AddNumberToObject(j, "stall_fault_seconds", u->stall_fault_cycles / hz);
	cJSON_AddNumberToObject(j, "stall_eviction_seconds", u->stall_eviction_cycles / hz);
	cJSON_AddNumberToObject(j, "stall_pcie_seconds", u->stall_pcie_cycles / hz);
	cJSON_AddNumberToObject(j, "stall_blocked_seconds", u->stall_blocked_cycles / hz);
	cJSON_AddBoolToObject(j, "fault_latency_in_timing", u->latency_in_timing);
	double posthoc = u->posthoc_fault_cycles / hz;
	cJSON_AddNumberToObject(j, "posthoc_fault_seconds", posthoc);
	/* UVMSmart's Tot_kernel_exec_time_and_fault_time: meaningful when the
	 * latency was left out of the timing (uvm.fault_accounting = posthoc) */
	cJSON_AddNumberToObject(j, "posthoc_total_seconds",
				st->sim_seconds + (u->latency_in_timing ? 0 : posthoc));

	double T = st->sim_cycles;
	cJSON *pu = cJSON_AddObjectToObject(j, "pcie_utilization");
	cJSON *tn = cJSON_AddArrayToObject(pu, "normalized_time");
	cJSON *h = cJSON_AddArrayToObject(pu, "h2d");
	cJSON *d = cJSON_AddArrayToObject(pu, "d2h");
	double mean_h = 0, mean_d = 0;
	for (int i = 0; i < UTIL_POINTS; i++) {
		double lo = T * i / UTIL_POINTS, hi = T * (i + 1) / UTIL_POINTS;
		double fh = busy_fraction(u, u->util_h2d_busy_cycles, lo, hi);
		double fd = busy_fraction(u, u->util_d2h_busy_cycles, lo, hi);
		mean_h += fh / UTIL_POINTS;
		mean_d += fd / UTIL_POINTS;
		cJSON_AddItemToArray(tn, cJSON_CreateNumber((i + 0.5) / UTIL_POINTS));
		cJSON_AddItemToArray(h, cJSON_CreateNumber(fh));
		cJSON_AddItemToArray(d, cJSON_CreateNumber(fd));
	}
	cJSON_AddNumberToObject(j, "pcie_h2d_utilization_mean", mean_h);
	cJSON_AddNumberToObject(j, "pcie_d2h_utilization_mean", mean_d);
}

int gpuvm_report_pcie_plot(const cJSON *run, const char *path, struct gpuvm_error *err)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(run, "uvm");
	const cJSON *pu = cJSON_GetObjectItemCaseSensitive(u, "pcie_utilization");
	if (!pu)
		return gpuvm_fail(err, path, 0, NULL,
				  "the run used no managed memory, so there is no PCIe paging to plot "
				  "(use a workload with mem=managed)");
	static const char *const keys[] = {"normalized_time", "h2d", "d2h"};
	double v[3][UTIL_POINTS];
	for (int k = 0; k < 3; k++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(pu, keys[k]);
		int i = 0;
		const cJSON *e;
		cJSON_ArrayForEach(e, a) {
			if (i < UTIL_POINTS)
				v[k][i++] = e->valuedouble;
		}
		if (i != UTIL_POINTS)
			return gpuvm_fail(err, path, 0, NULL, "malformed utilisation series");
	}
	struct gpuvm_plot_series s[2] = {
		{"host to device (migrations)", v[0], v[1], UTIL_POINTS},
		{"device to host (write-backs)", v[0], v[2], UTIL_POINTS},
	};
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(run, "workload");
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(run, "gpu");
	char title[600], spec[300];
	gpuvm_plot_readable_spec(cJSON_IsString(wl) ? wl->valuestring : "?", spec, sizeof spec);
	snprintf(title, sizeof title, "PCIe utilization, %s on %s", spec,
		 cJSON_IsString(gpu) ? gpu->valuestring : "?");
	/* both axes are fractions 0..1: linear, whatever their spread */
	struct gpuvm_plot_opts o = {.title = title, .xlabel = "normalized runtime (0-1)",
				    .ylabel = "PCIe bandwidth utilization (0-1)", .fixed_scales = true};
	return gpuvm_plot_lines_opts(path, &o, s, 2, err);
}
