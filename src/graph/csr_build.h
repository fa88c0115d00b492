/* Building a CSR graph from an edge stream with a counting sort: one pass
 * counts degrees, a second places the edges (the caller replays its
 * stream: an edge list in memory, or a generator), then csr_finish sorts
 * each row, drops self loops / duplicates and adds weights. The row
 * offsets double as placement cursors, so the peak is the CSR itself. */
#ifndef GPUVM_GRAPH_CSR_BUILD_H
#define GPUVM_GRAPH_CSR_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/config.h"
#include "gpuvm/graph.h"

struct csr_build {
	uint32_t n;
	bool mirror;      /* place (v,u) too */
	bool drop_loops;
	bool has_weights; /* edges carry weights from the input */
	uint64_t *off;    /* [n+1]: counts, then cursors, then offsets */
	uint32_t *col, *w;
	uint64_t input_edges, self_loops;
};

/* Zeroed degree counts for n vertices. */
int csr_begin(struct csr_build *b, uint32_t n, bool mirror, bool drop_loops, bool has_weights,
	      struct gpuvm_error *err);

static inline void csr_count(struct csr_build *b, uint32_t u, uint32_t v)
{
	b->input_edges++;
	if (u == v) {
		b->self_loops++;
		if (!b->drop_loops)
			b->off[u + 1]++;
		return;
	}
	b->off[u + 1]++;
	if (b->mirror)
		b->off[v + 1]++;
}

/* After counting: prefix sums and the edge arrays. */
int csr_alloc(struct csr_build *b, struct gpuvm_error *err);

static inline void csr_place(struct csr_build *b, uint32_t u, uint32_t v, uint32_t w)
{
	if (u == v) {
		if (!b->drop_loops) {
			uint64_t at = b->off[u + 1]++;
			b->col[at] = v;
			if (b->w)
				b->w[at] = w;
		}
		return;
	}
	uint64_t at = b->off[u + 1]++;
	b->col[at] = v;
	if (b->w)
		b->w[at] = w;
	if (b->mirror) {
		at = b->off[v + 1]++;
		b->col[at] = u;
		if (b->w)
			b->w[at] = w;
	}
}

/* The same for k edges at once, with prefetching: a batch of independent
 * random increments keeps many cache misses in flight, where one edge at
 * a time between long computations keeps one. The path for big inputs. */
void csr_count_batch(struct csr_build *b, const uint32_t *u, const uint32_t *v, size_t k);
void csr_place_batch(struct csr_build *b, const uint32_t *u, const uint32_t *v,
		     const uint32_t *w, size_t k);

/* After placing every counted edge: sorted rows, duplicates dropped unless
 * opts->keep_duplicates (the least weight wins), weights generated when
 * opts->want_weights and the input had none. Moves the arrays into g. */
int csr_finish(struct csr_build *b, const struct gpuvm_graph_opts *opts, bool directed,
	       struct gpuvm_graph *g, struct gpuvm_error *err);

void csr_abandon(struct csr_build *b);

/* The host threads a graph build may use: opts->threads, at most
 * GPUVM_MAX_THREADS (0 and 1: the caller's alone). */
static inline uint32_t graph_threads(const struct gpuvm_graph_opts *opts)
{
	return opts->threads > GPUVM_MAX_THREADS ? GPUVM_MAX_THREADS : opts->threads;
}

/* malloc for the big arrays (offsets, edges, permutation): 2 MiB aligned
 * and advised to transparent huge pages above 4 MiB, because the CSR
 * build writes them at random and 4 KiB pages would make nearly every
 * write a TLB miss. Freed with free(). */
void *graph_alloc_big(size_t bytes);

/* Vertex limit from opts (at most 2^32 - 1: column indices are 32-bit). */
uint64_t graph_max_vertices(const struct gpuvm_graph_opts *opts);

/* The host-memory bound (gpuvm/host_memory.h) for a graph of vertices and
 * edges as a header declares them, before anything is allocated; driver
 * names what declared them in the message. */
int graph_check_host(uint64_t vertices, uint64_t edges, bool weighted, bool mirror,
		     const char *origin, int line, const char *driver, struct gpuvm_error *err);

#endif
