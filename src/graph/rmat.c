/* R-MAT / Kronecker graphs with the Graph500 generator.
 *
 * Graph500 specification (graph500.org, "Graph generation" section, and
 * its octave reference kronecker_generator.m, graph500-2.1.4/octave):
 * N = 2^SCALE vertices, M = edgefactor * N edges (edgefactor 16), and for
 * each of the SCALE bit levels an edge independently falls into quadrant
 * A = 0.57 (row bit 0, column bit 0), B = 0.19 (0, 1), C = 0.19 (1, 0) or
 * D = 1 - A - B - C = 0.05 (1, 1); the reference draws this as two
 * comparisons (row bit with P = C + D, column bit conditioned on it),
 * which is the same distribution as one draw against A, A+B, A+B+C used
 * here. Then the vertex labels are randomly permuted (randperm(N)); the
 * final shuffle of the edge list is irrelevant to a CSR and skipped.
 *
 * Edge e draws from its own counter-based stream (splitmix64 seeded by the
 * seed and e), 16 bits per two levels (see pair_table). That makes the edge list a pure
 * function of (seed, e): the CSR is built in two passes over the same
 * stream (count degrees, then place) without ever storing the edge list,
 * so the peak memory is the CSR itself. With opts->threads > 1 the
 * batches are generated on a fork-join pool while the calling thread
 * hands the ones before them to the CSR builder in edge order (below,
 * rmat_pass_run): the builder sees the same batches in the same
 * order, so the graph is the same at any thread count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/splitmix.h"
#include "graph/csr_build.h"
#include "gpuvm/units.h"
#include "par/fork_join.h"

#define GRAPH500_A 0.57
#define GRAPH500_B 0.19
#define GRAPH500_C 0.19
#define GRAPH500_EDGE_FACTOR 16

/* Two levels per 16-bit draw: pair_table[r] holds the row bits (bits 0-1)
 * and column bits (bits 2-3) of two levels, each of the 16 joint outcomes
 * taking round(P * 65536) of the 65536 entries (quantisation < 2^-16
 * per outcome). A 64 KiB table stays in cache; one lookup replaces two
 * levels of compares. */
struct rmat_gen {
	unsigned scale;
	uint64_t key;            /* stream key derived from the seed */
	uint8_t pair_table[65536];
};

static inline void rmat_edge(const struct rmat_gen *gen, uint64_t e, uint32_t *u, uint32_t *v)
{
	uint64_t s = gen->key ^ (e * 0xD1B54A32D192ED03ull);
	uint32_t row = 0, col = 0;
	uint64_t bits = 0;
	for (unsigned level = 0, pair = 0; level < gen->scale; level += 2, pair++) {
		if ((pair & 3) == 0)
			bits = splitmix64_next(&s);
		uint32_t q = gen->pair_table[bits & 0xffff];
		bits >>= 16;
		row |= (q & 3u) << level;
		col |= (q >> 2) << level;
	}
	/* an odd scale drew one level too many: drop the top bit */
	uint32_t mask = gen->scale >= 32 ? UINT32_MAX : (uint32_t)((1ull << gen->scale) - 1);
	*u = row & mask;
	*v = col & mask;
}

#define RMAT_BATCH 4096

/* Edges [e0, e0 + k) into u, v: generated, then relabelled in a separate
 * tight loop so the permutation's cache misses overlap. */

static void rmat_batch(const struct rmat_gen *gen, const uint32_t *perm, uint64_t e0, size_t k,
		       uint32_t *u, uint32_t *v)
{
	for (size_t i = 0; i < k; i++)
		rmat_edge(gen, e0 + i, &u[i], &v[i]);
	if (perm)
		for (size_t i = 0; i < k; i++) {
			u[i] = perm[u[i]];
			v[i] = perm[v[i]];
		}
}

static size_t batch_edges(uint64_t m, uint64_t e)
{
	return m - e < RMAT_BATCH ? (size_t)(m - e) : RMAT_BATCH;
}

/* One pass (count or place) on a pool: each round, tasks 1..batches
 * generate the next `batches` batches into one buffer set while task 0
 * hands the previous round's set to the builder, batch by batch in edge
 * order. Generation is most of a pass (a splitmix64 draw per 8 levels and
 * two permutation lookups an edge against one counter or cursor update),
 * so it is what the helpers take; the builder's updates stay on one task
 * because its cursors are shared by every batch. */
struct rmat_pass {
	const struct rmat_gen *gen;
	const uint32_t *perm;
	struct csr_build *bld;
	bool place;        /* the second pass */
	uint64_t m;
	uint32_t batches;  /* generated a round */
	uint32_t *set[2];  /* batches x (u, v) x RMAT_BATCH words each */
	int gen_set;       /* the set generated this round; the other is handed on */
	uint64_t gen_e;    /* first edge generated this round (>= m: none) */
	uint64_t use_e;    /* first edge handed on this round (UINT64_MAX: none) */
};

/* k edges of the pass, generated into u and v, to the builder: counted
 * (the first pass) or placed (the second). */
static void hand_on(const struct rmat_pass *p, const uint32_t *u, const uint32_t *v, size_t k)
{
	if (p->place)
		csr_place_batch(p->bld, u, v, NULL, k);
	else
		csr_count_batch(p->bld, u, v, k);
}

static void rmat_pass_task(void *ctx, uint32_t task)
{
	struct rmat_pass *p = ctx;
	if (task == 0) {
		if (p->use_e == UINT64_MAX)
			return;
		const uint32_t *set = p->set[!p->gen_set];
		for (uint32_t b = 0; b < p->batches; b++) {
			uint64_t e = p->use_e + (uint64_t)b * RMAT_BATCH;
			if (e >= p->m)
				break;
			const uint32_t *u = set + (size_t)b * 2 * RMAT_BATCH;
			hand_on(p, u, u + RMAT_BATCH, batch_edges(p->m, e));
		}
		return;
	}
	uint64_t e = p->gen_e + (uint64_t)(task - 1) * RMAT_BATCH;
	if (e >= p->m)
		return;
	uint32_t *u = p->set[p->gen_set] + (size_t)(task - 1) * 2 * RMAT_BATCH;
	rmat_batch(p->gen, p->perm, e, batch_edges(p->m, e), u, u + RMAT_BATCH);
}

/* One pass: on the pool when there is one, else batch by batch through
 * set[0]. */
static void rmat_pass_run(struct fork_join *fj, struct rmat_pass *p)
{
	if (!fj) {
		uint32_t *u = p->set[0];
		for (uint64_t e = 0; e < p->m; e += RMAT_BATCH) {
			size_t k = batch_edges(p->m, e);
			rmat_batch(p->gen, p->perm, e, k, u, u + RMAT_BATCH);
			hand_on(p, u, u + RMAT_BATCH, k);
		}
		return;
	}
	uint64_t span = (uint64_t)p->batches * RMAT_BATCH;
	p->gen_set = 0;
	p->use_e = UINT64_MAX;
	for (p->gen_e = 0;; p->gen_e += span) {
		fork_join_run(fj, rmat_pass_task, p);
		if (p->gen_e >= p->m)
			break; /* that round handed on the last set */
		p->use_e = p->gen_e;
		p->gen_set = !p->gen_set;
	}
}

/* Fills the two-level table from the one-level quadrant probabilities
 * q[row bit][col bit]: outcome (r1 r0, c1 c0) has P = q[r0][c0] * q[r1][c1].
 * Entries are handed out by cumulative rounding, so they sum to 65536. */
static void fill_pair_table(struct rmat_gen *gen, double a, double b, double c)
{
	double q[2][2] = {{a, b}, {c, 1.0 - a - b - c}};
	double cum = 0;
	uint32_t at = 0;
	for (uint32_t outcome = 0; outcome < 16; outcome++) {
		uint32_t r0 = outcome & 1, r1 = (outcome >> 1) & 1;
		uint32_t c0 = (outcome >> 2) & 1, c1 = (outcome >> 3) & 1;
		cum += q[r0][c0] * q[r1][c1];
		double endf = nearbyint(cum * 65536.0);
		uint32_t end = outcome == 15 ? 65536 : endf > 65536 ? 65536 : (uint32_t)endf;
		for (; at < end; at++)
			gen->pair_table[at] = (uint8_t)outcome;
	}
}

int gpuvm_graph_rmat(const struct gpuvm_rmat_params *p, const struct gpuvm_graph_opts *opts,
		     struct gpuvm_graph *g, struct gpuvm_error *err)
{
	memset(g, 0, sizeof *g);
	if (p->scale < 1 || p->scale > 31)
		return gpuvm_fail(err, "rmat", 0, "scale", "%u outside 1..31", p->scale);
	double a = p->a ? p->a : GRAPH500_A, b = p->b ? p->b : GRAPH500_B,
	       c = p->c ? p->c : GRAPH500_C;
	if (!(a > 0 && b >= 0 && c >= 0 && a + b + c < 1.0))
		return gpuvm_fail(err, "rmat", 0, NULL,
				  "a=%g b=%g c=%g: need a > 0, b, c >= 0 and a + b + c < 1", a, b, c);
	uint64_t n = 1ull << p->scale;
	if (n > graph_max_vertices(opts))
		return gpuvm_fail(err, "rmat", 0, "scale", "2^%u vertices: more than the limit of %llu",
				  p->scale, (unsigned long long)graph_max_vertices(opts));
	uint64_t ef = p->edge_factor ? p->edge_factor : GRAPH500_EDGE_FACTOR;
	uint64_t m = ef * n;
	/* generated in batches: the CSR (and the permutation) are the peak */
	char driver[80];
	snprintf(driver, sizeof driver, "scale=%u (2^%u vertices, %llu edges)", p->scale,
		 p->scale, (unsigned long long)m);
	if (graph_check_host(n + (p->no_permute ? 0 : n / 2), 0, false, false, "rmat", 0, driver,
			     err) ||
	    graph_check_host(n, m, false, opts->symmetrize, "rmat", 0, driver, err))
		return -1;

	struct rmat_gen *gen = malloc(sizeof *gen);
	if (!gen)
		return gpuvm_fail(err, "rmat", 0, NULL, "out of memory");
	gen->scale = p->scale;
	fill_pair_table(gen, a, b, c);
	uint64_t ks = p->seed ^ 0x6A09E667F3BCC909ull; /* separate from the weights' stream */
	gen->key = splitmix64_next(&ks);
	uint32_t *perm = NULL;
	if (!p->no_permute) {
		perm = graph_alloc_big(n * sizeof *perm);
		if (!perm) {
			free(gen);
			return gpuvm_fail(err, "rmat", 0, NULL, "out of memory (permutation)");
		}
		for (uint64_t i = 0; i < n; i++)
			perm[i] = (uint32_t)i;
		uint64_t ps = p->seed ^ 0xBB67AE8584CAA73Bull;
		for (uint64_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
			uint64_t j = (uint64_t)(((unsigned __int128)splitmix64_next(&ps) * (i + 1)) >> 64);
			uint32_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
	}

	struct csr_build bld;
	if (csr_begin(&bld, (uint32_t)n, opts->symmetrize, !opts->keep_self_loops, false,
		      err)) {
		free(perm);
		free(gen);
		return -1;
	}
	/* threads: rounds of 8 batches a thread (two sets: 512 KiB of buffers a
	 * thread), and only for graphs of more than a few rounds */
	struct rmat_pass pass = {.gen = gen, .perm = perm, .bld = &bld, .m = m};
	struct fork_join *fj = NULL;
	if (opts->threads > 1) {
		uint32_t threads = graph_threads(opts);
		pass.batches = 8 * threads;
		if (m > 4ull * pass.batches * RMAT_BATCH)
			fj = fork_join_new(threads, pass.batches + 1);
	}
	size_t words = fj ? 2 * (size_t)pass.batches : 1;
	uint32_t *u = malloc(2 * words * RMAT_BATCH * sizeof *u);
	if (!u) {
		fork_join_free(fj);
		free(perm);
		free(gen);
		csr_abandon(&bld);
		return gpuvm_fail(err, "rmat", 0, NULL, "out of memory");
	}
	pass.set[0] = u;
	pass.set[1] = u + words * RMAT_BATCH;
	rmat_pass_run(fj, &pass);
	if (csr_alloc(&bld, err)) {
		fork_join_free(fj);
		free(u);
		free(perm);
		free(gen);
		csr_abandon(&bld);
		return -1;
	}
	pass.place = true;
	rmat_pass_run(fj, &pass);
	fork_join_free(fj);
	free(u);
	free(perm);
	free(gen);
	if (csr_finish(&bld, opts, true, g, err)) {
		csr_abandon(&bld);
		return -1;
	}
	return 0;
}
