/* The simulation engine.
 *
 * Time is in SM cycles (double, so sub-cycle bandwidth service times add
 * up exactly). Each resident warp is an event in a min-heap keyed by the
 * time it can issue next. A warp issues in order on one of its SM's
 * schedulers (core.schedulers, each one warp instruction per cycle, each
 * functional-unit class with its initiation interval); an instruction
 * waits for its source registers (a per-warp scoreboard: traces name the
 * registers, generators use the implicit chain of stream.h), and its
 * result is ready after its class's latency. Memory instructions are
 * coalesced, translated and served by the SM's L1, then L2/DRAM or PCIe;
 * local memory goes through L1 too, shared memory takes its latency plus
 * bank conflicts, and barriers hold a CTA's warps until the last arrives.
 * Shared resources are queues, so contention is waiting. */
#include "gpuvm/engine.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#include "core/later.h"
#include "engine/alloc_table.h"
#include "engine/coalescer.h"
#include "engine/copy_stream.h"
#include "engine/event_queue.h"
#include "engine/kernel_sampling.h"
#include "engine/pcie_tlp.h"
#include "mem/dram_access.h"
#include "mem/l1_cache.h"
#include "mem/l2_cache.h"
#include "mem/server_pool.h"
#include "mem/smem_banks.h"
#include "uvm/uvm.h"
#include "xlat/xlat.h"

/* gem5-gpu src/gpu/lsq_warp_inst_buffer.cc, WarpInstBuffer::coalesce: a
 * warp's 4, 8 and 16 B lanes coalesce into accesses within 128 B segments
 * (GPGPU-Sim's compute-capability-1.3 rule), each translated on its own */
#define GEM5GPU_SEGMENT_BYTES 128u

/* One warp scheduler's issue slot and units: what an issuing warp reads
 * and writes, in one place (a warp points at its scheduler's). */
struct sched_state {
	double free;                          /* next cycle it can issue */
	double unit_free[GPUVM_OP_CLASSES];   /* next cycle each unit takes one */
};

struct sm_state {
	struct sched_state *sched; /* [schedulers] */
	double l1_free;           /* the L1's tag/data stage */
	double smem_free;         /* shared-memory banks */
	uint64_t smem_used;       /* shared memory of resident CTAs */
	uint32_t warps_used, ctas_used;
	uint32_t *free_warp_slots, n_free_warp_slots;
	uint32_t *free_cta_slots, n_free_cta_slots;
};

struct warp_rt {
	uint32_t sm, cta_slot;
	struct sched_state *sched; /* its SM's scheduler that issues it */
	unsigned char *state;
	/* the implicit chain (items without registers): when the last
	 * load's or atomic's value is there */
	double implicit_ready;
	double drain;             /* latest result of any of its instructions */
	double barrier_at;        /* when it arrived at the barrier it waits at */
	bool holding;             /* engine.held[slot] is its next item */
	bool implicit_mem, regs_used;
};

struct cta_rt {
	uint32_t warps_left;
	uint32_t arrived;         /* warps waiting at the barrier */
	uint32_t *parked;         /* [max_warps_per_sm] their slots */
	double arrive_last;
};

struct engine {
	const struct gpuvm_config *cfg;
	struct gpuvm_stats *stats;
	struct xlat xlat;
	struct l2_cache l2;
	struct alloc_table allocs;
	struct coalescer co;
	unsigned pte_page_shift; /* log2 of the page a leaf page-table entry maps */

	/* unified memory: built at the first managed allocation */
	struct uvm uvm;
	bool uvm_on, uvm_blocking;
	bool uvm_counts; /* access counters, thrashing detection or hints: uvm_access_counted */

	/* data path: DRAM and each PCIe direction are one server each, kept as
	 * capacity calendars because sectors arrive out of time order (after
	 * translations of different lengths) */
	struct server_pool dram, pcie_h2d, pcie_d2h;
	/* when the last zero-copy store has crossed the link: a store retires
	 * at once, but the kernel is not done before its writes are (the
	 * launch boundary orders them before the host or the next launch) */
	double zc_stores_done;
	/* zero-copy TLPs: the memory instruction being served (a count) and
	 * the line its last zero-copy TLP went to; a sector of the same line
	 * in the same instruction joins that TLP (pcie_tlp.h) */
	uint64_t mem_instr_seq, zc_tlp_instr, zc_tlp_line;
	double zc_cycles_per_wire_byte;
	/* lane time (cycles) kernels' own traffic has taken of each PCIe
	 * direction, [0] h2d, [1] d2h: what an asynchronous copy beside the
	 * kernel cannot have (copy_stream.h) */
	double lane_busy[2];
	struct copy_stream cs;
	struct dram_model dram_banks;
	bool dram_banked;
	struct l1_cache l1;
	bool l1_on, l1_global;
	bool l1_fill_line; /* l1.fill = line: a load miss fetches the whole line */
	double l1_hit, l1_cycles_per_line;
	double smem_latency;
	uint32_t smem_banks;
	double dram_cycles_per_sector, dram_latency;
	double pcie_cycles_per_byte, pcie_latency;
	double base_half, l2_hit;
	uint32_t sector_bytes;

	/* scheduling */
	struct sm_state *sm;
	struct warp_rt *warp;       /* [sms * max_warps_per_sm] */
	struct cta_rt *cta;         /* [sms * max_ctas_per_sm] */
	uint32_t last_issued_sm;    /* the SM that took the last CTA (gpu.cta_issue) */
	unsigned char *warp_state;  /* backing store for warp states */
	size_t warp_state_cap;      /* bytes per slot currently allocated */
	struct event_queue events;
	/* SM core: schedulers, unit classes, the scoreboard */
	uint32_t schedulers;
	double sched_interval;     /* cycles between one scheduler's issues */
	double cls_latency[GPUVM_OP_CLASSES], cls_step[GPUVM_OP_CLASSES];
	double cls_interval[GPUVM_OP_CLASSES];
	double *reg_ready;         /* [warp slots x GPUVM_REGS], made at the first use */
	uint8_t *reg_mem;          /* the value comes from memory */
	uint32_t *parked_store;    /* backing of cta_rt.parked */
	/* per warp slot: the item fetched but not yet issued (its operands
	 * were not ready; the warp waits in the queue, so the SM's schedulers
	 * are claimed in time order) */
	struct gpuvm_warp_item *held;

	/* kernel sampling: classes of alike launches, their convergence */
	struct kernel_sampler ks;

	/* progress */
	bool progress;
	const struct gpuvm_uvm_observer *uvm_observer;
	struct timespec last_progress;
	uint64_t kernel_index;
};

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- data path ----------------------------------------------------- */

/* One DRAM sector read: its channel and bank (row hit or miss), or
 * with dram.banks = 0 one bandwidth queue and the latency. Forced inline:
 * gcc otherwise splits the banked read into a call of its own (~25 host
 * instructions a sector in saves, restores and argument moves). */
static inline __attribute__((always_inline)) double dram_sector(struct engine *e, uint64_t addr, double t)
{
	e->stats->dram_bytes += e->sector_bytes;
	if (e->dram_banked)
		return dram_read_sector(&e->dram_banks, addr, t);
	return server_pool_reserve(&e->dram, t, e->dram_cycles_per_sector) + e->dram_latency;
}

/* Dirty sectors an L2 victim writes back. The victim's address is gone
 * with its line (the L2 keeps no more than the model needs), so in the
 * banked model they go to another row of the accessed sector's bank
 * group: a row miss each, as evictions mostly are. */
static __attribute__((noinline)) void dram_writeback_sectors(struct engine *e, uint64_t addr,
								   uint32_t sectors, double t)
{
	e->stats->dram_bytes += (uint64_t)sectors * e->sector_bytes;
	if (e->dram_banked) {
		/* the victim's sectors, a run per interleave chunk (one
		 * sector, the most common, without the run's call) */
		uint64_t a = addr ^ (1ull << 42);
		if (sectors == 1) {
			dram_write_sector(&e->dram_banks, a, t);
			return;
		}
		uint32_t shift = e->dram_banks.interleave_shift;
		for (uint32_t i = 0; i < sectors;) {
			uint64_t from = a + (uint64_t)i * e->sector_bytes;
			uint32_t n = 1;
			while (i + n < sectors &&
			       (from + (uint64_t)n * e->sector_bytes) >> shift == from >> shift)
				n++;
			dram_model_write_run(&e->dram_banks, from, n, t);
			i += n;
		}
		return;
	}
	server_pool_reserve(&e->dram, t, sectors * e->dram_cycles_per_sector);
}

/* Most L2 accesses evict nothing dirty: the test stays in line. */
static inline void dram_writeback(struct engine *e, uint64_t addr, uint32_t sectors, double t)
{
	if (sectors)
		dram_writeback_sectors(e, addr, sectors, t);
}

/* A lane of the link carrying wire bytes (payload plus TLP overhead) at
 * the link's raw rate less encoding and flow control (pcie_tlp.h). */
static inline double pcie_wire(struct engine *e, struct server_pool *lane, double t,
			       uint64_t wire_bytes)
{
	double hold = (double)wire_bytes * e->zc_cycles_per_wire_byte;
	e->lane_busy[lane == &e->pcie_d2h] += hold;
	return server_pool_reserve(lane, t, hold) + hold;
}

/* One 32 B sector of host-pinned memory: uncached, straight over the
 * link as PCIe transaction-layer packets. The sectors one instruction
 * touches in one line travel as one TLP (the GPU asks for at most a
 * line); each TLP pays its header and framing, each read and atomic also
 * a request on the upstream lane and the round trip (seeds/001 6.6.4:
 * zero-copy data "is transferred over many small PCIe transactions,
 * which is much costlier than a few bulky PCIe transactions"). */
static __attribute__((noinline)) double zero_copy_sector(struct engine *e, uint64_t sector_addr,
							 enum gpuvm_mem_op op, double at_mem)
{
	struct gpuvm_stats *s = e->stats;
	uint64_t line = sector_addr >> e->co.line_shift;
	/* an atomic is one AtomicOp per sector: never merged */
	bool new_tlp = op == GPUVM_OP_ATOMIC || e->zc_tlp_instr != e->mem_instr_seq ||
		       e->zc_tlp_line != line;
	e->zc_tlp_instr = e->mem_instr_seq;
	e->zc_tlp_line = line;
	s->zero_copy_bytes += e->sector_bytes;
	s->zero_copy_tlps += new_tlp;
	uint64_t payload = e->sector_bytes;
	if (op == GPUVM_OP_STORE) {
		/* a posted write: payload and, for a new TLP, its header, on
		 * the upstream lane; it retires at once, the kernel ends when
		 * it has crossed (zc_stores_done) */
		s->pcie_d2h_bytes += payload;
		double done = pcie_wire(e, &e->pcie_d2h, at_mem,
					payload + (new_tlp ? PCIE_TLP_REQUEST_OVERHEAD_BYTES : 0)) +
			      e->pcie_latency + e->base_half;
		if (done > e->zc_stores_done)
			e->zc_stores_done = done;
		return done;
	}
	/* a read or an atomic: the request goes up (an AtomicOp's carries its
	 * operands), then its completion with the data (an AtomicOp's: the old
	 * value) comes down (zero_copy_atomics: one per lane) */
	double t = at_mem;
	if (new_tlp) {
		uint64_t up = PCIE_TLP_REQUEST_OVERHEAD_BYTES;
		if (op == GPUVM_OP_ATOMIC) {
			payload = PCIE_ATOMIC_RESULT_BYTES;
			s->pcie_d2h_bytes += PCIE_ATOMIC_OPERAND_BYTES;
			up += PCIE_ATOMIC_OPERAND_BYTES;
		}
		t = pcie_wire(e, &e->pcie_d2h, t, up);
	}
	s->pcie_h2d_bytes += payload;
	return pcie_wire(e, &e->pcie_h2d, t,
			 payload + (new_tlp ? PCIE_TLP_COMPLETION_OVERHEAD_BYTES : 0)) +
	       e->pcie_latency + e->base_half;
}

/* An atomic instruction's lanes on one sector of host-pinned memory: a
 * PCIe AtomicOp carries one operand (PCIe 3.0 spec 6.15: FetchAdd, Swap
 * and CAS on a single 32- or 64-bit location), so each lane is an
 * AtomicOp of its own, even lanes on the same word, which the GPU cannot
 * merge over the link as its L2 merges them on device memory; they
 * pipeline on the link and the instruction has its sector when the last
 * completes. */
static __attribute__((noinline)) double zero_copy_atomics(struct engine *e,
							  const struct gpuvm_warp_item *it,
							  uint64_t sa, double at_mem)
{
	uint64_t sec = sa >> e->co.sector_shift;
	double done = at_mem;
	uint32_t ops = 0;
	for (uint32_t m = it->active_mask; m; m &= m - 1) {
		uint32_t lane = (uint32_t)__builtin_ctz(m);
		if (it->addr[lane] >> e->co.sector_shift != sec)
			continue;
		double d = zero_copy_sector(e, sa, GPUVM_OP_ATOMIC, at_mem);
		ops++;
		if (d > done)
			done = d;
	}
	if (!ops) /* no lane starts in it (a lane spanning two sectors) */
		return zero_copy_sector(e, sa, GPUVM_OP_ATOMIC, at_mem);
	/* zero_copy_bytes counts the sector once */
	e->stats->zero_copy_bytes -= (uint64_t)(ops - 1) * e->sector_bytes;
	return done;
}

/* The L2 result of one sector, from the L2 on: DRAM write-backs, hit or
 * miss, the fill from DRAM. */
static inline __attribute__((always_inline)) double
after_l2(struct engine *e, uint64_t addr, enum gpuvm_mem_op op, double at_mem, enum l2_result r,
	 uint32_t wb)
{
	double ready = at_mem + e->l2_hit;
	dram_writeback(e, addr, wb, ready);
	if (r == L2_HIT) {
		e->stats->l2_sector_hits++;
		return ready + e->base_half;
	}
	e->stats->l2_sector_misses++;
	if (op == GPUVM_OP_STORE)
		return ready + e->base_half; /* write-allocate, no fetch */
	return dram_sector(e, addr, ready) + e->base_half;
}

/* A sector of managed memory: its page may still be on its way (the
 * policies see the access), and L2 lines of a frame the page has left
 * since are dropped first. Out of line, so the device path stays as it
 * was. */
static inline __attribute__((always_inline)) double managed_l2(struct engine *e, uint64_t sector_addr,
								enum gpuvm_mem_op op, bool write, double tx)
{
	uint32_t wb = 0;
	enum l2_result r;
	const uint32_t *page_through;
	uint32_t block_through = uvm_l2_stale_through(&e->uvm, sector_addr, &page_through);
	if (block_through) {
		uint32_t stale_sectors = 0, stale_dirty = 0;
		r = l2_cache_access_fresh(&e->l2, sector_addr, write, &wb, block_through, page_through,
					  &stale_sectors, &stale_dirty);
		e->stats->uvm.l2_sectors_invalidated += stale_sectors;
		e->stats->uvm.l2_dirty_sectors_written += stale_dirty;
	} else {
		r = l2_cache_access(&e->l2, sector_addr, write, &wb);
	}
	return after_l2(e, sector_addr, op, tx + e->base_half, r, wb);
}

static __attribute__((noinline)) double access_managed_sector(struct engine *e, uint64_t sector_addr,
							     enum gpuvm_mem_op op, double tx,
							     uint32_t sm)
{
	bool write = op != GPUVM_OP_LOAD;
	tx = uvm_access(&e->uvm, sm, sector_addr, write, tx);
	return managed_l2(e, sector_addr, op, write, tx);
}

/* access_managed_sector with access counters, thrashing detection or hints
 * (uvm_counts): a read the paging layer leaves in host memory crosses the
 * link uncached, as zero-copy memory does; otherwise the same path. */
static __attribute__((noinline)) double access_counted_sector(struct engine *e, uint64_t sector_addr,
							     enum gpuvm_mem_op op, double tx,
							     uint32_t sm)
{
	bool remote = false, write = op != GPUVM_OP_LOAD;
	double t = uvm_access_counted(&e->uvm, sm, sector_addr, write, op != GPUVM_OP_STORE, tx, &remote);
	if (remote)
		return t + e->base_half;
	return managed_l2(e, sector_addr, op, write, t);
}

/* Serves one 32 B sector whose translation is ready at tx. */
static inline __attribute__((always_inline)) double
access_sector(struct engine *e, uint64_t sector_addr, enum gpuvm_mem_op op,
			    enum gpuvm_alloc_kind kind, double tx, uint32_t sm)
{
	if (__builtin_expect(kind == GPUVM_ALLOC_MANAGED, 0))
		return __builtin_expect(e->uvm_counts, 0) ? access_counted_sector(e, sector_addr, op, tx, sm)
							  : access_managed_sector(e, sector_addr, op, tx, sm);
	double at_mem = tx + e->base_half;
	if (kind == GPUVM_ALLOC_HOST_PINNED)
		return zero_copy_sector(e, sector_addr, op, at_mem);
	uint32_t wb = 0;
	enum l2_result r = l2_cache_access(&e->l2, sector_addr, op != GPUVM_OP_LOAD, &wb);
	return after_l2(e, sector_addr, op, at_mem, r, wb);
}

/* How a sector meets the L1. */
enum l1_mode {
	L1_BYPASS = 0, /* not cached in L1 (the part's default, .CG, .CV, atomics) */
	L1_ALLOCATE,   /* loads allocate; stores write through */
	L1_EVICT_FIRST, /* .CS: allocate first in line for eviction */
	L1_LOCAL,      /* local memory: allocate, stores write back */
};

static enum l1_mode l1_mode_of(const struct engine *e, const struct gpuvm_warp_item *it)
{
	if (!e->l1_on || it->op == GPUVM_OP_ATOMIC)
		return L1_BYPASS; /* atomics are performed at the L2 */
	if (it->space == GPUVM_SPACE_LOCAL)
		return L1_LOCAL;
	switch ((enum gpuvm_cache_op)it->cache_op) {
	case GPUVM_CACHE_ALL:
		return L1_ALLOCATE;
	case GPUVM_CACHE_STREAMING:
		return e->l1_global ? L1_EVICT_FIRST : L1_BYPASS;
	case GPUVM_CACHE_GLOBAL:
	case GPUVM_CACHE_VOLATILE:
		return L1_BYPASS;
	case GPUVM_CACHE_DEFAULT:
		break;
	}
	return e->l1_global ? L1_ALLOCATE : L1_BYPASS;
}

/* One sector through the SM's L1: a hit is the L1 latency (or the fill
 * still on its way); a miss goes on to the L2 and fills the sector when
 * it returns. Global stores write through; local stores stay in L1 until
 * their line is evicted. */
static __attribute__((noinline)) double l1_sector(struct engine *e, uint64_t sa,
						  enum gpuvm_mem_op op, enum gpuvm_alloc_kind kind,
						  double tx, uint32_t sm, enum l1_mode mode)
{
	double ready, *slot;
	uint32_t wb;
	bool write = op == GPUVM_OP_STORE;
	if (write && mode != L1_LOCAL) {
		l1_cache_write_through(&e->l1, sm, sa, tx);
		return access_sector(e, sa, op, kind, tx, sm);
	}
	enum l1_result r = l1_cache_access(&e->l1, sm, sa, true, mode == L1_EVICT_FIRST, write,
					   &ready, &slot, &wb);
	if (wb) {
		/* dirty local data evicted: written to the L2 (its address is
		 * gone with the line, so only its traffic is kept) */
		e->stats->l1_writeback_sectors += wb;
	}
	double hit = tx + e->l1_hit;
	if (r == L1_HIT) {
		e->stats->l1_sector_hits++;
		return ready > hit ? ready : hit;
	}
	e->stats->l1_sector_misses++;
	if (write) {
		*slot = hit; /* write-allocate without a fetch: the thread wrote it */
		return hit;
	}
	double d = access_sector(e, sa, op, kind, tx, sm);
	if (slot)
		*slot = d;
	if (e->l1_fill_line) {
		/* l1.fill = line (Fermi, Kepler): the other sectors of the line
		 * come too, each an L2 access of its own (seeds/001 5.3.2: "each
		 * cache miss results in four DRAM transactions") */
		uint64_t line_bytes = (uint64_t)1 << e->l1.line_shift;
		uint64_t base = sa & ~(line_bytes - 1);
		for (uint64_t o = 0; o < line_bytes; o += e->sector_bytes) {
			if (base + o == sa)
				continue;
			double r2, *s2;
			uint32_t wb2;
			if (l1_cache_access(&e->l1, sm, base + o, true, mode == L1_EVICT_FIRST, false,
					    &r2, &s2, &wb2) == L1_MISS && s2)
				*s2 = access_sector(e, base + o, op, kind, tx, sm);
			e->stats->l1_writeback_sectors += wb2;
		}
	}
	return d;
}

/* One distinct sector of a memory instruction, its translation ready at
 * tx: through the L1 or straight to the L2. */
static inline __attribute__((always_inline)) double
serve_sector(struct engine *e, const struct warp_rt *w, const struct gpuvm_warp_item *it,
	     uint64_t sa, enum l1_mode l1mode, double tx)
{
	e->stats->sectors++;
	enum gpuvm_alloc_kind kind = alloc_table_kind(&e->allocs, sa);
	if (__builtin_expect(kind == GPUVM_ALLOC_HOST_PINNED && it->op == GPUVM_OP_ATOMIC, 0))
		return zero_copy_atomics(e, it, sa, tx + e->base_half);
	return l1mode == L1_BYPASS || kind != GPUVM_ALLOC_DEVICE
		       ? access_sector(e, sa, it->op, kind, tx, w->sm)
		       : l1_sector(e, sa, it->op, kind, tx, w->sm, l1mode);
}

/* Whether the active lanes' addresses never decrease from lane to lane
 * (unit-stride and other coalesced access). */
static inline bool lanes_ascending(const struct gpuvm_warp_item *it, bool *contiguous)
{
	*contiguous = false;
	if (it->active_mask == 0xffffffffu) {
		/* a full warp: no mask walk, no branch per lane; contiguous
		 * when every lane starts where the one before it ends */
		uint64_t down = 0, gap = 0, bpl = it->bytes_per_lane;
		uint32_t l = 1;
#ifdef __SSE4_2__
		/* two lanes an instruction (the same result: unsigned order by
		 * a signed compare with the top bit flipped) */
		const __m128i top = _mm_set1_epi64x((long long)(1ull << 63));
		const __m128i vbpl = _mm_set1_epi64x((long long)bpl);
		__m128i vdown = _mm_setzero_si128(), vgap = _mm_setzero_si128();
		for (; l + 1 < 32; l += 2) {
			__m128i cur = _mm_loadu_si128((const __m128i *)(const void *)&it->addr[l]);
			__m128i prev = _mm_loadu_si128((const __m128i *)(const void *)&it->addr[l - 1]);
			vdown = _mm_or_si128(vdown, _mm_cmpgt_epi64(_mm_xor_si128(prev, top),
								    _mm_xor_si128(cur, top)));
			vgap = _mm_or_si128(vgap, _mm_xor_si128(_mm_sub_epi64(cur, prev), vbpl));
		}
		vdown = _mm_or_si128(vdown, _mm_unpackhi_epi64(vdown, vdown));
		vgap = _mm_or_si128(vgap, _mm_unpackhi_epi64(vgap, vgap));
		down = (uint64_t)_mm_cvtsi128_si64(vdown);
		gap = (uint64_t)_mm_cvtsi128_si64(vgap);
#endif
		for (; l < 32; l++) {
			down |= it->addr[l] < it->addr[l - 1];
			gap |= (it->addr[l] - it->addr[l - 1]) ^ bpl;
		}
		*contiguous = !gap;
		return !down;
	}
	uint64_t prev = 0;
	for (uint32_t m = it->active_mask; m; m &= m - 1) {
		uint64_t a = it->addr[__builtin_ctz(m)];
		if (a < prev)
			return false;
		prev = a;
	}
	return true;
}

/* L2 misses of one load waiting to go to DRAM together: consecutive
 * sectors of one interleave chunk that reached the DRAM at the same time
 * (dram_model_read_run). */
struct dram_run {
	uint64_t addr, next;
	uint32_t n;
	double t;
};

static inline double flush_run(struct engine *e, struct dram_run *r, double done)
{
	if (!r->n)
		return done;
	e->stats->dram_bytes += (uint64_t)r->n * e->sector_bytes;
	double d = dram_model_read_run(&e->dram_banks, r->addr, r->n, r->t) + e->base_half;
	r->n = 0;
	return later(d, done);
}

/* One sector of ascending_load_runs: through the L2, its miss added to
 * the open run (or the run sent and a new one opened). */
static inline __attribute__((always_inline)) double
load_run_sector(struct engine *e, const struct warp_rt *w, const struct gpuvm_warp_item *it,
		uint64_t sa, double tx, struct dram_run *run, double done)
{
	struct gpuvm_stats *s = e->stats;
	enum gpuvm_alloc_kind kind = alloc_table_kind(&e->allocs, sa);
	if (kind != GPUVM_ALLOC_DEVICE) {
		done = flush_run(e, run, done);
		return later(serve_sector(e, w, it, sa, L1_BYPASS, tx), done);
	}
	s->sectors++;
	uint32_t wb = 0;
	enum l2_result r = l2_cache_access(&e->l2, sa, false, &wb);
	double ready = tx + e->base_half + e->l2_hit;
	dram_writeback(e, sa, wb, ready);
	if (r == L2_HIT) {
		s->l2_sector_hits++;
		return later(ready + e->base_half, done);
	}
	s->l2_sector_misses++;
	uint32_t chunk_shift = e->dram_banks.interleave_shift;
	if (run->n && sa == run->next && ready == run->t &&
	    sa >> chunk_shift == run->addr >> chunk_shift) {
		run->n++;
	} else {
		done = flush_run(e, run, done);
		run->addr = sa;
		run->n = 1;
		run->t = ready;
	}
	run->next = sa + e->sector_bytes;
	return done;
}

/* The sectors of ascending lanes, in order: each unit translated once,
 * each sector served once (run: a load's L2 misses gathered into DRAM
 * runs, load_run_sector; NULL: serve_sector), lines counted. by_sector:
 * a full warp of contiguous lanes, each within one sector (a power of
 * two at most a sector, aligned to its size), walked sector by sector
 * instead of lane by lane; a sector's first lane starts at the sector's
 * start (the first one at addr[0]), and so does a unit's, so the same
 * translations (same addresses), sectors and lines. Inlined into both
 * callers, so each gets its own copy without the run test. */
static inline __attribute__((always_inline)) double
sector_walk(struct engine *e, const struct warp_rt *w, const struct gpuvm_warp_item *it,
	    enum l1_mode l1mode, double xstart, double done, bool by_sector, struct dram_run *run)
{
	const struct coalescer *co = &e->co;
	struct gpuvm_stats *s = e->stats;
	/* locals: the stores to the statistics would otherwise make the
	 * compiler reload these for every lane */
	const uint32_t sector_shift = co->sector_shift, unit_shift = co->unit_shift;
	const uint32_t sectors_per_line_shift = co->line_shift - sector_shift;
	const uint64_t span = it->bytes_per_lane - 1;
	uint64_t last_unit = UINT64_MAX, next_sector = 0, last_line = UINT64_MAX;
	uint64_t units = 0, lines = 0;
	double tx = 0;
	if (by_sector) {
		uint64_t a0 = it->addr[0];
		uint64_t s0 = a0 >> sector_shift, s1 = (a0 + 32 * (span + 1) - 1) >> sector_shift;
		for (uint64_t sec = s0; sec <= s1; sec++) {
			uint64_t sa = sec << sector_shift;
			uint64_t unit = sa >> unit_shift;
			if (unit != last_unit) {
				tx = xlat_translate(&e->xlat, w->sm, sec == s0 ? a0 : sa, xstart);
				units++;
				last_unit = unit;
			}
			uint64_t line = sec >> sectors_per_line_shift;
			if (line != last_line) {
				lines++;
				last_line = line;
			}
			done = run ? load_run_sector(e, w, it, sa, tx, run, done)
				   : later(serve_sector(e, w, it, sa, l1mode, tx), done);
		}
	} else {
		for (uint32_t m = it->active_mask; m; m &= m - 1) {
			uint64_t a = it->addr[__builtin_ctz(m)];
			uint64_t unit = a >> unit_shift;
			uint64_t lastsec = (a + span) >> sector_shift;
			if (unit == last_unit && lastsec < next_sector)
				continue; /* every sector of the lane served for an earlier one */
			if (unit != last_unit) {
				tx = xlat_translate(&e->xlat, w->sm, a, xstart);
				units++;
				last_unit = unit;
			}
			uint64_t first = a >> sector_shift;
			if (first < next_sector)
				first = next_sector; /* served for an earlier lane */
			for (uint64_t sec = first; sec <= lastsec; sec++) {
				uint64_t line = sec >> sectors_per_line_shift;
				if (line != last_line) {
					lines++;
					last_line = line;
				}
				uint64_t sa = sec << sector_shift;
				done = run ? load_run_sector(e, w, it, sa, tx, run, done)
					   : later(serve_sector(e, w, it, sa, l1mode, tx), done);
			}
			if (lastsec + 1 > next_sector)
				next_sector = lastsec + 1;
		}
	}
	s->xlat_units += units;
	s->lines += lines;
	return done;
}

/* ascending_sectors for a load that bypasses the L1 with banked DRAM: the
 * same translations, L2 accesses and counts, but the L2 misses of device
 * memory go to the DRAM a run per interleave chunk (a coalesced load's
 * sectors of one 256 B chunk: one bank and one bus reservation for them
 * all, not one each). A run is sent when the next miss does not extend
 * it, before any other sector's DRAM access, and at the end, so DRAM
 * requests keep their order apart from an L2 victim's write-back, which
 * goes ahead of the run the instruction has open. */
static __attribute__((noinline)) double ascending_load_runs(struct engine *e,
							    const struct warp_rt *w,
							    const struct gpuvm_warp_item *it,
							    double xstart, double done,
							    bool by_sector)
{
	struct dram_run run = {0, 0, 0, 0};
	done = sector_walk(e, w, it, L1_BYPASS, xstart, done, by_sector, &run);
	return flush_run(e, &run, done);
}

/* memory_instruction's lanes when their addresses ascend: every unit,
 * sector and line seen before in the instruction is then the latest one,
 * so the coalescer's sets are not needed; the same translations and
 * sectors, in the same order, and the same line count as the general
 * loop. Returns the latest of done and the sectors' results. */
static double ascending_sectors(struct engine *e, const struct warp_rt *w,
				const struct gpuvm_warp_item *it, enum l1_mode l1mode,
				double xstart, double done, bool contiguous)
{
	const struct coalescer *co = &e->co;
	uint32_t sector_shift = co->sector_shift;
	uint64_t last_line = UINT64_MAX;
	/* the distinct lines' L2 sets, loading while the first is served
	 * (ascending lanes: when they span a few lines, those lines; a
	 * prefetch changes no result) */
	uint32_t line_shift = co->line_shift;
	uint64_t lo = it->addr[__builtin_ctz(it->active_mask)] >> line_shift;
	uint64_t hi = it->addr[31 - __builtin_clz(it->active_mask)] >> line_shift;
	if (hi - lo < 8) {
		for (uint64_t line = lo; line <= hi; line++)
			l2_cache_prefetch(&e->l2, line << line_shift);
	} else {
		for (uint32_t m = it->active_mask; m; m &= m - 1) {
			uint64_t line = it->addr[__builtin_ctz(m)] >> line_shift;
			if (line != last_line)
				l2_cache_prefetch(&e->l2, line << line_shift);
			last_line = line;
		}
	}
	/* a full warp of contiguous lanes, sector by sector (sector_walk) */
	uint64_t bpl = it->bytes_per_lane;
	bool by_sector = contiguous && bpl <= (1ull << sector_shift) && !(bpl & (bpl - 1)) &&
			 !(it->addr[0] & (bpl - 1)) && co->unit_shift >= sector_shift;
	if (l1mode == L1_BYPASS && e->dram_banked && it->op == GPUVM_OP_LOAD)
		return ascending_load_runs(e, w, it, xstart, done, by_sector);
	return sector_walk(e, w, it, l1mode, xstart, done, by_sector, NULL);
}

/* Serves one memory instruction issued at start on warp w; returns when
 * its last sector is back (stores: when they have left). */
static double memory_instruction(struct engine *e, struct warp_rt *w,
				 const struct gpuvm_warp_item *it, double start)
{
	struct gpuvm_stats *s = e->stats;
	uint32_t lanes = (uint32_t)__builtin_popcount(it->active_mask);
	if (!lanes)
		return start + 1;
	e->mem_instr_seq++;
	enum l1_mode l1mode = l1_mode_of(e, it);
	/* the L1's tag/data stage takes one line per cycle */
	struct sm_state *sm = &e->sm[w->sm];
	if (sm->l1_free > start)
		start = sm->l1_free;
	uint64_t lines0 = s->lines;

	/* the lanes' order: the source's word for it (worker threads' items:
	 * computed on the worker) or a scan */
	bool contiguous = it->lanes_order == GPUVM_LANES_CONTIGUOUS;
	bool ascending = it->bytes_per_lane &&
			 (it->lanes_order ? true : lanes_ascending(it, &contiguous));
	if (lanes > 4 && !ascending) {
		for (uint32_t m = it->active_mask; m; m &= m - 1)
			l2_cache_prefetch(&e->l2, it->addr[__builtin_ctz(m)]);
		/* scattered lanes of managed memory: their pages' paging state,
		 * which their walks read (a prefetch changes no result) */
		if (e->uvm_on)
			for (uint32_t m = it->active_mask; m; m &= m - 1)
				uvm_prefetch_page(&e->uvm, it->addr[__builtin_ctz(m)]);
	}

	double xstart = start;
	if (__builtin_expect(e->uvm_blocking, 0) && uvm_sm_blocked_until(&e->uvm, w->sm) > start) {
		/* blocking faults: the SM's TLB takes nothing until its fault is served */
		xstart = uvm_sm_blocked_until(&e->uvm, w->sm);
		s->uvm.stall_blocked_cycles += xstart - start;
		s->stall_cycles[GPUVM_STALL_FAULT] += xstart - start;
	}

	struct coalescer *co = &e->co;
	double done = start + 1;
	if (ascending) {
		done = ascending_sectors(e, w, it, l1mode, xstart, done, contiguous);
		goto served;
	}
	coalescer_begin(co);
	uint32_t sector_shift = co->sector_shift;
	uint64_t last_unit = UINT64_MAX, last_sector = UINT64_MAX;
	double last_tx = 0;

	/* While every lane so far opened a unit of its own (random access),
	 * its sectors and lines cannot have been seen before: they are served
	 * without consulting the sector and line sets, which are filled only
	 * once a lane shares a unit (lazy_lanes: the lanes to enter then). */
	bool lazy = co->lazy_ok;
	uint32_t lazy_lanes = 0;
	uint32_t sectors_per_unit_shift = co->unit_shift - sector_shift;
	uint32_t sectors_per_line_shift = co->line_shift - sector_shift;

	for (uint32_t m = it->active_mask; m; m &= m - 1) {
		uint32_t lane = (uint32_t)__builtin_ctz(m);
		uint64_t a = it->addr[lane];
		uint64_t unit = a >> co->unit_shift;
		bool new_unit = false;
		if (unit != last_unit) {
			uint32_t slot;
			if (!coalescer_unit(co, unit, &last_tx, &slot)) {
				last_tx = xlat_translate(&e->xlat, w->sm, a, xstart);
				coalescer_set_ready(co, slot, last_tx);
				s->xlat_units++;
				new_unit = true;
			}
			last_unit = unit;
		}
		uint64_t first = a >> sector_shift;
		uint64_t lastsec = (a + it->bytes_per_lane - 1) >> sector_shift;
		/* lane_lazy: the lane's sectors lie in a unit no earlier lane had */
		bool lane_lazy = lazy && new_unit && lastsec >> sectors_per_unit_shift == unit;
		if (lazy && !lane_lazy) {
			lazy = false;
			uint64_t counted = 0; /* these were counted when served */
			for (uint32_t r = lazy_lanes; r; r &= r - 1) {
				uint64_t ra = it->addr[__builtin_ctz(r)];
				uint64_t rlast = (ra + it->bytes_per_lane - 1) >> sector_shift;
				for (uint64_t sec = ra >> sector_shift; sec <= rlast; sec++)
					coalescer_new_sector(co, sec, &counted);
			}
		}
		lazy_lanes |= (uint32_t)lane_lazy << lane;
		uint64_t prev_line = UINT64_MAX;
		for (uint64_t sec = first; sec <= lastsec; sec++) {
			if (lane_lazy) {
				uint64_t line = sec >> sectors_per_line_shift;
				s->lines += line != prev_line;
				prev_line = line;
			} else if (sec == last_sector || !coalescer_new_sector(co, sec, &s->lines)) {
				continue;
			}
			last_sector = sec;
			done = later(serve_sector(e, w, it, sec << sector_shift, l1mode, last_tx), done);
		}
	}
served:
	sm->l1_free = start + (double)(s->lines - lines0) * e->l1_cycles_per_line;
	if (it->op == GPUVM_OP_STORE)
		return start + 1; /* stores retire without waiting for memory */
	return done;
}

/* Local memory (LDL/STL, spills): each warp slot owns a region of
 * device memory in which a thread's 4-byte local words are interleaved
 * with its warp's other lanes, so the lanes reading one offset read 32
 * consecutive words (one 128 B line), as the hardware lays local memory
 * out. Offsets count down from the top of NVBit's 16 MiB local window,
 * where the stack is; a thread's first LOCAL_WORDS words are distinct
 * (64 KiB of stack and spills, far beyond what kernels use). A wider
 * access is one such access per 4-byte word. */
#define LOCAL_VA_BASE 0x3f0000000000ull
#define LOCAL_WINDOW (16ull << 20)
#define LOCAL_WORDS (16u << 10)

static double local_instruction(struct engine *e, struct warp_rt *w, uint32_t wslot,
				const struct gpuvm_warp_item *it, double start)
{
	struct gpuvm_warp_item sub = *it;
	sub.lanes_order = GPUVM_LANES_UNKNOWN; /* its addresses are rewritten */
	uint32_t words = it->bytes_per_lane > 4 ? (it->bytes_per_lane + 3) / 4 : 1;
	sub.bytes_per_lane = it->bytes_per_lane > 4 ? 4 : it->bytes_per_lane;
	double done = start + 1;
	for (uint32_t k = 0; k < words; k++) {
		for (uint32_t m = it->active_mask; m; m &= m - 1) {
			uint32_t lane = (uint32_t)__builtin_ctz(m);
			uint64_t off = (it->addr[lane] + 4 * k) % LOCAL_WINDOW;
			uint64_t word = ((LOCAL_WINDOW - 1 - off) / 4) % LOCAL_WORDS;
			sub.addr[lane] = LOCAL_VA_BASE +
					 (((uint64_t)wslot * LOCAL_WORDS + word) * GPUVM_WARP_LANES + lane) * 4 +
					 (off & 3);
		}
		double d = memory_instruction(e, w, &sub, start);
		done = later(d, done);
	}
	return done;
}

/* Shared memory: its latency plus one cycle per extra wavefront that bank
 * conflicts force; the banks serve one wavefront per cycle per SM. */
static double shared_instruction(struct engine *e, struct warp_rt *w,
				 const struct gpuvm_warp_item *it, double start)
{
	struct sm_state *sm = &e->sm[w->sm];
	uint32_t waves = smem_wavefronts(it->addr, it->active_mask, it->bytes_per_lane,
					 e->smem_banks);
	e->stats->smem_wavefronts += waves;
	if (sm->smem_free > start)
		start = sm->smem_free;
	sm->smem_free = start + waves;
	if (it->op == GPUVM_OP_STORE)
		return start + 1;
	return start + e->smem_latency + (waves ? waves - 1 : 0);
}

/* ---- page-table reads -------------------------------------------------- */

/* Page tables live in device memory: a walk's leaf entry (8 B per page of
 * the first TLB level's entry size, the page the hardware maps) is a
 * sector read through the L2, competing with data for L2 lines and DRAM.
 * The walk latency of a preset is measured with entries the L2 holds
 * (Karnagel's probes touch few pages), so a hit adds nothing and a miss
 * adds its DRAM time. The tables sit below the local-memory window: 2^37
 * pages of 4 KiB x 8 B = 1 TiB at most. */
#define PAGE_TABLE_VA_BASE 0x3e0000000000ull
#define PTE_BYTES 8

static double walk_pte_read(void *ctx, uint64_t addr, double t)
{
	struct engine *e = ctx;
	uint64_t pte = PAGE_TABLE_VA_BASE + (addr >> e->pte_page_shift) * PTE_BYTES;
	uint64_t sector = pte & ~(uint64_t)(e->sector_bytes - 1);
	uint32_t wb = 0;
	enum l2_result r = l2_cache_access(&e->l2, sector, false, &wb);
	dram_writeback(e, sector, wb, t);
	if (r == L2_HIT) {
		e->stats->walk_pte_l2_hits++;
		return 0;
	}
	e->stats->walk_pte_l2_misses++;
	return dram_sector(e, sector, t) - t;
}

/* ---- unified memory -------------------------------------------------- */

static double uvm_walk_hook(void *ctx, uint32_t sm, uint64_t addr, double t, uint64_t *fill_max)
{
	struct engine *e = ctx;
	if (alloc_table_kind(&e->allocs, addr) != GPUVM_ALLOC_MANAGED)
		return t;
	return uvm_translate(&e->uvm, sm, addr, t, fill_max);
}

static void uvm_shootdown(void *ctx, uint64_t addr, uint64_t bytes)
{
	struct engine *e = ctx;
	xlat_invalidate_range(&e->xlat, addr, bytes);
}

static uint32_t uvm_l2_clock(void *ctx)
{
	struct engine *e = ctx;
	return e->l2.clock;
}

/* The cudaMemAdvise hints (UVM_ADVISE_*) of the managed allocation named
 * name: the preset's uvm.preferred_location = host and uvm.accessed_by =
 * gpu, if uvm.advise_allocations is empty or one of its comma-separated
 * shell patterns matches the name. */
static uint32_t alloc_advise(const struct gpuvm_config *cfg, const char *name)
{
	uint32_t adv = (cfg->uvm_preferred_location == GPUVM_UVM_PREFERRED_HOST ? UVM_ADVISE_HOST : 0) |
		       (cfg->uvm_accessed_by ? UVM_ADVISE_ACCESSED_BY : 0);
	const char *list = cfg->uvm_advise_allocations;
	if (!adv || !*list)
		return adv;
	char pat[GPUVM_UVM_ADVISE_LIST];
	while (*list) {
		list += strspn(list, " ");
		size_t n = strcspn(list, ",");
		snprintf(pat, sizeof pat, "%.*s", (int)n, list);
		if (fnmatch(pat, name, 0) == 0)
			return adv;
		list += n + (list[n] == ',');
	}
	return 0;
}

/* The paging layer exists only once managed memory does, so runs without
 * it pay nothing. */
static int uvm_track(struct engine *e, const struct gpuvm_alloc *a)
{
	if (!e->uvm_on) {
		struct uvm_hooks hooks = {.shootdown = uvm_shootdown, .l2_clock = uvm_l2_clock, .ctx = e};
		if (e->uvm_observer)
			hooks.observer = *e->uvm_observer;
		if (uvm_init(&e->uvm, e->cfg, &e->stats->uvm, &hooks))
			return -1;
		e->uvm_on = true;
		e->uvm_blocking = e->cfg->uvm_fault_model == GPUVM_UVM_BLOCKING;
		e->uvm_counts = uvm_counts(&e->uvm);
		e->xlat.hook = uvm_walk_hook;
		e->xlat.hook_ctx = e;
	}
	if (uvm_add_alloc(&e->uvm, a->name, a->base, a->bytes, alloc_advise(e->cfg, a->name)))
		return -1;
	e->uvm_counts = uvm_counts(&e->uvm); /* hints of this allocation may turn it on */
	return 0;
}

/* ---- scheduling ---------------------------------------------------- */

static int engine_init(struct engine *e, const struct gpuvm_config *cfg,
		       struct gpuvm_stats *stats, const struct gpuvm_sim_options *opt)
{
	memset(e, 0, sizeof *e);
	e->cfg = cfg;
	e->stats = stats;
	e->progress = opt && opt->progress;
	e->uvm_observer = opt ? opt->uvm_observer : NULL;
	if (xlat_init(&e->xlat, cfg, stats))
		return -1;
	if (cfg->pte_reads == GPUVM_PTE_READS_L2) {
		e->xlat.pte_hook = walk_pte_read;
		e->xlat.pte_ctx = e;
	}
	uint64_t page = cfg->tlb[0].entry_bytes;
	for (uint32_t l = 1; l < cfg->tlb_levels; l++)
		if (cfg->tlb[l].entry_bytes < page)
			page = cfg->tlb[l].entry_bytes;
	e->pte_page_shift = (unsigned)__builtin_ctzll(page);
	if (l2_cache_init(&e->l2, cfg->l2_bytes, cfg->l2_ways, cfg->l2_line_bytes,
			  cfg->l2_sector_bytes))
		return -1;
	/* the coalescer's translation unit: a first-level TLB entry, or with
	 * tlb.translate_per = access gem5-gpu's coalesced access (the 128 B
	 * segment of WarpInstBuffer::coalesce for 4-16 B lanes; its 32 / 64 B
	 * segments of 1 / 2 B lanes are not modelled), each its own lookup */
	uint64_t xlat_unit = cfg->tlb[0].entry_bytes;
	if (cfg->tlb_translate_per_access && xlat_unit > GEM5GPU_SEGMENT_BYTES)
		xlat_unit = GEM5GPU_SEGMENT_BYTES;
	if (coalescer_init(&e->co, xlat_unit, cfg->l2_sector_bytes, cfg->l2_line_bytes))
		return -1;
	alloc_table_init(&e->allocs);
	if (kernel_sampler_init(&e->ks, opt, stats))
		return -1;
	/* 64-cycle slots; 4096 of them keep 262 K cycles of reordering. */
	if (server_pool_init(&e->dram, 1, 64, 4096) || server_pool_init(&e->pcie_h2d, 1, 64, 4096) ||
	    server_pool_init(&e->pcie_d2h, 1, 64, 4096))
		return -1;

	double clock_hz = cfg->clock_mhz * 1e6;
	e->sector_bytes = cfg->l2_sector_bytes;
	e->dram_cycles_per_sector = cfg->l2_sector_bytes * clock_hz / (cfg->dram_bandwidth_gb_s * 1e9);
	e->dram_latency = cfg->dram_latency_cycles;
	/* pcie.bandwidth_gb_s is the raw rate: zero-copy sectors get what a
	 * pinned transfer achieves of it (derated once, src/uvm/uvm.c) */
	e->pcie_cycles_per_byte = clock_hz / (gpuvm_pcie_effective_gb_s(cfg->pcie_bandwidth_gb_s) * 1e9);
	e->pcie_latency = cfg->pcie_latency_ns * 1e-9 * clock_hz;
	e->zc_cycles_per_wire_byte = clock_hz / (gpuvm_pcie_wire_gb_s(cfg->pcie_bandwidth_gb_s) * 1e9);
	copy_stream_init(&e->cs, e->pcie_latency);
	e->zc_tlp_instr = UINT64_MAX;
	e->base_half = cfg->load_base_latency_cycles / 2;
	e->l2_hit = cfg->l2_hit_latency_cycles;

	if (cfg->dram_banks) {
		/* the row miss of an isolated load is part of the preset's
		 * measured dram.latency_cycles; the rest is the fixed pipe */
		double ns = cfg->clock_mhz * 1e-3; /* cycles per ns */
		struct dram_model_config dc = {
			.channels = cfg->dram_channels,
			.banks = cfg->dram_banks,
			.row_bytes = (uint32_t)cfg->dram_row_bytes,
			/* rings of 4 K and 2 K cycles at P100's rates: small enough to stay in
			 * the host's cache, as long as the engine's reordering */
			.bus_ring_slots = 128, .bank_ring_slots = 32,
			.sector_bytes = cfg->l2_sector_bytes,
			.t_rcd_cycles = cfg->dram_trcd_ns * ns,
			.t_rp_cycles = cfg->dram_trp_ns * ns,
			.t_cas_cycles = cfg->dram_tcas_ns * ns,
			.cycles_per_sector_per_channel = dram_cycles_per_sector_per_channel(
				cfg->l2_sector_bytes, clock_hz, cfg->dram_bandwidth_gb_s * 1e9,
				cfg->dram_channels),
		};
		dc.latency_cycles = cfg->dram_latency_cycles -
				    (dc.t_rp_cycles + dc.t_rcd_cycles + dc.t_cas_cycles +
				     dc.cycles_per_sector_per_channel);
		if (dc.latency_cycles < 0)
			dc.latency_cycles = 0;
		if (dram_model_init(&e->dram_banks, &dc))
			return -1;
		e->dram_banked = true;
	}

	e->l1_on = cfg->l1_bytes > 0;
	/* a unified array is laid out for its largest L1 (the smallest
	 * carve-out); each launch then takes its share (launch_carveout) */
	uint64_t l1_way_line = (uint64_t)cfg->l1_ways * cfg->l1_line_bytes;
	uint64_t l1_alloc = cfg->l1_unified_bytes
				    ? (cfg->l1_unified_bytes - ((uint64_t)cfg->smem_carveouts_kib[0] << 10)) /
					      l1_way_line * l1_way_line
				    : cfg->l1_bytes;
	if (e->l1_on && (l1_cache_init(&e->l1, cfg->sms, l1_alloc, cfg->l1_ways, cfg->l1_line_bytes,
				       cfg->l2_sector_bytes) ||
			 l1_cache_set_replacement(&e->l1, cfg->l1_replacement)))
		return -1;
	e->l1_global = cfg->l1_cache_global != 0;
	e->l1_fill_line = cfg->l1_fill_line != 0;
	e->l1_hit = cfg->l1_hit_latency_cycles;
	e->l1_cycles_per_line = cfg->l2_line_bytes / cfg->l1_bytes_per_cycle;
	e->smem_latency = cfg->smem_latency_cycles;
	e->smem_banks = cfg->smem_banks;

	/* issue: gpu.issue_warp_insts_per_cycle split over the schedulers
	 * (Kepler's dual issue: two per scheduler) */
	e->schedulers = cfg->schedulers_per_sm;
	e->sched_interval = cfg->schedulers_per_sm / cfg->issue_warp_insts_per_cycle;
	for (uint32_t c = 0; c < GPUVM_OP_CLASSES; c++) {
		e->cls_latency[c] = cfg->class_latency_cycles[c];
		e->cls_interval[c] = cfg->class_interval_cycles[c];
		e->cls_step[c] = cfg->class_interval_cycles[c] > e->sched_interval
					 ? cfg->class_interval_cycles[c]
					 : e->sched_interval;
	}

	uint32_t n_warps = cfg->sms * cfg->max_warps_per_sm;
	uint32_t n_ctas = cfg->sms * cfg->max_ctas_per_sm;
	e->sm = calloc(cfg->sms, sizeof *e->sm);
	/* Read only with gpu.cta_issue = after-last. GPGPU-Sim starts its
	 * pointer at cluster 0 (gpu-sim.cc, gpgpu_sim::gpgpu_sim:
	 * m_last_cluster_issue = 0), so the first CTA of a run goes to SM 1. */
	e->last_issued_sm = 0;
	e->warp = calloc(n_warps, sizeof *e->warp);
	e->cta = calloc(n_ctas, sizeof *e->cta);
	e->parked_store = malloc((size_t)n_ctas * cfg->max_warps_per_sm * sizeof(uint32_t));
	e->held = calloc(n_warps, sizeof *e->held);
	if (!e->sm || !e->warp || !e->cta || !e->parked_store || !e->held ||
	    event_queue_init(&e->events, n_warps))
		return -1;
	for (uint32_t c = 0; c < n_ctas; c++)
		e->cta[c].parked = e->parked_store + (size_t)c * cfg->max_warps_per_sm;
	for (uint32_t i = 0; i < cfg->sms; i++) {
		struct sm_state *sm = &e->sm[i];
		sm->free_warp_slots = malloc(cfg->max_warps_per_sm * sizeof(uint32_t));
		sm->free_cta_slots = malloc(cfg->max_ctas_per_sm * sizeof(uint32_t));
		sm->sched = calloc(e->schedulers, sizeof *sm->sched);
		if (!sm->free_warp_slots || !sm->free_cta_slots || !sm->sched)
			return -1;
		/* Stack of free slots; popped in ascending order. */
		for (uint32_t k = 0; k < cfg->max_warps_per_sm; k++)
			sm->free_warp_slots[k] = i * cfg->max_warps_per_sm + (cfg->max_warps_per_sm - 1 - k);
		sm->n_free_warp_slots = cfg->max_warps_per_sm;
		for (uint32_t k = 0; k < cfg->max_ctas_per_sm; k++)
			sm->free_cta_slots[k] = i * cfg->max_ctas_per_sm + (cfg->max_ctas_per_sm - 1 - k);
		sm->n_free_cta_slots = cfg->max_ctas_per_sm;
	}
	return 0;
}

static void engine_free(struct engine *e)
{
	if (e->uvm_on)
		uvm_free(&e->uvm);
	xlat_free(&e->xlat);
	kernel_sampler_free(&e->ks);
	l2_cache_free(&e->l2);
	alloc_table_free(&e->allocs);
	server_pool_free(&e->dram);
	if (e->dram_banked)
		dram_model_free(&e->dram_banks);
	server_pool_free(&e->pcie_h2d);
	copy_stream_free(&e->cs);
	server_pool_free(&e->pcie_d2h);
	event_queue_free(&e->events);
	if (e->sm)
		for (uint32_t i = 0; i < e->cfg->sms; i++) {
			free(e->sm[i].free_warp_slots);
			free(e->sm[i].free_cta_slots);
			free(e->sm[i].sched);
		}
	if (e->l1_on)
		l1_cache_free(&e->l1);
	free(e->sm);
	free(e->warp);
	free(e->cta);
	free(e->parked_store);
	free(e->held);
	free(e->reg_ready);
	free(e->reg_mem);
	free(e->warp_state);
}

static int ensure_warp_state(struct engine *e, size_t bytes)
{
	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes <= e->warp_state_cap)
		return 0;
	size_t n = (size_t)e->cfg->sms * e->cfg->max_warps_per_sm;
	unsigned char *p = realloc(e->warp_state, n * bytes);
	if (!p)
		return -1;
	e->warp_state = p;
	e->warp_state_cap = bytes;
	return 0;
}

/* ---- the SM core: scoreboard and issue ------------------------------ */

static int ensure_regs(struct engine *e)
{
	if (e->reg_ready)
		return 0;
	size_t n = (size_t)e->cfg->sms * e->cfg->max_warps_per_sm * GPUVM_REGS;
	e->reg_ready = calloc(n, sizeof *e->reg_ready);
	e->reg_mem = calloc(n, 1);
	return e->reg_ready && e->reg_mem ? 0 : -1;
}

/* When the item's source operands are there: the registers it reads, or
 * the implicit chain; *from_mem says whether the last comes from memory. */
static inline double operands_ready(const struct engine *e, const struct warp_rt *w,
				    uint32_t wslot, const struct gpuvm_warp_item *it, bool *from_mem)
{
	if (!it->has_regs) {
		*from_mem = w->implicit_mem;
		return w->implicit_ready;
	}
	const double *rr = e->reg_ready + (size_t)wslot * GPUVM_REGS;
	const uint8_t *rm = e->reg_mem + (size_t)wslot * GPUVM_REGS;
	double ops = 0;
	*from_mem = false;
	for (uint32_t i = 0; i < it->n_src && i < GPUVM_ITEM_MAX_SRC; i++) {
		uint16_t r = it->src[i];
		if (r < GPUVM_REGS && rr[r] > ops) {
			ops = rr[r];
			*from_mem = rm[r];
		}
	}
	return ops;
}

/* Issues one compute or memory item of warp w whose operands are ready
 * by t0; returns when the warp may issue its next item. */
static inline double step_item(struct engine *e, struct warp_rt *w, uint32_t wslot,
			       const struct gpuvm_warp_item *it, double t0)
{
	struct gpuvm_stats *s = e->stats;
	bool mem = it->kind == GPUVM_ITEM_MEM;
	uint32_t cls = mem ? GPUVM_CLASS_MEMISSUE
			   : it->op_class < GPUVM_OP_CLASSES ? it->op_class : GPUVM_CLASS_ALU;
	uint32_t n = mem ? 1 : it->compute_insts;
	if (!n)
		return t0;
	double *rr = NULL;
	uint8_t *rm = NULL;
	if (it->has_regs) {
		rr = e->reg_ready + (size_t)wslot * GPUVM_REGS;
		rm = e->reg_mem + (size_t)wslot * GPUVM_REGS;
	}

	/* issue on the warp's scheduler and the class's unit */
	double *sf = &w->sched->free;
	double *uf = &w->sched->unit_free[cls];
	double start = t0;
	if (*sf > start)
		start = *sf;
	if (*uf > start)
		start = *uf;
	s->stall_cycles[GPUVM_STALL_ISSUE] += start - t0;
	double step = e->cls_step[cls];
	*sf = start + n * e->sched_interval;
	*uf = start + n * e->cls_interval[cls];
	double issue_end = start + (n - 1) * step;
	double next = issue_end + e->sched_interval;

	double result;
	bool result_mem = mem;
	if (!mem) {
		s->warp_insts += n;
		/* the gap's longest dependent chain: chain_insts, or all of it */
		uint32_t chain = it->chain_insts ? it->chain_insts : n;
		result = issue_end + e->cls_latency[cls];
		double chained = start + chain * e->cls_latency[cls];
		if (chained > result)
			result = chained;
	} else {
		s->warp_insts++;
		switch (it->space) {
		case GPUVM_SPACE_SHARED:
			s->shared_insts++;
			result = shared_instruction(e, w, it, start);
			break;
		case GPUVM_SPACE_LOCAL:
			s->local_insts++;
			result = local_instruction(e, w, wslot, it, start);
			break;
		default:
			s->mem_insts++;
			s->thread_accesses += (uint32_t)__builtin_popcount(it->active_mask);
			result = memory_instruction(e, w, it, start);
			break;
		}
	}
	if (result > w->drain)
		w->drain = result;
	if (mem && it->op == GPUVM_OP_STORE)
		return next; /* a store writes no register */
	if (it->has_regs) {
		for (uint32_t i = 0; i < it->n_dst && i < GPUVM_ITEM_MAX_DST; i++) {
			uint16_t r = it->dst[i];
			if (r < GPUVM_REGS) {
				rr[r] = result;
				rm[r] = result_mem;
			}
		}
		w->regs_used = true;
	} else {
		/* generators: the warp's next item uses this result */
		w->implicit_ready = result;
		w->implicit_mem = result_mem;
	}
	return next;
}

/* The shared memory an SM offers a launch. With a unified L1/shared array
 * (Volta on) the driver picks the carve-out per kernel: the smallest of
 * the part's carve-outs that holds the blocks the other limits let an SM
 * run (CUDA C++ Programming Guide, "Shared Memory" of compute capability
 * 7.x-9.0: the driver chooses the carve-out for maximum occupancy unless
 * the program prefers otherwise), the largest when none does; the L1 gets
 * the rest of the array. Separate arrays: smem.size. */
static uint64_t launch_carveout(const struct gpuvm_config *cfg, uint32_t ctas_per_sm,
				uint32_t smem_per_cta)
{
	if (!cfg->l1_unified_bytes)
		return cfg->smem_bytes;
	uint64_t need = (uint64_t)ctas_per_sm * smem_per_cta;
	for (uint32_t i = 0; i < cfg->smem_carveouts_len; i++)
		if ((uint64_t)cfg->smem_carveouts_kib[i] << 10 >= need)
			return (uint64_t)cfg->smem_carveouts_kib[i] << 10;
	return cfg->smem_bytes;
}

struct kernel_run {
	struct gpuvm_kernel *k;
	uint64_t ctas, next_cta;
	uint32_t warps_per_cta;
	uint32_t ctas_per_sm; /* occupancy limit for this kernel */
	uint64_t smem_cap;    /* shared memory an SM offers this kernel */
	double end;
	uint64_t ctas_done;
};

static void place_cta(struct engine *e, struct kernel_run *kr, uint32_t smi, double t)
{
	struct sm_state *sm = &e->sm[smi];
	uint32_t cslot = sm->free_cta_slots[--sm->n_free_cta_slots];
	uint64_t cta_id = kr->next_cta++;
	e->last_issued_sm = smi;
	e->cta[cslot].warps_left = kr->warps_per_cta;
	e->cta[cslot].arrived = 0;
	sm->smem_used += kr->k->smem_bytes_per_cta;
	sm->ctas_used++;
	sm->warps_used += kr->warps_per_cta;
	e->stats->ctas++;
	for (uint32_t wi = 0; wi < kr->warps_per_cta; wi++) {
		uint32_t wslot = sm->free_warp_slots[--sm->n_free_warp_slots];
		struct warp_rt *w = &e->warp[wslot];
		w->sm = smi;
		w->cta_slot = cslot;
		w->sched = &sm->sched[wi % e->schedulers]; /* a CTA's warps spread over them */
		w->state = e->warp_state + (size_t)wslot * e->warp_state_cap;
		w->implicit_ready = w->drain = t;
		w->implicit_mem = false;
		w->holding = false;
		if (w->regs_used) { /* a previous warp's results must not hold this one */
			memset(e->reg_ready + (size_t)wslot * GPUVM_REGS, 0,
			       GPUVM_REGS * sizeof(double));
			w->regs_used = false;
		}
		kr->k->ops->warp_begin(kr->k, w->state, (uint32_t)cta_id, wi);
		e->stats->warps++;
		event_queue_push(&e->events, t, wslot);
	}
}

static bool sm_can_take(const struct engine *e, const struct kernel_run *kr, uint32_t smi)
{
	const struct sm_state *sm = &e->sm[smi];
	return sm->ctas_used < kr->ctas_per_sm &&
	       sm->warps_used + kr->warps_per_cta <= e->cfg->max_warps_per_sm &&
	       sm->smem_used + kr->k->smem_bytes_per_cta <= kr->smem_cap;
}

/* Lets the warps parked at c's barrier go once every live warp of the
 * CTA has arrived (exited warps no longer count, as on the hardware). */
static void barrier_release(struct engine *e, struct cta_rt *c)
{
	if (!c->arrived || c->arrived < c->warps_left)
		return;
	/* the last arrival releases the others a branch latency later */
	double t = c->arrive_last + e->cls_latency[GPUVM_CLASS_BRANCH];
	for (uint32_t i = 0; i < c->arrived; i++) {
		e->stats->stall_cycles[GPUVM_STALL_BARRIER] += t - e->warp[c->parked[i]].barrier_at;
		event_queue_push(&e->events, t, c->parked[i]);
	}
	c->arrived = 0;
}

static void warp_finished(struct engine *e, struct kernel_run *kr, uint32_t wslot, double t)
{
	struct warp_rt *w = &e->warp[wslot];
	struct sm_state *sm = &e->sm[w->sm];
	if (kr->k->ops->warp_end)
		kr->k->ops->warp_end(kr->k, w->state);
	sm->free_warp_slots[sm->n_free_warp_slots++] = wslot;
	sm->warps_used--;
	if (t > kr->end)
		kr->end = t;
	struct cta_rt *c = &e->cta[w->cta_slot];
	if (--c->warps_left) {
		barrier_release(e, c);
		return;
	}
	sm->free_cta_slots[sm->n_free_cta_slots++] = w->cta_slot;
	sm->smem_used -= kr->k->smem_bytes_per_cta;
	sm->ctas_used--;
	kr->ctas_done++;
	/* The freed slot takes the next CTA at once, as the hardware's block
	 * scheduler does. */
	if (kr->next_cta < kr->ctas && sm_can_take(e, kr, w->sm))
		place_cta(e, kr, w->sm, t);
}

static void show_progress(struct engine *e, const struct kernel_run *kr, bool final)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double dt = (double)(now.tv_sec - e->last_progress.tv_sec) +
		    (double)(now.tv_nsec - e->last_progress.tv_nsec) * 1e-9;
	if (!final && dt < 0.25)
		return;
	e->last_progress = now;
	fprintf(stderr, "\r  kernel %llu %-24.24s CTAs %llu/%llu  %.3g warp insts%s",
		(unsigned long long)e->kernel_index, kr->k->name,
		(unsigned long long)kr->ctas_done, (unsigned long long)kr->ctas,
		(double)e->stats->warp_insts, final ? "\n" : "");
	fflush(stderr);
}

/* run_kernel admits blocks of up to gpu.max_warps_per_sm warps, which
 * config_keys.c bounds by 1024 */
#define FF_MAX_WARPS_PER_CTA 1024

/* Kernel sampling's fast-forward: drives every warp of the launch
 * functionally, CTA by CTA (its warps round robin, an item each, so warps
 * that wait on one another still progress), with no timing model and no
 * TLB, L2 or DRAM state touched. Work counters stay exact; time is the
 * class's cycles per warp instruction, the other counters its rates per
 * thread access (kernel_sampling.c). */
static int fast_forward_kernel(struct engine *e, struct kernel_run *kr, const struct ks_class *cls,
			       double t, struct gpuvm_error *err)
{
	struct gpuvm_kernel *k = kr->k;
	struct gpuvm_stats *s = e->stats;
	const struct gpuvm_kernel_ops *ops = k->ops;
	uint64_t insts0 = s->warp_insts, accesses0 = s->thread_accesses;
	uint32_t wpc = kr->warps_per_cta;
	double cpi = cls->cycles_per_warp_inst;
	unsigned char live[FF_MAX_WARPS_PER_CTA];
	struct gpuvm_warp_item item;
	uint64_t steps = 0;
	k->functional = true;
	for (; kr->next_cta < kr->ctas; kr->next_cta++) {
		s->ctas++;
		for (uint32_t wi = 0; wi < wpc; wi++) {
			ops->warp_begin(k, e->warp_state + (size_t)wi * e->warp_state_cap,
					(uint32_t)kr->next_cta, wi);
			live[wi] = 1;
			s->warps++;
		}
		for (uint32_t alive = wpc; alive;) {
			for (uint32_t wi = 0; wi < wpc; wi++) {
				if (!live[wi])
					continue;
				unsigned char *state = e->warp_state + (size_t)wi * e->warp_state_cap;
				/* the clock a warp reads: the estimate of time so far */
				k->clock_cycles = t + (double)(s->warp_insts - insts0) * cpi;
				gpuvm_item_reset_timing(&item);
				if (ops->warp_next(k, state, &item, err) < 0) {
					k->functional = false;
					return -1;
				}
				if (item.kind == GPUVM_ITEM_COMPUTE) {
					s->warp_insts += item.compute_insts;
				} else if (item.kind == GPUVM_ITEM_BARRIER) {
					s->warp_insts++;
					s->barriers++;
				} else if (item.kind == GPUVM_ITEM_MEM && item.space != GPUVM_SPACE_GLOBAL) {
					s->warp_insts++;
					*(item.space == GPUVM_SPACE_LOCAL ? &s->local_insts : &s->shared_insts) += 1;
				} else if (item.kind == GPUVM_ITEM_MEM) {
					s->warp_insts++;
					s->mem_insts++;
					s->thread_accesses += (uint32_t)__builtin_popcount(item.active_mask);
				} else {
					if (ops->warp_end)
						ops->warp_end(k, state);
					live[wi] = 0;
					alive--;
				}
			}
		}
		kr->ctas_done++;
		if (e->progress && (++steps & 0xff) == 0)
			show_progress(e, kr, false);
	}
	k->functional = false;
	if (e->progress)
		show_progress(e, kr, true);
	kernel_sampler_charge(&e->ks, cls, s->thread_accesses - accesses0);
	kr->end = t + (double)(s->warp_insts - insts0) * cpi;
	return 0;
}

/* ---- per-kernel results ---------------------------------------------- */

/* The counters at a launch's start, to take differences at its end. */
struct kernel_mark {
	size_t index;
	struct gpuvm_kernel_stats at;
};

static void kernel_counters(const struct gpuvm_stats *s, struct gpuvm_kernel_stats *k)
{
	k->warp_insts = s->warp_insts;
	k->mem_insts = s->mem_insts;
	k->thread_accesses = s->thread_accesses;
	k->l1_hits = s->l1_sector_hits;
	k->l1_misses = s->l1_sector_misses;
	k->l2_hits = s->l2_sector_hits;
	k->l2_misses = s->l2_sector_misses;
	k->tlb_l1_hits = s->tlb[0].hits + s->tlb[0].pending_hits;
	k->tlb_l1_misses = s->tlb[0].misses;
	k->dram_bytes = s->dram_bytes;
	memcpy(k->stall_cycles, s->stall_cycles, sizeof k->stall_cycles);
}

static int kernel_open(struct engine *e, const struct gpuvm_kernel *k, double start,
		       double launch, struct kernel_mark *m)
{
	struct gpuvm_stats *s = e->stats;
	size_t n = s->n_kernel_list;
	if ((n & (n - 1)) == 0) { /* grow at powers of two */
		struct gpuvm_kernel_stats *p = realloc(s->kernel_list, (n ? 2 * n : 1) * sizeof *p);
		if (!p)
			return -1;
		s->kernel_list = p;
	}
	struct gpuvm_kernel_stats *ks = &s->kernel_list[n];
	memset(ks, 0, sizeof *ks);
	snprintf(ks->name, sizeof ks->name, "%s", k->name);
	memcpy(ks->grid, k->grid, sizeof ks->grid);
	memcpy(ks->block, k->block, sizeof ks->block);
	ks->launch_cycles = launch;
	ks->start_cycle = start;
	s->n_kernel_list = n + 1;
	xlat_sync_stats(&e->xlat);
	m->index = n;
	kernel_counters(s, &m->at);
	return 0;
}

static void kernel_close(struct engine *e, const struct kernel_mark *m, double end, bool ff)
{
	struct gpuvm_stats *s = e->stats;
	xlat_sync_stats(&e->xlat);
	struct gpuvm_kernel_stats now, *ks = &s->kernel_list[m->index];
	kernel_counters(s, &now);
	ks->end_cycle = end;
	ks->sim_seconds = (end - ks->start_cycle) / (e->cfg->clock_mhz * 1e6);
	ks->fast_forwarded = ff;
	ks->warp_insts = now.warp_insts - m->at.warp_insts;
	ks->mem_insts = now.mem_insts - m->at.mem_insts;
	ks->thread_accesses = now.thread_accesses - m->at.thread_accesses;
	ks->l1_hits = now.l1_hits - m->at.l1_hits;
	ks->l1_misses = now.l1_misses - m->at.l1_misses;
	ks->l2_hits = now.l2_hits - m->at.l2_hits;
	ks->l2_misses = now.l2_misses - m->at.l2_misses;
	ks->tlb_l1_hits = now.tlb_l1_hits - m->at.tlb_l1_hits;
	ks->tlb_l1_misses = now.tlb_l1_misses - m->at.tlb_l1_misses;
	ks->dram_bytes = now.dram_bytes - m->at.dram_bytes;
	for (int i = 0; i < GPUVM_STALLS; i++)
		ks->stall_cycles[i] = now.stall_cycles[i] - m->at.stall_cycles[i];
}

static int run_kernel(struct engine *e, struct gpuvm_kernel *k, double t0, double *t_end,
		      struct gpuvm_error *err)
{
	const struct gpuvm_config *cfg = e->cfg;
	struct kernel_run kr = {.k = k, .ctas = gpuvm_kernel_ctas(k),
				.warps_per_cta = gpuvm_kernel_warps_per_cta(k)};
	e->stats->kernels++;
	e->kernel_index++;
	if (kr.warps_per_cta == 0 || kr.warps_per_cta > cfg->max_warps_per_sm)
		return gpuvm_fail(err, k->name, 0, NULL,
				  "block of %u warps does not fit an SM (%u warps max)",
				  kr.warps_per_cta, cfg->max_warps_per_sm);
	kr.ctas_per_sm = cfg->max_warps_per_sm / kr.warps_per_cta;
	if (kr.ctas_per_sm > cfg->max_ctas_per_sm)
		kr.ctas_per_sm = cfg->max_ctas_per_sm;
	if (k->smem_bytes_per_cta > cfg->smem_bytes)
		return gpuvm_fail(err, k->name, 0, NULL,
				  "block needs %u bytes of shared memory, an SM has %llu (smem.size)",
				  k->smem_bytes_per_cta, (unsigned long long)cfg->smem_bytes);
	kr.smem_cap = launch_carveout(cfg, kr.ctas_per_sm, k->smem_bytes_per_cta);
	if (ensure_warp_state(e, k->ops->warp_state_bytes))
		return gpuvm_fail(err, k->name, 0, NULL, "out of memory for warp state");

	double launch = cfg->kernel_launch_us * cfg->clock_mhz;
	double t = t0 + launch;
	kr.end = t;
	e->stats->launch_cycles += launch;
	struct kernel_mark mark;
	if (kernel_open(e, k, t, launch, &mark))
		return gpuvm_fail(err, k->name, 0, NULL, "out of memory for per-kernel results");
	if (k->pin && k->pin_sm >= cfg->sms)
		return gpuvm_fail(err, k->name, 0, NULL, "pinned to SM %u of %u", k->pin_sm, cfg->sms);

	struct ks_class *cls = NULL;
	if (e->ks.on && k->sampleable) {
		if (e->uvm_on) {
			/* migrations and evictions carry state from launch to
			 * launch: no launch stands for another */
			kernel_sampler_refuse(&e->ks, "managed memory (UVM paging) is in use: every "
						      "launch simulated in detail");
		} else if (!(cls = kernel_sampler_class(&e->ks, k))) {
			return gpuvm_fail(err, k->name, 0, NULL, "out of memory for kernel sampling");
		}
	}
	if (cls && cls->converged) {
		e->stats->kernel_sampling.fast_forwarded_kernels++;
		if (fast_forward_kernel(e, &kr, cls, t, err))
			return -1;
		kernel_close(e, &mark, kr.end, true);
		*t_end = kr.end;
		return 0;
	}
	e->stats->kernel_sampling.detailed_kernels++;
	uint64_t insts0 = e->stats->warp_insts, accesses0 = e->stats->thread_accesses;
	if (cls)
		kernel_sampler_begin(&e->ks);

	for (uint32_t i = 0; i < cfg->sms; i++) {
		struct sm_state *sm = &e->sm[i];
		for (uint32_t k2 = 0; k2 < e->schedulers; k2++) {
			sm->sched[k2].free = t;
			for (uint32_t c = 0; c < GPUVM_OP_CLASSES; c++)
				sm->sched[k2].unit_free[c] = t;
		}
		sm->l1_free = sm->smem_free = t;
	}
	if (e->l1_on && cfg->l1_unified_bytes)
		l1_cache_resize(&e->l1, cfg->l1_unified_bytes - kr.smem_cap);
	else if (e->l1_on)
		l1_cache_invalidate(&e->l1);
	struct gpuvm_kernel_stats *kst = &e->stats->kernel_list[mark.index];
	kst->l1_bytes = e->l1_on ? (uint64_t)e->l1.sets * e->l1.ways << e->l1.line_shift : 0;
	kst->smem_bytes = kr.smem_cap;
	/* Initial placement: round robin over SMs until occupancy is reached,
	 * from SM 0 or, with gpu.cta_issue = after-last, from the SM after the
	 * last one given a CTA (GPGPU-Sim keeps that pointer across launches,
	 * so launches of a few CTAs move on over the SMs). */
	uint32_t first_sm = cfg->cta_issue_after_last ? (e->last_issued_sm + 1) % cfg->sms : 0;
	for (bool placed = true; placed && kr.next_cta < kr.ctas;) {
		placed = false;
		for (uint32_t i = 0; i < cfg->sms && kr.next_cta < kr.ctas; i++) {
			uint32_t smi = (first_sm + i) % cfg->sms;
			if ((!k->pin || smi == k->pin_sm) && sm_can_take(e, &kr, smi)) {
				place_cta(e, &kr, smi, t);
				placed = true;
			}
		}
	}

	uint64_t steps = 0;
	while (!event_queue_empty(&e->events)) {
		double now;
		uint32_t wslot = event_queue_pop(&e->events, &now);
		struct warp_rt *w = &e->warp[wslot];
		/* The next warp to run is likely the queue's new front: start
		 * loading its state while this one runs. */
		if (!event_queue_empty(&e->events)) {
			/* its state where place_cta put it (no load of its
			 * record first), its record, and the item it may hold:
			 * with thousands of warps these lie beyond the host's
			 * L2 (triad p100: 3,584 warps, 1.2 MB of held items) */
			uint32_t nw = event_queue_front_warp(&e->events);
			const unsigned char *next = e->warp_state + (size_t)nw * e->warp_state_cap;
			for (size_t off = 0; off < e->warp_state_cap && off < 1024; off += 64)
				__builtin_prefetch(next + off);
			const unsigned char *nrt = (const unsigned char *)&e->warp[nw];
			__builtin_prefetch(nrt);
			__builtin_prefetch(nrt + sizeof(struct warp_rt) - 1);
			const unsigned char *nheld = (const unsigned char *)&e->held[nw];
			for (size_t off = 0; off < sizeof(struct gpuvm_warp_item); off += 64)
				__builtin_prefetch(nheld + off);
			__builtin_prefetch(nheld + sizeof(struct gpuvm_warp_item) - 1);
			/* what its next item is read from (worker threads' items:
			 * its chunk, written on another core), reached through
			 * its state, which was prefetched one event earlier as
			 * the one after the next */
			if (k->ops->warp_prefetch)
				k->ops->warp_prefetch(k, next);
			uint32_t nw2 = event_queue_second_warp_hint(&e->events);
			if (nw2 != UINT32_MAX)
				__builtin_prefetch(e->warp_state + (size_t)nw2 * e->warp_state_cap);
		}
		/* Run the warp while it stays the earliest event. */
		for (;;) {
			struct gpuvm_warp_item *it = &e->held[wslot];
			if (w->holding) {
				w->holding = false;
				now = step_item(e, w, wslot, it, now);
				goto issued;
			}
			/* clock64() after the previous load's value is used */
			k->clock_cycles = later(now, w->implicit_ready);
			/* generated in place: a warp that must wait keeps it
			 * there (held), with no copy */
			struct gpuvm_warp_item *item = it;
			gpuvm_item_reset_timing(item);
			if (k->ops->warp_next(k, w->state, item, err) < 0) {
				event_queue_clear(&e->events);
				return -1;
			}
			if (item->kind == GPUVM_ITEM_END) {
				/* it ends when its last result is in */
				warp_finished(e, &kr, wslot, later(w->drain, now));
				break;
			}
			if (item->kind == GPUVM_ITEM_BARRIER) {
				struct cta_rt *c = &e->cta[w->cta_slot];
				e->stats->warp_insts++;
				e->stats->barriers++;
				w->barrier_at = now;
				if (!c->arrived || now > c->arrive_last)
					c->arrive_last = now;
				c->parked[c->arrived++] = wslot;
				barrier_release(e, c); /* the last arrival lets them all go */
				break;
			}
			if (item->has_regs && !e->reg_ready && ensure_regs(e)) {
				event_queue_clear(&e->events);
				return gpuvm_fail(err, k->name, 0, NULL, "out of memory for the scoreboard");
			}
			bool from_mem;
			double ops = operands_ready(e, w, wslot, item, &from_mem);
			if (ops > now) {
				e->stats->stall_cycles[from_mem ? GPUVM_STALL_MEMORY
								: GPUVM_STALL_DEPENDENCY] += ops - now;
				now = ops;
				if (!event_queue_empty(&e->events) &&
				    event_queue_front_time(&e->events) < now) {
					/* wait in the queue: others issue before */
					w->holding = true;
					event_queue_push(&e->events, now, wslot);
					break;
				}
			}
			now = step_item(e, w, wslot, item, now);
		issued:
			if (!event_queue_empty(&e->events) && event_queue_front_time(&e->events) < now) {
				event_queue_push(&e->events, now, wslot);
				break;
			}
		}
		if (e->progress && (++steps & 0xffff) == 0)
			show_progress(e, &kr, false);
	}
	if (e->progress)
		show_progress(e, &kr, true);
	xlat_sync_stats(&e->xlat);
	if (e->zc_stores_done > kr.end)
		kr.end = e->zc_stores_done; /* posted writes still on the link */
	if (cls)
		kernel_sampler_record(&e->ks, cls, kr.end - t, e->stats->warp_insts - insts0,
				      e->stats->thread_accesses - accesses0);
	kernel_close(e, &mark, kr.end, false);
	*t_end = kr.end;
	return 0;
}

/* Tells the source when the events resolved so far ended. */
static void sync_events(const struct engine *e, struct gpuvm_source *src)
{
	double hz = e->cfg->clock_mhz * 1e6;
	for (uint32_t i = 1; i < GPUVM_RUN_EVENTS; i++)
		src->event_seconds[i] = e->cs.event_gen[i] && !e->cs.event_pending[i]
						? e->cs.event_end[i] / hz
						: -1;
}

int gpuvm_simulate(const struct gpuvm_config *cfg, struct gpuvm_source *src,
		   const struct gpuvm_sim_options *opt, struct gpuvm_stats *stats,
		   struct gpuvm_error *err)
{
	memset(stats, 0, sizeof *stats);
	double wall0 = wall_now();
	struct engine e;
	int rc = -1;
	if (engine_init(&e, cfg, stats, opt)) {
		gpuvm_fail(err, "engine", 0, NULL, "out of memory building the model");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &e.last_progress);

	double t = 0;
	const double clock_hz = cfg->clock_mhz * 1e6;
	struct gpuvm_run_op op;
	for (uint32_t i = 0; i < GPUVM_RUN_EVENTS; i++)
		src->event_seconds[i] = -1;
	for (;;) {
		src->now_seconds = t / clock_hz;
		if (src->ops->next_op(src, &op, err) < 0)
			goto out;
		if (op.kind == GPUVM_RUN_END)
			break;
		switch (op.kind) {
		case GPUVM_RUN_ALLOC:
			if (alloc_table_add(&e.allocs, &op.alloc, err))
				goto out;
			if (op.alloc.kind == GPUVM_ALLOC_MANAGED && uvm_track(&e, &op.alloc)) {
				gpuvm_fail(err, op.alloc.name, 0, NULL, "out of memory for page state");
				goto out;
			}
			break;
		case GPUVM_RUN_FREE: {
			const struct gpuvm_alloc *fa = alloc_table_find(&e.allocs, op.alloc.base);
			if (fa && fa->kind == GPUVM_ALLOC_MANAGED && e.uvm_on)
				uvm_remove_alloc(&e.uvm, op.alloc.base);
			alloc_table_remove(&e.allocs, op.alloc.base);
			break;
		}
		case GPUVM_RUN_COPY_H2D:
		case GPUVM_RUN_COPY_D2H: {
			/* Copies run alone between kernels (stream order), so
			 * the link is theirs: size over bandwidth plus latency. */
			bool h2d = op.kind == GPUVM_RUN_COPY_H2D;
			if (e.cs.used) {
				/* after the asynchronous copies issued before it on
				 * its lane */
				double free_at = copy_stream_drain(&e.cs, !h2d);
				sync_events(&e, src);
				if (free_at > t)
					t = free_at;
			}
			/* the link model of migrations (uvm.pcie_model), so copy-then-
			 * execute and paging compare on the same link */
			double end = t + gpuvm_uvm_transfer_seconds(op.copy_bytes, cfg->pcie_bandwidth_gb_s,
								    cfg->uvm_pcie_model == GPUVM_UVM_LINK_CURVE) *
						 cfg->clock_mhz * 1e6 + e.pcie_latency;
			if (h2d)
				stats->pcie_h2d_bytes += op.copy_bytes;
			else
				stats->pcie_d2h_bytes += op.copy_bytes;
			const struct gpuvm_alloc *ca = alloc_table_find(&e.allocs, op.copy_addr);
			if (h2d && ca && ca->kind == GPUVM_ALLOC_MANAGED && e.uvm_on) {
				/* cudaMemcpy into managed memory leaves its pages on the GPU */
				uint64_t room = ca->base + ca->bytes - op.copy_addr;
				end = uvm_copy_in(&e.uvm, op.copy_addr,
						  op.copy_bytes < room ? op.copy_bytes : room, t, end);
			}
			stats->copy_cycles += end - t;
			t = end;
			break;
		}
		case GPUVM_RUN_COPY_H2D_ASYNC:
		case GPUVM_RUN_COPY_D2H_ASYNC: {
			bool h2d = op.kind == GPUVM_RUN_COPY_H2D_ASYNC;
			const struct gpuvm_alloc *ca = alloc_table_find(&e.allocs, op.copy_addr);
			if (!ca || ca->kind != GPUVM_ALLOC_DEVICE) {
				gpuvm_fail(err, "engine", 0, NULL,
					   "an asynchronous copy must be to or from device memory");
				goto out;
			}
			double cycles = gpuvm_uvm_transfer_seconds(op.copy_bytes, cfg->pcie_bandwidth_gb_s,
								   cfg->uvm_pcie_model == GPUVM_UVM_LINK_CURVE) *
					clock_hz;
			if (copy_stream_issue(&e.cs, !h2d, t, cycles, op.event)) {
				gpuvm_fail(err, "engine", 0, NULL,
					   "more than %d asynchronous copies unconsumed, or event %u out of range",
					   COPY_STREAM_PENDING, op.event);
				goto out;
			}
			if (h2d)
				stats->pcie_h2d_bytes += op.copy_bytes;
			else
				stats->pcie_d2h_bytes += op.copy_bytes;
			stats->async_copies++;
			stats->async_copy_cycles += cycles + e.pcie_latency;
			break;
		}
		case GPUVM_RUN_DEVICE_SYNC:
			if (e.cs.used) {
				/* the copy streams too */
				double f0 = copy_stream_drain(&e.cs, 0), f1 = copy_stream_drain(&e.cs, 1);
				sync_events(&e, src);
				t = later(t, later(f0, f1));
			}
			/* the host waits for the GPU; under uvm.device_sync =
			 * writeback it also waits for the write-back of dirty
			 * managed pages, a copy between kernels */
			if (e.uvm_on) {
				double end = uvm_device_sync(&e.uvm, t);
				stats->copy_cycles += end - t;
				t = end;
			}
			break;
		case GPUVM_RUN_KERNEL: {
			if (op.wait_event) {
				/* cudaStreamWaitEvent: not before its copy is in */
				double ready = copy_stream_event_end(&e.cs, op.wait_event);
				sync_events(&e, src);
				if (ready > t) {
					stats->async_wait_cycles += ready - t;
					t = ready;
				}
			}
			double end = t;
			double busy0 = e.lane_busy[0], busy1 = e.lane_busy[1];
			uint64_t uvm_h2d = stats->uvm.bytes_h2d, uvm_d2h = stats->uvm.bytes_d2h;
			if (run_kernel(&e, op.kernel, t, &end, err))
				goto out;
			if (copy_stream_pending(&e.cs)) {
				/* the lane time this kernel's traffic took: zero-copy
				 * packets as held, paging at the link's bulk rate */
				double b0 = e.lane_busy[0] - busy0 +
					    (double)(stats->uvm.bytes_h2d - uvm_h2d) * e.pcie_cycles_per_byte;
				double b1 = e.lane_busy[1] - busy1 +
					    (double)(stats->uvm.bytes_d2h - uvm_d2h) * e.pcie_cycles_per_byte;
				if (copy_stream_span(&e.cs, t, end, b0, b1)) {
					gpuvm_fail(err, "engine", 0, NULL, "out of memory for copy streams");
					goto out;
				}
			}
			stats->kernel_cycles += end - t;
			t = end;
			break;
		}
		case GPUVM_RUN_END:
			break;
		}
	}
	if (e.cs.used) {
		/* the run ends when the last copy has */
		double f0 = copy_stream_drain(&e.cs, 0), f1 = copy_stream_drain(&e.cs, 1);
		sync_events(&e, src);
		t = later(t, later(f0, f1));
	}
	if (e.uvm_on) {
		uvm_finish(&e.uvm);
		stats->pcie_h2d_bytes += stats->uvm.bytes_h2d;
		stats->pcie_d2h_bytes += stats->uvm.bytes_d2h;
		if (e.uvm.oom) {
			gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
			goto out;
		}
	}
	stats->sim_cycles = t;
	stats->sim_seconds = t / (cfg->clock_mhz * 1e6);
	if (src->ops->result)
		src->ops->result(src, stats->result, sizeof stats->result);
	if (src->ops->work_items)
		stats->work_items = src->ops->work_items(src);
	rc = 0;
out:
	engine_free(&e);
	stats->wall_seconds = wall_now() - wall0;
	return rc;
}

const char *const gpuvm_stall_names[GPUVM_STALLS] = {"memory", "dependency", "barrier", "issue",
						     "fault"};

void gpuvm_stats_release(struct gpuvm_stats *stats)
{
	free(stats->kernel_list);
	stats->kernel_list = NULL;
	stats->n_kernel_list = 0;
	free(stats->uvm.allocs);
	stats->uvm.allocs = NULL;
	stats->uvm.n_allocs = 0;
	free(stats->uvm.util_h2d_busy_cycles);
	free(stats->uvm.util_d2h_busy_cycles);
	stats->uvm.util_h2d_busy_cycles = stats->uvm.util_d2h_busy_cycles = NULL;
	for (uint32_t l = 0; l < GPUVM_MAX_TLB_LEVELS; l++) {
		free(stats->tlb[l].instance_hits);
		free(stats->tlb[l].instance_misses);
		stats->tlb[l].instance_hits = stats->tlb[l].instance_misses = NULL;
	}
	free(stats->tlb_sharing.local_misses);
	free(stats->tlb_sharing.neighbour_held);
	stats->tlb_sharing.local_misses = stats->tlb_sharing.neighbour_held = NULL;
}
