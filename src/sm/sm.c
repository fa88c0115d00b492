/* The SM layer's slots and launches (sm.h holds the contract): building
 * the SMs, CTA and warp slots, barriers, and a launch's start. */
#include "memsys/memsys.h"
#include "sm/sm.h"

#include <stdlib.h>
#include <string.h>

#include "core/later.h"
#include "core/env_knob.h"
#include "par/window.h"
#include "gpuvm/module.h"
#include "sm/warp_sched.h"

/* gem5-gpu src/gpu/lsq_warp_inst_buffer.cc, WarpInstBuffer::coalesce: a
 * warp's 4, 8 and 16 B lanes coalesce into accesses within 128 B segments
 * (GPGPU-Sim's compute-capability-1.3 rule), each translated on its own */
#define GEM5GPU_SEGMENT_BYTES 128u

int sm_layer_init(struct sm_layer *s, const struct gpuvm_config *cfg, struct gpuvm_stats *stats,
		  const struct sm_ports *ports)
{
	memset(s, 0, sizeof *s);
	s->cfg = cfg;
	s->stats = stats;
	s->port = *ports;
	/* the coalescer's translation unit: a first-level TLB entry, or with
	 * tlb.translate_per = access gem5-gpu's coalesced access (the 128 B
	 * segment of WarpInstBuffer::coalesce for 4-16 B lanes; its 32 / 64 B
	 * segments of 1 / 2 B lanes are not modelled), each its own lookup */
	uint64_t xlat_unit = cfg->tlb[0].entry_bytes;
	if (cfg->tlb_translate_per_access && xlat_unit > GEM5GPU_SEGMENT_BYTES)
		xlat_unit = GEM5GPU_SEGMENT_BYTES;
	if (coalescer_init(&s->co, xlat_unit, cfg->l2_sector_bytes, cfg->l2_line_bytes))
		return -1;
	s->crossbar_cycles = cfg->load_base_latency_cycles / 2;
	s->sector_bytes = cfg->l2_sector_bytes;
	s->store_held = cfg->l2_writeback_stall != 0;
	s->dram_banked = ports->mem && ports->mem->dram_banked;
	s->exit_waits_stores = cfg->warp_exit_waits_stores != 0;
	s->busy_unit_yield = cfg->busy_unit_yield != 0;
	/* core.warp_scheduler: hooks only for a policy that has them
	 * (first-ready is the run loop's own order) */
	const struct gpuvm_module *ws = gpuvm_module_find(
		GPUVM_MODULE_WARP_SCHEDULER, cfg->warp_scheduler[0] ? cfg->warp_scheduler : "first-ready");
	if (!ws)
		return -1;
	const struct warp_sched_ops *wso = ws->ops;
	s->wsched = wso->claim ? wso : NULL;

	s->l1_on = cfg->l1_bytes > 0;
	/* a unified array is laid out for its largest L1 (the smallest
	 * carve-out); each launch then takes its share (launch_carveout) */
	uint64_t l1_way_line = (uint64_t)cfg->l1_ways * cfg->l1_line_bytes;
	uint64_t l1_alloc = cfg->l1_unified_bytes
				    ? (cfg->l1_unified_bytes - ((uint64_t)cfg->smem_carveouts_kib[0] << 10)) /
					      l1_way_line * l1_way_line
				    : cfg->l1_bytes;
	if (s->l1_on && (l1_cache_init(&s->l1, cfg->sms, l1_alloc, cfg->l1_ways, cfg->l1_line_bytes,
				       cfg->l2_sector_bytes) ||
			 l1_cache_set_replacement(&s->l1, cfg->l1_replacement)))
		return -1;
	s->l1_global = cfg->l1_cache_global != 0;
	s->l1_fill_line = cfg->l1_fill_line != 0;
	s->l1_hit = cfg->l1_hit_latency_cycles;
	s->l1_cycles_per_line = cfg->l2_line_bytes / cfg->l1_bytes_per_cycle;
	s->l1_cycles_per_tag = cfg->l1_tags_per_cycle > 0 ? 1 / cfg->l1_tags_per_cycle : 0;
	s->l1_cycles_per_sector = cfg->l2_sector_bytes / cfg->l1_bytes_per_cycle;
	s->smem_latency = cfg->smem_latency_cycles;
	s->smem_banks = cfg->smem_banks;
	s->smem_wavefront_cycles = cfg->smem_wavefront_cycles > 0 ? cfg->smem_wavefront_cycles : 1.0;

	/* issue: gpu.issue_warp_insts_per_cycle split over the schedulers
	 * (one instruction per scheduler and interval; Kepler's dual issue
	 * of independent instructions is core.dispatch_units, sm_issue.c) */
	s->schedulers = cfg->schedulers_per_sm;
	s->sched_interval = cfg->schedulers_per_sm / cfg->issue_warp_insts_per_cycle;
	for (uint32_t c = 0; c < GPUVM_OP_CLASSES; c++) {
		s->cls_latency[c] = cfg->class_latency_cycles[c];
		s->cls_interval[c] = cfg->class_interval_cycles[c];
		s->cls_step[c] = cfg->class_interval_cycles[c] > s->sched_interval
					 ? cfg->class_interval_cycles[c]
					 : s->sched_interval;
	}
	s->dispatch_units = cfg->dispatch_units ? cfg->dispatch_units : 1;
	s->l2_atomic_cycles = cfg->l2_atomic_latency_cycles;
	s->atomic_address_cycles = cfg->l2_atomic_address_cycles;
	s->l2_port_cycles = cfg->l2_sm_port_bytes_per_cycle > 0
				    ? cfg->l2_sector_bytes / cfg->l2_sm_port_bytes_per_cycle
				    : 0;
	/* stores take the port only where they can be held for it */
	s->l2_store_port_cycles = cfg->l2_sm_port_write_bytes_per_cycle > 0 && s->store_held
					  ? cfg->l2_sector_bytes / cfg->l2_sm_port_write_bytes_per_cycle
					  : 0;

	uint32_t n_warps = cfg->sms * cfg->max_warps_per_sm;
	uint32_t n_ctas = cfg->sms * cfg->max_ctas_per_sm;
	s->sm = calloc(cfg->sms, sizeof *s->sm);
	s->warp = calloc(n_warps, sizeof *s->warp);
	s->cta = calloc(n_ctas, sizeof *s->cta);
	s->parked_store = malloc((size_t)n_ctas * cfg->max_warps_per_sm * sizeof(uint32_t));
	s->held = calloc(n_warps, sizeof *s->held);
	if (!s->sm || !s->warp || !s->cta || !s->parked_store || !s->held)
		return -1;
	s->windowed = cfg->core_window != 0;
	s->window_lag = cfg->core_window == 2;
	s->pipe_every_window = window_threads_knob() == WINDOW_THREADS_ALL;
	static const char *const split_words[] = {"auto", "0", "1"};
	s->split_mode = env_knob_word("GPUVM_WINDOW_SPLIT", split_words, 3, 0) - 1;
	/* the requests and parked warps of a window are the partitions'
	 * (src/system/partition.h), which copy this layer */
	if (s->windowed)
		s->window_cycles = sm_window_cycles(cfg);
	for (uint32_t c = 0; c < n_ctas; c++)
		s->cta[c].parked = s->parked_store + (size_t)c * cfg->max_warps_per_sm;
	for (uint32_t i = 0; i < cfg->sms; i++) {
		struct sm_state *sm = &s->sm[i];
		sm->free_warp_slots = malloc(cfg->max_warps_per_sm * sizeof(uint32_t));
		sm->free_cta_slots = malloc(cfg->max_ctas_per_sm * sizeof(uint32_t));
		sm->sched = calloc(s->schedulers, sizeof *sm->sched);
		sm->events = s->port.events;
		if (!sm->free_warp_slots || !sm->free_cta_slots || !sm->sched)
			return -1;
		for (uint32_t k = 0; s->wsched && k < s->schedulers; k++) {
			sm->sched[k].wait = malloc(cfg->max_warps_per_sm * sizeof(uint32_t));
			if (!sm->sched[k].wait)
				return -1;
		}
		/* Stack of free slots; popped in ascending order. */
		for (uint32_t k = 0; k < cfg->max_warps_per_sm; k++)
			sm->free_warp_slots[k] = i * cfg->max_warps_per_sm + (cfg->max_warps_per_sm - 1 - k);
		sm->n_free_warp_slots = cfg->max_warps_per_sm;
		for (uint32_t k = 0; k < cfg->max_ctas_per_sm; k++)
			sm->free_cta_slots[k] = i * cfg->max_ctas_per_sm + (cfg->max_ctas_per_sm - 1 - k);
		sm->n_free_cta_slots = cfg->max_ctas_per_sm;
		/* 32-cycle slots (32 sectors of a 32 B/clk port); 1024 keep 32 K
		 * cycles of reordering, as the L2 slices' calendars */
		if (s->l2_port_cycles > 0 && server_pool_init(&sm->l2_port, 1, 32, 1024))
			return -1;
		if (s->l2_store_port_cycles > 0 && server_pool_init(&sm->l2_store_port, 1, 32, 1024))
			return -1;
	}
	return 0;
}

void sm_layer_free(struct sm_layer *s)
{
	if (s->sm)
		for (uint32_t i = 0; i < s->cfg->sms; i++) {
			free(s->sm[i].free_warp_slots);
			free(s->sm[i].free_cta_slots);
			for (uint32_t k = 0; s->sm[i].sched && k < s->schedulers; k++)
				free(s->sm[i].sched[k].wait);
			free(s->sm[i].sched);
			server_pool_free(&s->sm[i].l2_port);
			server_pool_free(&s->sm[i].l2_store_port);
		}
	if (s->l1_on)
		l1_cache_free(&s->l1);
	free(s->sm);
	free(s->warp);
	free(s->cta);
	free(s->parked_store);
	free(s->held);
	sm_window_pipe_free(s);
	sm_split_free(s);
	free(s->req);
	free(s->req_key);
	free(s->parked_warps);
	free(s->reg_ready);
	free(s->reg_mem);
	free(s->warp_state);
}

int sm_ensure_warp_state(struct sm_layer *s, size_t bytes)
{
	bytes = (bytes + 15) & ~(size_t)15;
	if (bytes <= s->warp_state_cap)
		return 0;
	size_t n = (size_t)s->cfg->sms * s->cfg->max_warps_per_sm;
	unsigned char *p = realloc(s->warp_state, n * bytes);
	if (!p)
		return -1;
	s->warp_state = p;
	s->warp_state_cap = bytes;
	return 0;
}

int sm_ensure_regs(struct sm_layer *s)
{
	if (s->reg_ready)
		return 0;
	size_t n = (size_t)s->cfg->sms * s->cfg->max_warps_per_sm * GPUVM_REGS;
	s->reg_ready = calloc(n, sizeof *s->reg_ready);
	s->reg_mem = calloc(n, 1);
	return s->reg_ready && s->reg_mem ? 0 : -1;
}

void sm_launch_begin(struct sm_layer *s, const struct sm_launch *l, double t)
{
	const struct gpuvm_config *cfg = s->cfg;
	for (uint32_t i = 0; i < cfg->sms; i++) {
		struct sm_state *sm = &s->sm[i];
		for (uint32_t k2 = 0; k2 < s->schedulers; k2++) {
			sm->sched[k2].free = t;
			for (uint32_t c = 0; c < GPUVM_OP_CLASSES; c++)
				sm->sched[k2].unit_free[c] = t;
			sm->sched[k2].last = UINT32_MAX;
			sm->sched[k2].last_at = INFINITY;
			sm->sched[k2].n_wait = 0;
		}
		sm->l1_free = sm->smem_free = t;
	}
	s->cta_dispatch_free = t;
	if (s->l1_on && cfg->l1_unified_bytes)
		l1_cache_resize(&s->l1, cfg->l1_unified_bytes - l->smem_cap);
	else if (s->l1_on)
		l1_cache_invalidate(&s->l1);
}

void sm_place_cta(struct sm_layer *s, struct sm_launch *l, uint32_t smi, double t)
{
	struct sm_state *sm = &s->sm[smi];
	uint32_t cslot = sm->free_cta_slots[--sm->n_free_cta_slots];
	uint64_t cta_id = l->next_cta++;
	/* when its warps start: the block scheduler hands out one CTA at a
	 * time (gpu.cta_dispatch_cycles), then the SM sets it up
	 * (gpu.cta_launch_cycles); docs/launch.md */
	double start = t;
	if (s->cfg->cta_dispatch_cycles > 0) {
		if (s->cta_dispatch_free > start)
			start = s->cta_dispatch_free;
		s->cta_dispatch_free = start + s->cfg->cta_dispatch_cycles;
	}
	start += s->cfg->cta_launch_cycles;
	s->cta[cslot].warps_left = l->warps_per_cta;
	s->cta[cslot].arrived = 0;
	sm->smem_used += l->k->smem_bytes_per_cta;
	sm->ctas_used++;
	sm->warps_used += l->warps_per_cta;
	s->stats->ctas++;
	for (uint32_t wi = 0; wi < l->warps_per_cta; wi++) {
		uint32_t wslot = sm->free_warp_slots[--sm->n_free_warp_slots];
		struct warp_rt *w = &s->warp[wslot];
		w->sm = smi;
		w->cta_slot = cslot;
		w->sched = &sm->sched[wi % s->schedulers]; /* a CTA's warps spread over them */
		w->state = s->warp_state + (size_t)wslot * s->warp_state_cap;
		w->implicit_ready = w->drain = start;
		w->implicit_mem = false;
		w->implicit_loads = 0;
		w->holding = false;
		w->pending = w->loads_pending = 0;
		w->park = SM_PARK_NONE;
		w->age = s->warp_seq++;
		w->sched_waiting = false;
		if (w->regs_used) { /* a previous warp's results must not hold this one */
			memset(s->reg_ready + (size_t)wslot * GPUVM_REGS, 0,
			       GPUVM_REGS * sizeof(double));
			w->regs_used = false;
		}
		l->k->ops->warp_begin(l->k, w->state, (uint32_t)cta_id, wi);
		s->stats->warps++;
		event_queue_push(sm->events, start, wslot);
	}
}

bool sm_can_take(const struct sm_layer *s, const struct sm_launch *l, uint32_t smi)
{
	const struct sm_state *sm = &s->sm[smi];
	return sm->ctas_used < l->ctas_per_sm &&
	       sm->warps_used + l->warps_per_cta <= s->cfg->max_warps_per_sm &&
	       sm->smem_used + l->k->smem_bytes_per_cta <= l->smem_cap;
}

/* Lets the warps parked at c's barrier go once every live warp of the
 * CTA has arrived (exited warps no longer count, as on the hardware). */
static void barrier_release(struct sm_layer *s, struct cta_rt *c)
{
	if (!c->arrived || c->arrived < c->warps_left)
		return;
	/* the last arrival releases the others a branch latency later */
	double t = c->arrive_last + s->cls_latency[GPUVM_CLASS_BRANCH];
	for (uint32_t i = 0; i < c->arrived; i++) {
		s->stats->stall_cycles[GPUVM_STALL_BARRIER] += t - s->warp[c->parked[i]].barrier_at;
		event_queue_push(s->sm[s->warp[c->parked[i]].sm].events, t, c->parked[i]);
	}
	c->arrived = 0;
}

void sm_barrier_arrive(struct sm_layer *s, uint32_t wslot, double now)
{
	struct warp_rt *w = &s->warp[wslot];
	struct cta_rt *c = &s->cta[w->cta_slot];
	s->stats->warp_insts++;
	s->stats->barriers++;
	w->barrier_at = now;
	if (!c->arrived || now > c->arrive_last)
		c->arrive_last = now;
	c->parked[c->arrived++] = wslot;
	barrier_release(s, c); /* the last arrival lets them all go */
}

uint32_t sm_warp_finished(struct sm_layer *s, struct sm_launch *l, uint32_t wslot, double t)
{
	struct warp_rt *w = &s->warp[wslot];
	struct sm_state *sm = &s->sm[w->sm];
	if (l->k->ops->warp_end)
		l->k->ops->warp_end(l->k, w->state);
	sm->free_warp_slots[sm->n_free_warp_slots++] = wslot;
	sm->warps_used--;
	if (t > l->end)
		l->end = t;
	struct cta_rt *c = &s->cta[w->cta_slot];
	if (--c->warps_left) {
		barrier_release(s, c);
		return UINT32_MAX;
	}
	/* the CTA retires (gpu.cta_retire_cycles): the launch is not done
	 * before its last CTA has */
	double retired = t + s->cfg->cta_retire_cycles;
	if (retired > l->end)
		l->end = retired;
	sm->free_cta_slots[sm->n_free_cta_slots++] = w->cta_slot;
	sm->smem_used -= l->k->smem_bytes_per_cta;
	sm->ctas_used--;
	l->ctas_done++;
	return w->sm;
}
