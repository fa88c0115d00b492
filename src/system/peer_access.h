/* Peer access on a system of several GPUs (cudaDeviceEnablePeerAccess):
 * a kernel on GPU g loads and stores a device allocation of GPU h in
 * place, each sector over the NVLink / NVSwitch route between them.
 *
 * Contract:
 *  - Owns: which GPU may access which GPU's device memory (one direction
 *    per enable, as CUDA's), each GPU's port (link/peer_port.h) that the
 *    SM layer calls for a GPUVM_ALLOC_PEER sector, and the entries of
 *    that kind it puts in the accessing GPU's allocation table: a copy of
 *    each live device allocation of the peer, its owner in peer_device.
 *    So the accessing GPU translates the peer's pages with its own TLBs
 *    and walker (its own page-table entries pointing at the peer's
 *    memory), then sends the sector over the route.
 *  - Timing: a load books the route's lanes from h to g, a store (or an
 *    atomic) from g to h, one sector at a time (32 B: no primary source
 *    for NVLink's request granularity was read, so the GPU's sector is
 *    the request), at the route's raw rate, plus the route's latency_ns
 *    where the system file gives one, else the GPU's
 *    uvm.remote_latency_cycles (the seeds' remote access, as
 *    c2c.latency_ns falls back to it); a load also waits for the peer's
 *    memory: its L2 (in front of every access to a GPU's DRAM) and DRAM,
 *    the peer preset's l2.hit_latency_cycles + dram.latency_cycles, as a
 *    local L2 miss costs, read there before the sector crosses; so no
 *    peer load returns sooner than a load of the GPU's own DRAM. The
 *    lanes are peer_link.h's, the same peer copies and remote mappings
 *    book, so the three contend.
 *    Not modelled: the peer's L2 contents (a sector it holds would
 *    return without the DRAM latency) and its DRAM's bandwidth (not
 *    booked), NVLink's packet headers,
 *    caching the peer's data in the accessing GPU's L1 or L2 (a peer
 *    sector goes around both).
 *  - Refused: a pair no NVLink / NVSwitch joins (CUDA may enable peer
 *    access over PCIe; gpuvm does not model PCIe peer-to-peer), naming
 *    the pair. An access without the enable is refused by the SIMT
 *    executor, naming the allocation and both GPUs.
 *  - May call: the allocation table (mem/alloc_table.h), the GPU-GPU
 *    links (link/peer_link.h). */
#ifndef GPUVM_SYSTEM_PEER_ACCESS_H
#define GPUVM_SYSTEM_PEER_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/error.h"
#include "gpuvm/stats.h"
#include "gpuvm/stream.h"
#include "link/peer_link.h"
#include "link/peer_port.h"
#include "mem/alloc_table.h"

struct peer_access;

/* One GPU's side: its port (first member: the port's callback finds
 * the rest from it), its allocation table, its clock and counters. */
struct peer_gpu {
	struct peer_port port;
	struct peer_access *pa;
	uint32_t gpu;
	double hz;
	double fallback_s; /* latency when the route gives none (s) */
	double memory_s;   /* its L2-miss path (s): a peer's load of its memory waits for it */
	struct alloc_table *allocs;
	struct gpuvm_peer_access_stats *st;
};

struct peer_access {
	struct peer_link *pl;
	uint32_t n;
	uint64_t on[GPUVM_RUN_MAX_DEVICES]; /* [g] bit h: g's kernels reach h's memory */
	struct peer_gpu *gpus;              /* [n] */
};

/* gpus[d] filled by the caller after: allocs, hz, fallback_s, st. */
int peer_access_init(struct peer_access *pa, struct peer_link *pl, uint32_t n);
void peer_access_free(struct peer_access *pa);
/* cudaDeviceEnablePeerAccess(h) on GPU g: h's live device allocations
 * (h_allocs) become peer entries of g's table; *port is set to g's port
 * (the caller's SM layer). 0, or -1 with a message naming the pair. */
int peer_access_enable(struct peer_access *pa, uint32_t g, uint32_t h,
		       const struct alloc_table *h_allocs, struct peer_port **port,
		       struct gpuvm_error *err);
/* A device allocation a made on GPU h: a peer entry for each GPU that
 * reaches h (0, or -1 with a message); its free. */
int peer_access_alloc(struct peer_access *pa, uint32_t h, const struct gpuvm_alloc *a,
		      struct gpuvm_error *err);
void peer_access_free_alloc(struct peer_access *pa, uint32_t h, uint64_t base);

#endif
