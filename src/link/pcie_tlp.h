/* PCIe transaction-layer packets of zero-copy accesses: the bytes a TLP
 * adds to its payload, and the rate the link moves wire bytes at. */
#ifndef GPUVM_LINK_PCIE_TLP_H
#define GPUVM_LINK_PCIE_TLP_H

#include "gpuvm/link_rate.h"

/* A memory request (write, read request, AtomicOp) to host memory above
 * 4 GB: 4-DW header 16 B, data link layer 2 B sequence number + 4 B LCRC,
 * PCIe 3.0 framing token (STP) 4 B (PCI Express Base Specification 3.0,
 * 2.2.1 and 4.2.2.3.3; no ECRC, no TLP prefix). */
#define PCIE_TLP_REQUEST_OVERHEAD_BYTES 26u
/* A completion: 3-DW header 12 B + 2 + 4 + 4 (same sections). */
#define PCIE_TLP_COMPLETION_OVERHEAD_BYTES 22u
/* An AtomicOp (a GPU atomic on host-pinned memory) carries its operands
 * and its completion returns the old value: a 64-bit CompareAndSwap, the
 * largest the table's atomics need, sends compare and swap values, 2 x 8 B,
 * and gets 8 B back (PCIe 3.0 spec 6.15). */
#define PCIE_ATOMIC_OPERAND_BYTES 16u
#define PCIE_ATOMIC_RESULT_BYTES 8u
/* Bulk copies move max-payload TLPs; the maximum payload size assumed is
 * 256 B, what x86 root ports and NVIDIA GPUs commonly negotiate (an
 * assumption: no measurement of the thesis's host is available). */
#define PCIE_MAX_PAYLOAD_BYTES 256u

/* The rate of wire bytes (payload plus TLP overhead): the measured bulk
 * rate (gpuvm_pcie_effective_gb_s, 0.815 of raw) is payload of
 * max-payload TLPs, so the link moves (256 + 26) / 256 wire bytes per
 * payload byte at that rate (0.898 of raw: 128b/130b encoding, DLLPs and
 * flow-control credits take the rest). A zero-copy stream of full 256 B
 * TLPs thus runs at the copy rate; smaller TLPs pay their overhead. */
static inline double gpuvm_pcie_wire_gb_s(double raw_gb_s)
{
	return gpuvm_pcie_effective_gb_s(raw_gb_s) *
	       (double)(PCIE_MAX_PAYLOAD_BYTES + PCIE_TLP_REQUEST_OVERHEAD_BYTES) / PCIE_MAX_PAYLOAD_BYTES;
}

#endif
