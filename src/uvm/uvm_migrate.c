/* Migration of the UVM driver: a faulted page and what the prefetcher adds,
 * moved host-to-device in address order, cut at gaps and right after the
 * faulted page (UVMSmart gpu-sim.cc do_hardware_prefetch), or the faulted
 * page first (Zheng's GMMU, seeds/003 3.1); and pages copied in by a
 * synchronous copy to managed memory. On a system of several GPUs a page
 * another GPU holds comes from it over the GPU-GPU route (uvm_shared.h),
 * the run cut where the source changes.
 *
 * Owns: the transitions FAULT_IN, PREFETCH_IN, COPY_IN and MIGRATE_IN
 * (uvm_prefetch_range: cudaMemPrefetchAsync) (and WRITE of
 * the pages a copy writes over; uvm_page_state.h) and their counters.
 * May call: the prefetch policy, uvm_ensure_frames (uvm_evict.c), the lanes
 * (uvm_lane.c; link_lane_last_end of link/link_lane.h to read when a
 * lane is free), the eviction policy's on_fill, the driver events
 * (MIGRATE, THRASHING). Guarantees: a page's arrive[] is the end of the
 * transfer that carries it (or, polled, when its bytes land); invariants
 * U4-U10 hold after each call. */

#include "uvm/uvm_impl.h"

#include <string.h>

/* ---- migration ---------------------------------------------------------- */

/* Several GPUs: whether a page whose source (uvm_shared_source) is
 * processor owner comes from another GPU (else from the host, over this
 * GPU's host link). */
static inline bool from_peer(const struct uvm *u, uint32_t owner)
{
	return owner != UVM_PROC_CPU && owner != u->proc;
}

/* Where page p comes from (own: the block's shared state, NULL on one GPU
 * or a block no GPU has held: the host). */
static inline uint32_t src_of(const struct uvm *u, const struct uvm_shared_blk *own, uint32_t p)
{
	return own ? uvm_shared_source(own, p, u->proc) : UVM_PROC_CPU;
}

/* Whether this GPU is the preferred location of the range holding page p
 * of b, for the prefetcher's first-touch rule (tree-driver: the whole
 * block when nothing of it is resident). nvidia-uvm uvm_perf_prefetch.c
 * uvm_perf_prefetch_prenotify_fault_migrations populates the whole VA
 * block when va_block->resident (the processors holding any of its pages)
 * is empty and the new residency is policy->preferred_location, the
 * policy of the faulting page's range (uvm_va_policy.h). On one GPU the
 * preset's uvm.preferred_location = gpu says so. On several GPUs the
 * range's advice says so (uvm_shared_preferred: the program's
 * cudaMemAdvise and the presets' keys alike, multi_gpu.c), and a page of
 * the block held by another GPU (own: the block's shared state, NULL when
 * no GPU has held one) means the block is touched; the CPU's pages are
 * not known to the model, on one GPU as here. */
static bool preferred_here(const struct uvm *u, const struct uvm_block *b, uint32_t p,
			   const struct uvm_shared_blk *own)
{
	const struct uvm_shared *sh = u->shared;
	if (!sh)
		return u->spec.preferred_gpu;
	if (!sh->n_preferred ||
	    uvm_shared_preferred(sh, b->base + ((uint64_t)p << UVM_PAGE_SHIFT)) != u->proc)
		return false;
	for (uint32_t q = own ? b->first_page : b->end_page; q < b->end_page; q++)
		if ((own->owner[q] != UVM_PROC_CPU && own->owner[q] != u->proc) ||
		    (own->copies && (own->copies[q] & ~(1ull << (u->proc - 1)))))
			return false;
	return true;
}

/* Moves page p of b and what the prefetcher adds, starting once the batch
 * is handled (ready). Returns when p has arrived. */
double uvm_migrate_pages(struct uvm *u, struct uvm_block *b, uint32_t p, double ready)
{
	struct gpuvm_uvm_stats *st = u->st;
	uvm_mask faulted = {0}, pf = {0}, mv, prefetch_only;
	mask_set(faulted, p);
	/* several GPUs: where each page comes from (the CPU, or another GPU
	 * over the peer route); NULL: every page from the host */
	const struct uvm_shared_blk *own = u->shared ? uvm_shared_block(u->shared, b->base) : NULL;
	struct uvm_prefetch_ctx ctx = {
		.resident = b->resident, .faulted = faulted, .first_page = b->first_page,
		.end_page = b->end_page, .preferred_here = preferred_here(u, b, p, own), .rng = &u->rng,
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
	double frames = uvm_ensure_frames(u, k, ready);
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
		uint32_t sp = src_of(u, own, p);
		arrival = from_peer(u, sp) ? uvm_peer_transfer(u, sp, start, UVM_PAGE_BYTES)
					   : uvm_lane_transfer(u, true, start, UVM_PAGE_BYTES);
		b->arrive[p] = arrival;
		if (arrival > b->arrive_max)
			b->arrive_max = arrival;
		mask_clear(mv, p);
	}
	for (uint32_t i = mask_next(mv, 0, true); i < UVM_BLOCK_PAGES; i = mask_next(mv, i, true)) {
		uint32_t j = mask_next(mv, i, false);
		if (p >= i && p < j)
			j = p + 1; /* cut right after the faulted page */
		double done;
		if (own) { /* and where the source changes */
			for (uint32_t q = i + 1; q < j; q++)
				if (src_of(u, own, q) != src_of(u, own, i)) {
					j = q;
					break;
				}
		}
		uint32_t si = src_of(u, own, i);
		if (from_peer(u, si))
			done = uvm_peer_transfer(u, si, start, (uint64_t)(j - i) << UVM_PAGE_SHIFT);
		else
			done = uvm_lane_transfer(u, true, start, (uint64_t)(j - i) << UVM_PAGE_SHIFT);
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
		uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_FAULT_IN, w, mv[w] & faulted[w]);
		uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_PREFETCH_IN, w, mv[w] & ~faulted[w]);
	}
	if (u->shared)
		uvm_shared_take(u->shared, b->base, mv, u->proc);
	b->prefetched_count = mask_count(b->prefetched);
	b->resident_count += k;
	u->sp.resident_pages += k;
	uvm_group_update(u, b);
	if (u->sp.resident_pages > st->peak_resident_pages)
		st->peak_resident_pages = u->sp.resident_pages;
	st->pages_h2d += k;
	st->prefetched_pages += k - 1;
	if (u->spec.evict->on_fill && u->spec.evict->on_fill(u->evict_state, &u->sp, b, mv))
		u->oom = true;
	/* fault, counter and prefetch migrations to this GPU (processor 1 on
	 * one GPU): the driver's thrashing detection listens (evictions are
	 * not its events) */
	if (uvm_events_wanted(&u->events, UVM_EVENT_MIGRATE)) {
		struct uvm_event ev = {.type = UVM_EVENT_MIGRATE, .block = b, .t = start,
				       .migrate = {.pages = mv, .dst = u->proc, .cause = u->fault_cause}};
		if (uvm_events_deliver(&u->events, &ev))
			u->oom = true;
	}
	if (arrival > start)
		st->stall_pcie_cycles += arrival - start;
	return arrival;
}

/* Block bn's part of pages [first, last] (page numbers), within its
 * managed span: 1 with *b and [*lo, *hi), 0 when none of it is managed,
 * -1 when the block cannot be made (u->oom set). The walk uvm_copy_in and
 * uvm_prefetch_range share. */
static int block_pages(struct uvm *u, uint64_t bn, uint64_t first, uint64_t last,
		       struct uvm_block **b, uint32_t *lo, uint32_t *hi)
{
	*b = uvm_block_get(u, bn << UVM_BLOCK_SHIFT);
	if (!*b) {
		u->oom = true;
		return -1;
	}
	*lo = bn == first / UVM_BLOCK_PAGES ? (uint32_t)(first % UVM_BLOCK_PAGES) : 0;
	*hi = bn == last / UVM_BLOCK_PAGES ? (uint32_t)(last % UVM_BLOCK_PAGES) + 1 : UVM_BLOCK_PAGES;
	uvm_block_covers(u, *b, *lo);
	uvm_block_covers(u, *b, *hi - 1);
	if (*lo < (*b)->first_page)
		*lo = (*b)->first_page;
	if (*hi > (*b)->end_page)
		*hi = (*b)->end_page;
	return *lo < *hi;
}

double uvm_copy_in(struct uvm *u, uint64_t addr, uint64_t bytes, double t, double end)
{
	struct gpuvm_uvm_stats *st = u->st;
	double done = end;
	if (!bytes)
		return done;
	uint64_t first = addr >> UVM_PAGE_SHIFT, last = (addr + bytes - 1) >> UVM_PAGE_SHIFT;
	for (uint64_t bn = first / UVM_BLOCK_PAGES; bn <= last / UVM_BLOCK_PAGES; bn++) {
		struct uvm_block *b;
		uint32_t lo, hi;
		int in = block_pages(u, bn, first, last, &b, &lo, &hi);
		if (in < 0)
			return done;
		if (!in)
			continue;
		uvm_mask range = {0}, mv;
		mask_set_range(range, lo, hi);
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			mv[w] = range[w] & ~b->resident[w];
		uint32_t k = mask_count(mv);
		double arrive = end;
		if (k) {
			/* frames first: evictions (and their write-backs) as for a fault */
			double frames = uvm_ensure_frames(u, k, t);
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
			uint64_t over = range[w] & b->resident[w]; /* resident before: written over */
			uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_COPY_IN, w, mv[w]);
			uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_WRITE, w, over);
		}
		if (u->shared) /* the host's data, over this GPU's host link */
			uvm_shared_take(u->shared, b->base, range, u->proc);
		b->resident_count += k;
		u->sp.resident_pages += k;
		uvm_group_update(u, b);
		if (u->sp.resident_pages > st->peak_resident_pages)
			st->peak_resident_pages = u->sp.resident_pages;
		st->pages_copied_in += k;
		if (k && u->spec.evict->on_fill && u->spec.evict->on_fill(u->evict_state, &u->sp, b, mv))
			u->oom = true;
		/* every page of the range is written (and resident) */
		for (uint32_t q = lo; u->spec.evict->on_write && q < hi; q++)
			if (u->spec.evict->on_write(u->evict_state, b, q))
				u->oom = true;
	}
	return done;
}

double uvm_prefetch_range(struct uvm *u, uint64_t addr, uint64_t bytes, double t)
{
	struct gpuvm_uvm_stats *st = u->st;
	double done = t;
	if (!bytes)
		return done;
	uint64_t first = addr >> UVM_PAGE_SHIFT, last = (addr + bytes - 1) >> UVM_PAGE_SHIFT;
	for (uint64_t bn = first / UVM_BLOCK_PAGES; bn <= last / UVM_BLOCK_PAGES; bn++) {
		struct uvm_block *b;
		uint32_t lo, hi;
		int in = block_pages(u, bn, first, last, &b, &lo, &hi);
		if (in < 0)
			return done;
		if (!in)
			continue;
		uvm_mask mv = {0};
		mask_set_range(mv, lo, hi);
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			mv[w] &= ~b->resident[w];
		uint32_t k = mask_count(mv);
		if (!k)
			continue;
		u->sp.filling = b;
		double frames = uvm_ensure_frames(u, k, t);
		u->sp.filling = NULL;
		double start = frames > t ? frames : t;
		const struct uvm_shared_blk *own = u->shared ? uvm_shared_block(u->shared, b->base) : NULL;
		/* the driver moves a block's runs in address order, cut where the
		 * source changes */
		for (uint32_t i = mask_next(mv, 0, true); i < UVM_BLOCK_PAGES; i = mask_next(mv, i, true)) {
			uint32_t j = mask_next(mv, i, false);
			for (uint32_t q = i + 1; own && q < j; q++)
				if (src_of(u, own, q) != src_of(u, own, i)) {
					j = q;
					break;
				}
			uint64_t run = (uint64_t)(j - i) << UVM_PAGE_SHIFT;
			uint32_t si = src_of(u, own, i);
			double end = from_peer(u, si) ? uvm_peer_transfer(u, si, start, run)
								 : uvm_lane_transfer(u, true, start, run);
			for (uint32_t q = i; q < j; q++)
				b->arrive[q] = end;
			if (end > b->arrive_max)
				b->arrive_max = end;
			if (end > done)
				done = end;
			i = j;
		}
		for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
			uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_MIGRATE_IN, w, mv[w]);
		if (u->shared)
			uvm_shared_take(u->shared, b->base, mv, u->proc);
		b->resident_count += k;
		u->sp.resident_pages += k;
		uvm_group_update(u, b);
		if (u->sp.resident_pages > st->peak_resident_pages)
			st->peak_resident_pages = u->sp.resident_pages;
		st->pages_h2d += k;
		if (u->spec.evict->on_fill && u->spec.evict->on_fill(u->evict_state, &u->sp, b, mv))
			u->oom = true;
	}
	return done;
}
