/* Graph inputs of the graph kernels (bfs, sssp, pagerank, mis, color,
 * bc): the common parameters graph=, vertices=, degree=, symmetrize=,
 * the graph loaded when the workload is created (so a malformed file is
 * reported before the run starts), and its upload as the int CSR arrays
 * the CUDA codes use.
 *
 * graph= takes
 *   uniform                         vertices x degree out-edges to uniform
 *                                   random targets (UVMSmart's sssp and
 *                                   Rodinia's graphgen inputs)
 *   uniform-glibc                   the same shape drawn as UVMSmart's
 *                                   sssp.cu generateRandomGraph draws it
 *                                   (glibc rand() after srand(seed)):
 *                                   its very graph at seed 1
 *   rmat:scale=S[:ef=E][:seed=N][:a=A:b=B:c=C][:permute=0]
 *                                   Graph500 R-MAT (the graph library's
 *                                   rmat: spec with ':' for ',', because
 *                                   ',' separates workload parameters)
 *   rmat-S[-E]                      short form of the above
 *   [mtx:|gr:|snap:]PATH            a file (format by extension or prefix)
 * Generated graphs take their seed from the run's --seed. */
#ifndef GPUVM_SUITE_GRAPH_INPUT_H
#define GPUVM_SUITE_GRAPH_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/graph.h"
#include "gpuvm/simt.h"
#include "gpuvm/workload.h"

#define GRAPH_INPUT_HELP                                                                    \
	"uniform | uniform-glibc | rmat:scale=S[:ef=E][:seed=N] | rmat-S[-E] | [mtx:|gr:|snap:]PATH (no commas)"

/* The common parameters; def_graph, def_vertices and def_degree are the
 * workload's defaults (strings). */
#define GRAPH_INPUT_PARAMS(def_graph, def_vertices, def_degree)                               \
	{"graph", GPUVM_PARAM_TEXT, def_graph, GRAPH_INPUT_HELP},                          \
	{"vertices", GPUVM_PARAM_U64, def_vertices, "graph=uniform[-glibc]: vertices"},              \
	{"degree", GPUVM_PARAM_U64, def_degree, "graph=uniform[-glibc]: out-edges per vertex"},      \
	{"symmetrize", GPUVM_PARAM_CHOICE, "auto|1|0",                                       \
	 "add reverse edges (auto: R-MAT yes, as Graph500's undirected graphs; others as stored)"}

/* Their ranges, listed in each graph workload's range table */
#define GRAPH_INPUT_RANGES                                                                  \
	GPUVM_RANGE("vertices", 2, 1ull << 30), GPUVM_RANGE("degree", 1, 1024)

enum graph_input_flags {
	GRAPH_WEIGHTS = 1,    /* the kernel needs edge weights (generated if absent) */
	GRAPH_UNDIRECTED = 2, /* the algorithm needs an undirected graph: always symmetrize */
};

struct graph_input {
	struct gpuvm_graph g;
	char desc[96]; /* for the result line: "rmat-22-16" or the file name */
};

/* The workload's defaults for graph=, vertices= and degree= (the same
 * values GRAPH_INPUT_PARAMS lists). */
struct graph_input_defaults {
	const char *graph;
	uint64_t vertices, degree;
};

/* Reads the parameters and loads (or generates) the graph. */
int graph_input_load(const struct gpuvm_params *p, uint64_t seed, unsigned flags,
		     const struct graph_input_defaults *def, struct graph_input *in,
		     struct gpuvm_error *err);
void graph_input_free(struct graph_input *in);

/* The CSR as the kernels see it: int row offsets [n+1], int column
 * indices [m], int weights [m] (when the graph has them). */
struct graph_dev {
	int n;
	int m;
	int *row, *col, *w;
};

/* Allocates row_start / col [/ weight] with simt_malloc, copies the graph
 * into them and uploads them; frees in->g's arrays as it goes (the kernels
 * and the references use the device copies). Returns -1 on teardown. */
int graph_dev_upload(struct simt_host *h, struct graph_input *in, enum gpuvm_alloc_kind kind,
		     struct graph_dev *d);

/* Distinct random vertex values in (0, 1] for the max/min-value kernels
 * (mis, color): Pannotia draws rand() / RAND_MAX, where two equal
 * neighbouring values would never be decided; here value[v] = (k + 1) / n
 * for a seeded random permutation k of the vertices, distinct as floats
 * for n <= GRAPH_DISTINCT_VALUES_MAX. Returns -1 out of memory. */
#define GRAPH_DISTINCT_VALUES_MAX (1u << 24)
int graph_random_values(float *value, int n, uint64_t seed);

/* Bytes of the graph's device arrays (for the working-set line). */
uint64_t graph_dev_bytes(const struct graph_input *in);

#endif
