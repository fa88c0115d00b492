#include "graph/csr_build.h"

#include "gpuvm/host_memory.h"

#include "par/fork_join.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE_BYTES (2u << 20)

void *graph_alloc_big(size_t bytes)
{
	if (bytes < 2 * HUGE_PAGE_BYTES)
		return malloc(bytes ? bytes : 1);
	void *p = NULL;
	size_t rounded = (bytes + HUGE_PAGE_BYTES - 1) & ~(size_t)(HUGE_PAGE_BYTES - 1);
	if (posix_memalign(&p, HUGE_PAGE_BYTES, rounded) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, rounded, MADV_HUGEPAGE); /* advice only: failure is harmless */
#endif
	return p;
}

int csr_begin(struct csr_build *b, uint32_t n, bool mirror, bool drop_loops, bool has_weights,
	      struct gpuvm_error *err)
{
	memset(b, 0, sizeof *b);
	b->n = n;
	b->mirror = mirror;
	b->drop_loops = drop_loops;
	b->has_weights = has_weights;
	b->off = graph_alloc_big(((size_t)n + 1) * sizeof *b->off);
	if (b->off)
		memset(b->off, 0, ((size_t)n + 1) * sizeof *b->off);
	if (!b->off)
		return gpuvm_fail(err, "graph", 0, NULL, "out of memory (%u vertices)", n);
	return 0;
}

int csr_alloc(struct csr_build *b, struct gpuvm_error *err)
{
	for (uint64_t i = 0; i < b->n; i++)
		b->off[i + 1] += b->off[i];
	uint64_t m = b->off[b->n];
	/* off[u] is now the start of row u and serves as its cursor. */
	for (uint64_t i = b->n; i > 0; i--)
		b->off[i] = b->off[i - 1];
	b->off[0] = 0;
	/* ...shifted so that off[u + 1] is row u's cursor: placing into row u
	 * advances off[u + 1] from start(u) to end(u) = start(u + 1). */
	b->col = graph_alloc_big(m * sizeof *b->col);
	if (b->has_weights)
		b->w = graph_alloc_big(m * sizeof *b->w);
	if (!b->col || (b->has_weights && !b->w))
		return gpuvm_fail(err, "graph", 0, NULL, "out of memory (%llu edges)",
				  (unsigned long long)m);
	return 0;
}

#define PREFETCH_AHEAD 16

void csr_count_batch(struct csr_build *b, const uint32_t *u, const uint32_t *v, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		if (i + PREFETCH_AHEAD < k) {
			__builtin_prefetch(&b->off[u[i + PREFETCH_AHEAD] + 1], 1);
			if (b->mirror)
				__builtin_prefetch(&b->off[v[i + PREFETCH_AHEAD] + 1], 1);
		}
		csr_count(b, u[i], v[i]);
	}
}

void csr_place_batch(struct csr_build *b, const uint32_t *u, const uint32_t *v,
		     const uint32_t *w, size_t k)
{
	uint64_t *off = b->off;
	for (size_t i = 0; i < k; i++) {
		/* two stages: the cursor two strides ahead, the edge slot it
		 * points at one stride ahead */
		if (i + 2 * PREFETCH_AHEAD < k) {
			__builtin_prefetch(&off[u[i + 2 * PREFETCH_AHEAD] + 1], 1);
			if (b->mirror)
				__builtin_prefetch(&off[v[i + 2 * PREFETCH_AHEAD] + 1], 1);
		}
		if (i + PREFETCH_AHEAD < k) {
			size_t j = i + PREFETCH_AHEAD;
			__builtin_prefetch(&b->col[off[u[j] + 1]], 1);
			if (b->mirror)
				__builtin_prefetch(&b->col[off[v[j] + 1]], 1);
		}
		csr_place(b, u[i], v[i], w ? w[i] : 0);
	}
}

/* Sorting rows: insertion sort for short rows, three-way quicksort
 * (R-MAT hub rows hold long runs of duplicates) above. Keys move with
 * their weights when there are weights. */
#define INSERTION_MAX 24

static inline void swap2(uint32_t *k, uint32_t *w, size_t i, size_t j)
{
	uint32_t t = k[i];
	k[i] = k[j];
	k[j] = t;
	if (w) {
		t = w[i];
		w[i] = w[j];
		w[j] = t;
	}
}

static void insertion_sort(uint32_t *k, uint32_t *w, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t key = k[i], wt = w ? w[i] : 0;
		size_t j = i;
		while (j > 0 && k[j - 1] > key) {
			k[j] = k[j - 1];
			if (w)
				w[j] = w[j - 1];
			j--;
		}
		k[j] = key;
		if (w)
			w[j] = wt;
	}
}

static uint32_t median3(uint32_t a, uint32_t b, uint32_t c)
{
	if (a > b) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	return c < a ? a : c > b ? b : c;
}

static void sort_row(uint32_t *k, uint32_t *w, size_t n)
{
	while (n > INSERTION_MAX) {
		uint32_t pivot = median3(k[0], k[n / 2], k[n - 1]);
		/* Dutch flag: [0,lt) < pivot, [lt,i) == pivot, (gt,n) > pivot */
		size_t lt = 0, i = 0, gt = n;
		while (i < gt) {
			if (k[i] < pivot)
				swap2(k, w, lt++, i++);
			else if (k[i] > pivot)
				swap2(k, w, i, --gt);
			else
				i++;
		}
		/* recurse into the smaller side, loop on the larger */
		if (lt < n - gt) {
			sort_row(k, w, lt);
			k += gt;
			if (w)
				w += gt;
			n -= gt;
		} else {
			sort_row(k + gt, w ? w + gt : NULL, n - gt);
			n = lt;
		}
	}
	insertion_sort(k, w, n);
}

/* Longer rows (R-MAT hubs hold most edges) by LSD radix sort, 8-bit
 * digits (11-bit for long rows, where the bucket scan is amortised), as
 * many passes as the vertex ids have bits: linear time where quicksort's
 * log factor dominated the whole build. Stable, so equal keys
 * keep their order. tk, tw: scratch of n entries. */
#define RADIX_MIN_ROW 96
#define RADIX_BITS 11
#define RADIX_LONG_ROW 4096

static void radix_row(uint32_t *k, uint32_t *w, size_t n, unsigned key_bits, uint32_t *tk,
		      uint32_t *tw)
{
	uint32_t count[1u << RADIX_BITS];
	uint32_t *sk = k, *sw = w, *dk = tk, *dw = tw;
	unsigned digit = n >= RADIX_LONG_ROW ? RADIX_BITS : 8;
	uint32_t mask = (1u << digit) - 1;
	for (unsigned shift = 0; shift < key_bits; shift += digit) {
		memset(count, 0, (mask + 1) * sizeof count[0]);
		for (size_t i = 0; i < n; i++)
			count[(sk[i] >> shift) & mask]++;
		uint32_t sum = 0;
		for (uint32_t d = 0; d <= mask; d++) {
			uint32_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++) {
			uint32_t at = count[(sk[i] >> shift) & mask]++;
			dk[at] = sk[i];
			if (sw)
				dw[at] = sw[i];
		}
		uint32_t *t = sk;
		sk = dk;
		dk = t;
		t = sw;
		sw = dw;
		dw = t;
	}
	if (sk != k) {
		memcpy(k, sk, n * sizeof *k);
		if (w)
			memcpy(w, sw, n * sizeof *w);
	}
}

static void sorted_check_row(uint32_t *k, uint32_t *w, size_t n, unsigned key_bits,
			     uint32_t *tk, uint32_t *tw)
{
	for (size_t i = 1; i < n; i++)
		if (k[i - 1] > k[i]) {
			if (n >= RADIX_MIN_ROW && tk)
				radix_row(k, w, n, key_bits, tk, tw);
			else
				sort_row(k, w, n);
			return;
		}
}

/* Rows [lo, hi) of b, whose edges run from off[lo] to edge_hi (off[hi]
 * before this call: the caller passes it, as the rows after hi may be
 * packed already): each row sorted, its duplicates dropped unless
 * keep_duplicates (the least weight kept), the kept edges packed from
 * off[lo] on, and off[u] set to row u's new start. Returns the end of the
 * packed edges; adds the dropped ones to *dups. tk, tw: radix scratch of
 * the longest row's length, or NULL for quicksort. */
static uint64_t finish_rows(struct csr_build *b, uint32_t lo, uint32_t hi, uint64_t edge_hi,
			    bool dedup, unsigned key_bits, uint32_t *tk, uint32_t *tw, uint64_t *dups)
{
	uint64_t *off = b->off;
	uint32_t *col = b->col, *w = b->w;
	uint64_t begin = lo < hi ? off[lo] : edge_hi, wp = begin;
	for (uint32_t u = lo; u < hi; u++) {
		uint64_t end = u + 1 < hi ? off[u + 1] : edge_hi;
		size_t len = (size_t)(end - begin);
		sorted_check_row(col + begin, w ? w + begin : NULL, len, key_bits, tk, tw);
		off[u] = wp;
		for (uint64_t e = begin; e < end; e++) {
			if (dedup && wp > off[u] && col[wp - 1] == col[e]) {
				if (w && w[e] < w[wp - 1])
					w[wp - 1] = w[e];
				(*dups)++;
				continue;
			}
			col[wp] = col[e];
			if (w)
				w[wp] = w[e];
			wp++;
		}
		begin = end;
	}
	return wp;
}

static uint64_t longest_row(const uint64_t *off, uint32_t lo, uint32_t hi)
{
	uint64_t longest = 0;
	for (uint32_t u = lo; u < hi; u++)
		if (off[u + 1] - off[u] > longest)
			longest = off[u + 1] - off[u];
	return longest;
}

/* Radix scratch for rows up to longest long (none needed below
 * RADIX_MIN_ROW); false when out of memory, both then NULL. */
static bool radix_scratch(uint64_t longest, bool weighted, uint32_t **tk, uint32_t **tw)
{
	*tk = *tw = NULL;
	if (longest < RADIX_MIN_ROW)
		return true;
	*tk = malloc(longest * sizeof **tk);
	*tw = weighted ? malloc(longest * sizeof **tw) : NULL;
	if (*tk && (!weighted || *tw))
		return true;
	free(*tk);
	free(*tw);
	*tk = *tw = NULL;
	return false;
}

/* ---- csr_finish on threads ---------------------------------------------
 * Rows are independent: ranges of rows holding about equal numbers of
 * edges are sorted and packed on a fork-join pool, each in place within
 * its own edges, then moved together in range order on the calling
 * thread, so the arrays end up exactly as the serial loop leaves them. */
#define FINISH_RANGES_PER_THREAD 4
#define FINISH_MIN_EDGES (1u << 16)

struct finish_range {
	uint32_t lo, hi;           /* rows */
	uint64_t edge_lo, edge_hi; /* their edges before packing */
	uint64_t packed_end, dups;
	uint32_t *tk, *tw;
};

struct finish_par {
	struct csr_build *b;
	struct finish_range *r;
	bool dedup;
	unsigned key_bits;
	uint64_t seed; /* for generated weights */
	uint32_t wmax;
};

static void finish_range_task(void *ctx, uint32_t i)
{
	struct finish_par *fp = ctx;
	struct finish_range *r = &fp->r[i];
	r->packed_end = finish_rows(fp->b, r->lo, r->hi, r->edge_hi, fp->dedup, fp->key_bits, r->tk,
				    r->tw, &r->dups);
}

static void generate_weights(const uint64_t *off, const uint32_t *col, uint32_t *w, uint32_t lo,
			     uint32_t hi, uint64_t seed, uint32_t wmax)
{
	for (uint32_t u = lo; u < hi; u++)
		for (uint64_t e = off[u]; e < off[u + 1]; e++)
			w[e] = gpuvm_graph_edge_weight(seed, u, col[e], wmax);
}

static void weights_range_task(void *ctx, uint32_t i)
{
	struct finish_par *fp = ctx;
	generate_weights(fp->b->off, fp->b->col, fp->b->w, fp->r[i].lo, fp->r[i].hi, fp->seed,
			 fp->wmax);
}

/* The first row whose edges start at or after edge. */
static uint32_t row_at_edge(const uint64_t *off, uint32_t n, uint64_t edge)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (off[mid] < edge)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sorts and packs every row of b on fj's threads (nr ranges, one task
 * each). Returns false, having changed nothing, when the ranges' scratch
 * cannot be had. */
static bool finish_rows_parallel(struct fork_join *fj, struct finish_par *fp, uint32_t nr,
				 uint64_t *wp_out, uint64_t *dups_out)
{
	struct csr_build *b = fp->b;
	uint64_t m = b->off[b->n];
	struct finish_range *r = fp->r;
	bool ok = true;
	for (uint32_t i = 0; i < nr; i++) {
		r[i].lo = i ? r[i - 1].hi : 0;
		r[i].hi = i + 1 == nr ? b->n : row_at_edge(b->off, b->n, m / nr * (i + 1));
		if (r[i].hi < r[i].lo)
			r[i].hi = r[i].lo;
		r[i].edge_lo = b->off[r[i].lo];
		r[i].edge_hi = b->off[r[i].hi];
		r[i].dups = 0;
		ok = ok && radix_scratch(longest_row(b->off, r[i].lo, r[i].hi), b->w, &r[i].tk,
					 &r[i].tw);
	}
	if (ok)
		fork_join_run(fj, finish_range_task, fp);
	for (uint32_t i = 0; i < nr; i++) {
		free(r[i].tk);
		free(r[i].tw);
	}
	if (!ok)
		return false;
	/* each range's packed edges moved down to follow the previous one's */
	uint64_t wp = 0, dups = 0;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t len = r[i].packed_end - r[i].edge_lo, gap = r[i].edge_lo - wp;
		if (gap) {
			memmove(b->col + wp, b->col + r[i].edge_lo, len * sizeof *b->col);
			if (b->w)
				memmove(b->w + wp, b->w + r[i].edge_lo, len * sizeof *b->w);
			for (uint32_t u = r[i].lo; u < r[i].hi; u++)
				b->off[u] -= gap;
		}
		wp += len;
		dups += r[i].dups;
	}
	*wp_out = wp;
	*dups_out = dups;
	return true;
}

int csr_finish(struct csr_build *b, const struct gpuvm_graph_opts *opts, bool directed,
	       struct gpuvm_graph *g, struct gpuvm_error *err)
{
	bool dedup = !opts->keep_duplicates;
	uint64_t wp = 0, dups = 0, m = b->off[b->n];
	unsigned key_bits = b->n > 1 ? 32 - (unsigned)__builtin_clz(b->n - 1) : 1;
	uint32_t threads = graph_threads(opts);
	uint32_t nr = threads * FINISH_RANGES_PER_THREAD;
	struct fork_join *fj = NULL;
	struct finish_range *ranges = NULL;
	if (threads > 1 && m >= FINISH_MIN_EDGES) {
		ranges = calloc(nr, sizeof *ranges);
		fj = ranges ? fork_join_new(threads, nr) : NULL;
	}
	struct finish_par fp = {.b = b, .r = ranges, .dedup = dedup, .key_bits = key_bits};
	if (!fj || !finish_rows_parallel(fj, &fp, nr, &wp, &dups)) {
		uint32_t *tk, *tw; /* radix scratch; quicksort if it fails */
		radix_scratch(longest_row(b->off, 0, b->n), b->w, &tk, &tw);
		wp = finish_rows(b, 0, b->n, m, dedup, key_bits, tk, tw, &dups);
		free(tk);
		free(tw);
	}
	uint64_t *off = b->off;
	uint32_t *col = b->col, *w = b->w;
	off[b->n] = wp;
	if (wp < m) { /* give the dropped tail back */
		uint32_t *c2 = realloc(col, (wp ? wp : 1) * sizeof *col);
		if (c2)
			col = c2;
		if (w) {
			uint32_t *w2 = realloc(w, (wp ? wp : 1) * sizeof *w);
			if (w2)
				w = w2;
		}
	}
	if (opts->drop_weights && w) {
		free(w);
		w = NULL;
	}
	/* b owns what is left (csr_abandon frees it if weights fail below) */
	b->col = col;
	b->w = w;
	bool generated = false;
	if (opts->want_weights && !w) {
		w = graph_alloc_big(wp * sizeof *w);
		if (!w) {
			fork_join_free(fj);
			free(ranges);
			return gpuvm_fail(err, "graph", 0, NULL, "out of memory (weights)");
		}
		b->w = w;
		fp.seed = opts->seed;
		fp.wmax = opts->weight_max ? opts->weight_max : GPUVM_GRAPH_WEIGHT_MAX_DEFAULT;
		if (fj) {
			/* the same ranges of rows, now at their packed edges */
			fork_join_run(fj, weights_range_task, &fp);
		} else {
			generate_weights(off, col, w, 0, b->n, fp.seed, fp.wmax);
		}
		generated = true;
	}
	fork_join_free(fj);
	free(ranges);
	memset(g, 0, sizeof *g);
	g->n_vertices = b->n;
	g->n_edges = wp;
	g->row_offsets = off;
	g->col_indices = col;
	g->weights = w;
	g->directed = directed && !b->mirror;
	g->weights_generated = generated;
	g->input_edges = b->input_edges;
	g->self_loops_dropped = b->drop_loops ? b->self_loops : 0;
	g->duplicates_dropped = dups;
	memset(b, 0, sizeof *b);
	return 0;
}

void csr_abandon(struct csr_build *b)
{
	free(b->off);
	free(b->col);
	free(b->w);
	memset(b, 0, sizeof *b);
}

int graph_check_host(uint64_t vertices, uint64_t edges, bool weighted, bool mirror,
		     const char *origin, int line, const char *driver, struct gpuvm_error *err)
{
	/* the edge list as read (u, v[, w]), then the CSR: offsets, and the
	 * columns[, weights] of every edge, twice when mirrored */
	double per_edge = weighted ? 12.0 : 8.0;
	double placed = (double)edges * (mirror ? 2.0 : 1.0) * (weighted ? 8.0 : 4.0);
	double b = (double)(vertices + 1) * 8.0 + (double)edges * per_edge + placed;
	return gpuvm_host_memory_check(b >= 1.8e19 ? UINT64_MAX : (uint64_t)b, origin, line,
				       driver, err);
}

uint64_t graph_max_vertices(const struct gpuvm_graph_opts *opts)
{
	uint64_t lim = UINT32_MAX;
	if (opts->max_vertices && opts->max_vertices < lim)
		lim = opts->max_vertices;
	return lim;
}
