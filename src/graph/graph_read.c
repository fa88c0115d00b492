/* Reading graph files: format detection, the line reader and token
 * scanners the three readers share, and the edge list -> CSR step. */
#include "gpuvm/input_file.h"
#include "gpuvm/number.h"
#include "graph/graph_read.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "graph/csr_build.h"

int lr_next(struct line_reader *r, struct gpuvm_error *err)
{
	errno = 0;
	ssize_t len = getline(&r->line, &r->cap, r->f);
	if (len < 0) {
		/* only the end of the file ends the input: a failed allocation
		 * (getline's ENOMEM) or a read error must not pass for it, or a
		 * graph would be silently cut short */
		if (ferror(r->f) || !feof(r->f))
			return gpuvm_fail(err, r->origin, r->lineno + 1, NULL, "%s: %s",
					  errno == ENOMEM ? "out of memory reading the line"
							  : "read error",
					  strerror(errno ? errno : EIO));
		return 0;
	}
	r->lineno++;
	if ((size_t)len > GRAPH_MAX_LINE_BYTES)
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "line of %zd bytes (at most %d MiB: not a graph file?)", len,
				  GRAPH_MAX_LINE_BYTES >> 20);
	if ((size_t)len != strlen(r->line))
		return gpuvm_fail(err, r->origin, r->lineno, NULL,
				  "NUL byte in line (a binary file?)");
	if (len > 0 && r->line[len - 1] == '\n')
		r->line[--len] = 0;
	return 1;
}

static inline bool token_end(char c)
{
	return c == 0 || c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int scan_u64(const char **pp, uint64_t *out)
{
	const char *p = skip_ws(*pp);
	if (*p == '+')
		p++;
	uint64_t v;
	if (gpuvm_scan_u64(p, &p, 0, UINT64_MAX, &v) || !token_end(*p))
		return -1;
	*out = v;
	*pp = p;
	return 0;
}

int scan_i64(const char **pp, int64_t *out)
{
	const char *p = skip_ws(*pp);
	bool neg = *p == '-';
	if (neg)
		p++;
	uint64_t v;
	if (*p == '+' || scan_u64(&p, &v))
		return -1;
	if (v > (uint64_t)INT64_MAX + (neg ? 1 : 0))
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	*pp = p;
	return 0;
}

int scan_double(const char **pp, double *out)
{
	const char *p = skip_ws(*pp);
	if (token_end(*p))
		return -1;
	const char *end;
	double v;
	if (gpuvm_scan_double(p, &end, -HUGE_VAL, HUGE_VAL, &v) || !token_end(*end))
		return -1;
	*out = v;
	*pp = end;
	return 0;
}

size_t scan_word(const char **pp, char *buf, size_t len)
{
	const char *p = skip_ws(*pp);
	size_t n = 0;
	while (!token_end(*p)) {
		if (n + 1 < len)
			buf[n] = *p;
		n++;
		p++;
	}
	if (len)
		buf[n < len ? n : len - 1] = 0;
	*pp = p;
	return n;
}

int edges_push(struct edge_list *el, uint32_t u, uint32_t v, uint32_t w, struct gpuvm_error *err)
{
	if (el->n == el->cap) {
		uint64_t cap = el->cap ? el->cap + el->cap / 2 : 4096;
		uint32_t *nu = realloc(el->u, cap * sizeof *nu);
		if (nu)
			el->u = nu;
		uint32_t *nv = realloc(el->v, cap * sizeof *nv);
		if (nv)
			el->v = nv;
		uint32_t *nw = NULL;
		if (el->weighted) {
			nw = realloc(el->w, cap * sizeof *nw);
			if (nw)
				el->w = nw;
		}
		if (!nu || !nv || (el->weighted && !nw))
			return gpuvm_fail(err, "graph", 0, NULL, "out of memory (%llu edges)",
					  (unsigned long long)cap);
		el->cap = cap;
	}
	el->u[el->n] = u;
	el->v[el->n] = v;
	if (el->weighted)
		el->w[el->n] = w;
	el->n++;
	return 0;
}

void edges_free(struct edge_list *el)
{
	free(el->u);
	free(el->v);
	free(el->w);
	memset(el, 0, sizeof *el);
}

int edges_build(struct edge_list *el, uint32_t n, bool mirror, bool directed,
		const struct gpuvm_graph_opts *opts, struct gpuvm_graph *g,
		struct gpuvm_error *err)
{
	struct csr_build b;
	bool weighted = el->weighted && !opts->drop_weights;
	if (csr_begin(&b, n, mirror, !opts->keep_self_loops, weighted, err)) {
		edges_free(el);
		return -1;
	}
	csr_count_batch(&b, el->u, el->v, el->n);
	if (csr_alloc(&b, err)) {
		edges_free(el);
		csr_abandon(&b);
		return -1;
	}
	csr_place_batch(&b, el->u, el->v, weighted ? el->w : NULL, el->n);
	edges_free(el);
	if (csr_finish(&b, opts, directed, g, err)) {
		csr_abandon(&b);
		return -1;
	}
	return 0;
}

static const char *format_name(enum gpuvm_graph_format f)
{
	switch (f) {
	case GPUVM_GRAPH_MTX:
		return "Matrix Market";
	case GPUVM_GRAPH_DIMACS:
		return "DIMACS";
	case GPUVM_GRAPH_SNAP:
		return "SNAP edge list";
	default:
		return "auto";
	}
}

/* .mtx -> Matrix Market, .gr -> DIMACS, anything else a SNAP edge list
 * (.txt, .el, .edges, .tsv: SNAP's own files carry no fixed extension). */
static enum gpuvm_graph_format format_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	if (dot && !strcasecmp(dot, ".mtx"))
		return GPUVM_GRAPH_MTX;
	if (dot && !strcasecmp(dot, ".gr"))
		return GPUVM_GRAPH_DIMACS;
	return GPUVM_GRAPH_SNAP;
}

static int read_stream(FILE *f, const char *origin, enum gpuvm_graph_format fmt,
		       const struct gpuvm_graph_opts *opts, struct gpuvm_graph *g,
		       struct gpuvm_error *err)
{
	struct line_reader r = {.f = f, .origin = origin};
	int rc;
	switch (fmt) {
	case GPUVM_GRAPH_MTX:
		rc = graph_read_mtx(&r, opts, g, err);
		break;
	case GPUVM_GRAPH_DIMACS:
		rc = graph_read_dimacs(&r, opts, g, err);
		break;
	default:
		rc = graph_read_snap(&r, opts, g, err);
		break;
	}
	free(r.line);
	return rc;
}

int gpuvm_graph_read_file(const char *path, const struct gpuvm_graph_opts *opts,
			  struct gpuvm_graph *g, struct gpuvm_error *err)
{
	memset(g, 0, sizeof *g);
	enum gpuvm_graph_format fmt = opts->format ? opts->format : format_of(path);
	char what[64];
	snprintf(what, sizeof what, "%s file", format_name(fmt));
	FILE *f = gpuvm_input_fopen(path, what, err);
	if (!f)
		return -1;
	/* Large sequential reads: the readers are line-at-a-time. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	int rc = read_stream(f, path, fmt, opts, g, err);
	fclose(f);
	return rc;
}

int gpuvm_graph_read_buffer(const char *data, size_t len, const char *origin,
			    const struct gpuvm_graph_opts *opts, struct gpuvm_graph *g,
			    struct gpuvm_error *err)
{
	memset(g, 0, sizeof *g);
	enum gpuvm_graph_format fmt = opts->format ? opts->format : format_of(origin);
	/* fmemopen refuses a zero-length buffer: an empty input reads as
	 * /dev/null, and the reader reports the missing header. */
	FILE *f = len ? fmemopen((void *)data, len, "r") : fopen("/dev/null", "r");
	if (!f)
		return gpuvm_fail(err, origin, 0, NULL, "cannot read buffer: %s", strerror(errno));
	int rc = read_stream(f, origin, fmt, opts, g, err);
	fclose(f);
	return rc;
}
