/* Device frames of the UVM driver: capacity (uvm.oversub or the device
 * memory), making room by eviction through the eviction policy (with the
 * free-page buffer), write-back of evicted or dirty pages on the
 * device-to-host lane, a device sync's write-back, and cudaFree of a
 * managed range; L2 lines of pages that leave turn stale.
 *
 * Owns: the transitions EVICT, WRITE_BACK (drop_pages), FREE
 * (uvm_remove_alloc) and MIGRATE_OUT (uvm_invalidate_taken, several GPUs:
 * pages another GPU took; uvm_prefetch_to_host) of uvm_page_state.h, and the eviction counters. May call: the eviction policy's ops, the
 * prefetcher switch on oversubscription, the lanes (uvm_lane.c), the
 * engine's shootdown and L2-clock hooks, the driver events (EVICT), the
 * CPU side's read-mostly ranges (uvm_host_drop_ranges, at cudaFree).
 * Guarantees: invariants U4-U9 hold after each call; a frame is free no
 * earlier than its write-back ends (the returned time). */

#include "uvm/uvm_impl.h"

#include <math.h>
#include <string.h>

/* ---- eviction ----------------------------------------------------------- */

uint64_t uvm_capacity_pages(const struct uvm *u)
{
	if (u->spec.oversub_pct > 0) {
		double pages = (double)((u->managed_bytes + UVM_PAGE_BYTES - 1) >> UVM_PAGE_SHIFT);
		double want = ceil(pages * 100.0 / u->spec.oversub_pct);
		/* past 2^63 pages the conversion would be undefined */
		uint64_t cap = want >= 0x1p63 ? UINT64_MAX : (uint64_t)want;
		return cap ? cap : 1;
	}
	return u->spec.device_bytes >> UVM_PAGE_SHIFT;
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

/* Why pages leave: an eviction for room, a device sync's write-back, an
 * explicit prefetch to the CPU (cudaMemPrefetchAsync). */
enum drop_why { DROP_EVICT, DROP_SYNC, DROP_TO_HOST };

/* Drops the pages of mask from b: write-back (all or dirty; every page
 * for a prefetch to the CPU, whose copy is stale) on the D2H lane from t
 * on, shootdown, bookkeeping. An eviction (for room) counts as one and as
 * a round trip of its 64 KB blocks; a device sync's write-back
 * (uvm_device_sync) does not. Returns when the frames are free. */
static double drop_pages(struct uvm *u, struct uvm_block *b, const uint64_t *mask, double t,
			 enum drop_why why)
{
	struct gpuvm_uvm_stats *st = u->st;
	bool eviction = why == DROP_EVICT, dirty_only = u->spec.wb_dirty && why != DROP_TO_HOST;
	double freed = t;
	uint32_t n = 0;
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p, true)) {
		uint32_t q = mask_next(mask, p, false);
		/* write-back runs: contiguous pages merge into one write (UVMSmart) */
		for (uint32_t r = p; r < q;) {
			if (dirty_only && !mask_test(b->dirty, r)) {
				r++;
				continue;
			}
			uint32_t s = r;
			double ready = t;
			/* arrive_max bounds every page: past it, none is on its way */
			bool in_flight = b->arrive_max > t;
			while (s < q && (!dirty_only || mask_test(b->dirty, s))) {
				if (in_flight && b->arrive[s] > ready)
					ready = b->arrive[s]; /* a page still on its way leaves after it lands */
				s++;
			}
			double done = uvm_lane_transfer(u, false, ready, (uint64_t)(s - r) << UVM_PAGE_SHIFT);
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
		/* a counter notice's page, evicted on its way, loses its remote mapping */
		if (eviction)
			uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_EVICT, w, mask[w]);
		else if (why == DROP_SYNC)
			uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_WRITE_BACK, w, mask[w]);
		else
			uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_MIGRATE_OUT, w, mask[w]);
	}
	b->prefetched_count = mask_count(b->prefetched);
	b->resident_count -= n;
	u->sp.resident_pages -= n;
	if (eviction)
		st->pages_evicted += n;
	else if (why == DROP_SYNC)
		st->sync_writeback_pages += n;
	if (eviction && b->ac) /* seeds/004 IV: r counts the times a 64 KB block was evicted */
		for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++)
			if (mask_count_range(mask, ch * UVM_CHUNK_PAGES, (ch + 1) * UVM_CHUNK_PAGES) &&
			    uvm_ac_round_trip(&u->sp, b, ch))
				st->round_trip_halvings++;
	uvm_group_update(u, b);
	if (u->spec.evict->on_evicted)
		u->spec.evict->on_evicted(u->evict_state, b, mask);
	if (u->shared) /* the host holds them again */
		uvm_shared_release(u->shared, b->base, mask, u->proc);
	if (eviction && uvm_events_wanted(&u->events, UVM_EVENT_EVICT)) {
		struct uvm_event ev = {.type = UVM_EVENT_EVICT, .block = b, .t = t, .evict.pages = mask};
		if (uvm_events_deliver(&u->events, &ev))
			u->oom = true;
	}
	return freed;
}

/* Makes room for k more pages at t; returns when the frames the transfer
 * needs are free (t unless write-backs had to finish first). */
double uvm_ensure_frames(struct uvm *u, uint32_t k, double t)
{
	uint64_t cap = uvm_capacity_pages(u);
	u->st->capacity_pages = cap;
	if (!cap)
		return t;
	double soft_d = (double)cap * (1.0 - u->spec.buffer_frac);
	uint64_t soft = soft_d < 1 ? 1 : (uint64_t)soft_d;
	double ready = t;
	while (u->sp.resident_pages + k > soft && u->sp.resident_pages > 0) {
		if (!u->evicting) {
			u->evicting = true;
			if (u->spec.prefetch_oversub && u->spec.prefetch_oversub != u->prefetch) {
				u->prefetch = u->spec.prefetch_oversub;
				memcpy(u->prefetch_params, u->spec.prefetch_oversub_params, sizeof u->prefetch_params);
				u->st->prefetcher_switched = true;
			}
		}
		uvm_mask m = {0};
		struct uvm_block *b = u->spec.evict->pick(u->evict_state, &u->sp, m);
		if (!b)
			break;
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			m[w] &= b->resident[w];
		if (mask_empty(m))
			break; /* a policy that offers nothing resident: stop rather than spin */
		bool needed = u->sp.resident_pages + k > cap;
		double freed = drop_pages(u, b, m, t, DROP_EVICT);
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
		double freed = drop_pages(u, b, m, t, DROP_SYNC);
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
				uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_FREE, w, m[w]);
			}
			b->prefetched_count = 0;
			u->sp.resident_pages -= b->resident_count;
			b->resident_count = 0;
			if (u->hooks.shootdown)
				u->hooks.shootdown(u->hooks.ctx, b->base, 1ull << UVM_BLOCK_SHIFT);
			mark_l2_stale(u, b, m);
			if (u->spec.evict->on_evicted)
				u->spec.evict->on_evicted(u->evict_state, b, m);
			if (u->shared)
				uvm_shared_release(u->shared, b->base, m, u->proc);
		}
		/* its read-mostly advice goes with it (one GPU; several GPUs
		 * keep theirs in the shared residency, dropped by multi_gpu.c) */
		uvm_host_drop_ranges(u, base, u->allocs[i].bytes);
		uvm_alloc_classify(u, &u->allocs[i]);
		free(u->allocs[i].host_touched);
		u->managed_bytes -= u->allocs[i].bytes;
		u->allocs[i] = u->allocs[--u->n_allocs];
		u->last = NULL;
		u->range_last = 0;
		uvm_groups_clear(u);
		return;
	}
}

/* Several GPUs: the pages another GPU took leave this one's frames as a
 * cudaFree's do (no write-back: their data went over the peer link with
 * the migration that took them), with the TLB shootdown and the L2 lines
 * turned stale that any departure brings. */
void uvm_invalidate_taken(struct uvm *u)
{
	struct uvm_shared *sh = u->shared;
	if (!sh || !(sh->stale & 1ull << (u->proc - 1)))
		return;
	sh->stale &= ~(1ull << (u->proc - 1));
	for (uint32_t i = 0; i < u->sp.n; i++) {
		struct uvm_block *b = u->sp.blocks[i];
		const struct uvm_shared_blk *own = uvm_shared_block(sh, b->base);
		if (!b->resident_count || !own)
			continue;
		uvm_mask m = {0};
		for (uint32_t p = mask_next(b->resident, 0, true); p < UVM_BLOCK_PAGES;
		     p = mask_next(b->resident, p + 1, true))
			if (!uvm_shared_holds(own, p, u->proc))
				mask_set(m, p);
		uint32_t n = mask_count(m);
		if (!n)
			continue;
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
			u->st->prefetched_unused += (uint64_t)__builtin_popcountll(m[w] & b->prefetched[w]);
			uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_MIGRATE_OUT, w, m[w]);
		}
		b->prefetched_count = mask_count(b->prefetched);
		b->resident_count -= n;
		u->sp.resident_pages -= n;
		sh->invalidated_pages += n;
		for (uint32_t p = mask_next(m, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(m, p, true)) {
			uint32_t q = mask_next(m, p, false);
			if (u->hooks.shootdown)
				u->hooks.shootdown(u->hooks.ctx, b->base + ((uint64_t)p << UVM_PAGE_SHIFT),
						   (uint64_t)(q - p) << UVM_PAGE_SHIFT);
			p = q;
		}
		mark_l2_stale(u, b, m);
		uvm_group_update(u, b);
		if (u->spec.evict->on_evicted)
			u->spec.evict->on_evicted(u->evict_state, b, m);
	}
}

double uvm_prefetch_to_host(struct uvm *u, uint64_t addr, uint64_t bytes, double t)
{
	double done = t;
	if (!bytes)
		return done;
	uint64_t first = addr >> UVM_PAGE_SHIFT, last = (addr + bytes - 1) >> UVM_PAGE_SHIFT;
	for (uint64_t bn = first / UVM_BLOCK_PAGES; bn <= last / UVM_BLOCK_PAGES; bn++) {
		const struct uvm_map_entry *x = uvm_map_find(&u->blocks, bn);
		struct uvm_block *b = x ? (struct uvm_block *)(uintptr_t)x->val : NULL;
		if (!b || !b->resident_count)
			continue; /* nothing of it here */
		uint32_t lo = bn == first / UVM_BLOCK_PAGES ? (uint32_t)(first % UVM_BLOCK_PAGES) : 0;
		uint32_t hi = bn == last / UVM_BLOCK_PAGES ? (uint32_t)(last % UVM_BLOCK_PAGES) + 1
							   : UVM_BLOCK_PAGES;
		uvm_mask m = {0};
		mask_set_range(m, lo, hi);
		bool any = false;
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
			m[w] &= b->resident[w];
			any |= m[w] != 0;
		}
		if (!any)
			continue;
		double freed = drop_pages(u, b, m, t, DROP_TO_HOST);
		if (freed > done)
			done = freed;
	}
	return done;
}
