/* The host link's transfer rates: pure functions of a transfer's size and
 * the link's raw rate, defined by the host link (src/link/link_rate.c)
 * and used by the link itself, the UVM driver's migrations and the scope
 * model. */
#ifndef GPUVM_LINK_RATE_H
#define GPUVM_LINK_RATE_H

#include <stdbool.h>
#include <stdint.h>

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
