/* One sector served (sm.h holds the SM layer's contract): the path of a
 * translated 32 B sector from an SM to memory, through its L1 or straight
 * to the memory partitions, the host link or the UVM driver, and when the
 * instruction's result is then due. Shared by the issue path
 * (sm_issue.c: memory_instruction) and the barrier's second stage on its
 * own thread (sm_serve.c), so both serve a sector through the same code.
 * Inline: the hot path of the simulator. */
#ifndef GPUVM_SM_SECTOR_H
#define GPUVM_SM_SECTOR_H

#include <stdlib.h>

#include "core/later.h"
#include "mem/alloc_table.h"
#include "link/link.h"
#include "memsys/memsys.h"
#include "sm/sm.h"
#include "uvm/uvm.h"

/* A sector of managed memory: its page may still be on its way (the
 * driver sees the access), and L2 lines of a frame the page has left
 * since are dropped first (memsys_access_fresh): one request to the
 * driver (uvm_access_sector), whose response carries both, unless the
 * driver served it with its page's walk (the SM's booked slot, filled
 * through the translation's request: then no request). Out of line, so
 * the device path stays as it was. */
static __attribute__((noinline, unused)) double
access_managed_sector(struct sm_layer *sl, uint64_t sector_addr, enum gpuvm_mem_op op, double tx,
		      uint32_t sm)
{
	bool write = op != GPUVM_OP_LOAD;
	struct uvm_sector_slot *bk = &sl->booked;
	struct uvm_sector_rsp r;
	if (bk->booked) {
		/* served with the walk (translate_kind): what uvm_access_sector
		 * would answer, its ready the later of the page's arrival and
		 * tx as access_resident's */
		if (bk->sector_addr != sector_addr || bk->write != write)
			abort(); /* another sector than the one booked: a broken path */
		bk->booked = false;
		r = bk->rsp;
		r.ready = later(r.ready, tx);
	} else {
		r = uvm_access_sector(sl->port.uvm, sm, sector_addr, write, tx);
	}
	return memsys_access_fresh(sl->port.mem, sm, sector_addr, write, op != GPUVM_OP_STORE, r.ready,
				   r.block_through, r.page_through);
}

/* access_managed_sector with access counters, thrashing detection or hints
 * (uvm_counts): a read the driver leaves in host memory crosses the link
 * uncached, as zero-copy memory does; otherwise the same path. */
static __attribute__((noinline, unused)) double
access_counted_sector(struct sm_layer *sl, uint64_t sector_addr, enum gpuvm_mem_op op, double tx,
		      uint32_t sm)
{
	bool write = op != GPUVM_OP_LOAD;
	struct uvm_sector_rsp r = uvm_access_counted_sector(sl->port.uvm, sm, sector_addr, write,
							    op != GPUVM_OP_STORE, tx);
	if (r.remote)
		return r.ready + sl->crossbar_cycles;
	return memsys_access_fresh(sl->port.mem, sm, sector_addr, write, op != GPUVM_OP_STORE, r.ready,
				   r.block_through, r.page_through);
}

/* One sector of host-pinned memory: a request to the host link. */
static __attribute__((noinline, unused)) double
zero_copy_sector(struct sm_layer *sl, uint64_t sector_addr, enum gpuvm_mem_op op, double at_mem)
{
	struct link_req r = {.sector_addr = sector_addr, .op = op, .instr = sl->serve_instr,
			     .t = at_mem};
	return link_zero_copy(sl->port.link, &r);
}

/* One sector of a peer GPU's device memory (peer access): a request on
 * the GPU-GPU route (link/peer_port.h), a sector at a time, naming the
 * peer its entry names (the table's cached hit: the kind lookup that
 * brought the sector here found the entry). */
static __attribute__((noinline, unused)) double
peer_sector(struct sm_layer *sl, uint64_t sector_addr, enum gpuvm_mem_op op, double at_mem)
{
	return sl->port.peer->access(sl->port.peer,
				     alloc_table_peer_device(sl->port.allocs, sector_addr),
				     sector_addr, op != GPUVM_OP_LOAD, at_mem,
				     1u << sl->co.sector_shift);
}

/* An atomic instruction's lanes on one sector of host-pinned memory:
 * each an AtomicOp of its own on the link (link_zero_copy_atomics). */
static __attribute__((noinline, unused)) double zero_copy_atomics(struct sm_layer *sl,
							  const struct gpuvm_warp_item *it,
							  uint64_t sa, double at_mem)
{
	uint64_t sec = sa >> sl->co.sector_shift;
	uint32_t lanes = 0;
	for (uint32_t m = it->active_mask; m; m &= m - 1)
		lanes += it->addr[__builtin_ctz(m)] >> sl->co.sector_shift == sec;
	struct link_req r = {.sector_addr = sa, .op = GPUVM_OP_ATOMIC, .instr = sl->serve_instr,
			     .t = at_mem};
	return link_zero_copy_atomics(sl->port.link, &r, lanes);
}

/* l2.atomic_address_cycles: the wait of an atomic instruction's lanes
 * on sector sa at the L2's atomic unit, their data there at at_l2. Each
 * distinct address the lanes name takes its lanes' atomics in turn after
 * the atomics to it before them (memsys_atomic_address); the sector is
 * back when its last address is done. Returns the time beyond one
 * atomic's own turn (0 for a lone atomic to an idle address: its
 * read-modify-write is l2.atomic_latency_cycles, as before the key).
 * Device and managed memory (this GPU's L2); a peer's atomics are the
 * peer's L2's, which its port does not model. */
static __attribute__((noinline, unused)) double atomic_address_wait(struct sm_layer *sl,
							    const struct gpuvm_warp_item *it,
							    uint64_t sa, double at_l2)
{
	uint64_t sec = sa >> sl->co.sector_shift;
	uint64_t addr[GPUVM_WARP_LANES];
	uint32_t ops[GPUVM_WARP_LANES], n = 0;
	for (uint32_t m = it->active_mask; m; m &= m - 1) {
		uint64_t a = it->addr[__builtin_ctz(m)];
		if (a >> sl->co.sector_shift != sec)
			continue;
		uint32_t i = 0;
		while (i < n && addr[i] != a)
			i++;
		if (i == n) {
			addr[n] = a;
			ops[n++] = 0;
		}
		ops[i]++;
	}
	double last = at_l2 + sl->atomic_address_cycles;
	for (uint32_t i = 0; i < n; i++)
		last = later(last, memsys_atomic_address(sl->port.mem, addr[i], at_l2, ops[i]));
	return last - at_l2 - sl->atomic_address_cycles;
}

/* A sector's time on one of its SM's ports (a one-server calendar), ready
 * at t: when the port takes it. A request from before the calendar's
 * window (another warp's, booked while one waited out a far fault) meets
 * no one the port remembers. */
static inline __attribute__((always_inline)) double port_take(struct server_pool *port, double t,
							      double cycles)
{
	if (!server_pool_keeps(port, t))
		return t;
	return server_pool_reserve(port, t, cycles);
}

/* When a read sector leaving SM sm at t gets through the SM's port to the
 * L2 (l2.sm_port_bytes_per_cycle): one server per SM passing a sector per
 * l2_port_cycles, so an SM reading faster than its port queues whatever
 * the L2 could give. Mokhtari (seeds/001 5.1.3, Figs. 5.4 and 5.6) measures
 * it on a Kepler SMX: one SMX's L2 read throughput flattens at ~32 GB/s
 * from 512 threads on, and 15 SMX reach ~480 GB/s, 15 times one, "the
 * bottleneck is in the interconnect or in the SMX itself". Charged where
 * the request leaves, which gives the port's rate; stores (data going the
 * other way) take their own, l2_store_port. t itself without the key, or
 * when t is older than the port's calendar keeps. */
static inline __attribute__((always_inline)) double l2_port(struct sm_layer *sl, uint32_t sm,
							    double t)
{
	if (__builtin_expect(sl->l2_port_cycles == 0, 1))
		return t;
	return port_take(&sl->sm[sm].l2_port, t, sl->l2_port_cycles);
}

/* When SM sm's port passes a store sector ready at t
 * (l2.sm_port_write_bytes_per_cycle): one SM's 16-byte stores reach its
 * L2 at 63 GB/s alone on an H100, two thirds of its loads' 97
 * (cuda/hwbench.cu l2, docs/hardware.md). t without the key. */
static inline __attribute__((always_inline)) double l2_store_port(struct sm_layer *sl, uint32_t sm,
								  double t)
{
	if (__builtin_expect(sl->l2_store_port_cycles == 0, 1))
		return t;
	return port_take(&sl->sm[sm].l2_store_port, t, sl->l2_store_port_cycles);
}

/* Serves one 32 B sector whose translation is ready at tx: the request
 * goes to the UVM driver (managed), the host link (host-pinned) or the
 * memory partitions (device); a read takes the SM's L2 port first. */
static inline __attribute__((always_inline)) double
access_sector(struct sm_layer *sl, uint64_t sector_addr, enum gpuvm_mem_op op,
	      enum gpuvm_alloc_kind kind, double tx, uint32_t sm)
{
	if (op != GPUVM_OP_STORE)
		tx = l2_port(sl, sm, tx);
	if (__builtin_expect(kind == GPUVM_ALLOC_MANAGED, 0))
		return __builtin_expect(sl->uvm_counts, 0) ? access_counted_sector(sl, sector_addr, op, tx, sm)
							   : access_managed_sector(sl, sector_addr, op, tx, sm);
	if (kind == GPUVM_ALLOC_HOST_PINNED)
		return zero_copy_sector(sl, sector_addr, op, tx + sl->crossbar_cycles);
	if (__builtin_expect(kind == GPUVM_ALLOC_PEER, 0))
		return peer_sector(sl, sector_addr, op, tx + sl->crossbar_cycles);
	if (op == GPUVM_OP_STORE && sl->store_held) {
		/* it leaves the SM once its port passes it and the L2 has
		 * room for it: held as long as the write-back its fill caused
		 * queues in the DRAM (l2.writeback_stall) or, with the store
		 * direction's rates set, its port and its slice are busy
		 * (l2.sm_port_write_bytes_per_cycle,
		 * l2.slice_write_bytes_per_cycle); without them the crossbar's
		 * and slices' queues are buffered and hold nothing */
		double at = l2_store_port(sl, sm, tx);
		struct memsys_store_rsp rsp = memsys_store_held(sl->port.mem, sm, sector_addr, at);
		if (rsp.held.writeback_cycles > 0)
			sl->store_left = later(sl->store_left, at + rsp.held.writeback_cycles);
		if (at > tx || rsp.held.slice_cycles > 0) {
			/* the LSU sends a store's data on only as its port
			 * and slice take it: the warp waits for that */
			double left = at + rsp.held.slice_cycles;
			sl->store_left = later(sl->store_left, left);
			sl->store_issue_hold = later(sl->store_issue_hold, left);
		}
		return rsp.done;
	}
	return memsys_access(sl->port.mem, sm, sector_addr, op != GPUVM_OP_LOAD, op != GPUVM_OP_STORE,
			     tx);
}

/* How a sector meets the L1. */
enum l1_mode {
	L1_BYPASS = 0, /* not cached in L1 (the part's default, .CG, .CV, atomics) */
	L1_ALLOCATE,   /* loads allocate; stores write through */
	L1_EVICT_FIRST, /* .CS: allocate first in line for eviction */
	L1_LOCAL,      /* local memory: allocate, stores write back */
};

static inline enum l1_mode l1_mode_of(const struct sm_layer *sl, const struct gpuvm_warp_item *it)
{
	if (!sl->l1_on || it->op == GPUVM_OP_ATOMIC)
		return L1_BYPASS; /* atomics are performed at the L2 */
	if (it->space == GPUVM_SPACE_LOCAL)
		return L1_LOCAL;
	switch ((enum gpuvm_cache_op)it->cache_op) {
	case GPUVM_CACHE_ALL:
		return L1_ALLOCATE;
	case GPUVM_CACHE_STREAMING:
		return sl->l1_global ? L1_EVICT_FIRST : L1_BYPASS;
	case GPUVM_CACHE_GLOBAL:
	case GPUVM_CACHE_VOLATILE:
		return L1_BYPASS;
	case GPUVM_CACHE_DEFAULT:
		break;
	}
	return sl->l1_global ? L1_ALLOCATE : L1_BYPASS;
}

/* l1.fill = line (Fermi, Kepler): a load miss at sa brings the other
 * sectors of its line too, each an L2 access of its own (seeds/001 5.3.2:
 * "each cache miss results in four DRAM transactions"). Each sector the
 * L1 misses is allocated and fill(ctx, its address, its slot) asked for
 * its arrival, in the line's order (l1_sector serves it at once; the
 * barrier's split, sm_split.c, queues it). Always inline: fill is a
 * constant at each call. */
typedef void l1_line_fill_fn(void *ctx, uint64_t addr, double *slot);
static inline __attribute__((always_inline)) void
l1_fill_line_others(struct sm_layer *sl, struct gpuvm_stats *s, uint32_t sm, uint64_t sa,
		    enum l1_mode mode, l1_line_fill_fn *fill, void *ctx)
{
	uint64_t line_bytes = (uint64_t)1 << sl->l1.line_shift;
	uint64_t base = sa & ~(line_bytes - 1);
	for (uint64_t o = 0; o < line_bytes; o += sl->sector_bytes) {
		if (base + o == sa)
			continue;
		double r2, *s2;
		uint32_t wb2;
		if (l1_cache_access(&sl->l1, sm, base + o, true, mode == L1_EVICT_FIRST, false, &r2,
				    &s2, &wb2) == L1_MISS &&
		    s2)
			fill(ctx, base + o, s2);
		s->l1_writeback_sectors += wb2;
	}
}

/* l1_sector's fill of a line's other sectors: served now. */
struct line_fill_now {
	struct sm_layer *sl;
	enum gpuvm_mem_op op;
	enum gpuvm_alloc_kind kind;
	double tx;
	uint32_t sm;
};
static inline __attribute__((always_inline)) void fill_now(void *ctx, uint64_t addr, double *slot)
{
	struct line_fill_now *f = ctx;
	*slot = access_sector(f->sl, addr, f->op, f->kind, f->tx, f->sm);
}

/* One sector through the SM's L1: a hit is the L1 latency (or the fill
 * still on its way); a miss goes on to the L2 and fills the sector when
 * it returns. Global stores write through; local stores stay in L1 until
 * their line is evicted. */
static __attribute__((noinline, unused)) double l1_sector(struct sm_layer *sl, uint64_t sa,
						  enum gpuvm_mem_op op, enum gpuvm_alloc_kind kind,
						  double tx, uint32_t sm, enum l1_mode mode)
{
	double ready, *slot;
	uint32_t wb;
	bool write = op == GPUVM_OP_STORE;
	if (write && mode != L1_LOCAL) {
		l1_cache_write_through(&sl->l1, sm, sa, tx);
		return access_sector(sl, sa, op, kind, tx, sm);
	}
	enum l1_result r = l1_cache_access(&sl->l1, sm, sa, true, mode == L1_EVICT_FIRST, write,
					   &ready, &slot, &wb);
	if (wb) {
		/* dirty local data evicted: written to the L2 (its address is
		 * gone with the line, so only its traffic is kept) */
		sl->stats->l1_writeback_sectors += wb;
	}
	double hit = tx + sl->l1_hit;
	if (r == L1_HIT) {
		sl->stats->l1_sector_hits++;
		return ready > hit ? ready : hit;
	}
	sl->stats->l1_sector_misses++;
	if (write) {
		*slot = hit; /* write-allocate without a fetch: the thread wrote it */
		return hit;
	}
	double d = access_sector(sl, sa, op, kind, tx, sm);
	if (slot)
		*slot = d;
	if (sl->l1_fill_line) {
		struct line_fill_now f = {sl, op, kind, tx, sm};
		l1_fill_line_others(sl, sl->stats, sm, sa, mode, fill_now, &f);
	}
	return d;
}

/* One distinct sector of a memory instruction of SM sm, of allocation
 * kind `kind`, its translation ready at tx: through the L1 or straight to
 * the L2 (the caller counts it). */
static inline __attribute__((always_inline)) double
serve_sector_kind(struct sm_layer *sl, uint32_t sm, const struct gpuvm_warp_item *it, uint64_t sa,
		  enum gpuvm_alloc_kind kind, enum l1_mode l1mode, double tx)
{
	if (__builtin_expect(it->op == GPUVM_OP_ATOMIC, 0)) {
		if (kind == GPUVM_ALLOC_HOST_PINNED)
			return zero_copy_atomics(sl, it, sa, tx + sl->crossbar_cycles);
		/* performed at the L2 slice (atomics bypass the L1): the
		 * access, then the atomic unit's read-modify-write before the
		 * old value returns, after the atomics to the same addresses
		 * ahead of it (l2.atomic_address_cycles) */
		double d = access_sector(sl, sa, it->op, kind, tx, sm);
		if (__builtin_expect(sl->atomic_address_cycles > 0, 0) && kind != GPUVM_ALLOC_PEER)
			d += atomic_address_wait(sl, it, sa, d - sl->crossbar_cycles);
		return d + sl->l2_atomic_cycles;
	}
	double d = l1mode == L1_BYPASS || kind != GPUVM_ALLOC_DEVICE
			   ? access_sector(sl, sa, it->op, kind, tx, sm)
			   : l1_sector(sl, sa, it->op, kind, tx, sm, l1mode);
	/* a store's d is its ack back at the SM (memsys_access: the L2 has
	 * it, plus the crossbar back); host-pinned stores are posted writes
	 * over the link, whose ack the model has no source for: left out.
	 * Kept only where gpu.warp_exit_waits_stores reads it. */
	if (__builtin_expect(sl->exit_waits_stores, 0) && it->op == GPUVM_OP_STORE &&
	    kind != GPUVM_ALLOC_HOST_PINNED)
		sl->store_ack = later(sl->store_ack, d);
	return d;
}

/* serve_sector_kind with the sector's allocation looked up. */
static inline __attribute__((always_inline)) double
serve_sector(struct sm_layer *sl, uint32_t sm, const struct gpuvm_warp_item *it, uint64_t sa,
	     enum l1_mode l1mode, double tx)
{
	return serve_sector_kind(sl, sm, it, sa, alloc_table_kind(sl->port.allocs, sa), l1mode, tx);
}

/* One sector of ascending_load_runs: device memory's to its memory
 * partition's gathered DRAM runs (memsys_load_run_sector), the others
 * served one by one. A managed sector may read DRAM through its
 * partition's L2, so the open runs are sent first, keeping each
 * partition's DRAM order; a zero-copy sector reaches no partition and
 * neither extends nor sends a run (sm_split.c serves it on the link's
 * queue). kind: the sector's allocation, looked up once by the caller
 * (sm_issue.c sector_kind, or load_run_sector below). *runs_open: whether
 * this instruction may have runs open (a device sector went to them
 * since the last send; none are open when a load starts, memsys.h), so
 * an instruction of managed memory alone sends nothing and enters the
 * memory partitions once a sector. */
static inline __attribute__((always_inline)) double
load_run_sector_kind(struct sm_layer *sl, uint32_t sm, const struct gpuvm_warp_item *it,
		     uint64_t sa, enum gpuvm_alloc_kind kind, double tx, double done,
		     bool *runs_open)
{
	if (kind != GPUVM_ALLOC_DEVICE) {
		if (kind == GPUVM_ALLOC_MANAGED && *runs_open) {
			done = memsys_flush_runs(sl->port.mem, done);
			*runs_open = false;
		}
		return later(serve_sector_kind(sl, sm, it, sa, kind, L1_BYPASS, tx), done);
	}
	*runs_open = true;
	return memsys_load_run_sector(sl->port.mem, sm, sa, l2_port(sl, sm, tx), done);
}

/* load_run_sector_kind with the sector's allocation looked up (the
 * barrier's second stage, sm_serve.c). */
static inline __attribute__((always_inline)) double
load_run_sector(struct sm_layer *sl, uint32_t sm, const struct gpuvm_warp_item *it, uint64_t sa,
		double tx, double done, bool *runs_open)
{
	return load_run_sector_kind(sl, sm, it, sa, alloc_table_kind(sl->port.allocs, sa), tx, done,
				    runs_open);
}

/* The end of a load's sectors (ascending_load_runs, sm_serve.c): the runs
 * still open sent (memsys_flush_runs), if it may have any. */
static inline __attribute__((always_inline)) double load_runs_end(struct sm_layer *sl, double done,
								  bool runs_open)
{
	return runs_open ? memsys_flush_runs(sl->port.mem, done) : done;
}

/* When a memory instruction that issued (after the L1 stage's wait) at
 * start, held the L1 stage `stage` cycles and whose sectors came back by
 * done gives its result: a store when it has left the SM, a load when its
 * last wavefront's sectors are back. */
static inline double instruction_done(const struct sm_layer *sl, enum gpuvm_mem_op op,
				      double start, double stage, double done)
{
	if (op == GPUVM_OP_STORE) {
		/* stores retire without waiting for memory, but not before
		 * they have left the SM: the warp's end waits for that
		 * (l2.writeback_stall; a full L2 holds them back) */
		return later(start + 1, sl->store_left);
	}
	/* l1.tags_per_cycle: the wavefronts pass the stages one a cycle, so
	 * the last one's sectors come back stage - 1 cycles after the first
	 * (every sector above was served as if in the first wavefront; where
	 * the latest is a miss of an earlier one, this is up to stage - 1
	 * cycles too long) */
	if (sl->l1_cycles_per_tag > 0 && stage > 1)
		done += stage - 1;
	return done;
}

#endif
