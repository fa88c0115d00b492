/* core.window on threads: the barrier with its memory side split by
 * memory partition (sm.h holds the contract; docs/parallel.md, "The
 * memory side by partition"). A window's memory instructions, in key
 * order, pass three phases:
 *
 *  1. the SM side, on this thread: every instruction translated (the
 *     plan, sm_plan_memory), then each one's sectors through its SM's L1
 *     and L2 port, each sector that leaves the SM appended to the queue
 *     of the memory partition its address maps to (or the host link's);
 *  2. the memory side, one task per queue on the fork-join pool: each
 *     partition's L2 and DRAM serve its queue in order, the link its own;
 *  3. the results, on this thread, in key order: each instruction's
 *     sectors' times, the L1 fills, and the warps' marks (sm_deliver).
 *
 * Each component sees the requests it saw on one thread, in the same
 * order: the L1s and ports in phase 1, a partition only its own requests
 * (memsys.h: a request touches only its partition; a load's DRAM runs are
 * gathered per partition), the link its own. What phase 1 cannot know
 * yet, a fill's time, it leaves in the L1 slot as a mark naming the
 * request (minus its index plus one, as a window's registers are marked),
 * and an L1 hit on a marked slot takes the request's time in phase 3. So
 * the results are identical to one thread's by construction, at any
 * thread count (tests/test_window.c compares them). Each task counts into
 * a statistics block of its own, added in queue order afterwards. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache_line.h"
#include "core/vec.h"
#include "par/fork_join.h"
#include "par/window_profile.h"
#include "sm/sm.h"
#include "sm/sm_sector.h"

enum split_op {
	SPLIT_MEM,  /* memsys_access */
	SPLIT_HELD, /* a store whose write-back wait holds it (l2.writeback_stall) */
	SPLIT_RUN,  /* a sector of a load whose misses gather into DRAM runs */
	SPLIT_LINK, /* a zero-copy sector */
	SPLIT_LINK_ATOMIC,
};

#define SPLIT_NONE UINT32_MAX

/* One sector leaving the SM side (phase 1), served in phase 2. */
struct split_req {
	uint64_t addr;
	uint64_t local; /* addr in its partition's own addresses (memsys_route) */
	double t;       /* when it leaves the SM (after its L2 port) */
	double result;  /* when its data is back (a run's misses: in its first) */
	double wb_wait; /* SPLIT_HELD: the write-back wait that held it */
	uint64_t instr; /* the link's name for its instruction */
	uint32_t part;  /* its plan part: a partition's run ends with it */
	uint32_t lanes; /* SPLIT_LINK_ATOMIC: the lanes on the sector */
	uint8_t op, mem_op, write, fetch;
};

/* A sector's time in phase 3: later(c, result of request k (+ the L2
 * atomic unit's cycles)), k = SPLIT_NONE: c alone. */
enum { TERM_ATOMIC = 1, TERM_ACK = 2, TERM_HELD = 4 };
struct split_term {
	double c;
	uint32_t k;
	uint32_t flags;
};

/* An L1 slot whose fill is request k's data. */
struct split_fill {
	double *slot;
	uint32_t k;
};

struct split_queue {
	uint32_t *idx;
	size_t n, cap;
	/* the counters the memory side writes, this task's (memsys.stats) */
	struct gpuvm_stats counts;
};

struct sm_split {
	struct sm_layer *sl;
	struct fork_join *pool;
	uint32_t n_queues; /* the memory partitions, then the link */
	struct split_queue *q;
	struct split_req *req;
	size_t n_req, cap_req;
	struct split_term *term;
	size_t n_term, cap_term;
	size_t *part_term; /* [plan part]: its terms end */
	size_t cap_part_term;
	struct split_fill *fill;
	size_t n_fill, cap_fill;
	size_t *part_end; /* [instruction]: its parts end */
	size_t cap_part_end;
	struct sm_plan plan;
	bool profile;      /* gpuvm bench --profile --window: tasks timed */
	double *busy_s;    /* [n_queues]: the window's task seconds */
};

bool sm_split_fits(const struct sm_layer *sl)
{
	const struct memsys *ms = sl->port.mem;
	return ms && ms->n_parts > 1 && !ms->near_far && sm_barrier_stages_apart(sl);
}

void sm_split_free(struct sm_layer *sl)
{
	struct sm_split *x = sl->split;
	if (!x)
		return;
	fork_join_free(x->pool);
	for (uint32_t i = 0; x->q && i < x->n_queues; i++)
		free(x->q[i].idx);
	free(x->q);
	free(x->busy_s);
	free(x->req);
	free(x->term);
	free(x->part_term);
	free(x->fill);
	free(x->part_end);
	free(x->plan.sec);
	free(x->plan.part);
	free(x);
	sl->split = NULL;
}

static struct sm_split *split_new(struct sm_layer *sl)
{
	struct sm_split *x = calloc(1, sizeof *x);
	if (!x)
		return NULL;
	x->sl = sl;
	x->n_queues = sl->port.mem->n_parts + 1;
	x->q = gpuvm_calloc_lines(x->n_queues, sizeof *x->q);
	x->pool = fork_join_new(sl->threads, x->n_queues);
	x->busy_s = calloc(x->n_queues, sizeof *x->busy_s);
	if (!x->q || !x->pool || !x->busy_s) {
		fork_join_free(x->pool);
		free(x->busy_s);
		free(x->q);
		free(x);
		return NULL;
	}
	return x;
}

/* Room for the window's n instructions before phase 1 writes anything
 * (phase 1 changes the L1s, so it must not stop half-way). */
static int split_reserve(struct sm_split *x, const struct sm_layer *sl, size_t n)
{
	size_t parts, secs = sm_plan_room(sl, n, &parts);
	/* l1.fill = line: a miss requests its line's other sectors too */
	size_t per_sector = sl->l1_fill_line ? (size_t)1 << (sl->l1.line_shift - sl->l1.sector_shift) : 1;
	size_t reqs = secs * per_sector;
	if (VEC_RESERVE(x->plan.sec, x->plan.cap_sec, secs) ||
	    VEC_RESERVE(x->plan.part, x->plan.cap_part, parts) ||
	    VEC_RESERVE(x->part_end, x->cap_part_end, n) ||
	    VEC_RESERVE(x->part_term, x->cap_part_term, parts) ||
	    VEC_RESERVE(x->term, x->cap_term, secs) || VEC_RESERVE(x->req, x->cap_req, reqs) ||
	    VEC_RESERVE(x->fill, x->cap_fill, reqs))
		return -1;
	for (uint32_t i = 0; i < x->n_queues; i++)
		if (VEC_RESERVE(x->q[i].idx, x->q[i].cap, reqs))
			return -1;
	return 0;
}

/* ---- phase 1: the SM side ---------------------------------------------- */

/* A request leaving the SM side: appended to its queue; its index. */
static uint32_t add_req(struct sm_split *x, enum split_op op, uint64_t sa, enum gpuvm_mem_op mem_op,
			double t, uint32_t part, uint64_t instr)
{
	uint32_t k = (uint32_t)x->n_req++;
	struct split_req *r = &x->req[k];
	r->addr = sa;
	r->t = t;
	r->result = -INFINITY;
	r->instr = instr;
	r->part = part;
	r->op = (uint8_t)op;
	r->mem_op = (uint8_t)mem_op;
	r->write = mem_op != GPUVM_OP_LOAD;
	r->fetch = mem_op != GPUVM_OP_STORE;
	uint32_t qi = x->n_queues - 1;
	if (op != SPLIT_LINK && op != SPLIT_LINK_ATOMIC) {
		const struct memsys *ms = x->sl->port.mem;
		qi = (uint32_t)(memsys_route(ms, sa, &r->local) - ms->part);
	}
	struct split_queue *q = &x->q[qi];
	q->idx[q->n++] = k;
	return k;
}

/* access_sector's SM side: the L2 port, then the request (no managed
 * memory here: sm_split_fits). */
static struct split_term p1_access(struct sm_split *x, struct sm_layer *sl, uint64_t sa,
				   enum gpuvm_mem_op op, enum gpuvm_alloc_kind kind, double tx,
				   uint32_t sm, uint32_t part, uint64_t instr)
{
	if (op != GPUVM_OP_STORE)
		tx = l2_port(sl, sm, tx);
	enum split_op sop = SPLIT_MEM;
	uint32_t flags = 0;
	if (kind == GPUVM_ALLOC_HOST_PINNED) {
		sop = SPLIT_LINK;
		tx += sl->crossbar_cycles;
	} else if (op == GPUVM_OP_STORE && sl->store_held) {
		sop = SPLIT_HELD;
		flags = TERM_HELD;
	}
	return (struct split_term){-INFINITY, add_req(x, sop, sa, op, tx, part, instr), flags};
}

/* A fill's slot: marked with its request until phase 3 writes the time. */
static void mark_fill(struct sm_split *x, double *slot, uint32_t k)
{
	*slot = -(double)k - 1;
	x->fill[x->n_fill++] = (struct split_fill){slot, k};
}

/* A line's other sectors (l1_fill_line_others): queued, their slots
 * marked. */
struct line_fill_later {
	struct sm_split *x;
	struct sm_layer *sl;
	enum gpuvm_mem_op op;
	enum gpuvm_alloc_kind kind;
	double tx;
	uint32_t sm, part;
	uint64_t instr;
};
static void fill_later(void *ctx, uint64_t addr, double *slot)
{
	struct line_fill_later *f = ctx;
	mark_fill(f->x, slot,
		  p1_access(f->x, f->sl, addr, f->op, f->kind, f->tx, f->sm, f->part, f->instr).k);
}

/* l1_sector's SM side (sm_sector.h), step for step, with the request
 * in place of access_sector's answer and its fills marked. */
static struct split_term p1_l1(struct sm_split *x, struct sm_layer *sl, uint64_t sa,
			       enum gpuvm_mem_op op, enum gpuvm_alloc_kind kind, double tx, uint32_t sm,
			       enum l1_mode mode, uint32_t part, uint64_t instr)
{
	double ready, *slot;
	uint32_t wb;
	bool write = op == GPUVM_OP_STORE;
	if (write && mode != L1_LOCAL) {
		l1_cache_write_through(&sl->l1, sm, sa, tx);
		return p1_access(x, sl, sa, op, kind, tx, sm, part, instr);
	}
	enum l1_result r = l1_cache_access(&sl->l1, sm, sa, true, mode == L1_EVICT_FIRST, write,
					   &ready, &slot, &wb);
	if (wb)
		sl->stats->l1_writeback_sectors += wb;
	double hit = tx + sl->l1_hit;
	if (r == L1_HIT) {
		sl->stats->l1_sector_hits++;
		if (ready < 0) /* a fill of this window: its request's time */
			return (struct split_term){hit, (uint32_t)(-ready) - 1, 0};
		return (struct split_term){later(ready, hit), SPLIT_NONE, 0};
	}
	sl->stats->l1_sector_misses++;
	if (write) {
		*slot = hit;
		return (struct split_term){hit, SPLIT_NONE, 0};
	}
	struct split_term d = p1_access(x, sl, sa, op, kind, tx, sm, part, instr);
	if (slot)
		mark_fill(x, slot, d.k);
	if (sl->l1_fill_line) {
		struct line_fill_later f = {x, sl, op, kind, tx, sm, part, instr};
		l1_fill_line_others(sl, sm, sa, mode, fill_later, &f);
	}
	return d;
}

/* serve_sector's SM side: the sector's term appended. */
static void p1_sector(struct sm_split *x, struct sm_layer *sl, uint32_t sm,
		      const struct gpuvm_warp_item *it, uint64_t sa, enum l1_mode l1mode, double tx,
		      uint32_t part, uint64_t instr)
{
	enum gpuvm_alloc_kind kind = alloc_table_kind(sl->port.allocs, sa);
	struct split_term t;
	if (__builtin_expect(it->op == GPUVM_OP_ATOMIC, 0)) {
		if (kind == GPUVM_ALLOC_HOST_PINNED) {
			uint64_t sec = sa >> sl->co.sector_shift;
			uint32_t lanes = 0;
			for (uint32_t m = it->active_mask; m; m &= m - 1)
				lanes += it->addr[__builtin_ctz(m)] >> sl->co.sector_shift == sec;
			uint32_t k = add_req(x, SPLIT_LINK_ATOMIC, sa, it->op, tx + sl->crossbar_cycles,
					     part, instr);
			x->req[k].lanes = lanes;
			t = (struct split_term){-INFINITY, k, 0};
		} else {
			t = p1_access(x, sl, sa, it->op, kind, tx, sm, part, instr);
			t.flags |= TERM_ATOMIC;
		}
	} else {
		t = l1mode == L1_BYPASS || kind != GPUVM_ALLOC_DEVICE
			    ? p1_access(x, sl, sa, it->op, kind, tx, sm, part, instr)
			    : p1_l1(x, sl, sa, it->op, kind, tx, sm, l1mode, part, instr);
		if (sl->exit_waits_stores && it->op == GPUVM_OP_STORE &&
		    kind != GPUVM_ALLOC_HOST_PINNED)
			t.flags |= TERM_ACK;
	}
	x->term[x->n_term++] = t;
}

/* serve_part's SM side (sm_serve.c): one plan part's sectors. */
static void p1_part(struct sm_split *x, struct sm_layer *sl, uint32_t sm,
		    const struct gpuvm_warp_item *it, uint32_t part)
{
	const struct sm_plan_part *pp = &x->plan.part[part];
	const struct sm_plan_sector *sec = x->plan.sec + pp->first, *end = sec + pp->n;
	for (; sec < end; sec++) {
		if (pp->runs) {
			if (alloc_table_kind(sl->port.allocs, sec->addr) == GPUVM_ALLOC_DEVICE) {
				uint32_t k = add_req(x, SPLIT_RUN, sec->addr, GPUVM_OP_LOAD,
						     l2_port(sl, sm, sec->tx), part, pp->instr);
				x->term[x->n_term++] = (struct split_term){-INFINITY, k, 0};
			} else {
				p1_sector(x, sl, sm, it, sec->addr, L1_BYPASS, sec->tx, part, pp->instr);
			}
		} else {
			p1_sector(x, sl, sm, it, sec->addr, (enum l1_mode)pp->l1mode, sec->tx, part,
				  pp->instr);
		}
	}
	x->part_term[part] = x->n_term;
}

/* ---- phase 2: the memory side, a task per queue ------------------------- */

/* Partition q's open run sent; its time to the request that opened it. */
static void flush_run(struct memsys *ms, struct mem_partition *p, struct split_req *req,
		      uint32_t *owner)
{
	double d = memsys_flush_part_run(ms, p);
	if (*owner != SPLIT_NONE)
		req[*owner].result = later(req[*owner].result, d);
	*owner = SPLIT_NONE;
}

static void serve_queue(void *ctx, uint32_t qi)
{
	struct sm_split *x = ctx;
	struct split_queue *q = &x->q[qi];
	double t0 = x->profile ? window_profile_now() : 0;
	if (qi == x->n_queues - 1) { /* the host link */
		struct host_link *link = x->sl->port.link;
		for (size_t i = 0; i < q->n; i++) {
			struct split_req *r = &x->req[q->idx[i]];
			struct link_req lr = {.sector_addr = r->addr, .op = r->mem_op,
					      .instr = r->instr, .t = r->t};
			r->result = r->op == SPLIT_LINK_ATOMIC
					    ? link_zero_copy_atomics(link, &lr, r->lanes)
					    : link_zero_copy(link, &lr);
		}
	} else {
		/* the memory side as this partition's task sees it: its own
		 * counters and write-back wait */
		struct memsys ms = *x->sl->port.mem;
		ms.stats = &q->counts;
		struct mem_partition *p = &ms.part[qi];
		uint32_t owner = SPLIT_NONE, part = UINT32_MAX;
		for (size_t i = 0; i < q->n; i++) {
			uint32_t k = q->idx[i];
			struct split_req *r = &x->req[k];
			if (r->part != part) { /* a load's runs end with it */
				flush_run(&ms, p, x->req, &owner);
				part = r->part;
			}
			switch ((enum split_op)r->op) {
			case SPLIT_RUN: {
				double flushed;
				r->result = memsys_run_sector(&ms, p, r->addr, r->local, r->t, &flushed);
				if (owner != SPLIT_NONE)
					x->req[owner].result = later(x->req[owner].result, flushed);
				if (p->run.n == 1 && r->result == -INFINITY)
					owner = k; /* it opened the run */
				break;
			}
			case SPLIT_HELD:
				ms.writeback_wait = 0;
				r->result = memsys_access_local(&ms, p, r->local, true, false, r->t);
				r->wb_wait = ms.writeback_wait;
				break;
			default:
				r->result = memsys_access_local(&ms, p, r->local, r->write, r->fetch, r->t);
				break;
			}
		}
		flush_run(&ms, p, x->req, &owner);
	}
	if (x->profile) /* each task its own element */
		x->busy_s[qi] = window_profile_now() - t0;
}

/* ---- phase 3: the results ------------------------------------------------ */

/* Plan part j's result, as serve_part gives it; *ack its store acks. */
static double part_result(struct sm_split *x, struct sm_layer *sl, const struct gpuvm_warp_item *it,
			  uint32_t j, double *ack)
{
	const struct sm_plan_part *pp = &x->plan.part[j];
	double done = pp->start + 1, left = 0;
	for (size_t i = j ? x->part_term[j - 1] : 0; i < x->part_term[j]; i++) {
		const struct split_term *t = &x->term[i];
		double v = t->c;
		if (t->k != SPLIT_NONE) {
			const struct split_req *r = &x->req[t->k];
			v = later(v, t->flags & TERM_ATOMIC ? r->result + sl->l2_atomic_cycles
							    : r->result);
			if ((t->flags & TERM_HELD) && r->wb_wait > 0)
				left = later(left, r->t + r->wb_wait);
		}
		done = later(v, done);
		if (t->flags & TERM_ACK)
			*ack = later(*ack, v);
	}
	sl->store_left = left;
	return instruction_done(sl, it->op, pp->start, pp->stage, done);
}

bool sm_window_apply_split(struct sm_layer *sl, size_t n, double window_end)
{
	if (!sl->split && !(sl->split = split_new(sl)))
		return false;
	struct sm_split *x = sl->split;
	if (split_reserve(x, sl, n))
		return false;
	x->n_req = x->n_term = x->n_fill = 0;
	x->plan.n_sec = x->plan.n_part = 0;
	x->plan.counts = sl->stats;
	for (uint32_t i = 0; i < x->n_queues; i++)
		x->q[i].n = 0;
	x->profile = window_profile_enabled();
	uint64_t units0 = sl->stats->xlat_units;
	const struct sm_req_key *key = sl->req_key;
	/* every translation first, then every instruction's data side: the
	 * two share no state (sm_split_fits: the stages are apart, as the
	 * two-stage barrier runs them), and apart the profile times each */
	double t0 = x->profile ? window_profile_now() : 0;
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = key[i].r;
		sm_plan_memory(sl, &sl->warp[r->wslot], r->wslot, &r->item, r->start, &x->plan);
		x->part_end[i] = x->plan.n_part;
	}
	double t1 = x->profile ? window_profile_now() : 0;
	for (size_t i = 0, j = 0; i < n; i++) {
		const struct sm_request *r = key[i].r;
		for (; j < x->part_end[i]; j++)
			p1_part(x, sl, r->sm, &r->item, (uint32_t)j);
	}
	sl->window_units_per_request = (double)(sl->stats->xlat_units - units0) / (double)n;
	double t2 = x->profile ? window_profile_now() : 0;
	fork_join_run(x->pool, serve_queue, x);
	double t3 = x->profile ? window_profile_now() : 0;
	if (x->profile)
		window_profile_add_memory(x->busy_s, x->n_queues);
	struct gpuvm_stats *s = sl->stats;
	for (uint32_t i = 0; i + 1 < x->n_queues; i++) {
		struct gpuvm_stats *c = &x->q[i].counts;
		s->l2_sector_hits += c->l2_sector_hits;
		s->l2_sector_misses += c->l2_sector_misses;
		s->dram_bytes += c->dram_bytes;
		c->l2_sector_hits = c->l2_sector_misses = c->dram_bytes = 0;
	}
	for (size_t i = 0; i < x->n_fill; i++) {
		const struct split_fill *f = &x->fill[i];
		if (*f->slot == -(double)f->k - 1)
			*f->slot = x->req[f->k].result;
	}
	size_t first = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = key[i].r;
		double ack = 0, done = r->start + 1;
		for (size_t j = first; j < x->part_end[i]; j++) {
			double d = part_result(x, sl, &r->item, (uint32_t)j, &ack);
			done = r->item.space == GPUVM_SPACE_LOCAL ? later(d, done) : d;
		}
		first = x->part_end[i];
		if (r->item.op != GPUVM_OP_STORE && done < window_end)
			sl->window_early++;
		sm_deliver(sl, &sl->warp[r->wslot], r->wslot, &r->item, r->seq, done, ack);
	}
	if (x->profile)
		window_profile_add_sm_side(t1 - t0, t2 - t1, window_profile_now() - t3);
	return true;
}
