/* Unified-memory paging (the UVM driver model): see uvm.h for its
 * interface, uvm_impl.h for how its files divide the work. This file owns
 * the driver's setup and teardown, the block table (a VA block's record,
 * made on first touch), the residency summary for TLB fills wider than
 * 2 MB, the end-of-run statistics and the page-state invariants below
 * (uvm_check). It calls the policy modules' create/destroy and the block
 * arena; it moves no page and books no link time.
 *
 * Sources of the behaviour, by step (the files that model each):
 * far faults, far-fault MSHRs and Nack-replay: seeds/003 (Zheng) 3, Fig. 4;
 * far faults, far-fault MSHRs and Nack-replay: seeds/003 (Zheng) 3, Fig. 4;
 * fault batches of 256 serviced one after another, each migrating before
 * the next (the driver's service loop): nvidia-uvm uvm_gpu_replayable_faults.c
 * (uvm_fault.c); transfers cut at gaps and after each faulted page
 * (uvm_migrate.c), serial FIFO lanes, the transfer-size curve (uvm_lane.c):
 * UVMSmart gpu-sim.cc do_hardware_prefetch and its PCIe lanes; eviction
 * trigger with the free-page buffer and write-back (uvm_evict.c): UVMSmart
 * page_eviction_procedure, nvidia-uvm uvm_pmm_gpu.c evict_root_chunk.
 *
 * Invariants of the page state (uvm_check verifies them, naming the
 * number; tests call it after every operation, debug engines at kernel
 * boundaries). A page moves host -> resident (uvm_migrate_pages,
 * uvm_copy_in: its frame is taken at once, its data lands at arrive[p])
 * -> host again (uvm_evict.c drop_pages: evicted, or written back at a
 * device sync; also uvm_remove_alloc); uvm_page_state.h draws its life
 * cycle, says which of these hold in each state, and checks U3 and U6-U9
 * at every transition in GPUVM_CHECK_INVARIANTS builds:
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
 *       fully resident (uvm_group_notok's rule).
 */
#include "core/spec_seal.h"
#include "uvm/remote_tlb.h"
#include "uvm/thrashing_shared.h"
#include "uvm/uvm_impl.h"
#include "gpuvm/link_rate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FF_SLOT_CYCLES 2048.0 /* far faults hold an MSHR for 10^4-10^6 cycles */
#define FF_RING 1024

/* ---- setup -------------------------------------------------------------- */

int uvm_init(struct uvm *u, const struct gpuvm_config *cfg, struct gpuvm_uvm_stats *st,
	     const struct uvm_hooks *hooks)
{
	memset(u, 0, sizeof *u);
	u->st = st;
	if (hooks)
		u->hooks = *hooks;
	u->shared = u->hooks.shared;
	u->proc = u->hooks.shared ? u->hooks.proc : UVM_PROC_GPU0;
	u->h2d = u->hooks.lanes[0] ? u->hooks.lanes[0] : &u->own_h2d;
	u->d2h = u->hooks.lanes[1] ? u->hooks.lanes[1] : &u->own_d2h;
	if ((u->h2d == &u->own_h2d && link_lane_init(&u->own_h2d)) ||
	    (u->d2h == &u->own_d2h && link_lane_init(&u->own_d2h)))
		return -1;
	u->spec.clock_hz = cfg->clock_mhz * 1e6;
	u->spec.fault_latency_cycles = cfg->uvm_fault_latency_us * cfg->clock_mhz;
	u->spec.posthoc = cfg->uvm_fault_accounting == GPUVM_UVM_POSTHOC;
	u->spec.blocking = cfg->uvm_fault_model == GPUVM_UVM_BLOCKING;
	u->spec.curve = cfg->uvm_pcie_model == GPUVM_UVM_LINK_CURVE;
	u->spec.wb_dirty = cfg->uvm_writeback == GPUVM_UVM_WB_DIRTY;
	u->spec.preferred_gpu = cfg->uvm_preferred_location == GPUVM_UVM_PREFERRED_GPU;
	u->spec.batch_max = cfg->uvm_fault_batch;
	u->polled = cfg->uvm_gmmu == GPUVM_UVM_GMMU_ZHENG;
	u->spec.sms = cfg->sms;
	u->spec.bandwidth_gb_s = cfg->pcie_bandwidth_gb_s;
	u->spec.migration_gb_s = cfg->uvm_migration_gb_s;
	u->spec.buffer_frac = cfg->uvm_free_buffer_percent / 100.0;
	u->spec.oversub_pct = cfg->uvm_oversub_percent;
	u->spec.device_bytes = cfg->uvm_device_memory_bytes;
	/* a replayed translation walks again (seeds/003 Fig. 4 step 6) */
	u->spec.replay_cycles = cfg->walk_latency_cycles;
	u->spec.max_entry_bytes = UVM_PAGE_BYTES;
	for (uint32_t l = 0; l < cfg->tlb_levels; l++)
		if (cfg->tlb[l].entry_bytes > u->spec.max_entry_bytes)
			u->spec.max_entry_bytes = cfg->tlb[l].entry_bytes;
	u->rng = 0x5eed0f0a17ull;
	u->sp.rng = &u->rng;
	st->latency_in_timing = !u->spec.posthoc;

	const struct gpuvm_module *pm = gpuvm_module_find(GPUVM_MODULE_PREFETCH, cfg->uvm_prefetcher);
	const struct gpuvm_module *pom = cfg->uvm_prefetcher_oversub[0]
		? gpuvm_module_find(GPUVM_MODULE_PREFETCH, cfg->uvm_prefetcher_oversub) : NULL;
	u->prefetch = pm ? pm->ops : NULL;
	u->spec.prefetch_oversub = pom ? pom->ops : NULL;
	if (pm)
		gpuvm_module_params(cfg, pm, u->prefetch_params);
	if (pom)
		gpuvm_module_params(cfg, pom, u->spec.prefetch_oversub_params);
	u->spec.evict = uvm_evict_find(cfg->uvm_eviction);
	u->migrate = uvm_migrate_find(cfg->uvm_migration);
	if (!u->prefetch || !u->spec.evict || !u->migrate)
		return -1; /* finalize checked the names */
	u->ac_on = u->migrate->delays || u->spec.evict->uses_access_counters;
	u->counter_async = cfg->uvm_counter_migration_fault == 0;
	u->rtlb_words = cfg->uvm_remote_tlb_hits_local ? uvm_rtlb_words(cfg->sms) : 0;
	u->rtlb_at_return = u->rtlb_words && cfg->uvm_remote_tlb_fill_return;
	u->ts = cfg->uvm_access_counter_threshold;
	u->sync_writeback = cfg->uvm_device_sync_writeback != 0;
	u->sp.ac_hot = u->ts;
	u->sp.evict_whole = cfg->uvm_evict_whole != 0;
	u->penalty = cfg->uvm_migration_penalty;
	u->remote_latency = cfg->uvm_remote_latency_cycles;
	u->sector_bytes = cfg->l2_sector_bytes;
	/* a remote read moves its bytes at the rate the engine's zero-copy
	 * sectors get (gpuvm_pcie_effective_gb_s), on the migrations' lane */
	u->remote_cycles_per_byte = u->spec.clock_hz / (gpuvm_pcie_effective_gb_s(u->spec.bandwidth_gb_s) * 1e9);
	u->ac_last_line = UINT64_MAX;
	u->remote_hold = cfg->uvm_remote_read_hold_cycles;
	u->rq_line = UINT64_MAX;
	if (cfg->c2c_coherent) {
		/* the host link is NVLink-C2C (c2c.coherent; docs/systems.md
		 * "Grace Hopper memory"): migrations move at its rate, flat
		 * (uvm.migration_gb_s and the curve are the PCIe board's; no
		 * GH200 migration rate was read), and a remote read of
		 * CPU-resident memory at the lesser of the link's rate and the
		 * CPU memory's, with the link's latency where one is given */
		u->c2c = true;
		u->spec.migration_gb_s = cfg->c2c_bandwidth_gb_s;
		u->spec.curve = false;
		double gb_s = cfg->c2c_bandwidth_gb_s < cfg->c2c_cpu_memory_gb_s ? cfg->c2c_bandwidth_gb_s
										  : cfg->c2c_cpu_memory_gb_s;
		u->remote_cycles_per_byte = u->spec.clock_hz / (gb_s * 1e9);
		if (cfg->c2c_latency_ns > 0)
			u->remote_latency = cfg->c2c_latency_ns * 1e-9 * u->spec.clock_hz;
		u->sys_page_pages = cfg->c2c_system_page_bytes >> UVM_PAGE_SHIFT;
		if (!u->sys_page_pages)
			u->sys_page_pages = 1;
		u->line_bytes = cfg->c2c_line_bytes;
		u->rl_line = UINT64_MAX;
		/* nvidia-uvm's prefetcher also widens ATS faults (uvm_ats.c),
		 * under the same switch and threshold as the managed path's */
		if (strcmp(pm->name, "tree-driver") == 0)
			u->ats_prefetch_threshold_percent = u->prefetch_params[0];
	}
	u->thrash_on = cfg->uvm_thrashing != 0;
	if (u->thrash_on) {
		double tp[GPUVM_MODULE_PARAMS_EACH];
		gpuvm_module_params(cfg, &gpuvm_module_thrashing_driver, tp);
		if (uvm_thrash_init(&u->thrash, u->spec.clock_hz, st, tp) ||
		    uvm_events_subscribe(&u->events, UVM_EVENT_BIT(UVM_EVENT_MIGRATE), uvm_thrash_on_event,
					 &u->thrash))
			return -1;
	}
	if (u->shared && cfg->uvm_thrashing) {
		/* several GPUs: one detection for all (thrashing_shared.h),
		 * with the first driver's tunables (the driver's are module
		 * parameters, one set per machine); a pinned page is mapped
		 * where it is, the peer-mapping path */
		if (!u->shared->thrash) {
			double tp[GPUVM_MODULE_PARAMS_EACH];
			gpuvm_module_params(cfg, &gpuvm_module_thrashing_driver, tp);
			u->shared->thrash = malloc(sizeof *u->shared->thrash);
			if (!u->shared->thrash)
				return -1;
			if (uvm_xthrash_init(u->shared->thrash, u->shared, tp)) {
				free(u->shared->thrash);
				u->shared->thrash = NULL;
				return -1;
			}
		}
		/* each driver's migrations are its events */
		if (uvm_events_subscribe(&u->events, UVM_EVENT_BIT(UVM_EVENT_MIGRATE),
					 uvm_thrash_mgpu_on_event, u))
			return -1;
		u->peer_map_on = true;
	}
	if (u->spec.evict->create && u->spec.evict->create(&u->evict_state))
		return -1;

	u->group_blocks = 1;
	while (u->group_blocks < 64 &&
	       ((uint64_t)u->group_blocks << UVM_BLOCK_SHIFT) < u->spec.max_entry_bytes) {
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
	u->spec_seal = spec_seal(&u->spec, sizeof u->spec);
	return 0;
}

bool uvm_spec_intact(const struct uvm *u)
{
	return u->spec_seal == spec_seal(&u->spec, sizeof u->spec);
}

void uvm_free(struct uvm *u)
{
	spec_seal_verify(u->spec_seal, spec_seal(&u->spec, sizeof u->spec), "uvm");
	uvm_host_free(u);
	for (uint32_t i = 0; i < u->sp.n; i++) {
		free(u->sp.blocks[i]->ac);
		free(u->sp.blocks[i]->rtlb);
		free(u->sp.blocks[i]->rtlb_at);
		free(u->sp.blocks[i]->others);
	}
	block_arena_free(&u->arena);
	free(u->sp.blocks);
	uvm_map_free(&u->blocks);
	uvm_map_free(&u->groups);
	for (uint32_t i = 0; i < u->n_allocs; i++)
		free(u->allocs[i].host_touched);
	free(u->allocs);
	if (u->ff_mshr)
		for (uint32_t i = 0; i < u->spec.sms; i++)
			long_pool_free(&u->ff_mshr[i]);
	free(u->ff_mshr);
	free(u->blocked_until);
	free(u->blocked_since);
	link_lane_free(&u->own_h2d);
	link_lane_free(&u->own_d2h);
	if (u->spec.evict && u->spec.evict->destroy)
		u->spec.evict->destroy(u->evict_state);
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
	u->allocs[u->n_allocs] = (struct uvm_range){base, bytes, advise, 0, NULL};
	if (uvm_alloc_stats_open(u, &u->allocs[u->n_allocs], name))
		return -1;
	u->n_allocs++;
	if (advise)
		u->advise_on = true;
	u->managed_bytes += bytes;
	uvm_groups_clear(u);
	u->st->active = true;
	return 0;
}

/* ---- system-allocated memory (c2c.coherent) ------------------------------ */

bool uvm_is_system(const struct uvm *u, uint64_t addr)
{
	for (uint32_t i = 0; i < u->n_allocs; i++)
		if (addr - u->allocs[i].base < u->allocs[i].bytes)
			return (u->allocs[i].advise & UVM_ADVISE_SYSTEM) != 0;
	return false;
}

int uvm_host_touch(struct uvm *u, uint64_t addr, uint64_t bytes)
{
	for (uint32_t i = 0; i < u->n_allocs && bytes; i++) {
		struct uvm_range *r = &u->allocs[i];
		if (!(r->advise & UVM_ADVISE_SYSTEM) || addr - r->base >= r->bytes)
			continue;
		uint64_t pages = (r->bytes + UVM_PAGE_BYTES - 1) >> UVM_PAGE_SHIFT;
		if (!r->host_touched && !(r->host_touched = calloc((pages + 63) / 64, sizeof(uint64_t))))
			return -1;
		/* whole system pages: the CPU's first touch places the page
		 * it falls in (pages counted from the range's base, which the
		 * VA layout aligns to 2 MiB) */
		uint64_t sp = u->sys_page_pages ? u->sys_page_pages : 1;
		uint64_t lo = (addr - r->base) >> UVM_PAGE_SHIFT;
		uint64_t end = addr - r->base + bytes < r->bytes ? addr - r->base + bytes : r->bytes;
		uint64_t hi = (end + UVM_PAGE_BYTES - 1) >> UVM_PAGE_SHIFT;
		lo -= lo % sp;
		hi = (hi + sp - 1) / sp * sp;
		if (hi > pages)
			hi = pages;
		if (u->shared) {
			/* several GPUs: the residency they share records it, on
			 * the host thread's node, cpu.0 (the model's host is one
			 * thread; a program's choice of node is not modelled),
			 * where no processor placed the page before */
			uvm_shared_cpu_place(u->shared, r->base + (lo << UVM_PAGE_SHIFT),
					     (hi - lo) << UVM_PAGE_SHIFT, 0);
			return u->shared->oom ? -1 : 0;
		}
		for (uint64_t q = lo; q < hi; q++) {
			uint64_t a = r->base + (q << UVM_PAGE_SHIFT);
			const struct uvm_map_entry *x = uvm_map_find(&u->blocks, a >> UVM_BLOCK_SHIFT);
			const struct uvm_block *b = x ? (const struct uvm_block *)(uintptr_t)x->val : NULL;
			uint32_t p = (uint32_t)((a >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
			if (b && mask_test(b->resident, p))
				continue; /* the GPU touched it first: in device memory */
			r->host_touched[q >> 6] |= 1ull << (q & 63);
		}
		return 0;
	}
	return 0;
}

/* ---- blocks ------------------------------------------------------------- */

/* Managed pages of block bn: [*first, *end); false when none. *advise:
 * the hints of the allocations in it, -1 when they differ. */
bool uvm_managed_span(const struct uvm *u, uint64_t bn, uint32_t *first, uint32_t *end,
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

struct uvm_block *uvm_block_get(struct uvm *u, uint64_t addr)
{
	uint64_t bn = addr >> UVM_BLOCK_SHIFT;
	if (u->last && u->last->base == bn << UVM_BLOCK_SHIFT)
		return u->last;
	struct uvm_block *b = block_find(u, bn);
	if (b)
		return u->last = b;
	uint32_t first, end;
	int advise = 0;
	if (!uvm_managed_span(u, bn, &first, &end, &advise)) {
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
	uvm_group_update(u, b);
	return u->last = b;
}

/* Whether page p of b is managed; the block's span widens when another
 * allocation has come to share the block since it was built. */
bool uvm_block_covers(struct uvm *u, struct uvm_block *b, uint32_t p)
{
	if (p >= b->first_page && p < b->end_page)
		return true;
	uint32_t f, e;
	int adv;
	if (uvm_managed_span(u, b->base >> UVM_BLOCK_SHIFT, &f, &e, &adv)) {
		b->first_page = (uint16_t)(f < b->first_page ? f : b->first_page);
		b->end_page = (uint16_t)(e > b->end_page ? e : b->end_page);
		b->advise = adv > 0 ? (uint8_t)adv : 0;
		b->advise_mixed = adv < 0;
		uvm_group_update(u, b);
	}
	return p >= b->first_page && p < b->end_page;
}

/* ---- residency summary -------------------------------------------------- */

void uvm_groups_clear(struct uvm *u)
{
	uvm_map_clear(&u->groups);
}

/* A block's residency changed: its group's bit follows. */
void uvm_group_update(struct uvm *u, const struct uvm_block *b)
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
uint64_t uvm_group_notok(struct uvm *u, uint64_t g)
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
		if (o ? !block_full(o) : uvm_managed_span(u, bn, &f, &e, &adv))
			m |= 1ull << k;
	}
	if (!uvm_map_insert(&u->groups, g, m))
		return UINT64_MAX;
	return m;
}

/* ---- end of run ---------------------------------------------------------- */

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
			if (o ? !block_full(o) : uvm_managed_span(u, bn, &f, &end, &adv))
				want |= 1ull << k;
		}
		if (want != x->val)
			return violated(why, len, 10, "group %llu: not-fully-resident bits %#llx, the blocks "
					"say %#llx", (unsigned long long)g, (unsigned long long)x->val,
					(unsigned long long)want);
	}
	return 0;
}
