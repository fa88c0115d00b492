/* core.window (sm.h holds the contract): a window's global and local
 * memory instructions, recorded as they issue with what they write marked
 * pending, and applied at the window's barrier in the order of (issue
 * cycle, SM, sequence), each through the code that serves it at issue
 * (sm_serve_memory). docs/parallel.md says why the window is safe and
 * what the order changes. */
#include <stdlib.h>

#include "sm/sm.h"

double sm_window_cycles(const struct gpuvm_config *cfg)
{
	/* the L2 round trip: the crossbar out (load_base / 2, sm_layer's
	 * crossbar_cycles) and back (memsys_after_l2), the L2's hit */
	double w = cfg->load_base_latency_cycles + cfg->l2_hit_latency_cycles;
	/* a load the L1 holds: tx + l1_hit (sm_issue.c l1_sector), tx no
	 * earlier than the issue */
	if (cfg->l1_bytes > 0 && cfg->l1_hit_latency_cycles < w)
		w = cfg->l1_hit_latency_cycles;
	return w >= 1 ? w : 1;
}

/* The key the barrier applies a window's instructions in: no thread
 * count, host order or warp slot in it. */
struct sm_req_key {
	double start;
	uint64_t seq;
	uint32_t sm, index;
};

/* Room for one more request and its sort key (the keys grow with the
 * requests, so the barrier allocates nothing). */
static int grow_requests(struct sm_layer *sl)
{
	size_t cap = sl->cap_req ? 2 * sl->cap_req : 1024;
	struct sm_request *r = realloc(sl->req, cap * sizeof *r);
	if (!r)
		return -1;
	sl->req = r;
	struct sm_req_key *k = realloc(sl->req_key, cap * sizeof *k);
	if (!k)
		return -1;
	sl->req_key = k;
	sl->cap_req = cap;
	return 0;
}

int sm_defer_instruction(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
			 const struct gpuvm_warp_item *it, double start)
{
	if (sl->n_req == sl->cap_req && grow_requests(sl)) {
		sl->window_oom = true;
		return -1;
	}
	struct sm_request *r = &sl->req[sl->n_req++];
	r->start = start;
	r->seq = ++sl->req_seq;
	r->sm = w->sm;
	r->wslot = wslot;
	r->item = *it;
	w->pending++;
	if (it->op == GPUVM_OP_STORE)
		return 0; /* a store writes no register */
	double mark = -(double)r->seq;
	if (it->has_regs) {
		double *rr = sl->reg_ready + (size_t)wslot * GPUVM_REGS;
		uint8_t *rm = sl->reg_mem + (size_t)wslot * GPUVM_REGS;
		for (uint32_t i = 0; i < it->n_dst && i < GPUVM_ITEM_MAX_DST; i++) {
			uint16_t d = it->dst[i];
			if (d < GPUVM_REGS) {
				rr[d] = mark;
				rm[d] = 1;
			}
		}
		w->regs_used = true;
	} else if (sm_item_load_indep(it)) {
		w->loads_pending++;
		w->implicit_mem = true;
	} else {
		w->implicit_ready = mark;
		w->implicit_loads = 0;
		w->implicit_mem = true;
	}
	return 0;
}

/* A memory instruction's result where its issue left its marks: what
 * sm_step_item does with a result, for one applied at the barrier. */
static void deliver(struct sm_layer *sl, struct warp_rt *w, uint32_t wslot,
		    const struct gpuvm_warp_item *it, uint64_t seq, double result)
{
	if (sl->exit_waits_stores && it->op == GPUVM_OP_STORE && sl->store_ack > w->drain)
		w->drain = sl->store_ack;
	if (result > w->drain)
		w->drain = result;
	w->pending--;
	if (it->op == GPUVM_OP_STORE)
		return;
	double mark = -(double)seq;
	if (it->has_regs) {
		double *rr = sl->reg_ready + (size_t)wslot * GPUVM_REGS;
		/* a later instruction may have written the register since (it
		 * then holds that one's time or mark) */
		for (uint32_t i = 0; i < it->n_dst && i < GPUVM_ITEM_MAX_DST; i++) {
			uint16_t d = it->dst[i];
			if (d < GPUVM_REGS && rr[d] == mark)
				rr[d] = result;
		}
	} else if (sm_item_load_indep(it)) {
		if (result > w->implicit_loads)
			w->implicit_loads = result;
		w->loads_pending--;
	} else if (w->implicit_ready == mark) {
		w->implicit_ready = result;
	}
}

static int req_key_cmp(const void *a, const void *b)
{
	const struct sm_req_key *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->sm != y->sm)
		return x->sm < y->sm ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void sm_window_apply(struct sm_layer *sl, double window_end)
{
	size_t n = sl->n_req;
	if (!n)
		return; /* no keys yet (and qsort's base must not be NULL) */
	struct sm_req_key *key = sl->req_key;
	for (size_t i = 0; i < n; i++)
		key[i] = (struct sm_req_key){.start = sl->req[i].start, .seq = sl->req[i].seq,
					     .sm = sl->req[i].sm, .index = (uint32_t)i};
	qsort(key, n, sizeof *key, req_key_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = &sl->req[key[i].index];
		struct warp_rt *w = &sl->warp[r->wslot];
		double result = sm_serve_memory(sl, w, r->wslot, &r->item, r->start);
		if (r->item.op != GPUVM_OP_STORE && result < window_end)
			sl->window_early++;
		deliver(sl, w, r->wslot, &r->item, r->seq, result);
	}
	sl->n_req = 0;
}

