/* Writer of the native trace format (layout in native.h). */
#include "trace/native.h"

#include "gpuvm/crc32c.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int wr(struct native_writer *w, const void *p, size_t n, struct gpuvm_error *err)
{
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->write_failed = true;
		return gpuvm_fail(err, w->path, 0, NULL, "write failed (disk full?)");
	}
	w->offset += n;
	return 0;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A record and its checksum (from version 6 on). */
static int wr_rec(struct native_writer *w, const unsigned char *p, size_t n,
		  struct gpuvm_error *err)
{
	unsigned char c[4];
	put_u32(c, gpuvm_crc32c(0, p, n));
	if (wr(w, p, n, err))
		return -1;
	return wr(w, c, 4, err);
}

static void put_u64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int native_writer_init(struct native_writer *w, FILE *f, const char *path, bool header,
		       size_t frame_bytes, struct gpuvm_error *err)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->path = path;
	if (frame_bytes < NATIVE_FRAME_MIN_BYTES || frame_bytes > NATIVE_FRAME_MAX_BYTES)
		return gpuvm_fail(err, path, 0, NULL, "frame size %zu bytes (must be %u to %u)",
				  frame_bytes, NATIVE_FRAME_MIN_BYTES, NATIVE_FRAME_MAX_BYTES);
	w->frame_bytes = frame_bytes;
	w->cctx = ZSTD_createCCtx();
	w->cbuf_cap = ZSTD_compressBound(frame_bytes);
	w->cbuf = malloc(w->cbuf_cap);
	w->chunk = malloc(frame_bytes);
	if (!w->cctx || !w->cbuf || !w->chunk) {
		native_writer_free(w);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	if (!header)
		return 0;
	unsigned char h[NATIVE_HEADER_V6_BYTES];
	memcpy(h, NATIVE_MAGIC, 8);
	put_u32(h + 8, NATIVE_VERSION);
	put_u32(h + 12, NATIVE_HEADER_V6_BYTES);
	put_u32(h + 16, (uint32_t)frame_bytes);
	put_u32(h + 20, gpuvm_crc32c(0, h, 20));
	return wr(w, h, sizeof h, err);
}

void native_writer_free(struct native_writer *w)
{
	ZSTD_freeCCtx(w->cctx);
	free(w->cbuf);
	free(w->chunk);
	w->cctx = NULL;
	w->cbuf = NULL;
	w->chunk = NULL;
}

int native_write_op(struct native_writer *w, const struct gpuvm_run_op *op,
		    struct gpuvm_error *err)
{
	unsigned char b[1 + 8 + 8 + 2 + sizeof op->alloc.name];
	size_t n = 0;
	switch (op->kind) {
	case GPUVM_RUN_ALLOC: {
		size_t len = strnlen(op->alloc.name, sizeof op->alloc.name - 1);
		b[0] = 'A';
		put_u64(b + 1, op->alloc.base);
		put_u64(b + 9, op->alloc.bytes);
		b[17] = (unsigned char)op->alloc.kind;
		b[18] = (unsigned char)len;
		memcpy(b + 19, op->alloc.name, len);
		n = 19 + len;
		break;
	}
	case GPUVM_RUN_FREE:
		b[0] = 'F';
		put_u64(b + 1, op->alloc.base);
		n = 9;
		break;
	case GPUVM_RUN_COPY_H2D:
	case GPUVM_RUN_COPY_D2H:
		b[0] = op->kind == GPUVM_RUN_COPY_H2D ? 'H' : 'D';
		put_u64(b + 1, op->copy_addr);
		put_u64(b + 9, op->copy_bytes);
		n = 17;
		break;
	case GPUVM_RUN_DEVICE_SYNC: /* version 4 */
		b[0] = 'Y';
		n = 1;
		break;
	case GPUVM_RUN_PREFETCH: /* version 7: prefetch, advice, a CPU phase */
	case GPUVM_RUN_ADVISE:
	case GPUVM_RUN_HOST_ACCESS:
		/* a trace is one GPU's program: device 0 (a system's per-GPU
		 * traces are replayed one per GPU, gpuvm sim --trace) */
		if (op->device)
			return gpuvm_fail(err, w->path, 0, NULL,
					  "the program's operation is for GPU %u: a trace records "
					  "one GPU's program", op->device);
		b[0] = op->kind == GPUVM_RUN_PREFETCH ? 'P' : op->kind == GPUVM_RUN_ADVISE ? 'V' : 'C';
		put_u64(b + 1, op->copy_addr);
		put_u64(b + 9, op->copy_bytes);
		n = 17;
		if (op->kind == GPUVM_RUN_ADVISE)
			b[n++] = (unsigned char)op->advice;
		b[n++] = op->kind == GPUVM_RUN_HOST_ACCESS ? op->host_write : op->prefetch_to_cpu;
		break;
	case GPUVM_RUN_COPY_H2D_ASYNC:
	case GPUVM_RUN_COPY_D2H_ASYNC:
	case GPUVM_RUN_COPY_PEER:
	case GPUVM_RUN_COPY_PEER_ASYNC:
		return gpuvm_fail(err, w->path, 0, NULL,
				  "the program makes %s, which the native trace format (version "
				  "%u) has no record for",
				  op->kind == GPUVM_RUN_COPY_H2D_ASYNC || op->kind == GPUVM_RUN_COPY_D2H_ASYNC
					  ? "an asynchronous copy (cudaMemcpyAsync with events)"
					  : "a peer copy (cudaMemcpyPeer)",
				  NATIVE_VERSION);
	default:
		return gpuvm_fail(err, w->path, 0, NULL, "internal: op %d is not a plain record",
				  (int)op->kind);
	}
	return wr_rec(w, b, n, err);
}

int native_write_kernel(struct native_writer *w, const struct gpuvm_kernel *k,
			struct gpuvm_error *err)
{
	if (k->smem_bytes_per_cta) { /* version 3: shared memory per block */
		unsigned char sb[5] = {'S'};
		put_u32(sb + 1, k->smem_bytes_per_cta);
		if (wr_rec(w, sb, sizeof sb, err))
			return -1;
	}
	unsigned char b[3 + sizeof k->name + 24];
	size_t len = strnlen(k->name, sizeof k->name - 1);
	b[0] = 'K';
	b[1] = (unsigned char)len;
	b[2] = (unsigned char)(len >> 8);
	memcpy(b + 3, k->name, len);
	for (int i = 0; i < 3; i++) {
		put_u32(b + 3 + len + 4 * i, k->grid[i]);
		put_u32(b + 3 + len + 12 + 4 * i, k->block[i]);
	}
	return wr_rec(w, b, 3 + len + 24, err);
}

static int flush_frame(struct native_writer *w, bool last, struct gpuvm_error *err)
{
	unsigned char h[NATIVE_FRAME_HEADER_CRC_BYTES];
	size_t csize = 0;
	if (w->fill) {
		csize = ZSTD_compressCCtx(w->cctx, w->cbuf, w->cbuf_cap, w->chunk, w->fill,
					  NATIVE_ZSTD_LEVEL);
		if (ZSTD_isError(csize))
			return gpuvm_fail(err, w->path, 0, NULL, "zstd: %s",
					  ZSTD_getErrorName(csize));
	}
	put_u32(h, (uint32_t)csize);
	put_u32(h + 4, (uint32_t)w->fill | (last ? NATIVE_FRAME_LAST : 0));
	put_u32(h + 8, gpuvm_crc32c(0, w->cbuf, csize));
	put_u32(h + 12, gpuvm_crc32c(0, h, 12));
	w->stream_bytes += w->fill;
	w->fill = 0;
	if (wr(w, h, sizeof h, err))
		return -1;
	return wr(w, w->cbuf, csize, err);
}

void native_write_warp_begin(struct native_writer *w)
{
	w->fill = 0;
	w->prev_addr = 0;
}

int native_write_item(struct native_writer *w, const struct gpuvm_warp_item *it,
		      struct gpuvm_error *err)
{
	if (w->fill + NATIVE_ITEM_MAX_BYTES > w->frame_bytes && flush_frame(w, false, err))
		return -1;
	unsigned char *p = w->chunk + w->fill;
	if (it->has_regs && it->kind != GPUVM_ITEM_END) {
		uint32_t nd = it->n_dst > GPUVM_ITEM_MAX_DST ? GPUVM_ITEM_MAX_DST : it->n_dst;
		uint32_t ns = it->n_src > GPUVM_ITEM_MAX_SRC ? GPUVM_ITEM_MAX_SRC : it->n_src;
		*p++ = NATIVE_TAG_REGS;
		*p++ = (unsigned char)(nd << 4 | ns);
		for (uint32_t i = 0; i < nd + ns; i++) {
			uint16_t r = i < nd ? it->dst[i] : it->src[i - nd];
			*p++ = (unsigned char)r;
			*p++ = (unsigned char)(r >> 8);
		}
	}
	if (it->kind == GPUVM_ITEM_COMPUTE) {
		if (it->op_class == GPUVM_CLASS_ALU && it->chain_insts == 0) {
			*p++ = NATIVE_TAG_COMPUTE;
			p = varint_put(p, it->compute_insts);
		} else {
			if (it->op_class >= GPUVM_OP_CLASSES)
				return gpuvm_fail(err, w->path, 0, NULL,
						  "cannot record instruction class %u", it->op_class);
			*p++ = NATIVE_TAG_GAP;
			*p++ = it->op_class;
			p = varint_put(p, it->compute_insts);
			p = varint_put(p, it->chain_insts);
		}
	} else if (it->kind == GPUVM_ITEM_BARRIER) {
		*p++ = NATIVE_TAG_BARRIER;
	} else if (it->kind == GPUVM_ITEM_MEM) {
		if (it->bytes_per_lane == 0 || it->bytes_per_lane > 255 || it->op > GPUVM_OP_ATOMIC ||
		    it->space > GPUVM_SPACE_SHARED || it->cache_op > GPUVM_CACHE_VOLATILE)
			return gpuvm_fail(err, w->path, 0, NULL,
					  "cannot record an access of %u bytes per lane",
					  it->bytes_per_lane);
		if (it->space == GPUVM_SPACE_GLOBAL && it->cache_op == GPUVM_CACHE_DEFAULT &&
		    !it->load_indep) {
			*p++ = (unsigned char)(NATIVE_TAG_MEM + it->op);
		} else {
			/* an LD_INDEP load: bit 3 of the cache operator's nibble */
			*p++ = (unsigned char)(NATIVE_TAG_MEM_ATTR + it->op);
			*p++ = (unsigned char)(it->space | (it->cache_op | (it->load_indep ? 8 : 0)) << 4);
		}
		*p++ = (unsigned char)it->bytes_per_lane;
		uint32_t m = it->active_mask;
		for (int i = 0; i < 4; i++)
			*p++ = (unsigned char)(m >> (8 * i));
		uint64_t prev = 0, prev_d = 0;
		for (uint32_t n = 0; m; m &= m - 1, n++) {
			uint64_t a = it->addr[__builtin_ctz(m)];
			if (n == 0) {
				p = varint_put(p, zigzag_enc(a - w->prev_addr));
				w->prev_addr = a;
			} else {
				uint64_t d = a - prev;
				p = varint_put(p, zigzag_enc(n == 1 ? d : d - prev_d));
				prev_d = d;
			}
			prev = a;
		}
	} else {
		return gpuvm_fail(err, w->path, 0, NULL, "internal: END is not an item");
	}
	w->fill = (size_t)(p - w->chunk);
	return 0;
}

int native_write_warp_end(struct native_writer *w, struct gpuvm_error *err)
{
	return flush_frame(w, true, err);
}

int native_write_end(struct native_writer *w, struct gpuvm_error *err)
{
	unsigned char e = 'E';
	if (wr_rec(w, &e, 1, err))
		return -1;
	if (fflush(w->f)) {
		w->write_failed = true;
		return gpuvm_fail(err, w->path, 0, NULL, "write failed (disk full?)");
	}
	return 0;
}
