/* libFuzzer target for the graph readers through their memory-buffer
 * entry point: the first byte picks the format (Matrix Market, DIMACS,
 * SNAP) and the options (symmetrize, keep loops / duplicates, weights);
 * the rest is the file. A graph that loads must be a well-formed CSR. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const enum gpuvm_graph_format formats[] = {GPUVM_GRAPH_MTX, GPUVM_GRAPH_DIMACS,
							  GPUVM_GRAPH_SNAP};
	uint8_t sel = data[0];
	struct gpuvm_graph_opts o = {
		.format = formats[sel % 3],
		.symmetrize = (sel >> 2) & 1,
		.keep_self_loops = (sel >> 3) & 1,
		.keep_duplicates = (sel >> 4) & 1,
		.want_weights = (sel >> 5) & 1,
		.drop_weights = (sel >> 6) & 1 && !((sel >> 5) & 1),
		.max_vertices = 1u << 16, /* headers may claim any size */
		.seed = sel,
	};
	struct gpuvm_graph g;
	struct gpuvm_error err;
	if (gpuvm_graph_read_buffer((const char *)data + 1, size - 1, "fuzz", &o, &g, &err) == 0) {
		if (g.row_offsets[0] != 0 || g.row_offsets[g.n_vertices] != g.n_edges)
			abort();
		for (uint32_t u = 0; u < g.n_vertices; u++)
			for (uint64_t e = g.row_offsets[u]; e < g.row_offsets[u + 1]; e++) {
				if (g.col_indices[e] >= g.n_vertices)
					abort();
				if (e > g.row_offsets[u] && g.col_indices[e - 1] > g.col_indices[e])
					abort();
			}
		gpuvm_graph_free(&g);
	}
	return 0;
}
