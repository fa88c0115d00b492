/* core.window on threads: the barrier with its memory side split by
 * memory partition and its SMs' data side by SM group (sm.h holds the
 * contract; docs/parallel.md, "The memory side by partition"). A
 * window's memory instructions, in key order, pass three phases:
 *
 *  1. the SM side: every instruction translated (the plan,
 *     sm_plan_memory) on this thread; then, one task per SM group (the
 *     SMs of a GPC) on the fork-join pool, each of the group's
 *     instructions' sectors through its SM's L1 and L2 port, each sector
 *     that leaves the SM appended to the group's list for the memory
 *     partition its address maps to (or the host link's);
 *  2. the memory side, one task per queue on the pool: each partition's
 *     L2 and DRAM serve its requests, the groups' lists merged in key
 *     order, the link its own;
 *  3. the results, on this thread, in key order: each instruction's
 *     sectors' times, the L1 fills, and the warps' marks (sm_deliver).
 *
 * Each component sees the requests it saw on one thread, in the same
 * order: an SM's L1 and port its own instructions' in phase 1 (the
 * translations touch neither: the stages are apart, sm_split_fits), a
 * partition only its own requests (memsys.h: a request touches only its
 * partition; a load's DRAM runs are gathered per partition), the link
 * its own. What phase 1 cannot know yet, a fill's time, it leaves in the
 * L1 slot as a mark naming the request (minus its name plus one, as a
 * window's registers are marked), and an L1 hit on a marked slot takes
 * the request's time in phase 3. So the results are identical to one
 * thread's by construction, at any thread count (tests/test_window_split.c
 * compares them). Each task counts into a statistics block of its own,
 * added in task order afterwards. */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cache_line.h"
#include "core/vec.h"
#include "gpuvm/counters.h"
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
	uint32_t lanes; /* SPLIT_LINK_ATOMIC: the lanes on the sector */
	/* an atomic's instruction when its lanes queue at their addresses
	 * (l2.atomic_address_cycles), else NULL */
	const struct gpuvm_warp_item *atom;
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

/* A request's name (split_term.k, the L1 marks): its SM group's index
 * above SPLIT_GROUP_SHIFT bits, its index in the group's requests below. */
#define SPLIT_GROUP_SHIFT 26
#define SPLIT_GROUPS_MAX 64

/* A request in its queue's list: its index in the group's requests and
 * its plan part (the merge reads the list alone). */
struct split_ref {
	uint32_t k, part;
};
struct split_list {
	struct split_ref *idx;
	size_t n, cap;
};

/* A memory-side task's queue: its requests, group by group (each group's
 * list in key order; phase 2 merges them by plan part). */
struct split_queue {
	/* the counters the memory side writes, this task's (memsys.stats) */
	struct gpuvm_stats counts;
};

/* One SM group's part of phase 1 (the SMs of a GPC, as the window's SM
 * partitions): its instructions' sectors through their SMs' L1s and
 * ports, into requests, terms and fills of its own, each request also in
 * its queue's list. Nothing here is another group's: the L1 instances,
 * the ports and the recency clocks are per SM, the allocation lookup's
 * memo is the group's copy. */
struct split_group {
	struct sm_split *x;
	uint32_t id;
	struct split_req *req;
	size_t n_req, cap_req;
	struct split_term *term;
	size_t n_term, cap_term;
	struct split_fill *fill;
	size_t n_fill, cap_fill;
	struct split_list *list; /* [n_queues] */
	uint32_t *inst;          /* the window's instructions of its SMs (key positions) */
	size_t n_inst, cap_inst;
	/* the most sectors they can plan (sm_plan_sectors_max, summed) */
	size_t room_secs;
	struct alloc_table allocs;
	struct gpuvm_stats counts; /* its L1 counters */
};

struct sm_split {
	struct sm_layer *sl;
	struct fork_join *pool;    /* max(n_queues, n_groups) tasks a round */
	uint32_t n_queues;         /* the memory partitions, then the link */
	struct split_queue *q;
	uint32_t n_groups;
	struct split_group *g;
	uint32_t *group_of_sm;     /* [sms] */
	size_t *part_end;          /* [instruction]: its parts end */
	size_t cap_part_end;
	/* [plan part]: its group and its terms [begin, end) there */
	struct split_part_terms {
		uint32_t group;
		size_t begin, end;
	} *part_terms;
	size_t cap_part_terms;
	const struct sm_req_key *key; /* the window's instructions in key order */
	struct sm_plan plan;
	bool profile;      /* gpuvm bench --profile --window: tasks timed */
	double *busy_s;    /* [n_queues]: the window's memory tasks' seconds */
	double *group_s;   /* [n_groups]: the window's SM groups' seconds */
};

static inline struct split_req *req_of(struct sm_split *x, uint32_t k)
{
	return &x->g[k >> SPLIT_GROUP_SHIFT].req[k & ((1u << SPLIT_GROUP_SHIFT) - 1)];
}

bool sm_split_fits(const struct sm_layer *sl)
{
	const struct memsys *ms = sl->port.mem;
	/* the store direction's holds (l2.sm_port_write_bytes_per_cycle,
	 * l2.slice_write_bytes_per_cycle) are met at issue, which phase 1
	 * cannot know: those parts run on the serial path */
	/* peer access (sl->port.peer) is served on this thread only */
	return ms && ms->n_parts > 1 && !ms->near_far && !sl->port.peer && sm_barrier_stages_apart(sl) &&
	       sl->l2_store_port_cycles == 0 && ms->l2_slice_write_cycles == 0;
}

void sm_split_free(struct sm_layer *sl)
{
	struct sm_split *x = sl->split;
	if (!x)
		return;
	fork_join_free(x->pool);
	for (uint32_t i = 0; x->g && i < x->n_groups; i++) {
		struct split_group *g = &x->g[i];
		for (uint32_t q = 0; g->list && q < x->n_queues; q++)
			free(g->list[q].idx);
		free(g->list);
		free(g->req);
		free(g->term);
		free(g->fill);
		free(g->inst);
	}
	free(x->g);
	free(x->group_of_sm);
	free(x->q);
	free(x->busy_s);
	free(x->group_s);
	free(x->part_terms);
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
	sl->split = x; /* sm_split_free frees what was made */
	x->sl = sl;
	x->n_queues = sl->port.mem->n_parts + 1;
	/* the SM groups: the window's SM partitions (src/system/partition.c),
	 * gpu.gpcs contiguous ranges of SMs */
	uint32_t sms = sl->cfg->sms, n = sl->cfg->gpcs;
	n = n < 1 ? 1 : n > sms ? sms : n;
	x->n_groups = n > SPLIT_GROUPS_MAX ? SPLIT_GROUPS_MAX : n;
	x->q = gpuvm_calloc_lines(x->n_queues, sizeof *x->q);
	x->g = gpuvm_calloc_lines(x->n_groups, sizeof *x->g);
	x->group_of_sm = calloc(sms, sizeof *x->group_of_sm);
	x->busy_s = calloc(x->n_queues, sizeof *x->busy_s);
	x->group_s = calloc(x->n_groups, sizeof *x->group_s);
	uint32_t tasks = x->n_queues > x->n_groups ? x->n_queues : x->n_groups;
	x->pool = fork_join_new(sl->threads, tasks);
	if (!x->q || !x->g || !x->group_of_sm || !x->busy_s || !x->group_s || !x->pool) {
		sm_split_free(sl);
		return NULL;
	}
	for (uint32_t s = 0; s < sms; s++)
		x->group_of_sm[s] = (uint32_t)((uint64_t)s * x->n_groups / sms);
	for (uint32_t i = 0; i < x->n_groups; i++) {
		x->g[i].x = x;
		x->g[i].id = i;
		x->g[i].list = calloc(x->n_queues, sizeof *x->g[i].list);
		if (!x->g[i].list) {
			sm_split_free(sl);
			return NULL;
		}
	}
	return x;
}

/* The room a group's requests take for room_secs sectors: a request
 * each (l1.fill = line: one for each sector of its line). */
static size_t group_reqs_room(const struct sm_layer *sl, size_t room_secs)
{
	return sl->l1_fill_line ? room_secs << (sl->l1.line_shift - sl->l1.sector_shift) : room_secs;
}

/* The window's n instructions (s->req_key) to their SM groups, and room
 * for all of them, before phase 1 plans anything (phase 1 changes the L1s
 * and TLBs, so it must not stop half-way): the plan's for every
 * instruction, each group's for its own instructions' sectors. */
static int split_reserve(struct sm_split *x, const struct sm_layer *sl, size_t n)
{
	const struct sm_req_key *key = sl->req_key;
	for (uint32_t gi = 0; gi < x->n_groups; gi++) {
		struct split_group *g = &x->g[gi];
		g->n_inst = g->room_secs = 0;
		if (VEC_RESERVE(g->inst, g->cap_inst, n))
			return -1;
	}
	size_t secs = 0, parts = 0;
	for (size_t i = 0; i < n; i++) {
		size_t pa, s = sm_plan_sectors_max(sl, &key[i].r->item, &pa);
		struct split_group *g = &x->g[x->group_of_sm[key[i].r->sm]];
		g->inst[g->n_inst++] = (uint32_t)i;
		g->room_secs += s;
		secs += s;
		parts += pa;
	}
	if (sm_plan_reserve(&x->plan, secs, parts) ||
	    VEC_RESERVE(x->part_end, x->cap_part_end, n) ||
	    VEC_RESERVE(x->part_terms, x->cap_part_terms, parts))
		return -1;
	for (uint32_t gi = 0; gi < x->n_groups; gi++) {
		struct split_group *g = &x->g[gi];
		size_t reqs = group_reqs_room(sl, g->room_secs);
		if (reqs >= (size_t)1 << SPLIT_GROUP_SHIFT ||
		    VEC_RESERVE(g->term, g->cap_term, g->room_secs) ||
		    VEC_RESERVE(g->req, g->cap_req, reqs) || VEC_RESERVE(g->fill, g->cap_fill, reqs))
			return -1;
		for (uint32_t q = 0; q < x->n_queues; q++)
			if (VEC_RESERVE(g->list[q].idx, g->list[q].cap, reqs))
				return -1;
	}
	return 0;
}

/* ---- phase 1: the SM side ---------------------------------------------- */

/* A request leaving the SM side: appended to its queue; its name. */
static uint32_t add_req(struct split_group *g, enum split_op op, uint64_t sa,
			enum gpuvm_mem_op mem_op, double t, uint32_t part, uint64_t instr)
{
	uint32_t k = (uint32_t)g->n_req++;
	struct split_req *r = &g->req[k];
	r->addr = sa;
	r->t = t;
	r->result = -INFINITY;
	r->instr = instr;
	r->atom = NULL;
	r->op = (uint8_t)op;
	r->mem_op = (uint8_t)mem_op;
	r->write = mem_op != GPUVM_OP_LOAD;
	r->fetch = mem_op != GPUVM_OP_STORE;
	struct sm_split *x = g->x;
	uint32_t qi = x->n_queues - 1;
	if (op != SPLIT_LINK && op != SPLIT_LINK_ATOMIC) {
		const struct memsys *ms = x->sl->port.mem;
		qi = (uint32_t)(memsys_route(ms, sa, &r->local) - ms->part);
	}
	struct split_list *l = &g->list[qi];
	l->idx[l->n++] = (struct split_ref){k, part};
	return g->id << SPLIT_GROUP_SHIFT | k;
}

/* access_sector's SM side: the L2 port, then the request (no managed
 * memory here: sm_split_fits). */
static struct split_term p1_access(struct split_group *g, struct sm_layer *sl, uint64_t sa,
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
	return (struct split_term){-INFINITY, add_req(g, sop, sa, op, tx, part, instr), flags};
}

/* A fill's slot: marked with its request until phase 3 writes the time. */
static void mark_fill(struct split_group *g, double *slot, uint32_t k)
{
	*slot = -(double)k - 1;
	g->fill[g->n_fill++] = (struct split_fill){slot, k};
}

/* A line's other sectors (l1_fill_line_others): queued, their slots
 * marked. */
struct line_fill_later {
	struct split_group *g;
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
	mark_fill(f->g, slot,
		  p1_access(f->g, f->sl, addr, f->op, f->kind, f->tx, f->sm, f->part, f->instr).k);
}

/* l1_sector's SM side (sm_sector.h), step for step, with the request
 * in place of access_sector's answer and its fills marked. */
static struct split_term p1_l1(struct split_group *g, struct sm_layer *sl, uint64_t sa,
			       enum gpuvm_mem_op op, enum gpuvm_alloc_kind kind, double tx, uint32_t sm,
			       enum l1_mode mode, uint32_t part, uint64_t instr)
{
	double ready, *slot;
	uint32_t wb;
	bool write = op == GPUVM_OP_STORE;
	if (write && mode != L1_LOCAL) {
		l1_cache_write_through(&sl->l1, sm, sa, tx);
		return p1_access(g, sl, sa, op, kind, tx, sm, part, instr);
	}
	enum l1_result r = l1_cache_access(&sl->l1, sm, sa, true, mode == L1_EVICT_FIRST, write,
					   &ready, &slot, &wb);
	if (wb)
		g->counts.l1_writeback_sectors += wb;
	double hit = tx + sl->l1_hit;
	if (r == L1_HIT) {
		g->counts.l1_sector_hits++;
		if (ready < 0) /* a fill of this window: its request's time */
			return (struct split_term){hit, (uint32_t)(-ready) - 1, 0};
		return (struct split_term){later(ready, hit), SPLIT_NONE, 0};
	}
	g->counts.l1_sector_misses++;
	if (write) {
		*slot = hit;
		return (struct split_term){hit, SPLIT_NONE, 0};
	}
	struct split_term d = p1_access(g, sl, sa, op, kind, tx, sm, part, instr);
	if (slot)
		mark_fill(g, slot, d.k);
	if (sl->l1_fill_line) {
		struct line_fill_later f = {g, sl, op, kind, tx, sm, part, instr};
		l1_fill_line_others(sl, &g->counts, sm, sa, mode, fill_later, &f);
	}
	return d;
}

/* serve_sector's SM side: the sector's term appended. */
static void p1_sector(struct split_group *g, struct sm_layer *sl, uint32_t sm,
		      const struct gpuvm_warp_item *it, uint64_t sa, enum l1_mode l1mode, double tx,
		      uint32_t part, uint64_t instr)
{
	enum gpuvm_alloc_kind kind = alloc_table_kind(&g->allocs, sa);
	struct split_term t;
	if (__builtin_expect(it->op == GPUVM_OP_ATOMIC, 0)) {
		if (kind == GPUVM_ALLOC_HOST_PINNED) {
			uint64_t sec = sa >> sl->co.sector_shift;
			uint32_t lanes = 0;
			for (uint32_t m = it->active_mask; m; m &= m - 1)
				lanes += it->addr[__builtin_ctz(m)] >> sl->co.sector_shift == sec;
			uint32_t k = add_req(g, SPLIT_LINK_ATOMIC, sa, it->op, tx + sl->crossbar_cycles,
					     part, instr);
			req_of(g->x, k)->lanes = lanes;
			t = (struct split_term){-INFINITY, k, 0};
		} else {
			t = p1_access(g, sl, sa, it->op, kind, tx, sm, part, instr);
			t.flags |= TERM_ATOMIC;
			if (sl->atomic_address_cycles > 0 && kind != GPUVM_ALLOC_PEER)
				req_of(g->x, t.k)->atom = it;
		}
	} else {
		t = l1mode == L1_BYPASS || kind != GPUVM_ALLOC_DEVICE
			    ? p1_access(g, sl, sa, it->op, kind, tx, sm, part, instr)
			    : p1_l1(g, sl, sa, it->op, kind, tx, sm, l1mode, part, instr);
		if (sl->exit_waits_stores && it->op == GPUVM_OP_STORE &&
		    kind != GPUVM_ALLOC_HOST_PINNED)
			t.flags |= TERM_ACK;
	}
	g->term[g->n_term++] = t;
}

/* serve_part's SM side (sm_serve.c): one plan part's sectors. */
static void p1_part(struct split_group *g, struct sm_layer *sl, uint32_t sm,
		    const struct gpuvm_warp_item *it, uint32_t part)
{
	struct sm_split *x = g->x;
	const struct sm_plan_part *pp = &x->plan.part[part];
	const struct sm_plan_sector *sec = x->plan.sec + pp->first, *end = sec + pp->n;
	struct split_part_terms *pt = &x->part_terms[part];
	pt->group = g->id;
	pt->begin = g->n_term;
	for (; sec < end; sec++) {
		if (pp->runs) {
			if (alloc_table_kind(&g->allocs, sec->addr) == GPUVM_ALLOC_DEVICE) {
				uint32_t k = add_req(g, SPLIT_RUN, sec->addr, GPUVM_OP_LOAD,
						     l2_port(sl, sm, sec->tx), part, pp->instr);
				g->term[g->n_term++] = (struct split_term){-INFINITY, k, 0};
			} else {
				p1_sector(g, sl, sm, it, sec->addr, L1_BYPASS, sec->tx, part, pp->instr);
			}
		} else {
			p1_sector(g, sl, sm, it, sec->addr, (enum l1_mode)pp->l1mode, sec->tx, part,
				  pp->instr);
		}
	}
	pt->end = g->n_term;
}

/* Phase 1's data side of SM group gi (a task): its instructions in key
 * order, each plan part's sectors. */
static void p1_group(void *ctx, uint32_t gi)
{
	struct sm_split *x = ctx;
	if (gi >= x->n_groups)
		return;
	struct split_group *g = &x->g[gi];
	double t0 = x->profile ? window_profile_now() : 0;
	struct sm_layer *sl = x->sl;
	for (size_t j = 0; j < g->n_inst; j++) {
		size_t i = g->inst[j];
		const struct sm_request *r = x->key[i].r;
		for (size_t p = i ? x->part_end[i - 1] : 0; p < x->part_end[i]; p++)
			p1_part(g, sl, r->sm, &r->item, (uint32_t)p);
	}
	if (x->profile)
		x->group_s[gi] = window_profile_now() - t0;
}

/* ---- phase 2: the memory side, a task per queue ------------------------- */

/* Queue qi's requests in key order: the groups' lists merged by plan
 * part (a part is one group's, and parts are numbered in key order). */
struct split_merge {
	size_t pos[SPLIT_GROUPS_MAX];
	uint32_t head[SPLIT_GROUPS_MAX]; /* the part at pos, UINT32_MAX: done */
};

static uint32_t list_part(const struct split_group *g, uint32_t qi, size_t pos)
{
	const struct split_list *l = &g->list[qi];
	return pos < l->n ? l->idx[pos].part : UINT32_MAX;
}

static void merge_start(struct split_merge *m, const struct sm_split *x, uint32_t qi)
{
	for (uint32_t gi = 0; gi < x->n_groups; gi++) {
		m->pos[gi] = 0;
		m->head[gi] = list_part(&x->g[gi], qi, 0);
	}
}

/* The next part's requests: *g and its list's [*begin, *end); false
 * when every list is done. */
static bool next_part(struct split_merge *m, struct sm_split *x, uint32_t qi,
		      struct split_group **g, size_t *begin, size_t *end)
{
	uint32_t best = 0;
	for (uint32_t gi = 1; gi < x->n_groups; gi++)
		if (m->head[gi] < m->head[best])
			best = gi;
	uint32_t part = m->head[best];
	if (part == UINT32_MAX)
		return false;
	struct split_group *h = &x->g[best];
	size_t i = m->pos[best];
	*begin = i;
	uint32_t next;
	while ((next = list_part(h, qi, ++i)) == part)
		;
	*end = m->pos[best] = i;
	m->head[best] = next;
	*g = h;
	return true;
}

/* Partition q's open run sent; its time to the request that opened it. */
static void flush_run(struct memsys *ms, struct mem_partition *p, struct split_req **owner)
{
	double d = memsys_flush_part_run(ms, p);
	if (*owner)
		(*owner)->result = later((*owner)->result, d);
	*owner = NULL;
}

static void serve_queue(void *ctx, uint32_t qi)
{
	struct sm_split *x = ctx;
	if (qi >= x->n_queues)
		return; /* the pool's rounds have room for the SM groups too */
	struct split_queue *q = &x->q[qi];
	double t0 = x->profile ? window_profile_now() : 0;
	struct split_merge m;
	merge_start(&m, x, qi);
	size_t begin, end;
	struct split_group *g;
	if (qi == x->n_queues - 1) { /* the host link */
		struct host_link *link = x->sl->port.link;
		while (next_part(&m, x, qi, &g, &begin, &end))
			for (size_t i = begin; i < end; i++) {
				struct split_req *r = &g->req[g->list[qi].idx[i].k];
				struct link_req lr = {.sector_addr = r->addr, .op = r->mem_op,
						      .instr = r->instr, .t = r->t};
				r->result = r->op == SPLIT_LINK_ATOMIC
						    ? link_zero_copy_atomics(link, &lr, r->lanes)
						    : link_zero_copy(link, &lr);
			}
	} else {
		/* the memory side as this partition's task sees it: its own
		 * counters */
		struct memsys ms = *x->sl->port.mem;
		ms.stats = &q->counts;
		struct mem_partition *p = &ms.part[qi];
		struct split_req *owner = NULL;
		while (next_part(&m, x, qi, &g, &begin, &end)) {
			flush_run(&ms, p, &owner); /* a load's runs end with its part */
			for (size_t i = begin; i < end; i++) {
				struct split_req *r = &g->req[g->list[qi].idx[i].k];
				switch ((enum split_op)r->op) {
				case SPLIT_RUN: {
					double flushed;
					r->result = memsys_run_sector(&ms, p, r->addr, r->local, r->t,
								      &flushed);
					if (owner)
						owner->result = later(owner->result, flushed);
					if (p->run.n == 1 && r->result == -INFINITY)
						owner = r; /* it opened the run */
					break;
				}
				case SPLIT_HELD: {
					struct memsys_store_rsp rsp =
						memsys_store_held_local(&ms, p, r->local, r->t);
					r->result = rsp.done;
					r->wb_wait = rsp.held.writeback_cycles;
					break;
				}
				default:
					r->result = memsys_access_local(&ms, p, r->local, r->write, r->fetch,
									r->t);
					/* its lanes' turns at their addresses, as
					 * serve_sector_kind: the addresses are this
					 * partition's, and so is their table */
					if (r->atom)
						r->result += atomic_address_wait(
							x->sl, r->atom, r->addr,
							r->result - x->sl->crossbar_cycles);
					break;
				}
			}
		}
		flush_run(&ms, p, &owner);
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
	const struct split_part_terms *pt = &x->part_terms[j];
	const struct split_group *g = &x->g[pt->group];
	double done = pp->start + 1, left = 0;
	for (size_t i = pt->begin; i < pt->end; i++) {
		const struct split_term *t = &g->term[i];
		double v = t->c;
		if (t->k != SPLIT_NONE) {
			const struct split_req *r = req_of(x, t->k);
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
	if (!sl->split && !split_new(sl))
		return false;
	struct sm_split *x = sl->split;
	const struct sm_req_key *key = sl->req_key;
	x->key = key;
	if (split_reserve(x, sl, n))
		return false;
	for (uint32_t gi = 0; gi < x->n_groups; gi++) {
		struct split_group *g = &x->g[gi];
		g->n_req = g->n_term = g->n_fill = 0;
		for (uint32_t q = 0; q < x->n_queues; q++)
			g->list[q].n = 0;
		g->allocs = *sl->port.allocs; /* its own lookup memo */
	}
	x->plan.n_sec = x->plan.n_part = 0;
	x->plan.counts = sl->stats;
	x->profile = window_profile_enabled();
	uint64_t units0 = sl->stats->xlat_units;
	/* every translation first, in key order on this thread; then each SM
	 * group's data side, a task per group: the translations share no
	 * state with the L1s and ports (sm_split_fits: the stages are apart,
	 * as the two-stage barrier runs them), nor one group's SMs with
	 * another's */
	double t0 = x->profile ? window_profile_now() : 0;
	for (size_t i = 0; i < n; i++) {
		const struct sm_request *r = key[i].r;
		sm_plan_memory(sl, &sl->warp[r->wslot], r->wslot, &r->item, r->start, &x->plan);
		x->part_end[i] = x->plan.n_part;
	}
	sl->window_units_per_request = (double)(sl->stats->xlat_units - units0) / (double)n;
	double t1 = x->profile ? window_profile_now() : 0;
	fork_join_run(x->pool, p1_group, x);
#ifndef NDEBUG /* within the room reserved (this project builds with asserts) */
	for (uint32_t gi = 0; gi < x->n_groups; gi++)
		assert(x->g[gi].n_term <= x->g[gi].room_secs &&
		       x->g[gi].n_req <= group_reqs_room(sl, x->g[gi].room_secs));
#endif
	struct gpuvm_stats *s = sl->stats;
	for (uint32_t gi = 0; gi < x->n_groups; gi++) {
		/* every registered counter, not a hand list (gpuvm/counters.h) */
		gpuvm_counters_merge(sl->stats_rows, s, &x->g[gi].counts);
	}
	fork_join_run(x->pool, serve_queue, x);
	double t3 = x->profile ? window_profile_now() : 0;
	if (x->profile)
		window_profile_add_memory(x->busy_s, x->n_queues);
	for (uint32_t i = 0; i + 1 < x->n_queues; i++) {
		gpuvm_counters_merge(sl->stats_rows, s, &x->q[i].counts);
	}
	for (uint32_t gi = 0; gi < x->n_groups; gi++) {
		const struct split_group *g = &x->g[gi];
		for (size_t i = 0; i < g->n_fill; i++) {
			const struct split_fill *f = &g->fill[i];
			if (*f->slot == -(double)f->k - 1)
				*f->slot = req_of(x, f->k)->result;
		}
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
		window_profile_add_sm_side(t1 - t0, x->group_s, x->n_groups,
					   window_profile_now() - t3);
	return true;
}
