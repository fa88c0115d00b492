/* Internal pieces shared by the trace readers: the per-format openers,
 * a line reader over plain or xz text, and allocation inference for
 * traces that do not record their allocations. */
#ifndef GPUVM_TRACE_READERS_H
#define GPUVM_TRACE_READERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <lzma.h>

#include "core/u64map.h"
#include "gpuvm/error.h"
#include "gpuvm/number.h"
#include "gpuvm/stream.h"
#include "trace/native.h"
#include "trace/op_ahead.h"

int trace_open_native(const char *path, struct gpuvm_source *out, struct gpuvm_error *err);
int trace_open_accelsim(const char *path, struct gpuvm_source *out, struct gpuvm_error *err);
int trace_open_memtrace(const char *path, struct gpuvm_source *out, struct gpuvm_error *err);
/* Wraps src so device allocations become managed and copies are dropped
 * (a trace replayed as its unified-memory port; managed_replay.c). */
int trace_wrap_managed(struct gpuvm_source *src, struct gpuvm_error *err);

/* ---- text lines from a plain or .xz file, numbered ---------------------- */

#define TEXTIN_MAX_LINE (1u << 20)

struct textin {
	FILE *f;
	char path[512];
	bool xz, eof, lz_done;
	lzma_stream lz;
	unsigned char *in;   /* compressed input (xz) */
	unsigned char *data; /* decoded bytes */
	size_t pos, len;
	/* the first NUL byte in data[0..len) (len: none): a block is
	 * searched once, not each line of it again */
	size_t nul_at;
	char *line;
	size_t line_cap;
	uint64_t line_no;    /* of the line last returned */
};

/* Files ending in .xz are decoded with liblzma. */
int textin_open(struct textin *t, const char *path, struct gpuvm_error *err);
/* Returns 1 with *line (NUL-terminated, no line ending), 0 at end, -1 on error. */
int textin_getline(struct textin *t, char **line, size_t *len, struct gpuvm_error *err);
void textin_close(struct textin *t);

/* s[0..n) as a hex number of 1 to 16 digits, "0x" optional: 0, or -1 (the
 * number parser family, gpuvm/number.h). */
static inline int parse_hex(const char *s, size_t n, uint64_t *v)
{
	return gpuvm_num_hex(s, n, v) ? -1 : 0;
}

/* ---- allocation inference from an address footprint -------------------- */

/* Addresses are tracked in 64 KiB granules (the large-page size of the
 * GPUs modelled: nvidia-uvm uvm_va_block_types.h UVM_BIG_PAGE_SIZE);
 * touched granules closer than 2 MiB (the cudaMalloc granularity of large allocations) join one allocation. */
#define INFER_GRANULE_SHIFT 16
#define INFER_MERGE_GAP_BYTES (2ull << 20)

/* A run of granules [start, last] (a copy's range, or one touched granule). */
struct infer_span {
	uint64_t start, last;
};

struct alloc_infer {
	struct u64map set; /* touched granules (core/u64map.h, values unused) */
	struct infer_span *ranges; /* copies since the last infer_take: spans,
				    * so a 1 TiB copy costs one entry, not 16 M */
	size_t n_ranges, cap_ranges;
	uint64_t last;  /* last granule added + 1 (fast path) */
	struct gpuvm_alloc *known; /* emitted so far, sorted by base */
	size_t n_known, cap_known;
	struct gpuvm_alloc *fresh; /* produced by the last infer_take */
	size_t n_fresh, cap_fresh;
};

void infer_init(struct alloc_infer *a);
void infer_free(struct alloc_infer *a);
int infer_add(struct alloc_infer *a, uint64_t addr);
int infer_add_range(struct alloc_infer *a, uint64_t base, uint64_t bytes);
/* Turns granules gathered since the last call into new allocations (none
 * overlapping earlier ones) in a->fresh[0..n_fresh). */
int infer_take(struct alloc_infer *a);

static inline int infer_add_fast(struct alloc_infer *a, uint64_t addr)
{
	if ((addr >> INFER_GRANULE_SHIFT) + 1 == a->last)
		return 0;
	return infer_add(a, addr);
}

/* ---- a converted kernel waiting to be handed out ------------------------ */

/* The text readers (Accel-Sim, mem_trace) convert each kernel to the native
 * format in a scratch file, then hand out the allocations inferred from its
 * addresses and then the kernel itself. */
struct staged_kernel {
	struct native_kernel nk;
	bool loaded;       /* nk holds a kernel, handed out or not */
	bool ready;        /* loaded and not yet handed out */
	bool keep;         /* freed by the reader before reuse, not once handed
			    * out (a reader thread keeps two kernels alive) */
	size_t fresh_next; /* next inferred allocation to hand out */
};

/* Call once nk is loaded and the inference took its allocations. */
static inline void staged_kernel_ready(struct staged_kernel *sk)
{
	sk->ready = true;
	sk->fresh_next = 0;
}

/* 1 with *op set when the staged kernel still has something to hand out;
 * otherwise frees the kernel handed out last and returns 0: the reader
 * loads the next one. */
static inline int staged_kernel_next(struct staged_kernel *sk, const struct alloc_infer *inf,
				     struct gpuvm_run_op *op)
{
	if (sk->fresh_next < inf->n_fresh) {
		op->kind = GPUVM_RUN_ALLOC;
		op->alloc = inf->fresh[sk->fresh_next++];
		return 1;
	}
	if (sk->ready) {
		sk->ready = false;
		op->kind = GPUVM_RUN_KERNEL;
		op->kernel = &sk->nk.k;
		return 1;
	}
	if (sk->loaded && !sk->keep) {
		native_kernel_free(&sk->nk);
		sk->loaded = false;
	}
	return 0;
}

static inline void staged_kernel_free(struct staged_kernel *sk)
{
	if (sk->loaded)
		native_kernel_free(&sk->nk);
	sk->loaded = sk->ready = false;
	sk->fresh_next = 0;
}

/* A text reader's next_op: on the first call it fixes its thread count
 * from the source and, with more than one, keeps both staged kernels alive
 * and starts the reader thread on produce; then it takes operations from
 * that thread, or produces them itself. */
static inline int staged_next_op(const struct gpuvm_source *src, struct op_ahead *ahead,
				 struct staged_kernel sk[OP_AHEAD_KERNELS], uint32_t *threads,
				 bool *threads_known, op_ahead_fn produce, void *ctx,
				 struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	if (!*threads_known) {
		*threads_known = true;
		*threads = src->exec_threads;
		for (unsigned i = 0; i < OP_AHEAD_KERNELS; i++)
			sk[i].keep = *threads > 1;
		if (*threads > 1 && op_ahead_start(ahead, produce, ctx, err))
			return -1;
	}
	if (ahead->started)
		return op_ahead_next(ahead, op, err);
	return produce(ctx, op, err);
}

/* Stops the reader thread, then frees the staged kernels and closes the
 * scratch files. */
static inline void staged_free(struct op_ahead *ahead, struct staged_kernel sk[OP_AHEAD_KERNELS],
			       FILE *tmp[OP_AHEAD_KERNELS])
{
	op_ahead_stop(ahead);
	for (unsigned i = 0; i < OP_AHEAD_KERNELS; i++) {
		staged_kernel_free(&sk[i]);
		if (tmp[i])
			fclose(tmp[i]);
	}
}

#endif
