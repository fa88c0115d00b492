/* Reader of the native trace format (layout in native.h).
 *
 * The engine places CTAs in increasing order and then pulls their warps
 * interleaved. A scanner walks the frame headers (not the payloads) up to
 * the CTA being placed and notes where each of its warps starts; each
 * resident warp then decompresses its own frames, from the file's mapping
 * (or read with pread where it cannot be mapped), into one chunk buffer.
 * Memory: one chunk of the trace's frame size per resident warp, one
 * offset per warp of a CTA, one scratch frame and a 64 KiB scan buffer
 * (pread only). Mapped pages are unmapped once consumed (see below). */
#include "trace/native.h"
#include "trace/readers.h"

#include "gpuvm/crc32c.h"
#include "gpuvm/input_file.h"
#include "gpuvm/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUFRD_BYTES (64u << 10)
/* Mapped bytes the scanner passed are unmapped in steps of 8 MiB, and
 * those a warp consumed in steps of 64 KiB: one madvise per 64 KiB of
 * compressed frames (8 or more) costs little next to decoding them, and
 * a resident warp keeps at most that much consumed data mapped. */
#define NATIVE_DROP_STEP_BYTES (8ull << 20)
#define NATIVE_WARP_DROP_BYTES (16ull << 10)
#ifndef NATIVE_FRAMES_MAPPED
#define NATIVE_FRAMES_MAPPED 1
#endif

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

int bufrd_init(struct bufrd *r, int fd, const struct native_map *map, uint64_t pos)
{
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->pos = pos;
	if (map && map->len) {
		r->map = map;
		return 0;
	}
	r->cap = BUFRD_BYTES;
	r->buf = malloc(r->cap);
	return r->buf ? 0 : -1;
}

void bufrd_free(struct bufrd *r)
{
	free(r->buf);
	r->buf = NULL;
}

long bufrd_read(struct bufrd *r, void *dst, size_t n)
{
	unsigned char *d = dst;
	size_t got = 0;
	if (r->map) {
		uint64_t len = r->map->len;
		got = r->pos >= len ? 0 : len - r->pos < n ? (size_t)(len - r->pos) : n;
		memcpy(d, r->map->p + r->pos, got);
		r->pos += got;
		return (long)got;
	}
	while (got < n) {
		if (r->pos >= r->start && r->pos < r->start + r->len) {
			size_t off = (size_t)(r->pos - r->start);
			size_t take = r->len - off < n - got ? r->len - off : n - got;
			memcpy(d + got, r->buf + off, take);
			got += take;
			r->pos += take;
			continue;
		}
		ssize_t k;
		do
			k = pread(r->fd, r->buf, r->cap, (off_t)r->pos);
		while (k < 0 && errno == EINTR);
		if (k < 0)
			return -1;
		r->start = r->pos;
		r->len = (size_t)k;
		if (k == 0)
			break;
	}
	return (long)got;
}

/* ---- kernel ------------------------------------------------------------ */

struct native_warp {
	uint64_t next_frame; /* file offset of the next frame header */
	uint64_t prev_addr;
	uint64_t dropped;    /* mapped bytes of the chain before this are unmapped */
	uint32_t buf;        /* pool index + 1; 0 = none */
	/* nk->bufs[buf - 1], kept here: the engine prefetches this state
	 * (and, through nk_warp_prefetch, the bytes it points at) one event
	 * ahead, and a look-up in nk->bufs would miss the cache first */
	unsigned char *data;
	uint32_t pos, len;
	uint8_t last, done, bad;
};

static int kfail(struct native_kernel *nk, struct gpuvm_error *err, uint64_t off,
		 const char *what)
{
	return gpuvm_fail(err, nk->origin, 0, NULL, "byte %llu: %s", (unsigned long long)off,
			  what);
}

/* Moves the scanner past one warp's frames. */
static int scan_warp(struct native_kernel *nk, struct gpuvm_error *err)
{
	uint32_t hl = nk->frame_header_bytes;
	for (;;) {
		unsigned char h[NATIVE_FRAME_HEADER_CRC_BYTES];
		uint64_t at = nk->scan.pos;
		long n = bufrd_read(&nk->scan, h, hl);
		if (n != (long)hl)
			return kfail(nk, err, at, n < 0 ? "read error" : "truncated: file ends inside a kernel");
		/* the lengths the scanner trusts are checked before use */
		if (hl == NATIVE_FRAME_HEADER_CRC_BYTES && gpuvm_crc32c(0, h, 12) != get_u32(h + 12))
			return kfail(nk, err, at, "frame header checksum mismatch (corrupt file)");
		uint32_t csize = get_u32(h), raw = get_u32(h + 4);
		if ((raw & ~NATIVE_FRAME_LAST) > nk->frame_bytes || csize > nk->scratch_cap - hl ||
		    (csize == 0) != ((raw & ~NATIVE_FRAME_LAST) == 0))
			return kfail(nk, err, at, "corrupt frame header");
		nk->scan.pos += csize;
		if (raw & NATIVE_FRAME_LAST)
			return 0;
	}
}

static int scan_to(struct native_kernel *nk, uint64_t cta, struct gpuvm_error *err)
{
	while (nk->scan_cta <= cta) {
		bool keep = nk->scan_cta == cta;
		for (uint32_t w = 0; w < nk->warps_per_cta; w++) {
			if (keep)
				nk->warp_off[w] = nk->scan.pos;
			if (scan_warp(nk, err))
				return -1;
		}
		nk->scan_cta++;
	}
	nk->cur_cta = cta;
	nk->have_cur = true;
	/* the scanner only reads headers: its pages are unmapped behind it, and
	 * a warp that reads them later faults them back from the page cache */
	if (nk->scan.pos >= nk->scan_dropped + NATIVE_DROP_STEP_BYTES) {
		native_map_drop(&nk->map, nk->scan_dropped, nk->scan.pos);
		nk->scan_dropped = nk->scan.pos;
	}
	return 0;
}

static void nk_warp_begin(struct gpuvm_kernel *k, void *state, uint32_t cta, uint32_t warp)
{
	struct native_kernel *nk = k->impl;
	struct native_warp *w = state;
	memset(w, 0, sizeof *w);
	if (nk->failed) {
		w->bad = 1;
		return;
	}
	if (warp >= nk->warps_per_cta) {
		gpuvm_fail(&nk->pending, nk->origin, 0, NULL, "warp %u beyond the CTA's %u warps", warp,
			   nk->warps_per_cta);
		nk->failed = true;
		w->bad = 1;
		return;
	}
	if (!(nk->have_cur && nk->cur_cta == cta)) {
		if (cta < nk->scan_cta || cta >= nk->ctas) {
			gpuvm_fail(&nk->pending, nk->origin, 0, NULL,
				   "CTA %u requested out of order (CTAs are read in increasing order)",
				   cta);
			nk->failed = true;
			w->bad = 1;
			return;
		}
		if (scan_to(nk, cta, &nk->pending)) {
			nk->failed = true;
			w->bad = 1;
			return;
		}
	}
	w->next_frame = w->dropped = nk->warp_off[warp];
}

static void release_buf(struct native_kernel *nk, struct native_warp *w)
{
	if (w->buf) {
		nk->free_bufs[nk->n_free++] = w->buf - 1;
		w->buf = 0;
		w->data = NULL;
	}
}

static int acquire_buf(struct native_kernel *nk, struct native_warp *w)
{
	if (!nk->n_free) {
		if (nk->n_bufs == nk->cap_bufs) {
			uint32_t cap = nk->cap_bufs ? 2 * nk->cap_bufs : 64;
			unsigned char **b = realloc(nk->bufs, cap * sizeof *b);
			if (!b)
				return -1;
			nk->bufs = b;
			uint32_t *f = realloc(nk->free_bufs, cap * sizeof *f);
			if (!f)
				return -1;
			nk->free_bufs = f;
			nk->cap_bufs = cap;
		}
		nk->bufs[nk->n_bufs] = malloc(nk->frame_bytes);
		if (!nk->bufs[nk->n_bufs])
			return -1;
		nk->free_bufs[nk->n_free++] = nk->n_bufs++;
	}
	w->buf = nk->free_bufs[--nk->n_free] + 1;
	w->data = nk->bufs[w->buf - 1];
	return 0;
}

static int load_frame(struct native_kernel *nk, struct native_warp *w, struct gpuvm_error *err)
{
	if (!w->buf && acquire_buf(nk, w))
		return kfail(nk, err, w->next_frame, "out of memory");
	const unsigned char *f; /* the frame: header, then payload */
	ssize_t n;
	if (nk->map.len && NATIVE_FRAMES_MAPPED) {
		uint64_t left = w->next_frame < nk->map.len ? nk->map.len - w->next_frame : 0;
		f = nk->map.p + w->next_frame;
		n = left > nk->scratch_cap ? (ssize_t)nk->scratch_cap : (ssize_t)left;
	} else {
		do
			n = pread(nk->fd, nk->scratch, nk->scratch_cap, (off_t)w->next_frame);
		while (n < 0 && errno == EINTR);
		f = nk->scratch;
	}
	uint32_t hl = nk->frame_header_bytes;
	if (n < (ssize_t)hl)
		return kfail(nk, err, w->next_frame, n < 0 ? "read error" : "truncated frame");
	bool crc = hl == NATIVE_FRAME_HEADER_CRC_BYTES;
	if (crc && gpuvm_crc32c(0, f, 12) != get_u32(f + 12))
		return kfail(nk, err, w->next_frame, "frame header checksum mismatch (corrupt file)");
	uint32_t csize = get_u32(f), raw = get_u32(f + 4);
	uint32_t len = raw & ~NATIVE_FRAME_LAST;
	if (len > nk->frame_bytes || csize > nk->scratch_cap - hl)
		return kfail(nk, err, w->next_frame, "corrupt frame header");
	if ((size_t)n < hl + (size_t)csize)
		return kfail(nk, err, w->next_frame, "truncated frame");
	if (crc && gpuvm_crc32c(0, f + hl, csize) != get_u32(f + 8))
		return kfail(nk, err, w->next_frame + hl,
			     "frame payload checksum mismatch (corrupt file)");
	if (len) {
		size_t got = ZSTD_decompressDCtx(nk->dctx, w->data, nk->frame_bytes,
						 f + hl, csize);
		if (ZSTD_isError(got) || got != len)
			return kfail(nk, err, w->next_frame, "corrupt compressed frame");
	} else if (csize) {
		return kfail(nk, err, w->next_frame, "corrupt frame header");
	}
	w->next_frame += hl + csize;
	if (w->next_frame >= w->dropped + NATIVE_WARP_DROP_BYTES) {
		native_map_drop(&nk->map, w->dropped, w->next_frame);
		w->dropped = w->next_frame;
	}
	w->last = (raw & NATIVE_FRAME_LAST) != 0;
	w->pos = 0;
	w->len = len;
	return 0;
}

static inline int get_varint(const unsigned char *p, uint32_t *pos, uint32_t len, uint64_t *out)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*pos >= len)
			return -1;
		unsigned char b = p[(*pos)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

static int nk_warp_next(struct gpuvm_kernel *k, void *state, struct gpuvm_warp_item *it,
			struct gpuvm_error *err)
{
	struct native_kernel *nk = k->impl;
	struct native_warp *w = state;
	if (w->bad) {
		*err = nk->pending;
		return -1;
	}
	while (w->pos >= w->len) {
		if (w->done || w->last) {
			w->done = 1;
			release_buf(nk, w);
			it->kind = GPUVM_ITEM_END;
			return 0;
		}
		if (load_frame(nk, w, err)) {
			w->bad = 1;
			nk->pending = *err;
			return -1;
		}
	}
	const unsigned char *p = w->data;
	uint32_t pos = w->pos, len = w->len;
	unsigned char tag = p[pos++];
	uint64_t v;
	gpuvm_item_reset_timing(it);
	if (tag == NATIVE_TAG_REGS) {
		/* operands of the item that follows in the same frame */
		if (pos >= len)
			goto corrupt;
		uint32_t nd = p[pos] >> 4, ns = p[pos] & 15;
		pos++;
		if (nd > GPUVM_ITEM_MAX_DST || ns > GPUVM_ITEM_MAX_SRC || pos + 2 * (nd + ns) >= len)
			goto corrupt;
		for (uint32_t i = 0; i < nd + ns; i++, pos += 2) {
			uint16_t r = (uint16_t)(p[pos] | p[pos + 1] << 8);
			if (r >= GPUVM_REGS && r != GPUVM_REG_NONE)
				goto corrupt;
			*(i < nd ? &it->dst[i] : &it->src[i - nd]) = r;
		}
		it->has_regs = 1;
		it->n_dst = (uint8_t)nd;
		it->n_src = (uint8_t)ns;
		tag = p[pos++];
		if (tag == NATIVE_TAG_REGS)
			goto corrupt;
	}
	unsigned attr = 0;
	if (tag == NATIVE_TAG_COMPUTE) {
		if (get_varint(p, &pos, len, &v) || v > UINT32_MAX)
			goto corrupt;
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = (uint32_t)v;
	} else if (tag == NATIVE_TAG_GAP) {
		if (pos >= len || p[pos] >= GPUVM_OP_CLASSES)
			goto corrupt;
		it->op_class = p[pos++];
		if (get_varint(p, &pos, len, &v) || v > UINT32_MAX)
			goto corrupt;
		it->kind = GPUVM_ITEM_COMPUTE;
		it->compute_insts = (uint32_t)v;
		if (get_varint(p, &pos, len, &v) || v > it->compute_insts)
			goto corrupt;
		it->chain_insts = (uint32_t)v;
	} else if (tag == NATIVE_TAG_BARRIER) {
		it->kind = GPUVM_ITEM_BARRIER;
	} else if ((tag >= NATIVE_TAG_MEM && tag <= NATIVE_TAG_MEM + GPUVM_OP_ATOMIC) ||
		   (tag >= NATIVE_TAG_MEM_ATTR && tag <= NATIVE_TAG_MEM_ATTR + GPUVM_OP_ATOMIC)) {
		if (tag >= NATIVE_TAG_MEM_ATTR) {
			if (pos >= len)
				goto corrupt;
			attr = p[pos++];
			if ((attr & 15) > GPUVM_SPACE_SHARED || (attr >> 4 & 7) > GPUVM_CACHE_VOLATILE)
				goto corrupt;
			it->space = (uint8_t)(attr & 15);
			it->cache_op = (uint8_t)(attr >> 4 & 7);
			it->load_indep = (uint8_t)(attr >> 7); /* LD_INDEP (native.h) */
			tag = (unsigned char)(tag - NATIVE_TAG_MEM_ATTR + NATIVE_TAG_MEM);
		}
		if (pos + 5 > len || p[pos] == 0)
			goto corrupt;
		it->kind = GPUVM_ITEM_MEM;
		it->op = (enum gpuvm_mem_op)(tag - NATIVE_TAG_MEM);
		it->bytes_per_lane = p[pos];
		uint32_t m = get_u32(p + pos + 1);
		pos += 5;
		it->active_mask = m;
		uint64_t prev = 0, prev_d = 0;
		for (uint32_t n = 0; m; m &= m - 1, n++) {
			if (get_varint(p, &pos, len, &v))
				goto corrupt;
			uint64_t a;
			v = zigzag_dec(v);
			if (n == 0) {
				a = w->prev_addr + v;
				w->prev_addr = a;
			} else {
				uint64_t d = n == 1 ? v : prev_d + v;
				a = prev + d;
				prev_d = d;
			}
			it->addr[__builtin_ctz(m)] = a;
			prev = a;
		}
	} else {
		goto corrupt;
	}
	w->pos = pos;
	return 0;
corrupt:
	w->bad = 1;
	gpuvm_fail(&nk->pending, nk->origin, 0, NULL, "corrupt item in the frame before byte %llu",
		   (unsigned long long)w->next_frame);
	*err = nk->pending;
	return -1;
}

static void nk_warp_end(struct gpuvm_kernel *k, void *state)
{
	release_buf(k->impl, state);
}

/* The engine's hint that this warp's next item is read soon: the bytes
 * nk_warp_next decodes next, in the warp's own frame buffer. A replay
 * cycles through thousands of warps, so by a warp's turn its buffer has
 * left the host's caches (bfs R-MAT 16 on p100: 40 % of nk_warp_next's
 * samples on its first read of the frame). Changes nothing. */
static void nk_warp_prefetch(struct gpuvm_kernel *k, const void *state)
{
	(void)k;
	const struct native_warp *w = state;
	if (w->buf && w->pos < w->len) {
		const unsigned char *p = w->data + w->pos;
		__builtin_prefetch(p);
		__builtin_prefetch(p + 64);
	}
}

static const struct gpuvm_kernel_ops native_kernel_ops = {
	.warp_state_bytes = sizeof(struct native_warp),
	.warp_begin = nk_warp_begin,
	.warp_next = nk_warp_next,
	.warp_end = nk_warp_end,
	.warp_prefetch = nk_warp_prefetch,
};

int trace_check_shape(const uint32_t grid[3], const uint32_t block[3], const char *origin,
		      int line, struct gpuvm_error *err)
{
	uint64_t ctas = (uint64_t)grid[0] * grid[1] * grid[2];
	uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
	if (ctas == 0 || ctas > UINT32_MAX)
		return gpuvm_fail(err, origin, line, NULL, "grid of %llu CTAs (must be 1 to 2^32-1)",
				  (unsigned long long)ctas);
	/* CUDA's limit is 1024 threads per block; 2048 leaves room for odd traces
	 * while keeping per-CTA tables small. */
	if (threads == 0 || threads > 2048)
		return gpuvm_fail(err, origin, line, NULL,
				  "block of %llu threads (must be 1 to 2048)",
				  (unsigned long long)threads);
	return 0;
}

int native_kernel_init(struct native_kernel *nk, int fd, const struct native_map *map,
		       uint32_t frame_bytes, bool checksums, const char *origin, uint64_t data_off,
		       const char *name, const uint32_t grid[3], const uint32_t block[3],
		       struct gpuvm_error *err)
{
	memset(nk, 0, sizeof *nk);
	nk->fd = fd;
	nk->frame_bytes = frame_bytes;
	nk->frame_header_bytes = checksums ? NATIVE_FRAME_HEADER_CRC_BYTES : NATIVE_FRAME_HEADER_BYTES;
	snprintf(nk->origin, sizeof nk->origin, "%s", origin);
	if (trace_check_shape(grid, block, origin, 0, err))
		return -1;
	snprintf(nk->k.name, sizeof nk->k.name, "%s", name);
	gpuvm_utf8_scrub(nk->k.name); /* a trace's bytes; JSON needs UTF-8 */
	memcpy(nk->k.grid, grid, sizeof nk->k.grid);
	memcpy(nk->k.block, block, sizeof nk->k.block);
	nk->k.ops = &native_kernel_ops;
	nk->k.impl = nk;
	nk->ctas = gpuvm_kernel_ctas(&nk->k);
	nk->warps_per_cta = gpuvm_kernel_warps_per_cta(&nk->k);
	if (map) {
		nk->map = *map;
	} else {
		native_map_open(&nk->map, fd);
		nk->own_map = nk->map.len != 0;
	}
	nk->scratch_cap = nk->frame_header_bytes + ZSTD_compressBound(frame_bytes);
	nk->scratch = nk->map.len && NATIVE_FRAMES_MAPPED ? NULL : malloc(nk->scratch_cap);
	nk->warp_off = calloc(nk->warps_per_cta, sizeof *nk->warp_off);
	nk->dctx = ZSTD_createDCtx();
	if ((!(nk->map.len && NATIVE_FRAMES_MAPPED) && !nk->scratch) || !nk->warp_off || !nk->dctx ||
	    bufrd_init(&nk->scan, fd, &nk->map, data_off)) {
		native_kernel_free(nk);
		return gpuvm_fail(err, origin, 0, NULL, "out of memory");
	}
	return 0;
}

int native_kernel_finish(struct native_kernel *nk, uint64_t *end_off, struct gpuvm_error *err)
{
	if (nk->failed) {
		*err = nk->pending;
		return -1;
	}
	if (nk->scan_cta < nk->ctas && scan_to(nk, nk->ctas - 1, err))
		return -1;
	*end_off = nk->scan.pos;
	return 0;
}

void native_kernel_free(struct native_kernel *nk)
{
	for (uint32_t i = 0; i < nk->n_bufs; i++)
		free(nk->bufs[i]);
	free(nk->bufs);
	free(nk->free_bufs);
	free(nk->scratch);
	free(nk->warp_off);
	ZSTD_freeDCtx(nk->dctx);
	bufrd_free(&nk->scan);
	if (nk->own_map)
		native_map_close(&nk->map);
	memset(nk, 0, sizeof *nk);
}

/* ---- whole-file source --------------------------------------------------- */

struct native_src {
	int fd;
	char path[256];
	struct native_map map;
	uint32_t frame_bytes;
	struct bufrd rd;
	struct native_kernel nk;
	bool in_kernel, ended;
	uint32_t version;
	uint32_t next_smem; /* an 'S' record's bytes, for the next kernel */
	bool checksums;	    /* version 6 */
	uint32_t rec_crc;   /* of the current record's bytes so far */
	uint64_t rec_at;    /* where the current record starts */
};

static int src_fail(struct native_src *s, struct gpuvm_error *err, uint64_t off, const char *what)
{
	return gpuvm_fail(err, s->path, 0, NULL, "byte %llu: %s", (unsigned long long)off, what);
}

static int rd_exact(struct native_src *s, void *dst, size_t n, struct gpuvm_error *err)
{
	uint64_t at = s->rd.pos;
	long got = bufrd_read(&s->rd, dst, n);
	if (got < 0)
		return src_fail(s, err, at, "read error");
	if ((size_t)got != n) {
		/* named from the record's start: a damaged tag or length is
		 * there, not where the bytes ran out */
		char what[120];
		snprintf(what, sizeof what, "truncated: file ends at byte %llu inside this record "
			 "(no end marker)", (unsigned long long)(at + (uint64_t)(got > 0 ? got : 0)));
		return src_fail(s, err, s->rec_at, what);
	}
	s->rec_crc = gpuvm_crc32c(s->rec_crc, dst, n);
	return 0;
}

/* Version 6: the checksum after the record that began at byte at. Checked
 * before any field of the record is trusted. */
static int rec_check(struct native_src *s, uint64_t at, struct gpuvm_error *err)
{
	if (!s->checksums)
		return 0;
	uint32_t want = s->rec_crc;
	unsigned char c[4];
	if (rd_exact(s, c, 4, err))
		return -1;
	if (get_u32(c) != want)
		return src_fail(s, err, at, "record checksum mismatch (corrupt file)");
	return 0;
}

/* The range of a copy or a managed-memory operation: a flipped byte must
 * not become an exabyte transfer (the Accel-Sim reader's bound) or wrap. */
static int check_range(struct native_src *s, uint64_t at, const struct gpuvm_run_op *op,
		       const char *what, struct gpuvm_error *err)
{
	char msg[96];
	if (op->copy_bytes > (1ull << 40)) {
		snprintf(msg, sizeof msg, "corrupt %s record (more than 1 TiB)", what);
		return src_fail(s, err, at, msg);
	}
	if (op->copy_bytes && op->copy_addr + (op->copy_bytes - 1) < op->copy_addr) {
		snprintf(msg, sizeof msg, "corrupt %s record (wraps the address space)", what);
		return src_fail(s, err, at, msg);
	}
	return 0;
}

/* Version 7's 'P' (prefetch), 'V' (advice) and 'C' (a CPU phase): u64
 * addr, u64 bytes, ['V': u8 advice], u8 flags. Every flag bit not
 * defined, and an advice out of range, is corruption. */
static int managed_op(struct native_src *s, unsigned char tag, uint64_t at,
		      struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	unsigned char b[18];
	size_t n = tag == 'V' ? 18 : 17;
	const char *what = tag == 'P' ? "prefetch" : tag == 'V' ? "advice" : "CPU access";
	if (s->version < NATIVE_VERSION_MANAGED_OPS)
		return src_fail(s, err, at, "unknown record type (corrupt file)");
	if (rd_exact(s, b, n, err) || rec_check(s, at, err))
		return -1;
	op->copy_addr = get_u64(b);
	op->copy_bytes = get_u64(b + 8);
	unsigned flags = b[n - 1];
	if (flags > 1) {
		char msg[64];
		snprintf(msg, sizeof msg, "corrupt %s record (flags 0x%02x)", what, flags);
		return src_fail(s, err, at, msg);
	}
	if (tag == 'P') {
		op->kind = GPUVM_RUN_PREFETCH;
		op->prefetch_to_cpu = flags;
	} else if (tag == 'V') {
		op->kind = GPUVM_RUN_ADVISE;
		op->advice = b[16];
		if (op->advice < GPUVM_ADVISE_READ_MOSTLY || op->advice > GPUVM_ADVISE_PREFERRED_LOCATION)
			return src_fail(s, err, at, "corrupt advice record (unknown advice)");
		op->prefetch_to_cpu = flags;
	} else {
		op->kind = GPUVM_RUN_HOST_ACCESS;
		op->host_write = flags;
	}
	return check_range(s, at, op, what, err);
}

static int native_next_op(struct gpuvm_source *src, struct gpuvm_run_op *op,
			  struct gpuvm_error *err)
{
	struct native_src *s = src->impl;
	memset(op, 0, sizeof *op);
	if (s->in_kernel) {
		uint64_t end;
		if (native_kernel_finish(&s->nk, &end, err))
			return -1;
		native_kernel_free(&s->nk);
		s->in_kernel = false;
		s->rd.pos = end;
	}
	if (s->ended) {
		op->kind = GPUVM_RUN_END;
		return 0;
	}
	uint64_t at = s->rd.pos;
	unsigned char tag, b[26];
	s->rec_crc = 0;
	s->rec_at = at;
	if (rd_exact(s, &tag, 1, err))
		return -1;
	/* an unknown tag has no length: a flipped tag bit stops here */
	if (!strchr("AFHDKYSEPVC", tag) || !tag)
		return src_fail(s, err, at, "unknown record type (corrupt file)");
	switch (tag) {
	case 'A': {
		if (rd_exact(s, b, 18, err))
			return -1;
		if (b[17] >= sizeof op->alloc.name)
			return src_fail(s, err, at, "corrupt allocation record (name length)");
		if (rd_exact(s, op->alloc.name, b[17], err) || rec_check(s, at, err))
			return -1;
		op->kind = GPUVM_RUN_ALLOC;
		op->alloc.base = get_u64(b);
		op->alloc.bytes = get_u64(b + 8);
		/* 2^49 bytes: the 49-bit virtual address space of Pascal and later */
		if (op->alloc.bytes > (1ull << 49) ||
		    (op->alloc.bytes && op->alloc.base + (op->alloc.bytes - 1) < op->alloc.base))
			return src_fail(s, err, at, "corrupt allocation record (size)");
		if (b[16] > GPUVM_ALLOC_HOST_PINNED || b[17] >= sizeof op->alloc.name)
			return src_fail(s, err, at, "corrupt allocation record");
		op->alloc.kind = (enum gpuvm_alloc_kind)b[16];
		op->alloc.name[b[17]] = 0;
		gpuvm_utf8_scrub(op->alloc.name);
		return 0;
	}
	case 'F':
		if (rd_exact(s, b, 8, err) || rec_check(s, at, err))
			return -1;
		op->kind = GPUVM_RUN_FREE;
		op->alloc.base = get_u64(b);
		return 0;
	case 'H':
	case 'D':
		if (rd_exact(s, b, 16, err) || rec_check(s, at, err))
			return -1;
		op->kind = tag == 'H' ? GPUVM_RUN_COPY_H2D : GPUVM_RUN_COPY_D2H;
		op->copy_addr = get_u64(b);
		op->copy_bytes = get_u64(b + 8);
		return check_range(s, at, op, "copy", err);
	case 'K':
	kernel: {
		char name[sizeof op->kernel->name];
		if (rd_exact(s, b, 2, err))
			return -1;
		size_t len = (size_t)b[0] | (size_t)b[1] << 8;
		if (len >= sizeof name)
			return src_fail(s, err, at, "corrupt kernel record (name too long)");
		if (rd_exact(s, name, len, err) || rd_exact(s, b, 24, err) || rec_check(s, at, err))
			return -1;
		name[len] = 0;
		gpuvm_utf8_scrub(name);
		uint32_t grid[3], block[3];
		for (int i = 0; i < 3; i++) {
			grid[i] = get_u32(b + 4 * i);
			block[i] = get_u32(b + 12 + 4 * i);
		}
		char origin[300];
		snprintf(origin, sizeof origin, "%s", s->path);
		if (trace_check_shape(grid, block, s->path, 0, err) ||
		    native_kernel_init(&s->nk, s->fd, &s->map, s->frame_bytes, s->checksums, origin,
				       s->rd.pos,
				       name, grid, block, err))
			return -1;
		s->nk.k.smem_bytes_per_cta = s->next_smem;
		s->next_smem = 0;
		s->in_kernel = true;
		op->kind = GPUVM_RUN_KERNEL;
		op->kernel = &s->nk.k;
		return 0;
	}
	case 'P':
	case 'V':
	case 'C':
		return managed_op(s, tag, at, op, err);
	case 'Y':
		if (s->version < 4)
			return src_fail(s, err, at, "unknown record type (corrupt file)");
		if (rec_check(s, at, err))
			return -1;
		op->kind = GPUVM_RUN_DEVICE_SYNC;
		return 0;
	case 'S':
		if (s->version < 3)
			return src_fail(s, err, at, "unknown record type (corrupt file)");
		if (rd_exact(s, b, 4, err) || rec_check(s, at, err))
			return -1;
		s->next_smem = get_u32(b);
		/* 228 KiB: the most shared memory per block of any NVIDIA part (H100) */
		if (s->next_smem > (228u << 10))
			return src_fail(s, err, at, "corrupt shared-memory record (over 228 KiB per block)");
		s->rec_crc = 0; /* the kernel record starts */
		s->rec_at = s->rd.pos;
		if (rd_exact(s, &tag, 1, err))
			return -1;
		if (tag != 'K') /* it belongs to the kernel record that follows */
			return src_fail(s, err, s->rd.pos - 1, "shared-memory record not before a kernel");
		at = s->rd.pos - 1;
		goto kernel;
	case 'E': {
		if (rec_check(s, at, err))
			return -1;
		unsigned char extra;
		if (bufrd_read(&s->rd, &extra, 1) != 0)
			return src_fail(s, err, at + 1, "data after the end marker");
		s->ended = true;
		op->kind = GPUVM_RUN_END;
		return 0;
	}
	default:
		return src_fail(s, err, at, "unknown record type (corrupt file)");
	}
}

static void native_destroy(struct gpuvm_source *src)
{
	struct native_src *s = src->impl;
	if (s->in_kernel)
		native_kernel_free(&s->nk);
	bufrd_free(&s->rd);
	native_map_close(&s->map);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	src->impl = NULL;
}

static const struct gpuvm_source_ops native_source_ops = {
	.kind = "native",
	.next_op = native_next_op,
	.destroy = native_destroy,
};


int trace_open_native(const char *path, struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct native_src *s = calloc(1, sizeof *s);
	if (!s)
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	snprintf(s->path, sizeof s->path, "%s", path);
	s->fd = gpuvm_input_open(path, "native trace", err);
	if (s->fd < 0) {
		free(s);
		return -1;
	}
	struct gpuvm_source src = {.ops = &native_source_ops, .impl = s};
	native_map_open(&s->map, s->fd);
	if (bufrd_init(&s->rd, s->fd, &s->map, 0)) {
		native_destroy(&src);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	unsigned char h[NATIVE_HEADER_V6_BYTES];
	long n = bufrd_read(&s->rd, h, NATIVE_HEADER_BYTES);
	if (n < 8 || memcmp(h, NATIVE_MAGIC, 8)) {
		native_destroy(&src);
		return gpuvm_fail(err, path, 0, NULL, "byte 0: not a gpuvm native trace (bad magic)");
	}
	if (n < NATIVE_HEADER_BYTES) {
		native_destroy(&src);
		return gpuvm_fail(err, path, 0, NULL, "byte 8: truncated header");
	}
	uint32_t version = get_u32(h + 8), hbytes = get_u32(h + 12);
	/* a version 6 or 7 header checks itself first: a flipped bit in its
	 * version or size must not make it read as an older version */
	if ((version >= NATIVE_VERSION_CHECKSUMS && version <= NATIVE_VERSION) ||
	    hbytes == NATIVE_HEADER_V6_BYTES) {
		if (bufrd_read(&s->rd, h + NATIVE_HEADER_BYTES, 8) != 8) {
			native_destroy(&src);
			return gpuvm_fail(err, path, 0, NULL, "byte 16: truncated header");
		}
		if (gpuvm_crc32c(0, h, 20) != get_u32(h + 20)) {
			native_destroy(&src);
			return gpuvm_fail(err, path, 0, NULL,
					  "byte 0: header checksum mismatch (corrupt file)");
		}
	}
	if (version < 1 || version > NATIVE_VERSION) {
		native_destroy(&src);
		return gpuvm_fail(err, path, 0, NULL,
				  "byte 8: unknown native trace version %u (this gpuvm reads versions 1 to %u)",
				  version, NATIVE_VERSION);
	}
	uint32_t want_h = version >= NATIVE_VERSION_CHECKSUMS ? NATIVE_HEADER_V6_BYTES
			  : version >= NATIVE_VERSION_FRAMES ? NATIVE_HEADER_V5_BYTES
							     : NATIVE_HEADER_BYTES;
	if (hbytes != want_h) {
		native_destroy(&src);
		return gpuvm_fail(err, path, 0, NULL, "byte 12: bad header size %u", hbytes);
	}
	s->frame_bytes = NATIVE_CHUNK_BYTES;
	if (version >= NATIVE_VERSION_FRAMES) {
		unsigned char fb[4];
		if (version == NATIVE_VERSION_FRAMES && bufrd_read(&s->rd, h + 16, 4) != 4) {
			native_destroy(&src);
			return gpuvm_fail(err, path, 0, NULL, "byte 16: truncated header");
		}
		memcpy(fb, h + 16, 4);
		uint32_t fbytes = get_u32(fb);
		if (fbytes < NATIVE_FRAME_MIN_BYTES || fbytes > NATIVE_FRAME_MAX_BYTES) {
			native_destroy(&src);
			return gpuvm_fail(err, path, 0, NULL,
					  "byte 16: frame size %u bytes (must be %u to %u)",
					  fbytes, NATIVE_FRAME_MIN_BYTES, NATIVE_FRAME_MAX_BYTES);
		}
		s->frame_bytes = fbytes;
	}
	s->checksums = version >= NATIVE_VERSION_CHECKSUMS;
	s->version = version;
	*out = src;
	return 0;
}
