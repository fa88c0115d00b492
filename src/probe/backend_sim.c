/* Probe backend on the simulator: the pointer chase is a workload source
 * (one warp, one active lane, each load blocking the warp until it
 * returns, as a dependent load does) run through gpuvm_simulate, timed with
 * the engine's clock (struct gpuvm_kernel.clock_cycles, the analogue of
 * clock64) and placed with the kernel's SM pin (the analogue of blocks
 * that check %smid). TLB and L2 state persist across the kernels of one
 * simulation, which the sharing benchmark's three stages rely on. */
#include "gpuvm/probe.h"

#include <stdlib.h>
#include <string.h>

#include "gpuvm/engine.h"

/* GPU virtual base of the chase buffers: above anything small, aligned to
 * the largest entry size the keys allow (1 TiB). */
#define CHASE_BASE (1ull << 40)

struct chase_stage {
	uint64_t base, stride;
	uint32_t hops;
	uint32_t passes;   /* 2: warm-up then timed; 1: timed only */
	uint32_t sm;
	bool pin;
};

struct chase_src {
	const struct gpuvm_config *cfg;
	struct chase_stage stage[3 * (GPUVM_MAX_SMS + 1) + 1];
	size_t n_stages, next_stage;
	int timed_of_stage[3 * (GPUVM_MAX_SMS + 1) + 1]; /* index into t0/t1, -1 untimed */
	double t0[GPUVM_MAX_SMS + 1], t1[GPUVM_MAX_SMS + 1];
	uint64_t region_bytes;
	int allocs_done;
	struct gpuvm_kernel kernel;
	struct chase_stage *cur;
	int cur_timed;
};

struct chase_warp {
	uint32_t item; /* loads issued so far */
};

static void chase_warp_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t w)
{
	(void)k;
	(void)cta;
	(void)w;
	((struct chase_warp *)state)->item = 0;
}

static int chase_warp_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *item,
			   struct gpuvm_error *err)
{
	(void)err;
	struct chase_src *cs = k->impl;
	struct chase_warp *w = state;
	const struct chase_stage *st = cs->cur;
	uint32_t total = st->hops * st->passes;
	uint32_t timed_from = st->hops * (st->passes - 1);
	if (cs->cur_timed >= 0) {
		/* clock64() before the first timed load and after the last. */
		if (w->item == timed_from)
			cs->t0[cs->cur_timed] = k->clock_cycles;
		if (w->item == total)
			cs->t1[cs->cur_timed] = k->clock_cycles;
	}
	if (w->item >= total) {
		item->kind = GPUVM_ITEM_END;
		return 0;
	}
	uint32_t i = w->item++ % st->hops;
	item->kind = GPUVM_ITEM_MEM;
	item->op = GPUVM_OP_LOAD;
	item->cache_op = GPUVM_CACHE_GLOBAL; /* ld.global.cg, as cuda/tlb_probe.cu */
	item->bytes_per_lane = 8;
	item->active_mask = 1;
	item->addr[0] = st->base + (uint64_t)i * st->stride + gpuvm_probe_chain_offset(i, st->stride);
	return 0;
}

static const struct gpuvm_kernel_ops chase_kernel_ops = {
	.warp_state_bytes = sizeof(struct chase_warp),
	.warp_begin = chase_warp_begin,
	.warp_next = chase_warp_next,
};

static int chase_next_op(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	(void)err;
	struct chase_src *cs = s->impl;
	memset(op, 0, sizeof *op);
	if (cs->allocs_done < 2) {
		/* Region A (filled and measured) and B (disrupting), back to back. */
		op->kind = GPUVM_RUN_ALLOC;
		snprintf(op->alloc.name, sizeof op->alloc.name, "chase_%c", 'A' + cs->allocs_done);
		op->alloc.base = CHASE_BASE + (uint64_t)cs->allocs_done * cs->region_bytes;
		op->alloc.bytes = cs->region_bytes;
		op->alloc.kind = GPUVM_ALLOC_DEVICE;
		op->alloc.extent_only = true; /* past the board: stream.h */
		cs->allocs_done++;
		return 0;
	}
	if (cs->next_stage == cs->n_stages) {
		op->kind = GPUVM_RUN_END;
		return 0;
	}
	size_t i = cs->next_stage++;
	cs->cur = &cs->stage[i];
	cs->cur_timed = cs->timed_of_stage[i];
	struct gpuvm_kernel *k = &cs->kernel;
	memset(k, 0, sizeof *k);
	snprintf(k->name, sizeof k->name, "tlb_chase_%zu", i);
	k->grid[0] = k->grid[1] = k->grid[2] = 1;
	k->block[0] = 1; /* one thread: one warp, one active lane */
	k->block[1] = k->block[2] = 1;
	k->ops = &chase_kernel_ops;
	k->impl = cs;
	k->reads_clock = true; /* chase_warp_next times hops with clock_cycles */
	k->pin = cs->cur->pin;
	k->pin_sm = cs->cur->sm;
	op->kind = GPUVM_RUN_KERNEL;
	op->kernel = k;
	return 0;
}

static const struct gpuvm_source_ops chase_source_ops = {
	.kind = "tlb-probe",
	.next_op = chase_next_op,
};

static int simulate(struct gpuvm_probe_backend *b, struct chase_src *cs, struct gpuvm_error *err)
{
	struct gpuvm_source src = {.ops = &chase_source_ops, .impl = cs};
	struct gpuvm_stats st;
	int rc = gpuvm_simulate(cs->cfg, &src, NULL, &st, err);
	gpuvm_stats_release(&st);
	(void)b;
	return rc;
}

static int sim_chase(struct gpuvm_probe_backend *b, uint64_t stride, uint32_t hops, double *latency,
		     struct gpuvm_error *err)
{
	struct chase_src *cs = calloc(1, sizeof *cs);
	if (!cs)
		return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	cs->cfg = b->impl;
	cs->region_bytes = stride * hops;
	cs->stage[0] = (struct chase_stage){CHASE_BASE, stride, hops, 2, 0, false};
	cs->n_stages = 1;
	cs->timed_of_stage[0] = 0;
	int rc = simulate(b, cs, err);
	if (!rc)
		*latency = (cs->t1[0] - cs->t0[0]) / hops;
	free(cs);
	return rc;
}

/* Up to GPUVM_MAX_SMS + 1 chases per simulation, one kernel each. */
static int sim_chase_batch(struct gpuvm_probe_backend *b, uint64_t stride, const uint32_t *hops,
			   size_t n, double *latency, struct gpuvm_error *err)
{
	const size_t per_run = GPUVM_MAX_SMS + 1;
	for (size_t first = 0; first < n; first += per_run) {
		size_t m = n - first < per_run ? n - first : per_run;
		struct chase_src *cs = calloc(1, sizeof *cs);
		if (!cs)
			return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
		cs->cfg = b->impl;
		uint32_t most = 0;
		for (size_t j = 0; j < m; j++) {
			if (hops[first + j] > most)
				most = hops[first + j];
			cs->stage[j] = (struct chase_stage){CHASE_BASE, stride, hops[first + j], 2, 0, false};
			cs->timed_of_stage[j] = (int)j;
		}
		cs->n_stages = m;
		cs->region_bytes = stride * most;
		int rc = simulate(b, cs, err);
		if (!rc)
			for (size_t j = 0; j < m; j++)
				latency[first + j] = (cs->t1[j] - cs->t0[j]) / hops[first + j];
		free(cs);
		if (rc)
			return -1;
	}
	return 0;
}

static int sim_share(struct gpuvm_probe_backend *b, uint64_t stride, uint32_t hops, uint32_t sm_fill,
		     const uint32_t *disrupt, size_t n, double *latency, struct gpuvm_error *err)
{
	if (n > GPUVM_MAX_SMS + 1)
		return gpuvm_fail(err, "probe", 0, NULL, "too many sharing cells in one run");
	struct chase_src *cs = calloc(1, sizeof *cs);
	if (!cs)
		return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	cs->cfg = b->impl;
	cs->region_bytes = stride * hops;
	uint64_t a = CHASE_BASE, bb = CHASE_BASE + cs->region_bytes;
	/* One simulation for the whole row: each cell's fill makes SM i's
	 * pages the most recent in every instance it uses, so what earlier
	 * cells left behind cannot change the measure stage. The measure
	 * stage of cell j is the same chase as a fill, so it is cell j+1's
	 * fill (a second identical pass would leave LRU TLBs and caches as
	 * they are: the pages that fit stay, those that thrash still do). */
	for (size_t j = 0; j < n; j++) {
		if (j == 0) {
			cs->timed_of_stage[cs->n_stages] = -1;
			cs->stage[cs->n_stages++] = (struct chase_stage){a, stride, hops, 1, sm_fill, true};
		}
		if (disrupt[j] != GPUVM_PROBE_NO_SM) {
			cs->timed_of_stage[cs->n_stages] = -1;
			cs->stage[cs->n_stages++] = (struct chase_stage){bb, stride, hops, 1, disrupt[j], true};
		}
		cs->timed_of_stage[cs->n_stages] = (int)j;
		cs->stage[cs->n_stages++] = (struct chase_stage){a, stride, hops, 1, sm_fill, true};
	}
	int rc = simulate(b, cs, err);
	if (!rc)
		for (size_t j = 0; j < n; j++)
			latency[j] = (cs->t1[j] - cs->t0[j]) / hops;
	free(cs);
	return rc;
}

static const struct gpuvm_probe_backend_ops sim_ops = {
	.chase = sim_chase,
	.chase_batch = sim_chase_batch,
	.share = sim_share,
};

int gpuvm_probe_backend_sim(struct gpuvm_probe_backend *b, const struct gpuvm_config *cfg,
			    struct gpuvm_error *err)
{
	(void)err;
	memset(b, 0, sizeof *b);
	b->ops = &sim_ops;
	b->impl = (void *)cfg;
	snprintf(b->target, sizeof b->target, "sim:%s", cfg->name);
	snprintf(b->unit, sizeof b->unit, "cycles");
	b->sms = cfg->sms;
	/* The chase goes to the L2 data cache like ld.global.cg; the grid stays
	 * within it so each step is a TLB step (seeds/000 3.2). */
	b->data_cache_lines = cfg->l2_bytes / cfg->l2_line_bytes;
	b->min_stride_bytes = 2048;
	b->max_stride_bytes = 128ull << 20;
	/* The model is exact; a cycle is far below the smallest step the E2
	 * hierarchies make (half of an 8-cycle miss). */
	b->noise = 1.0;
	b->deterministic = true;
	return 0;
}
