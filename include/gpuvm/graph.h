/* Graph inputs for the graph kernels (bfs, sssp, mis, pagerank, color, bc):
 * a CSR graph read from Matrix Market, DIMACS shortest-path or SNAP
 * edge-list files, or generated as an R-MAT / Kronecker graph with the
 * Graph500 parameters and a seed.
 *
 * Readers stream their input line by line (the only whole-input array is
 * the edge list), then build the CSR with a counting sort; the generator
 * builds the CSR directly in two passes over a counter-based random
 * stream, so its peak memory is the CSR itself. A malformed file gets
 * "file:line: problem". */
#ifndef GPUVM_GRAPH_H
#define GPUVM_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/error.h"

enum gpuvm_graph_format {
	GPUVM_GRAPH_AUTO = 0, /* by extension: .mtx, .gr, anything else SNAP */
	GPUVM_GRAPH_MTX,      /* Matrix Market coordinate */
	GPUVM_GRAPH_DIMACS,   /* DIMACS shortest path: "p sp n m", "a u v w" */
	GPUVM_GRAPH_SNAP,     /* SNAP edge list: "# comment", "u v" pairs */
};

/* Compressed sparse rows: the out-neighbours of vertex u are
 * col_indices[row_offsets[u] .. row_offsets[u+1]), sorted ascending. */
struct gpuvm_graph {
	uint32_t n_vertices;
	uint64_t n_edges;       /* stored (directed) edges = row_offsets[n_vertices] */
	uint64_t *row_offsets;  /* [n_vertices + 1] */
	uint32_t *col_indices;  /* [n_edges] */
	uint32_t *weights;      /* [n_edges], or NULL for an unweighted graph */
	bool directed;          /* false: (u,v) stored iff (v,u) stored */
	bool weights_generated; /* weights came from the seed, not the input */
	uint64_t input_edges;   /* entries read or generated, before cleaning */
	uint64_t self_loops_dropped, duplicates_dropped;
	/* SNAP inputs: file id of each dense vertex (ids are remapped to their
	 * rank among the distinct ids, so 0..n-1 inputs keep their numbers);
	 * NULL for other inputs, whose ids are already dense. */
	uint64_t *original_ids;
};

/* Generated weights are uniform integers in [1, weight_max]: Galois'
 * graph-convert adds weights to unweighted graphs the same way
 * (tools/graph-convert/graph-convert.cpp, vgr2intgr, maxValue default 100),
 * which is how Lonestar's sssp inputs are made. */
#define GPUVM_GRAPH_WEIGHT_MAX_DEFAULT 100u

struct gpuvm_graph_opts {
	enum gpuvm_graph_format format;
	bool symmetrize;       /* add (v,u) for every (u,v); the result is undirected */
	bool keep_self_loops;  /* default: dropped */
	bool keep_duplicates;  /* default: dropped (a duplicate keeps the least weight) */
	bool want_weights;     /* weights required: generated when the input has none */
	bool drop_weights;     /* ignore the input's weights (unweighted kernels) */
	uint32_t weight_max;   /* generated weights in [1, weight_max]; 0: default */
	uint64_t seed;         /* generated weights */
	uint64_t max_vertices; /* larger inputs are refused; 0: 2^32 - 1 */
	uint32_t threads;      /* host threads for generating (R-MAT) and for sorting
	                        * rows and generating weights (any input); 0 or 1:
	                        * the caller's alone. The graph is the same at any
	                        * count. */
};

/* R-MAT / Kronecker generation as the Graph500 specification defines it
 * (graph500.org spec §3 and its octave reference kronecker_generator.m):
 * N = 2^scale vertices, M = edge_factor * N edges, initiator A = 0.57,
 * B = 0.19, C = 0.19, D = 1 - A - B - C = 0.05, then a random permutation
 * of the vertex labels. Same parameters and seed, same graph. */
struct gpuvm_rmat_params {
	unsigned scale;        /* 1..31 */
	uint32_t edge_factor;  /* default 16 (Graph500) */
	uint64_t seed;
	double a, b, c;        /* 0: the Graph500 values */
	bool no_permute;       /* keep the generator's labels (hubs at low ids) */
};

/* Reads path (format from opts or its extension). */
int gpuvm_graph_read_file(const char *path, const struct gpuvm_graph_opts *opts,
			  struct gpuvm_graph *g, struct gpuvm_error *err);
/* Reads a graph held in memory; origin names it in messages. */
int gpuvm_graph_read_buffer(const char *data, size_t len, const char *origin,
			    const struct gpuvm_graph_opts *opts, struct gpuvm_graph *g,
			    struct gpuvm_error *err);
/* Generates an R-MAT graph. opts->symmetrize etc. apply as for files. */
int gpuvm_graph_rmat(const struct gpuvm_rmat_params *p, const struct gpuvm_graph_opts *opts,
		     struct gpuvm_graph *g, struct gpuvm_error *err);
/* Parses "rmat:scale=S[,ef=E][,seed=N][,a=A,b=B,c=C][,permute=0]" (also
 * "kron:"). Every field is set (edge_factor 16, Graph500 initiator,
 * permuted labels) except seed, which keeps its value on entry unless the
 * spec names one. */
int gpuvm_rmat_parse(const char *spec, struct gpuvm_rmat_params *p, struct gpuvm_error *err);
/* "rmat:..." generates, "mtx:PATH" / "gr:PATH" / "snap:PATH" force a
 * format, anything else is a file path. */
int gpuvm_graph_open(const char *spec, const struct gpuvm_graph_opts *opts,
		     struct gpuvm_graph *g, struct gpuvm_error *err);
void gpuvm_graph_free(struct gpuvm_graph *g);

/* Bytes held by the CSR arrays (and original_ids). */
uint64_t gpuvm_graph_bytes(const struct gpuvm_graph *g);

#define GPUVM_GRAPH_DEGREE_BUCKETS 34 /* 0, 1, 2-3, 4-7, ..., 2^32.. */

struct gpuvm_graph_degree_stats {
	uint64_t min, max;
	double mean, stddev;
	uint64_t isolated;  /* vertices with no out-edge */
	uint64_t median, p99;
	/* log2 histogram: bucket 0 = degree 0, bucket k = [2^(k-1), 2^k) */
	uint64_t histogram[GPUVM_GRAPH_DEGREE_BUCKETS];
};

void gpuvm_graph_degree_stats(const struct gpuvm_graph *g, struct gpuvm_graph_degree_stats *st);

/* The generated weight of edge {u,v}: a hash of the seed and the unordered
 * pair, so w(u,v) = w(v,u) and the weight does not depend on input order. */
uint32_t gpuvm_graph_edge_weight(uint64_t seed, uint32_t u, uint32_t v, uint32_t weight_max);

#endif
