/* Accel-Sim SASS traces: kernelslist.g (MemcpyHtoD / MemcpyDtoH /
 * cudaMalloc / cudaFree lines and kernel files, relative to the list)
 * and kernel-N[-ctx_0x...].traceg[.xz] files, tracer versions 1.2 to 5
 * (accel-sim-framework util/tracer_nvbit/tracer_tool/tracer_tool.cu writes them;
 * gpu-simulator/trace-parser/trace_parser.cc parse_commandlist_file and
 * parse_kernel_info read them).
 *
 * Streaming: when the list reaches a kernel, its file is read once, line
 * by line, and transcoded into the native format (native.h) in an
 * unlinked scratch file; the engine then reads the kernel's warps from
 * there in whatever interleaving it needs. Memory: one text line, one
 * native chunk, plus the native reader's one chunk per resident warp; disk:
 * one kernel in native form (typically 1-5 % of its text).
 *
 * What becomes what: every instruction keeps its register operands
 * (dest and source registers, for the engine's scoreboard) and its
 * functional-unit class (op_class_of: FP32, IMAD, MUFU, FP64, tensor,
 * branch, else ALU). An instruction with mem_width 0 is one compute
 * instruction, BAR.SYNC/BAR.RED a barrier; LDS, STS, ATOMS, LDSM, STSM
 * are shared-memory and LDL, STL local-memory instructions (local
 * addresses are per-thread offsets); lanes of generic LD/ST/ATOM/RED
 * whose addresses fall in the kernel's shared or local window ([base,
 * base + 16 MiB), nvbit_get_shmem_base_addr / _local_mem_base_addr) are
 * shared or local accesses when all lanes agree and dropped otherwise;
 * a memory instruction left with no lanes (mask 0 included) is one
 * compute instruction. ST*, SUST* are stores; ATOM*, RED*, SUATOM*,
 * SURED* atomics; every other memory opcode a load. The opcode's cache
 * qualifiers (.CG, .CS, .CV, .STRONG, .CONSTANT) choose the L1 policy. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/native.h"
#include "trace/kernel_cache.h"
#include "trace/op_ahead.h"
#include "trace/readers.h"
#include "trace/accelsim_internal.h"
#include "trace/sass_opcode.h"
#include "core/env_knob.h"

/* NVBit: shared and local windows are 16 MiB from their base addresses. */
#define AS_WINDOW_BYTES (16ull << 20)


struct accelsim {
	char list_path[512], dir[512];
	struct textin list;
	bool single, single_done, list_open;
	bool infer;
	uint64_t kernels_seen; /* an empty list is an error, not an empty run */
	struct alloc_infer inf;
	/* Two scratch files and kernels: with a reader thread (op_ahead.h)
	 * the next kernel is transcoded into one while the engine replays
	 * the other; alone, only [0] is used. */
	FILE *tmp[OP_AHEAD_KERNELS];
	struct staged_kernel sk[OP_AHEAD_KERNELS];
	unsigned cur;
	uint32_t threads; /* the source's exec_threads, fixed at the first op */
	bool threads_known;
	struct op_ahead ahead;
	struct kernel_cache cache; /* kernels named before, parsed once */
	bool cache_on;             /* GPUVM_TRACE_CACHE=0 turns it off */
	uint64_t kernels_loaded, kernels_cached;
};

FILE *trace_temp_file(struct gpuvm_error *err)
{
	const char *dir = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof path, "%s/gpuvm-trace-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		gpuvm_fail(err, path, 0, NULL, "cannot create a scratch file: %s", strerror(errno));
		return NULL;
	}
	unlink(path);
	FILE *f = fdopen(fd, "w+b");
	if (!f) {
		close(fd);
		gpuvm_fail(err, path, 0, NULL, "cannot open a scratch file");
	}
	return f;
}

/* ---- instructions ---------------------------------------------------------- */

static int inst_fail(struct as_ctx *c, const char *field, const char *fmt, const char *s,
		     size_t n, struct gpuvm_error *err)
{
	char what[160];
	snprintf(what, sizeof what, fmt, (int)(n > 40 ? 40 : n), s ? s : "");
	return gpuvm_fail(err, c->t->path, (int)c->t->line_no, field, "%s", what);
}

#define NEED_TOK(field)                                                                  \
	do {                                                                             \
		s = as_tok(&p, &n);                                                         \
		if (!s)                                                                  \
			return inst_fail(c, field, "line ends before this field%.*s", "", 0, \
					 err);                                           \
	} while (0)

static int flush_compute(struct as_ctx *c, struct gpuvm_error *err)
{
	if (!c->pending_compute)
		return 0;
	struct gpuvm_warp_item it = {.kind = GPUVM_ITEM_COMPUTE,
				     .compute_insts = c->pending_compute,
				     .chain_insts = 1,
				     .op_class = c->pending_class,
				     .has_regs = 1};
	c->pending_compute = 0;
	return native_write_item(c->nw, &it, err);
}

/* One compute instruction: merged into the pending gap when it has no
 * register operands (nothing can wait on it), else an item of its own. */
static int put_compute(struct as_ctx *c, struct gpuvm_warp_item *it, uint8_t cls,
		       struct gpuvm_error *err)
{
	if (!it->n_dst && !it->n_src) {
		if (c->pending_compute && c->pending_class != cls && flush_compute(c, err))
			return -1;
		c->pending_class = cls;
		c->pending_compute++;
		return 0;
	}
	if (flush_compute(c, err))
		return -1;
	it->kind = GPUVM_ITEM_COMPUTE;
	it->compute_insts = 1;
	it->chain_insts = 1;
	it->op_class = cls;
	return native_write_item(c->nw, it, err);
}

static void add_reg(uint16_t *regs, uint8_t *n, uint8_t cap, const char *s, size_t len)
{
	uint16_t r = sass_reg_id(s, len);
	if (r != GPUVM_REG_NONE && *n < cap)
		regs[(*n)++] = r;
}

static bool in_window(uint64_t a, uint64_t base)
{
	return base && a - base < AS_WINDOW_BYTES;
}

/* The SASS tables' answers for opcode op[0..n), from c's cache (filled
 * on a miss; an opcode longer than the slot is answered afresh into
 * *tmp). */
static const struct as_opcode_info *opcode_info(struct as_ctx *c, const char *op, size_t n,
						struct as_opcode_info *tmp)
{
	struct as_opcode_info *e = tmp;
	if (n <= AS_OPCODE_MAX) {
		uint32_t hash = 2166136261u; /* FNV-1a */
		for (size_t i = 0; i < n; i++)
			hash = (hash ^ (unsigned char)op[i]) * 16777619u;
		e = &c->opcodes[hash % AS_OPCODE_CACHE];
		if (e->len == n && !memcmp(e->text, op, n))
			return e;
		memcpy(e->text, op, n);
		e->text[n] = 0;
		e->len = (uint8_t)n;
	}
	e->global_mem = sass_is_global_memory_opcode(op, n);
	e->barrier = sass_is_barrier(op, n);
	e->op_class = (uint8_t)sass_op_class_of(op, n);
	e->access = (uint8_t)sass_classify(op, n);
	e->space = (uint8_t)sass_opcode_space(op, n);
	e->cache_op = (uint8_t)sass_opcode_cache_op(op, n);
	return e;
}

static int parse_inst(struct as_ctx *c, const char *line, struct gpuvm_error *err)
{
	const char *p = line, *s;
	size_t n;
	uint64_t v;
	int64_t d;
	if (c->h->lineinfo)
		NEED_TOK("line_num");
	if (c->h->version < 30)
		for (int i = 0; i < 4; i++)
			NEED_TOK("thread block / warp id");
	NEED_TOK("PC");
	if (parse_hex(s, n, &v))
		return inst_fail(c, "PC", "bad hex '%.*s'", s, n, err);
	NEED_TOK("mask");
	if (parse_hex(s, n, &v) || n > 8)
		return inst_fail(c, "mask", "bad hex '%.*s' (8 hex digits expected)", s, n, err);
	uint32_t mask = (uint32_t)v;
	struct gpuvm_warp_item it;
	gpuvm_item_reset_timing(&it);
	it.has_regs = 1;
	it.n_dst = it.n_src = 0;
	NEED_TOK("dest_num");
	if (as_parse_dec(s, n, &d) || d < 0 || d > 8)
		return inst_fail(c, "dest_num", "bad count '%.*s'", s, n, err);
	for (int64_t i = 0; i < d; i++) {
		NEED_TOK("reg_dests");
		add_reg(it.dst, &it.n_dst, GPUVM_ITEM_MAX_DST, s, n);
	}
	NEED_TOK("opcode");
	const char *opcode = s;
	size_t opcode_n = n;
	NEED_TOK("src_num");
	if (as_parse_dec(s, n, &d) || d < 0 || d > 8)
		return inst_fail(c, "src_num", "bad count '%.*s'", s, n, err);
	for (int64_t i = 0; i < d; i++) {
		NEED_TOK("reg_srcs");
		add_reg(it.src, &it.n_src, GPUVM_ITEM_MAX_SRC, s, n);
	}
	NEED_TOK("mem_width");
	if (as_parse_dec(s, n, &d) || d < 0 || d > 255)
		return inst_fail(c, "mem_width", "bad width '%.*s' (0 to 255 bytes)", s, n, err);
	struct as_opcode_info spill;
	const struct as_opcode_info *oi = opcode_info(c, opcode, opcode_n, &spill);
	if (d == 0) {
		/* a global load, store or atomic always moves bytes: width 0
		 * there is a corrupt line, not a compute instruction */
		if (oi->global_mem)
			return inst_fail(c, "mem_width", "0 on the memory instruction %.*s", opcode,
					 opcode_n, err);
		if (oi->barrier) {
			if (flush_compute(c, err))
				return -1;
			it.kind = GPUVM_ITEM_BARRIER;
			return native_write_item(c->nw, &it, err);
		}
		return put_compute(c, &it, oi->op_class, err);
	}
	it.kind = GPUVM_ITEM_MEM;
	it.bytes_per_lane = (uint32_t)d;
	NEED_TOK("address mode");
	int64_t mode;
	if (as_parse_dec(s, n, &mode) || mode < 0 || mode > 2 || (c->h->version < 30 && mode == 2))
		return inst_fail(c, "address mode", "unknown address mode '%.*s'", s, n, err);
	uint32_t lanes = (uint32_t)__builtin_popcount(mask);
	if (mode == 0) {
		for (uint32_t m = mask; m; m &= m - 1) {
			NEED_TOK("address");
			if (parse_hex(s, n, &v))
				return inst_fail(c, "address", "bad hex '%.*s'", s, n, err);
			it.addr[__builtin_ctz(m)] = v;
		}
	} else {
		NEED_TOK("base address");
		uint64_t base;
		if (parse_hex(s, n, &base))
			return inst_fail(c, "base address", "bad hex '%.*s'", s, n, err);
		int64_t stride = 0;
		if (mode == 1) {
			NEED_TOK("stride");
			if (as_parse_dec(s, n, &stride))
				return inst_fail(c, "stride", "bad number '%.*s'", s, n, err);
		}
		uint64_t a = base;
		uint32_t k = 0;
		for (uint32_t m = mask; m; m &= m - 1, k++) {
			if (k > 0) {
				if (mode == 2) {
					NEED_TOK("address delta");
					if (as_parse_dec(s, n, &stride))
						return inst_fail(c, "address delta", "bad number '%.*s'", s, n, err);
				}
				a += (uint64_t)stride;
			}
			it.addr[__builtin_ctz(m)] = a;
		}
	}
	(void)lanes;
	enum sass_access cls = (enum sass_access)oi->access;
	enum gpuvm_mem_space space = (enum gpuvm_mem_space)oi->space;
	if (space == GPUVM_SPACE_GLOBAL) {
		/* generic accesses into the shared or local window are shared
		 * or local when all lanes agree; stray lanes are dropped */
		uint32_t shm = 0, loc = 0;
		for (uint32_t m = mask; m; m &= m - 1) {
			uint32_t l = (uint32_t)__builtin_ctz(m);
			shm |= (uint32_t)in_window(it.addr[l], c->h->shmem_base) << l;
			loc |= (uint32_t)in_window(it.addr[l], c->h->local_base) << l;
		}
		uint64_t base = 0;
		if (mask && shm == mask)
			space = GPUVM_SPACE_SHARED, base = c->h->shmem_base;
		else if (mask && loc == mask)
			space = GPUVM_SPACE_LOCAL, base = c->h->local_base;
		else
			mask &= ~(shm | loc);
		for (uint32_t m = base ? mask : 0; m; m &= m - 1)
			it.addr[__builtin_ctz(m)] -= base;
	}
	if (!mask)
		return put_compute(c, &it, GPUVM_CLASS_MEMISSUE, err);
	it.op = cls == SASS_STORE ? GPUVM_OP_STORE : cls == SASS_ATOMIC ? GPUVM_OP_ATOMIC : GPUVM_OP_LOAD;
	it.active_mask = mask;
	it.space = (uint8_t)space;
	if (space == GPUVM_SPACE_GLOBAL) {
		it.cache_op = oi->cache_op;
		if (c->inf)
			for (uint32_t m = mask; m; m &= m - 1)
				if (infer_add_fast(c->inf, it.addr[__builtin_ctz(m)]))
					return gpuvm_fail(err, c->t->path, 0, NULL, "out of memory");
	}
	if (flush_compute(c, err))
		return -1;
	return native_write_item(c->nw, &it, err);
}

static bool is_inst_line(const char *l)
{
	uint64_t v;
	return gpuvm_scan_hex(l, NULL, &v) == GPUVM_NUM_OK;
}

/* One warp: "insts = n" then n instruction lines. */
static int parse_warp(struct as_ctx *c, uint32_t warp, struct gpuvm_error *err)
{
	struct textin *t = c->t;
	char *line;
	size_t len;
	int r = as_next_nonblank(t, &line, err);
	if (r <= 0)
		return r < 0 ? -1 : gpuvm_fail(err, t->path, (int)t->line_no, NULL,
					       "truncated: file ends before 'insts =' of warp %u", warp);
	char *key, *val;
	int64_t count;
	if (strncmp(line, "insts", 5) || !as_split_kv(line, 0, &key, &val) ||
	    as_parse_dec(val, strlen(val), &count) || count < 0)
		return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
				  "expected 'insts = N' after 'warp = %u'", warp);
	native_write_warp_begin(c->nw);
	c->pending_compute = 0;
	for (int64_t i = 0; i < count; i++) {
		r = textin_getline(t, &line, &len, err);
		if (r < 0)
			return -1;
		if (r == 0)
			return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
					  "truncated: file ends inside warp %u (%lld of %lld instructions)",
					  warp, (long long)i, (long long)count);
		if (!is_inst_line(line))
			return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
					  "warp %u declares insts = %lld but has %lld instruction lines",
					  warp, (long long)count, (long long)i);
		if (parse_inst(c, line, err))
			return -1;
	}
	if (flush_compute(c, err))
		return -1;
	return native_write_warp_end(c->nw, err);
}

static int empty_warps(struct native_writer *nw, uint32_t from, uint32_t to,
		       struct gpuvm_error *err)
{
	for (uint32_t w = from; w < to; w++) {
		native_write_warp_begin(nw);
		if (native_write_warp_end(nw, err))
			return -1;
	}
	return 0;
}

int as_parse_blocks(struct as_ctx *c, uint64_t first, uint64_t stop, bool last,
		    struct gpuvm_error *err)
{
	struct textin *t = c->t;
	const struct as_header *h = c->h;
	uint64_t ctas = (uint64_t)h->grid[0] * h->grid[1] * h->grid[2];
	uint32_t wpc = (uint32_t)(((uint64_t)h->block[0] * h->block[1] * h->block[2] + 31) / 32);
	char *line;
	int r;
	for (uint64_t cta = first; cta < stop; cta++) {
		if (op_ahead_stopping(c->ahead)) /* the run is over: stop parsing */
			return gpuvm_fail(err, t->path, (int)t->line_no, NULL, "cancelled");
		if (cta > first) {
			r = as_next_nonblank(t, &line, err);
			if (r < 0)
				return -1;
			if (r == 0)
				return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
						  "truncated: %llu of %llu thread blocks",
						  (unsigned long long)cta, (unsigned long long)ctas);
			if (strncmp(line, "#BEGIN_TB", 9))
				return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
						  "expected #BEGIN_TB");
		}
		r = as_next_nonblank(t, &line, err);
		if (r <= 0)
			return r < 0 ? -1 : gpuvm_fail(err, t->path, (int)t->line_no, NULL,
						       "truncated: file ends after #BEGIN_TB");
		uint32_t b[3];
		const char *rest;
		if (as_parse_block(t->path, (int)t->line_no, line, b, &rest, err))
			return -1;
		if (!as_is_blank(rest))
			return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
					  "expected 'thread block = x,y,z'");
		uint32_t x = b[0], y = b[1], z = b[2];
		if (x >= h->grid[0] || y >= h->grid[1] || z >= h->grid[2])
			return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
					  "thread block %u,%u,%u outside grid (%u,%u,%u)", x, y, z,
					  h->grid[0], h->grid[1], h->grid[2]);
		uint64_t lin = x + (uint64_t)h->grid[0] * (y + (uint64_t)h->grid[1] * z);
		if (lin != cta)
			return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
					  "thread block %u,%u,%u where block %llu was expected (blocks "
					  "must come in linear order, as post-traces-processing writes them)",
					  x, y, z, (unsigned long long)cta);
		uint32_t next_warp = 0;
		for (;;) {
			r = as_next_nonblank(t, &line, err);
			if (r < 0)
				return -1;
			if (r == 0)
				return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
						  "truncated: file ends inside thread block %u,%u,%u (no #END_TB)",
						  x, y, z);
			if (!strncmp(line, "#END_TB", 7))
				break;
			uint32_t w;
			int wr = as_parse_warp_line(t, line, &w, err);
			if (wr < 0)
				return -1;
			if (wr == 1) {
				if (w >= wpc || w < next_warp)
					return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
							  "warp %u out of order or beyond the block's %u warps",
							  w, wpc);
				if (empty_warps(c->nw, next_warp, w, err) || parse_warp(c, w, err))
					return -1;
				next_warp = w + 1;
				continue;
			}
			if (is_inst_line(line))
				return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
						  "more instruction lines than the warp's 'insts =' declares");
			return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
					  "expected 'warp = N' or #END_TB");
		}
		/* the tracer lists every warp of a block, each with its
		 * instructions: fewer warps than block dim implies is a corrupt
		 * or mismatched trace, not a block of idle warps */
		if (next_warp != wpc)
			return gpuvm_fail(err, t->path, (int)t->line_no, "block dim",
					  "thread block %u,%u,%u has %u warps, but block dim "
					  "(%u,%u,%u) makes %u", x, y, z, next_warp, h->block[0],
					  h->block[1], h->block[2], wpc);
	}
	if (!last)
		return 0; /* the next block is another part's (accelsim_split.c) */
	r = as_next_nonblank(t, &line, err);
	if (r < 0)
		return -1;
	if (r == 1)
		return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
				  "%s after the last of the grid's %llu thread blocks",
				  strncmp(line, "#BEGIN_TB", 9) ? "unexpected line" : "more thread blocks",
				  (unsigned long long)ctas);
	return 0;
}

/* Opens a kernel in native form (a cache entry's scratch or the slot's own)
 * for the engine. */
static int open_native(struct accelsim *s, FILE *f, const char *kpath, const char *name,
		       const uint32_t grid[3], const uint32_t block[3], uint32_t smem_bytes,
		       struct gpuvm_error *err)
{
	struct staged_kernel *sk = &s->sk[s->cur];
	if (native_kernel_init(&sk->nk, fileno(f), NULL, NATIVE_CHUNK_BYTES, true, kpath, 0, name,
			       grid, block, err))
		return -1;
	/* shared memory per CTA limits how many CTAs an SM holds */
	sk->nk.k.smem_bytes_per_cta = smem_bytes;
	sk->loaded = true;
	return 0;
}

/* Empties a scratch file for a kernel's native bytes. */
static int reset_scratch(FILE *tmp, const char *kpath, struct gpuvm_error *err)
{
	rewind(tmp);
	if (ftruncate(fileno(tmp), 0))
		return gpuvm_fail(err, kpath, 0, NULL, "cannot reset the scratch file");
	return 0;
}

/* Reads one kernel file into a scratch file and opens it for the engine;
 * a file named before comes from the cache (kernel_cache.h). */
static int load_kernel(struct accelsim *s, const char *kpath, struct gpuvm_error *err)
{
	struct stat st;
	bool cacheable = s->cache_on && !s->single && !stat(kpath, &st) && S_ISREG(st.st_mode);
	s->kernels_loaded++;
	if (cacheable) {
		struct kernel_cache_entry *e = kernel_cache_find(&s->cache, kpath, &st);
		if (e) {
			/* its footprint needs no second inference: the first
			 * launch's infer_take made every granule it touched part
			 * of a known allocation, and known ones are skipped */
			e->hits++;
			s->kernels_cached++;
			return open_native(s, e->native, kpath, e->name, e->grid, e->block,
					   e->smem_bytes, err);
		}
	}
	struct textin t;
	if (textin_open(&t, kpath, err))
		return -1;
	struct as_header h;
	struct native_writer nw = {0};
	int rc = -1;
	bool own_tmp = false; /* a fresh scratch the cache may take */
	if (as_parse_header(&t, &h, err))
		goto out_text;
	FILE *tmp;
	if (cacheable && kernel_cache_has_room(&s->cache, 0)) {
		tmp = trace_temp_file(err);
		own_tmp = true;
	} else {
		tmp = s->tmp[s->cur];
		if (!tmp)
			tmp = s->tmp[s->cur] = trace_temp_file(err);
	}
	if (!tmp)
		goto out_text;
	if (reset_scratch(tmp, kpath, err))
		goto out_tmp;
	/* a large kernel file in parts on threads, where it splits; where a
	 * part failed, the whole file from its start here (so an error is the
	 * first in the file, at its line) */
	struct as_cuts cuts;
	if (as_split_parts(&t, &h, s->threads, &cuts) > 1) {
		int r = as_transcode_parts(&t, &h, tmp, &cuts, s->infer ? &s->inf : NULL, &s->ahead,
					   err);
		if (r < 0)
			goto out_tmp;
		if (r == 1)
			goto transcoded;
		textin_close(&t);
		if (textin_open(&t, kpath, err) || as_parse_header(&t, &h, err) ||
		    reset_scratch(tmp, kpath, err))
			goto out_tmp;
	}
	if (native_writer_init(&nw, tmp, kpath, false, NATIVE_CHUNK_BYTES, err))
		goto out_tmp;
	struct as_ctx c = {.t = &t, .h = &h, .nw = &nw, .inf = s->infer ? &s->inf : NULL,
			   .ahead = &s->ahead};
	if (as_parse_blocks(&c, 0, as_grid_ctas(&h), true, err))
		goto out_writer;
	if (fflush(tmp)) {
		gpuvm_fail(err, kpath, 0, NULL, "scratch file write failed (disk full?)");
		goto out_writer;
	}
transcoded:
	if (open_native(s, tmp, kpath, h.name, h.grid, h.block, h.shmem_bytes, err))
		goto out_writer;
	rc = 0;
	if (own_tmp) {
		long bytes = ftell(tmp);
		/* kept when there is room; otherwise it becomes the slot's
		 * scratch, read until the slot is reused, as an uncached one */
		if (bytes >= 0 && kernel_cache_has_room(&s->cache, (uint64_t)bytes) &&
		    !kernel_cache_add(&s->cache, kpath, &st, tmp, (uint64_t)bytes, h.name, h.grid,
				      h.block, h.shmem_bytes)) {
			own_tmp = false;
		} else {
			if (s->tmp[s->cur])
				fclose(s->tmp[s->cur]);
			s->tmp[s->cur] = tmp;
			own_tmp = false;
		}
	}
out_writer:
	native_writer_free(&nw);
out_tmp:
	if (own_tmp && tmp) /* failed before the kernel was opened */
		fclose(tmp);
out_text:
	textin_close(&t);
	return rc;
}

/* ---- kernelslist.g ----------------------------------------------------------- */

static int parse_u64_field(const char *s, bool hex, uint64_t *v)
{
	int64_t d;
	if (hex)
		return parse_hex(s, strlen(s), v);
	if (as_parse_dec(s, strlen(s), &d) || d < 0)
		return -1;
	*v = (uint64_t)d;
	return 0;
}

/* The next operation in list order (on the reader thread, with one). */
static int as_produce(void *ctx, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct accelsim *s = ctx;
	memset(op, 0, sizeof *op);
	for (;;) {
		if (staged_kernel_next(&s->sk[s->cur], &s->inf, op))
			return 0;
		char kpath[1100];
		if (s->single) {
			if (s->single_done) {
				op->kind = GPUVM_RUN_END;
				return 0;
			}
			s->single_done = true;
			snprintf(kpath, sizeof kpath, "%s", s->list_path);
		} else {
			char *line;
			size_t len;
			int r = textin_getline(&s->list, &line, &len, err);
			if (r < 0)
				return -1;
			if (r == 0) {
				if (!s->kernels_seen)
					return gpuvm_fail(err, s->list.path, (int)s->list.line_no,
							  NULL, "lists no kernel (.traceg file): "
							  "nothing to replay");
				op->kind = GPUVM_RUN_END;
				return 0;
			}
			int ln = (int)s->list.line_no;
			while (*line == ' ' || *line == '\t')
				line++;
			char *e = line + strlen(line);
			while (e > line && (e[-1] == ' ' || e[-1] == '\t'))
				*--e = 0;
			if (!*line || *line == '#')
				continue;
			char *f[4] = {0};
			int nf = 0;
			bool command = !strncmp(line, "Memcpy", 6) || !strncmp(line, "cudaMalloc", 10) ||
				       !strncmp(line, "cudaFree", 8);
			if (command) {
				for (char *q = line; nf < 4 && q; nf++) {
					f[nf] = q;
					q = strchr(q, ',');
					if (q)
						*q++ = 0;
				}
				bool is_free = !strcmp(f[0], "cudaFree");
				uint64_t a = 0, b = 0;
				if (nf != (is_free ? 2 : 3) || parse_u64_field(f[1], true, &a) ||
				    (!is_free && parse_u64_field(f[2], false, &b)))
					return gpuvm_fail(err, s->list.path, ln, f[0],
							  "expected %s,0x<hex address>%s", f[0],
							  is_free ? "" : ",<bytes>");
				if (b > (1ull << 40))
					return gpuvm_fail(err, s->list.path, ln, f[0],
							  "%" PRIu64 " bytes is more than 1 TiB", b);
				if (b && a + (b - 1) < a)
					return gpuvm_fail(err, s->list.path, ln, f[0],
							  "0x%" PRIx64 " + %" PRIu64 " bytes wraps the "
							  "address space", a, b);
				if (!strcmp(f[0], "MemcpyHtoD") || !strcmp(f[0], "MemcpyDtoH")) {
					op->kind = f[0][6] == 'H' ? GPUVM_RUN_COPY_H2D : GPUVM_RUN_COPY_D2H;
					op->copy_addr = a;
					op->copy_bytes = b;
					if (s->infer && infer_add_range(&s->inf, a, b))
						return gpuvm_fail(err, s->list.path, ln, NULL, "out of memory");
					return 0;
				}
				if (!strcmp(f[0], "cudaMalloc")) {
					if (!b)
						return gpuvm_fail(err, s->list.path, ln, f[0], "zero bytes");
					op->kind = GPUVM_RUN_ALLOC;
					op->alloc.base = a;
					op->alloc.bytes = b;
					op->alloc.kind = GPUVM_ALLOC_DEVICE;
					snprintf(op->alloc.name, sizeof op->alloc.name, "cudaMalloc@0x%" PRIx64, a);
					return 0;
				}
				if (is_free) {
					op->kind = GPUVM_RUN_FREE;
					op->alloc.base = a;
					return 0;
				}
				return gpuvm_fail(err, s->list.path, ln, f[0], "unknown command");
			}
			if (!strstr(line, ".traceg"))
				return gpuvm_fail(err, s->list.path, ln, NULL,
						  "unrecognised line '%.60s' (expected MemcpyHtoD, cudaMalloc, "
						  "cudaFree or a kernel .traceg file)",
						  line);
			if (line[0] == '/')
				snprintf(kpath, sizeof kpath, "%s", line);
			else
				snprintf(kpath, sizeof kpath, "%s/%s", s->dir, line);
			if (access(kpath, R_OK))
				return gpuvm_fail(err, s->list.path, ln, NULL, "kernel file %s: %s", kpath,
						  strerror(errno));
		}
		/* the other slot's kernel, if any, was released by the engine
		 * (op_ahead lets at most OP_AHEAD_KERNELS be out) */
		if (s->threads > 1)
			s->cur = (s->cur + 1) % OP_AHEAD_KERNELS;
		staged_kernel_free(&s->sk[s->cur]);
		if (load_kernel(s, kpath, err))
			return -1;
		s->kernels_seen++;
		s->inf.n_fresh = 0;
		if (s->infer && infer_take(&s->inf))
			return gpuvm_fail(err, kpath, 0, NULL, "out of memory");
		staged_kernel_ready(&s->sk[s->cur]);
	}
}

static int as_next_op(struct gpuvm_source *src, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct accelsim *s = src->impl;
	return staged_next_op(src, &s->ahead, s->sk, &s->threads, &s->threads_known, as_produce, s, op,
			      err);
}

static void as_destroy(struct gpuvm_source *src)
{
	struct accelsim *s = src->impl;
	staged_free(&s->ahead, s->sk, s->tmp);
	if (s->list_open)
		textin_close(&s->list);
	infer_free(&s->inf);
	/* GPUVM_TRACE_CACHE_LOG=1: how many launches the cache served */
	const char *log = getenv("GPUVM_TRACE_CACHE_LOG");
	if (log && *log && strcmp(log, "0") && s->kernels_loaded)
		fprintf(stderr, "trace cache: %" PRIu64 " kernel launches, %" PRIu64
			" parsed, %" PRIu64 " from the cache (%zu kernels, %" PRIu64 " bytes)\n",
			s->kernels_loaded, s->kernels_loaded - s->kernels_cached, s->kernels_cached,
			s->cache.n, s->cache.bytes);
	kernel_cache_free(&s->cache);
	free(s);
	src->impl = NULL;
}

static const struct gpuvm_source_ops accelsim_ops = {
	.kind = "accelsim",
	.next_op = as_next_op,
	.destroy = as_destroy,
};

/* Does the first non-blank line start a kernel file? */
static int looks_like_kernel(const char *path, bool *kernel, struct gpuvm_error *err)
{
	struct textin t;
	if (textin_open(&t, path, err))
		return -1;
	char *line;
	int r = as_next_nonblank(&t, &line, err);
	*kernel = r == 1 && line[0] == '-';
	textin_close(&t);
	return r < 0 ? -1 : 0;
}

int trace_open_accelsim(const char *path, struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct accelsim *s = calloc(1, sizeof *s);
	if (!s)
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	struct gpuvm_source src = {.ops = &accelsim_ops, .impl = s};
	infer_init(&s->inf);
	s->cache_on = env_knob_bool("GPUVM_TRACE_CACHE", 1);
	struct stat st;
	if (stat(path, &st)) {
		gpuvm_fail(err, path, 0, NULL, "cannot open: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode))
		snprintf(s->list_path, sizeof s->list_path, "%s/kernelslist.g", path);
	else
		snprintf(s->list_path, sizeof s->list_path, "%s", path);
	snprintf(s->dir, sizeof s->dir, "%s", s->list_path);
	char *slash = strrchr(s->dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(s->dir, sizeof s->dir, ".");
	if (looks_like_kernel(s->list_path, &s->single, err))
		goto fail;
	s->infer = true;
	if (!s->single) {
		/* cudaMalloc lines, where the tracer wrote them, give the
		 * allocations; otherwise they are inferred from the footprint. */
		if (textin_open(&s->list, s->list_path, err))
			goto fail;
		char *line;
		size_t len;
		int r;
		while ((r = textin_getline(&s->list, &line, &len, err)) == 1)
			if (!strncmp(line, "cudaMalloc,", 11))
				s->infer = false;
		textin_close(&s->list);
		if (r < 0 || textin_open(&s->list, s->list_path, err))
			goto fail;
		s->list_open = true;
	}
	s->tmp[0] = trace_temp_file(err);
	if (!s->tmp[0])
		goto fail;
	*out = src;
	return 0;
fail:
	as_destroy(&src);
	return -1;
}
