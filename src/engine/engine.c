/* The simulation engine.
 *
 * Time is in SM cycles (double, so sub-cycle bandwidth service times add
 * up exactly). Each resident warp is an event in a min-heap keyed by the
 * time it can issue next; a warp alternates compute gaps (which occupy the
 * SM's issue slots) and memory instructions (coalesced, translated, served
 * by L2/DRAM or PCIe; loads and atomics block the warp until the last
 * sector returns). Shared resources are queues, so contention is waiting. */
#include "gpuvm/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/later.h"
#include "engine/alloc_table.h"
#include "engine/coalescer.h"
#include "engine/event_queue.h"
#include "engine/kernel_sampling.h"
#include "mem/l2_cache.h"
#include "mem/server_pool.h"
#include "uvm/uvm.h"
#include "xlat/xlat.h"

struct sm_state {
	double issue_free;        /* next cycle the SM's schedulers are free */
	uint32_t warps_used, ctas_used;
	uint32_t *free_warp_slots, n_free_warp_slots;
	uint32_t *free_cta_slots, n_free_cta_slots;
};

struct warp_rt {
	uint32_t sm, cta_slot;
	unsigned char *state;
};

struct cta_rt {
	uint32_t warps_left;
};

struct engine {
	const struct gpuvm_config *cfg;
	struct gpuvm_stats *stats;
	struct xlat xlat;
	struct l2_cache l2;
	struct alloc_table allocs;
	struct coalescer co;

	/* unified memory: built at the first managed allocation */
	struct uvm uvm;
	bool uvm_on, uvm_blocking;

	/* data path: DRAM and each PCIe direction are one server each, kept as
	 * capacity calendars because sectors arrive out of time order (after
	 * translations of different lengths) */
	struct server_pool dram, pcie_h2d, pcie_d2h;
	double dram_cycles_per_sector, dram_latency;
	double pcie_cycles_per_byte, pcie_latency;
	double base_half, l2_hit;
	uint32_t sector_bytes;

	/* scheduling */
	struct sm_state *sm;
	struct warp_rt *warp;       /* [sms * max_warps_per_sm] */
	struct cta_rt *cta;         /* [sms * max_ctas_per_sm] */
	unsigned char *warp_state;  /* backing store for warp states */
	size_t warp_state_cap;      /* bytes per slot currently allocated */
	struct event_queue events;
	double issue_cycles_per_inst;

	/* kernel sampling: classes of alike launches, their convergence */
	struct kernel_sampler ks;

	/* progress */
	bool progress;
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

/* One DRAM sector transfer: the channel's bandwidth, then latency. */
static inline double dram_sector(struct engine *e, double t)
{
	e->stats->dram_bytes += e->sector_bytes;
	return server_pool_reserve(&e->dram, t, e->dram_cycles_per_sector) + e->dram_latency;
}

static inline void dram_writeback(struct engine *e, uint32_t sectors, double t)
{
	if (!sectors)
		return;
	server_pool_reserve(&e->dram, t, sectors * e->dram_cycles_per_sector);
	e->stats->dram_bytes += (uint64_t)sectors * e->sector_bytes;
}

/* One zero-copy transfer on a serial PCIe lane: bandwidth, then the link's
 * round-trip latency. */
static inline double pcie_transfer(struct engine *e, struct server_pool *lane, double t,
				   uint64_t bytes)
{
	double hold = (double)bytes * e->pcie_cycles_per_byte;
	return server_pool_reserve(lane, t, hold) + hold + e->pcie_latency;
}

/* The L2 result of one sector, from the L2 on: DRAM write-backs, hit or
 * miss, the fill from DRAM. */
static inline __attribute__((always_inline)) double
after_l2(struct engine *e, enum gpuvm_mem_op op, double at_mem, enum l2_result r, uint32_t wb)
{
	double ready = at_mem + e->l2_hit;
	dram_writeback(e, wb, ready);
	if (r == L2_HIT) {
		e->stats->l2_sector_hits++;
		return ready + e->base_half;
	}
	e->stats->l2_sector_misses++;
	if (op == GPUVM_OP_STORE)
		return ready + e->base_half; /* write-allocate, no fetch */
	return dram_sector(e, ready) + e->base_half;
}

/* A sector of managed memory: its page may still be on its way (the
 * policies see the access), and L2 lines of a frame the page has left
 * since are dropped first. Out of line, so the device path stays as it
 * was. */
static __attribute__((noinline)) double access_managed_sector(struct engine *e, uint64_t sector_addr,
							     enum gpuvm_mem_op op, double tx,
							     uint32_t sm)
{
	bool write = op != GPUVM_OP_LOAD;
	tx = uvm_access(&e->uvm, sm, sector_addr, write, tx);
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
	return after_l2(e, op, tx + e->base_half, r, wb);
}

/* Serves one 32 B sector whose translation is ready at tx. */
static double access_sector(struct engine *e, uint64_t sector_addr, enum gpuvm_mem_op op,
			    enum gpuvm_alloc_kind kind, double tx, uint32_t sm)
{
	if (__builtin_expect(kind == GPUVM_ALLOC_MANAGED, 0))
		return access_managed_sector(e, sector_addr, op, tx, sm);
	double at_mem = tx + e->base_half;
	if (kind == GPUVM_ALLOC_HOST_PINNED) {
		/* Zero-copy: uncached, straight over the link. */
		e->stats->zero_copy_bytes += e->sector_bytes;
		if (op == GPUVM_OP_STORE) {
			e->stats->pcie_d2h_bytes += e->sector_bytes;
			return pcie_transfer(e, &e->pcie_d2h, at_mem, e->sector_bytes) + e->base_half;
		}
		e->stats->pcie_h2d_bytes += e->sector_bytes;
		if (op == GPUVM_OP_ATOMIC)
			e->stats->pcie_d2h_bytes += e->sector_bytes;
		return pcie_transfer(e, &e->pcie_h2d, at_mem, e->sector_bytes) + e->base_half;
	}
	uint32_t wb = 0;
	enum l2_result r = l2_cache_access(&e->l2, sector_addr, op != GPUVM_OP_LOAD, &wb);
	return after_l2(e, op, at_mem, r, wb);
}

/* Issues one memory instruction at time t on warp w; returns when the
 * warp may continue. */
static double memory_instruction(struct engine *e, struct warp_rt *w,
				 const struct gpuvm_warp_item *it, double t)
{
	struct sm_state *sm = &e->sm[w->sm];
	double start = sm->issue_free > t ? sm->issue_free : t;
	sm->issue_free = start + e->issue_cycles_per_inst;

	struct gpuvm_stats *s = e->stats;
	s->warp_insts++;
	s->mem_insts++;
	uint32_t lanes = (uint32_t)__builtin_popcount(it->active_mask);
	s->thread_accesses += lanes;
	if (!lanes)
		return start + 1;

	if (lanes > 4)
		for (uint32_t m = it->active_mask; m; m &= m - 1)
			l2_cache_prefetch(&e->l2, it->addr[__builtin_ctz(m)]);

	double xstart = start;
	if (__builtin_expect(e->uvm_blocking, 0) && uvm_sm_blocked_until(&e->uvm, w->sm) > start) {
		/* blocking faults: the SM's TLB takes nothing until its fault is served */
		xstart = uvm_sm_blocked_until(&e->uvm, w->sm);
		s->uvm.stall_blocked_cycles += xstart - start;
	}

	struct coalescer *co = &e->co;
	coalescer_begin(co);
	double done = start + 1;
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
			s->sectors++;
			uint64_t sa = sec << sector_shift;
			double d = access_sector(e, sa, it->op, alloc_table_kind(&e->allocs, sa), last_tx,
					     w->sm);
			done = later(d, done);
		}
	}
	if (it->op == GPUVM_OP_STORE)
		return start + 1; /* stores retire without waiting for memory */
	return done;
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

/* The paging layer exists only once managed memory does, so runs without
 * it pay nothing. */
static int uvm_track(struct engine *e, const struct gpuvm_alloc *a)
{
	if (!e->uvm_on) {
		const struct uvm_hooks hooks = {.shootdown = uvm_shootdown, .l2_clock = uvm_l2_clock, .ctx = e};
		if (uvm_init(&e->uvm, e->cfg, &e->stats->uvm, &hooks))
			return -1;
		e->uvm_on = true;
		e->uvm_blocking = e->cfg->uvm_fault_model == GPUVM_UVM_BLOCKING;
		e->xlat.hook = uvm_walk_hook;
		e->xlat.hook_ctx = e;
	}
	return uvm_add_alloc(&e->uvm, a->base, a->bytes);
}

/* ---- scheduling ---------------------------------------------------- */

static int engine_init(struct engine *e, const struct gpuvm_config *cfg,
		       struct gpuvm_stats *stats, const struct gpuvm_sim_options *opt)
{
	memset(e, 0, sizeof *e);
	e->cfg = cfg;
	e->stats = stats;
	e->progress = opt && opt->progress;
	if (xlat_init(&e->xlat, cfg, stats))
		return -1;
	if (l2_cache_init(&e->l2, cfg->l2_bytes, cfg->l2_ways, cfg->l2_line_bytes,
			  cfg->l2_sector_bytes))
		return -1;
	if (coalescer_init(&e->co, cfg->tlb[0].entry_bytes, cfg->l2_sector_bytes,
			   cfg->l2_line_bytes))
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
	e->pcie_cycles_per_byte = clock_hz / (cfg->pcie_bandwidth_gb_s * 1e9);
	e->pcie_latency = cfg->pcie_latency_ns * 1e-9 * clock_hz;
	e->base_half = cfg->load_base_latency_cycles / 2;
	e->l2_hit = cfg->l2_hit_latency_cycles;
	e->issue_cycles_per_inst = 1.0 / cfg->issue_warp_insts_per_cycle;

	uint32_t n_warps = cfg->sms * cfg->max_warps_per_sm;
	uint32_t n_ctas = cfg->sms * cfg->max_ctas_per_sm;
	e->sm = calloc(cfg->sms, sizeof *e->sm);
	e->warp = calloc(n_warps, sizeof *e->warp);
	e->cta = calloc(n_ctas, sizeof *e->cta);
	if (!e->sm || !e->warp || !e->cta || event_queue_init(&e->events, n_warps))
		return -1;
	for (uint32_t i = 0; i < cfg->sms; i++) {
		struct sm_state *sm = &e->sm[i];
		sm->free_warp_slots = malloc(cfg->max_warps_per_sm * sizeof(uint32_t));
		sm->free_cta_slots = malloc(cfg->max_ctas_per_sm * sizeof(uint32_t));
		if (!sm->free_warp_slots || !sm->free_cta_slots)
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
	server_pool_free(&e->pcie_h2d);
	server_pool_free(&e->pcie_d2h);
	event_queue_free(&e->events);
	if (e->sm)
		for (uint32_t i = 0; i < e->cfg->sms; i++) {
			free(e->sm[i].free_warp_slots);
			free(e->sm[i].free_cta_slots);
		}
	free(e->sm);
	free(e->warp);
	free(e->cta);
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

struct kernel_run {
	struct gpuvm_kernel *k;
	uint64_t ctas, next_cta;
	uint32_t warps_per_cta;
	uint32_t ctas_per_sm; /* occupancy limit for this kernel */
	double end;
	uint64_t ctas_done;
};

static void place_cta(struct engine *e, struct kernel_run *kr, uint32_t smi, double t)
{
	struct sm_state *sm = &e->sm[smi];
	uint32_t cslot = sm->free_cta_slots[--sm->n_free_cta_slots];
	uint64_t cta_id = kr->next_cta++;
	e->cta[cslot].warps_left = kr->warps_per_cta;
	sm->ctas_used++;
	sm->warps_used += kr->warps_per_cta;
	e->stats->ctas++;
	for (uint32_t wi = 0; wi < kr->warps_per_cta; wi++) {
		uint32_t wslot = sm->free_warp_slots[--sm->n_free_warp_slots];
		struct warp_rt *w = &e->warp[wslot];
		w->sm = smi;
		w->cta_slot = cslot;
		w->state = e->warp_state + (size_t)wslot * e->warp_state_cap;
		kr->k->ops->warp_begin(kr->k, w->state, (uint32_t)cta_id, wi);
		e->stats->warps++;
		event_queue_push(&e->events, t, wslot);
	}
}

static bool sm_can_take(const struct engine *e, const struct kernel_run *kr, uint32_t smi)
{
	const struct sm_state *sm = &e->sm[smi];
	return sm->ctas_used < kr->ctas_per_sm &&
	       sm->warps_used + kr->warps_per_cta <= e->cfg->max_warps_per_sm;
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
	if (--c->warps_left)
		return;
	sm->free_cta_slots[sm->n_free_cta_slots++] = w->cta_slot;
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
				if (ops->warp_next(k, state, &item, err) < 0) {
					k->functional = false;
					return -1;
				}
				if (item.kind == GPUVM_ITEM_COMPUTE) {
					s->warp_insts += item.compute_insts;
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
	if (ensure_warp_state(e, k->ops->warp_state_bytes))
		return gpuvm_fail(err, k->name, 0, NULL, "out of memory for warp state");

	double t = t0 + cfg->kernel_launch_us * cfg->clock_mhz;
	kr.end = t;
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
		*t_end = kr.end;
		return 0;
	}
	e->stats->kernel_sampling.detailed_kernels++;
	uint64_t insts0 = e->stats->warp_insts, accesses0 = e->stats->thread_accesses;
	if (cls)
		kernel_sampler_begin(&e->ks);

	for (uint32_t i = 0; i < cfg->sms; i++)
		e->sm[i].issue_free = t;
	/* Initial placement: round robin over SMs until occupancy is reached. */
	for (bool placed = true; placed && kr.next_cta < kr.ctas;) {
		placed = false;
		for (uint32_t smi = 0; smi < cfg->sms && kr.next_cta < kr.ctas; smi++)
			if ((!k->pin || smi == k->pin_sm) && sm_can_take(e, &kr, smi)) {
				place_cta(e, &kr, smi, t);
				placed = true;
			}
	}

	struct gpuvm_warp_item item;
	uint64_t steps = 0;
	while (!event_queue_empty(&e->events)) {
		double now;
		uint32_t wslot = event_queue_pop(&e->events, &now);
		struct warp_rt *w = &e->warp[wslot];
		/* The next warp to run is likely the queue's new front: start
		 * loading its state while this one runs. */
		if (!event_queue_empty(&e->events)) {
			const unsigned char *next = e->warp[event_queue_front_warp(&e->events)].state;
			for (size_t off = 0; off < e->warp_state_cap && off < 1024; off += 64)
				__builtin_prefetch(next + off);
		}
		/* Run the warp while it stays the earliest event. */
		for (;;) {
			k->clock_cycles = now;
			if (k->ops->warp_next(k, w->state, &item, err) < 0) {
				event_queue_clear(&e->events);
				return -1;
			}
			if (item.kind == GPUVM_ITEM_END) {
				warp_finished(e, &kr, wslot, now);
				break;
			}
			double ready;
			if (item.kind == GPUVM_ITEM_COMPUTE) {
				struct sm_state *sm = &e->sm[w->sm];
				double start = sm->issue_free > now ? sm->issue_free : now;
				sm->issue_free = start + item.compute_insts * e->issue_cycles_per_inst;
				ready = start + item.compute_insts;
				e->stats->warp_insts += item.compute_insts;
			} else {
				ready = memory_instruction(e, w, &item, now);
			}
			now = ready;
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
	if (cls)
		kernel_sampler_record(&e->ks, cls, kr.end - t, e->stats->warp_insts - insts0,
				      e->stats->thread_accesses - accesses0);
	*t_end = kr.end;
	return 0;
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
	struct gpuvm_run_op op;
	for (;;) {
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
		case GPUVM_RUN_KERNEL: {
			double end = t;
			if (run_kernel(&e, op.kernel, t, &end, err))
				goto out;
			stats->kernel_cycles += end - t;
			t = end;
			break;
		}
		case GPUVM_RUN_END:
			break;
		}
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

void gpuvm_stats_release(struct gpuvm_stats *stats)
{
	free(stats->uvm.util_h2d_busy_cycles);
	free(stats->uvm.util_d2h_busy_cycles);
	stats->uvm.util_h2d_busy_cycles = stats->uvm.util_d2h_busy_cycles = NULL;
	for (uint32_t l = 0; l < GPUVM_MAX_TLB_LEVELS; l++) {
		free(stats->tlb[l].instance_hits);
		free(stats->tlb[l].instance_misses);
		stats->tlb[l].instance_hits = stats->tlb[l].instance_misses = NULL;
	}
}
