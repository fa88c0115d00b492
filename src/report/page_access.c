/* Page-access maps recorded by a pass-through source wrapper (see
 * include/gpuvm/page_access.h for what is recorded and why). */
#include "gpuvm/page_access.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpuvm/plot.h"
#include "gpuvm/report.h"
#include "core/vec.h"
#include "gpuvm/units.h"

#define DEFAULT_PAGE_BYTES 4096u /* the 4 KB pages of Ganguly Fig. 2-3 */
#define DEFAULT_BUCKETS 256u
#define DEFAULT_ROWS 1024u
#define MAX_BUCKETS 65536u
#define MAX_ROWS 65536u

/* A cell's counters, together: a lane touches one cache line, not two */
struct pa_cell {
	uint64_t acc, thr;
};

/* The cells are bucket-major (cell = bucket x rows + row): the engine
 * records into the current bucket only, so the counters it touches are one
 * allocation's rows side by side (16 KiB at 1024 rows), not a counter
 * every buckets x 8 bytes over megabytes (the row-major layout cost a
 * cache miss a lane on scattered accesses). */
struct pa_alloc {
	struct gpuvm_alloc a;
	uint64_t pages, pages_per_row;
	unsigned row_shift;  /* page -> row */
	uint32_t rows;
	struct pa_cell *cell; /* [buckets * rows]; NULL when totals_only */
	uint8_t *wr;          /* [buckets * rows] */
	/* [buckets * rows * GPUVM_UVM_DECISIONS]: paging decisions per cell
	 * (pages; sector accesses for REMOTE), allocated at the first one */
	uint32_t *dec;
	uint64_t accesses, thread_accesses, first_time, last_time;
	bool live;
};

struct pa_kernel {
	char name[96];
	uint64_t first_time, mem_insts;
};

/* One (allocation, page) pair an instruction has touched: an open-
 * addressed set of SEEN_SLOTS (twice a warp's lanes), emptied for each
 * instruction by moving its stamp on, not by clearing it */
#define SEEN_SLOTS 64u
struct pa_seen {
	uint64_t page;
	size_t alloc;
	uint32_t stamp;
};

struct gpuvm_page_access {
	bool totals_only;      /* no cells (gpuvm_page_access_opts) */
	uint32_t stamp;        /* the instruction's, in seen[] */
	struct pa_seen seen[SEEN_SLOTS];
	unsigned page_shift;
	uint32_t buckets, max_rows;
	uint64_t t;            /* memory instructions pulled so far */
	unsigned width_shift;  /* bucket width = 2^width_shift instructions */
	struct pa_alloc *allocs;
	size_t n_allocs, cap_allocs;
	uint32_t *live;        /* indices of live allocations, sorted by base */
	size_t n_live, cap_live;
	size_t last;           /* allocation of the previous lane (a cache) */
	struct pa_kernel *kernels;
	size_t n_kernels, cap_kernels;
	uint64_t unattributed; /* lanes outside every live allocation */
	uint64_t decisions;    /* paging decisions recorded */
};

int gpuvm_page_access_create(const struct gpuvm_page_access_opts *opts,
			     struct gpuvm_page_access **out, struct gpuvm_error *err)
{
	*out = NULL;
	struct gpuvm_page_access_opts o = opts ? *opts : (struct gpuvm_page_access_opts){0};
	uint64_t page = o.page_bytes ? o.page_bytes : DEFAULT_PAGE_BYTES;
	uint32_t buckets = o.time_buckets ? o.time_buckets : DEFAULT_BUCKETS;
	uint32_t rows = o.max_rows ? o.max_rows : DEFAULT_ROWS;
	if (!gpuvm_is_pow2(page) || page < 64)
		return gpuvm_fail(err, "--page-map", 0, "page size",
				  "%" PRIu64 " bytes: need a power of two >= 64", page);
	if (buckets < 2 || buckets % 2 || buckets > MAX_BUCKETS)
		return gpuvm_fail(err, "--page-map", 0, "time buckets",
				  "%u: need an even number in 2..%u", buckets, MAX_BUCKETS);
	if (rows > MAX_ROWS)
		return gpuvm_fail(err, "--page-map", 0, "rows", "%u: at most %u", rows, MAX_ROWS);
	struct gpuvm_page_access *pa = calloc(1, sizeof *pa);
	if (!pa)
		return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
	pa->page_shift = gpuvm_log2_ceil(page);
	pa->totals_only = o.totals_only;
	pa->buckets = buckets;
	pa->max_rows = rows;
	*out = pa;
	return 0;
}

void gpuvm_page_access_destroy(struct gpuvm_page_access *pa)
{
	if (!pa)
		return;
	for (size_t i = 0; i < pa->n_allocs; i++) {
		free(pa->allocs[i].cell);
		free(pa->allocs[i].wr);
		free(pa->allocs[i].dec);
	}
	free(pa->allocs);
	free(pa->live);
	free(pa->kernels);
	free(pa);
}

static int add_alloc(struct gpuvm_page_access *pa, const struct gpuvm_alloc *a,
		     struct gpuvm_error *err)
{
	/* live holds at most every allocation */
	if (VEC_RESERVE(pa->allocs, pa->cap_allocs, pa->n_allocs + 1) ||
	    VEC_RESERVE(pa->live, pa->cap_live, pa->n_allocs + 1))
		return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
	struct pa_alloc *x = &pa->allocs[pa->n_allocs];
	memset(x, 0, sizeof *x);
	x->a = *a;
	x->pages = (a->bytes + (1ull << pa->page_shift) - 1) >> pa->page_shift;
	if (!x->pages)
		x->pages = 1;
	/* a row covers 2^row_shift pages, the fewest that fit max_rows */
	while ((x->pages + (1ull << x->row_shift) - 1) >> x->row_shift > pa->max_rows)
		x->row_shift++;
	x->pages_per_row = 1ull << x->row_shift;
	x->rows = (uint32_t)((x->pages + x->pages_per_row - 1) >> x->row_shift);
	if (!pa->totals_only) {
		size_t cells = (size_t)x->rows * pa->buckets;
		x->cell = calloc(cells, sizeof *x->cell);
		x->wr = calloc(cells, 1);
		if (!x->cell || !x->wr) {
			free(x->cell);
			free(x->wr);
			return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
		}
	}
	x->live = true;
	uint32_t idx = (uint32_t)pa->n_allocs++;
	size_t at = pa->n_live;
	while (at > 0 && pa->allocs[pa->live[at - 1]].a.base > a->base) {
		pa->live[at] = pa->live[at - 1];
		at--;
	}
	pa->live[at] = idx;
	pa->n_live++;
	return 0;
}

static void free_alloc(struct gpuvm_page_access *pa, uint64_t base)
{
	for (size_t i = 0; i < pa->n_live; i++)
		if (pa->allocs[pa->live[i]].a.base == base) {
			pa->allocs[pa->live[i]].live = false;
			memmove(&pa->live[i], &pa->live[i + 1], (pa->n_live - i - 1) * sizeof *pa->live);
			pa->n_live--;
			pa->last = 0;
			return;
		}
}

/* Live allocation holding addr, or SIZE_MAX. */
static inline size_t find_alloc(struct gpuvm_page_access *pa, uint64_t addr)
{
	if (pa->last < pa->n_allocs) {
		const struct pa_alloc *x = &pa->allocs[pa->last];
		if (x->live && addr - x->a.base < x->a.bytes)
			return pa->last;
	}
	size_t lo = 0, hi = pa->n_live;
	while (lo < hi) { /* last live allocation with base <= addr */
		size_t mid = (lo + hi) / 2;
		if (pa->allocs[pa->live[mid]].a.base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return SIZE_MAX;
	size_t i = pa->live[lo - 1];
	if (addr - pa->allocs[i].a.base >= pa->allocs[i].a.bytes)
		return SIZE_MAX;
	pa->last = i;
	return i;
}

/* Time outgrew the buckets: merge neighbours, double the width. In place:
 * bucket b takes 2b and 2b + 1, which no earlier step has overwritten. */
static void merge_buckets(struct gpuvm_page_access *pa)
{
	uint32_t half = pa->buckets / 2;
	for (size_t i = 0; i < pa->n_allocs; i++) {
		struct pa_alloc *x = &pa->allocs[i];
		size_t rows = x->rows;
		for (uint32_t b = 0; b < half; b++) {
			struct pa_cell *to = x->cell + b * rows, *from = x->cell + 2 * b * rows;
			uint8_t *wto = x->wr + b * rows, *wfrom = x->wr + 2 * b * rows;
			for (size_t r = 0; r < rows; r++) {
				to[r].acc = from[r].acc + from[rows + r].acc;
				to[r].thr = from[r].thr + from[rows + r].thr;
				wto[r] = wfrom[r] | wfrom[rows + r];
			}
		}
		memset(x->cell + half * rows, 0, half * rows * sizeof *x->cell);
		memset(x->wr + half * rows, 0, half * rows);
		if (!x->dec)
			continue;
		size_t per_bucket = rows * GPUVM_UVM_DECISIONS;
		for (uint32_t b = 0; b < half; b++) {
			uint32_t *to = x->dec + b * per_bucket, *from = x->dec + 2 * b * per_bucket;
			for (size_t k = 0; k < per_bucket; k++)
				to[k] = from[k] + from[per_bucket + k];
		}
		memset(x->dec + half * per_bucket, 0, half * per_bucket * sizeof *x->dec);
	}
	pa->width_shift++;
}

/* Whether the instruction whose stamp this is touches (alloc, page) for
 * the first time (then it is added). */
static inline bool seen_first(struct gpuvm_page_access *pa, size_t alloc, uint64_t page,
			      uint32_t stamp)
{
	uint32_t h = (uint32_t)(((page ^ ((uint64_t)alloc << 48)) * 0x9E3779B97F4A7C15ull) >> 58);
	for (;; h = (h + 1) & (SEEN_SLOTS - 1)) {
		struct pa_seen *s = &pa->seen[h];
		if (s->stamp != stamp) {
			*s = (struct pa_seen){page, alloc, stamp};
			return true;
		}
		if (s->page == page && s->alloc == alloc)
			return false;
	}
}

/* What record() keeps from lane to lane (in registers: one instance, inlined) */
struct lane_walk {
	struct pa_alloc *x; /* the allocation of the lanes before, or NULL */
	size_t ai;
	uint64_t base, bytes; /* x's bounds (0, 0: every lane looks up) */
	uint64_t lanes;       /* x's lanes not yet added to it */
	uint64_t fresh;       /* and its pairs */
	uint64_t page;        /* the page of the lane before */
	struct pa_cell *cells;
	size_t cell;
	uint64_t t;
	uint32_t bucket, stamp;
	uint8_t written;
};

/* Adds the lanes and pairs counted for w->x to it. */
static inline __attribute__((always_inline)) void flush_alloc(struct lane_walk *w)
{
	struct pa_alloc *x = w->x;
	if (!x)
		return;
	x->thread_accesses += w->lanes;
	if (w->fresh) {
		if (!x->accesses)
			x->first_time = w->t;
		x->accesses += w->fresh;
		x->last_time = w->t;
	}
	w->lanes = w->fresh = 0;
}

/* One lane. A lane in the allocation of the lane before needs no look-up,
 * and one on its page no test (coalesced lanes share both). */
static inline __attribute__((always_inline)) void record_lane(struct gpuvm_page_access *pa,
								struct lane_walk *w, uint64_t addr)
{
	if (addr - w->base >= w->bytes) {
		size_t found = find_alloc(pa, addr);
		if (found == SIZE_MAX) {
			pa->unattributed++;
			return;
		}
		flush_alloc(w);
		w->ai = found;
		w->x = &pa->allocs[found];
		w->base = w->x->a.base;
		w->bytes = w->x->a.bytes;
		w->cells = w->x->cell;
		w->page = UINT64_MAX;
	}
	w->lanes++;
	uint64_t pg = (addr - w->base) >> pa->page_shift;
	if (pg != w->page) {
		w->page = pg;
		bool first = seen_first(pa, w->ai, pg, w->stamp);
		w->fresh += first;
		if (w->cells) {
			w->cell = (size_t)w->bucket * w->x->rows + (pg >> w->x->row_shift);
			w->cells[w->cell].acc += first;
		}
	}
	if (w->cells) {
		w->cells[w->cell].thr++;
		w->x->wr[w->cell] |= w->written;
	}
}

static void record(struct gpuvm_page_access *pa, const struct gpuvm_warp_item *it)
{
	struct lane_walk w = {.ai = SIZE_MAX, .page = UINT64_MAX};
	w.t = pa->t++;
	if (!pa->totals_only) {
		if ((w.t >> pa->width_shift) >= pa->buckets)
			merge_buckets(pa);
		w.bucket = (uint32_t)(w.t >> pa->width_shift);
	}
	w.written = it->op != GPUVM_OP_LOAD;
	if (!++pa->stamp) { /* wrapped: no slot may hold the new stamp */
		memset(pa->seen, 0, sizeof pa->seen);
		pa->stamp = 1;
	}
	w.stamp = pa->stamp;
	/* distinct (allocation, page) pairs of this instruction: an access
	 * counter counts a page once per instruction, as the GMMU does on
	 * its translation (Ganguly §IV "Access Counter Maintenance") */
	if (it->active_mask == 0xffffffffu) {
		/* all lanes active (most instructions): lanes that differ
		 * only below the page bits (an OR of XORs, which vectorizes)
		 * lie in one page frame; inside one allocation that holds the
		 * whole frame they are one pair */
		typedef uint64_t u64x2 __attribute__((vector_size(16)));
		uint64_t a0 = it->addr[0];
		u64x2 first = {a0, a0}, acc = {0, 0};
		for (uint32_t l = 0; l < GPUVM_WARP_LANES; l += 2) {
			u64x2 v;
			memcpy(&v, &it->addr[l], sizeof v);
			acc |= v ^ first;
		}
		uint64_t differ = acc[0] | acc[1];
		uint64_t page_mask = (1ull << pa->page_shift) - 1;
		size_t ai = (differ & ~page_mask) ? SIZE_MAX : find_alloc(pa, a0);
		struct pa_alloc *x = ai == SIZE_MAX ? NULL : &pa->allocs[ai];
		uint64_t frame = a0 & ~page_mask;
		if (x && frame >= x->a.base && frame + page_mask - x->a.base < x->a.bytes &&
		    !((frame - x->a.base) & page_mask)) {
			uint64_t pg = (frame - x->a.base) >> pa->page_shift;
			x->thread_accesses += GPUVM_WARP_LANES;
			if (!x->accesses++)
				x->first_time = w.t;
			x->last_time = w.t;
			if (x->cell) {
				size_t cell = (size_t)w.bucket * x->rows + (pg >> x->row_shift);
				x->cell[cell].acc++;
				x->cell[cell].thr += GPUVM_WARP_LANES;
				x->wr[cell] |= w.written;
			}
			return;
		}
		for (uint32_t l = 0; l < GPUVM_WARP_LANES; l++) /* no bit scan */
			record_lane(pa, &w, it->addr[l]);
	} else {
		for (uint32_t m = it->active_mask; m; m &= m - 1)
			record_lane(pa, &w, it->addr[__builtin_ctz(m)]);
	}
	flush_alloc(&w);
}

/* A paging decision over [addr, addr + bytes) now: counted in the cells of
 * the current time bucket (the engine takes it while handling an
 * instruction it has pulled, so the pull count is its time as well). A
 * page decision counts its pages per row, a remote access once. */
static void on_decision(void *ctx, uint64_t addr, uint64_t bytes, enum gpuvm_uvm_decision d)
{
	struct gpuvm_page_access *pa = ctx;
	if (pa->totals_only)
		return; /* no cells to colour */
	uint64_t t = pa->t ? pa->t - 1 : 0;
	uint32_t bucket = (uint32_t)(t >> pa->width_shift);
	uint64_t page_bytes = 1ull << pa->page_shift;
	for (uint64_t a = addr, end = addr + (bytes ? bytes : 1); a < end;) {
		size_t ai = find_alloc(pa, a);
		if (ai == SIZE_MAX) {
			a = (a | (page_bytes - 1)) + 1;
			continue;
		}
		struct pa_alloc *x = &pa->allocs[ai];
		if (!x->dec) {
			x->dec = calloc((size_t)pa->buckets * x->rows * GPUVM_UVM_DECISIONS,
					sizeof *x->dec);
			if (!x->dec)
				return; /* the map loses colour, not the run */
		}
		uint64_t stop = x->a.base + x->a.bytes < end ? x->a.base + x->a.bytes : end;
		uint64_t p0 = (a - x->a.base) >> pa->page_shift;
		uint64_t p1 = (stop - 1 - x->a.base) >> pa->page_shift; /* last page, inclusive */
		for (uint64_t p = p0; p <= p1;) {
			uint64_t row = p >> x->row_shift;
			uint64_t row_end = (row + 1) << x->row_shift; /* first page of the next row */
			uint64_t n = (row_end <= p1 ? row_end : p1 + 1) - p;
			size_t cell = ((size_t)bucket * x->rows + row) * GPUVM_UVM_DECISIONS + d;
			x->dec[cell] += d == GPUVM_UVM_REMOTE ? 1 : (uint32_t)n;
			p += n;
		}
		pa->decisions++;
		a = stop;
	}
}

void gpuvm_page_access_observer(struct gpuvm_page_access *pa, struct gpuvm_uvm_observer *out)
{
	*out = (struct gpuvm_uvm_observer){.decision = on_decision, .ctx = pa};
}

uint64_t gpuvm_page_access_decisions(const struct gpuvm_page_access *pa)
{
	return pa->decisions;
}

/* The wrapper source and its wrapped kernels. */
struct pa_source {
	struct gpuvm_source inner;
	struct gpuvm_page_access *pa;
	struct gpuvm_kernel kernel;     /* the wrapped kernel handed to the engine */
	struct gpuvm_kernel_ops kops;
	struct gpuvm_kernel *inner_kernel;
	size_t kernel_index;
};

static void pk_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct pa_source *ws = k->impl;
	ws->inner_kernel->ops->warp_begin(ws->inner_kernel, state, cta, warp);
}

static int pk_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *item,
		   struct gpuvm_error *err)
{
	struct pa_source *ws = k->impl;
	/* what the engine set on the kernel it sees, the inner one reads */
	ws->inner_kernel->clock_cycles = k->clock_cycles;
	ws->inner_kernel->functional = k->functional;
	int rc = ws->inner_kernel->ops->warp_next(ws->inner_kernel, state, item, err);
	if (rc == 0 && item->kind == GPUVM_ITEM_MEM && item->space == GPUVM_SPACE_GLOBAL) {
		ws->pa->kernels[ws->kernel_index].mem_insts++;
		record(ws->pa, item);
	}
	return rc;
}

static void pk_prefetch(struct gpuvm_kernel *k, const void *state)
{
	struct pa_source *ws = k->impl;
	ws->inner_kernel->ops->warp_prefetch(ws->inner_kernel, state);
}

static void pk_end(struct gpuvm_kernel *k, void *state)
{
	struct pa_source *ws = k->impl;
	if (ws->inner_kernel->ops->warp_end)
		ws->inner_kernel->ops->warp_end(ws->inner_kernel, state);
}

static int ps_next_op(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct pa_source *ws = s->impl;
	struct gpuvm_page_access *pa = ws->pa;
	ws->inner.now_seconds = s->now_seconds; /* the engine's clock, passed on */
	if (ws->inner.ops->next_op(&ws->inner, op, err) < 0)
		return -1;
	switch (op->kind) {
	case GPUVM_RUN_ALLOC:
		return add_alloc(pa, &op->alloc, err);
	case GPUVM_RUN_FREE:
		free_alloc(pa, op->alloc.base);
		return 0;
	case GPUVM_RUN_KERNEL: {
		if (VEC_RESERVE(pa->kernels, pa->cap_kernels, pa->n_kernels + 1))
			return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
		struct pa_kernel *pk = &pa->kernels[pa->n_kernels];
		snprintf(pk->name, sizeof pk->name, "%s", op->kernel->name);
		pk->first_time = pa->t;
		pk->mem_insts = 0;
		ws->kernel_index = pa->n_kernels++;
		ws->inner_kernel = op->kernel;
		ws->kernel = *op->kernel;
		ws->kops = (struct gpuvm_kernel_ops){
			.warp_state_bytes = op->kernel->ops->warp_state_bytes,
			.warp_begin = pk_begin,
			.warp_next = pk_next,
			.warp_end = pk_end,
			/* the engine's hint, passed on where the inner kernel
			 * takes it (without it the recorder slowed the run
			 * down by more than its own work) */
			.warp_prefetch = op->kernel->ops->warp_prefetch ? pk_prefetch : NULL,
		};
		ws->kernel.ops = &ws->kops;
		/* One wrapper ops table stands for every inner one, so kernel
		 * sampling could not tell classes apart: run every launch in
		 * detail under --page-map. */
		ws->kernel.sampleable = false;
		/* every warp's accesses go into one map, in the engine's order:
		 * the partitions of core.window run one after another */
		ws->kernel.warps_independent = false;
		ws->kernel.impl = ws;
		op->kernel = &ws->kernel;
		return 0;
	}
	default:
		return 0;
	}
}

static void ps_result(struct gpuvm_source *s, char *buf, size_t len)
{
	struct pa_source *ws = s->impl;
	if (ws->inner.ops->result)
		ws->inner.ops->result(&ws->inner, buf, len);
	else if (len)
		buf[0] = 0;
}

static uint64_t ps_work_items(struct gpuvm_source *s)
{
	struct pa_source *ws = s->impl;
	return ws->inner.ops->work_items ? ws->inner.ops->work_items(&ws->inner) : 0;
}

static void ps_destroy(struct gpuvm_source *s)
{
	struct pa_source *ws = s->impl;
	if (ws->inner.ops)
		ws->inner.ops->destroy(&ws->inner);
	free(ws);
}

static const struct gpuvm_source_ops page_access_ops = {
	.kind = "page-access",
	.next_op = ps_next_op,
	.result = ps_result,
	.work_items = ps_work_items,
	.destroy = ps_destroy,
};

int gpuvm_page_access_wrap(struct gpuvm_page_access *pa, struct gpuvm_source *src,
			   struct gpuvm_error *err)
{
	struct pa_source *ws = calloc(1, sizeof *ws);
	if (!ws)
		return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
	ws->inner = *src;
	ws->pa = pa;
	src->ops = &page_access_ops;
	src->impl = ws;
	return 0;
}

/* Queries */
uint64_t gpuvm_page_access_mem_insts(const struct gpuvm_page_access *pa) { return pa->t; }

uint32_t gpuvm_page_access_buckets(const struct gpuvm_page_access *pa)
{
	if (!pa->t)
		return 0;
	return (uint32_t)(((pa->t - 1) >> pa->width_shift) + 1);
}

uint64_t gpuvm_page_access_bucket_width(const struct gpuvm_page_access *pa)
{
	return 1ull << pa->width_shift;
}

size_t gpuvm_page_access_allocs(const struct gpuvm_page_access *pa) { return pa->n_allocs; }

void gpuvm_page_access_alloc_info(const struct gpuvm_page_access *pa, size_t i,
				  struct gpuvm_page_access_alloc *out)
{
	const struct pa_alloc *x = &pa->allocs[i];
	*out = (struct gpuvm_page_access_alloc){
		.alloc = x->a, .pages = x->pages, .pages_per_row = x->pages_per_row,
		.rows = x->rows, .accesses = x->accesses, .thread_accesses = x->thread_accesses,
		.first_time = x->first_time, .last_time = x->last_time,
	};
}

void gpuvm_page_access_cell(const struct gpuvm_page_access *pa, size_t alloc, uint32_t row,
			    uint32_t bucket, struct gpuvm_page_access_cell *out)
{
	const struct pa_alloc *x = &pa->allocs[alloc];
	*out = (struct gpuvm_page_access_cell){0};
	if (!x->cell)
		return; /* totals_only */
	size_t c = (size_t)bucket * x->rows + row;
	*out = (struct gpuvm_page_access_cell){x->cell[c].acc, x->cell[c].thr, x->wr[c] != 0, {0}};
	for (unsigned d = 0; x->dec && d < GPUVM_UVM_DECISIONS; d++)
		out->decisions[d] = x->dec[c * GPUVM_UVM_DECISIONS + d];
}

int gpuvm_page_access_cell_decision(const struct gpuvm_page_access_cell *c)
{
	int best = -1;
	for (int d = 0; d < GPUVM_UVM_DECISIONS; d++)
		if (c->decisions[d] && (best < 0 || c->decisions[d] > c->decisions[best]))
			best = d;
	return best;
}

uint64_t gpuvm_page_access_page_bytes(const struct gpuvm_page_access *pa)
{
	return 1ull << pa->page_shift;
}

uint64_t gpuvm_page_access_unattributed(const struct gpuvm_page_access *pa)
{
	return pa->unattributed;
}

size_t gpuvm_page_access_kernels(const struct gpuvm_page_access *pa) { return pa->n_kernels; }

void gpuvm_page_access_kernel_info(const struct gpuvm_page_access *pa, size_t i,
				   struct gpuvm_page_access_kernel *out)
{
	*out = (struct gpuvm_page_access_kernel){pa->kernels[i].name, pa->kernels[i].first_time,
						 pa->kernels[i].mem_insts};
}
