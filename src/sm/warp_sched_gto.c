/* gto: greedy then oldest. A scheduler keeps issuing the warp it issued
 * last while that warp is ready; when it is not, the oldest ready warp
 * (the least dynamic warp id: the first placed on the SM) takes the slot
 * and becomes the greedy one. GPGPU-Sim gpgpu-sim/gpgpu-sim_distribution
 * src/gpgpu-sim/shader.cc: gto_scheduler::order_warps orders the
 * scheduler's warps with order_by_priority(...,
 * ORDERING_GREEDY_THEN_PRIORITY_FUNC, sort_warps_by_oldest_dynamic_id):
 * m_last_supervised_issued first (set in scheduler_unit::cycle whenever a
 * warp issues), then by get_dynamic_warp_id(), which
 * shader_core_ctx::init_warps hands out in placement order; each cycle
 * the first warp of that order that can issue does. gem5-gpu's Fermi
 * configuration selects it (gem5-gpu/gem5-gpu
 * configs/gpu_config/gpgpusim.fermi.config.template, -gpgpu_scheduler gto).
 *
 * In the event engine (warp_sched.h): the scheduler lists the warps that
 * hold an item ready to issue (queued for their operands, their unit, or
 * a busy scheduler), each with the instant it is ready. A warp claiming a
 * free slot yields it (comes back at the same instant, after the others)
 * while the greedy warp's event is due by then (it may be ready: it
 * claims when taken), or while an older listed warp is ready by then
 * whose unit is free; a listed warp ready by then is queued at that
 * instant (events leave in time order, and leaving takes a warp off the
 * list). A warp whose unit is busy is passed over, as GPGPU-Sim's
 * scheduler_unit::cycle passes over a warp whose pipeline is full. Not
 * modelled: a warp queued at the slot's instant by a CTA's start or a
 * barrier's release, not listed, is not seen by the claims of the
 * warps taken before it; GPGPU-Sim compares every warp ready in the
 * cycle. */
#include <math.h>

#include "gpuvm/module.h"
#include "sm/warp_sched.h"

/* w is ready to issue at `at`, queued (listed once; a later listing
 * moves its time) */
static void list_add(struct sched_state *s, struct warp_rt *w, uint32_t wslot, double at)
{
	w->sched_at = at;
	if (w->sched_waiting)
		return;
	w->sched_waiting = true;
	s->wait[s->n_wait++] = wslot;
}

static void list_drop(struct sched_state *s, struct warp_rt *w, uint32_t wslot)
{
	if (!w->sched_waiting)
		return;
	w->sched_waiting = false;
	for (uint32_t i = 0; i < s->n_wait; i++)
		if (s->wait[i] == wslot) {
			s->wait[i] = s->wait[--s->n_wait];
			return;
		}
}

/* A listed warp's item is ready by now and its unit takes it at now. */
static bool can_issue(const struct sm_layer *sl, const struct sched_state *s, uint32_t v,
		      double now)
{
	return sl->warp[v].sched_at <= now && s->unit_free[sm_item_class(&sl->held[v])] <= now;
}

static double gto_claim(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot, double now)
{
	struct sched_state *s = w->sched;
	if (s->free > now) {
		/* busy: compete when it frees */
		list_add(s, w, wslot, s->free);
		return s->free;
	}
	if (s->last != wslot) {
		/* greedy: the warp issued last goes first if its event is
		 * due by now */
		bool yield = s->last_at <= now;
		/* then oldest */
		for (uint32_t i = 0; i < s->n_wait && !yield; i++) {
			uint32_t v = s->wait[i];
			yield = v != wslot && sl->warp[v].age < w->age && can_issue(sl, s, v, now);
		}
		if (yield) {
			list_add(s, w, wslot, now);
			return now;
		}
	}
	list_drop(s, w, wslot);
	s->last = wslot;
	s->last_at = INFINITY; /* it runs now; the run loop tells when it is queued */
	return -1;
}

static void gto_queued(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot, double at,
		       bool ready)
{
	(void)sl;
	if (w->sched->last == wslot)
		w->sched->last_at = at;
	if (ready)
		list_add(w->sched, w, wslot, at);
}

static void gto_popped(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot)
{
	(void)sl;
	struct sched_state *s = w->sched;
	if (s->last == wslot)
		s->last_at = INFINITY;
	list_drop(s, w, wslot);
}

static const struct warp_sched_ops ops = {
	.claim = gto_claim,
	.queued = gto_queued,
	.popped = gto_popped,
};

const struct gpuvm_module gpuvm_module_warp_sched_gto = {
	.kind = GPUVM_MODULE_WARP_SCHEDULER,
	.name = "gto",
	.help = "greedy then oldest: the warp issued last keeps its scheduler while ready, then the "
		"oldest ready warp (GPGPU-Sim shader.cc gto_scheduler::order_warps; gem5-gpu's Fermi "
		"configuration)",
	.ops = &ops,
};
