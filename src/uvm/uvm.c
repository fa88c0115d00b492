/* Unified-memory paging: see uvm.h. Sources of the behaviour, by step:
 * far faults, far-fault MSHRs and Nack-replay: seeds/003 (Zheng) 3, Fig. 4;
 * fault batches of 256 serviced one after another, each migrating before
 * the next (the driver's service loop): nvidia-uvm uvm_gpu_replayable_faults.c;
 * transfers cut at gaps and after each faulted page, serial FIFO lanes,
 * the transfer-size curve: UVMSmart gpu-sim.cc do_hardware_prefetch and
 * its PCIe lanes; eviction trigger with the free-page buffer and write-back:
 * UVMSmart page_eviction_procedure, nvidia-uvm uvm_pmm_gpu.c evict_root_chunk.
 *
 * Invariants of the page state (uvm_check verifies them, naming the
 * number; tests call it after every operation, debug engines at kernel
 * boundaries). A page moves host -> resident (migrate, uvm_copy_in: its
 * frame is taken at once, its data lands at arrive[p]) -> host again
 * (drop_pages: evicted, or written back at a device sync; also
 * uvm_remove_alloc):
 *
 *   U1  Block table: sp.blocks[i]->index == i for i < sp.n, and the block
 *       map finds each block under its base's block number, and holds
 *       nothing else (map entries == sp.n).
 *   U2  Every block record lies in the block arena (block_arena_owns),
 *       whose own invariants hold (block_arena.c A1-A2).
 *   U3  A block's managed span [first_page, end_page) is non-empty and
 *       within the block, and its resident pages lie in it.
 *   U4  resident_count == the pages set in resident.
 *   U5  Frame accounting: the blocks' resident_count add up to
 *       sp.resident_pages, which never exceeds peak_resident_pages.
 *   U6  prefetched is a subset of resident, and prefetched_count its size
 *       (a prefetched page leaves the set when touched or dropped).
 *   U7  dirty is a subset of resident (a dropped page is clean).
 *   U8  evicted and resident are disjoint (a page is "evicted, not back
 *       yet" only while it is not resident: thrash detection relies on it).
 *   U9  No resident page arrives after arrive_max (drop_pages trusts the
 *       bound to skip in-flight checks).
 *   U10 The residency summary for wide TLB fills: in every group built,
 *       bit k is set exactly when block k of the group is managed and not
 *       fully resident (group_notok's rule).
 */
#include "uvm/uvm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* pcie.bandwidth_gb_s is the raw link rate (PCIe 3.0 x16 = 16 GB/s, Gen4 =
 * 32, Gen5 = 64; 1 GB = 1e9 bytes). What a large pinned copy achieves of
 * it, measured (GPUInspector.jl docs/src/devices/v100_sxm2.md, a100_sxm2.md): 12.14 GiB/s
 * = 13.04 GB/s on PCIe 3.0 x16 (V100-SXM2) = 0.815 of 16; 24.33 GiB/s =
 * 26.12 GB/s on Gen4 (A100) = 0.816 of 32. The flat model uses it. */
#define PCIE_ACHIEVED_FRACTION 0.815
/* UVMSmart's curve: a = 12/24/48 GiB/s for 16/32/64 GB/s links
 * (UVMSmart gpu-sim.cc, the PCIe speed curve); its asymptote 12 GiB/s = 0.805 of
 * 16 GB/s agrees with the measured fraction above to 1 %. */
#define CURVE_A_PER_RAW 0.75
#define FF_SLOT_CYCLES 2048.0 /* far faults hold an MSHR for 10^4-10^6 cycles */
#define FF_RING 1024
#define UTIL_BINS 1024
#define UTIL_FIRST_BIN_CYCLES 1024.0

static void groups_clear(struct uvm *u);
static void group_update(struct uvm *u, const struct uvm_block *b);

/* ---- link --------------------------------------------------------------- */

double gpuvm_pcie_effective_gb_s(double raw_gb_s)
{
	return PCIE_ACHIEVED_FRACTION * raw_gb_s;
}

double gpuvm_uvm_transfer_seconds(uint64_t bytes, double bandwidth_gb_s, bool curve)
{
	if (!curve)
		return (double)bytes / (gpuvm_pcie_effective_gb_s(bandwidth_gb_s) * 1e9);
	/* UVMSmart gpu-sim.cc: a = 12/24/48 for 16/32/64 GB/s raw links, b =
	 * 0.07292; the curve itself turns the raw rate into the achieved one
	 * (asymptote a GiB/s = 0.805 of raw), so its input is the raw rate */
	double a = CURVE_A_PER_RAW * bandwidth_gb_s;
	double speed_gb_s = 2.0 * a / M_PI * atan(0.07292 * (double)bytes / 1024.0);
	return (double)bytes / (speed_gb_s * 1073741824.0);
}

static double link_cycles(const struct uvm *u, uint64_t bytes)
{
	return gpuvm_uvm_transfer_seconds(bytes, u->bandwidth_gb_s, u->curve) * u->clock_hz;
}

double uvm_copy_cycles(const struct uvm *u, uint64_t bytes)
{
	return link_cycles(u, bytes);
}

/* Adds busy time [s, e) of a lane to the utilisation series; the bins
 * double in width whenever the run outgrows them. */
static void util_add(struct uvm *u, bool h2d, double s, double e)
{
	struct gpuvm_uvm_stats *st = u->st;
	if (!st->util_h2d_busy_cycles) {
		st->util_h2d_busy_cycles = calloc(UTIL_BINS, sizeof(double));
		st->util_d2h_busy_cycles = calloc(UTIL_BINS, sizeof(double));
		if (!st->util_h2d_busy_cycles || !st->util_d2h_busy_cycles) {
			u->oom = true;
			return;
		}
		st->util_bins = UTIL_BINS;
		st->util_bin_cycles = UTIL_FIRST_BIN_CYCLES;
	}
	while (e > st->util_bin_cycles * UTIL_BINS) {
		for (uint32_t i = 0; i < UTIL_BINS / 2; i++) {
			st->util_h2d_busy_cycles[i] = st->util_h2d_busy_cycles[2 * i] + st->util_h2d_busy_cycles[2 * i + 1];
			st->util_d2h_busy_cycles[i] = st->util_d2h_busy_cycles[2 * i] + st->util_d2h_busy_cycles[2 * i + 1];
		}
		for (uint32_t i = UTIL_BINS / 2; i < UTIL_BINS; i++)
			st->util_h2d_busy_cycles[i] = st->util_d2h_busy_cycles[i] = 0;
		st->util_bin_cycles *= 2;
	}
	double *bins = h2d ? st->util_h2d_busy_cycles : st->util_d2h_busy_cycles;
	double w = st->util_bin_cycles;
	for (uint32_t i = (uint32_t)(s / w); i < UTIL_BINS && i * w < e; i++) {
		double lo = fmax(s, i * w), hi = fmin(e, (i + 1) * w);
		if (hi > lo)
			bins[i] += hi - lo;
	}
}

/* Transfers book the host link's lanes (link/link_lane.h): the first gap
 * from their own time that fits, lengthened by the zero-copy packets
 * booked inside it; *hold becomes the lane time taken. */
static double lane_book(struct uvm *u, struct link_lane *l, double t, double *hold)
{
	return link_lane_bulk(l, t, hold, &u->oom);
}

/* One transfer on a serial lane, not before t; returns its end. */
static double lane_transfer(struct uvm *u, bool h2d, double t, uint64_t bytes)
{
	double hold = link_cycles(u, bytes);
	double s = lane_book(u, h2d ? u->h2d : u->d2h, t, &hold);
	double e = s + hold;
	u->last_lane_start = s;
	util_add(u, h2d, s, e);
	if (h2d) {
		u->st->transfers_h2d++;
		u->st->bytes_h2d += bytes;
	} else {
		u->st->transfers_d2h++;
		u->st->bytes_d2h += bytes;
	}
	return e;
}

/* ---- setup -------------------------------------------------------------- */

int uvm_init(struct uvm *u, const struct gpuvm_config *cfg, struct gpuvm_uvm_stats *st,
	     const struct uvm_hooks *hooks)
{
	memset(u, 0, sizeof *u);
	u->st = st;
	if (hooks)
		u->hooks = *hooks;
	u->h2d = u->hooks.lanes[0] ? u->hooks.lanes[0] : &u->own_h2d;
	u->d2h = u->hooks.lanes[1] ? u->hooks.lanes[1] : &u->own_d2h;
	if ((u->h2d == &u->own_h2d && link_lane_init(&u->own_h2d)) ||
	    (u->d2h == &u->own_d2h && link_lane_init(&u->own_d2h)))
		return -1;
	u->clock_hz = cfg->clock_mhz * 1e6;
	u->fault_latency_cycles = cfg->uvm_fault_latency_us * cfg->clock_mhz;
	u->posthoc = cfg->uvm_fault_accounting == GPUVM_UVM_POSTHOC;
	u->blocking = cfg->uvm_fault_model == GPUVM_UVM_BLOCKING;
	u->curve = cfg->uvm_pcie_model == GPUVM_UVM_LINK_CURVE;
	u->wb_dirty = cfg->uvm_writeback == GPUVM_UVM_WB_DIRTY;
	u->preferred_gpu = cfg->uvm_preferred_location == GPUVM_UVM_PREFERRED_GPU;
	u->batch_max = cfg->uvm_fault_batch;
	u->polled = cfg->uvm_gmmu == GPUVM_UVM_GMMU_ZHENG;
	u->sms = cfg->sms;
	u->bandwidth_gb_s = cfg->pcie_bandwidth_gb_s;
	u->buffer_frac = cfg->uvm_free_buffer_percent / 100.0;
	u->oversub_pct = cfg->uvm_oversub_percent;
	u->device_bytes = cfg->uvm_device_memory_bytes;
	/* a replayed translation walks again (seeds/003 Fig. 4 step 6) */
	u->replay_cycles = cfg->walk_latency_cycles;
	u->max_entry_bytes = UVM_PAGE_BYTES;
	for (uint32_t l = 0; l < cfg->tlb_levels; l++)
		if (cfg->tlb[l].entry_bytes > u->max_entry_bytes)
			u->max_entry_bytes = cfg->tlb[l].entry_bytes;
	u->rng = 0x5eed0f0a17ull;
	u->sp.rng = &u->rng;
	st->latency_in_timing = !u->posthoc;

	const struct gpuvm_module *pm = gpuvm_module_find(GPUVM_MODULE_PREFETCH, cfg->uvm_prefetcher);
	const struct gpuvm_module *pom = cfg->uvm_prefetcher_oversub[0]
		? gpuvm_module_find(GPUVM_MODULE_PREFETCH, cfg->uvm_prefetcher_oversub) : NULL;
	u->prefetch = pm ? pm->ops : NULL;
	u->prefetch_oversub = pom ? pom->ops : NULL;
	if (pm)
		gpuvm_module_params(cfg, pm, u->prefetch_params);
	if (pom)
		gpuvm_module_params(cfg, pom, u->prefetch_oversub_params);
	u->evict = uvm_evict_find(cfg->uvm_eviction);
	u->migrate = uvm_migrate_find(cfg->uvm_migration);
	if (!u->prefetch || !u->evict || !u->migrate)
		return -1; /* finalize checked the names */
	u->ac_on = u->migrate->delays || u->evict->uses_access_counters;
	u->ts = cfg->uvm_access_counter_threshold;
	u->sync_writeback = cfg->uvm_device_sync_writeback != 0;
	u->sp.ac_hot = u->ts;
	u->penalty = cfg->uvm_migration_penalty;
	u->remote_latency = cfg->uvm_remote_latency_cycles;
	u->sector_bytes = cfg->l2_sector_bytes;
	/* a remote read moves its bytes at the rate the engine's zero-copy
	 * sectors get (gpuvm_pcie_effective_gb_s), on the migrations' lane */
	u->remote_cycles_per_byte = u->clock_hz / (gpuvm_pcie_effective_gb_s(u->bandwidth_gb_s) * 1e9);
	u->ac_last_line = UINT64_MAX;
	u->thrash_on = cfg->uvm_thrashing != 0;
	if (u->thrash_on) {
		double tp[GPUVM_MODULE_PARAMS_EACH];
		gpuvm_module_params(cfg, &gpuvm_module_thrashing_driver, tp);
		if (uvm_thrash_init(&u->thrash, u->clock_hz, st, tp) ||
		    uvm_events_subscribe(&u->events, UVM_EVENT_BIT(UVM_EVENT_MIGRATE), uvm_thrash_on_event,
					 &u->thrash))
			return -1;
	}
	if (u->evict->create && u->evict->create(&u->evict_state))
		return -1;

	u->group_blocks = 1;
	while (u->group_blocks < 64 &&
	       ((uint64_t)u->group_blocks << UVM_BLOCK_SHIFT) < u->max_entry_bytes) {
		u->group_blocks *= 2;
		u->group_shift++;
	}
	if (uvm_map_init(&u->blocks, 1024) || uvm_map_init(&u->groups, 256))
		return -1;
	u->blocked_until = calloc(cfg->sms, sizeof *u->blocked_until);
	u->blocked_since = calloc(cfg->sms, sizeof *u->blocked_since);
	u->ff_mshr = calloc(cfg->sms, sizeof *u->ff_mshr);
	if (!u->blocked_until || !u->blocked_since || !u->ff_mshr)
		return -1;
	for (uint32_t i = 0; i < cfg->sms; i++)
		if (long_pool_init(&u->ff_mshr[i], cfg->uvm_far_fault_mshrs, FF_SLOT_CYCLES, FF_RING))
			return -1;
	return 0;
}

void uvm_free(struct uvm *u)
{
	for (uint32_t i = 0; i < u->sp.n; i++) {
		free(u->sp.blocks[i]->ac);
	}
	block_arena_free(&u->arena);
	free(u->sp.blocks);
	uvm_map_free(&u->blocks);
	uvm_map_free(&u->groups);
	free(u->allocs);
	if (u->ff_mshr)
		for (uint32_t i = 0; i < u->sms; i++)
			long_pool_free(&u->ff_mshr[i]);
	free(u->ff_mshr);
	free(u->blocked_until);
	free(u->blocked_since);
	link_lane_free(&u->own_h2d);
	link_lane_free(&u->own_d2h);
	if (u->evict && u->evict->destroy)
		u->evict->destroy(u->evict_state);
	if (u->thrash_on)
		uvm_thrash_free(&u->thrash);
	memset(u, 0, sizeof *u);
}

int uvm_add_alloc(struct uvm *u, const char *name, uint64_t base, uint64_t bytes,
		  uint32_t advise)
{
	if (u->n_allocs == u->cap_allocs) {
		uint32_t cap = u->cap_allocs ? 2 * u->cap_allocs : 8;
		struct uvm_range *p = realloc(u->allocs, cap * sizeof *p);
		if (!p)
			return -1;
		u->allocs = p;
		u->cap_allocs = cap;
	}
	u->allocs[u->n_allocs] = (struct uvm_range){base, bytes, advise, 0};
	if (uvm_alloc_stats_open(u, &u->allocs[u->n_allocs], name))
		return -1;
	u->n_allocs++;
	if (advise)
		u->advise_on = true;
	u->managed_bytes += bytes;
	groups_clear(u);
	u->st->active = true;
	return 0;
}

/* ---- blocks ------------------------------------------------------------- */

static inline struct uvm_block *block_find(struct uvm *u, uint64_t bn)
{
	const struct uvm_map_entry *x = uvm_map_find(&u->blocks, bn);
	return x ? (struct uvm_block *)(uintptr_t)x->val : NULL;
}

/* Managed pages of block bn: [*first, *end); false when none. *advise:
 * the hints of the allocations in it, -1 when they differ. */
static bool managed_span(const struct uvm *u, uint64_t bn, uint32_t *first, uint32_t *end,
			 int *advise)
{
	uint64_t lo = bn << UVM_BLOCK_SHIFT, hi = lo + (1ull << UVM_BLOCK_SHIFT);
	uint64_t a = hi, b = lo;
	*advise = 0;
	bool any = false;
	for (uint32_t i = 0; i < u->n_allocs; i++) {
		uint64_t s = u->allocs[i].base, e = s + u->allocs[i].bytes;
		if (e <= lo || s >= hi)
			continue;
		if (any && *advise != (int)u->allocs[i].advise)
			*advise = -1;
		else
			*advise = (int)u->allocs[i].advise;
		any = true;
		if (s < a)
			a = s > lo ? s : lo;
		if (e > b)
			b = e < hi ? e : hi;
	}
	if (a >= b)
		return false;
	*first = (uint32_t)((a - lo) >> UVM_PAGE_SHIFT);
	*end = (uint32_t)((b - lo + UVM_PAGE_BYTES - 1) >> UVM_PAGE_SHIFT);
	return true;
}

static struct uvm_block *block_get(struct uvm *u, uint64_t addr)
{
	uint64_t bn = addr >> UVM_BLOCK_SHIFT;
	if (u->last && u->last->base == bn << UVM_BLOCK_SHIFT)
		return u->last;
	struct uvm_block *b = block_find(u, bn);
	if (b)
		return u->last = b;
	uint32_t first, end;
	int advise = 0;
	if (!managed_span(u, bn, &first, &end, &advise)) {
		first = 0; /* a managed address no allocation covers: treat the block as managed */
		end = UVM_BLOCK_PAGES;
	}
	if (u->sp.n == u->blocks_cap) {
		uint32_t cap = u->blocks_cap ? 2 * u->blocks_cap : 64;
		struct uvm_block **p = realloc(u->sp.blocks, cap * sizeof *p);
		if (!p)
			return NULL;
		u->sp.blocks = p;
		u->blocks_cap = cap;
	}
	b = block_arena_alloc(&u->arena, sizeof *b);
	if (!b)
		return NULL;
	if (u->ac_on)
		b->ac = calloc(UVM_BLOCK_CHUNKS, sizeof *b->ac);
	if ((u->ac_on && !b->ac) || !uvm_map_insert(&u->blocks, bn, (uintptr_t)b)) {
		free(b->ac); /* b stays in the arena until uvm_free */
		return NULL;
	}
	b->base = bn << UVM_BLOCK_SHIFT;
	b->index = u->sp.n;
	b->first_page = (uint16_t)first;
	b->end_page = (uint16_t)end;
	b->advise = advise > 0 ? (uint8_t)advise : 0;
	b->advise_mixed = advise < 0;
	u->sp.blocks[u->sp.n++] = b;
	group_update(u, b);
	return u->last = b;
}

/* ---- residency summary -------------------------------------------------- */

static inline bool block_full(const struct uvm_block *b)
{
	return b->resident_count == (uint32_t)(b->end_page - b->first_page);
}

static void groups_clear(struct uvm *u)
{
	uvm_map_clear(&u->groups);
}

/* A block's residency changed: its group's bit follows. */
static void group_update(struct uvm *u, const struct uvm_block *b)
{
	if (u->group_blocks < 2)
		return;
	uint64_t bn = b->base >> UVM_BLOCK_SHIFT;
	struct uvm_map_entry *x = uvm_map_find(&u->groups, bn >> u->group_shift);
	if (!x)
		return;
	uint64_t bit = 1ull << (bn & (u->group_blocks - 1));
	if (block_full(b))
		x->val &= ~bit;
	else
		x->val |= bit;
}

/* The not-fully-resident bits of group g: a block counts when it is
 * managed and not every managed page of it is resident (blocks never
 * touched are not resident at all). Out of memory, every block counts
 * (wide entries are then just not kept). */
static uint64_t group_notok(struct uvm *u, uint64_t g)
{
	const struct uvm_map_entry *x = uvm_map_find(&u->groups, g);
	if (x)
		return x->val;
	uint64_t m = 0;
	for (uint32_t k = 0; k < u->group_blocks; k++) {
		uint64_t bn = (g << u->group_shift) + k;
		const struct uvm_block *o = block_find(u, bn);
		uint32_t f, e;
		int adv;
		if (o ? !block_full(o) : managed_span(u, bn, &f, &e, &adv))
			m |= 1ull << k;
	}
	if (!uvm_map_insert(&u->groups, g, m))
		return UINT64_MAX;
	return m;
}

/* ---- eviction ----------------------------------------------------------- */

static uint64_t capacity_pages(const struct uvm *u)
{
	if (u->oversub_pct > 0) {
		double pages = (double)((u->managed_bytes + UVM_PAGE_BYTES - 1) >> UVM_PAGE_SHIFT);
		double want = ceil(pages * 100.0 / u->oversub_pct);
		/* past 2^63 pages the conversion would be undefined */
		uint64_t cap = want >= 0x1p63 ? UINT64_MAX : (uint64_t)want;
		return cap ? cap : 1;
	}
	return u->device_bytes >> UVM_PAGE_SHIFT;
}

/* Pages of mask leave device memory: their L2 lines, as last used so
 * far, turn stale (uvm_l2_stale_through). */
static void mark_l2_stale(struct uvm *u, struct uvm_block *b, const uint64_t *mask)
{
	if (!u->hooks.l2_clock)
		return;
	uint32_t now = u->hooks.l2_clock(u->hooks.ctx);
	if (!now)
		return; /* nothing has been used yet */
	if (!b->page_l2_evicted_at) {
		b->page_l2_evicted_at = block_arena_alloc(&u->arena, UVM_BLOCK_PAGES * sizeof *b->page_l2_evicted_at);
		if (!b->page_l2_evicted_at) {
			u->oom = true;
			return;
		}
	}
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		for (uint64_t bits = mask[w]; bits; bits &= bits - 1)
			b->page_l2_evicted_at[w * 64 + (uint32_t)__builtin_ctzll(bits)] = now;
	b->l2_evicted_at = now;
}

uint32_t uvm_l2_stale_through(struct uvm *u, uint64_t addr, const uint32_t **page_through)
{
	struct uvm_block *b = u->last; /* the block uvm_access just saw */
	if (!b || b->base != (addr & ~((1ull << UVM_BLOCK_SHIFT) - 1)))
		b = block_find(u, addr >> UVM_BLOCK_SHIFT);
	if (!b || !b->l2_evicted_at)
		return 0;
	*page_through = &b->page_l2_evicted_at[(addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1)];
	return b->l2_evicted_at;
}

/* Drops the pages of mask from b: write-back (all or dirty) on the D2H
 * lane from t on, shootdown, bookkeeping. An eviction (for room) counts
 * as one and as a round trip of its 64 KB blocks; a device sync's
 * write-back (uvm_device_sync) does not. Returns when the frames are free. */
static double drop_pages(struct uvm *u, struct uvm_block *b, const uint64_t *mask, double t,
			 bool eviction)
{
	struct gpuvm_uvm_stats *st = u->st;
	double freed = t;
	uint32_t n = 0;
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p, true)) {
		uint32_t q = mask_next(mask, p, false);
		/* write-back runs: contiguous pages merge into one write (UVMSmart) */
		for (uint32_t r = p; r < q;) {
			if (u->wb_dirty && !mask_test(b->dirty, r)) {
				r++;
				continue;
			}
			uint32_t s = r;
			double ready = t;
			/* arrive_max bounds every page: past it, none is on its way */
			bool in_flight = b->arrive_max > t;
			while (s < q && (!u->wb_dirty || mask_test(b->dirty, s))) {
				if (in_flight && b->arrive[s] > ready)
					ready = b->arrive[s]; /* a page still on its way leaves after it lands */
				s++;
			}
			double done = lane_transfer(u, false, ready, (uint64_t)(s - r) << UVM_PAGE_SHIFT);
			st->pages_d2h += s - r;
			if (done > freed)
				freed = done;
			r = s;
		}
		if (u->hooks.shootdown)
			u->hooks.shootdown(u->hooks.ctx, b->base + ((uint64_t)p << UVM_PAGE_SHIFT),
					   (uint64_t)(q - p) << UVM_PAGE_SHIFT);
		n += q - p;
		p = q;
	}
	mark_l2_stale(u, b, mask);
	if (eviction)
		uvm_note_mask(u, b, mask, GPUVM_UVM_EVICT);
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
		st->prefetched_unused += (uint64_t)__builtin_popcountll(mask[w] & b->prefetched[w]);
		b->prefetched[w] &= ~mask[w];
		b->resident[w] &= ~mask[w];
		b->dirty[w] &= ~mask[w];
		if (eviction)
			b->evicted[w] |= mask[w];
	}
	b->prefetched_count = mask_count(b->prefetched);
	b->resident_count -= n;
	u->sp.resident_pages -= n;
	if (eviction)
		st->pages_evicted += n;
	else
		st->sync_writeback_pages += n;
	if (eviction && b->ac) /* seeds/004 IV: r counts the times a 64 KB block was evicted */
		for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++)
			if (mask_count_range(mask, ch * UVM_CHUNK_PAGES, (ch + 1) * UVM_CHUNK_PAGES) &&
			    uvm_ac_round_trip(&u->sp, b, ch))
				st->round_trip_halvings++;
	group_update(u, b);
	if (u->evict->on_evicted)
		u->evict->on_evicted(u->evict_state, b, mask);
	if (eviction && uvm_events_wanted(&u->events, UVM_EVENT_EVICT)) {
		struct uvm_event ev = {.type = UVM_EVENT_EVICT, .block = b, .t = t, .evict.pages = mask};
		if (uvm_events_deliver(&u->events, &ev))
			u->oom = true;
	}
	return freed;
}

/* Makes room for k more pages at t; returns when the frames the transfer
 * needs are free (t unless write-backs had to finish first). */
static double ensure_frames(struct uvm *u, uint32_t k, double t)
{
	uint64_t cap = capacity_pages(u);
	u->st->capacity_pages = cap;
	if (!cap)
		return t;
	double soft_d = (double)cap * (1.0 - u->buffer_frac);
	uint64_t soft = soft_d < 1 ? 1 : (uint64_t)soft_d;
	double ready = t;
	while (u->sp.resident_pages + k > soft && u->sp.resident_pages > 0) {
		if (!u->evicting) {
			u->evicting = true;
			if (u->prefetch_oversub && u->prefetch_oversub != u->prefetch) {
				u->prefetch = u->prefetch_oversub;
				memcpy(u->prefetch_params, u->prefetch_oversub_params, sizeof u->prefetch_params);
				u->st->prefetcher_switched = true;
			}
		}
		uvm_mask m = {0};
		struct uvm_block *b = u->evict->pick(u->evict_state, &u->sp, m);
		if (!b)
			break;
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			m[w] &= b->resident[w];
		if (mask_empty(m))
			break; /* a policy that offers nothing resident: stop rather than spin */
		bool needed = u->sp.resident_pages + k > cap;
		double freed = drop_pages(u, b, m, t, true);
		if (needed && freed > ready)
			ready = freed;
	}
	return ready;
}

double uvm_device_sync(struct uvm *u, double t)
{
	u->st->device_syncs++;
	if (!u->sync_writeback)
		return t;
	/* UVMSmart's cudaDeviceSynchronize (libcuda/cuda_runtime_api.cc
	 * l.2019-2078): every dirty page of a managed allocation is copied
	 * back and invalidated (the write-back time is added to the run,
	 * gmmu_t::calculate_devicesync_time), and reset_large_page_info
	 * clears every 64 KB counter (count and round trips) and the
	 * oversubscription flag, so the next kernel starts like the first.
	 * UVMSmart also stops counting the clean pages it leaves mapped
	 * (free pages reset to the whole memory); gpuvm keeps them resident
	 * and counted, as the frames are really in use. */
	double done = t;
	for (uint32_t i = 0; i < u->sp.n; i++) {
		struct uvm_block *b = u->sp.blocks[i];
		if (b->ac)
			memset(b->ac, 0, UVM_BLOCK_CHUNKS * sizeof *b->ac);
		if (!b->resident_count)
			continue;
		uvm_mask m;
		bool any = false;
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
			m[w] = b->resident[w] & b->dirty[w];
			any |= m[w] != 0;
		}
		if (!any)
			continue;
		double freed = drop_pages(u, b, m, t, false);
		if (freed > done)
			done = freed;
	}
	u->evicting = false;
	return done;
}

void uvm_remove_alloc(struct uvm *u, uint64_t base)
{
	for (uint32_t i = 0; i < u->n_allocs; i++) {
		if (u->allocs[i].base != base)
			continue;
		uint64_t end = base + u->allocs[i].bytes;
		for (uint32_t j = 0; j < u->sp.n; j++) {
			struct uvm_block *b = u->sp.blocks[j];
			if (b->base + (1ull << UVM_BLOCK_SHIFT) <= base || b->base >= end || !b->resident_count)
				continue;
			/* cudaFree: frames return without a write-back */
			uvm_mask m;
			memcpy(m, b->resident, sizeof m);
			for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
				u->st->prefetched_unused += (uint64_t)__builtin_popcountll(m[w] & b->prefetched[w]);
				b->resident[w] = b->dirty[w] = b->prefetched[w] = 0;
			}
			b->prefetched_count = 0;
			u->sp.resident_pages -= b->resident_count;
			b->resident_count = 0;
			if (u->hooks.shootdown)
				u->hooks.shootdown(u->hooks.ctx, b->base, 1ull << UVM_BLOCK_SHIFT);
			mark_l2_stale(u, b, m);
			if (u->evict->on_evicted)
				u->evict->on_evicted(u->evict_state, b, m);
		}
		uvm_alloc_classify(u, &u->allocs[i]);
		u->managed_bytes -= u->allocs[i].bytes;
		u->allocs[i] = u->allocs[--u->n_allocs];
		u->last = NULL;
		u->range_last = 0;
		groups_clear(u);
		return;
	}
}

/* ---- migration ---------------------------------------------------------- */

/* Moves page p of b and what the prefetcher adds, starting once the batch
 * is handled (ready). Returns when p has arrived. */
static double migrate(struct uvm *u, struct uvm_block *b, uint32_t p, double ready)
{
	struct gpuvm_uvm_stats *st = u->st;
	uvm_mask faulted = {0}, pf = {0}, mv, prefetch_only;
	mask_set(faulted, p);
	struct uvm_prefetch_ctx ctx = {
		.resident = b->resident, .faulted = faulted, .first_page = b->first_page,
		.end_page = b->end_page, .preferred_here = u->preferred_gpu, .rng = &u->rng,
		.params = u->prefetch_params,
	};
	u->prefetch->compute(&ctx, pf);
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		mv[w] = (pf[w] | faulted[w]) & ~b->resident[w];
	for (uint32_t i = 0; i < b->first_page; i++)
		mask_clear(mv, i);
	for (uint32_t i = b->end_page; i < UVM_BLOCK_PAGES; i++)
		mask_clear(mv, i);
	uint32_t k = mask_count(mv);
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		prefetch_only[w] = mv[w] & ~faulted[w];

	double lane_before = link_lane_last_end(u->h2d) > ready ? link_lane_last_end(u->h2d) : ready;
	u->sp.filling = b;
	double frames = ensure_frames(u, k, ready);
	u->sp.filling = NULL;
	if (frames > lane_before)
		st->stall_eviction_cycles += frames - lane_before;
	double start = frames > ready ? frames : ready;

	/* transfers in address order, cut at gaps and right after the faulted
	 * page (UVMSmart do_hardware_prefetch: e.g. 4 KB + 60 KB) */
	double arrival = start;
	bool first = u->polled && mask_test(mv, p);
	if (first) {
		/* Zheng's GMMU (seeds/003 3.1, 4): the far fault fetches its
		 * page; what the prefetcher adds follows it, so prefetching
		 * never delays the faulting access (UVMSmart and the serial
		 * handler keep address order, the page cut after the fault) */
		arrival = lane_transfer(u, true, start, UVM_PAGE_BYTES);
		b->arrive[p] = arrival;
		if (arrival > b->arrive_max)
			b->arrive_max = arrival;
		mask_clear(mv, p);
	}
	for (uint32_t i = mask_next(mv, 0, true); i < UVM_BLOCK_PAGES; i = mask_next(mv, i, true)) {
		uint32_t j = mask_next(mv, i, false);
		if (p >= i && p < j)
			j = p + 1; /* cut right after the faulted page */
		double done = lane_transfer(u, true, start, (uint64_t)(j - i) << UVM_PAGE_SHIFT);
		if (!u->polled) {
			for (uint32_t q = i; q < j; q++)
				b->arrive[q] = done;
		} else {
			/* Zheng's GMMU: a page is usable once its bytes have landed
			 * (the DMA writes in address order at the lane's rate), not
			 * only when the whole run has */
			double per_page = (done - u->last_lane_start) / (j - i);
			for (uint32_t q = i; q < j; q++)
				b->arrive[q] = u->last_lane_start + per_page * (q - i + 1);
		}
		if (done > b->arrive_max)
			b->arrive_max = done;
		if (p >= i && p < j)
			arrival = done;
		i = j;
	}
	if (first)
		mask_set(mv, p);
	if (mask_test(b->evicted, p)) {
		st->thrashed_pages++;
		uvm_note_thrashed(u, b->base + ((uint64_t)p << UVM_PAGE_SHIFT));
		if (uvm_events_wanted(&u->events, UVM_EVENT_THRASHING)) {
			struct uvm_event ev = {.type = UVM_EVENT_THRASHING, .block = b, .t = start,
					       .thrashing.page = p};
			if (uvm_events_deliver(&u->events, &ev))
				u->oom = true;
		}
	}
	uvm_note_mask(u, b, prefetch_only, GPUVM_UVM_PREFETCH);
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
		st->pages_returned += (uint64_t)__builtin_popcountll(mv[w] & b->evicted[w]);
		b->remote[w] &= ~mv[w];
		b->resident[w] |= mv[w];
		b->prefetched[w] |= mv[w] & ~faulted[w];
		b->evicted[w] &= ~mv[w];
	}
	b->prefetched_count = mask_count(b->prefetched);
	b->resident_count += k;
	u->sp.resident_pages += k;
	group_update(u, b);
	if (u->sp.resident_pages > st->peak_resident_pages)
		st->peak_resident_pages = u->sp.resident_pages;
	st->pages_h2d += k;
	st->prefetched_pages += k - 1;
	if (u->evict->on_fill && u->evict->on_fill(u->evict_state, &u->sp, b, mv))
		u->oom = true;
	/* fault, counter and prefetch migrations to the GPU (processor 1):
	 * the driver's thrashing detection listens (evictions are not its
	 * events) */
	if (uvm_events_wanted(&u->events, UVM_EVENT_MIGRATE)) {
		struct uvm_event ev = {.type = UVM_EVENT_MIGRATE, .block = b, .t = start,
				       .migrate = {.pages = mv, .dst = 1, .cause = u->fault_cause}};
		if (uvm_events_deliver(&u->events, &ev))
			u->oom = true;
	}
	if (arrival > start)
		st->stall_pcie_cycles += arrival - start;
	return arrival;
}

/* Pages of word w of b that count as present for a TLB fill: resident,
 * or outside the block's managed span. */
static inline uint64_t present_word(const struct uvm_block *b, uint32_t w)
{
	uint64_t m = b->resident[w];
	uint32_t lo = w * 64, hi = lo + 64;
	if (b->first_page > lo)
		m |= b->first_page >= hi ? ~0ull : (1ull << (b->first_page - lo)) - 1;
	if (b->end_page < hi)
		m |= b->end_page <= lo ? ~0ull : ~((1ull << (b->end_page - lo)) - 1);
	return m;
}

/* Largest aligned range around page p of b (4 KB .. max TLB entry) that
 * is entirely resident (p itself is). Runs on every walk of managed
 * memory, so it tests whole mask words and, past 2 MB, the group
 * summary instead of looking blocks up. */
static uint64_t resident_extent(struct uvm *u, struct uvm_block *b, uint32_t p)
{
	uint64_t max = u->max_entry_bytes;
	if (!block_full(b)) {
		uint64_t bytes = UVM_PAGE_BYTES;
		uint64_t ok = present_word(b, p >> 6);
		uint32_t size = 2;
		for (; size <= 64 && bytes < max; size *= 2) {
			uint64_t want = size == 64 ? ~0ull : ((1ull << size) - 1) << ((p & ~(size - 1)) & 63);
			if ((ok & want) != want)
				return bytes;
			bytes = (uint64_t)size << UVM_PAGE_SHIFT;
		}
		for (; size <= UVM_BLOCK_PAGES && bytes < max; size *= 2) {
			uint32_t w0 = (p & ~(size - 1)) >> 6;
			for (uint32_t w = w0; w < w0 + (size >> 6); w++)
				if (present_word(b, w) != ~0ull)
					return bytes;
			bytes = (uint64_t)size << UVM_PAGE_SHIFT;
		}
		if (bytes < ((uint64_t)UVM_BLOCK_PAGES << UVM_PAGE_SHIFT))
			return bytes; /* max reached inside the block */
	}
	uint64_t bytes = 1ull << UVM_BLOCK_SHIFT;
	if (max <= bytes)
		return max;
	/* beyond 2 MB: every managed block in the range fully resident */
	uint64_t bn = b->base >> UVM_BLOCK_SHIFT;
	uint64_t span = 2;
	if (u->group_blocks >= 2) {
		uint64_t notok = group_notok(u, bn >> u->group_shift);
		if (!notok) { /* the common case once everything is in */
			uint64_t group_bytes = (uint64_t)u->group_blocks << UVM_BLOCK_SHIFT;
			if (max <= group_bytes)
				return max;
			bytes = group_bytes;
			span = 2 * (uint64_t)u->group_blocks;
		}
		for (; span <= u->group_blocks && bytes < max; span *= 2) {
			uint32_t lo = (uint32_t)((bn & ~(span - 1)) & (u->group_blocks - 1));
			uint64_t want = span == 64 ? ~0ull : ((1ull << span) - 1) << lo;
			if (notok & want)
				return bytes;
			bytes = span << UVM_BLOCK_SHIFT;
		}
	}
	for (; bytes < max; span *= 2) { /* entries over 128 MB: block by block */
		uint64_t lo = bn & ~(span - 1);
		for (uint64_t x = lo; x < lo + span; x++) {
			struct uvm_block *o = block_find(u, x);
			uint32_t f, e;
			int adv;
			if (o ? !block_full(o) : managed_span(u, x, &f, &e, &adv))
				return bytes;
		}
		bytes = span << UVM_BLOCK_SHIFT;
	}
	return bytes;
}

/* Whether page p of b is managed; the block's span widens when another
 * allocation has come to share the block since it was built. */
static bool block_covers(struct uvm *u, struct uvm_block *b, uint32_t p)
{
	if (p >= b->first_page && p < b->end_page)
		return true;
	uint32_t f, e;
	int adv;
	if (managed_span(u, b->base >> UVM_BLOCK_SHIFT, &f, &e, &adv)) {
		b->first_page = (uint16_t)(f < b->first_page ? f : b->first_page);
		b->end_page = (uint16_t)(e > b->end_page ? e : b->end_page);
		b->advise = adv > 0 ? (uint8_t)adv : 0;
		b->advise_mixed = adv < 0;
		group_update(u, b);
	}
	return p >= b->first_page && p < b->end_page;
}

double uvm_copy_in(struct uvm *u, uint64_t addr, uint64_t bytes, double t, double end)
{
	struct gpuvm_uvm_stats *st = u->st;
	double done = end;
	if (!bytes)
		return done;
	uint64_t first = addr >> UVM_PAGE_SHIFT, last = (addr + bytes - 1) >> UVM_PAGE_SHIFT;
	for (uint64_t bn = first / UVM_BLOCK_PAGES; bn <= last / UVM_BLOCK_PAGES; bn++) {
		struct uvm_block *b = block_get(u, bn << UVM_BLOCK_SHIFT);
		if (!b) {
			u->oom = true;
			return done;
		}
		uint32_t lo = bn == first / UVM_BLOCK_PAGES ? (uint32_t)(first % UVM_BLOCK_PAGES) : 0;
		uint32_t hi = bn == last / UVM_BLOCK_PAGES ? (uint32_t)(last % UVM_BLOCK_PAGES) + 1
							   : UVM_BLOCK_PAGES;
		block_covers(u, b, lo);
		block_covers(u, b, hi - 1);
		if (lo < b->first_page)
			lo = b->first_page;
		if (hi > b->end_page)
			hi = b->end_page;
		if (lo >= hi)
			continue;
		uvm_mask range = {0}, mv;
		mask_set_range(range, lo, hi);
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			mv[w] = range[w] & ~b->resident[w];
		uint32_t k = mask_count(mv);
		double arrive = end;
		if (k) {
			/* frames first: evictions (and their write-backs) as for a fault */
			double frames = ensure_frames(u, k, t);
			if (frames > arrive)
				arrive = frames;
			if (arrive > done)
				done = arrive;
			for (uint32_t q = lo; q < hi; q++)
				if (mask_test(mv, q))
					b->arrive[q] = arrive;
			if (arrive > b->arrive_max)
				b->arrive_max = arrive;
		}
		/* The device copy is the only up-to-date one: dirty for
		 * uvm.writeback = dirty. */
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
			b->resident[w] |= mv[w];
			b->evicted[w] &= ~mv[w];
			b->dirty[w] |= range[w] & b->resident[w];
			b->written_ever[w] |= range[w] & b->resident[w];
		}
		b->resident_count += k;
		u->sp.resident_pages += k;
		group_update(u, b);
		if (u->sp.resident_pages > st->peak_resident_pages)
			st->peak_resident_pages = u->sp.resident_pages;
		st->pages_copied_in += k;
		if (k && u->evict->on_fill && u->evict->on_fill(u->evict_state, &u->sp, b, mv))
			u->oom = true;
	}
	return done;
}

/* What a far fault does once the handler has served it: migrate the page
 * (a first touch or a write; or a read whose access count reached the
 * threshold), or only map it remotely (preferred location host). */
enum fault_mode { FAULT_MIGRATES, FAULT_BY_COUNTER, FAULT_MAPS_REMOTELY };

/* A far fault on page p of b by SM sm at t: the batch, the handler and
 * the migration (or remote mapping); returns when p has arrived (or is
 * mapped). */
static double far_fault_mode(struct uvm *u, uint32_t sm, struct uvm_block *b, uint32_t p, double t,
			     enum fault_mode mode)
{
	struct gpuvm_uvm_stats *st = u->st;
	double tf = t, mshr_start = t;
	if (u->blocking) {
		/* seeds/003 2.1: once a far fault is raised the GMMU stops the
		 * SM's TLB from taking new translation requests until the page
		 * is there. Requests it had taken before (those of the same
		 * instruction whose walks ended by then) fault alongside and
		 * are drained with it by the polled handler (3.1). */
		if (u->blocked_until[sm] > t && t > u->blocked_since[sm]) {
			st->stall_blocked_cycles += u->blocked_until[sm] - t;
			tf = u->blocked_until[sm];
		}
	} else {
		mshr_start = long_pool_start(&u->ff_mshr[sm], t);
		if (mshr_start > t) { /* Nack-Replayable: replay once an MSHR frees */
			st->nacks++;
			tf = mshr_start + u->replay_cycles;
			st->stall_replay_cycles += tf - t;
		}
	}
	if (__builtin_expect(u->thrash_on, 0)) {
		/* the driver's throttle: the faulting processor naps */
		double until;
		if (uvm_thrash_hint(&u->thrash, b, p, tf, &until) == UVM_THRASH_THROTTLE)
			tf = until;
	}
	double latency = u->posthoc ? 0 : u->fault_latency_cycles, start;
	if (u->batch_open && tf <= u->batch_start && u->batch_count < u->batch_max) {
		u->batch_count++;
		/* Faults reach here in the order of their warps' issue, but a
		 * translation can carry a later time than the next one (an SM
		 * blocked until its own fault is served translates at that
		 * time). A fault that arrived while the handler was idle, before
		 * the open batch began, is taken on arrival; it does not wait for
		 * a batch that opened after it. */
		double taken = u->polled || tf > u->handler_before ? tf : u->handler_before;
		start = taken < u->batch_start ? taken : u->batch_start;
	} else {
		u->batch_open = true;
		u->handler_before = u->handler_free;
		u->batch_start = u->polled || tf > u->handler_free ? tf : u->handler_free;
		u->batch_count = 1;
		st->fault_batches++;
		start = u->batch_start;
		/* The handler is one serial server: the next batch starts once
		 * this one is handled; its DMA transfers queue on the lane
		 * meanwhile (the handler drains the fault queue while DMA
		 * proceeds, seeds/003 3.1). */
		u->handler_free = start + latency;
	}
	double ready = start + latency;
	st->stall_fault_cycles += ready - tf;
	st->far_faults++;
	if (mode == FAULT_BY_COUNTER)
		st->migrations_counter++;
	else if (mode == FAULT_MIGRATES)
		st->migrations_fault++;
	else
		st->remote_map_faults++;
	if (mode != FAULT_MAPS_REMOTELY)
		uvm_note(u, b->base + ((uint64_t)p << UVM_PAGE_SHIFT), UVM_PAGE_BYTES,
			 mode == FAULT_BY_COUNTER ? GPUVM_UVM_MIGRATE_COUNTER : GPUVM_UVM_MIGRATE_FAULT);
	st->posthoc_fault_cycles += u->fault_latency_cycles;
	if (__builtin_expect(u->events.any & (UVM_EVENT_BIT(UVM_EVENT_FAULT) | UVM_EVENT_BIT(UVM_EVENT_ACCESS_COUNTER)), 0)) {
		struct uvm_event ev = {.type = UVM_EVENT_FAULT, .block = b, .t = tf,
				       .fault = {.page = p, .sm = sm, .mode = (uint32_t)mode}};
		if (uvm_events_wanted(&u->events, UVM_EVENT_FAULT) && uvm_events_deliver(&u->events, &ev))
			u->oom = true;
		if (mode == FAULT_BY_COUNTER && b->ac && uvm_events_wanted(&u->events, UVM_EVENT_ACCESS_COUNTER)) {
			uint32_t ch = p / UVM_CHUNK_PAGES;
			struct uvm_event ac = {.type = UVM_EVENT_ACCESS_COUNTER, .block = b, .t = tf,
					       .access_counter = {.chunk = ch, .count = uvm_ac_count(b->ac[ch])}};
			if (uvm_events_deliver(&u->events, &ac))
				u->oom = true;
		}
	}
	u->fault_cause = (uint32_t)mode;
	double arrival = mode == FAULT_MAPS_REMOTELY ? ready : migrate(u, b, p, ready);
	if (!u->blocking) {
		if (long_pool_consume(&u->ff_mshr[sm], mshr_start, arrival - mshr_start))
			u->oom = true;
	} else if (arrival > u->blocked_until[sm]) {
		if (u->blocked_until[sm] <= tf)
			u->blocked_since[sm] = tf; /* a new block, raised now */
		u->blocked_until[sm] = arrival;
	}
	return arrival;
}

/* by_counter: the page was read remotely before and its counter reached
 * the threshold. */
static double far_fault(struct uvm *u, uint32_t sm, struct uvm_block *b, uint32_t p, double t,
			bool by_counter)
{
	return far_fault_mode(u, sm, b, p, t, by_counter ? FAULT_BY_COUNTER : FAULT_MIGRATES);
}

/* The access-counter threshold a read of chunk ch of b must reach. */
static uint32_t read_threshold(const struct uvm *u, const struct uvm_block *b, uint32_t ch)
{
	struct uvm_migrate_ctx c = {
		.ts = u->ts, .penalty = u->penalty,
		.round_trips = b->ac ? uvm_ac_round_trips(b->ac[ch]) : 0,
		.resident_pages = u->sp.resident_pages, .capacity_pages = capacity_pages(u),
		.buffer_frac = u->buffer_frac, .oversubscribed = u->evicting,
	};
	return u->migrate->threshold(&c);
}

static bool thrash_pinned(struct uvm *u, const struct uvm_block *b, uint32_t p, double t)
{
	return u->thrash_on && uvm_thrash_pinned(&u->thrash, b, p, t);
}

/* The UVM_ADVISE_* hints of page p of b: the block's, or, where
 * allocations with different hints share it, those of p's allocation. */
static uint32_t page_advise(const struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	if (__builtin_expect(!b->advise_mixed, 1))
		return b->advise;
	uint64_t a = b->base + ((uint64_t)p << UVM_PAGE_SHIFT);
	for (uint32_t i = 0; i < u->n_allocs; i++)
		if (a >= u->allocs[i].base && a - u->allocs[i].base < u->allocs[i].bytes)
			return u->allocs[i].advise;
	return 0;
}

/* Whether an access of non-resident page p of b (64 KB chunk ch) stays in
 * host memory because of a hint, counting this access when counted (the
 * count already includes it): preferred location host always (the driver
 * maps it remotely instead of migrating, CUDA Programming Guide,
 * cudaMemAdviseSetPreferredLocation); accessed-by GPU until the access
 * counters migrate it under a policy that delays (on a policy that does
 * not, nothing but a fault would move it, and with the mapping kept
 * there is none). */
static bool advise_stays(struct uvm *u, const struct uvm_block *b, uint32_t p, bool counted)
{
	uint32_t adv = page_advise(u, b, p);
	if (adv & UVM_ADVISE_HOST)
		return true;
	if (!(adv & UVM_ADVISE_ACCESSED_BY))
		return false;
	if (!u->migrate->delays || !b->ac)
		return true;
	uint32_t ch = p / UVM_CHUNK_PAGES;
	return (uint64_t)uvm_ac_count(b->ac[ch]) + (counted ? 0 : 1) < read_threshold(u, b, ch);
}

/* Whether a read of non-resident page p of b would be left in host
 * memory (the walk then maps it remotely and uvm_access decides). */
static bool maps_remotely(struct uvm *u, struct uvm_block *b, uint32_t p, double t)
{
	if (u->advise_on && advise_stays(u, b, p, false))
		return true;
	if (u->migrate->delays && b->ac) {
		uint32_t ch = p / UVM_CHUNK_PAGES;
		/* this access will count: it migrates when count + 1 >= t_d */
		if ((uint64_t)uvm_ac_count(b->ac[ch]) + 1 < read_threshold(u, b, ch))
			return true;
	}
	return thrash_pinned(u, b, p, t);
}

/* A page of preferred location host without an accessed-by mapping is
 * not mapped on the GPU until its first access faults and the driver maps
 * it remotely instead of migrating it: a far fault (MSHR, batch, handler)
 * without a transfer, once per page; walks of the page meanwhile wait
 * for the mapping (its time is kept in arrive[], unused while the page
 * is not resident). */
static double remote_map_fault(struct uvm *u, uint32_t sm, struct uvm_block *b, uint32_t p, double t)
{
	uint32_t adv = page_advise(u, b, p);
	if (!(adv & UVM_ADVISE_HOST) || (adv & UVM_ADVISE_ACCESSED_BY))
		return t;
	if (mask_test(b->remote, p))
		return b->arrive[p] > t ? b->arrive[p] : t; /* mapped (or being mapped) */
	mask_set(b->remote, p);
	u->st->delayed_migrations++;
	b->arrive[p] = far_fault_mode(u, sm, b, p, t, FAULT_MAPS_REMOTELY);
	return b->arrive[p];
}

double uvm_translate(struct uvm *u, uint32_t sm, uint64_t addr, double t, uint64_t *fill_max)
{
	struct uvm_block *b = block_get(u, addr);
	if (!b) {
		u->oom = true;
		return t;
	}
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	/* under thrashing the block is rarely in the host's caches: start
	 * all three loads now rather than one after another */
	__builtin_prefetch(&b->arrive[p]);
	__builtin_prefetch(&b->resident[p >> 6]);
	if (!block_covers(u, b, p))
		return t;
	if (mask_test(b->resident, p)) {
		/* resident, or in flight: faults coalesce per page */
		if (b->page_l2_evicted_at) /* the engine's L2 reads it next */
			__builtin_prefetch(&b->page_l2_evicted_at[p]);
		*fill_max = resident_extent(u, b, p);
		if (t >= b->arrive_max)
			return t;
		return b->arrive[p] > t ? b->arrive[p] : t;
	}
	if (__builtin_expect(u->ac_on || u->thrash_on || u->advise_on, 0) && maps_remotely(u, b, p, t)) {
		*fill_max = UVM_PAGE_BYTES; /* a remote mapping of the one page */
		if (u->advise_on)
			return remote_map_fault(u, sm, b, p, t);
		return t;
	}
	/* a page read remotely before migrates because its count has
	 * reached the threshold */
	double arrival = far_fault(u, sm, b, p, t, mask_test(b->remote, p));
	*fill_max = resident_extent(u, b, p);
	return arrival;
}

/* A remote access of page p of b at t (seeds/004 II-C, IV): the sector
 * crosses the link on the lane migrations use (reads host-to-device,
 * writes of a pinned page device-to-host), at the link's achieved rate,
 * plus the remote-access latency (Table I: 200 cycles); no fault, no
 * prefetch, the page stays where it is. */
static double remote_access(struct uvm *u, struct uvm_block *b, uint64_t addr, bool write,
			    double t)
{
	struct gpuvm_uvm_stats *st = u->st;
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	st->remote_accesses++;
	uvm_note(u, addr, u->sector_bytes, GPUVM_UVM_REMOTE);
	st->remote_bytes += u->sector_bytes;
	if (!mask_test(b->remote, p)) {
		mask_set(b->remote, p);
		st->delayed_migrations++;
	}
	double hold = (double)u->sector_bytes * u->remote_cycles_per_byte;
	double s = lane_book(u, write ? u->d2h : u->h2d, t, &hold);
	util_add(u, !write, s, s + hold);
	return s + hold + u->remote_latency;
}

/* An access of resident page p of b at t: a prefetched page is used, a
 * written one dirty; returns when the page is there. */
static inline double access_resident(struct uvm *u, struct uvm_block *b, uint32_t p, bool write,
				     double t)
{
	uint32_t w = p >> 6;
	uint64_t bit = 1ull << (p & 63);
	if (b->prefetched[w] & bit) {
		b->prefetched[w] &= ~bit;
		b->prefetched_count--;
		u->st->prefetched_used++;
	}
	if (write) {
		b->dirty[w] |= bit;
		b->written_ever[w] |= bit;
	}
	if (u->evict->on_access)
		u->evict->on_access(u->evict_state, b, p);
	return b->arrive[p] > t ? b->arrive[p] : t;
}

/* uvm_access with access counters or thrashing detection on: every access
 * counts at its 64 KB block (local and remote alike, seeds/004 IV); a
 * non-resident page is read remotely below the threshold, a write (or a
 * read that reaches it) faults it in. may_stay: the access may be served
 * remotely (reads and atomics; stores never, seeds/004 II-C). */
static inline double access_counted(struct uvm *u, uint32_t sm, uint64_t addr,
							bool write, bool may_stay, double t, bool *remote)
{
	struct uvm_block *b = block_get(u, addr);
	if (!b) {
		u->oom = true;
		return t;
	}
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	if (!block_covers(u, b, p))
		return t;
	uint32_t ch = p / UVM_CHUNK_PAGES;
	/* one count per coalesced access, as the load/store unit issues them
	 * (UVMSmart shader.cc: one inc_bb_access_counter per access of the
	 * access queue): the sectors of one 128 B line that one instruction
	 * reads arrive one after another with the same translation time */
	uint64_t line = addr >> UVM_AC_LINE_SHIFT;
	if (b->ac && (line != u->ac_last_line || t != u->ac_last_t)) {
		u->ac_last_line = line;
		u->ac_last_t = t;
		if (uvm_ac_access(&u->sp, b, ch))
			u->st->counter_halvings++;
	}
	if (!mask_test(b->resident, p)) {
		if (thrash_pinned(u, b, p, t) || (u->advise_on && advise_stays(u, b, p, true)) ||
		    (may_stay && u->migrate->delays && b->ac && uvm_ac_count(b->ac[ch]) < read_threshold(u, b, ch))) {
			*remote = true;
			return remote_access(u, b, addr, write && !may_stay, t); /* an atomic returns its data */
		}
		t = far_fault(u, sm, b, p, t, mask_test(b->remote, p));
		if (!mask_test(b->resident, p))
			return t;
	}
	return access_resident(u, b, p, write, t);
}

double uvm_access_counted(struct uvm *u, uint32_t sm, uint64_t addr, bool write, bool may_stay,
			  double t, bool *remote)
{
	return access_counted(u, sm, addr, write, may_stay, t, remote);
}

double uvm_access(struct uvm *u, uint32_t sm, uint64_t addr, bool write, double t)
{
	uint64_t bn = addr >> UVM_BLOCK_SHIFT;
	struct uvm_block *b = u->last;
	if (!b || b->base != bn << UVM_BLOCK_SHIFT) {
		b = block_find(u, bn);
		if (b)
			u->last = b;
	}
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	bool resident = b && ((block_full(b) && p >= b->first_page && p < b->end_page) ||
			      mask_test(b->resident, p));
	if (!resident) {
		/* Not reached while TLB entries only cover resident pages; kept
		 * so that no access ever reads a page that is not there. */
		uint64_t fill_max;
		t = uvm_translate(u, sm, addr, t, &fill_max);
		b = u->last;
		if (!b || !mask_test(b->resident, p))
			return t;
	}
	/* the common case reads only the block's first cache line */
	if (!write && !b->prefetched_count && !u->evict->on_access && t >= b->arrive_max)
		return t;
	return access_resident(u, b, p, write, t);
}

void uvm_finish(struct uvm *u)
{
	for (uint32_t i = 0; i < u->n_allocs; i++)
		uvm_alloc_classify(u, &u->allocs[i]);
	uvm_alloc_rank(u);
	for (uint32_t i = 0; i < u->sp.n; i++)
		u->st->prefetched_unused += mask_count(u->sp.blocks[i]->prefetched);
	/* hot/cold classification of the touched 64 KB blocks by their
	 * counters: hot once they reached t_s (seeds/004 III-B, IV) */
	for (uint32_t i = 0; i < u->sp.n; i++) {
		const uint32_t *ac = u->sp.blocks[i]->ac;
		if (!ac)
			continue;
		for (uint32_t c = 0; c < UVM_BLOCK_CHUNKS; c++) {
			uint32_t n = uvm_ac_count(ac[c]);
			if (n >= u->ts)
				u->st->hot_chunks++;
			else if (n)
				u->st->cold_chunks++;
		}
	}
}

/* ---- invariants (numbered at the top of this file) ----------------- */

#include "core/invariant.h"

#define violated(why, len, n, ...) gpuvm_violated(why, len, "UVM", "U", n, __VA_ARGS__)

static int check_block(const struct uvm *u, const struct uvm_block *b, uint32_t i, char *why,
		       size_t len)
{
	unsigned long long base = (unsigned long long)b->base;
	if (b->index != i)
		return violated(why, len, 1, "block %u at %#llx has index %u", i, base, b->index);
	if (block_find((struct uvm *)u, b->base >> UVM_BLOCK_SHIFT) != b)
		return violated(why, len, 1, "block %u at %#llx is not in the block map", i, base);
	if (!block_arena_owns(&u->arena, b, sizeof *b))
		return violated(why, len, 2, "block %u at %#llx lies outside the block arena", i, base);
	if (b->first_page >= b->end_page || b->end_page > UVM_BLOCK_PAGES)
		return violated(why, len, 3, "block %#llx: managed span [%u, %u)", base, b->first_page,
				b->end_page);
	uint32_t outside = mask_count(b->resident) -
			   mask_count_range(b->resident, b->first_page, b->end_page);
	if (outside)
		return violated(why, len, 3, "block %#llx: %u resident pages outside its managed span "
				"[%u, %u)", base, outside, b->first_page, b->end_page);
	if (b->resident_count != mask_count(b->resident))
		return violated(why, len, 4, "block %#llx: resident_count %u, %u pages resident", base,
				b->resident_count, mask_count(b->resident));
	uint32_t first_bad[3] = {UVM_BLOCK_PAGES, UVM_BLOCK_PAGES, UVM_BLOCK_PAGES};
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
		uint64_t bad[3] = {b->prefetched[w] & ~b->resident[w], b->dirty[w] & ~b->resident[w],
				   b->evicted[w] & b->resident[w]};
		for (int k = 0; k < 3; k++)
			if (bad[k] && first_bad[k] == UVM_BLOCK_PAGES)
				first_bad[k] = w * 64 + (uint32_t)__builtin_ctzll(bad[k]);
	}
	if (first_bad[0] < UVM_BLOCK_PAGES)
		return violated(why, len, 6, "block %#llx: page %u prefetched but not resident", base,
				first_bad[0]);
	if (b->prefetched_count != mask_count(b->prefetched))
		return violated(why, len, 6, "block %#llx: prefetched_count %u, %u pages prefetched",
				base, b->prefetched_count, mask_count(b->prefetched));
	if (first_bad[1] < UVM_BLOCK_PAGES)
		return violated(why, len, 7, "block %#llx: page %u dirty but not resident", base,
				first_bad[1]);
	if (first_bad[2] < UVM_BLOCK_PAGES)
		return violated(why, len, 8, "block %#llx: page %u both resident and evicted", base,
				first_bad[2]);
	for (uint32_t p = mask_next(b->resident, 0, true); p < UVM_BLOCK_PAGES;
	     p = mask_next(b->resident, p + 1, true))
		if (b->arrive[p] > b->arrive_max)
			return violated(why, len, 9, "block %#llx: page %u arrives at %.17g, after "
					"arrive_max %.17g", base, p, b->arrive[p], b->arrive_max);
	return 0;
}

int uvm_check(const struct uvm *u, char *why, size_t len)
{
	if (why && len)
		why[0] = 0;
	int r = block_arena_check(&u->arena, why, len);
	if (r)
		return violated(why, len, 2, "the block arena's invariant A%d fails", r);
	if (u->sp.n > u->blocks_cap || u->blocks.n != u->sp.n)
		return violated(why, len, 1, "%u blocks in the table (room for %u), %u in the map",
				u->sp.n, u->blocks_cap, u->blocks.n);
	uint64_t resident = 0;
	for (uint32_t i = 0; i < u->sp.n; i++) {
		const struct uvm_block *b = u->sp.blocks[i];
		if ((r = check_block(u, b, i, why, len)))
			return r;
		resident += b->resident_count;
	}
	if (resident != u->sp.resident_pages || resident > u->st->peak_resident_pages)
		return violated(why, len, 5, "blocks hold %llu resident pages, sp.resident_pages = %llu, "
				"peak %llu", (unsigned long long)resident,
				(unsigned long long)u->sp.resident_pages,
				(unsigned long long)u->st->peak_resident_pages);
	for (uint32_t e = 0; u->group_blocks >= 2 && u->groups.e && e <= u->groups.mask; e++) {
		const struct uvm_map_entry *x = &u->groups.e[e];
		if (!x->key)
			continue;
		uint64_t g = x->key - 1, want = 0;
		for (uint32_t k = 0; k < u->group_blocks; k++) {
			uint64_t bn = (g << u->group_shift) + k;
			const struct uvm_block *o = block_find((struct uvm *)u, bn);
			uint32_t f, end;
			int adv;
			if (o ? !block_full(o) : managed_span(u, bn, &f, &end, &adv))
				want |= 1ull << k;
		}
		if (want != x->val)
			return violated(why, len, 10, "group %llu: not-fully-resident bits %#llx, the blocks "
					"say %#llx", (unsigned long long)g, (unsigned long long)x->val,
					(unsigned long long)want);
	}
	return 0;
}
