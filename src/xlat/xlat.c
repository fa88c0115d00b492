#include "xlat/xlat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Calendar resolution and window of the MSHR and walker pools: 128 cycles
 * is about one walk (~100-180 cycles) and 512 slots cover 65 K cycles of
 * reordering and queueing, while a pool's ring (4 KiB) stays in the host's
 * caches. Against 64-cycle slots, Fig. 1a's p100 4 GB point moves by +2.7 %
 * (k80 3 GB +0.9 %, plateau points unchanged) and the simulator runs ~10 %
 * fewer host instructions, since a hold spans fewer slots. */
#define POOL_SLOT_CYCLES 128.0
#define POOL_RING 512
/* With blocking far faults (uvm.fault_model = blocking) a blocked SM
 * translates up to milliseconds ahead of the others (its next warps issue
 * when its serial faults end, seeds/003 2.1), and a request older than
 * the ring is taken as arriving at its oldest slot: with 512 slots (80 us
 * on k80) the GPU-wide walker and L3 pools pushed every other SM's walks
 * to the blocked SM's time, 20.3 ms instead of 5.3 ms for random sampling
 * over 6 MiB (k80, no prefetch). 32768 slots cover 4.2 M cycles. */
#define POOL_RING_BLOCKING 32768

#include "core/cache_line.h"
#include "core/later.h"
#include "core/req_trace.h"
#include "core/spec_seal.h"
#include "gpuvm/units.h"

static uint64_t spec_seal_of(const struct xlat *x);

int xlat_init(struct xlat *x, const struct gpuvm_config *cfg, struct gpuvm_stats *stats)
{
	memset(x, 0, sizeof *x);
	uint32_t ring = cfg->uvm_fault_model == GPUVM_UVM_BLOCKING ? POOL_RING_BLOCKING : POOL_RING;
	x->spec.levels = cfg->tlb_levels;
	x->stats = stats;
	stats->tlb_levels = cfg->tlb_levels;
	for (uint32_t l = 0; l < x->spec.levels; l++) {
		const struct gpuvm_tlb_level_config *lc = &cfg->tlb[l];
		struct xlat_level *xl = &x->level[l];
		xl->spec.shift = gpuvm_log2_ceil(lc->entry_bytes);
		xl->spec.hit_cycles = lc->hit_latency_cycles;
		xl->spec.miss_penalty_cycles = lc->miss_penalty_cycles;
		xl->spec.instances = lc->instances;
		xl->inst = gpuvm_calloc_lines(lc->instances, sizeof *xl->inst);
		xl->of_sm = calloc(cfg->sms, sizeof *xl->of_sm);
		xl->stats = &stats->tlb[l];
		xl->stats->instances = lc->instances;
		xl->stats->instance_hits = calloc(lc->instances, sizeof(uint64_t));
		xl->stats->instance_misses = calloc(lc->instances, sizeof(uint64_t));
		if (!xl->inst || !xl->of_sm || !xl->stats->instance_hits ||
		    !xl->stats->instance_misses)
			return -1;
		for (uint32_t i = 0; i < lc->instances; i++) {
			if (tlb_init(&xl->inst[i].tlb, lc->entries, lc->ways))
				return -1;
			if (server_pool_init(&xl->inst[i].mshr, lc->mshrs, POOL_SLOT_CYCLES, ring))
				return -1;
		}
		for (uint32_t sm = 0; sm < cfg->sms; sm++)
			xl->of_sm[sm] = &xl->inst[lc->instance_of_sm[sm]];
	}
	if (server_pool_init(&x->walkers, cfg->walkers, POOL_SLOT_CYCLES, ring))
		return -1;
	x->spec.walk_cycles = cfg->walk_latency_cycles;
	x->spec.pwc_walk_cycles = cfg->pwc_hit_walk_latency_cycles;
	if (cfg->pwc_entries) {
		if (tlb_init(&x->pwc, cfg->pwc_entries, 0))
			return -1;
		x->spec.pwc_shift = gpuvm_log2_ceil(cfg->pwc_entry_bytes);
		x->spec.pwc_on = 1;
	}
	/* sharing schemes, once every level exists (a scheme may look at the
	 * level below, e.g. Valkyrie's LDT) */
	for (uint32_t l = 0; l < x->spec.levels; l++) {
		struct xlat_level *xl = &x->level[l];
		const struct xlat_peer_ops *ops = xlat_peer_find(cfg->tlb[l].peer);
		if (!ops)
			return -1; /* finalize refuses unknown names */
		xl->stats->peer = xlat_peer_canonical(cfg->tlb[l].peer);
		if (!ops->probe_remote && !ops->on_lookup && !ops->local_port &&
		    !ops->on_below_answer && !ops->on_fill && !ops->on_evict &&
		    !ops->on_lower_evict && !ops->after_translate)
			continue; /* none: the level stays on the fast path */
		char why[160];
		xl->peer = ops->create(x, l, cfg, why, sizeof why);
		if (!xl->peer)
			return -1;
		xl->spec.peer_ops = ops;
		x->spec.slow = true;
	}
	x->spec.future_peek = cfg->tlb_future_fill_peek != 0;
	if (cfg->tlb_l1_in_flight_miss) {
		x->spec.l1_in_flight_miss = true;
		x->spec.slow = true; /* the fast path always merges */
	}
	if (cfg->tlb_sharing_analysis) {
		struct gpuvm_tlb_sharing_stats *sh = &stats->tlb_sharing;
		uint32_t n = x->level[0].spec.instances;
		sh->enabled = true;
		sh->instances = n;
		sh->local_misses = calloc(n, sizeof *sh->local_misses);
		sh->neighbour_held = calloc(n, sizeof *sh->neighbour_held);
		if (!sh->local_misses || !sh->neighbour_held)
			return -1;
		x->sharing = sh;
		x->spec.slow = true;
	}
	for (uint32_t l = 0; l < x->spec.levels; l++)
		x->level[l].stats->translation_counted = x->spec.slow;
	x->spec_seal = spec_seal_of(x);
	return 0;
}

/* The seal of x's spec and of every level's (those past spec.levels are
 * zero, and stay so). */
static uint64_t spec_seal_of(const struct xlat *x)
{
	uint64_t h = spec_seal_add(SPEC_SEAL_BASIS, &x->spec, sizeof x->spec);
	for (uint32_t l = 0; l < GPUVM_MAX_TLB_LEVELS; l++)
		h = spec_seal_add(h, &x->level[l].spec, sizeof x->level[l].spec);
	return h | 1;
}

bool xlat_spec_intact(const struct xlat *x)
{
	return x->spec_seal == spec_seal_of(x);
}

void xlat_sync_stats(struct xlat *x)
{
	for (uint32_t l = 0; l < x->spec.levels; l++) {
		struct xlat_level *xl = &x->level[l];
		struct gpuvm_tlb_level_stats *st = xl->stats;
		if (!xl->inst || !st->instance_hits || !st->instance_misses)
			continue;
		uint64_t hits = 0, misses = 0;
		for (uint32_t i = 0; i < xl->spec.instances; i++) {
			struct xlat_instance *in = &xl->inst[i];
			st->instance_hits[i] += in->hits;
			st->instance_misses[i] += in->misses;
			hits += in->hits;
			misses += in->misses;
			in->hits = in->misses = 0;
		}
		st->lookups += hits + misses;
		st->misses += misses;
		st->pending_hits += xl->pending_hits;
		st->hits += hits - xl->pending_hits;
		xl->pending_hits = 0;
		st->translation_cycles += xl->cycles;
		xl->cycles = 0;
	}
	x->stats->walks += x->walks;
	x->stats->pwc_hits += x->pwc_hits;
	x->walks = x->pwc_hits = 0;
}

void xlat_free(struct xlat *x)
{
	spec_seal_verify(x->spec_seal, spec_seal_of(x), "xlat");
	if (x->stats)
		xlat_sync_stats(x);
	for (uint32_t l = 0; l < x->spec.levels; l++) {
		struct xlat_level *xl = &x->level[l];
		if (xl->spec.peer_ops)
			xl->spec.peer_ops->destroy(xl->peer);
		xl->spec.peer_ops = NULL;
		xl->peer = NULL;
		for (uint32_t i = 0; xl->inst && i < xl->spec.instances; i++) {
			tlb_free(&xl->inst[i].tlb);
			server_pool_free(&xl->inst[i].mshr);
		}
		free(xl->inst);
		free(xl->of_sm);
	}
	server_pool_free(&x->walkers);
	if (x->spec.pwc_on)
		tlb_free(&x->pwc);
}

void xlat_connect_page_port(struct xlat *x, struct xlat_page_port port)
{
	x->page = port;
}

void xlat_connect_pte_port(struct xlat *x, struct xlat_pte_port port)
{
	x->pte = port;
}

/* The page-walk unit: a walker is held for the whole walk; the page-walk
 * cache (upper-level directory entries) shortens walks it covers.
 *
 * peek (tlb.future_fill = peek): the walk of a request that found its
 * entry's fill asked for after it. In time order this request would have
 * walked and the later one merged into its walk; the later one's walk is
 * booked already, so this one books nothing (no walker time, no page-walk
 * cache update, no PTE read) and is answered when a walker free at its
 * time would have finished: one walk per page, the walker queue as it was.
 * Its leaf read costs the walk's own cycles only (the PTE's L2 or DRAM
 * time is the booked walk's); the caller takes the earlier of this and the
 * entry's fill. */
static inline __attribute__((always_inline)) double walk(struct xlat *x, uint64_t addr, double t,
							 bool peek)
{
	double cycles = x->spec.walk_cycles;
	if (__builtin_expect(peek, 0)) {
		int64_t slot;
		double start = server_pool_start_at(&x->walkers, t, &slot);
		if (x->spec.pwc_on && tlb_find(&x->pwc, addr >> x->spec.pwc_shift) != TLB_NIL)
			cycles = x->spec.pwc_walk_cycles;
		return start + cycles;
	}
	if (x->spec.pwc_on) {
		bool hit;
		tlb_access(&x->pwc, addr >> x->spec.pwc_shift, &hit);
		if (hit) {
			cycles = x->spec.pwc_walk_cycles;
			x->pwc_hits++;
		}
	}
	int64_t slot;
	double start = server_pool_start_at(&x->walkers, t, &slot);
	/* the leaf entry is read at the walk's end, when a walker has it; an
	 * L2 miss holds the walker until DRAM answers */
	if (x->pte.read) {
		struct xlat_pte_req req = {.addr = addr, .t = start + cycles};
		cycles += x->pte.read(x->pte.ctx, &req);
	}
	server_pool_consume_at(&x->walkers, slot, start, cycles);
	double done = start + cycles;
	x->walks++;
	x->stats->walk_queue_cycles += start - t;
	return done;
}

/* ---- the sharing schemes' helpers (slow variant only) ---------------- */

/* Entry tag (of level l) left instance inst: the level's scheme and the
 * scheme of the level above (which may act on it, Valkyrie's LDT) hear. */
static void notify_evict(struct xlat *x, uint32_t l, uint32_t inst, uint64_t tag)
{
	struct xlat_level *xl = &x->level[l];
	if (xl->spec.peer_ops && xl->spec.peer_ops->on_evict)
		xl->spec.peer_ops->on_evict(xl->peer, inst, tag);
	if (l > 0) {
		struct xlat_level *up = &x->level[l - 1];
		if (up->spec.peer_ops && up->spec.peer_ops->on_lower_evict)
			up->spec.peer_ops->on_lower_evict(up->peer, tag, xl->spec.shift);
	}
}

/* Installs tag (absent) in instance in of level l, telling the schemes
 * what it replaced and what came in; returns the entry id. */
static uint32_t install(struct xlat *x, uint32_t l, struct xlat_instance *in, uint64_t tag)
{
	struct xlat_level *xl = &x->level[l];
	uint32_t inst = (uint32_t)(in - xl->inst), vid;
	uint64_t vkey = tlb_victim(&in->tlb, tag, &vid);
	bool hit;
	uint32_t id = tlb_access(&in->tlb, tag, &hit);
	if (hit)
		return id;
	/* vid != id only when the stamp clock wrapped in this access: the
	 * replaced entry is then unknown and goes unreported (a scheme's
	 * record of it turns into a false hit, which schemes check) */
	if (vkey && vid == id)
		notify_evict(x, l, inst, vkey - 1);
	if (xl->spec.peer_ops && xl->spec.peer_ops->on_fill)
		xl->spec.peer_ops->on_fill(xl->peer, inst, tag);
	return id;
}

void xlat_peer_install(struct xlat *x, uint32_t l, uint32_t inst, uint64_t tag, double ready)
{
	struct xlat_instance *in = &x->level[l].inst[inst];
	if (tlb_find(&in->tlb, tag) != TLB_NIL)
		return;
	uint32_t id = install(x, l, in, tag);
	in->tlb.ready[id] = ready;
	/* a pushed copy exists from the push on (ready): an earlier-timed
	 * lookup handled later misses, as for a fill (level_step) */
	in->tlb.started[id] = ready;
}

/* Bucket of Fig. 3 (seeds/002): 0, 1, 2-4, 5-8, 9-12, 13+ holders. */
static unsigned holders_bucket(uint32_t n)
{
	return n <= 1 ? n : n <= 4 ? 2 : n <= 8 ? 3 : n <= 12 ? 4 : 5;
}

/* Whether instance i of level 0 holds tag at time t: present, and with
 * tlb.l1_in_flight = miss also filled by t (gem5-gpu's TLB has the entry
 * only from the walk's end). */
static bool l1_holds(const struct xlat *x, const struct xlat_level *xl, uint32_t i, uint64_t tag,
		     double t)
{
	const struct tlb *tlb = &xl->inst[i].tlb;
	uint32_t id = tlb_find(tlb, tag);
	return id != TLB_NIL && (!x->spec.l1_in_flight_miss || tlb->ready[id] <= t);
}

/* The sharing analysis of one lookup of tag by instance inst of level 0
 * arriving at t, before the lookup changes anything. */
static void sharing_observe(struct xlat *x, const struct xlat_level *xl, uint32_t inst,
			    uint64_t tag, double t)
{
	struct gpuvm_tlb_sharing_stats *sh = x->sharing;
	uint32_t n = xl->spec.instances, held = 0;
	for (uint32_t i = 0; i < n; i++)
		held += l1_holds(x, xl, i, tag, t);
	sh->holders[holders_bucket(held)]++;
	if (l1_holds(x, xl, inst, tag, t))
		return;
	sh->local_misses[inst]++;
	if (n < 2)
		return;
	uint32_t left = (inst + n - 1) % n, right = (inst + 1) % n;
	if (l1_holds(x, xl, left, tag, t) || l1_holds(x, xl, right, tag, t))
		sh->neighbour_held[inst]++;
}

static void invalidate_range(struct xlat *x, uint64_t addr, uint64_t bytes);
static __attribute__((noinline)) void invalidate_ranges(struct xlat *x, const struct xlat_range *r,
							uint32_t n);

/* ---- one level of a translation ------------------------------------- */

/* A level's answer to the level above (or to xlat_translate): when the
 * translation is available (done); under paging (a page port connected)
 * when the level below answered it (answered: the walk's end, the
 * lookup of the level that hit, or a sharing scheme's answer) and the
 * widest entry it allows (fill_max, bytes). MSHRs are held until
 * answered, not until the data: a fault Nacks at walk end and the
 * request replays, and an entry still being filled answers "pending" at
 * once (seeds/003 Fig. 4). */
struct level_rsp {
	double done;
	double answered;
	uint64_t fill_max;
};

static struct level_rsp translate_level(struct xlat *x, uint32_t l, uint32_t sm, uint64_t addr,
					double t, const struct xlat_req *req);
static struct level_rsp translate_level_sys(struct xlat *x, uint32_t l, uint32_t sm, uint64_t addr,
					    double t, const struct xlat_req *req);
static __attribute__((noinline)) struct level_rsp slow_level(struct xlat *x, uint32_t l, uint32_t sm,
							    uint64_t addr, double t,
							    const struct xlat_req *req);

/* The slow variant's lookup (level_step): the sharing analysis and the
 * scheme's on_lookup see it; an entry still being filled (tlb.l1_in_flight
 * = miss, first level) or whose fill was asked for after this lookup
 * misses, and *filling names it (the entry keeps the earlier of the two
 * fills). The entry found, or TLB_NIL; *hit as tlb_access's. */
static inline __attribute__((always_inline)) uint32_t
lookup_slow(struct xlat *x, uint32_t l, uint32_t inst, uint64_t tag, double t, double looked,
	    uint32_t *filling, bool *future, bool *hit)
{
	struct xlat_level *xl = &x->level[l];
	struct tlb *tlb = &xl->inst[inst].tlb;
	const struct xlat_peer_ops *ops = xl->spec.peer_ops;
	if (l == 0 && x->sharing)
		sharing_observe(x, xl, inst, tag, t);
	if (ops && ops->on_lookup)
		ops->on_lookup(xl->peer, inst, tag);
	uint32_t id = tlb_find(tlb, tag);
	if (id != TLB_NIL && l == 0 && x->spec.l1_in_flight_miss && tlb->ready[id] > looked) {
		*filling = id;
		id = TLB_NIL;
	}
	/* a fill asked for after this lookup (below) */
	*future = id != TLB_NIL && tlb->started[id] > looked;
	if (*future) {
		*filling = id;
		id = TLB_NIL;
	}
	*hit = id != TLB_NIL;
	if (*hit)
		tlb_access(tlb, tag, hit); /* a hit: makes it most recently used */
	return id;
}

/* A remote answer's fill of entry id (slow variant, installed at miss
 * time): ready at ready, asked for at looked; an entry that was still
 * being filled (was_filling) keeps the earlier of the two fills. */
static inline __attribute__((always_inline)) void fill_times(struct tlb *tlb, uint32_t id,
							     bool was_filling, double ready,
							     double looked)
{
	tlb->ready[id] = was_filling ? fmin(tlb->ready[id], ready) : ready;
	tlb->started[id] = was_filling ? fmin(tlb->started[id], looked) : looked;
}

/* The last level's miss: the page walk, then (paging) the page port's
 * answer at walk end, whose shootdown ranges are applied here, once the
 * port has returned (xlat_walk_rsp). */
static inline __attribute__((always_inline)) struct level_rsp
last_level_walk(struct xlat *x, uint32_t sm, uint64_t addr, double below, bool peek, bool paging,
		const struct xlat_req *req)
{
	struct level_rsp rsp;
	rsp.done = walk(x, addr, below, peek);
	rsp.answered = rsp.done; /* e.g. a far fault: the Nack frees the MSHRs at walk end */
	rsp.fill_max = UINT64_MAX;
	if (paging) {
		struct xlat_walk_req wreq = {.sm = sm, .addr = addr, .t = rsp.done,
					     .managed_known = req->managed_known,
					     .managed = req->managed,
					     .access = req->access};
		struct xlat_walk_rsp w = x->page.walk_done(x->page.ctx, &wreq);
		if (__builtin_expect(w.n_invalidate != 0, 0))
			invalidate_ranges(x, w.invalidate, w.n_invalidate);
		rsp.done = w.ready;
		rsp.fill_max = w.fill_max_bytes;
	}
	return rsp;
}

/* One level's lookup and, on a miss, its MSHR and the levels below: the
 * one walk path, in two variants fixed at compile time by slow (a
 * constant at every call).
 *  - slow = false: no sharing scheme and no sharing analysis. Inlined
 *    with a constant level for the first two (xlat_translate), so the
 *    common two-level path is one function with no calls; deeper levels
 *    recurse through translate_level. Counts no per-level cycles
 *    (translation_cycles is the slow variant's statistic, reported null
 *    otherwise: tlb_counters.c).
 *  - slow = true: the schemes' calls (peer.h's contract: on_lookup,
 *    probe_remote, on_fill and on_evict through install, a remote answer
 *    racing the next level), the sharing analysis, tlb.l1_in_flight =
 *    miss, and each level's cycles; recurses through slow_level.
 * sys (fast variant, a constant at every call): addr lies in system
 * memory (xlat_tag), tested once a request in xlat_translate_req rather
 * than at each level; the slow variant tests at each level. */
/* Forced inline where the compiler optimizes (the L1 step inlines the L2
 * step into itself: one specialised copy per slow/fast variant); an -O0
 * build cannot inline a function into itself and would refuse the
 * attribute, so there it is a plain call. */
#ifdef __OPTIMIZE__
#define LEVEL_STEP_INLINE __attribute__((always_inline))
#else
#define LEVEL_STEP_INLINE
#endif
static inline LEVEL_STEP_INLINE struct level_rsp
level_step(struct xlat *x, uint32_t l, uint32_t sm, uint64_t addr, double t, const bool slow,
	   const bool sys, const struct xlat_req *req)
{
	struct xlat_level *xl = &x->level[l];
	struct xlat_instance *in = xl->of_sm[sm];
	unsigned tag_shift;
	uint64_t tag = slow ? xlat_tag(x, xl, addr, &tag_shift)
			    : xlat_tag_known(x, xl, addr, sys, &tag_shift);
	struct tlb *tlb = &in->tlb;
	const bool paging = __builtin_expect(x->page.walk_done != NULL, 0);
	double looked = t + xl->spec.hit_cycles;
	struct level_rsp rsp;

	uint32_t id, inst = 0;
	const struct xlat_peer_ops *ops = NULL;
	/* an entry still being filled, where that is a miss (slow only): the
	 * request goes on as a miss and the entry keeps the earlier of the
	 * two fills */
	uint32_t filling = TLB_NIL;
	bool hit, future;
	if (slow) {
		inst = (uint32_t)(in - xl->inst);
		ops = xl->spec.peer_ops;
		/* the port may be busy with other instances' requests (peer.h) */
		if (ops && ops->local_port)
			looked = ops->local_port(xl->peer, inst, t) + xl->spec.hit_cycles;
		id = lookup_slow(x, l, inst, tag, t, looked, &filling, &future, &hit);
	} else {
		id = tlb_access(tlb, tag, &hit);
		/* An entry whose fill was asked for after this lookup (another
		 * SM's later-timed miss, handled first) does not exist yet at
		 * looked: the lookup misses and the entry keeps the earlier of
		 * the two fills. */
		future = hit && tlb->started[id] > looked;
		hit = hit && !future;
	}
	if (hit) {
		in->hits++;
		rsp.answered = looked;
		rsp.fill_max = UINT64_MAX; /* the entry exists: nothing to narrow */
		/* before ready: merged into the in-flight fill (a pending hit) */
		double ready = tlb->ready[id];
		xl->pending_hits += ready > looked;
		rsp.done = later(ready, looked);
		if (slow)
			xl->cycles += rsp.done - t;
		return rsp;
	}
	in->misses++;

	double next = looked;
	/* a remote answer racing the next level (peer.h, also_below) */
	double raced = INFINITY;
	bool raced_fill = false;
	if (slow && ops && ops->probe_remote) {
		double done;
		bool fill, also_below = false;
		bool served = ops->probe_remote(xl->peer, inst, tag, t, looked, &done, &fill, &next,
						&also_below);
		if (served && also_below) {
			raced = done;
			raced_fill = fill;
		} else if (served) {
			xl->stats->remote_hits++;
			if (fill) {
				xl->stats->remote_fills++;
				fill_times(tlb, install(x, l, in, tag), filling != TLB_NIL, done,
					   looked);
			}
			rsp.done = rsp.answered = done;
			rsp.fill_max = UINT64_MAX;
			xl->cycles += done - t;
			return rsp;
		}
	}

	/* Installed at miss time with its completion time, so later requests
	 * for the entry merge instead of missing again (the fast variant's
	 * tlb_access above installed it already). The levels below touch
	 * only lower levels (and their pools), and lower levels' evictions
	 * reach this level's scheme only as deferred work
	 * (after_translate), so id still names this entry and slot is still
	 * start's when they answer. */
	double filling_ready = INFINITY;
	if (slow) {
		id = install(x, l, in, tag);
		if (filling != TLB_NIL)
			filling_ready = tlb->ready[id];
	}
	struct server_pool *mshr = &in->mshr;
	int64_t slot;
	double start = server_pool_start_at(mshr, next, &slot);
	xl->stats->mshr_wait_cycles += start - next;
	double below = start + xl->spec.miss_penalty_cycles;
	if (l + 1 < x->spec.levels) {
		if (slow)
			rsp = slow_level(x, l + 1, sm, addr, below, req);
		else
			rsp = l == 0  ? level_step(x, 1, sm, addr, below, false, sys, req)
			      : sys ? translate_level_sys(x, l + 1, sm, addr, below, req)
				    : translate_level(x, l + 1, sm, addr, below, req);
	} else {
		rsp = last_level_walk(x, sm, addr, below, future && x->spec.future_peek, paging, req);
	}
	if (slow && ops && ops->on_below_answer)
		ops->on_below_answer(xl->peer, inst, start, rsp.done);
	/* the remote answer came first: it is used, the next level's is
	 * dropped (the next level has done its work all the same) */
	double filled = rsp.done;
	if (slow && raced < rsp.done) {
		xl->stats->remote_hits++;
		if (raced_fill) {
			xl->stats->remote_fills++;
			filled = raced;
		}
		rsp.done = rsp.answered = raced;
		rsp.fill_max = UINT64_MAX;
	}
	double done = rsp.done;
	/* an entry wider than the page port allows (a partly resident
	 * range) is not kept; one the later fill keeps stays */
	bool narrowed = paging && (1ull << tag_shift) > rsp.fill_max;
	if (slow) {
		if (!(future && narrowed)) {
			double was = filling == TLB_NIL ? INFINITY : tlb->started[id];
			tlb->ready[id] = fmin(filled, filling_ready);
			tlb->started[id] = fmin(was, looked);
		}
	} else if (!future) {
		tlb->ready[id] = done;
		tlb->started[id] = looked;
	} else if (!narrowed) {
		tlb->ready[id] = fmin(tlb->ready[id], done);
		tlb->started[id] = looked;
	}
	if (paging) {
		server_pool_consume_at(mshr, slot, start, rsp.answered - start);
		if (narrowed && !future) {
			if (slow)
				notify_evict(x, l, inst, tag);
			tlb_invalidate(tlb, tag);
		}
	} else {
		server_pool_consume_at(mshr, slot, start, done - start);
	}
	if (slow)
		xl->cycles += done - t;
	return rsp;
}

static struct level_rsp translate_level(struct xlat *x, uint32_t l, uint32_t sm, uint64_t addr,
					double t, const struct xlat_req *req)
{
	return level_step(x, l, sm, addr, t, false, false, req);
}

/* translate_level for an address of system memory (xlat_tag). */
static struct level_rsp translate_level_sys(struct xlat *x, uint32_t l, uint32_t sm, uint64_t addr,
					    double t, const struct xlat_req *req)
{
	return level_step(x, l, sm, addr, t, false, true, req);
}

static __attribute__((noinline)) struct level_rsp slow_level(struct xlat *x, uint32_t l, uint32_t sm,
							    uint64_t addr, double t,
							    const struct xlat_req *req)
{
	return level_step(x, l, sm, addr, t, true, false, req); /* slow: xlat_tag tests */
}

/* The fast variant for an address of system memory, out of line: its
 * copy of the first two levels stays off the hot path. */
static __attribute__((noinline)) double fast_translate_sys(struct xlat *x, const struct xlat_req *req)
{
	return level_step(x, 0, req->sm, req->addr, req->t, false, true, req).done;
}

static __attribute__((noinline)) double slow_translate(struct xlat *x, const struct xlat_req *req)
{
	double t = req->t;
	double done = slow_level(x, 0, req->sm, req->addr, t, req).done;
	for (uint32_t l = 0; l < x->spec.levels; l++) {
		struct xlat_level *xl = &x->level[l];
		if (xl->spec.peer_ops && xl->spec.peer_ops->after_translate)
			xl->spec.peer_ops->after_translate(xl->peer, t);
	}
	return done;
}

double xlat_translate_req(struct xlat *x, const struct xlat_req *req)
{
	REQ_TRACE_DOWN("xlat", "xlat_translate");
	double done;
	if (__builtin_expect(x->spec.slow, 0))
		done = slow_translate(x, req);
	else if (__builtin_expect(req->addr - x->sys_lo < x->sys_span, 0))
		done = fast_translate_sys(x, req);
	else /* the fast variant: no per-level cycles counted (level_step);
	      * the address's system-memory test made here, once */
		done = level_step(x, 0, req->sm, req->addr, req->t, false, false, req).done;
	REQ_TRACE_UP("xlat", "xlat_translate");
	return done;
}

double xlat_translate(struct xlat *x, uint32_t sm, uint64_t addr, double t)
{
	struct xlat_req req = {.sm = sm, .addr = addr, .t = t};
	return xlat_translate_req(x, &req);
}

void xlat_set_system_range(struct xlat *x, uint64_t lo, uint64_t bytes, uint64_t page_bytes)
{
	uint64_t hi = lo + bytes;
	if (x->sys_span) {
		uint64_t old_hi = x->sys_lo + x->sys_span;
		lo = lo < x->sys_lo ? lo : x->sys_lo;
		hi = hi > old_hi ? hi : old_hi;
	}
	x->sys_lo = lo;
	x->sys_span = hi - lo;
	x->sys_shift = (unsigned)__builtin_ctzll(page_bytes);
}

void xlat_invalidate_range(struct xlat *x, uint64_t addr, uint64_t bytes)
{
	if (!bytes)
		return;
	REQ_TRACE_DOWN("xlat", "xlat_invalidate_range");
	invalidate_range(x, addr, bytes);
	REQ_TRACE_UP("xlat", "xlat_invalidate_range");
}

/* Every level's entries of [addr, addr + bytes) dropped (bytes > 0), the
 * sharing schemes told of those they held. */
static void invalidate_range(struct xlat *x, uint64_t addr, uint64_t bytes)
{
	for (uint32_t l = 0; l < x->spec.levels; l++) {
		struct xlat_level *xl = &x->level[l];
		unsigned shift;
		uint64_t first = xlat_tag(x, xl, addr, &shift);
		uint64_t last = first + (((addr + bytes - 1) >> shift) - (addr >> shift));
		for (uint64_t tag = first; tag <= last; tag++)
			for (uint32_t i = 0; i < xl->spec.instances; i++) {
				if (x->spec.slow && tlb_find(&xl->inst[i].tlb, tag) != TLB_NIL)
					notify_evict(x, l, i, tag);
				tlb_invalidate(&xl->inst[i].tlb, tag);
			}
	}
}

/* The shootdowns a walk's page port answered with (struct xlat_walk_rsp),
 * in the order the paging layer made them: dropped as soon as the port
 * returns, before this walk's levels fill (the state the shootdown left
 * when it re-entered xlat from below). */
static __attribute__((noinline)) void invalidate_ranges(struct xlat *x, const struct xlat_range *r,
							uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (r[i].bytes)
			invalidate_range(x, r[i].addr, r[i].bytes);
}
