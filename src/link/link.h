/* The host link: PCIe (or any serial host interconnect) between the GPU
 * and host memory, one lane per direction that every host transfer books.
 *
 * Contract:
 *  - Owns: both lanes (link_lane.h: a calendar of packets and bulk
 *    transfers), the packet framing of requests that cross the link one
 *    sector at a time (pcie_tlp.h: a TLP's header, link-layer and framing
 *    bytes), the zero-copy packet merging state and the lane time the
 *    kernels' own packets took.
 *  - Requests: link_zero_copy (one 32 B sector of host-pinned memory, a
 *    load, store or atomic, leaving the GPU side at t) and
 *    link_zero_copy_atomics answer when the data is back at the SM (a
 *    store: when it has crossed); link_copy books a synchronous copy and
 *    answers when it is in; link_bulk_seconds is the transfer-size curve
 *    of a bulk transfer (copies, migrations, write-backs) with
 *    pcie.bandwidth_gb_s and uvm.pcie_model. The UVM driver books its
 *    migrations, write-backs and remote reads on the same lanes, which the
 *    system builder hands it (uvm_hooks.lanes). A request touches only the
 *    link's own state; this is the seam a parallel engine turns into a
 *    timestamped message to the link.
 *  - May call: src/mem/server_pool.h (the packet calendar); the bulk
 *    transfer-size curve is its own (link_rate.c, gpuvm/link_rate.h:
 *    gpuvm_uvm_transfer_seconds, gpuvm_pcie_effective_gb_s), which the
 *    UVM driver's migrations use too; it writes its counters into the
 *    run's gpuvm_stats (zero_copy_*, pcie_*_bytes).
 *  - Guarantees: every transfer of one direction takes the earliest free
 *    lane capacity at or after its own time, whoever sent it and in
 *    whatever order the requests came (link_lane.h), so zero-copy packets,
 *    migrations, write-backs, remote reads and synchronous copies contend:
 *    throughput is one lane's per direction. The posted writes of a kernel
 *    have crossed by link_stores_done.
 *  - With c2c.coherent the link is NVLink-C2C: its rate per direction is
 *    c2c.bandwidth_gb_s for bulk transfers and packets alike, flat (no
 *    transfer-size curve, no PCIe achieved fraction), and its latency
 *    c2c.latency_ns where one is given; otherwise nothing of [c2c] is
 *    read. Copies (link_copy_seconds: cudaMemcpy and cudaMemcpyAsync, not
 *    migrations or remote reads) take c2c.copy_h2d_gb_s and
 *    c2c.copy_d2h_gb_s where they are set, a copy engine's measured rate
 *    per direction.
 *  - Asynchronous copies (link/copy_stream.c) are resolved after the
 *    kernels beside them and get the lane time those kernels' traffic left
 *    (link_lane_busy plus the driver's transfers at the bulk rate):
 *    kernels' traffic goes first. */
#ifndef GPUVM_LINK_LINK_H
#define GPUVM_LINK_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/stats.h"
#include "gpuvm/stream.h"
#include "link/link_lane.h"

enum link_dir { LINK_H2D = 0, LINK_D2H = 1 };

/* What link_init derives from the config, fixed from then on: read by
 * every request, written by none (the spec of the link, apart from its
 * state below; Akita's Spec/State split, docs/architecture.md "Spec and
 * state"). */
struct host_link_spec {
	double clock_mhz;
	double cycles_per_wire_byte;  /* packets: raw rate less encoding and flow control */
	double cycles_per_byte;       /* bulk payload (gpuvm_pcie_effective_gb_s) */
	double latency_cycles;        /* pcie.latency_ns */
	double copy_latency_cycles;   /* a synchronous copy's fixed time (pcie.copy_latency_us) */
	double return_cycles;         /* back from the link to the SM (load_base / 2) */
	double raw_gb_s, clock_hz;
	bool curve;                   /* uvm.pcie_model = curve */
	bool c2c;                     /* c2c.coherent: the link is NVLink-C2C, flat rate */
	double copy_gb_s[2];          /* [enum link_dir] a copy's measured rate (c2c.copy_*_gb_s); 0: the bulk rate */
	uint32_t sector_bytes, line_shift;
};

struct host_link {
	struct link_lane lane[2];     /* [enum link_dir] */
	bool oom;                     /* a lane could not grow; the run reports it */
	struct host_link_spec spec;
	/* lane time (cycles) kernels' own packets have taken of each
	 * direction: what an asynchronous copy beside the kernel cannot have
	 * (copy_stream.h) */
	double lane_busy[2];
	/* when the last zero-copy store has crossed: a store retires at once,
	 * but the kernel is not done before its writes are (the launch
	 * boundary orders them before the host or the next launch) */
	double stores_done;
	/* the memory instruction whose sector made the last TLP, and its
	 * line: a sector of the same line in the same instruction joins that
	 * TLP (pcie_tlp.h) */
	uint64_t tlp_instr, tlp_line;
	struct gpuvm_stats *stats;
};

int link_init(struct host_link *l, const struct gpuvm_config *cfg, struct gpuvm_stats *stats);
void link_free(struct host_link *l);

/* One zero-copy request: a sector of host-pinned memory, its operation,
 * the memory instruction it belongs to (a count the SM layer keeps: the
 * sectors of one instruction in one line travel as one TLP) and when it
 * reaches the link. */
struct link_req {
	uint64_t sector_addr;
	enum gpuvm_mem_op op;
	uint64_t instr;
	double t;
};

/* When the sector's data is back at the SM (a store: when it crossed). */
double link_zero_copy(struct host_link *l, const struct link_req *r);
/* An atomic instruction's lanes_in_sector lanes on one sector of
 * host-pinned memory, each an AtomicOp of its own (0: a lane spanning two
 * sectors, one AtomicOp); when the last is back. */
double link_zero_copy_atomics(struct host_link *l, const struct link_req *r,
			      uint32_t lanes_in_sector);

/* Seconds a bulk transfer of bytes takes on a free lane (the
 * transfer-size curve of uvm.pcie_model, gpuvm_uvm_transfer_seconds). */
double link_bulk_seconds(const struct host_link *l, uint64_t bytes);

/* A synchronous copy of bytes on direction d from t (the host waits for
 * it): its end, its fixed time (pcie.copy_latency_us, else
 * pcie.latency_ns) included. */
double link_copy(struct host_link *l, enum link_dir d, double t, uint64_t bytes);
/* A copy's transfer time in direction d: link_bulk_seconds, or the
 * direction's measured copy rate where c2c.copy_*_gb_s sets one. */
double link_copy_seconds(const struct host_link *l, enum link_dir d, uint64_t bytes);

/* Lane time the kernels' packets have taken of direction d so far. */
static inline double link_lane_busy(const struct host_link *l, enum link_dir d)
{
	return l->lane_busy[d];
}

/* When the posted writes issued so far have crossed (0: none). */
static inline double link_stores_done(const struct host_link *l)
{
	return l->stores_done;
}

#endif
