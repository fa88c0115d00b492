/* Private to the Accel-Sim reader (accelsim.c, accelsim_header.c,
 * accelsim_split.c): the kernel header a .traceg file opens with, the
 * small text parsers the header and instruction parsers share, and the
 * thread blocks' parser, which a large file runs in parts on threads.
 * tok, as_parse_dec and as_is_blank run once per instruction field and
 * stay inline. */
#ifndef GPUVM_TRACE_ACCELSIM_INTERNAL_H
#define GPUVM_TRACE_ACCELSIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/error.h"
#include "gpuvm/number.h"
#include "trace/native.h"
#include "trace/op_ahead.h"
#include "trace/readers.h"

struct as_header {
	char name[96];
	uint32_t grid[3], block[3];
	bool have_grid, have_block, have_version;
	uint64_t shmem_base, local_base;
	uint32_t shmem_bytes; /* -shmem: static + dynamic shared memory per CTA */
	int version; /* 12, 30, 40, 50 for tracer 1.2, 3, 4, 5 */
	int lineinfo;
};

/* The next token of *p (spaces and tabs separate), NULL at the end; *p
 * moves past it. */
static inline const char *as_tok(const char **p, size_t *n)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	const char *e = s;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	*p = e;
	*n = (size_t)(e - s);
	return e == s ? NULL : s;
}


/* A signed decimal of n bytes; -1 when it is not one or overflows (the
 * number parser family, gpuvm/number.h). */
static inline int as_parse_dec(const char *s, size_t n, int64_t *v)
{
	return gpuvm_num_i64(s, n, -INT64_MAX, INT64_MAX, v) ? -1 : 0;
}


static inline bool as_is_blank(const char *l)
{
	while (*l == ' ' || *l == '\t')
		l++;
	return *l == 0;
}


/* The next line that is not blank: 1, 0 at the end, -1 on error. */
int as_next_nonblank(struct textin *t, char **line, struct gpuvm_error *err);
/* "key = value" (key from line + skip); key and value trimmed in place. */
bool as_split_kv(char *line, size_t skip, char **key, char **val);
/* "thread block = x,y,z" at text, each number within 32 bits: 0 with *end
 * past z, or -1 with err (may be NULL) naming path and line. */
int as_parse_block(const char *path, int line, const char *text, uint32_t xyz[3],
		   const char **end, struct gpuvm_error *err);
/* "warp = N": 1 with *w, 0 when the line is not one, -1 (err set) when its
 * number does not fit 32 bits. */
int as_parse_warp_line(const struct textin *t, const char *line, uint32_t *w,
		       struct gpuvm_error *err);
/* Reads a kernel file's header up to its first "#BEGIN_TB" (the kernel
 * name, grid and block, tracer version, shared/local windows). */
int as_parse_header(struct textin *t, struct as_header *h, struct gpuvm_error *err);

static inline uint64_t as_grid_ctas(const struct as_header *h)
{
	return (uint64_t)h->grid[0] * h->grid[1] * h->grid[2];
}

/* What the SASS tables say of one opcode (sass_opcode.h), kept by the
 * parser: a trace repeats a few hundred opcodes millions of times, and
 * walking the tables for each instruction was 8 % of its parse. */
#define AS_OPCODE_CACHE 64
#define AS_OPCODE_MAX 31
struct as_opcode_info {
	char text[AS_OPCODE_MAX + 1];
	uint8_t len; /* 0: an empty slot */
	uint8_t global_mem, barrier, op_class, access, space, cache_op;
};

/* One thread's parse of thread blocks into native warps. */
struct as_ctx {
	struct textin *t;
	const struct as_header *h;
	struct native_writer *nw;
	struct alloc_infer *inf;      /* the touched granules (NULL: not inferred) */
	struct op_ahead *ahead;       /* its stop ends the parse (NULL: none) */
	/* instructions without register operands, merged into one gap of
	 * independent instructions of one class */
	uint32_t pending_compute;
	uint8_t pending_class;
	struct as_opcode_info opcodes[AS_OPCODE_CACHE]; /* zeroed: empty */
};

/* Parses thread blocks first .. stop - 1, t just past the first one's
 * "#BEGIN_TB" line, into c->nw; last: the grid's last block, after which
 * the file must end (otherwise the next block is left unread). */
int as_parse_blocks(struct as_ctx *c, uint64_t first, uint64_t stop, bool last,
		    struct gpuvm_error *err);

/* accelsim_split.c: where a kernel file is cut for its parts: part i
 * starts at byte at[i] with thread block cta[i] (cta[n] is the grid's
 * block count) */
#define AS_SPLIT_MAX_PARTS 16
struct as_cuts {
	unsigned n;
	uint64_t at[AS_SPLIT_MAX_PARTS + 1], cta[AS_SPLIT_MAX_PARTS + 1];
};
/* Into how many parts kernel file t (just past header h) is parsed with
 * `threads` threads, and where they start (*cuts): 1 unless it is a plain
 * file of at least AS_SPLIT_PART_BYTES a part (GPUVM_TRACE_SPLIT_BYTES
 * overrides the size: tests) that has "#BEGIN_TB" lines near the cuts.
 * Reads the file, not t. */
unsigned as_split_parts(const struct textin *t, const struct as_header *h, uint32_t threads,
			struct as_cuts *cuts);
/* Parses t's thread blocks in the parts cuts names, the first here and
 * the rest on threads of their own, each into a scratch file, and appends
 * them to out in order: the bytes one parse of the whole writes, since
 * each warp's stream is encoded on its own. The parts' touched granules
 * go into inf. 1 when done; 0 when a part failed or a scratch file could
 * not be made (the caller then parses the file whole from its start, so
 * an error is reported as the whole parse finds it); -1 with err when
 * cancelled or out could not be written. */
int as_transcode_parts(struct textin *t, const struct as_header *h, FILE *out,
		       const struct as_cuts *cuts, struct alloc_infer *inf, struct op_ahead *ahead,
		       struct gpuvm_error *err);

#endif
