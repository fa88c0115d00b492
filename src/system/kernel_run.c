/* One kernel launch (system.h holds the contract): the launch's
 * occupancy and carve-out, its first CTAs placed, then its warps' events
 * dispatched in time order to the SM layer until the last warp ends;
 * the per-kernel results (kernel sampling's fast-forward: kernel_ff.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/later.h"
#include "core/vec.h"
#include "system/invariants.h"
#include "gpuvm/counters.h"
#include "par/fork_join.h"
#include "par/window_profile.h"
#include "system/kernel_ff.h"
#include "system/system.h"
#include "sm/warp_sched.h"

/* The shared memory an SM offers a launch. With a unified L1/shared array
 * (Volta on) the driver picks the carve-out per kernel: the smallest of
 * the part's carve-outs that holds the blocks the other limits let an SM
 * run (CUDA C++ Programming Guide, "Shared Memory" of compute capability
 * 7.x-9.0: the driver chooses the carve-out for maximum occupancy unless
 * the program prefers otherwise), the largest when none does; the L1 gets
 * the rest of the array. Separate arrays: smem.size. */
static uint64_t launch_carveout(const struct gpuvm_config *cfg, const struct gpuvm_kernel *k,
				uint32_t ctas_per_sm)
{
	if (!cfg->l1_unified_bytes)
		return cfg->smem_bytes;
	uint32_t smem_per_cta = k->smem_bytes_per_cta;
	uint64_t need = (uint64_t)ctas_per_sm * smem_per_cta;
	/* A preferred carve-out (percent of the largest) maps to the next
	 * supported capacity at or above it, and never below one block's need
	 * (CUDA C++ Programming Guide, "Shared Memory" of compute capability
	 * 7.x-9.0: the percentage is a hint the driver rounds up to a supported
	 * capacity and overrides when the kernel would not run). */
	if (k->smem_carveout_preferred) {
		uint64_t most = cfg->smem_carveouts_len
					? (uint64_t)cfg->smem_carveouts_kib[cfg->smem_carveouts_len - 1] << 10
					: cfg->smem_bytes;
		need = most * k->smem_carveout_percent / 100;
		if (need < smem_per_cta)
			need = smem_per_cta;
	}
	for (uint32_t i = 0; i < cfg->smem_carveouts_len; i++)
		if ((uint64_t)cfg->smem_carveouts_kib[i] << 10 >= need)
			return (uint64_t)cfg->smem_carveouts_kib[i] << 10;
	return cfg->smem_bytes;
}

/* Progress: a sample for the caller's reporter (gpuvm/progress.h), which
 * owns the clocks and the formatting; the kernel runner only says where it is. */
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

static int kernel_open(struct system *sys, const struct gpuvm_kernel *k, double start,
		       double launch, struct kernel_mark *m)
{
	struct gpuvm_stats *s = sys->stats;
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
	ks->frontend_cycles = sys->cfg->kernel_frontend_cycles;
	ks->tail_cycles = sys->cfg->kernel_tail_cycles;
	s->n_kernel_list = n + 1;
	xlat_sync_stats(&sys->xlat);
	memsys_sync_stats(&sys->mem);
	m->index = n;
	kernel_counters(s, &m->at);
	/* every registered counter, for the launch's differences (gpuvm/counters.h) */
	ks->counters = malloc(gpuvm_counters_snapshot_len(&gpuvm_run_section) * sizeof *ks->counters);
	if (!ks->counters)
		return -1;
	gpuvm_counters_snapshot(&gpuvm_run_section, s, ks->counters);
#ifdef GPUVM_CHECK_INVARIANTS
	engine_check_invariants_or_abort(&sys->xlat, sys->sms.l1_on ? &sys->sms.l1 : NULL, &sys->mem,
					 sys->uvm_on ? &sys->uvm : NULL, "start", n);
#endif
	return 0;
}

static void kernel_close(struct system *sys, const struct kernel_mark *m, double end, bool ff)
{
	struct gpuvm_stats *s = sys->stats;
	xlat_sync_stats(&sys->xlat);
	memsys_sync_stats(&sys->mem);
	struct gpuvm_kernel_stats now, *ks = &s->kernel_list[m->index];
	kernel_counters(s, &now);
	ks->end_cycle = end;
	ks->sim_seconds = (end - ks->start_cycle) / (sys->cfg->clock_mhz * 1e6);
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
	gpuvm_counters_delta(&gpuvm_run_section, s, ks->counters);
#ifdef GPUVM_CHECK_INVARIANTS
	engine_check_invariants_or_abort(&sys->xlat, sys->sms.l1_on ? &sys->sms.l1 : NULL, &sys->mem,
					 sys->uvm_on ? &sys->uvm : NULL, "end", m->index);
#endif
}

/* core.busy_unit = yield: warp wslot, ready at now, finds its item's
 * unit busy past its scheduler's next free cycle (sm_unit_wait). If
 * another warp's event comes before the unit frees, the warp waits in the
 * queue, holding its item, instead of booking its scheduler from then on:
 * the other warp's instruction for another unit then issues when it is
 * ready, as a scheduler picks among the warps ready in a cycle. Returns
 * whether it was queued (the wait counts as an issue stall). */
static bool yield_to_unit(struct sm_partition *p, struct warp_rt *w, uint32_t wslot,
			  const struct gpuvm_warp_item *it, double now)
{
	double at = sm_unit_wait(w, it, now);
	if (at <= now || event_queue_empty(p->events) || event_queue_front_time(p->events) >= at)
		return false;
	p->sl->stats->stall_cycles[GPUVM_STALL_ISSUE] += at - now;
	w->holding = true;
	event_queue_push(p->events, at, wslot);
	if (p->sl->wsched)
		p->sl->wsched->queued(p->sl, w, wslot, at, true);
	return true;
}

/* core.warp_scheduler with hooks (src/sm/warp_sched.h): warp wslot, ready
 * at now to issue its held item, asks its scheduler's policy; if it must
 * wait, it waits in the queue holding the item (the wait counts as an
 * issue stall). Returns whether it was queued. */
static bool wait_for_scheduler(struct sm_partition *p, struct warp_rt *w, uint32_t wslot,
			       double now)
{
	const struct warp_sched_ops *ws = p->sl->wsched;
	double at = ws->claim(p->sl, w, wslot, now);
	if (at < 0)
		return false;
	p->sl->stats->stall_cycles[GPUVM_STALL_ISSUE] += at - now;
	w->holding = true;
	event_queue_push(p->events, at, wslot);
	ws->queued(p->sl, w, wslot, at, true);
	return true;
}

/* A CTA slot of SM smi freed at t: the placement policy may give it the
 * launch's next CTA, at once or (core.window) at the window's barrier. */
static int slot_freed(struct system *sys, struct sm_partition *p, uint32_t smi, double t)
{
	if (!p->defer_refill) {
		if (p->launch->next_cta < p->launch->ctas)
			sys->placer.ops->slot_freed(&sys->placer, p->sl, p->launch, smi, t);
		return 0;
	}
	if (VEC_RESERVE(p->freed, p->cap_freed, p->n_freed + 1))
		return -1;
	p->freed[p->n_freed++] = (struct cta_freed){.t = t, .sm = smi};
	return 0;
}

/* The system's registers for the scoreboard, made at the first item that
 * names them, and the partitions' copies of the layer told. */
static int ensure_regs(struct system *sys)
{
	if (sys->sms.reg_ready)
		return 0;
	if (sm_ensure_regs(&sys->sms))
		return -1;
	for (uint32_t i = 0; i < sys->parts.n; i++) {
		sys->parts.part[i].own_sl.reg_ready = sys->sms.reg_ready;
		sys->parts.part[i].own_sl.reg_mem = sys->sms.reg_mem;
	}
	return 0;
}

/* Starts loading the state of the queue's front warp, the next to run
 * (run_events). */
static inline __attribute__((always_inline)) void
prefetch_next_warp(const struct sm_layer *sl, struct event_queue *q, struct gpuvm_kernel *k)
{
	/* its state where place_cta put it (no load of its
	 * record first), its record, and the item it may hold:
	 * with thousands of warps these lie beyond the host's
	 * L2 (triad p100: 3,584 warps, 1.2 MB of held items) */
	uint32_t nw = event_queue_front_warp(q);
	const unsigned char *next = sl->warp_state + (size_t)nw * sl->warp_state_cap;
	for (size_t off = 0; off < sl->warp_state_cap && off < 1024; off += 64)
		__builtin_prefetch(next + off);
	const unsigned char *nrt = (const unsigned char *)&sl->warp[nw];
	__builtin_prefetch(nrt);
	__builtin_prefetch(nrt + sizeof(struct warp_rt) - 1);
	const unsigned char *nheld = (const unsigned char *)&sl->held[nw];
	for (size_t off = 0; off < sizeof(struct gpuvm_warp_item); off += 64)
		__builtin_prefetch(nheld + off);
	__builtin_prefetch(nheld + sizeof(struct gpuvm_warp_item) - 1);
	/* what its next item is read from (worker threads' items:
	 * its chunk, written on another core), reached through
	 * its state, which was prefetched one event earlier as
	 * the one after the next */
	if (k->ops->warp_prefetch)
		k->ops->warp_prefetch(k, next);
	uint32_t nw2 = event_queue_second_warp_hint(q);
	if (nw2 != UINT32_MAX)
		__builtin_prefetch(sl->warp_state + (size_t)nw2 * sl->warp_state_cap);
}

/* Runs p's warp events before win_end in time order (the event-order
 * engine: all of them, win_end infinite). 0, or -1 with p->err. */
static int run_events(struct system *sys, struct sm_partition *p, double win_end, bool show)
{
	struct sm_layer *sl = p->sl;
	struct event_queue *q = p->events;
	struct gpuvm_kernel *k = p->launch->k;
	struct gpuvm_error *err = &p->err;
	uint64_t steps = 0;
	for (;;) {
		if (event_queue_empty(q) || event_queue_front_time(q) >= win_end)
			break;
		double now;
		uint32_t wslot = event_queue_pop(q, &now);
		struct warp_rt *w = &sl->warp[wslot];
		steps++;
		if (sl->wsched)
			sl->wsched->popped(sl, w, wslot);
		/* The next warp to run is likely the queue's new front: start
		 * loading its state while this one runs. */
		if (!event_queue_empty(q))
			prefetch_next_warp(sl, q, k);
		/* Run the warp while it stays the earliest event (and, with
		 * core.window, inside the window). */
		for (;;) {
			struct gpuvm_warp_item *it = &sl->held[wslot];
			bool from_mem, resumed = false;
			double ops;
			struct gpuvm_warp_item *item = it;
			if (w->holding) {
				w->holding = false;
				if (w->park == SM_PARK_OPERANDS) {
					/* back from the barrier: its operands' times are known */
					w->park = SM_PARK_NONE;
					resumed = true;
					goto operands;
				}
				if (sl->busy_unit_yield && yield_to_unit(p, w, wslot, it, now))
					break;
				if (sl->wsched && wait_for_scheduler(p, w, wslot, now))
					break;
				now = sm_step_item(sl, w, wslot, it, now);
				goto issued;
			}
			if (__builtin_expect(sl->windowed, 0) && k->reads_clock && sm_implicit_pending(w)) {
				/* the clock it reads waits for its loads' values */
				sm_park(sl, wslot, SM_PARK_NEXT, now);
				break;
			}
			/* clock64() after the previous load's value is used
			 * (written only for a kernel that reads it: partitions'
			 * threads run the others' warps side by side) */
			if (k->reads_clock)
				k->clock_cycles = later(now, later(w->implicit_ready, w->implicit_loads));
			/* generated in place: a warp that must wait keeps it
			 * there (held), with no copy */
			gpuvm_item_reset_timing(item);
			if (k->ops->warp_next(k, w->state, item, err) < 0) {
				event_queue_clear(q);
				return -1;
			}
			if (item->kind == GPUVM_ITEM_END) {
				if (__builtin_expect(w->pending != 0, 0)) {
					/* core.window: its last results come at the barrier */
					sm_park(sl, wslot, SM_PARK_END, now);
					break;
				}
				/* it ends when its last result is in */
				double end = later(w->drain, now);
				uint32_t freed = sm_warp_finished(sl, p->launch, wslot, end);
				if (freed != UINT32_MAX && slot_freed(sys, p, freed, end)) {
					event_queue_clear(q);
					return gpuvm_fail(err, k->name, 0, NULL,
							  "out of memory for the window's freed CTA slots");
				}
				break;
			}
			if (item->kind == GPUVM_ITEM_BARRIER) {
				sm_barrier_arrive(sl, wslot, now);
				break;
			}
			if (item->has_regs && !sl->reg_ready && ensure_regs(sys)) {
				event_queue_clear(q);
				return gpuvm_fail(err, k->name, 0, NULL, "out of memory for the scoreboard");
			}
		operands:
			ops = sm_operands_ready(sl, w, wslot, item, &from_mem);
			if (__builtin_expect(ops == INFINITY, 0)) {
				/* core.window: a result the barrier will apply; the
				 * barrier applies every one, so a warp back from it
				 * never waits again (else it would forever) */
				if (resumed) {
					event_queue_clear(q);
					return gpuvm_fail(err, k->name, 0, NULL,
							  "internal error: a warp's operand is still pending "
							  "after the window's barrier (core.window)");
				}
				w->holding = true;
				sm_park(sl, wslot, SM_PARK_OPERANDS, now);
				break;
			}
			if (ops > now) {
				sl->stats->stall_cycles[from_mem ? GPUVM_STALL_MEMORY
								 : GPUVM_STALL_DEPENDENCY] += ops - now;
				now = ops;
				if ((!event_queue_empty(q) && event_queue_front_time(q) < now) ||
				    now >= win_end) {
					/* wait in the queue: others issue before */
					w->holding = true;
					event_queue_push(q, now, wslot);
					if (sl->wsched)
						sl->wsched->queued(sl, w, wslot, now, true);
					break;
				}
			}
			if (sl->busy_unit_yield && yield_to_unit(p, w, wslot, item, now))
				break;
			if (sl->wsched && wait_for_scheduler(p, w, wslot, now))
				break;
			now = sm_step_item(sl, w, wslot, item, now);
		issued:
			if ((!event_queue_empty(q) && event_queue_front_time(q) < now) || now >= win_end) {
				event_queue_push(q, now, wslot);
				if (sl->wsched)
					sl->wsched->queued(sl, w, wslot, now, false);
				break;
			}
		}
		if (show && (steps & 0xffff) == 0)
			kernel_show_progress(sys, p->launch, event_queue_empty(q) ? p->launch->end
								: event_queue_front_time(q), false);
	}
	p->events_run = steps;
	return 0;
}

/* A window's run of one partition (a fork-join task). */
struct window_run {
	struct system *sys;
	double win_end;
};
static void run_partition(void *ctx, uint32_t i)
{
	struct window_run *wr = ctx;
	struct sm_partition *p = &wr->sys->parts.part[i];
	p->rc = run_events(wr->sys, p, wr->win_end, false);
}

static int freed_cmp(const void *a, const void *b)
{
	const struct cta_freed *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->sm < y->sm ? -1 : x->sm > y->sm;
}

/* The partitions' statistics and launch counts of a window, added to the
 * run's and the launch's in partition order. */
static void merge_partitions(struct system *sys, struct sm_launch *kr)
{
	for (uint32_t i = 0; i < sys->parts.n; i++) {
		struct sm_partition *p = &sys->parts.part[i];
		if (!p->events_run)
			continue; /* nothing ran: its shard and counts are as merged */
		sm_partition_merge_stats(p, sys->stats);
		if (p->launch->end > kr->end)
			kr->end = p->launch->end;
		kr->ctas_done += p->launch->ctas_done;
		p->launch->ctas_done = 0;
	}
}

/* Whether parked warp w may go on: every result it waits for is in
 * (core.window = lagged leaves those of the window being served pending;
 * at an ordinary barrier every one is in). */
static bool parked_ready(const struct sm_layer *sl, const struct warp_rt *w, uint32_t wslot)
{
	bool from_mem;
	switch (w->park) {
	case SM_PARK_END:
		return w->pending == 0;
	case SM_PARK_NEXT:
		return !sm_implicit_pending(w);
	default:
		return sm_operands_ready(sl, w, wslot, &sl->held[wslot], &from_mem) != INFINITY;
	}
}

/* The warps that waited for a barrier, partition by partition in the
 * order they parked: a warp that ended finishes (its end is its last
 * result), the others go back to their queue at the cycle they parked at.
 * only_ready (lagged): a warp whose results are not all in stays parked,
 * in order. Then the CTA slots freed in the window go to the placement
 * policy in (cycle, SM) order. */
static int wake_and_refill(struct system *sys, struct sm_launch *kr, bool only_ready,
			   struct gpuvm_error *err)
{
	struct sm_layer *sl = &sys->sms;
	struct sm_partitions *ps = &sys->parts;
	bool oom = false;
	/* the freed slots gather in the first partition's list */
	struct sm_partition *f = &ps->part[0];
	for (uint32_t i = 0; i < ps->n; i++) {
		struct sm_layer *pl = ps->part[i].sl;
		uint32_t n = pl->n_parked, kept = 0;
		pl->n_parked = 0;
		for (uint32_t j = 0; j < n; j++) {
			uint32_t wslot = pl->parked_warps[j];
			struct warp_rt *w = &sl->warp[wslot];
			if (only_ready && !parked_ready(sl, w, wslot)) {
				pl->parked_warps[kept++] = wslot;
				continue;
			}
			if (w->park == SM_PARK_END) {
				w->park = SM_PARK_NONE;
				double end = later(w->drain, w->park_at);
				uint32_t freed = sm_warp_finished(sl, kr, wslot, end);
				if (freed != UINT32_MAX && slot_freed(sys, f, freed, end))
					oom = true;
			} else {
				/* SM_PARK_OPERANDS stays for the run loop to see; the
				 * others ask for their next item as any warp */
				if (w->park == SM_PARK_NEXT)
					w->park = SM_PARK_NONE;
				event_queue_push(sl->sm[w->sm].events, w->park_at, wslot);
			}
		}
		pl->n_parked = kept;
	}
	for (uint32_t i = 1; i < ps->n && !oom; i++) {
		struct sm_partition *p = &ps->part[i];
		if (!p->n_freed)
			continue; /* (and f->freed may still be NULL) */
		if (VEC_RESERVE(f->freed, f->cap_freed, f->n_freed + p->n_freed)) {
			oom = true;
			break;
		}
		memcpy(f->freed + f->n_freed, p->freed, p->n_freed * sizeof *p->freed);
		f->n_freed += p->n_freed;
		p->n_freed = 0;
	}
	if (oom)
		return gpuvm_fail(err, kr->k->name, 0, NULL,
				  "out of memory for the window's freed CTA slots (core.window)");
	/* in (cycle, SM) order: two entries alike are the same call, so the
	 * order qsort leaves them in changes nothing */
	if (f->n_freed) /* (qsort's base must not be NULL) */
		qsort(f->freed, f->n_freed, sizeof *f->freed, freed_cmp);
	for (size_t j = 0; j < f->n_freed && kr->next_cta < kr->ctas; j++)
		sys->placer.ops->slot_freed(&sys->placer, sl, kr, f->freed[j].sm, f->freed[j].t);
	f->n_freed = 0;
	return 0;
}

/* A launch's windows that fail leave no event behind in any partition. */
static void clear_partitions(struct sm_partitions *ps)
{
	for (uint32_t i = 0; i < ps->n; i++)
		event_queue_clear(ps->part[i].events);
}

/* The partitions' copies of the layer, whose lists the barrier takes. */
static void partition_layers(struct sm_partitions *ps, struct sm_layer **from, bool *oom)
{
	for (uint32_t i = 0; i < ps->n; i++) {
		from[i] = ps->part[i].sl;
		*oom |= ps->part[i].sl->window_oom;
	}
}

/* core.window: the barrier at the end of the window [.., win_end). The
 * partitions' statistics and launch counts are added in partition order;
 * the window's memory instructions applied in key order (sm_window_apply);
 * then the warps that waited for them wake and the freed CTA slots are
 * refilled (wake_and_refill). */
static int window_barrier(struct system *sys, struct sm_launch *kr, double win_end,
			  struct gpuvm_error *err)
{
	struct sm_layer *sl = &sys->sms;
	struct sm_partitions *ps = &sys->parts;
	struct sm_layer *from[GPUVM_MAX_SMS];
	bool oom = false;
	merge_partitions(sys, kr);
	partition_layers(ps, from, &oom);
	sm_window_apply(sl, win_end, from, ps->n);
	if (sl->window_oom || oom) {
		clear_partitions(ps);
		return gpuvm_fail(err, kr->k->name, 0, NULL,
				  "out of memory for the window's memory instructions (core.window)");
	}
	sys->stats->windows++;
	sys->stats->window_early += sl->window_early;
	sl->window_early = 0;
	return wake_and_refill(sys, kr, false, err);
}

/* The earliest event of any partition (INFINITY: none). */
static double partitions_front(const struct sm_partitions *ps)
{
	double t = INFINITY;
	for (uint32_t i = 0; i < ps->n; i++)
		if (!event_queue_empty(ps->part[i].events) &&
		    event_queue_front_time(ps->part[i].events) < t)
			t = event_queue_front_time(ps->part[i].events);
	return t;
}

/* Whether the window may run its partitions on threads: asked for
 * (--threads N and GPUVM_WINDOW_THREADS=partitions), a kernel whose warps
 * share nothing, and enough events in the last window to pay for the
 * hand-over (every window with GPUVM_WINDOW_THREADS=all, as the tests
 * run). The results are the same either way. Not by default: on the
 * 2-core host the bench's rows all ran slower with it (random sampling
 * p100 1.06x against the barrier's 1.43x alone, the triad 0.81x, k80
 * 0.75x: docs/parallel.md, "SM-side partitions"). */
#define PART_MIN_EVENTS 256
static bool window_on_threads(const struct system *sys, const struct gpuvm_kernel *k,
			      uint64_t last_events)
{
	return sys->sms.threads > 1 && k->warps_independent && sys->parts.n > 1 &&
	       sys->parts.threads_wanted &&
	       (sys->sms.pipe_every_window || last_events >= PART_MIN_EVENTS);
}

/* core.window: the launch's windows until no warp is left. */
static int run_windows(struct system *sys, struct sm_launch *kr, double t_cta,
		       struct gpuvm_error *err)
{
	struct sm_layer *sl = &sys->sms;
	struct sm_partitions *ps = &sys->parts;
	sm_partitions_sync(ps, sl, kr);
	for (uint32_t i = 0; i < ps->n; i++)
		ps->part[i].launch->ctas_done = 0;
	double win_end = t_cta + sl->window_cycles;
	uint64_t last_events = 0, steps = 0;
	/* gpuvm bench --profile --window: each partition's run and each
	 * barrier timed, on one thread (par/window_profile.h) */
	bool profile = window_profile_enabled() && sl->threads == 1;
	double part_s[GPUVM_MAX_SMS];
	for (;;) {
		if (window_on_threads(sys, kr->k, last_events)) {
			if (!ps->pool && !(ps->pool = fork_join_new(sl->threads, ps->n)))
				return gpuvm_fail(err, kr->k->name, 0, NULL,
						  "out of memory for the partitions' threads");
			if (ensure_regs(sys))
				return gpuvm_fail(err, kr->k->name, 0, NULL,
						  "out of memory for the scoreboard");
			struct window_run wr = {.sys = sys, .win_end = win_end};
			fork_join_run(ps->pool, run_partition, &wr);
		} else {
			for (uint32_t i = 0; i < ps->n; i++) {
				double t0 = profile ? window_profile_now() : 0;
				ps->part[i].rc = run_events(sys, &ps->part[i], win_end, false);
				if (profile)
					part_s[i] = window_profile_now() - t0;
			}
		}
		last_events = 0;
		bool pending = false;
		for (uint32_t i = 0; i < ps->n; i++) {
			struct sm_partition *p = &ps->part[i];
			if (p->rc) {
				*err = p->err;
				clear_partitions(ps);
				return -1;
			}
			last_events += p->events_run;
			pending |= p->sl->n_req || p->sl->n_parked || p->n_freed ||
				   !event_queue_empty(p->events);
		}
		if (!pending)
			break;
		double b0 = profile ? window_profile_now() : 0;
		if (window_barrier(sys, kr, win_end, err))
			return -1;
		if (profile)
			window_profile_add(window_profile_now() - b0, part_s, ps->n);
		steps += last_events;
		if (sys->progress && steps >= 0x10000) {
			steps = 0;
			double front = partitions_front(ps);
			kernel_show_progress(sys, kr, front < INFINITY ? front : win_end, false);
		}
		/* the next window opens at the next event (idle stretches
		 * skipped), never before this one's end */
		double front = partitions_front(ps);
		double open = front < INFINITY ? later(front, win_end) : win_end;
		win_end = open + sl->window_cycles;
	}
	merge_partitions(sys, kr); /* the last window's (it had no barrier) */
	return 0;
}

/* core.window = lagged: the launch's windows, each window's barrier
 * served while the next runs (sm_window_serve_begin: on the pipe's
 * thread with --threads N where nothing couples them, else at its end on
 * this one: the same results). A window is half the lookahead
 * (sm_window_cycles) and ends no later than the earliest result of the
 * window being served can be due (its first issue plus the lookahead), so
 * no warp of it could have used one; where the next event is past that,
 * the window is served and delivered before the next opens. */
static int run_windows_lagged(struct system *sys, struct sm_launch *kr, double t_cta,
			      struct gpuvm_error *err)
{
	struct sm_layer *sl = &sys->sms;
	struct sm_partitions *ps = &sys->parts;
	sl->items_ahead = kr->k->items_ahead;
	sm_partitions_sync(ps, sl, kr);
	struct sm_layer *from[GPUVM_MAX_SMS];
	bool oom = false;
	partition_layers(ps, from, &oom);
	for (uint32_t i = 0; i < ps->n; i++)
		ps->part[i].launch->ctas_done = 0;
	double half = sl->window_cycles / 2;
	double win_end = t_cta + half;
	bool out = false; /* a window's requests outstanding (served as this one runs) */
	uint64_t steps = 0;
	for (;;) {
		for (uint32_t i = 0; i < ps->n; i++)
			ps->part[i].rc = run_events(sys, &ps->part[i], win_end, false);
		if (out)
			sm_window_serve_end(sl, from, ps->n, win_end);
		out = false;
		uint64_t events = 0;
		for (uint32_t i = 0; i < ps->n; i++) {
			struct sm_partition *p = &ps->part[i];
			if (p->rc) {
				*err = p->err;
				clear_partitions(ps);
				return -1;
			}
			events += p->events_run;
			oom |= p->sl->window_oom;
		}
		merge_partitions(sys, kr);
		for (;;) {
			if (wake_and_refill(sys, kr, true, err))
				return -1;
			double first = 0;
			size_t n = sm_window_take(sl, from, ps->n, &first);
			if (sl->window_oom || oom) {
				clear_partitions(ps);
				return gpuvm_fail(err, kr->k->name, 0, NULL,
						  "out of memory for the window's memory instructions "
						  "(core.window)");
			}
			bool parked = false, freed = false;
			for (uint32_t i = 0; i < ps->n; i++) {
				parked |= ps->part[i].sl->n_parked != 0;
				freed |= ps->part[i].n_freed != 0;
			}
			double front = partitions_front(ps);
			if (!n && front == INFINITY && !freed) {
				if (parked) /* every result is in: nothing can wake them */
					return gpuvm_fail(err, kr->k->name, 0, NULL,
							  "internal error: warps wait for no pending "
							  "result (core.window = lagged)");
				sys->stats->window_early += sl->window_early;
				sl->window_early = 0;
				return 0;
			}
			sys->stats->windows++;
			/* the next window opens at the next event (idle stretches
			 * skipped), never before this one's end */
			double open = front < INFINITY ? later(front, win_end) : win_end;
			double end = open + half;
			if (n) {
				double due = first + sl->window_cycles; /* the earliest result */
				if (open >= due) {
					/* nothing to run before its results: serve them
					 * now, and wake what waits for them */
					sm_window_serve_end(sl, from, ps->n, win_end);
					continue;
				}
				if (end > due)
					end = due;
				sm_window_serve_begin(sl);
				out = true;
			}
			win_end = end;
			break;
		}
		steps += events;
		if (sys->progress && steps >= 0x10000) {
			steps = 0;
			kernel_show_progress(sys, kr, win_end, false);
		}
	}
}

int system_run_kernel(struct system *sys, struct gpuvm_kernel *k, double t0, double launch,
		      double *t_end, struct gpuvm_error *err)
{
	const struct gpuvm_config *cfg = sys->cfg;
	struct sm_layer *sl = &sys->sms;
	struct sm_launch kr = {.k = k, .ctas = gpuvm_kernel_ctas(k),
				.warps_per_cta = gpuvm_kernel_warps_per_cta(k)};
	sys->stats->kernels++;
	sys->kernel_index++;
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
	kr.smem_cap = launch_carveout(cfg, k, kr.ctas_per_sm);
	if (sm_ensure_warp_state(&sys->sms, k->ops->warp_state_bytes))
		return gpuvm_fail(err, k->name, 0, NULL, "out of memory for warp state");

	double t = t0 + launch; /* the kernel starts on the GPU (its duration from here) */
	/* its first CTA dispatch, after the front-end (docs/launch.md) */
	double t_cta = t + cfg->kernel_frontend_cycles;
	kr.end = t_cta;
	sys->stats->launch_cycles += launch;
	struct kernel_mark mark;
	if (kernel_open(sys, k, t, launch, &mark))
		return gpuvm_fail(err, k->name, 0, NULL, "out of memory for per-kernel results");
	if (k->pin && k->pin_sm >= cfg->sms)
		return gpuvm_fail(err, k->name, 0, NULL, "pinned to SM %u of %u", k->pin_sm, cfg->sms);

	struct ks_class *cls = NULL;
	if (sys->ks.on && k->sampleable) {
		if (sys->uvm_on) {
			/* migrations and evictions carry state from launch to
			 * launch: no launch stands for another */
			kernel_sampler_refuse(&sys->ks, "managed memory (UVM paging) is in use: every "
						      "launch simulated in detail");
		} else if (!(cls = kernel_sampler_class(&sys->ks, k))) {
			return gpuvm_fail(err, k->name, 0, NULL, "out of memory for kernel sampling");
		}
	}
	if (cls && cls->converged) {
		sys->stats->kernel_sampling.fast_forwarded_kernels++;
		if (kernel_fast_forward(sys, &kr, cls, t_cta, err))
			return -1;
		kr.end += cfg->kernel_tail_cycles;
		kernel_close(sys, &mark, kr.end, true);
		*t_end = kr.end;
		return 0;
	}
	sys->stats->kernel_sampling.detailed_kernels++;
	uint64_t insts0 = sys->stats->warp_insts, accesses0 = sys->stats->thread_accesses;
	if (cls)
		kernel_sampler_begin(&sys->ks);

	sm_launch_begin(sl, &kr, t_cta);
	struct gpuvm_kernel_stats *kst = &sys->stats->kernel_list[mark.index];
	kst->l1_bytes = sl->l1_on ? (uint64_t)sl->l1.sets * sl->l1.ways << sl->l1.line_shift : 0;
	kst->smem_bytes = kr.smem_cap;
	/* the launch's first CTAs, as the placement policy puts them
	 * (gpu.cta_placement, src/sm/cta_place.c) */
	sys->placer.ops->launch(&sys->placer, sl, &kr, t_cta);

	if (sl->windowed) {
		if ((sl->window_lag ? run_windows_lagged : run_windows)(sys, &kr, t_cta, err))
			return -1;
	} else {
		struct sm_partition whole = {.sl = sl, .events = &sys->events, .launch = &kr};
		if (run_events(sys, &whole, INFINITY, sys->progress)) {
			*err = whole.err;
			return -1;
		}
	}
	if (sys->progress)
		kernel_show_progress(sys, &kr, kr.end, true);
	xlat_sync_stats(&sys->xlat);
	if (link_stores_done(&sys->link) > kr.end)
		kr.end = link_stores_done(&sys->link); /* posted writes still on the link */
	if (cls)
		kernel_sampler_record(&sys->ks, cls, kr.end - t_cta, sys->stats->warp_insts - insts0,
				      sys->stats->thread_accesses - accesses0);
	kr.end += cfg->kernel_tail_cycles; /* drain and completion (docs/launch.md) */
	kernel_close(sys, &mark, kr.end, false);
	*t_end = kr.end;
	return 0;
}