/* Physically implausible simulated values of gpuvm calibrate
 * (calib_rows.h: calib_flag_implausible): a row's value checked against
 * the preset's own peaks, whatever was published. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/calib_rows.h"
#include "gpuvm/config.h"

/* The preset's L2 rate in bytes per SM clock: its slices' total (the
 * store rate for writes), and with a port per SM, no more than sms of
 * them pass; 0 where the preset sets no L2 throughput (l2.slices = 0). */
static double l2_peak_bytes_per_clk(const struct gpuvm_config *cfg, bool write, double sms)
{
	if (!cfg->l2_slices)
		return 0;
	double slice = write && cfg->l2_slice_write_bytes_per_cycle > 0
			       ? cfg->l2_slice_write_bytes_per_cycle
			       : cfg->l2_slice_bytes_per_cycle;
	double peak = cfg->l2_slices * slice;
	double port = write ? cfg->l2_sm_port_write_bytes_per_cycle : cfg->l2_sm_port_bytes_per_cycle;
	if (port > 0 && sms * port < peak)
		peak = sms * port;
	return peak;
}

/* Whether row r's simulated value is physically impossible for the
 * preset, whatever was published: a duration of zero or less, a rate
 * above the preset's own peak (its DRAM's for DRAM streams, its L2
 * slices' for L2 rows, its link's for host copies). A preset that sets no
 * L2 throughput has no L2 peak: an L2 row that reaches its SMs' own load
 * and store rate (l1_bytes_per_cycle) measures the SMs, not an L2, and is
 * flagged as such. The reason is written into why. */
static bool implausible(const struct row *r, const struct gpuvm_config *cfg, const char *gpu,
			char *why, size_t len)
{
	const char *q = r->quantity;
	double v = r->sim, mhz = cfg->clock_mhz;
	bool duration = !strcmp(r->unit, "cycles") || !strcmp(r->unit, "us") ||
			!strcmp(r->unit, "ns");
	/* an "extra" is a difference of two latencies: 0 is a possible answer */
	if (duration && v <= 0 && !strstr(q, "extra")) {
		if (!strncmp(q, "empty_kernel", 12) || !strcmp(q, "kernel_launch_cycles"))
			snprintf(why, len, "zero time: %s sets no kernel front-end nor CTA launch "
				 "cost (gpu.kernel_frontend_cycles = gpu.cta_launch_cycles = 0) and an "
				 "empty kernel runs no instruction", gpu);
		else
			snprintf(why, len, "a duration of %g %s: none can be zero or less", v, r->unit);
		return true;
	}
	if (!strcmp(r->unit, "fraction") && !strcmp(q, "stream_triad_fraction_of_peak") && v > 1.005) {
		snprintf(why, len, "%.3f of the DRAM peak: above it", v);
		return true;
	}
	bool gbs = !strcmp(r->unit, "GB/s"), bpc = !strcmp(r->unit, "B/clk");
	if (!gbs && !bpc)
		return false;
	if (gbs && (!strncmp(q, "stream_", 7) || !strncmp(q, "dram_", 5)) &&
	    v > cfg->dram_bandwidth_gb_s * 1.005) {
		snprintf(why, len, "above %s's DRAM peak, %g GB/s (dram.bandwidth_gb_s)", gpu,
			 cfg->dram_bandwidth_gb_s);
		return true;
	}
	if (gbs && !strncmp(q, "h2d_", 4) && v > cfg->pcie_bandwidth_gb_s * 1.005) {
		snprintf(why, len, "above %s's link rate, %g GB/s (pcie.bandwidth_gb_s)", gpu,
			 cfg->pcie_bandwidth_gb_s);
		return true;
	}
	if (strncmp(q, "l2_", 3))
		return false;
	bool write = strstr(q, "write") != NULL;
	/* the SMs that ran: x CTAs of one per SM, or every SM */
	double sms = isfinite(r->x) && r->x > 0 && r->x < cfg->sms ? r->x : cfg->sms;
	double rate_bpc = bpc ? v : v * 1e3 / mhz; /* GB/s -> bytes per SM clock */
	double peak = l2_peak_bytes_per_clk(cfg, write, sms);
	if (peak > 0 && rate_bpc > peak * 1.005) {
		snprintf(why, len, "above %s's L2 peak, %.0f B/clk = %.0f GB/s (l2.slices x "
			 "%s bytes per cycle)", gpu, peak, peak * mhz / 1e3,
			 write && cfg->l2_slice_write_bytes_per_cycle > 0 ? "slice_write" : "slice");
		return true;
	}
	double sm_side = sms * cfg->l1_bytes_per_cycle;
	if (peak == 0 && rate_bpc >= 0.95 * sm_side) {
		snprintf(why, len, "%s sets no L2 throughput (l2.slices = 0): this is its SMs' own "
			 "rate (l1.bytes_per_cycle %.0f x %.0f SMs at %.0f MHz = %.0f GB/s), no L2's", gpu,
			 cfg->l1_bytes_per_cycle, sms, mhz, sm_side * mhz / 1e3);
		return true;
	}
	return false;
}

/* Flags the preset's implausible rows (from first on): status
 * "implausible" where nothing was published, the reason in the note;
 * a compared row keeps its verdict, the reason going into its note. */
void calib_flag_implausible(struct calib *c, size_t first, const struct gpuvm_config *cfg,
			    const char *gpu)
{
	for (size_t i = first; i < c->n; i++) {
		struct row *r = &c->rows[i];
		char why[sizeof r->note - 16];
		if (r->kind == K_CURVE || !isfinite(r->sim) || *r->note ||
		    !implausible(r, cfg, gpu, why, sizeof why))
			continue;
		if (!strcmp(r->status, "no-ref"))
			r->status = "implausible";
		snprintf(r->note, sizeof r->note, "implausible: %s", why);
	}
}
