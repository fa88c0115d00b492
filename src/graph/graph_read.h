/* Shared pieces of the graph file readers: a line reader over a FILE
 * (a file, or a memory buffer through fmemopen), token scanners that
 * reject junk and overflow, and the edge list the readers fill before the
 * CSR is built from it. */
#ifndef GPUVM_GRAPH_READ_H
#define GPUVM_GRAPH_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "gpuvm/graph.h"

struct line_reader {
	FILE *f;
	const char *origin;
	char *line;
	size_t cap;
	int lineno;
};

/* An edge or header line is tens of bytes; a longer one than this is not
 * a graph file (and would cost its length in memory). */
#define GRAPH_MAX_LINE_BYTES (16 << 20)

/* Reads the next line (newline stripped). 1: a line, 0: end of input,
 * -1: read error, allocation failure or a line over GRAPH_MAX_LINE_BYTES
 * (err set). */
int lr_next(struct line_reader *r, struct gpuvm_error *err);

static inline const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f')
		p++;
	return p;
}

static inline bool is_end(const char *p) { return *skip_ws(p) == 0; }

/* Scans an unsigned decimal integer token at *pp (leading blanks
 * skipped); it must end at a blank or the end of the line. Returns 0 and
 * advances *pp, or -1 (nothing numeric, junk, overflow). */
int scan_u64(const char **pp, uint64_t *out);
/* A signed integer token. */
int scan_i64(const char **pp, int64_t *out);
/* A finite real token. */
int scan_double(const char **pp, double *out);
/* Copies the next blank-separated token (at most len-1 bytes) into buf;
 * returns its length, 0 at the end of the line. */
size_t scan_word(const char **pp, char *buf, size_t len);

struct edge_list {
	uint32_t *u, *v, *w; /* w only when weighted */
	uint64_t n, cap;
	bool weighted;
};

int edges_push(struct edge_list *el, uint32_t u, uint32_t v, uint32_t w, struct gpuvm_error *err);
void edges_free(struct edge_list *el);
/* Builds g over n vertices from el (freed on return, success or not).
 * mirror: the input stores each undirected edge once (Matrix Market
 * symmetric) or symmetrize was asked. */
int edges_build(struct edge_list *el, uint32_t n, bool mirror, bool directed,
		const struct gpuvm_graph_opts *opts, struct gpuvm_graph *g,
		struct gpuvm_error *err);


int graph_read_mtx(struct line_reader *r, const struct gpuvm_graph_opts *opts,
		   struct gpuvm_graph *g, struct gpuvm_error *err);
int graph_read_dimacs(struct line_reader *r, const struct gpuvm_graph_opts *opts,
		      struct gpuvm_graph *g, struct gpuvm_error *err);
int graph_read_snap(struct line_reader *r, const struct gpuvm_graph_opts *opts,
		    struct gpuvm_graph *g, struct gpuvm_error *err);

#endif
