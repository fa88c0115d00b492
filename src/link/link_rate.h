/* The host link's transfer rates (owned by the host link, src/link): the
 * measured fraction of the raw PCIe rate a large pinned transfer achieves
 * and UVMSmart's transfer-size curve. The public entry points,
 * gpuvm_pcie_effective_gb_s and gpuvm_uvm_transfer_seconds, are declared
 * in gpuvm/link_rate.h and defined in link_rate.c; the UVM driver's own
 * migration rate (uvm.migration_gb_s) scales the curve's arctangent,
 * which is why it is here and inline. */
#ifndef GPUVM_LINK_RATE_H_INTERNAL
#define GPUVM_LINK_RATE_H_INTERNAL

#include <math.h>
#include <stdint.h>

/* pcie.bandwidth_gb_s is the raw link rate (PCIe 3.0 x16 = 16 GB/s, Gen4 =
 * 32, Gen5 = 64; 1 GB = 1e9 bytes). What a large pinned copy achieves of
 * it, measured (GPUInspector.jl docs/src/devices/v100_sxm2.md, a100_sxm2.md): 12.14 GiB/s
 * = 13.04 GB/s on PCIe 3.0 x16 (V100-SXM2) = 0.815 of 16; 24.33 GiB/s =
 * 26.12 GB/s on Gen4 (A100) = 0.816 of 32. The flat model uses it. */
#define PCIE_ACHIEVED_FRACTION 0.815
/* UVMSmart's curve: a = 12/24/48 GiB/s for 16/32/64 GB/s links
 * (UVMSmart gpu-sim.cc, the PCIe speed curve); its asymptote 12 GiB/s = 0.805 of
 * 16 GB/s agrees with the measured fraction above to 1 %. */
#define CURVE_A_PER_RAW 0.75

/* UVMSmart's curve (gpu-sim.cc: speed = a x 2 / pi x atan(b x KiB), b =
 * 0.07292): the arctangent of a transfer of `bytes`. Each caller scales
 * it in its own order of operations, which its results' last bits keep. */
static inline double link_curve_atan(uint64_t bytes)
{
	return atan(0.07292 * (double)bytes / 1024.0);
}

#endif
