/* The host link's rates (gpuvm/link_rate.h; link/link_rate.h holds the
 * constants and their sources). Pure functions: no state. They were the
 * UVM driver's (src/uvm/uvm_lane.c) until the host link, which calls them
 * too, took them: a lower layer may not call up (docs/layers.tsv). */
#include "gpuvm/link_rate.h"
#include "link/link_rate.h"

#include <math.h>

double gpuvm_pcie_effective_gb_s(double raw_gb_s)
{
	return PCIE_ACHIEVED_FRACTION * raw_gb_s;
}

double gpuvm_uvm_transfer_seconds(uint64_t bytes, double bandwidth_gb_s, bool curve)
{
	if (!curve)
		return (double)bytes / (gpuvm_pcie_effective_gb_s(bandwidth_gb_s) * 1e9);
	/* UVMSmart gpu-sim.cc: a = 12/24/48 for 16/32/64 GB/s raw links; the
	 * curve itself turns the raw rate into the achieved one (asymptote a
	 * GiB/s = 0.805 of raw), so its input is the raw rate */
	double a = CURVE_A_PER_RAW * bandwidth_gb_s;
	double speed_gb_s = 2.0 * a / M_PI * link_curve_atan(bytes);
	return (double)bytes / (speed_gb_s * 1073741824.0);
}
