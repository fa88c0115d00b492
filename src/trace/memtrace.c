/* NVBit mem_trace tool output, 1.7 form (NVBit 1.7 tools/mem_trace/mem_trace.cu and its README)
 *   MEMTRACE: CTX 0x.. - LAUNCH - Kernel pc 0x.. - Kernel name N - grid launch id 0
 *     - grid size X,Y,Z - block size X,Y,Z - nregs N - shmem N - cuda stream id N
 *   MEMTRACE: CTX 0x.. - grid_launch_id 0 - CTA x,y,z - warp w - LDG.E - 0x.. (32)
 * and the 1.5 form ("Kernel N - grid size ..." and "CTA x,y,z - warp w - OP - ...").
 * Other lines (the application's own output) are skipped.
 *
 * The format has no mask and no width, so the reader assumes: a lane is
 * active iff its address is non-zero (inactive lanes print what the
 * shuffle returned, which derived tools also drop when zero); bytes per
 * lane come from the opcode as Accel-Sim's tracer derives them (.128 16,
 * .64 8, .U16/.S16 2, .U8/.S8 1, else 4); `warp` is the hardware warp slot,
 * so a CTA's warps are its distinct slots in increasing order; LDS, STS,
 * LDL, STL, ATOMS, LDSM become one compute instruction each (no window
 * addresses exist to filter generic accesses, which are kept); there are
 * no compute instructions otherwise. Allocations are inferred from the
 * footprint (readers.h).
 *
 * Lines arrive in execution order, CTAs interleaved, so each kernel is
 * sorted by (CTA, warp slot, arrival) externally: runs of at most
 * MT_RUN_BYTES are sorted in memory and spilled to a scratch file, then
 * merged into the native form the engine reads. Memory: one run buffer
 * plus a 64 KiB cursor per run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/native.h"
#include "trace/op_ahead.h"
#include "trace/readers.h"

#define MT_RUN_BYTES (16u << 20)
#define MT_OP_COMPUTE 3

struct mt_rec {
	uint32_t cta;
	uint16_t slot;
	uint8_t op;    /* enum gpuvm_mem_op, or MT_OP_COMPUTE */
	uint8_t bytes;
	uint32_t mask;
	uint32_t line; /* for messages */
	uint64_t seq;
	uint64_t addr[GPUVM_WARP_LANES];
};

struct memtrace {
	struct textin t;
	FILE *runs;
	/* Two scratch files and kernels: with a reader thread (op_ahead.h)
	 * the next kernel is sorted and transcoded into one while the engine
	 * replays the other; alone, only [0] is used. */
	FILE *tmp[OP_AHEAD_KERNELS];
	struct staged_kernel sk[OP_AHEAD_KERNELS];
	unsigned cur;
	uint32_t threads; /* the source's exec_threads, fixed at the first op */
	bool threads_known;
	struct op_ahead ahead;
	bool have_launch;
	struct alloc_infer inf;
	char name[96];
	uint32_t grid[3], block[3];
	int launch_line;
	/* 1.7's "grid launch id N" of the current kernel (-1: 1.5, none),
	 * which its access lines must repeat */
	int64_t launch_id;
	uint64_t kernels_seen; /* a trace without kernels is an error */
	struct mt_rec *buf;
	size_t n, cap;
	uint64_t seq;
	uint64_t *run_off;
	size_t n_runs, cap_runs;
};

static const char *after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	return p ? p + strlen(key) : NULL;
}

/* "x,y,z" at p (blanks before each number), each within 32 bits: 0; -1
 * with err naming the field when a number is not one or does not fit;
 * -2 when p is NULL or the commas are missing (the caller says what it
 * wanted). sscanf's %u read 4294967296 as 0 (issue 79). */
static int parse_triple(const struct memtrace *s, const char *p, const char *name, uint32_t v[3],
			struct gpuvm_error *err)
{
	if (!p)
		return -2;
	for (int i = 0; i < 3; i++) {
		while (*p == ' ')
			p++;
		if (gpuvm_read_u32(err, s->t.path, (int)s->t.line_no, name, &p, 0, UINT32_MAX, &v[i]))
			return -1;
		if (i < 2 && *p++ != ',')
			return -2;
	}
	return 0;
}

static bool is_launch(const char *l)
{
	return (!strncmp(l, "MEMTRACE:", 9) && strstr(l, " - LAUNCH - ")) ||
	       (!strncmp(l, "Kernel ", 7) && strstr(l, " - grid size "));
}

static bool is_access(const char *l)
{
	return !strncmp(l, "CTA ", 4) || (!strncmp(l, "MEMTRACE:", 9) && strstr(l, " - CTA "));
}

/* The tool's own prefix on a line that is neither: damaged, not program
 * output (which is skipped). */
static bool is_garbage(const char *l)
{
	return !strncmp(l, "MEMTRACE:", 9);
}

static int garbage(struct memtrace *s, struct gpuvm_error *err);

static int parse_launch(struct memtrace *s, const char *l, struct gpuvm_error *err)
{
	const char *name = after(l, "Kernel name ");
	if (!name)
		name = l + 7; /* 1.5: "Kernel NAME - grid size" */
	const char *end = strstr(name, " - ");
	size_t n = end ? (size_t)(end - name) : strlen(name);
	if (n >= sizeof s->name)
		n = sizeof s->name - 1;
	memcpy(s->name, name, n);
	s->name[n] = 0;
	int ln = (int)s->t.line_no;
	int tr = parse_triple(s, after(l, " - grid size "), "grid size", s->grid, err);
	if (!tr)
		tr = parse_triple(s, after(l, " - block size "), "block size", s->block, err);
	if (tr == -1)
		return -1;
	if (tr)
		return gpuvm_fail(err, s->t.path, ln, NULL, "launch line lacks 'grid size X,Y,Z' or 'block size X,Y,Z'");
	s->launch_line = ln;
	s->have_launch = true;
	s->launch_id = -1;
	const char *id = after(l, " - grid launch id ");
	uint64_t v;
	if (id && gpuvm_read_u64(err, s->t.path, ln, "grid launch id", &id, 0, INT64_MAX, &v))
		return -1;
	if (id)
		s->launch_id = (int64_t)v;
	/* Warps without accesses still cost a frame header each in the
	 * transcoded kernel; 2^24 warps (128 MiB of headers) bounds that work. */
	if (trace_check_shape(s->grid, s->block, s->t.path, ln, err))
		return -1;
	uint64_t warps = (uint64_t)s->grid[0] * s->grid[1] * s->grid[2] *
			 (((uint64_t)s->block[0] * s->block[1] * s->block[2] + 31) / 32);
	if (warps > (1u << 24))
		return gpuvm_fail(err, s->t.path, ln, NULL,
				  "kernel of %llu warps (the mem_trace reader takes at most 2^24)",
				  (unsigned long long)warps);
	return 0;
}

static int garbage(struct memtrace *s, struct gpuvm_error *err)
{
	return gpuvm_fail(err, s->t.path, (int)s->t.line_no, NULL,
			  "MEMTRACE line that is neither a launch nor an access line");
}

static uint8_t width_of(const char *op, size_t n)
{
	char b[64];
	if (n >= sizeof b)
		n = sizeof b - 1;
	memcpy(b, op, n);
	b[n] = 0;
	if (strstr(b, ".128"))
		return 16;
	if (strstr(b, ".64"))
		return 8;
	if (strstr(b, ".U16") || strstr(b, ".S16"))
		return 2;
	if (strstr(b, ".U8") || strstr(b, ".S8"))
		return 1;
	return 4;
}

static uint8_t op_of(const char *op, size_t n)
{
	const char *dot = memchr(op, '.', n);
	size_t b = dot ? (size_t)(dot - op) : n;
	static const char *const local[] = {"LDS", "STS", "ATOMS", "LDSM", "STSM", "LDL", "STL"};
	for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
		if (strlen(local[i]) == b && !memcmp(op, local[i], b))
			return MT_OP_COMPUTE;
	if ((b >= 4 && !memcmp(op, "ATOM", 4)) || (b >= 3 && !memcmp(op, "RED", 3)) ||
	    (b >= 6 && (!memcmp(op, "SUATOM", 6))) || (b >= 5 && !memcmp(op, "SURED", 5)))
		return GPUVM_OP_ATOMIC;
	if ((b >= 2 && !memcmp(op, "ST", 2)) || (b >= 4 && !memcmp(op, "SUST", 4)))
		return GPUVM_OP_STORE;
	return GPUVM_OP_LOAD;
}

static int parse_access(struct memtrace *s, const char *l, struct mt_rec *r,
			struct gpuvm_error *err)
{
	int ln = (int)s->t.line_no;
	/* 1.7: each access names its launch; one the trace never launched
	 * (or not the kernel being read) means lines were lost or mixed */
	const char *gid = after(l, " - grid_launch_id ");
	uint64_t id;
	if (gid && (gpuvm_scan_u64(gid, NULL, 0, INT64_MAX, &id) != GPUVM_NUM_OK ||
		    s->launch_id < 0 || id != (uint64_t)s->launch_id))
		return gpuvm_fail(err, s->t.path, ln, "grid_launch_id",
				  "'%.20s' is not the launch being read (grid launch id %lld, line %d)",
				  gid, (long long)s->launch_id, s->launch_line);
	const char *p = !strncmp(l, "CTA ", 4) ? l + 4 : after(l, " - CTA ");
	uint32_t c[3];
	int tr = parse_triple(s, p, "CTA", c, err);
	if (tr == -1)
		return -1;
	if (tr)
		return gpuvm_fail(err, s->t.path, ln, NULL, "expected 'CTA x,y,z'");
	if (c[0] >= s->grid[0] || c[1] >= s->grid[1] || c[2] >= s->grid[2])
		return gpuvm_fail(err, s->t.path, ln, NULL, "CTA %u,%u,%u outside grid (%u,%u,%u)",
				  c[0], c[1], c[2], s->grid[0], s->grid[1], s->grid[2]);
	r->cta = (uint32_t)(c[0] + (uint64_t)s->grid[0] * (c[1] + (uint64_t)s->grid[1] * c[2]));
	uint64_t w;
	p = after(p, " - warp ");
	if (!p || gpuvm_scan_u64(p, NULL, 0, 65535, &w) != GPUVM_NUM_OK)
		return gpuvm_fail(err, s->t.path, ln, NULL, "expected 'warp N' (0 to 65535)");
	r->slot = (uint16_t)w;
	p = after(p, " - ");
	const char *e = p ? strstr(p, " - ") : NULL;
	if (!p || !e || e == p)
		return gpuvm_fail(err, s->t.path, ln, NULL, "expected ' - OPCODE - ' after the warp");
	r->op = op_of(p, (size_t)(e - p));
	r->bytes = width_of(p, (size_t)(e - p));
	p = e + 3;
	r->mask = 0;
	for (int lane = 0; lane < GPUVM_WARP_LANES; lane++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return gpuvm_fail(err, s->t.path, ln, NULL,
					  "truncated: %d of 32 addresses", lane);
		const char *q = p + strcspn(p, " ");
		uint64_t a;
		if (parse_hex(p, (size_t)(q - p), &a))
			return gpuvm_fail(err, s->t.path, ln, NULL, "bad hex address '%.20s' (lane %d)",
					  p, lane);
		r->addr[lane] = a;
		if (a)
			r->mask |= 1u << lane;
		p = q;
	}
	while (*p == ' ')
		p++;
	if (*p)
		return gpuvm_fail(err, s->t.path, ln, NULL, "more than 32 addresses");
	r->line = (uint32_t)ln;
	r->seq = s->seq++;
	if (r->op != MT_OP_COMPUTE)
		for (uint32_t m = r->mask; m; m &= m - 1)
			if (infer_add_fast(&s->inf, r->addr[__builtin_ctz(m)]))
				return gpuvm_fail(err, s->t.path, ln, NULL, "out of memory");
	return 0;
}

static int cmp_rec(const void *x, const void *y)
{
	const struct mt_rec *a = x, *b = y;
	if (a->cta != b->cta)
		return a->cta < b->cta ? -1 : 1;
	if (a->slot != b->slot)
		return a->slot < b->slot ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int spill(struct memtrace *s, struct gpuvm_error *err)
{
	if (s->n > 1)
		qsort(s->buf, s->n, sizeof *s->buf, cmp_rec);
	if (!s->runs && !(s->runs = trace_temp_file(err)))
		return -1;
	if (s->n_runs + 2 > s->cap_runs) {
		size_t cap = s->cap_runs ? 2 * s->cap_runs : 16;
		uint64_t *p = realloc(s->run_off, cap * sizeof *p);
		if (!p)
			return gpuvm_fail(err, s->t.path, 0, NULL, "out of memory");
		s->run_off = p;
		s->cap_runs = cap;
	}
	if (s->n_runs == 0)
		s->run_off[0] = 0;
	if (fwrite(s->buf, sizeof *s->buf, s->n, s->runs) != s->n)
		return gpuvm_fail(err, s->t.path, 0, NULL, "scratch file write failed (disk full?)");
	s->n_runs++;
	s->run_off[s->n_runs] = s->run_off[s->n_runs - 1] + s->n * sizeof *s->buf;
	s->n = 0;
	return 0;
}

/* Emits sorted records as native warps. */
struct emit {
	struct memtrace *s;
	struct native_writer *w;
	uint64_t cta;      /* CTA being written */
	uint32_t warp;     /* warps of it begun so far */
	int slot;          /* its current warp slot, -1 none */
	uint32_t wpc;
	uint64_t ctas;
};

static int finish_cta(struct emit *e, struct gpuvm_error *err)
{
	if (e->slot >= 0 && native_write_warp_end(e->w, err))
		return -1;
	for (; e->warp < e->wpc; e->warp++) {
		native_write_warp_begin(e->w);
		if (native_write_warp_end(e->w, err))
			return -1;
	}
	e->cta++;
	e->warp = 0;
	e->slot = -1;
	return 0;
}

static int emit_rec(struct emit *e, const struct mt_rec *r, struct gpuvm_error *err)
{
	while (e->cta < r->cta)
		if (finish_cta(e, err))
			return -1;
	if (e->slot != r->slot) {
		if (e->slot >= 0 && native_write_warp_end(e->w, err))
			return -1;
		if (e->warp == e->wpc)
			return gpuvm_fail(err, e->s->t.path, (int)r->line, NULL,
					  "CTA %u has more distinct warps than its block's %u",
					  r->cta, e->wpc);
		native_write_warp_begin(e->w);
		e->warp++;
		e->slot = r->slot;
	}
	struct gpuvm_warp_item it;
	gpuvm_item_reset_timing(&it);
	if (r->op == MT_OP_COMPUTE || !r->mask) {
		it.kind = GPUVM_ITEM_COMPUTE;
		it.compute_insts = 1;
	} else {
		it.kind = GPUVM_ITEM_MEM;
		it.op = (enum gpuvm_mem_op)r->op;
		it.bytes_per_lane = r->bytes;
		it.active_mask = r->mask;
		memcpy(it.addr, r->addr, sizeof it.addr);
	}
	return native_write_item(e->w, &it, err);
}

static int emit_all(struct memtrace *s, struct native_writer *w, struct gpuvm_error *err)
{
	struct emit e = {.s = s, .w = w, .slot = -1};
	struct gpuvm_kernel k = {.grid = {s->grid[0], s->grid[1], s->grid[2]},
				 .block = {s->block[0], s->block[1], s->block[2]}};
	e.wpc = gpuvm_kernel_warps_per_cta(&k);
	e.ctas = gpuvm_kernel_ctas(&k);
	if (s->n_runs == 0) {
		if (s->n > 1)
			qsort(s->buf, s->n, sizeof *s->buf, cmp_rec);
		for (size_t i = 0; i < s->n; i++)
			if (emit_rec(&e, &s->buf[i], err))
				return -1;
	} else {
		if (s->n && spill(s, err))
			return -1;
		if (fflush(s->runs))
			return gpuvm_fail(err, s->t.path, 0, NULL, "scratch file write failed");
		/* k-way merge; each run is read through its own cursor, its head
		 * record kept in buf[i] */
		size_t k_runs = s->n_runs;
		struct bufrd *cur = calloc(k_runs, sizeof *cur);
		bool *live = calloc(k_runs, sizeof *live);
		int rc = -1;
		if (!cur || !live || k_runs > s->cap) {
			gpuvm_fail(err, s->t.path, 0, NULL, "out of memory");
			goto merge_out;
		}
		for (size_t i = 0; i < k_runs; i++) {
			if (bufrd_init(&cur[i], fileno(s->runs), NULL, s->run_off[i])) {
				gpuvm_fail(err, s->t.path, 0, NULL, "out of memory");
				goto merge_out;
			}
			live[i] = bufrd_read(&cur[i], &s->buf[i], sizeof *s->buf) == sizeof *s->buf;
		}
		for (;;) {
			size_t best = k_runs;
			for (size_t i = 0; i < k_runs; i++)
				if (live[i] && (best == k_runs || cmp_rec(&s->buf[i], &s->buf[best]) < 0))
					best = i;
			if (best == k_runs)
				break;
			if (emit_rec(&e, &s->buf[best], err))
				goto merge_out;
			live[best] = cur[best].pos < s->run_off[best + 1] &&
				     bufrd_read(&cur[best], &s->buf[best], sizeof *s->buf) == sizeof *s->buf;
		}
		rc = 0;
merge_out:
		if (cur)
			for (size_t i = 0; i < k_runs; i++)
				bufrd_free(&cur[i]);
		free(cur);
		free(live);
		if (rc)
			return -1;
	}
	while (e.cta < e.ctas)
		if (finish_cta(&e, err))
			return -1;
	return 0;
}

/* Reads one kernel's access lines (up to the next launch line). */
static int load_kernel(struct memtrace *s, struct gpuvm_error *err)
{
	char name[96];
	uint32_t grid[3], block[3];
	memcpy(name, s->name, sizeof name);
	memcpy(grid, s->grid, sizeof grid);
	memcpy(block, s->block, sizeof block);
	s->have_launch = false;
	s->n = 0;
	s->n_runs = 0;
	s->seq = 0;
	if (s->runs) {
		rewind(s->runs);
		if (ftruncate(fileno(s->runs), 0))
			return gpuvm_fail(err, s->t.path, 0, NULL, "cannot reset a scratch file");
	}
	char *line;
	size_t len;
	int r;
	while ((r = textin_getline(&s->t, &line, &len, err)) == 1) {
		if (is_launch(line)) {
			if (parse_launch(s, line, err))
				return -1;
			break;
		}
		if (!is_access(line)) {
			if (is_garbage(line))
				return garbage(s, err);
			continue;
		}
		if (op_ahead_stopping(&s->ahead)) /* the run is over: stop reading */
			return gpuvm_fail(err, s->t.path, (int)s->t.line_no, NULL, "cancelled");
		if (s->n == s->cap && spill(s, err))
			return -1;
		if (parse_access(s, line, &s->buf[s->n], err))
			return -1;
		s->n++;
	}
	if (r < 0)
		return -1;
	/* the launch line of the next kernel was read: restore this one's shape */
	char next_name[96];
	uint32_t next_grid[3], next_block[3];
	memcpy(next_name, s->name, sizeof next_name);
	memcpy(next_grid, s->grid, sizeof next_grid);
	memcpy(next_block, s->block, sizeof next_block);
	memcpy(s->name, name, sizeof name);
	memcpy(s->grid, grid, sizeof grid);
	memcpy(s->block, block, sizeof block);
	/* the other slot's kernel, if any, was released by the engine
	 * (op_ahead lets at most OP_AHEAD_KERNELS be out) */
	if (s->threads > 1)
		s->cur = (s->cur + 1) % OP_AHEAD_KERNELS;
	staged_kernel_free(&s->sk[s->cur]);
	FILE *tmp = s->tmp[s->cur];
	if (!tmp && !(tmp = s->tmp[s->cur] = trace_temp_file(err)))
		return -1;
	rewind(tmp);
	if (ftruncate(fileno(tmp), 0))
		return gpuvm_fail(err, s->t.path, 0, NULL, "cannot reset a scratch file");
	struct native_writer w;
	if (native_writer_init(&w, tmp, s->t.path, false, NATIVE_CHUNK_BYTES, err))
		return -1;
	int rc = emit_all(s, &w, err);
	native_writer_free(&w);
	if (!rc && fflush(tmp))
		rc = gpuvm_fail(err, s->t.path, 0, NULL, "scratch file write failed (disk full?)");
	if (!rc)
		rc = native_kernel_init(&s->sk[s->cur].nk, fileno(tmp), NULL, NATIVE_CHUNK_BYTES, true,
					s->t.path, 0, name, grid, block, err);
	memcpy(s->name, next_name, sizeof name);
	memcpy(s->grid, next_grid, sizeof grid);
	memcpy(s->block, next_block, sizeof block);
	if (rc)
		return -1;
	s->sk[s->cur].loaded = true;
	return 0;
}

/* The next operation in trace order (on the reader thread, with one). */
static int mt_produce(void *ctx, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct memtrace *s = ctx;
	memset(op, 0, sizeof *op);
	if (staged_kernel_next(&s->sk[s->cur], &s->inf, op))
		return 0;
	if (!s->have_launch) {
		char *line;
		size_t len;
		int r;
		while ((r = textin_getline(&s->t, &line, &len, err)) == 1) {
			if (is_launch(line)) {
				if (parse_launch(s, line, err))
					return -1;
				break;
			}
			if (is_access(line))
				return gpuvm_fail(err, s->t.path, (int)s->t.line_no, NULL,
						  "access line before any kernel launch line");
			if (is_garbage(line))
				return garbage(s, err);
		}
		if (r < 0)
			return -1;
		if (r == 0) {
			if (!s->kernels_seen)
				return gpuvm_fail(err, s->t.path, (int)s->t.line_no, NULL,
						  "no kernel launch line: not an NVBit mem_trace "
						  "output, or an empty one");
			op->kind = GPUVM_RUN_END;
			return 0;
		}
	}
	s->kernels_seen++;
	if (load_kernel(s, err))
		return -1;
	if (infer_take(&s->inf))
		return gpuvm_fail(err, s->t.path, 0, NULL, "out of memory");
	staged_kernel_ready(&s->sk[s->cur]);
	return mt_produce(s, op, err);
}

static int mt_next_op(struct gpuvm_source *src, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct memtrace *s = src->impl;
	return staged_next_op(src, &s->ahead, s->sk, &s->threads, &s->threads_known, mt_produce, s, op,
			      err);
}

static void mt_destroy(struct gpuvm_source *src)
{
	struct memtrace *s = src->impl;
	staged_free(&s->ahead, s->sk, s->tmp);
	textin_close(&s->t);
	if (s->runs)
		fclose(s->runs);
	infer_free(&s->inf);
	free(s->buf);
	free(s->run_off);
	free(s);
	src->impl = NULL;
}

static const struct gpuvm_source_ops memtrace_ops = {
	.kind = "memtrace",
	.next_op = mt_next_op,
	.destroy = mt_destroy,
};

int trace_open_memtrace(const char *path, struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct memtrace *s = calloc(1, sizeof *s);
	if (!s)
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	struct gpuvm_source src = {.ops = &memtrace_ops, .impl = s};
	infer_init(&s->inf);
	s->cap = MT_RUN_BYTES / sizeof(struct mt_rec);
	s->buf = malloc(s->cap * sizeof *s->buf);
	if (!s->buf) {
		free(s);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	if (textin_open(&s->t, path, err) || !(s->tmp[0] = trace_temp_file(err))) {
		mt_destroy(&src);
		return -1;
	}
	*out = src;
	return 0;
}
