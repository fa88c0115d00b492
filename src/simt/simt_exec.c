/* The SIMT executor's kernel side: runs a CTA's threads as coroutines on
 * real data and zips each warp's per-thread access sequences into warp
 * instructions, lazily, as the engine pulls them.
 *
 * Memory: a resident warp holds at most SIMT_RUNAHEAD buffered accesses
 * per lane plus a stack per suspended thread, barriers or not, beyond
 * two runs ahead. When a CTA's first thread reaches a barrier, its
 * threads run at once, each to each barrier in turn (simt_cta_run_eager),
 * while every column stays within SIMT_EAGER_SLOTS: a tiled kernel
 * (Rodinia's) ends so, its trace buffered whole, no thread left
 * suspended; a long phase stops there and the CTA goes on lazily. Then a
 * thread at its n-th barrier waits until its warp, having issued it,
 * asks for its next access, and passes once every live thread of the CTA
 * reached its n-th. The timing model parks a warp at a barrier until the
 * CTA's other warps came, so they are all there. Where a warp is pulled
 * past a barrier before (the functional fast-forward; the parallel
 * executor's workers, a warp's chunk at a time) the threads not yet there
 * run to it at once (simt_cta_reach_barrier), their columns growing by
 * what they record on the way, one barrier phase's accesses at most. A
 * warp's buffers grown past SIMT_RUNAHEAD are freed when it drains. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt/simt_internal.h"

/* ---- allocation lookup ---------------------------------------------- */

const struct simt_buffer *simt_find_buffer(struct simt_program *prog, const void *p,
					   uint64_t bytes)
{
	const unsigned char *c = p;
	if (prog->last_buf < prog->nbufs) {
		const struct simt_buffer *b = &prog->bufs[prog->last_buf];
		if (c >= b->host && (uint64_t)(c - b->host) + bytes <= b->bytes)
			return b;
	}
	for (size_t i = 0; i < prog->nbufs; i++) {
		const struct simt_buffer *b = &prog->bufs[i];
		if (c >= b->host && (uint64_t)(c - b->host) + bytes <= b->bytes) {
			prog->last_buf = i;
			return b;
		}
	}
	return NULL;
}

/* simt_find_buffer, tried first at the site's last buffer. */
static inline const struct simt_buffer *find_buffer_at(struct simt_program *prog, const void *p,
						       uint64_t bytes, uint32_t site)
{
	uint32_t *hint = &prog->site_buf[site % SIMT_SITE_HINTS];
	const unsigned char *c = p;
	if (*hint < prog->nbufs) {
		const struct simt_buffer *b = &prog->bufs[*hint];
		if (c >= b->host && (uint64_t)(c - b->host) + bytes <= b->bytes)
			return b;
	}
	const struct simt_buffer *b = simt_find_buffer(prog, p, bytes);
	if (b)
		*hint = (uint32_t)(b - prog->bufs);
	return b;
}

/* ---- threads -------------------------------------------------------- */

/* Suspends a thread; one of a SIMT_NO_YIELD kernel has no coroutine to
 * suspend (simt_lane_resume runs it on the executor's stack): a kernel
 * declared so that suspends is a bug in its declaration. */
static void lane_yield(struct simt_lane *ln)
{
	if (!ln->co) {
		fprintf(stderr, "gpuvm: internal error: a kernel declared SIMT_NO_YIELD "
				"suspended a thread\n");
		abort();
	}
	coro_yield(ln->co);
}

static _Noreturn void lane_abort_text(struct simt_lane *ln, const char *what)
{
	struct simt_launch *l = ln->cta->launch;
	if (!l->failed) {
		l->failed = 1;
		snprintf(l->errmsg, sizeof l->errmsg, "thread (%u,%u,%u) of block (%u,%u,%u): %s",
			 ln->t.thread_idx.x, ln->t.thread_idx.y, ln->t.thread_idx.z,
			 ln->t.block_idx.x, ln->t.block_idx.y, ln->t.block_idx.z, what);
	}
	ln->state = LANE_ABORTED;
	for (;;)
		lane_yield(ln); /* never resumed: freed with the CTA */
}

static void lane_abort(struct simt_lane *ln, const char *fmt, unsigned long long a)
{
	char what[160];
	snprintf(what, sizeof what, fmt, a);
	lane_abort_text(ln, what);
}

/* A kernel's access to device memory of a GPU its own has no peer access
 * to: CUDA would fault; the run stops naming the allocation and both GPUs. */
static __attribute__((noinline)) void peer_refused(struct simt_lane *ln, const struct simt_buffer *b)
{
	char what[200];
	uint32_t g = ln->cta->launch->device;
	snprintf(what, sizeof what, "'%s' is device memory of GPU %u and the kernel runs on GPU %u "
		 "without peer access (simt_enable_peer_access(h, %u) on GPU %u)", b->name,
		 b->device, g, b->device, g);
	lane_abort_text(ln, what);
}

/* e[] (and the chain plane when present) for the current cap, for a
 * warp whose entries were all in rows so far. Returns -1 on out of memory. */
static int wbuf_entries(struct simt_wbuf *wb)
{
	if (wb->e)
		return 0;
	wb->e = malloc((size_t)wb->cap * GPUVM_WARP_LANES * sizeof *wb->e);
	return wb->e ? 0 : -1;
}

/* The warp's buffers (rows, entries and chains) at twice the slots per
 * lane, every entry kept at its lane and slot. Returns -1 on out of memory. */
static int wbuf_grow(struct simt_wbuf *wb)
{
	uint32_t cap = wb->cap ? 2 * wb->cap : 16;
	size_t n_entries = (size_t)cap * GPUVM_WARP_LANES;
	if (wb->row) { /* (a warp that ever ran slot-major) */
		struct simt_row *r = realloc(wb->row, cap * sizeof *r);
		if (!r)
			return -1;
		memset(r + wb->cap, 0, (cap - wb->cap) * sizeof *r);
		wb->row = r;
	}
	if (!wb->lane_major) { /* slot-major: the new slots go after the old */
		struct simt_entry *n = wb->e ? realloc(wb->e, n_entries * sizeof *n) : NULL;
		if (wb->e && !n)
			return -1;
		wb->e = n;
		uint32_t *nc = wb->chain ? realloc(wb->chain, n_entries * sizeof *nc) : NULL;
		if (wb->chain && !nc)
			return -1;
		wb->chain = nc;
		wb->cap = cap;
		simt_note_peak_slots(cap);
		return 0;
	}
	struct simt_entry *n = malloc(n_entries * sizeof *n);
	uint32_t *nc = wb->chain ? malloc(n_entries * sizeof *nc) : NULL;
	if (!n || (wb->chain && !nc)) {
		free(n);
		free(nc);
		return -1;
	}
	for (uint32_t i = 0; wb->cap && wb->e && i < GPUVM_WARP_LANES; i++) {
		memcpy(n + (size_t)i * cap, wb->e + simt_wb_slot(wb, i, 0), (size_t)wb->cap * sizeof *n);
		if (nc)
			memcpy(nc + (size_t)i * cap, wb->chain + simt_wb_slot(wb, i, 0),
			       (size_t)wb->cap * sizeof *nc);
	}
	free(wb->e);
	free(wb->chain);
	wb->e = n;
	wb->chain = nc;
	wb->cap = cap;
	simt_note_peak_slots(cap);
	return 0;
}

/* Whether lane's entry at slot is its row's (struct simt_row). */
static inline int wbuf_in_row(const struct simt_wbuf *wb, uint32_t lane, uint32_t slot)
{
	return !wb->lane_major && wb->row && (wb->row[slot].match >> lane & 1);
}

/* Decodes lane's entry at slot into its column record. */
static inline void wbuf_load_head(struct simt_wbuf *wb, uint32_t lane, uint32_t slot)
{
	struct simt_column *c = &wb->col[lane];
	if (wbuf_in_row(wb, lane, slot)) {
		const struct simt_row *r = &wb->row[slot];
		c->key = r->key & SIMT_KEY_GROUP;
		c->attr = (uint8_t)simt_key_attr(r->key);
		c->va = r->base + (uint64_t)lane * (uint8_t)r->key;
		c->gap = r->compute;
		c->chain = r->chain;
		return;
	}
	size_t at = simt_wb_slot(wb, lane, slot);
	const struct simt_entry *e = &wb->e[at];
	c->key = e->key & SIMT_KEY_GROUP;
	c->attr = (uint8_t)simt_key_attr(e->key);
	c->va = e->va;
	c->gap = e->compute;
	c->chain = wb->chain ? wb->chain[at] : 0;
}

/* Leaves lockstep: each nonempty lane's column gets its head (uhead)
 * decoded, as the lane-by-lane zipper reads it. */
void simt_wbuf_unlock(struct simt_wbuf *wb)
{
	for (uint32_t m = wb->nonempty; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		wb->col[i].head = wb->uhead;
		wbuf_load_head(wb, i, wb->uhead);
	}
	wb->lockstep = 0;
}

/* Stores lane's entry at slot into e[] (outside its row). Returns -1 on
 * out of memory. */
static __attribute__((noinline)) int wbuf_store_entry(struct simt_wbuf *wb, uint32_t lane,
						      uint32_t slot, uint64_t va, uint32_t key,
						      uint32_t compute, uint32_t chain)
{
	if (wbuf_entries(wb))
		return -1;
	if (chain && !wb->chain) {
		wb->chain = calloc((size_t)wb->cap * GPUVM_WARP_LANES, sizeof *wb->chain);
		if (!wb->chain)
			return -1;
	}
	size_t at = simt_wb_slot(wb, lane, slot);
	struct simt_entry *e = &wb->e[at];
	e->va = va;
	e->key = key;
	e->compute = compute;
	if (wb->chain)
		wb->chain[at] = chain;
	return 0;
}

/* Stores lane's entry at slot: into the slot's row when it continues
 * the row's coalesced run (or starts the row), else into e[]. Returns -1
 * on out of memory. */
static inline __attribute__((always_inline)) int wbuf_store(struct simt_wbuf *wb, uint32_t lane, uint32_t slot, uint64_t va,
			     uint32_t key, uint32_t compute, uint32_t chain)
{
	uint32_t bit = 1u << lane;
	if (!wb->lane_major) {
		/* rows only for warps that run slot-major: lane-major ones
		 * (graph kernels' divergent warps) would only clear them */
		if (__builtin_expect(!wb->row, 0) &&
		    !(wb->row = calloc(wb->cap, sizeof *wb->row)))
			return -1;
		struct simt_row *r = &wb->row[slot];
		uint64_t base = va - (uint64_t)lane * (uint8_t)key;
		if (r->gen != wb->gen || !r->match) {
			r->gen = wb->gen;
			r->base = base;
			r->key = key;
			r->compute = compute;
			r->chain = chain;
			r->match = bit;
			return 0;
		}
		if (r->base == base && r->key == key && r->compute == compute && r->chain == chain) {
			r->match |= bit;
			return 0;
		}
		r->match &= ~bit;
	}
	return wbuf_store_entry(wb, lane, slot, va, key, compute, chain);
}

/* The lane's column is full: waits for the warp to drain it (unless the
 * thread is run to a barrier: simt_cta_reach_barrier) or grows the
 * buffer (out of line: the coroutine switch's frame stays off record's
 * fast path). */
static __attribute__((noinline)) void record_full(struct simt_lane *ln)
{
	struct simt_wbuf *wb = ln->wb;
	uint32_t col = ln->lane;
	if (wb->col[col].head == wb->col[col].tail)
		wb->col[col].head = wb->col[col].tail = 0;
	while (wb->col[col].tail == wb->cap && !simt_lane_grows(ln->cta, wb) &&
	       wb->cap >= SIMT_RUNAHEAD) {
		ln->state = LANE_FULL;
		lane_yield(ln); /* resumed once the warp drained the column */
		ln->state = LANE_RUNNING;
	}
	if (wb->col[col].tail == wb->cap && wbuf_grow(wb))
		lane_abort(ln, "out of memory buffering %llu accesses", wb->cap ? 2ull * wb->cap : 16);
}

/* Appends one entry to the lane's column of its warp's buffer. */
static inline __attribute__((always_inline)) void record(struct simt_lane *ln, uint64_t va,
							    uint32_t bytes, uint32_t op,
			  uint32_t site, uint32_t attr)
{
	struct simt_thread *t = &ln->t;
	struct simt_wbuf *wb = ln->wb;
	uint32_t col = ln->lane;
	if (__builtin_expect(wb->col[col].tail == wb->cap, 0))
		record_full(ln);
	uint32_t slot = wb->col[col].tail++;
	if (wbuf_store(wb, col, slot, va, simt_entry_pack(site, op, bytes, attr), t->compute,
		       simt_chain_pack(t->chain, t->chain_class)))
		lane_abort(ln, "out of memory buffering %llu accesses", wb->cap);
	t->compute = t->chain = 0;
	if (!(wb->nonempty & 1u << col)) { /* the lane's next entry */
		wb->nonempty |= 1u << col;
		if (!wb->lockstep) /* in lockstep it is read from its row */
			wbuf_load_head(wb, col, slot);
	}
}

static inline __attribute__((always_inline)) void access_global(struct simt_thread *t, const void *p, uint32_t bytes,
				 enum simt_access_op op, uint32_t site, uint32_t cache_op)
{
	struct simt_lane *ln = (struct simt_lane *)t;
	const struct simt_buffer *b = find_buffer_at(ln->cta->launch->prog, p, bytes, site);
	if (!b)
		lane_abort(ln, "%llu-byte access outside every allocation", bytes);
	const struct simt_launch *l = ln->cta->launch;
	if (b->device != l->device && b->kind == GPUVM_ALLOC_DEVICE && !(l->peers >> b->device & 1))
		peer_refused(ln, b);
	record(ln, simt_buffer_va(b, p), bytes, op, site,
	       GPUVM_SPACE_GLOBAL | cache_op << 4);
}

void simt_access_cached(struct simt_thread *t, const void *p, uint32_t bytes,
			enum simt_access_op op, uint32_t site, uint32_t cache_op)
{
	access_global(t, p, bytes, op, site, cache_op);
}

void simt_access(struct simt_thread *t, const void *p, uint32_t bytes, enum simt_access_op op,
		 uint32_t site)
{
	access_global(t, p, bytes, op, site, GPUVM_CACHE_DEFAULT);
}

/* The thread's entry in its CTA's log (simt_red.h), after the access. */
static inline __attribute__((always_inline)) void
log_ordered(struct simt_thread *t, void *p, enum simt_red_kind kind, struct simt_red_entry e)
{
	struct simt_lane *ln = (struct simt_lane *)t;
	struct simt_cta *c = ln->cta;
	if (__builtin_expect(!c->red.block, 0)) {
		struct simt_red_log *spare = &c->launch->prog->red_spare;
		c->red = *spare; /* its empty blocks, if any */
		*spare = (struct simt_red_log){0};
	}
	if ((uintptr_t)p & 3u)
		lane_abort(ln, "RED_ADD / ST_ORDERED target at %#llx not 4-byte aligned",
			   (unsigned long long)(uintptr_t)p);
	if (simt_red_log_add(&c->red, c->nthreads, (uint32_t)(ln - c->lanes), p, kind, e))
		lane_abort(ln, "out of memory logging reductions (%llu chunks)", c->red.nchunks);
}

void simt_red_add(struct simt_thread *t, void *p, double v, int is_double, uint32_t site)
{
	access_global(t, p, is_double ? 8 : 4, SIMT_ATOMIC, site, GPUVM_CACHE_DEFAULT);
	log_ordered(t, p, is_double ? SIMT_RED_ADD_F64 : SIMT_RED_ADD_F32,
		    (struct simt_red_entry){.v.add = v});
}

void simt_st_ordered(struct simt_thread *t, void *p, uint32_t bytes, uint64_t bits, uint32_t site)
{
	access_global(t, p, bytes, SIMT_STORE, site, GPUVM_CACHE_DEFAULT);
	log_ordered(t, p, bytes == 8 ? SIMT_RED_STORE_8 : SIMT_RED_STORE_4,
		    (struct simt_red_entry){.v.bits = bits});
}

void simt_shared_access(struct simt_thread *t, const void *p, uint32_t bytes,
			enum simt_access_op op, uint32_t site)
{
	struct simt_lane *ln = (struct simt_lane *)t;
	const unsigned char *base = ln->cta->shared, *q = p;
	if (!base || q < base || q + bytes > base + ln->cta->launch->shared_bytes)
		lane_abort(ln, "%llu-byte shared access outside the CTA's shared memory", bytes);
	record(ln, (uint64_t)(q - base), bytes, op, site, GPUVM_SPACE_SHARED);
}

void simt_barrier(struct simt_thread *t, uint32_t site)
{
	struct simt_lane *ln = (struct simt_lane *)t;
	record(ln, 0, 0, SIMT_OP_BARRIER, site, 0);
	ln->bars++;
	ln->state = LANE_BARRIER;
	lane_yield(ln);
	ln->state = LANE_RUNNING;
}

/* SIMT_RESERVE: a thread runs ahead of its warp until its column of the
 * warp's buffer is full, and is suspended there, in the middle of
 * whatever it is doing. A thread holding a spin lock suspended so keeps
 * the lock while every other thread that wants it runs on functionally
 * and records failed tries by the column-full (measured on BigKernel's
 * Word Count: ~30 failed tries per insert at 1 MiB, over 500 M at 32 MiB
 * and 16384 threads, none of them a contention the hardware would see in
 * the lock's hold time). Waiting first, while the thread holds nothing,
 * until `entries` more accesses fit, makes the critical section's
 * accesses run without a suspension. A thread run to a barrier
 * (simt_cta_reach_barrier) grows its buffer and is never suspended there. */
void simt_reserve(struct simt_thread *t, uint32_t entries)
{
	struct simt_lane *ln = (struct simt_lane *)t;
	struct simt_wbuf *wb = ln->wb;
	uint32_t col = ln->lane;
	while (!simt_lane_grows(ln->cta, wb) && wb->cap >= SIMT_RUNAHEAD && wb->col[col].tail &&
	       wb->col[col].tail + entries > wb->cap) {
		ln->state = LANE_FULL;
		lane_yield(ln); /* resumed once the warp drained the column */
		ln->state = LANE_RUNNING;
	}
}

void *simt_shared(struct simt_thread *t, size_t bytes, size_t align)
{
	struct simt_lane *ln = (struct simt_lane *)t;
	struct simt_cta *cta = ln->cta;
	uint32_t declared = cta->launch->shared_bytes;
	size_t off = (t->shared_off + align - 1) / align * align;
	if (off + bytes > declared)
		lane_abort(ln, "SHARED arrays of %llu bytes per block, more than its launch declares "
			   "(SIMT_LAUNCH_SHARED)", (unsigned long long)(off + bytes));
	if (!cta->shared) {
		cta->shared = calloc(1, declared);
		if (!cta->shared)
			lane_abort(ln, "out of memory for %llu bytes of shared memory", declared);
	}
	t->shared_off = (uint32_t)(off + bytes);
	return cta->shared + off;
}

/* ---- warps ---------------------------------------------------------- */

/* Addresses a warp notes for its next call (struct simt_warp.pf). */
#define SIMT_WARP_PF 7

struct simt_warp {
	struct simt_cta *cta;
	struct simt_lane *lanes;
	struct simt_wbuf *wb;
	uint32_t nlanes;
	uint32_t pending_mask; /* a compute gap was issued for this group */
	/* memory instructions issued since the layout was last chosen, and
	 * their active lanes */
	uint64_t issued, issued_lanes;
	int tail_done, ended;
	/* what the next call reads beyond this state and the buffer header
	 * (the next row in lockstep, else the first waiting lanes' columns
	 * and the entries their issue decodes next), noted at the end of
	 * each call: the engine's warp_prefetch hook (sw_prefetch) loads
	 * them a turn ahead, sw_next's entry again (pf[0] first) */
	const void *pf[SIMT_WARP_PF];
};

static void sw_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct simt_launch *l = k->impl;
	struct simt_warp *w = state;
	memset(w, 0, sizeof *w);
	/* The engine begins a CTA's warps together, warp 0 first. */
	if (warp == 0 || !l->last || l->last->id != cta) {
		l->last = simt_cta_new(l, cta);
		if (!l->last) {
			l->failed = 1;
			snprintf(l->errmsg, sizeof l->errmsg, "out of memory for a CTA");
			return;
		}
	}
	w->cta = l->last;
	uint32_t first = warp * GPUVM_WARP_LANES;
	w->lanes = w->cta->lanes + first;
	w->wb = &w->cta->wbufs[warp];
	w->nlanes = w->cta->nthreads - first < GPUVM_WARP_LANES ? w->cta->nthreads - first
								: GPUVM_WARP_LANES;
	/* its first call refills every lane, reading the first lanes'
	 * records before refill_prefetch reaches them (sw_prefetch) */
	for (uint32_t i = 0; i < SIMT_WARP_PF; i++)
		w->pf[i] = i < w->nlanes ? (const void *)&w->lanes[i].state : (const void *)w->wb;
}

static int launch_error(struct simt_launch *l, struct gpuvm_error *err)
{
	return gpuvm_fail(err, l->prog->name, 0, l->k.name, "%s", l->errmsg);
}

static void emit_kind(struct gpuvm_warp_item *it, uint32_t key, uint32_t attr, uint32_t mask)
{
	if (simt_key_op(key) == SIMT_OP_BARRIER) {
		it->kind = GPUVM_ITEM_BARRIER;
	} else {
		it->kind = GPUVM_ITEM_MEM;
		it->op = (enum gpuvm_mem_op)simt_key_op(key);
		it->bytes_per_lane = (uint8_t)key;
		it->active_mask = mask;
		it->space = attr & 15;
		it->cache_op = attr >> 4 & (SIMT_CACHE_INDEP - 1);
		it->load_indep = attr >> 4 & SIMT_CACHE_INDEP ? 1 : 0;
	}
}

/* The smallest tail of the nonempty lanes (0 if none). */
static uint32_t wbuf_min_tail(const struct simt_wbuf *wb)
{
	uint32_t t = 0;
	for (uint32_t m = wb->nonempty; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		if (!t || wb->col[i].tail < t)
			t = wb->col[i].tail;
	}
	return t;
}

/* Lockstep: every nonempty lane (mask) issues its entry at slot uhead
 * (its row's, or e[]'s for lanes outside it); lanes whose entries end
 * there leave. */
static void emit_lockstep(struct simt_warp *w, uint32_t mask, struct gpuvm_warp_item *it)
{
	struct simt_wbuf *wb = w->wb;
	const struct simt_row *r = &wb->row[wb->uhead];
	uint32_t in_row = r->match & mask;
	/* e[] exists only once some lane left the row (no offset on NULL) */
	const struct simt_entry *e = wb->e ? wb->e + (size_t)wb->uhead * GPUVM_WARP_LANES : NULL;
	uint32_t l0 = (uint32_t)__builtin_ctz(mask);
	uint32_t key = in_row >> l0 & 1 ? r->key : e[l0].key;
	emit_kind(it, key & SIMT_KEY_GROUP, simt_key_attr(key), mask);
	w->issued++;
	w->issued_lanes += (uint64_t)__builtin_popcount(mask);
	uint64_t stride = (uint8_t)r->key;
	if (in_row == UINT32_MAX) {
		for (uint32_t i = 0; i < GPUVM_WARP_LANES; i++)
			it->addr[i] = r->base + i * stride;
	} else {
		for (uint32_t m = mask; m; m &= m - 1) {
			uint32_t i = (uint32_t)__builtin_ctz(m);
			it->addr[i] = in_row >> i & 1 ? r->base + i * stride : e[i].va;
		}
	}
	if (!wb->utail)
		wb->utail = wbuf_min_tail(wb);
	if (++wb->uhead < wb->utail)
		return;
	for (uint32_t m = wb->nonempty; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		if (wb->col[i].tail == wb->uhead) {
			wb->col[i].head = wb->col[i].tail = 0;
			wb->nonempty &= ~(1u << i);
		}
	}
	wb->utail = wbuf_min_tail(wb);
	if (!wb->nonempty)
		wb->uhead = 0;
}

static void emit_mem(struct simt_warp *w, uint32_t mask, struct gpuvm_warp_item *it)
{
	struct simt_wbuf *wb = w->wb;
	if (wb->lockstep) {
		emit_lockstep(w, mask, it);
		return;
	}
	uint32_t l0 = (uint32_t)__builtin_ctz(mask);
	emit_kind(it, wb->col[l0].key, wb->col[l0].attr, mask);
	w->issued++;
	w->issued_lanes += (uint64_t)__builtin_popcount(mask);
	for (uint32_t m = mask; m; m &= m - 1) {
		uint32_t l = (uint32_t)__builtin_ctz(m);
		it->addr[l] = wb->col[l].va;
		if (++wb->col[l].head == wb->col[l].tail) {
			wb->col[l].head = wb->col[l].tail = 0;
			wb->nonempty &= ~(1u << l);
		} else {
			wbuf_load_head(wb, l, wb->col[l].head);
		}
	}
}

static void zip_count(struct simt_warp *w, struct simt_launch *l)
{
	l->zip->insts += w->issued;
	l->zip->lanes += w->issued_lanes;
	w->issued = w->issued_lanes = 0;
}

/* The warp's buffer is empty: lay it out for what its lanes did since
 * the last choice (the body's record for a new warp): simt_wb_slot. */
static void choose_layout(struct simt_warp *w, struct simt_launch *l)
{
	const struct simt_zip_stats *z = l->zip;
	uint64_t insts = w->issued ? w->issued : z->insts;
	uint64_t lanes = w->issued ? w->issued_lanes : z->lanes;
	w->wb->lane_major = insts && lanes < 8 * insts;
	zip_count(w, l);
}

/* A gap with a COMPUTE_CHAIN: the chain's class and length (the rest of
 * the gap independent of it); else the default (all ALU, chained). */
static void set_chain(struct gpuvm_warp_item *it, uint32_t chain, uint32_t cls)
{
	if (!chain)
		return;
	it->op_class = (uint8_t)(cls < GPUVM_OP_CLASSES ? cls : GPUVM_CLASS_ALU);
	it->chain_insts = chain < it->compute_insts ? chain : it->compute_insts;
}

/* The next instruction in lockstep: when every nonempty lane's entry at
 * uhead has the same key, they all form it (what the lane-by-lane
 * choice below gives then), found without decoding a column; returns 0
 * (having left lockstep) when they differ. */
static int lockstep_next(struct simt_warp *w, struct gpuvm_warp_item *it)
{
	struct simt_wbuf *wb = w->wb;
	uint32_t mask = wb->nonempty;
	const struct simt_row *r = &wb->row[wb->uhead];
	uint32_t in_row = r->match & mask, rest = mask & ~in_row;
	uint32_t gap = 0, chain = 0;
	if (in_row) {
		gap = r->compute;
		chain = r->chain;
	}
	if (rest) { /* the lanes outside the row: same key as the first lane? */
		/* e[] exists only once some lane left the row (no offset on NULL) */
	const struct simt_entry *e = wb->e ? wb->e + (size_t)wb->uhead * GPUVM_WARP_LANES : NULL;
		const uint32_t *crow =
			wb->chain ? wb->chain + (size_t)wb->uhead * GPUVM_WARP_LANES : NULL;
		uint32_t l0 = (uint32_t)__builtin_ctz(mask);
		uint32_t lead = (in_row >> l0 & 1 ? r->key : e[l0].key) & SIMT_KEY_GROUP;
		uint32_t diff = 0;
		for (uint32_t m = rest; m; m &= m - 1) {
			uint32_t i = (uint32_t)__builtin_ctz(m);
			diff |= (e[i].key & SIMT_KEY_GROUP) ^ lead;
		}
		if (diff || (in_row && (r->key & SIMT_KEY_GROUP) != lead)) {
			simt_wbuf_unlock(wb);
			return 0;
		}
		/* the maximum gap, and the first lane's chain of the longest
		 * (lanes in ascending order, as the zipper below takes them) */
		chain = 0;
		for (uint32_t m = mask; m; m &= m - 1) {
			uint32_t i = (uint32_t)__builtin_ctz(m);
			uint32_t g = in_row >> i & 1 ? r->compute : e[i].compute;
			uint32_t ch = in_row >> i & 1 ? r->chain : crow ? crow[i] : 0;
			gap = g > gap ? g : gap;
			if ((ch & 0xffff) > (chain & 0xffff))
				chain = ch;
		}
	}
	if (gap) {
		w->pending_mask = mask;
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = gap;
		set_chain(it, chain & 0xffff, chain >> 16);
		return 1;
	}
	emit_lockstep(w, mask, it);
	return 1;
}

static int warp_next(struct simt_launch *l, struct simt_warp *w, struct gpuvm_warp_item *it,
		     struct gpuvm_error *err);

/* Refilling lanes m (lowest first): while the lowest runs, the next
 * ones' state is fetched in three steps (a lane's record, its coroutine,
 * its saved frames), one lane ahead each, since each names the next.
 * With thousands of resident warps all three are host cache misses (the
 * triad: 114,688 threads' 53 MB of saved frames), which each lane switch
 * met in turn, in the copy of its frames onto the run stack (memmove, 7 %
 * of the triad's samples; 0.7 % with this). A prefetch changes nothing
 * else. */
static inline void refill_prefetch(struct simt_lane *lanes, uint32_t m)
{
	uint32_t m1 = m & (m - 1), m2 = m1 & (m1 - 1), m3 = m2 & (m2 - 1);
	if (m3)
		__builtin_prefetch(&lanes[__builtin_ctz(m3)].co);
	if (m2 && lanes[__builtin_ctz(m2)].co)
		coro_prefetch_self(lanes[__builtin_ctz(m2)].co);
	if (m1 && lanes[__builtin_ctz(m1)].co)
		coro_prefetch_frames(lanes[__builtin_ctz(m1)].co);
}

/* Notes in w->pf what the warp's next call reads beyond its state and
 * buffer header, from what this call left in cache: in lockstep the next
 * row; else the columns of the first waiting lanes (bfs: 1.9 per
 * instruction) and, for those at the next instruction's site (the
 * earliest), the entry that issuing them decodes (head + 1: the row's or
 * e[]'s); and the record of the first lane that will refill (its state
 * and coroutine, read before anything refill_prefetch reaches). Unused
 * slots repeat the header. */
static void warp_note_prefetch(struct simt_warp *w)
{
	struct simt_wbuf *wb = w->wb;
	uint32_t n = 0;
	uint32_t dry = wb->live & ~wb->nonempty;
	if (dry)
		w->pf[n++] = &w->lanes[__builtin_ctz(dry)].state;
	if (wb->lockstep) {
		if (wb->row)
			w->pf[n++] = wb->row + wb->uhead;
	} else if (wb->nonempty) {
		uint32_t best = UINT32_MAX;
		for (uint32_t m = wb->nonempty; m; m &= m - 1) {
			uint32_t site = wb->col[__builtin_ctz(m)].key >> 16;
			best = site < best ? site : best;
		}
		for (uint32_t m = wb->nonempty; m && n + 2 <= SIMT_WARP_PF; m &= m - 1) {
			uint32_t i = (uint32_t)__builtin_ctz(m);
			const struct simt_column *c = &wb->col[i];
			w->pf[n++] = c;
			uint32_t next = c->head + 1;
			if (c->key >> 16 != best || next >= c->tail)
				continue;
			if (wb->lane_major)
				w->pf[n++] = &wb->e[simt_wb_slot(wb, i, next)];
			else if (wbuf_in_row(wb, i, next))
				w->pf[n++] = &wb->row[next];
			else
				w->pf[n++] = &wb->e[simt_wb_slot(wb, i, next)];
		}
	}
	while (n < SIMT_WARP_PF)
		w->pf[n++] = wb;
}

static int sw_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
		   struct gpuvm_error *err)
{
	struct simt_launch *l = k->impl;
	struct simt_warp *w = state;
	__builtin_prefetch(w->pf[0]); /* (never faults, even when stale) */
	int rc = warp_next(l, w, it, err);
	if (w->wb && !w->ended)
		warp_note_prefetch(w);
	return rc;
}

/* The engine's hook: w is its next event's warp, so its sw_next comes
 * within a turn; load its buffer header and what w->pf notes. Prefetches
 * only: no result can change (so no test can fail on it). */
static void sw_prefetch(struct gpuvm_kernel *k, const void *state)
{
	(void)k;
	const struct simt_warp *w = state;
	if (!w->wb || w->ended)
		return;
	__builtin_prefetch(w->wb);
	for (uint32_t i = 0; i < SIMT_WARP_PF; i++)
		__builtin_prefetch(w->pf[i]);
}

static int warp_next(struct simt_launch *l, struct simt_warp *w, struct gpuvm_warp_item *it,
		     struct gpuvm_error *err)
{
	if (l->failed)
		return launch_error(l, err);
	if (w->ended) {
		it->kind = GPUVM_ITEM_END;
		return 0;
	}
	if (w->pending_mask) {
		emit_mem(w, w->pending_mask, it);
		w->pending_mask = 0;
		return 0;
	}
	/* Refill the lanes that have run dry. */
	struct simt_cta *c = w->cta;
	struct simt_wbuf *wb = w->wb;
	/* (the CTA's line is read only when a lane has run dry) */
	uint32_t dry = wb->live & ~wb->nonempty;
	if (dry) {
		if (!wb->nonempty) {
			/* the whole warp refills: its lanes start in step */
			choose_layout(w, l);
			wb->lockstep = !wb->lane_major;
			wb->uhead = wb->utail = 0;
			wb->gen++; /* every row's lanes are gone */
			if (wb->cap > SIMT_RUNAHEAD)
				simt_wbuf_shrink(wb);
		} else if (wb->lockstep) {
			/* a lane refills alone: cannot happen in lockstep (its
			 * lanes stop together, at SIMT_RUNAHEAD, at a barrier, or
			 * end; a run to a barrier unlocks in
			 * simt_cta_reach_barrier), kept for safety */
			simt_wbuf_unlock(wb);
		}
		for (uint32_t m = dry; m; m &= m - 1) {
			uint32_t i = (uint32_t)__builtin_ctz(m);
			struct simt_lane *ln = &w->lanes[i];
			refill_prefetch(w->lanes, m);
			if (wb->nonempty >> i & 1)
				continue; /* run to a barrier or eagerly just now */
			if (ln->state == LANE_BARRIER) {
				/* its barrier issued: it passes once every live
				 * thread of the CTA is there */
				simt_cta_reach_barrier(c, ln->bars);
				if (l->failed)
					return launch_error(l, err);
				ln->state = LANE_FULL;
			}
			if (ln->state == LANE_IDLE || ln->state == LANE_FULL)
				simt_lane_resume(ln);
			if (ln->state == LANE_BARRIER && !c->eager_tried)
				simt_cta_run_eager(c);
			if (l->failed)
				return launch_error(l, err);
		}
	}
	if (wb->lockstep && wb->nonempty && lockstep_next(w, it))
		return 0;

	/* The next instruction: the earliest source line a lane waits at
	 * (reconverges loops and branches); lanes there with the same
	 * operation form the mask. */
	uint32_t best = UINT32_MAX, best_lane = 0;
	for (uint32_t m = wb->nonempty; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		uint32_t site = wb->col[i].key >> 16;
		if (site < best) {
			best = site;
			best_lane = i;
		}
	}
	if (best == UINT32_MAX) {
		/* every lane has finished: its final gap, kept as they did */
		uint32_t tail = wb->tail_compute, chain = wb->tail_chain, cls = wb->tail_class;
		if (tail && !w->tail_done) {
			w->tail_done = 1;
			it->kind = GPUVM_ITEM_COMPUTE;
			it->compute_insts = tail;
			set_chain(it, chain, cls);
			return 0;
		}
		w->ended = 1;
		it->kind = GPUVM_ITEM_END;
		zip_count(w, l);
		if (--c->warps_live == 0 && simt_cta_end(c)) {
			w->cta = NULL;
			return launch_error(l, err);
		}
		w->cta = NULL;
		return 0;
	}
	uint32_t lead = wb->col[best_lane].key;
	if (simt_key_op(lead) == SIMT_OP_BARRIER) {
		best_lane = simt_wbuf_before_barrier(wb, lead, best_lane);
		lead = wb->col[best_lane].key;
	}
	uint32_t mask = 0, gap = 0, chain = 0;
	for (uint32_t m = wb->nonempty >> best_lane << best_lane; m; m &= m - 1) {
		uint32_t i = (uint32_t)__builtin_ctz(m);
		if (wb->col[i].key == lead) {
			mask |= 1u << i;
			if (wb->col[i].gap > gap)
				gap = wb->col[i].gap;
			if ((wb->col[i].chain & 0xffff) > (chain & 0xffff))
				chain = wb->col[i].chain;
		}
	}
	uint32_t cls = chain >> 16;
	chain &= 0xffff;
	if (gap) {
		w->pending_mask = mask;
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = gap;
		set_chain(it, chain, cls);
		return 0;
	}
	emit_mem(w, mask, it);
	return 0;
}

const struct gpuvm_kernel_ops simt_kernel_ops = {
	.warp_state_bytes = sizeof(struct simt_warp),
	.warp_begin = sw_begin,
	.warp_next = sw_next,
	.warp_prefetch = sw_prefetch,
};
