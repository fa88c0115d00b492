/* The memory side: memory partitions behind an address map. A partition
 * is what a GPU memory controller and its L2 slices are: it holds one L2
 * (its slices' capacity together, src/mem/l2_cache.h) and its DRAM
 * channels (src/mem/dram_model.h, or with dram.banks = 0 one bandwidth
 * queue). Addresses are cut into mem.partition_interleave bytes and the
 * chunks dealt to the mem.partitions partitions in turn (or, with
 * mem.partition_hash = xor, each run of mem.partitions chunks dealt out
 * in a hashed order); inside a partition the chunk index is divided by
 * the partition count, so each partition sees a dense address space of
 * its own (its L2 sets and DRAM channels spread over all of it). With
 * mem.partition_hash = on a chunk's partition is a hash of its number and
 * a partition keeps the global addresses (memsys_route).
 *
 * Contract:
 *  - Owns: the partitions' L2 slices, DRAM channels and their calendars.
 *    Nothing else reads or writes them; the SM layer, the page-table walk
 *    and the UVM driver reach them only through the functions below, and
 *    no caller reads or writes a field of struct memsys to pass a result.
 *  - Requests: one 32 B sector (memsys_access, memsys_access_fresh,
 *    memsys_load_run_sector, memsys_pte_read, memsys_store_held), each
 *    with the time it leaves the SM (or the walker); the answer is the
 *    time its data is back at the SM (stores: when the L2 has it). A held
 *    store's answer (struct memsys_store_rsp) also carries what held it:
 *    its own write-back and slice waits, of this request alone, returned
 *    by value (not left in struct memsys). A request touches only
 *    the partition its address maps to, so two requests to different
 *    partitions never wait for each other, and two to one partition
 *    queue on its DRAM channels. This is the seam a parallel engine turns
 *    into a timestamped message to the partition.
 *  - May call: nothing outside src/mem (the L2 and DRAM models); it
 *    writes its counters into the run's gpuvm_stats (l2_sector_*,
 *    dram_bytes, walk_pte_*, uvm.l2_*).
 *  - Guarantees: with one partition (k80, gtx680, gtx-titan-black,
 *    gtx1080ti-uvmsmart, gem5gpu-neidty; p100 and v100 have 8 dealt by
 *    mem.partition_hash = xor, a100 and h100 2, docs/architecture.md's
 *    table checked by tests/cli/contracts.sh) an address is its own
 *    partition address and each request takes exactly the path the single
 *    L2 and DRAM of engine.c took before (gpuvm 1b4e3ad), so results are
 *    bit-identical.
 *  - The L2's LRU clock doubles as the UVM driver's stale-line stamp
 *    (l2_cache_access_fresh): memsys_l2_epoch brings every partition's
 *    clock to the latest, so a stamp taken there orders every partition's
 *    lines (used before: at or below it; after: above). */
#ifndef GPUVM_MEMSYS_H
#define GPUVM_MEMSYS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/later.h"
#include "core/req_trace.h"
#include "core/splitmix.h"
#include "gpuvm/config.h"
#include "gpuvm/stats.h"
#include "mem/dram_access.h"
#include "mem/dram_model.h"
#include "mem/l2_cache.h"
#include "mem/server_pool.h"

/* L2 misses of one load waiting to go to a partition's DRAM together:
 * consecutive sectors of one DRAM interleave chunk that reached the DRAM
 * at the same time (dram_model_read_run). Addresses are global. */
struct memsys_run {
	uint64_t addr, next;
	uint64_t local; /* addr in its partition's own addresses */
	uint32_t n;
	double t;
};

/* One address the L2's atomic unit serves (l2.atomic_address_cycles):
 * until `free` it is busy with atomics to it, and the next waits. */
struct memsys_atom_way {
	uint64_t addr;
	double free;
};

/* The atomic unit's memory of busy addresses: sets of this many ways.
 * An address whose last atomic has ended needs no entry (no one waits
 * for it), so a set loses a queue only when more than this many of its
 * addresses are busy at once. */
#define MEMSYS_ATOM_WAYS 4u
#define MEMSYS_ATOM_SETS 256u

struct mem_partition {
	struct l2_cache l2;          /* the partition's L2 slices */
	/* l2.atomic_address_cycles: its atomic unit's busy addresses
	 * ([MEMSYS_ATOM_SETS x MEMSYS_ATOM_WAYS]; NULL: no per-address
	 * queue) */
	struct memsys_atom_way *atom;
	/* l2.slices: each slice's port, one server taking a sector per
	 * l2_slice_cycles (NULL: no throughput limit) */
	struct server_pool *slices;
	struct server_pool dram;     /* dram.banks = 0: its channels as one queue */
	struct dram_model dram_banks; /* dram.banks > 0: channels, banks, rows */
	/* the run of a load's misses this partition's controller gathers
	 * (memsys_run_sector); n = 0 between loads */
	struct memsys_run run;
	/* l2.in_flight = wait: per L2 sector slot (l2_cache_slot) the cycle
	 * its last fill from DRAM arrives at the L2 (-INFINITY: none on its
	 * way); NULL with hit */
	double *fill_ready;
};

struct memsys {
	struct mem_partition *part;
	uint32_t n_parts;
	uint32_t part_shift;         /* log2(mem.partition_interleave) */
	bool part_hash;              /* mem.partition_hash = on */
	bool part_xor;               /* mem.partition_hash = xor */
	uint32_t part_pow2, part_log2; /* n_parts a power of two, and its log2 */
	bool dram_banked;
	uint32_t sector_bytes;
	double dram_cycles_per_sector, dram_latency;
	/* SM to L2 and back, each way half of load_base_latency (the
	 * crossbar and pipeline of any global access) */
	double crossbar_cycles;
	double l2_hit;
	/* l2.slices: the slices of a partition, the cycles one holds a
	 * sector, and log2 of the line (a line's sectors share a slice) */
	uint32_t slices_per_part;
	double l2_slice_cycles;
	/* l2.slice_write_bytes_per_cycle: a store's sector holds its slice
	 * this long, and is held in its SM until the slice takes it (0: a
	 * store takes its slice as a read does, and is not held for it) */
	double l2_slice_write_cycles;
	uint64_t l2_bytes; /* all partitions' L2 (memsys_copy_fill) */
	/* how much later than its run's first sector a miss may reach the
	 * L2's output and still join the run, per sector already in it: a
	 * slice port cycle and an SM port cycle (l2.sm_port_bytes_per_cycle) */
	double run_gap_cycles;
	uint32_t l2_line_shift;
	/* l2.atomic_address_cycles: one atomic's turn at its address in the
	 * L2's atomic unit (0: no per-address queue) */
	double atomic_address_cycles;
	/* near and far partitions (mem.far_latency_cycles > 0, two
	 * partitions): each SM's near partition, and what a request served
	 * by the far one adds (see memsys_access_near_far) */
	bool near_far;
	double far_cycles;
	double far_home_dram_cycles; /* mem.far_home_dram: far_cycles, or 0 */
	/* l2.writeback_stall: an access whose fill evicts dirty sectors waits
	 * while their write-back queues in the DRAM (a held store's answer,
	 * struct memsys_store_rsp, says how long) */
	bool writeback_stall;
	uint8_t *near_of_sm; /* [sms] */
	struct gpuvm_stats *stats;
};

/* What held one held store's sector (memsys_store_held), filled by the
 * request's own path: the longest its fill's write-backs queued in the
 * DRAM (l2.writeback_stall) and how long past its arrival it waited for
 * its slice (l2.slice_write_bytes_per_cycle with l2.writeback_stall).
 * Requests nobody asks this of pass NULL, which the inlined path folds
 * away. */
struct memsys_waits {
	double writeback_cycles;
	double slice_cycles;
};

/* The answer to a held store's sector request (memsys_store_held). */
struct memsys_store_rsp {
	double done; /* when the L2 has it, plus the crossbar back */
	struct memsys_waits held;
};

int memsys_init(struct memsys *ms, const struct gpuvm_config *cfg, struct gpuvm_stats *stats);
void memsys_free(struct memsys *ms);

/* Copies the banked DRAM models' counts, summed over the partitions, into
 * stats->dram (the models count on their own; call before reading it). */
void memsys_sync_stats(struct memsys *ms);

/* The partition serving addr, and addr in that partition's own address
 * space (*local). One partition: addr itself, no arithmetic. */
static inline __attribute__((always_inline)) struct mem_partition *
memsys_route(const struct memsys *ms, uint64_t addr, uint64_t *local)
{
	if (__builtin_expect(ms->n_parts == 1, 1)) {
		*local = addr;
		return ms->part;
	}
	uint64_t chunk = addr >> ms->part_shift;
	uint64_t low = addr & (((uint64_t)1 << ms->part_shift) - 1);
	if (ms->part_xor) {
		/* mem.partition_hash = xor: the run of n chunks this one is in
		 * gives one chunk to each partition, in an order a hash of the
		 * run's number permutes (the channels' map, dram_spread), so
		 * the chunk is its partition's run-th */
		uint64_t run;
		uint32_t p = dram_spread(chunk, ms->n_parts, ms->part_pow2, ms->part_log2, &run);
		*local = run << ms->part_shift | low;
		return ms->part + p;
	}
	if (ms->part_hash) {
		/* mem.partition_hash: the chunk's partition from a mix of its
		 * number (SplitMix64's finalizer); a partition's lines keep
		 * their global address, so its L2 sets and channels are
		 * spread by the address as before */
		*local = addr;
		return ms->part + splitmix64_mix(chunk * SPLITMIX64_GAMMA) % ms->n_parts;
	}
	*local = (chunk / ms->n_parts) << ms->part_shift | low;
	return ms->part + chunk % ms->n_parts;
}

/* Starts loading addr's L2 set into the host cache (changes no result). */
static inline void memsys_l2_prefetch(const struct memsys *ms, uint64_t addr)
{
	uint64_t local;
	const struct mem_partition *p = memsys_route(ms, addr, &local);
	if (__builtin_expect(ms->near_far, 0)) {
		/* lines are kept under their global address in both */
		l2_cache_prefetch(&ms->part[0].l2, addr);
		l2_cache_prefetch(&ms->part[1].l2, addr);
		return;
	}
	l2_cache_prefetch(&p->l2, local);
}

/* One DRAM sector read of partition p (local address): its channel and
 * bank (row hit or miss), or with dram.banks = 0 one bandwidth queue and
 * the latency. Forced inline: gcc otherwise splits the banked read into
 * a call of its own (~25 host instructions a sector in saves, restores
 * and argument moves). */
static inline __attribute__((always_inline)) double
memsys_dram_sector(struct memsys *ms, struct mem_partition *p, uint64_t local, double t)
{
	ms->stats->dram_bytes += ms->sector_bytes;
	if (ms->dram_banked)
		return dram_read_sector(&p->dram_banks, local, t);
	return server_pool_reserve(&p->dram, t, ms->dram_cycles_per_sector) + ms->dram_latency;
}

double memsys_writeback_sectors(struct memsys *ms, struct mem_partition *p, uint64_t local,
				uint32_t sectors, double t, struct memsys_waits *w);

/* A victim's dirty sectors written back at t; returns when the L2 line
 * they left is free (memsys_writeback_sectors; t when nothing was dirty).
 * Most L2 accesses evict nothing dirty: the test stays in line. */
static inline double memsys_writeback(struct memsys *ms, struct mem_partition *p, uint64_t local,
				      uint32_t sectors, double t, struct memsys_waits *w)
{
	if (sectors)
		return memsys_writeback_sectors(ms, p, local, sectors, t, w);
	return t;
}

/* When the L2 slice of addr (partition p's own address, or the global
 * one with near and far partitions) takes a sector arriving at t, which
 * holds it `hold` cycles: a slice's port serves one read sector per
 * l2_slice_cycles (memsys_l2_slice), so a burst that
 * exceeds the slices' rate queues (Accel-Sim's tuner, l2_bw: a TITAN V
 * reads its L2 at 89-90 % of 48 slices x 32 B a cycle). Lines spread over
 * the slices by a multiplicative hash, as the hardware hashes addresses so
 * that strides do not pile onto one slice. Walks' page-table reads
 * (memsys_pte_read) do not take a slice. t itself without l2.slices. */
static inline __attribute__((always_inline)) double
memsys_l2_slice_for(struct memsys *ms, struct mem_partition *p, uint64_t addr, double t, double hold)
{
	if (__builtin_expect(!p->slices, 1))
		return t;
	uint64_t line = addr >> ms->l2_line_shift;
	uint32_t i = (uint32_t)(((line * 0x9E3779B97F4A7C15ull) >> 32) % ms->slices_per_part);
	/* older than the slice's calendar keeps (a request after a far fault
	 * booked it far ahead): no one to meet (server_pool_keeps) */
	if (!server_pool_keeps(&p->slices[i], t))
		return t;
	return server_pool_reserve(&p->slices[i], t, hold);
}

static inline __attribute__((always_inline)) double
memsys_l2_slice(struct memsys *ms, struct mem_partition *p, uint64_t addr, double t)
{
	return memsys_l2_slice_for(ms, p, addr, t, ms->l2_slice_cycles);
}

/* A store's sector (a write that fetches nothing) at its slice. With
 * l2.slice_write_bytes_per_cycle the slice takes stores at their own rate
 * (an H100's whole L2 takes 16-byte stores at about half the rate it
 * serves 16-byte loads: cuda/hwbench.cu l2, docs/hardware.md), and with
 * l2.writeback_stall the store stays in its SM until the slice takes it,
 * recorded in w->slice_cycles: a store stream cannot run ahead of the
 * slices, as the boards' cannot. */
static inline __attribute__((always_inline)) double
memsys_l2_slice_store(struct memsys *ms, struct mem_partition *p, uint64_t addr, double t,
		      struct memsys_waits *w)
{
	if (__builtin_expect(ms->l2_slice_write_cycles <= 0, 1))
		return memsys_l2_slice(ms, p, addr, t);
	double at = memsys_l2_slice_for(ms, p, addr, t, ms->l2_slice_write_cycles);
	if (w && ms->writeback_stall && at - t > w->slice_cycles)
		w->slice_cycles = at - t;
	return at;
}

/* The slice a sector of a write (write) that fetches nothing (!fetch)
 * takes as a store, any other as a read. */
static inline __attribute__((always_inline)) double
memsys_l2_slice_op(struct memsys *ms, struct mem_partition *p, uint64_t addr, bool write,
		   bool fetch, double t, struct memsys_waits *w)
{
	return write && !fetch ? memsys_l2_slice_store(ms, p, addr, t, w)
			       : memsys_l2_slice(ms, p, addr, t);
}

/* l2.in_flight = wait (gem5-gpu: configs/gpu_protocol/VI_hammer_fusion.py's
 * GPU L2 is src/mem/protocol/VI_hammer-GPUL2cache.sm, whose
 * "transition({IM, IS, OI, MI, II}, {Get, Store, Replacement})
 * zz_stallAndWaitRequestQueue" holds a request to a block whose GETS is
 * out until its Data wakes it, kd_wakeUpDependents): the sector's data is
 * there at the later of the hit (ready: its slice, hit latency and
 * write-backs) and the arrival of its fill still on its way. A miss that
 * fetches records when its fill arrives; a store's allocation (no fetch)
 * has nothing on its way. Banked DRAM's gathered runs record their
 * sectors when the run is sent (memsys_flush_part_run; a hit on a sector
 * of the still open run sends it first); near and far partitions keep
 * each copy's arrival (memsys_access_near_far). */
static inline double memsys_l2_fill_wait(struct mem_partition *p, uint64_t local, double ready)
{
	double f = p->fill_ready[l2_cache_slot(&p->l2, local)];
	/* INFINITY: in a run still open (memsys_run_sector), which only
	 * that run's own load reads; another reader is not kept waiting
	 * for a time not known yet */
	return f > ready && f != INFINITY ? f : ready;
}

/* l2.in_flight = wait: the sectors in mask of the line at line_addr (the
 * key the partition keeps it under) are there, nothing on its way: a
 * line a copy wrote, or one moved in whole from the other partition. */
static inline void memsys_fill_arrived(struct mem_partition *p, uint64_t line_addr, uint8_t mask,
				       uint64_t sector_bytes)
{
	for (uint32_t s = 0; s < p->l2.sectors_per_line; s++)
		if (mask >> s & 1)
			p->fill_ready[l2_cache_slot(&p->l2, line_addr + s * sector_bytes)] = -INFINITY;
}

static inline double memsys_after_l2_wait(struct memsys *ms, struct mem_partition *p,
					  uint64_t local, bool fetch, double ready, enum l2_result r)
{
	double *slot = &p->fill_ready[l2_cache_slot(&p->l2, local)];
	if (r == L2_HIT) {
		ms->stats->l2_sector_hits++;
		/* INFINITY: in a still open run, as memsys_l2_fill_wait */
		return (*slot > ready && *slot != INFINITY ? *slot : ready) + ms->crossbar_cycles;
	}
	ms->stats->l2_sector_misses++;
	*slot = -INFINITY;
	if (!fetch)
		return ready + ms->crossbar_cycles; /* write-allocate, no fetch */
	*slot = memsys_dram_sector(ms, p, local, ready);
	return *slot + ms->crossbar_cycles;
}

/* The L2 result of one sector, from the L2 on: DRAM write-backs, hit or
 * miss, the fill from DRAM; at_mem is when the request reaches the L2. */
static inline __attribute__((always_inline)) double
memsys_after_l2(struct memsys *ms, struct mem_partition *p, uint64_t local, bool fetch,
		double at_mem, enum l2_result r, uint32_t wb, struct memsys_waits *w)
{
	double ready = memsys_writeback(ms, p, local, wb, at_mem + ms->l2_hit, w);
	if (__builtin_expect(p->fill_ready != NULL, 0))
		return memsys_after_l2_wait(ms, p, local, fetch, ready, r);
	if (r == L2_HIT) {
		ms->stats->l2_sector_hits++;
		return ready + ms->crossbar_cycles;
	}
	ms->stats->l2_sector_misses++;
	if (!fetch)
		return ready + ms->crossbar_cycles; /* write-allocate, no fetch */
	return memsys_dram_sector(ms, p, local, ready) + ms->crossbar_cycles;
}

/* memsys_access with near and far partitions (memsys.c): the SM's near
 * partition first, a miss probes the far one, a miss in both reads DRAM
 * at the line's home partition. block_through as memsys_access_fresh
 * (0: no stale lines to drop); w as memsys_access_local. */
double memsys_access_near_far(struct memsys *ms, uint32_t sm, uint64_t sector_addr, bool write,
			      bool fetch, double t, uint32_t block_through,
			      const uint32_t *page_through, struct memsys_waits *w);

/* memsys_access once routed, without near and far partitions: partition
 * p's local address (memsys_route). w: where this request's waits go
 * (a held store, memsys_store_held_local), or NULL. */
static inline __attribute__((always_inline)) double
memsys_access_local_waits(struct memsys *ms, struct mem_partition *p, uint64_t local, bool write,
			  bool fetch, double t, struct memsys_waits *w)
{
	uint32_t wb = 0;
	enum l2_result r = l2_cache_access(&p->l2, local, write, &wb);
	return memsys_after_l2(ms, p, local, fetch,
			       memsys_l2_slice_op(ms, p, local, write, fetch, t + ms->crossbar_cycles, w),
			       r, wb, w);
}

static inline __attribute__((always_inline)) double
memsys_access_local(struct memsys *ms, struct mem_partition *p, uint64_t local, bool write,
		    bool fetch, double t)
{
	return memsys_access_local_waits(ms, p, local, write, fetch, t, NULL);
}

/* A held store (l2.writeback_stall) of partition p's local address,
 * leaving its SM at t: memsys_access_local of a store, answered with
 * what held it (the split barrier's partition tasks, sm_split.c). */
static inline __attribute__((always_inline)) struct memsys_store_rsp
memsys_store_held_local(struct memsys *ms, struct mem_partition *p, uint64_t local, double t)
{
	struct memsys_store_rsp rsp = {0, {0, 0}};
	rsp.done = memsys_access_local_waits(ms, p, local, true, false, t, &rsp.held);
	return rsp;
}

/* A sector request of device memory from SM sm (logical id) leaving it
 * at t: write marks the L2 sector dirty, fetch reads it from DRAM on a
 * miss (loads, atomics; a store allocates without a fetch). Returns when
 * its data is back (a store: when the L2 has it). */
static inline __attribute__((always_inline)) double
memsys_access(struct memsys *ms, uint32_t sm, uint64_t sector_addr, bool write, bool fetch,
	      double t)
{
	REQ_TRACE_DOWN("memsys", "memsys_access");
	if (__builtin_expect(ms->near_far, 0))
		t = memsys_access_near_far(ms, sm, sector_addr, write, fetch, t, 0, NULL, NULL);
	else {
		uint64_t local;
		struct mem_partition *p = memsys_route(ms, sector_addr, &local);
		t = memsys_access_local(ms, p, local, write, fetch, t);
	}
	REQ_TRACE_UP("memsys", "memsys_access");
	return t;
}

/* The L2's atomic unit and one address (l2.atomic_address_cycles; the
 * caller checks it is on): `ops` atomics to the word at addr (lanes of
 * one instruction on it), their data at the L2 at t, are performed one
 * after another, each atomic_address_cycles, after the atomics to the
 * same address that came before (the hardware serializes atomics to one
 * address: "each read/modify/write to that location occurs and they are
 * all serialized", NVIDIA Nsight VSE, Memory Statistics - Atomics;
 * Kepler GK110 performs "one operation per clock" to a common address,
 * its whitepaper). Atomics to distinct addresses do not wait for one
 * another here (their sectors queue on the slices as any access).
 * Returns when the last of the ops is done. Requests reach it somewhat
 * out of time order (as every queue of the memory side): an earlier one
 * handled later still waits for the address's busy time, so a queue
 * can be longer than the hardware's by that reordering; with one op per
 * cycle it is short. Each partition keeps the addresses it serves, so
 * the split barrier's partition tasks (sm_split.c) touch only their own. */
static inline double memsys_atomic_address(struct memsys *ms, uint64_t addr, double t, uint32_t ops)
{
	uint64_t local;
	struct mem_partition *p = memsys_route(ms, addr, &local);
	uint32_t set = (uint32_t)((addr * 0x9E3779B97F4A7C15ull) >> 40) & (MEMSYS_ATOM_SETS - 1);
	struct memsys_atom_way *w = p->atom + (size_t)set * MEMSYS_ATOM_WAYS, *v = w;
	for (uint32_t i = 0; i < MEMSYS_ATOM_WAYS; i++) {
		if (w[i].addr == addr && w[i].free > -INFINITY) {
			v = w + i;
			goto found;
		}
		if (w[i].free < v->free)
			v = w + i; /* the way free soonest: a finished address loses nothing */
	}
	v->addr = addr;
	v->free = t;
found:;
	double start = later(t, v->free);
	v->free = start + ops * ms->atomic_address_cycles;
	return v->free;
}

/* A store's sector from SM sm leaving it at t while stores are held
 * (l2.writeback_stall): memsys_access of a store, answered with when the
 * L2 has it and what held it (the SM layer holds the warp that long). */
static inline __attribute__((always_inline)) struct memsys_store_rsp
memsys_store_held(struct memsys *ms, uint32_t sm, uint64_t sector_addr, double t)
{
	REQ_TRACE_DOWN("memsys", "memsys_store_held");
	struct memsys_store_rsp rsp = {0, {0, 0}};
	if (__builtin_expect(ms->near_far, 0)) {
		rsp.done = memsys_access_near_far(ms, sm, sector_addr, true, false, t, 0, NULL,
						  &rsp.held);
	} else {
		uint64_t local;
		struct mem_partition *p = memsys_route(ms, sector_addr, &local);
		rsp.done = memsys_access_local_waits(ms, p, local, true, false, t, &rsp.held);
	}
	REQ_TRACE_UP("memsys", "memsys_store_held");
	return rsp;
}

/* memsys_access for managed memory whose frame may have changed since
 * the L2 cached it: the UVM driver's stamps (uvm_l2_stale_through) drop
 * stale lines first. block_through 0: nothing of its block is stale. */
static inline __attribute__((always_inline)) double
memsys_access_fresh(struct memsys *ms, uint32_t sm, uint64_t sector_addr, bool write, bool fetch,
		    double t, uint32_t block_through, const uint32_t *page_through)
{
	REQ_TRACE_DOWN("memsys", "memsys_access_fresh");
	REQ_TRACE_UP("memsys", "memsys_access_fresh"); /* noted together: the path below has
							   * several returns */
	if (__builtin_expect(ms->near_far, 0))
		return memsys_access_near_far(ms, sm, sector_addr, write, fetch, t, block_through,
					      page_through, NULL);
	uint64_t local;
	struct mem_partition *p = memsys_route(ms, sector_addr, &local);
	uint32_t wb = 0;
	enum l2_result r;
	if (block_through) {
		uint32_t stale_sectors = 0, stale_dirty = 0;
		r = l2_cache_access_fresh(&p->l2, local, write, &wb, block_through, page_through,
					  &stale_sectors, &stale_dirty);
		ms->stats->uvm.l2_sectors_invalidated += stale_sectors;
		ms->stats->uvm.l2_dirty_sectors_written += stale_dirty;
	} else {
		r = l2_cache_access(&p->l2, local, write, &wb);
	}
	return memsys_after_l2(ms, p, local, fetch,
			       memsys_l2_slice_op(ms, p, local, write, fetch, t + ms->crossbar_cycles, NULL),
			       r, wb, NULL);
}

/* Sends partition p's open run (if any) to its DRAM; returns when its
 * data is back at the SM, or -INFINITY when none was open. */
static inline double memsys_flush_part_run(struct memsys *ms, struct mem_partition *p)
{
	struct memsys_run *r = &p->run;
	if (!r->n)
		return -INFINITY;
	ms->stats->dram_bytes += (uint64_t)r->n * ms->sector_bytes;
	double at_l2 = dram_model_read_run(&p->dram_banks, r->local, r->n, r->t);
	if (p->fill_ready) /* l2.in_flight = wait: the run's sectors arrive with it */
		for (uint32_t i = 0; i < r->n; i++) {
			uint32_t slot = l2_cache_slot_if_here(&p->l2, r->local + i * ms->sector_bytes);
			if (slot != UINT32_MAX)
				p->fill_ready[slot] = at_l2;
		}
	r->n = 0;
	return at_l2 + ms->crossbar_cycles;
}

/* The end of a load's sectors: every partition's open run sent (in
 * partition order; each touches only its own partition). The latest of
 * done and their results. */
static inline double memsys_flush_runs(struct memsys *ms, double done)
{
	REQ_TRACE_DOWN("memsys", "memsys_flush_runs");
	REQ_TRACE_UP("memsys", "memsys_flush_runs");
	for (uint32_t i = 0; i < ms->n_parts; i++)
		done = later(memsys_flush_part_run(ms, &ms->part[i]), done);
	return done;
}

/* One device sector of a load that bypasses the L1, with banked DRAM,
 * leaving the SM at t, through its partition p's L2 (local: sa in p's own
 * addresses, memsys_route). A hit returns when its
 * data is back; a miss joins the partition's open run (or, where it does
 * not extend it, the open run is sent, into *flushed, and a new one
 * opened) and returns -INFINITY: its time is its run's. *flushed is
 * -INFINITY when nothing was sent. Each partition gathers its own misses
 * (a memory controller queues its own requests), so a sector of another
 * partition between two of this one's neither extends nor sends its run;
 * with one partition this is the single run the issue path always had. */
static inline __attribute__((always_inline)) double
memsys_run_sector(struct memsys *ms, struct mem_partition *p, uint64_t sa, uint64_t local,
		  double t, double *flushed)
{
	*flushed = -INFINITY;
	uint32_t wb = 0;
	enum l2_result r = l2_cache_access(&p->l2, local, false, &wb);
	double ready = memsys_writeback(ms, p, local, wb,
					memsys_l2_slice(ms, p, local, t + ms->crossbar_cycles) + ms->l2_hit,
					NULL);
	if (r == L2_HIT) {
		ms->stats->l2_sector_hits++;
		if (__builtin_expect(p->fill_ready != NULL, 0)) {
			/* l2.in_flight = wait: a sector of the open run has no
			 * arrival time until the run is sent */
			double *slot = &p->fill_ready[l2_cache_slot(&p->l2, local)];
			if (*slot == INFINITY)
				*flushed = memsys_flush_part_run(ms, p);
			ready = later(*slot, ready);
		}
		return ready + ms->crossbar_cycles;
	}
	ms->stats->l2_sector_misses++;
	if (__builtin_expect(p->fill_ready != NULL, 0)) /* on its way with the run */
		p->fill_ready[l2_cache_slot(&p->l2, local)] = INFINITY;
	struct memsys_run *run = &p->run;
	uint32_t chunk_shift = p->dram_banks.spec.interleave_shift;
	/* a line's sectors leave their slice (and their SM's port) one port
	 * cycle apart: still one run, sent at its first sector's time
	 * (exactly equal without l2.slices and l2.sm_port_bytes_per_cycle) */
	if (run->n && sa == run->next && ready >= run->t &&
	    ready - run->t <= (double)run->n * ms->run_gap_cycles &&
	    sa >> chunk_shift == run->addr >> chunk_shift &&
	    (ms->n_parts == 1 || sa >> ms->part_shift == run->addr >> ms->part_shift)) {
		run->n++;
	} else {
		*flushed = memsys_flush_part_run(ms, p);
		run->addr = sa;
		run->local = local;
		run->n = 1;
		run->t = ready;
	}
	run->next = sa + ms->sector_bytes;
	return -INFINITY;
}

/* memsys_run_sector for the issue path: the latest of done and what is
 * known back so far; memsys_flush_runs sends the last runs. Near and far
 * partitions take each sector on its own path (near, far, home) and
 * gather nothing. */
static inline __attribute__((always_inline)) double
memsys_load_run_sector(struct memsys *ms, uint32_t sm, uint64_t sa, double t, double done)
{
	if (__builtin_expect(ms->near_far, 0))
		return later(memsys_access_near_far(ms, sm, sa, false, true, t, 0, NULL, NULL), done);
	uint64_t local;
	struct mem_partition *p = memsys_route(ms, sa, &local);
	double flushed, d = memsys_run_sector(ms, p, sa, local, t, &flushed);
	return later(later(d, flushed), done);
}

/* l2.copy_fill: the data a copy wrote to device memory at [addr, addr +
 * bytes), finished at t, left in the L2 as dirty lines at their home
 * partitions (the copy engine writes through the L2, which is write-back:
 * GPGPU-Sim's -gpgpu_perf_sim_memcpy, on in Accel-Sim's configurations).
 * Of a copy larger than the L2 only its last L2-size part is filled: the
 * earlier lines would have been evicted by the copy's own later ones.
 * Victims' dirty sectors are written back at t. */
void memsys_copy_fill(struct memsys *ms, uint64_t addr, uint64_t bytes, double t);

/* A page-table entry's sector read by a walk at t: 0 when the L2 holds
 * it, else the DRAM access's time. */
double memsys_pte_read(struct memsys *ms, uint64_t sector_addr, double t);

/* The L2 clock as a stamp ordering every partition's lines (see the
 * contract); brings the partitions' clocks to the latest. */
uint32_t memsys_l2_epoch(struct memsys *ms);

/* The partition index of addr (tests, reports). */
uint32_t memsys_partition_of(const struct memsys *ms, uint64_t addr);

#endif
