/* The UVM driver's fault path and per-access bookkeeping: a translation
 * of managed memory (uvm_translate) finds the page resident, in flight, or
 * raises a far fault (MSHR or blocking model, fault batches, the handler
 * as one serial server, seeds/003 3-4; nvidia-uvm
 * uvm_gpu_replayable_faults.c), or leaves it in host memory (access
 * counters, hints, thrashing pinning: a remote mapping); every access of
 * managed memory (uvm_access, uvm_access_counted) counts, dirties and
 * consumes prefetched pages, or is served remotely.
 *
 * Owns: the far-fault MSHRs, the blocked-SM times, the fault batch, the
 * access-counter de-duplication, the fault and remote-access counters.
 * May call: uvm_migrate_pages, the block table (uvm.c), the lanes for
 * remote accesses (uvm_lane.c), the far-fault MSHRs (mem/long_pool.h), the migration and thrashing policies, the eviction
 * policy's on_access, the driver events (FAULT, ACCESS_COUNTER), and on
 * several GPUs the residency they share (uvm_shared.h: sources, advice,
 * the engine's peer route and its place of a page at its preferred
 * location).
 * Guarantees: a returned time is never before the request's; the widest
 * TLB fill it allows (fill_max_bytes) covers only resident pages. */

#include "core/req_trace.h"
#include "uvm/remote_tlb.h"
#include "uvm/uvm_impl.h"

/* ---- TLB fills: the resident extent -------------------------------------- */

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
	uint64_t max = u->spec.max_entry_bytes;
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
		uint64_t notok = uvm_group_notok(u, bn >> u->group_shift);
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
			if (o ? !block_full(o) : uvm_managed_span(u, x, &f, &e, &adv))
				return bytes;
		}
		bytes = span << UVM_BLOCK_SHIFT;
	}
	return bytes;
}

/* ---- far faults ---------------------------------------------------------- */

/* What one batch of the fault handler or the access-counter bottom half
 * takes in the timing: nothing under post-hoc accounting (UVMSmart adds
 * it after the run). */
static inline double service_latency(const struct uvm *u)
{
	return u->spec.posthoc ? 0 : u->spec.fault_latency_cycles;
}

/* The ACCESS_COUNTER event of page p of b at t (a counter migration,
 * by fault or by notice), to whoever subscribed. */
static void access_counter_event(struct uvm *u, struct uvm_block *b, uint32_t p, double t)
{
	if (!b->ac || !uvm_events_wanted(&u->events, UVM_EVENT_ACCESS_COUNTER))
		return;
	uint32_t ch = p / UVM_CHUNK_PAGES;
	struct uvm_event ac = {.type = UVM_EVENT_ACCESS_COUNTER, .block = b, .t = t,
			       .access_counter = {.chunk = ch, .count = uvm_ac_count(b->ac[ch])}};
	if (uvm_events_deliver(&u->events, &ac))
		u->oom = true;
}

/* What a far fault does once the handler has served it: migrate the page
 * (a first touch or a write; or a read whose access count reached the
 * threshold), or only map it remotely (preferred location host). */
enum fault_mode { FAULT_MIGRATES, FAULT_BY_COUNTER, FAULT_MAPS_REMOTELY };

/* Several GPUs: where page p of b is for this GPU (uvm_shared_source:
 * another GPU, or the host, UVM_PROC_CPU); on one GPU the host. */
static inline uint32_t page_source(const struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	if (__builtin_expect(!u->shared, 1))
		return UVM_PROC_CPU;
	const struct uvm_shared_blk *s = uvm_shared_block(u->shared, b->base);
	return s ? uvm_shared_source(s, p, u->proc) : UVM_PROC_CPU;
}

/* A far fault on page p of b by SM sm at t: the batch, the handler and
 * the migration (or remote mapping); returns when p has arrived (or is
 * mapped). */
static double far_fault_mode(struct uvm *u, uint32_t sm, struct uvm_block *b, uint32_t p, double t,
			     enum fault_mode mode)
{
	struct gpuvm_uvm_stats *st = u->st;
	double tf = t, mshr_start = t;
	REQ_TRACE_FAULT();
	if (u->spec.blocking) {
		/* Zheng et al. (HPCA 2016) 2.1: once a far fault is raised the GMMU stops the
		 * SM's TLB from taking new translation requests until the page
		 * is there, so a blocked SM has one far fault in flight: a
		 * second non-resident page, even one of the same instruction
		 * whose walk ended with the first, is raised when the block
		 * ends. (Raising them together made blocking 0.52x of
		 * replayable with one far-fault MSHR on random gathers; Zheng
		 * 2.1 and 3.2 give 6x against 3.6x, and replayable-1 has the
		 * same one fault per SM, only with overlap.) */
		if (u->blocked_until[sm] > t) {
			st->stall_blocked_cycles += u->blocked_until[sm] - t;
			tf = u->blocked_until[sm];
		}
	} else {
		mshr_start = long_pool_start(&u->ff_mshr[sm], t);
		if (mshr_start > t) { /* Nack-Replayable: replay once an MSHR frees */
			st->nacks++;
			tf = mshr_start + u->spec.replay_cycles;
			st->stall_replay_cycles += tf - t;
		}
	}
	if (__builtin_expect(u->thrash_on, 0)) {
		/* the driver's throttle: the faulting processor naps */
		double until;
		if (uvm_thrash_hint(&u->thrash, b, p, tf, &until) == UVM_THRASH_THROTTLE)
			tf = until;
		if (u->shared && u->shared->thrash && mode != FAULT_MAPS_REMOTELY)
			tf = uvm_thrash_nap(u, b, p, tf);
	}
	double latency = service_latency(u);
	double start = uvm_batch_take(&u->faults, tf, latency, u->polled, u->spec.batch_max, &st->fault_batches);
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
	st->posthoc_fault_cycles += u->spec.fault_latency_cycles;
	if (__builtin_expect(u->events.any & (UVM_EVENT_BIT(UVM_EVENT_FAULT) | UVM_EVENT_BIT(UVM_EVENT_ACCESS_COUNTER)), 0)) {
		struct uvm_event ev = {.type = UVM_EVENT_FAULT, .block = b, .t = tf,
				       .fault = {.page = p, .sm = sm, .mode = (uint32_t)mode}};
		if (uvm_events_wanted(&u->events, UVM_EVENT_FAULT) && uvm_events_deliver(&u->events, &ev))
			u->oom = true;
		if (mode == FAULT_BY_COUNTER)
			access_counter_event(u, b, p, tf);
	}
	u->fault_cause = (uint32_t)mode;
	double arrival = mode == FAULT_MAPS_REMOTELY ? ready : uvm_migrate_pages(u, b, p, ready);
	if (!u->spec.blocking) {
		if (long_pool_consume(&u->ff_mshr[sm], mshr_start, arrival - mshr_start))
			u->oom = true;
	} else if (arrival > u->blocked_until[sm]) {
		if (u->blocked_until[sm] <= tf)
			u->blocked_since[sm] = tf; /* a new block, raised now */
		u->blocked_until[sm] = arrival;
	}
	return arrival;
}

/* An access-counter notification (uvm.counter_migration = async): the read
 * of page p of b that brought its 64 KB block to the threshold at t was
 * served remotely, and the GPU goes on. The driver's access-counter bottom
 * half takes the notification in a batch of its own (nvidia-uvm
 * uvm_gpu_isr.c access_counters_isr_bottom_half, apart from the fault
 * handler's; no far-fault MSHR, nothing replayed or blocked) and migrates
 * the page, with the prefetcher's pages, as a counter migration. Until a
 * page it moves has arrived, that page's remote mapping stays: b->remote
 * is kept for it, and its accesses meanwhile are remote (access_counted).
 * The driver revokes the mapping only around the copy itself, a few us of
 * the notification's service (the preset's fault latency); it is taken as
 * remote throughout. */
static void counter_notice(struct uvm *u, struct uvm_block *b, uint32_t p, double t)
{
	struct gpuvm_uvm_stats *st = u->st;
	double latency = service_latency(u);
	double start = uvm_batch_take(&u->notices, t, latency, false, u->spec.batch_max, &st->notice_batches);
	st->migrations_counter++;
	st->counter_notices++;
	uvm_note(u, b->base + ((uint64_t)p << UVM_PAGE_SHIFT), UVM_PAGE_BYTES, GPUVM_UVM_MIGRATE_COUNTER);
	access_counter_event(u, b, p, t);
	uvm_mask mapped;
	memcpy(mapped, b->remote, sizeof mapped);
	u->fault_cause = FAULT_BY_COUNTER;
	uvm_migrate_pages(u, b, p, start + latency);
	/* the mappings the migration dropped come back (a page it moved, or
	 * one its evictions took out of b) */
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_NOTICE_KEEP, w, mapped[w] & ~b->remote[w]);
}

/* Whether page p of b, read remotely before, keeps its remote mapping
 * until a read reaching the threshold notifies (uvm.counter_migration =
 * async under a policy that delays). */
static inline bool notice_mapped(const struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	return u->counter_async && u->migrate->delays && mask_test(b->remote, p);
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
		.resident_pages = u->sp.resident_pages, .capacity_pages = uvm_capacity_pages(u),
		.buffer_frac = u->spec.buffer_frac, .oversubscribed = u->evicting,
	};
	return u->migrate->threshold(&c);
}

static bool thrash_pinned(struct uvm *u, const struct uvm_block *b, uint32_t p, double t)
{
	return u->thrash_on && uvm_thrash_pinned(&u->thrash, b, p, t);
}

/* The UVM_ADVISE_* hints of page p of b: the block's, or, where
 * allocations with different hints share it, those of p's allocation
 * (uvm_alloc_lookup.c). */
static inline uint32_t page_advise(const struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	if (__builtin_expect(!b->advise_mixed, 1))
		return b->advise;
	return uvm_alloc_advise(u, b, p);
}

/* Whether non-resident page p of b is system memory no one has touched:
 * the GPU's access is its first touch (uvm_system_first_touch, uvm_ats.c). */
static inline bool system_untouched(const struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	bool host = false;
	if (!__builtin_expect(u->c2c, 0))
		return false;
	if (__builtin_expect(!u->shared, 1))
		return uvm_system_page(u, b, p, &host) && !host;
	/* several GPUs: no processor placed it (the residency they share:
	 * a page another GPU placed is not this GPU's to place again) */
	enum uvm_sys_where where;
	uint32_t who;
	return uvm_system_where(u, b, p, &where, &who) && where == UVM_SYS_UNPLACED;
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
	if (adv & UVM_ADVISE_SYSTEM) {
		/* in CPU memory when the host touched it first, and then
		 * mapped, as accessed-by, until the counters migrate it */
		if (!uvm_system_on_cpu(u, b, p))
			return false;
	} else if (!(adv & UVM_ADVISE_ACCESSED_BY))
		return false;
	if (!u->migrate->delays || !b->ac)
		return true;
	uint32_t ch = p / UVM_CHUNK_PAGES;
	return (uint64_t)uvm_ac_count(b->ac[ch]) + (counted ? 0 : 1) < read_threshold(u, b, ch);
}

/* Several GPUs, cudaMemAdviseSetPreferredLocation: whether non-resident
 * page p of b has a preferred location *loc other than this GPU whose
 * memory this GPU maps (the CPU's always; another GPU's over a GPU-GPU
 * route, uvm_shared.reach), outside every read-mostly range. Then the
 * driver makes the page resident at *loc and maps it here remotely
 * instead of migrating it here (nvidia-uvm uvm_va_block.c,
 * block_select_processor_residency: the preferred location is chosen
 * when it is "accessible from" the faulting processor and the page is
 * not resident on it; read duplication is decided before it, so a
 * read-mostly range duplicates as without the advice). */
static bool preferred_elsewhere(const struct uvm *u, const struct uvm_block *b, uint32_t p,
				uint32_t *loc)
{
	const struct uvm_shared *sh = u->shared;
	if (!sh->n_preferred)
		return false;
	uint64_t a = b->base + ((uint64_t)p << UVM_PAGE_SHIFT);
	uint32_t l = uvm_shared_preferred(sh, a);
	if (l == UVM_SHARED_NO_PREF || l == u->proc)
		return false; /* none, or here: a fault migrates the page here */
	if (l != UVM_PROC_CPU && !(sh->reach[u->proc - 1] >> (l - 1) & 1))
		return false; /* not mapped from here: it migrates here */
	if (sh->n_read_mostly && uvm_shared_is_read_mostly(sh, a))
		return false;
	*loc = l;
	return true;
}

/* Several GPUs, system-allocated memory: whether non-resident page p of
 * b, placed in another GPU's HBM by that GPU's first touch, is read and
 * written there (*src: that GPU) rather than faulted in. The system page
 * table is the processors' one translation (ATS): the page is mapped
 * wherever it is, and a GPU's loads and stores to a peer's HBM go over
 * NVLink without a fault (docs/systems.md "System-allocated memory on
 * several GPUs"), until this GPU's access counters migrate it under a
 * policy that delays (uvm.migration = always: nvidia-uvm's counter
 * servicing, the source the GPU holding it, uvm_migrate.c src_of). A
 * page in a CPU's memory takes advise_stays' path (uvm_system_on_cpu). Where
 * no GPU-GPU link joins the two GPUs (staged copies only), the access has
 * no route the files describe: recorded (uvm_shared_no_route). */
static bool system_in_place(struct uvm *u, const struct uvm_block *b, uint32_t p, bool counted,
			    uint32_t *src)
{
	enum uvm_sys_where where;
	uint32_t who;
	if (!u->shared || !uvm_system_where(u, b, p, &where, &who) || where != UVM_SYS_GPU)
		return false;
	if (!(u->shared->reach[u->proc - 1] >> (who - 1) & 1))
		uvm_shared_no_route(u->shared, UVM_ROUTE_GPU_TO_GPU, u->proc - UVM_PROC_GPU0,
				    who - UVM_PROC_GPU0, b->base + ((uint64_t)p << UVM_PAGE_SHIFT));
	uint32_t ch = p / UVM_CHUNK_PAGES;
	if (u->migrate->delays && b->ac &&
	    (uint64_t)uvm_ac_count(b->ac[ch]) + (counted ? 0 : 1) >= read_threshold(u, b, ch))
		return false; /* the counters migrate it here */
	*src = who;
	return true;
}

/* Several GPUs: whether non-resident page p of b is used where it is
 * (*src: the processor holding it) rather than faulted in, counting this
 * access when counted (the count already includes it):
 *  - cudaMemAdviseSetAccessedBy for this GPU: its mapping follows the
 *    page, no fault, until this GPU's own access counters (its driver's
 *    b->ac, per GPU) reach the threshold under a policy that delays; the
 *    driver then migrates the page here (nvidia-uvm
 *    uvm_gpu_access_counters.c service_va_block_locked selects the
 *    residency with UVM_SERVICE_OPERATION_ACCESS_COUNTERS, for which
 *    block_select_processor_residency skips the accessed-by rule), unless
 *    a preferred location elsewhere that this GPU maps is set: the
 *    counters' residency is that location, the page stays;
 *  - a preferred location elsewhere (preferred_elsewhere): mapped where
 *    it is after the mapping fault of translate_page
 *    (preferred_map_fault). */
static bool in_place(struct uvm *u, const struct uvm_block *b, uint32_t p, bool counted, double t,
		     uint32_t *src)
{
	if (__builtin_expect(u->c2c, 0) && (page_advise(u, b, p) & UVM_ADVISE_SYSTEM))
		return system_in_place(u, b, p, counted, src);
	uint32_t loc;
	if (uvm_thrash_pin_elsewhere(u, b, p, t, &loc)) {
		*src = page_source(u, b, p); /* mapped (preferred_mapping) where it is pinned */
		return true;
	}
	bool pref = preferred_elsewhere(u, b, p, &loc);
	if (uvm_shared_is_accessed_by(u->shared, b->base + ((uint64_t)p << UVM_PAGE_SHIFT), u->proc)) {
		uint32_t ch = p / UVM_CHUNK_PAGES;
		if (!pref && u->migrate->delays && b->ac &&
		    (uint64_t)uvm_ac_count(b->ac[ch]) + (counted ? 0 : 1) >= read_threshold(u, b, ch))
			return false; /* the counters migrate it here */
	} else if (!pref) {
		return false;
	}
	*src = page_source(u, b, p);
	return true;
}

/* Whether a read of non-resident page p of b would be left in host
 * memory (the walk then maps it remotely and uvm_access decides). */
static bool maps_remotely(struct uvm *u, struct uvm_block *b, uint32_t p, double t)
{
	uint32_t src;
	if (u->peer_map_on && in_place(u, b, p, false, t, &src))
		return true; /* accessed-by, preferred location: mapped where it is */
	if (system_untouched(u, b, p))
		return false; /* no copy anywhere: the GPU's touch places it */
	if (u->advise_on && advise_stays(u, b, p, false))
		return true;
	/* delayed migration reads host memory remotely (seeds/004); a page
	 * another GPU holds faults over as without counters */
	if (u->migrate->delays && b->ac && page_source(u, b, p) == UVM_PROC_CPU) {
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
	uvm_page_transition(b, UVM_PROC_GPU0, UVM_OP_MAP_REMOTE, p);
	u->st->delayed_migrations++;
	b->arrive[p] = far_fault_mode(u, sm, b, p, t, FAULT_MAPS_REMOTELY);
	return b->arrive[p];
}

/* Several GPUs, a preferred location loc elsewhere (preferred_elsewhere)
 * and no accessed-by mapping: the first access of page p faults, and the
 * driver makes the page resident at loc (moving it there from wherever it
 * is, through loc's driver: uvm_shared.place; nothing when it is there)
 * and maps it here remotely instead of migrating it here. Once per page
 * as remote_map_fault; the mapping then follows the page (the driver
 * would revoke it when the page moves and the GPU would fault again: a
 * modelling limit, docs/systems.md). */
static double preferred_map_fault(struct uvm *u, uint32_t sm, struct uvm_block *b, uint32_t p,
				  uint32_t loc, double t)
{
	if (mask_test(b->remote, p))
		return b->arrive[p] > t ? b->arrive[p] : t; /* mapped (or being mapped) */
	uvm_page_transition(b, UVM_PROC_GPU0, UVM_OP_MAP_REMOTE, p);
	double ready = far_fault_mode(u, sm, b, p, t, FAULT_MAPS_REMOTELY);
	struct uvm_shared *sh = u->shared;
	const struct uvm_shared_blk *s = uvm_shared_block(sh, b->base);
	bool there = loc == UVM_PROC_CPU ? !s || s->owner[p] == UVM_PROC_CPU
					 : s && uvm_shared_holds(s, p, loc);
	if (!there) {
		double placed = sh->place(sh->ctx, loc, b->base + ((uint64_t)p << UVM_PAGE_SHIFT),
					  UVM_PAGE_BYTES, ready / u->spec.clock_hz) * u->spec.clock_hz;
		if (placed > ready)
			ready = placed;
	}
	b->arrive[p] = ready;
	return ready;
}

/* Several GPUs: the mapping fault of page p of b, not mapped here, when
 * a preferred location elsewhere maps it and no accessed-by mapping is
 * kept (preferred_map_fault); t when none. Both the walk and the access
 * ask: an access may reach the page without a walk of its own (one that
 * an earlier walk of the same TLB entry answered). */
static double preferred_mapping(struct uvm *u, uint32_t sm, struct uvm_block *b, uint32_t p,
				double t)
{
	uint32_t loc;
	if (uvm_thrash_pin_elsewhere(u, b, p, t, &loc))
		return preferred_map_fault(u, sm, b, p, loc, t);
	if (!preferred_elsewhere(u, b, p, &loc) ||
	    uvm_shared_is_accessed_by(u->shared, b->base + ((uint64_t)p << UVM_PAGE_SHIFT), u->proc))
		return t;
	return preferred_map_fault(u, sm, b, p, loc, t);
}

/* uvm_translate's work; *fill_max is left as it is where nothing
 * narrows the entry. */
static double translate_page(struct uvm *u, uint32_t sm, uint64_t addr, double t,
			     uint64_t *fill_max)
{
	struct uvm_block *b = uvm_block_get(u, addr);
	if (!b) {
		u->oom = true;
		return t;
	}
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	/* under thrashing the block is rarely in the host's caches: start
	 * all three loads now rather than one after another */
	__builtin_prefetch(&b->arrive[p]);
	__builtin_prefetch(&b->resident[p >> 6]);
	if (!uvm_block_covers(u, b, p))
		return t;
	if (mask_test(b->resident, p)) {
		/* resident, or in flight: faults coalesce per page */
		if (b->page_l2_evicted_at) /* the engine's L2 reads it next */
			__builtin_prefetch(&b->page_l2_evicted_at[p]);
		*fill_max = resident_extent(u, b, p);
		if (__builtin_expect(u->c2c, 0) && (page_advise(u, b, p) & UVM_ADVISE_SYSTEM))
			*fill_max = (uint64_t)u->sys_page_pages << UVM_PAGE_SHIFT; /* the system page */
		if (t >= b->arrive_max || b->arrive[p] <= t)
			return t;
		if (b->ac && mask_test(b->remote, p)) {
			/* on its way by a counter notice: still mapped remotely */
			*fill_max = UVM_PAGE_BYTES;
			return t;
		}
		return b->arrive[p];
	}
	if (__builtin_expect(u->rtlb_words != 0, 0))
		uvm_rtlb_walk(b, u->rtlb_words, p, sm); /* a walk: the SM's TLB had no entry */
	/* with counter notices a page read remotely before stays mapped
	 * remotely: the access decides (a read that reaches the threshold
	 * notifies, a write faults) */
	if (__builtin_expect(u->ac_on || u->thrash_on || u->advise_on || u->peer_map_on, 0) &&
	    (maps_remotely(u, b, p, t) || notice_mapped(u, b, p))) {
		*fill_max = UVM_PAGE_BYTES; /* a remote mapping of the one page */
		if (__builtin_expect(u->c2c, 0) && (page_advise(u, b, p) & UVM_ADVISE_SYSTEM))
			*fill_max = (uint64_t)u->sys_page_pages << UVM_PAGE_SHIFT; /* the system page */
		if (u->peer_map_on && !mask_test(b->remote, p))
			t = preferred_mapping(u, sm, b, p, t);
		if (u->advise_on)
			return remote_map_fault(u, sm, b, p, t);
		return t;
	}
	if (system_untouched(u, b, p)) {
		double arrival = uvm_system_first_touch(u, b, p, t);
		*fill_max = (uint64_t)u->sys_page_pages << UVM_PAGE_SHIFT;
		return arrival;
	}
	/* a page read remotely before migrates because its count has
	 * reached the threshold */
	double arrival = far_fault(u, sm, b, p, t, mask_test(b->remote, p));
	*fill_max = resident_extent(u, b, p);
	return arrival;
}

struct uvm_translation uvm_translate(struct uvm *u, uint32_t sm, uint64_t addr, double t)
{
	REQ_TRACE_DOWN("uvm", "uvm_translate");
	struct uvm_translation r = {.ready = t, .fill_max_bytes = UINT64_MAX};
	r.ready = translate_page(u, sm, addr, t, &r.fill_max_bytes);
	REQ_TRACE_UP("uvm", "uvm_translate");
	return r;
}

static bool book_access(struct uvm *u, uint64_t addr, bool write, struct uvm_sector_rsp *r);

struct uvm_translation uvm_translate_sector(struct uvm *u, uint32_t sm, uint64_t addr, double t,
					    struct uvm_sector_slot *slot)
{
	REQ_TRACE_DOWN("uvm", "uvm_translate_sector");
	struct uvm_translation r = {.ready = t, .fill_max_bytes = UINT64_MAX};
	r.ready = translate_page(u, sm, addr, t, &r.fill_max_bytes);
	slot->booked = book_access(u, slot->sector_addr, slot->write, &slot->rsp);
	REQ_TRACE_UP("uvm", "uvm_translate_sector");
	return r;
}

/* ---- accesses ------------------------------------------------------------ */

/* A remote access of page p of b at t (seeds/004 II-C, IV): the sector
 * crosses the link on the lane migrations use (reads host-to-device,
 * writes of a pinned page device-to-host), at the link's achieved rate,
 * plus the remote-access latency (Table I: 200 cycles); no fault, no
 * prefetch, the page stays where it is. With uvm.remote_read_hold_cycles
 * a read holds the lane that long instead, once per coalesced access
 * (the sectors of one 128 B line read at one time share it): UVMSmart
 * serves each DMA in its one PCIe read slot, busy until
 * get_ready_cycle_dma's now + 200 (gpu-sim.cc gmmu_t::cycle), so remote
 * reads queue behind one another and migrations behind them. */
static double remote_access(struct uvm *u, struct uvm_block *b, uint64_t addr, bool write,
			    double t)
{
	struct gpuvm_uvm_stats *st = u->st;
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	st->remote_accesses++;
	uint32_t bytes = u->sector_bytes;
	if (__builtin_expect(u->c2c, 0)) {
		/* over the coherent link a cache line at a time: the sectors
		 * of one line an instruction reads (one time) travel as one
		 * line_bytes request (c2c.line_bytes) */
		uint64_t line = addr / u->line_bytes;
		if (line == u->rl_line && t == u->rl_t)
			return u->rl_done;
		u->rl_line = line;
		u->rl_t = t;
		bytes = u->line_bytes;
	}
	uvm_note(u, addr, bytes, GPUVM_UVM_REMOTE);
	st->remote_bytes += bytes;
	if (!mask_test(b->remote, p)) {
		uvm_page_transition(b, UVM_PROC_GPU0, UVM_OP_MAP_REMOTE, p);
		st->delayed_migrations++;
	}
	double hold = (double)bytes * u->remote_cycles_per_byte;
	bool held = u->remote_hold > 0 && !write;
	if (held) {
		/* one DMA per coalesced access (UVMSmart's mem_fetch) */
		uint64_t line = addr >> UVM_AC_LINE_SHIFT;
		if (line == u->rq_line && t == u->rq_t)
			return u->rq_done;
		u->rq_line = line;
		u->rq_t = t;
		hold = u->remote_hold;
	}
	double s = uvm_lane_book(u, write ? u->d2h : u->h2d, t, &hold);
	uvm_util_add(u, !write, s, s + hold);
	u->rl_done = s + hold + u->remote_latency;
	if (held)
		u->rq_done = u->rl_done;
	return u->rl_done;
}

/* Several GPUs: an access of page p of b where it is, on processor src:
 * the host's memory over the host link (remote_access), another GPU's
 * over the peer route, one sector, no fault. */
static double in_place_access(struct uvm *u, struct uvm_block *b, uint64_t addr, uint32_t src,
			      bool write, double t)
{
	if (src == UVM_PROC_CPU)
		return remote_access(u, b, addr, write, t);
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	u->st->remote_accesses++;
	if (!mask_test(b->remote, p))
		uvm_page_transition(b, UVM_PROC_GPU0, UVM_OP_MAP_REMOTE, p);
	return uvm_peer_remote(u, src, write, t, u->sector_bytes);
}

/* An access of resident page p of b at t: a prefetched page is used, a
 * written one dirty; returns when the page is there. shared: the counted
 * path, where a store may collapse a read duplicate (several GPUs with a
 * read-mostly range route their accesses there: uvm.collapse_on), a
 * constant, so uvm_access's path carries no test of it. */
static inline __attribute__((always_inline)) double access_resident(struct uvm *u,
								    struct uvm_block *b, uint32_t p,
								    bool write, double t, bool shared)
{
	uint32_t w = p >> 6;
	uint64_t bit = 1ull << (p & 63);
	if (b->prefetched[w] & bit) {
		uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_TOUCH, w, bit);
		b->prefetched_count--;
		u->st->prefetched_used++;
	}
	if (write) {
		uvm_pages_transition(b, UVM_PROC_GPU0, UVM_OP_WRITE, w, bit);
		if (u->spec.evict->on_write && u->spec.evict->on_write(u->evict_state, b, p))
			u->oom = true;
		/* several GPUs, read-mostly: a store to a duplicated page
		 * collapses it here (the others lose theirs), after the fault
		 * that upgrades the read-only mapping */
		if (shared && u->collapse_on && uvm_shared_write(u->shared, b->base, p, u->proc))
			t += u->spec.fault_latency_cycles;
	}
	if (u->spec.evict->on_access)
		u->spec.evict->on_access(u->evict_state, b, p);
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
	struct uvm_block *b = uvm_block_get(u, addr);
	if (!b) {
		u->oom = true;
		return t;
	}
	uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	if (!uvm_block_covers(u, b, p))
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
	if (!mask_test(b->resident, p) && system_untouched(u, b, p)) {
		t = uvm_system_first_touch(u, b, p, t); /* no copy anywhere: placed in device memory */
		if (!mask_test(b->resident, p))
			return t;
	} else if (!mask_test(b->resident, p)) {
		uint32_t src = UVM_PROC_CPU;
		if (u->peer_map_on && in_place(u, b, p, true, t, &src)) {
			/* accessed-by, preferred location: read or written where
			 * it is, on the host link or, held by another GPU, over
			 * the peer route */
			*remote = true;
			if (!mask_test(b->remote, p)) {
				t = preferred_mapping(u, sm, b, p, t);
				src = page_source(u, b, p); /* moved to its location */
			}
			return in_place_access(u, b, addr, src, write, t);
		}
		/* UVMSmart: the SM's TLB keeps the entry its remote read
		 * installed, and a TLB hit reads device memory without asking
		 * the driver again (remote_tlb.h; with uvm.remote_tlb_fill =
		 * return only once that read is back) */
		if (__builtin_expect(u->rtlb_words != 0, 0) && uvm_rtlb_hit(b, u->rtlb_words, p, sm, t))
			return t;
		bool below = false; /* left in host memory by its access count */
		if (thrash_pinned(u, b, p, t) || (u->advise_on && advise_stays(u, b, p, true)) ||
		    (below = may_stay && u->migrate->delays && b->ac &&
			     uvm_ac_count(b->ac[ch]) < read_threshold(u, b, ch) &&
			     page_source(u, b, p) == UVM_PROC_CPU)) {
			*remote = true;
			double done = remote_access(u, b, addr, write && !may_stay, t); /* an atomic returns its data */
			if (below && __builtin_expect(u->rtlb_words != 0, 0) &&
			    uvm_rtlb_fill(b, u->rtlb_words, p, sm, u->rtlb_at_return, done))
				u->oom = true;
			return done;
		}
		if (may_stay && notice_mapped(u, b, p)) {
			/* the threshold reached by a read of a page mapped
			 * remotely: served so, where it is before it moves, and
			 * the counter notifies as the access is counted */
			*remote = true;
			src = page_source(u, b, p);
			counter_notice(u, b, p, t);
			return in_place_access(u, b, addr, src, false, t);
		}
		t = far_fault(u, sm, b, p, t, mask_test(b->remote, p));
		if (!mask_test(b->resident, p))
			return t;
	} else if (b->ac && mask_test(b->remote, p)) {
		/* migrating by a counter notice: remote until it has arrived,
		 * read where it comes from (several GPUs: maybe another GPU) */
		if (b->arrive[p] > t && may_stay) {
			*remote = true;
			if (__builtin_expect(u->shared != NULL, 0))
				return in_place_access(u, b, addr, uvm_shared_from(u->shared, b->base, p),
						       false, t);
			return remote_access(u, b, addr, false, t);
		}
		if (b->arrive[p] <= t)
			uvm_page_transition(b, UVM_PROC_GPU0, UVM_OP_ARRIVED, p);
	}
	return access_resident(u, b, p, write, t, true);
}

double uvm_access_counted(struct uvm *u, uint32_t sm, uint64_t addr, bool write, bool may_stay,
			  double t, bool *remote)
{
	return access_counted(u, sm, addr, write, may_stay, t, remote);
}

static inline __attribute__((always_inline)) double access_page(struct uvm *u, uint32_t sm,
								 uint64_t addr, bool write, double t);

double uvm_access(struct uvm *u, uint32_t sm, uint64_t addr, bool write, double t)
{
	return access_page(u, sm, addr, write, t);
}

struct uvm_sector_rsp uvm_access_sector(struct uvm *u, uint32_t sm, uint64_t addr, bool write,
					double t)
{
	REQ_TRACE_DOWN("uvm", "uvm_access_sector");
	struct uvm_sector_rsp r = {.remote = false, .page_through = NULL};
	r.ready = access_page(u, sm, addr, write, t);
	r.block_through = uvm_l2_stale_through(u, addr, &r.page_through);
	REQ_TRACE_UP("uvm", "uvm_access_sector");
	return r;
}

struct uvm_sector_rsp uvm_access_counted_sector(struct uvm *u, uint32_t sm, uint64_t addr,
						bool write, bool may_stay, double t)
{
	REQ_TRACE_DOWN("uvm", "uvm_access_counted_sector");
	struct uvm_sector_rsp r = {.remote = false, .block_through = 0, .page_through = NULL};
	r.ready = access_counted(u, sm, addr, write, may_stay, t, &r.remote);
	if (!r.remote)
		r.block_through = uvm_l2_stale_through(u, addr, &r.page_through);
	REQ_TRACE_UP("uvm", "uvm_access_counted_sector");
	return r;
}

/* The block holding addr (the last one used, else found; u->last follows
 * it) and its page *p: the block if that page is resident, else NULL. */
static inline __attribute__((always_inline)) struct uvm_block *
resident_block(struct uvm *u, uint64_t addr, uint32_t *p)
{
	uint64_t bn = addr >> UVM_BLOCK_SHIFT;
	struct uvm_block *b = u->last;
	if (!b || b->base != bn << UVM_BLOCK_SHIFT) {
		b = block_find(u, bn);
		if (b)
			u->last = b;
	}
	*p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
	bool resident = b && ((block_full(b) && *p >= b->first_page && *p < b->end_page) ||
			      mask_test(b->resident, *p));
	return resident ? b : NULL;
}

/* uvm_access's work; inlined into uvm_access_sector, the hot one (a call
 * of its own cost the random-sampling managed run 1.6 % more host
 * instructions, callgrind). */
static inline __attribute__((always_inline)) double access_page(struct uvm *u, uint32_t sm,
								 uint64_t addr, bool write, double t)
{
	uint32_t p;
	struct uvm_block *b = resident_block(u, addr, &p);
	if (!b) {
		/* Not reached while TLB entries only cover resident pages; kept
		 * so that no access ever reads a page that is not there. */
		uint64_t fill_max;
		t = translate_page(u, sm, addr, t, &fill_max);
		b = u->last;
		if (!b || !mask_test(b->resident, p))
			return t;
	}
	/* the common case reads only the block's first cache line */
	if (!write && !b->prefetched_count && !u->spec.evict->on_access && t >= b->arrive_max)
		return t;
	return access_resident(u, b, p, write, t, false);
}

/* uvm_translate_sector's access of sector addr: access_page's work where
 * the page is resident, without its time. access_page's shortcut (a
 * read, nothing prefetched, no on_access, its time past arrive_max)
 * skips access_resident, which would do nothing then either (U6: no page
 * is prefetched when prefetched_count is 0), and answers its time, the
 * later of it and the page's arrival (U9: arrive[p] <= arrive_max); so
 * the bookkeeping is access_page's whatever the time, and the SM takes
 * the later of r->ready (the arrival) and its time, access_resident's
 * answer. */
static bool book_access(struct uvm *u, uint64_t addr, bool write, struct uvm_sector_rsp *r)
{
	uint32_t p;
	struct uvm_block *b = resident_block(u, addr, &p);
	if (!b)
		return false;
	if (write || b->prefetched_count || u->spec.evict->on_access)
		(void)access_resident(u, b, p, write, 0, false);
	r->ready = b->arrive[p];
	r->remote = false;
	r->page_through = NULL;
	r->block_through = uvm_l2_stale_through(u, addr, &r->page_through);
	return true;
}
