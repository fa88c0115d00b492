/* The SM layer's issue path (sm.h holds the contract): one warp item
 * issued on its scheduler and unit, and a memory instruction's lanes
 * coalesced, translated and served, each sector through the L1 or
 * straight to the memory partitions, the host link or the UVM driver
 * (sm_sector.h); with core.window on threads, only planned (coalesced
 * and translated) for the barrier's second stage (sm_serve.c). The hot
 * path of the simulator: the requests to the memory partitions
 * (memsys.h) are inline functions, so splitting the engine into
 * components kept its code as it was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE4_2__
#include <nmmintrin.h>
#endif

#include "core/later.h"
#include "core/req_trace.h"
#include "core/vec.h"
#include "mem/alloc_table.h"
#include "link/link.h"
#include "memsys/memsys.h"
#include "mem/smem_banks.h"
#include "sm/sm.h"
#include "sm/sm_sector.h"
#include "uvm/uvm.h"
#include "xlat/xlat.h"

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

/* core.window on threads: a translated sector handed from the barrier's
 * first stage to its second (plan: the instruction being planned). */
static inline __attribute__((always_inline)) void plan_sector(struct sm_plan *plan, uint64_t sa,
								double tx)
{
	plan->sec[plan->n_sec++] = (struct sm_plan_sector){.addr = sa, .tx = tx};
}

/* A unit's translation at a, with a's allocation looked up first (*kind)
 * and handed to the translation in its request (the page port then does
 * not look it up again); *kind_addr = a: the kind also serves the
 * sector that starts at a (sector_kind), so a unit's first sector, when
 * its lane starts it, is looked up once. first: the next sector served
 * starts at a; then a managed one (without uvm_counts' path) is named in
 * the request, so a walk's page port hands its access to the driver with
 * the walk (the SM's booked slot; access_managed_sector takes it) and
 * the driver takes one request for both. */
static inline __attribute__((always_inline)) double
translate_kind(struct sm_layer *sl, uint32_t sm, uint64_t a, double t, bool first, bool write,
	       enum gpuvm_alloc_kind *kind, uint64_t *kind_addr)
{
	*kind = alloc_table_kind(sl->port.allocs, a);
	*kind_addr = a;
	struct xlat_req r = {.sm = sm, .addr = a, .t = t, .managed_known = true,
			     .managed = *kind == GPUVM_ALLOC_MANAGED, .access = NULL};
	if (__builtin_expect(r.managed, 0) && first && !sl->uvm_counts) {
		struct uvm_sector_slot *bk = &sl->booked;
		bk->sector_addr = a;
		bk->write = write;
		bk->booked = false;
		r.access = bk;
	}
	return xlat_translate_req(sl->port.xlat, &r);
}

/* Sector sa's allocation kind: the translation's (translate_kind, kind
 * of kind_addr) when sa lies in the same allocation block as the address
 * it looked up (no allocation boundary can fall between them), else a
 * lookup. */
static inline __attribute__((always_inline)) enum gpuvm_alloc_kind
sector_kind(const struct sm_layer *sl, uint64_t sa, enum gpuvm_alloc_kind kind, uint64_t kind_addr)
{
	return alloc_table_same_block(sl->port.allocs, sa, kind_addr)
		       ? kind
		       : alloc_table_kind(sl->port.allocs, sa);
}

/* The sectors of ascending lanes, in order: each unit translated once,
 * each sector served once (run: a load's L2 misses gathered into DRAM
 * runs, load_run_sector; else serve_sector), lines counted. by_sector:
 * a full warp of contiguous lanes, each within one sector (a power of
 * two at most a sector, aligned to its size), walked sector by sector
 * instead of lane by lane; a sector's first lane starts at the sector's
 * start (the first one at addr[0]), and so does a unit's, so the same
 * translations (same addresses), sectors and lines. Inlined into its
 * callers, so each gets its own copy without the run and plan tests.
 * plan: the sectors are translated and counted (into s), not served,
 * and handed to the plan for the barrier's second stage. runs_open (run
 * only): load_run_sector's. */
static inline __attribute__((always_inline)) double
sector_walk(struct sm_layer *sl, const struct warp_rt *w, const struct gpuvm_warp_item *it,
	    enum l1_mode l1mode, double xstart, double done, bool by_sector, bool run,
	    struct gpuvm_stats *s, struct sm_plan *plan, bool *runs_open)
{
	const struct coalescer *co = &sl->co;
	/* locals: the stores to the statistics would otherwise make the
	 * compiler reload these for every lane */
	const uint32_t sector_shift = co->sector_shift, unit_shift = co->unit_shift;
	const uint32_t sectors_per_line_shift = co->line_shift - sector_shift;
	const uint64_t span = it->bytes_per_lane - 1;
	uint64_t last_unit = UINT64_MAX, next_sector = 0, last_line = UINT64_MAX;
	uint64_t units = 0, lines = 0, sectors = 0;
	double tx = 0;
	enum gpuvm_alloc_kind kind = GPUVM_ALLOC_DEVICE;
	uint64_t kind_addr = UINT64_MAX; /* no sector starts there */
	if (by_sector) {
		uint64_t a0 = it->addr[0];
		uint64_t s0 = a0 >> sector_shift, s1 = (a0 + 32 * (span + 1) - 1) >> sector_shift;
		for (uint64_t sec = s0; sec <= s1; sec++) {
			uint64_t sa = sec << sector_shift;
			uint64_t unit = sa >> unit_shift;
			/* the sector's allocation: the translation's when it
			 * starts at the address translated, else looked up */
			enum gpuvm_alloc_kind k = GPUVM_ALLOC_DEVICE;
			if (unit != last_unit) {
				uint64_t xa = sec == s0 ? a0 : sa;
				tx = plan ? xlat_translate(sl->port.xlat, w->sm, xa, xstart)
					  : translate_kind(sl, w->sm, xa, xstart, xa == sa,
							   it->op != GPUVM_OP_LOAD, &kind, &kind_addr);
				if (!plan)
					k = sector_kind(sl, sa, kind, kind_addr);
				units++;
				last_unit = unit;
			} else if (!plan) {
				k = sector_kind(sl, sa, kind, kind_addr);
			}
			uint64_t line = sec >> sectors_per_line_shift;
			if (line != last_line) {
				lines++;
				last_line = line;
			}
			sectors++;
			if (plan) {
				plan_sector(plan, sa, tx);
			} else {
				done = run ? load_run_sector_kind(sl, w->sm, it, sa, k, tx, done,
								  runs_open)
					   : later(serve_sector_kind(sl, w->sm, it, sa, k, l1mode, tx),
						   done);
			}
		}
	} else {
		for (uint32_t m = it->active_mask; m; m &= m - 1) {
			uint64_t a = it->addr[__builtin_ctz(m)];
			uint64_t unit = a >> unit_shift;
			uint64_t lastsec = (a + span) >> sector_shift;
			if (unit == last_unit && lastsec < next_sector)
				continue; /* every sector of the lane served for an earlier one */
			if (unit != last_unit) {
				/* the sector a starts is served next unless an
				 * earlier lane's was */
				bool first = !(a & ((1ull << sector_shift) - 1)) &&
					     a >> sector_shift >= next_sector;
				tx = plan ? xlat_translate(sl->port.xlat, w->sm, a, xstart)
					  : translate_kind(sl, w->sm, a, xstart, first,
							   it->op != GPUVM_OP_LOAD, &kind, &kind_addr);
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
				sectors++;
				if (plan) {
					plan_sector(plan, sa, tx);
				} else {
					enum gpuvm_alloc_kind k = sector_kind(sl, sa, kind, kind_addr);
					done = run ? load_run_sector_kind(sl, w->sm, it, sa, k, tx,
									  done, runs_open)
						   : later(serve_sector_kind(sl, w->sm, it, sa, k,
									     l1mode, tx),
							   done);
				}
			}
			if (lastsec + 1 > next_sector)
				next_sector = lastsec + 1;
		}
	}
	s->xlat_units += units;
	s->lines += lines;
	s->sectors += sectors;
	return done;
}

/* ascending_sectors for a load that bypasses the L1 with banked DRAM: the
 * same translations, L2 accesses and counts, but the L2 misses of device
 * memory go to the DRAM a run per interleave chunk (a coalesced load's
 * sectors of one 256 B chunk: one bank and one bus reservation for them
 * all, not one each). Each memory partition gathers its own: a run is
 * sent when the partition's next miss does not extend it, before that
 * partition's next DRAM access, and at the end, so a partition's DRAM
 * requests keep their order apart from an L2 victim's write-back, which
 * goes ahead of the run the instruction has open there. */
static __attribute__((noinline)) double ascending_load_runs(struct sm_layer *sl,
							    const struct warp_rt *w,
							    const struct gpuvm_warp_item *it,
							    double xstart, double done,
							    bool by_sector)
{
	bool runs_open = false;
	done = sector_walk(sl, w, it, L1_BYPASS, xstart, done, by_sector, true, sl->stats, NULL,
			   &runs_open);
	return load_runs_end(sl, done, runs_open);
}

/* memory_instruction's lanes when their addresses ascend: every unit,
 * sector and line seen before in the instruction is then the latest one,
 * so the coalescer's sets are not needed; the same translations and
 * sectors, in the same order, and the same line count as the general
 * loop. Returns the latest of done and the sectors' results (plan: the
 * sectors planned, as sector_walk; the L2 is the second stage's, so no
 * prefetch here). */
static inline __attribute__((always_inline)) double
ascending_sectors(struct sm_layer *sl, const struct warp_rt *w, const struct gpuvm_warp_item *it,
		  enum l1_mode l1mode, double xstart, double done, bool contiguous,
		  struct gpuvm_stats *s, struct sm_plan *plan)
{
	const struct coalescer *co = &sl->co;
	uint32_t sector_shift = co->sector_shift;
	uint64_t last_line = UINT64_MAX;
	/* the distinct lines' L2 sets, loading while the first is served
	 * (ascending lanes: when they span a few lines, those lines; a
	 * prefetch changes no result) */
	uint32_t line_shift = co->line_shift;
	uint64_t lo = it->addr[__builtin_ctz(it->active_mask)] >> line_shift;
	uint64_t hi = it->addr[31 - __builtin_clz(it->active_mask)] >> line_shift;
	if (plan) {
	} else if (hi - lo < 8) {
		for (uint64_t line = lo; line <= hi; line++)
			memsys_l2_prefetch(sl->port.mem, line << line_shift);
	} else {
		for (uint32_t m = it->active_mask; m; m &= m - 1) {
			uint64_t line = it->addr[__builtin_ctz(m)] >> line_shift;
			if (line != last_line)
				memsys_l2_prefetch(sl->port.mem, line << line_shift);
			last_line = line;
		}
	}
	/* a full warp of contiguous lanes, sector by sector (sector_walk) */
	uint64_t bpl = it->bytes_per_lane;
	bool by_sector = contiguous && bpl <= (1ull << sector_shift) && !(bpl & (bpl - 1)) &&
			 !(it->addr[0] & (bpl - 1)) && co->unit_shift >= sector_shift;
	bool runs = l1mode == L1_BYPASS && sl->dram_banked && it->op == GPUVM_OP_LOAD;
	if (plan) {
		plan->part[plan->n_part - 1].runs = runs;
		return sector_walk(sl, w, it, l1mode, xstart, done, by_sector, false, s, plan, NULL);
	}
	if (runs)
		return ascending_load_runs(sl, w, it, xstart, done, by_sector);
	return sector_walk(sl, w, it, l1mode, xstart, done, by_sector, false, s, NULL, NULL);
}

/* The cycles the L1's tag and data stages hold one instruction that
 * touches `lines` distinct lines and `sectors` sectors. With
 * l1.tags_per_cycle, GV100 on: the tag stage makes one wavefront a cycle
 * of up to 4 lines ("the tag stage can look up 4 tags per cycle resolving
 * a maximum of 16 sectors (4 tags x 4 sectors)"; "if not all threads can
 * be resolved in one wavefront then the instruction will continue to
 * generate new wavefronts", NVIDIA's Greg Smith,
 * forums.developer.nvidia.com/t/pascal-l1-cache/49571/14 and
 * /t/how-does-the-lsu-load-store-unit-execute-load-store-instructions-in-
 * the-ampere-architecture/273699/8), and the data stage returns sectors at
 * the L1's bandwidth: 32 lanes on 32 lines take 8 cycles, not 32; a
 * broadcast or a coalesced 128 B line one. Off: each line moves whole. */
static inline double l1_stage_cycles(const struct sm_layer *sl, uint64_t lines, uint64_t sectors)
{
	if (sl->l1_cycles_per_tag <= 0)
		return (double)lines * sl->l1_cycles_per_line;
	double wavefronts = ceil((double)lines * sl->l1_cycles_per_tag);
	double data = (double)sectors * sl->l1_cycles_per_sector;
	return wavefronts > data ? wavefronts : data;
}

/* Serves one memory instruction issued at start on warp w; returns when
 * its last sector is back (stores: when they have left). plan (the
 * barrier's first stage, core.window on threads): the instruction is
 * coalesced, translated and counted (into s) and its sectors handed to
 * the plan as one part; the second stage serves them (sm_serve_plan).
 * Always inline: memory_instruction and plan_instruction are its two
 * copies, the first as it was without plans. */
static inline __attribute__((always_inline)) double
memory_instruction_impl(struct sm_layer *sl, struct warp_rt *w, const struct gpuvm_warp_item *it,
			double start, struct gpuvm_stats *s, struct sm_plan *plan)
{
	uint32_t lanes = (uint32_t)__builtin_popcount(it->active_mask);
	if (!lanes)
		return start + 1;
	enum l1_mode l1mode = l1_mode_of(sl, it);
	/* the L1's tag/data stage is busy with the SM's last instruction */
	struct sm_state *sm = &sl->sm[w->sm];
	if (sm->l1_free > start)
		start = sm->l1_free;
	if (plan) {
		plan->part[plan->n_part++] = (struct sm_plan_part){
			.start = start, .instr = ++sl->mem_instr_seq, .first = (uint32_t)plan->n_sec,
			.l1mode = (uint8_t)l1mode};
	} else {
		sl->serve_instr = ++sl->mem_instr_seq;
		sl->store_left = 0;
	}
	uint64_t lines0 = s->lines, sectors0 = s->sectors;

	/* the lanes' order: the source's word for it (worker threads' items:
	 * computed on the worker) or a scan */
	bool contiguous = it->lanes_order == GPUVM_LANES_CONTIGUOUS;
	bool ascending = it->bytes_per_lane &&
			 (it->lanes_order ? true : lanes_ascending(it, &contiguous));
	if (lanes > 4 && !ascending && !plan) {
		for (uint32_t m = it->active_mask; m; m &= m - 1)
			memsys_l2_prefetch(sl->port.mem, it->addr[__builtin_ctz(m)]);
		/* scattered lanes of managed memory: their pages' paging state,
		 * which their walks read (a prefetch changes no result) */
		if (sl->port.uvm)
			for (uint32_t m = it->active_mask; m; m &= m - 1)
				uvm_prefetch_page(sl->port.uvm, it->addr[__builtin_ctz(m)]);
	}

	double xstart = start;
	if (__builtin_expect(sl->uvm_blocking, 0) && uvm_sm_blocked_until(sl->port.uvm, w->sm) > start) {
		/* blocking faults: the SM's TLB takes nothing until its fault is served */
		xstart = uvm_sm_blocked_until(sl->port.uvm, w->sm);
		s->uvm.stall_blocked_cycles += xstart - start;
		s->stall_cycles[GPUVM_STALL_FAULT] += xstart - start;
	}

	struct coalescer *co = &sl->co;
	double done = start + 1;
	if (ascending) {
		done = ascending_sectors(sl, w, it, l1mode, xstart, done, contiguous, s, plan);
		goto served;
	}
	coalescer_begin(co);
	uint32_t sector_shift = co->sector_shift;
	uint64_t last_unit = UINT64_MAX, last_sector = UINT64_MAX;
	double last_tx = 0;
	enum gpuvm_alloc_kind kind = GPUVM_ALLOC_DEVICE;
	uint64_t kind_addr = UINT64_MAX; /* translate_kind's */

	/* While every lane so far opened a unit of its own (random access),
	 * its sectors and lines cannot have been seen before: they are served
	 * without consulting the sector and line sets, which are filled only
	 * once a lane shares a unit (lazy_lanes: the lanes to enter then). */
	bool lazy = co->lazy_ok;
	uint32_t lazy_lanes = 0;
	uint64_t sectors = 0; /* a local: a store a sector would reload the loop's */
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
				/* a unit no lane had: the sector a starts, if
				 * it starts one, is served next */
				last_tx = plan ? xlat_translate(sl->port.xlat, w->sm, a, xstart)
					       : translate_kind(sl, w->sm, a, xstart,
								!(a & ((1ull << sector_shift) - 1)),
								it->op != GPUVM_OP_LOAD, &kind,
								&kind_addr);
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
			sectors++;
			if (plan)
				plan_sector(plan, sec << sector_shift, last_tx);
			else
				done = later(serve_sector_kind(sl, w->sm, it, sec << sector_shift,
							       sector_kind(sl, sec << sector_shift,
									   kind, kind_addr),
							       l1mode, last_tx),
					     done);
		}
	}
	s->sectors += sectors;
served:;
	double stage = l1_stage_cycles(sl, s->lines - lines0, s->sectors - sectors0);
	sm->l1_free = start + stage;
	if (plan) {
		struct sm_plan_part *part = &plan->part[plan->n_part - 1];
		part->n = (uint32_t)(plan->n_sec - part->first);
		part->stage = stage;
		return 0;
	}
	return instruction_done(sl, it->op, start, stage, done);
}

static double memory_instruction(struct sm_layer *sl, struct warp_rt *w,
				 const struct gpuvm_warp_item *it, double start)
{
	REQ_TRACE_BEGIN();
	REQ_TRACE_DOWN("sm", "memory_instruction");
	double done = memory_instruction_impl(sl, w, it, start, sl->stats, NULL);
	REQ_TRACE_UP("sm", "memory_instruction");
	REQ_TRACE_END();
	return done;
}

static void plan_instruction(struct sm_layer *sl, struct warp_rt *w,
			     const struct gpuvm_warp_item *it, double start, struct sm_plan *plan)
{
	memory_instruction_impl(sl, w, it, start, plan->counts, plan);
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

static inline __attribute__((always_inline)) double
local_instruction_impl(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
		       const struct gpuvm_warp_item *it, double start, struct sm_plan *plan)
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
		if (plan) {
			plan_instruction(sl, w, &sub, start, plan);
			continue;
		}
		double d = memory_instruction(sl, w, &sub, start);
		done = later(d, done);
	}
	return done;
}

static double local_instruction(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
				const struct gpuvm_warp_item *it, double start)
{
	return local_instruction_impl(sl, w, wslot, it, start, NULL);
}

/* Shared memory: its latency plus smem.wavefront_cycles (one, or two as
 * Hopper's k-way conflicts measure: docs/hardware.md) per extra wavefront
 * that bank conflicts force; the banks serve one wavefront at a time. */
static double shared_instruction(struct sm_layer *sl, struct warp_rt *w,
				 const struct gpuvm_warp_item *it, double start)
{
	struct sm_state *sm = &sl->sm[w->sm];
	uint32_t waves = smem_wavefronts(it->addr, it->active_mask, it->bytes_per_lane,
					 sl->smem_banks);
	sl->stats->smem_wavefronts += waves;
	if (sm->smem_free > start)
		start = sm->smem_free;
	sm->smem_free = start + waves * sl->smem_wavefront_cycles;
	if (it->op == GPUVM_OP_STORE)
		return start + 1;
	return start + sl->smem_latency + (waves ? waves - 1 : 0) * sl->smem_wavefront_cycles;
}

/* Dual issue (core.dispatch_units = 2; NVIDIA Kepler GK110 whitepaper,
 * 2012, "Quad Warp Scheduler": "four warp schedulers and eight instruction
 * dispatch units ... Kepler's quad warp scheduler selects four warps, and
 * two independent instructions per warp can be dispatched each cycle"). A gap of n instructions whose longest
 * dependent chain is c holds its scheduler for max(c, ceil(n / units))
 * issue slots: two instructions pair only when the second does not read
 * the first, so each link of the chain takes a slot of its own, and a
 * slot takes at most `units` of them. The class's units still take one
 * instruction per initiation interval. Sets the scheduler's next free
 * cycle; returns the interval between the gap's instructions. Items
 * with registers (traces: one instruction each) and memory instructions
 * keep single issue. */
static double multi_issue(const struct sm_layer *sl, struct sched_state *sched,
			  const struct gpuvm_warp_item *it, uint32_t n, uint32_t cls, double start)
{
	uint32_t chain = it->chain_insts && it->chain_insts < n ? it->chain_insts : n;
	uint32_t slots = (n + sl->dispatch_units - 1) / sl->dispatch_units;
	if (chain > slots)
		slots = chain;
	double sched_cycles = slots * sl->sched_interval;
	double unit_cycles = n * sl->cls_interval[cls];
	sched->free = start + sched_cycles;
	return (sched_cycles > unit_cycles ? sched_cycles : unit_cycles) / n;
}

/* core.window: a memory instruction recorded at its issue, served at the
 * barrier as it would have been at its issue (sm.h). */
double sm_serve_memory(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
		       const struct gpuvm_warp_item *it, double start)
{
	sl->store_ack = 0;
	return it->space == GPUVM_SPACE_LOCAL ? local_instruction(sl, w, wslot, it, start)
					      : memory_instruction(sl, w, it, start);
}

size_t sm_plan_sectors_max(const struct sm_layer *sl, const struct gpuvm_warp_item *it,
			  size_t *parts)
{
	size_t lanes = (size_t)__builtin_popcount(it->active_mask);
	if (it->space == GPUVM_SPACE_LOCAL) {
		/* one 4-byte word (two sectors at most) a lane, per word */
		size_t words = it->bytes_per_lane > 4 ? (it->bytes_per_lane + 3) / 4 : 1;
		*parts = words;
		return words * lanes * 2;
	}
	/* a lane's bytes, plus one sector where they straddle a boundary */
	size_t per_lane = (it->bytes_per_lane + sl->sector_bytes - 1) / sl->sector_bytes + 1;
	*parts = 1;
	return lanes * per_lane;
}

size_t sm_plan_room(const struct sm_layer *sl, size_t n, size_t *parts)
{
	size_t secs = 0;
	*parts = 0;
	for (size_t i = 0; i < n; i++) {
		size_t pa;
		secs += sm_plan_sectors_max(sl, &sl->req_key[i].r->item, &pa);
		*parts += pa;
	}
	return secs;
}

int sm_plan_reserve(struct sm_plan *plan, size_t secs, size_t parts)
{
	if (VEC_RESERVE(plan->sec, plan->cap_sec, secs) ||
	    VEC_RESERVE(plan->part, plan->cap_part, parts))
		return -1;
	return 0;
}

void sm_plan_memory(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
		    const struct gpuvm_warp_item *it, double start, struct sm_plan *plan)
{
	if (it->space == GPUVM_SPACE_LOCAL)
		local_instruction_impl(sl, w, wslot, it, start, plan);
	else
		plan_instruction(sl, w, it, start, plan);
}

/* Issues one compute or memory item of warp w whose operands are ready
 * by t0; returns when the warp may issue its next item. */
double sm_step_item(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
		    const struct gpuvm_warp_item *it, double t0)
{
	struct gpuvm_stats *s = sl->stats;
	bool mem = it->kind == GPUVM_ITEM_MEM;
	uint32_t cls = sm_item_class(it);
	uint32_t n = mem ? 1 : it->compute_insts;
	if (!n)
		return t0;
	double *rr = NULL;
	uint8_t *rm = NULL;
	if (it->has_regs) {
		rr = sl->reg_ready + (size_t)wslot * GPUVM_REGS;
		rm = sl->reg_mem + (size_t)wslot * GPUVM_REGS;
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
	double step = sl->cls_step[cls];
	if (__builtin_expect(sl->dispatch_units > 1, 0) && !mem && n > 1)
		step = multi_issue(sl, w->sched, it, n, cls, start);
	else
		*sf = start + n * sl->sched_interval;
	*uf = start + n * sl->cls_interval[cls];
	double issue_end = start + (n - 1) * step;
	double next = issue_end + sl->sched_interval;

	double result;
	bool result_mem = mem;
	if (!mem) {
		s->warp_insts += n;
		/* the gap's longest dependent chain: chain_insts, or all of it */
		uint32_t chain = it->chain_insts ? it->chain_insts : n;
		result = issue_end + sl->cls_latency[cls];
		double chained = start + chain * sl->cls_latency[cls];
		if (chained > result)
			result = chained;
	} else {
		s->warp_insts++;
		sl->store_ack = 0;
		sl->store_issue_hold = 0;
		switch (it->space) {
		case GPUVM_SPACE_SHARED:
			s->shared_insts++;
			result = shared_instruction(sl, w, it, start);
			break;
		case GPUVM_SPACE_LOCAL:
			s->local_insts++;
			if (__builtin_expect(sl->windowed, 0) && it->active_mask) {
				/* out of memory: nothing recorded, the barrier
				 * fails the run (a partition's thread must not
				 * serve it here) */
				(void)sm_defer_instruction(sl, w, wslot, it, start);
				return next;
			}
			result = local_instruction(sl, w, wslot, it, start);
			break;
		default:
			s->mem_insts++;
			s->thread_accesses += (uint32_t)__builtin_popcount(it->active_mask);
			if (__builtin_expect(sl->windowed, 0) && it->active_mask) {
				/* out of memory: nothing recorded, the barrier
				 * fails the run (a partition's thread must not
				 * serve it here) */
				(void)sm_defer_instruction(sl, w, wslot, it, start);
				return next;
			}
			result = memory_instruction(sl, w, it, start);
			break;
		}
		/* gpu.warp_exit_waits_stores: the warp's end waits for the
		 * L2's ack of its stores (GPGPU-Sim: a warp exits only when
		 * shd_warp_t::hardware_done, which needs stores_done, every
		 * WRITE_ACK back); the warp still issues on at once. Local
		 * stores the L1 keeps (write-back) are acked by the L1. */
		if (sl->exit_waits_stores && it->op == GPUVM_OP_STORE && sl->store_ack > w->drain)
			w->drain = sl->store_ack;
	}
	if (result > w->drain)
		w->drain = result;
	if (mem && it->op == GPUVM_OP_STORE) /* a store writes no register */
		return later(next, sl->store_issue_hold);
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
		if (sm_item_load_indep(it)) {
			if (result > w->implicit_loads)
				w->implicit_loads = result;
		} else {
			w->implicit_ready = result;
			w->implicit_loads = 0;
		}
		w->implicit_mem = result_mem;
	}
	return next;
}
