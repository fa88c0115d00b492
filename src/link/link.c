/* The host link's lanes and zero-copy packets (link.h holds the
 * contract). */
#include "link/link.h"

#include <string.h>

#include "gpuvm/link_rate.h"
#include "link/pcie_tlp.h"

int link_init(struct host_link *l, const struct gpuvm_config *cfg, struct gpuvm_stats *stats)
{
	memset(l, 0, sizeof *l);
	l->stats = stats;
	double clock_hz = cfg->clock_mhz * 1e6;
	l->spec.clock_hz = clock_hz;
	l->spec.raw_gb_s = cfg->pcie_bandwidth_gb_s;
	l->spec.curve = cfg->uvm_pcie_model == GPUVM_UVM_LINK_CURVE;
	/* pcie.bandwidth_gb_s is the raw rate: bulk payload gets what a
	 * pinned transfer achieves of it (gpuvm_pcie_effective_gb_s) */
	l->spec.cycles_per_byte = clock_hz / (gpuvm_pcie_effective_gb_s(cfg->pcie_bandwidth_gb_s) * 1e9);
	l->spec.latency_cycles = cfg->pcie_latency_ns * 1e-9 * clock_hz;
	l->spec.cycles_per_wire_byte = clock_hz / (gpuvm_pcie_wire_gb_s(cfg->pcie_bandwidth_gb_s) * 1e9);
	l->spec.return_cycles = cfg->load_base_latency_cycles / 2;
	l->spec.sector_bytes = cfg->l2_sector_bytes;
	l->spec.line_shift = (uint32_t)__builtin_ctz(cfg->l2_line_bytes);
	l->tlp_instr = UINT64_MAX;
	l->spec.clock_mhz = cfg->clock_mhz;
	/* a cudaMemcpy's fixed time where the preset states one, else the
	 * link latency (the model before pcie.copy_latency_us) */
	l->spec.copy_latency_cycles = cfg->pcie_copy_latency_us > 0 ? cfg->pcie_copy_latency_us * cfg->clock_mhz
							       : l->spec.latency_cycles;
	if (cfg->c2c_coherent) {
		/* the host link is NVLink-C2C (c2c.coherent): bulk transfers at
		 * its rate per direction, flat (the transfer-size curve and the
		 * achieved fraction are PCIe measurements, link_rate.h), and
		 * packets at the same rate; its latency where one is given */
		l->spec.c2c = true;
		l->spec.raw_gb_s = cfg->c2c_bandwidth_gb_s;
		l->spec.cycles_per_byte = clock_hz / (cfg->c2c_bandwidth_gb_s * 1e9);
		l->spec.cycles_per_wire_byte = l->spec.cycles_per_byte;
		if (cfg->c2c_latency_ns > 0)
			l->spec.latency_cycles = cfg->c2c_latency_ns * 1e-9 * clock_hz;
		if (cfg->pcie_copy_latency_us <= 0)
			l->spec.copy_latency_cycles = l->spec.latency_cycles;
		/* a copy engine's transfer does not reach the link's rate, and
		 * not the same rate both ways (GH200: host-to-device about 15 %
		 * faster, NVIDIA/nvbandwidth issue 23); where a measured rate
		 * is given, copies take it */
		l->spec.copy_gb_s[LINK_H2D] = cfg->c2c_copy_h2d_gb_s;
		l->spec.copy_gb_s[LINK_D2H] = cfg->c2c_copy_d2h_gb_s;
	}
	if (link_lane_init(&l->lane[LINK_H2D]) || link_lane_init(&l->lane[LINK_D2H]))
		return -1;
	return 0;
}

void link_free(struct host_link *l)
{
	link_lane_free(&l->lane[LINK_H2D]);
	link_lane_free(&l->lane[LINK_D2H]);
}

double link_bulk_seconds(const struct host_link *l, uint64_t bytes)
{
	if (__builtin_expect(l->spec.c2c, 0))
		return (double)bytes / (l->spec.raw_gb_s * 1e9);
	return gpuvm_uvm_transfer_seconds(bytes, l->spec.raw_gb_s, l->spec.curve);
}

double link_copy_seconds(const struct host_link *l, enum link_dir d, uint64_t bytes)
{
	if (__builtin_expect(l->spec.copy_gb_s[d] > 0, 0))
		return (double)bytes / (l->spec.copy_gb_s[d] * 1e9);
	return link_bulk_seconds(l, bytes);
}

double link_copy(struct host_link *l, enum link_dir d, double t, uint64_t bytes)
{
	/* (seconds x MHz) x 1e6: the run loop's arithmetic before the copy
	 * booked the lane, so a copy alone on the lane ends at the same cycle */
	double hold = link_copy_seconds(l, d, bytes) * l->spec.clock_mhz * 1e6;
	double start = link_lane_bulk(&l->lane[d], t, &hold, &l->oom);
	return start + hold + l->spec.copy_latency_cycles;
}

/* A lane carrying wire bytes (payload plus TLP overhead) at the link's
 * raw rate less encoding and flow control (pcie_tlp.h), as a packet of
 * the lane's calendar: after whatever bulk transfer (a migration, a
 * write-back, a copy) holds the lane at its time (link_lane.h). */
static inline double wire(struct host_link *l, enum link_dir d, double t, uint64_t wire_bytes)
{
	double hold = (double)wire_bytes * l->spec.cycles_per_wire_byte;
	l->lane_busy[d] += hold;
	return link_lane_packet(&l->lane[d], t, hold) + hold;
}

/* One 32 B sector of host-pinned memory: uncached, straight over the
 * link as PCIe transaction-layer packets. The sectors one instruction
 * touches in one line travel as one TLP (the GPU asks for at most a
 * line); each TLP pays its header and framing, each read and atomic also
 * a request on the upstream lane and the round trip (Mokhtari's thesis,
 * seeds/001 6.6.4: zero-copy data "is transferred over many small PCIe
 * transactions, which is much costlier than a few bulky PCIe
 * transactions"). */
double link_zero_copy(struct host_link *l, const struct link_req *r)
{
	struct gpuvm_stats *s = l->stats;
	uint64_t line = r->sector_addr >> l->spec.line_shift;
	/* an atomic is one AtomicOp per sector: never merged */
	bool new_tlp = r->op == GPUVM_OP_ATOMIC || l->tlp_instr != r->instr || l->tlp_line != line;
	l->tlp_instr = r->instr;
	l->tlp_line = line;
	s->zero_copy_bytes += l->spec.sector_bytes;
	s->zero_copy_tlps += new_tlp;
	uint64_t payload = l->spec.sector_bytes;
	if (r->op == GPUVM_OP_STORE) {
		/* a posted write: payload and, for a new TLP, its header, on
		 * the upstream lane; it retires at once, the kernel ends when
		 * it has crossed (stores_done) */
		s->pcie_d2h_bytes += payload;
		double done = wire(l, LINK_D2H, r->t,
				   payload + (new_tlp ? PCIE_TLP_REQUEST_OVERHEAD_BYTES : 0)) +
			      l->spec.latency_cycles + l->spec.return_cycles;
		if (done > l->stores_done)
			l->stores_done = done;
		return done;
	}
	/* a read or an atomic: the request goes up (an AtomicOp's carries its
	 * operands), then its completion with the data (an AtomicOp's: the old
	 * value) comes down (link_zero_copy_atomics: one per lane) */
	double t = r->t;
	if (new_tlp) {
		uint64_t up = PCIE_TLP_REQUEST_OVERHEAD_BYTES;
		if (r->op == GPUVM_OP_ATOMIC) {
			payload = PCIE_ATOMIC_RESULT_BYTES;
			s->pcie_d2h_bytes += PCIE_ATOMIC_OPERAND_BYTES;
			up += PCIE_ATOMIC_OPERAND_BYTES;
		}
		t = wire(l, LINK_D2H, t, up);
	}
	s->pcie_h2d_bytes += payload;
	return wire(l, LINK_H2D, t, payload + (new_tlp ? PCIE_TLP_COMPLETION_OVERHEAD_BYTES : 0)) +
	       l->spec.latency_cycles + l->spec.return_cycles;
}

/* A PCIe AtomicOp carries one operand (PCI Express Base Specification
 * 3.0, 6.15: FetchAdd, Swap and CAS on a single 32- or 64-bit location),
 * so each lane is an AtomicOp of its own, even lanes on the same word,
 * which the GPU cannot merge over the link as its L2 merges them on
 * device memory; they pipeline on the link and the instruction has its
 * sector when the last completes. */
double link_zero_copy_atomics(struct host_link *l, const struct link_req *r,
			      uint32_t lanes_in_sector)
{
	if (!lanes_in_sector) /* no lane starts in it (a lane spanning two sectors) */
		return link_zero_copy(l, r);
	double done = r->t;
	for (uint32_t i = 0; i < lanes_in_sector; i++) {
		double d = link_zero_copy(l, r);
		if (d > done)
			done = d;
	}
	/* zero_copy_bytes counts the sector once */
	l->stats->zero_copy_bytes -= (uint64_t)(lanes_in_sector - 1) * l->spec.sector_bytes;
	return done;
}
