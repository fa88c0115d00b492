/* gpuvm's native trace format (version 7 written; versions 1 to 6 are
 * read too: version 1 has only item tags 0x01 and 0x10, versions 1 and 2
 * no 'S' record, versions 1 to 3 no 'Y' record, versions 1 to 5 no
 * checksums, versions 1 to 6 no 'P', 'V' or 'C' record). Version 5 is
 * version 4 with a frame size other than 8 KiB declared in the header;
 * version 6 is version 5 (frame size always in the header) with a
 * CRC-32C (gpuvm/crc32c.h) over the header, after every record and in
 * every frame header, so that any flipped bit is an error naming its byte
 * offset (the record or frame it lies in); version 7 is version 6 with
 * the managed-memory operations of a program between its kernels
 * (prefetch, advice, a CPU phase), which a version 6 writer refused.
 *
 * File:   "GPUVMTRC" u32 version u32 header_bytes(=16; version 5: 20;
 *         versions 6-7: 24) [versions 5-7: u32 frame_bytes]
 *         [versions 6-7: u32 crc32c(bytes 0-19)], then records, each
 *         followed from version 6 on by u32 crc32c(the record's bytes, tag
 *         included):
 *         'A' u64 base u64 bytes u8 kind u8 n name[n]   allocation
 *         'F' u64 base                                   free
 *         'H'|'D' u64 addr u64 bytes                     copy H2D | D2H
 *         'S' u32 bytes                                  shared memory per
 *             block of the next kernel (version 3; absent: none)
 *         'Y'                                            cudaDeviceSynchronize
 *             of the program (version 4)
 *         'P' u64 addr u64 bytes u8 flags                 cudaMemPrefetchAsync
 *             of managed memory to the trace's GPU, or to the CPU when
 *             flags bit 0 is set (version 7)
 *         'V' u64 addr u64 bytes u8 advice u8 flags       cudaMemAdvise
 *             (advice: GPUVM_ADVISE_*; flags bit 0: the CPU as the
 *             preferred location) (version 7)
 *         'C' u64 addr u64 bytes u8 flags                 a CPU phase reads
 *             (flags bit 0: writes) managed memory (version 7)
 *         'K' u16 n name[n] u32 grid[3] u32 block[3]     kernel, then its
 *             warps: CTA 0 warp 0, CTA 0 warp 1, ... each a chain of frames
 *         'E'                                            end of trace
 * Frame:  u32 compressed_bytes, u32 raw_bytes | LAST, [version 6: u32
 *         crc32c(payload), u32 crc32c(the 12 bytes before)], one zstd frame.
 *         raw_bytes <= frame_bytes (versions 1-4: NATIVE_CHUNK_BYTES);
 *         LAST marks a warp's final frame. The header's own checksum lets
 *         the scanner, which skips payloads, trust each frame length.
 * Items (inside frames, never split):
 *         0x01 varint insts                              compute gap (ALU, chained)
 *         0x02 u8 class varint insts varint chain        typed compute gap
 *         0x03 u8 n_dst<<4|n_src, u16 regs[n_dst+n_src]  operands of the next item
 *         0x04                                           barrier (BAR.SYNC)
 *         0x10+op u8 bytes_per_lane u32 mask, then for active lanes:
 *             zigzag(a0 - previous a0 of this warp),
 *             zigzag(a1 - a0), then zigzag((ai - ai-1) - (ai-1 - ai-2))
 *         0x18+op u8 space|cache_op<<4, then as 0x10+op      local, shared or
 *             a global access with a cache operator; bit 7 set: a load
 *             that does not wait for the loads before it (LD_INDEP)
 * Integers are little-endian. Per-warp chunks keep a reader's memory at
 * one chunk per resident warp; second-order lane deltas are zero for any
 * strided access, which zstd then squeezes to almost nothing. */
#ifndef GPUVM_TRACE_NATIVE_H
#define GPUVM_TRACE_NATIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <zstd.h>

#include "gpuvm/error.h"
#include "gpuvm/stream.h"
#include "gpuvm/trace.h"

#define NATIVE_MAGIC "GPUVMTRC"
#define NATIVE_VERSION_FRAMES 5u /* first version with the frame size in the header */
#define NATIVE_VERSION_CHECKSUMS 6u /* first version with checksums */
#define NATIVE_VERSION_MANAGED_OPS 7u /* first version with 'P', 'V', 'C' */
#define NATIVE_VERSION 7u	 /* written */
#define NATIVE_HEADER_BYTES 16u
#define NATIVE_HEADER_V5_BYTES 20u
#define NATIVE_HEADER_V6_BYTES 24u
#define NATIVE_FRAME_HEADER_BYTES 8u	 /* versions 1-5 */
#define NATIVE_FRAME_HEADER_CRC_BYTES 16u /* version 6 */
/* Raw bytes per frame: the reader holds one such chunk per resident warp
 * (8448 warps on h100 -> 69 MiB at most). */
#define NATIVE_CHUNK_BYTES GPUVM_TRACE_FRAME_DEFAULT_BYTES
/* Frame sizes a writer may choose (trace convert --frame-bytes): at least
 * a few largest items; at most 1 MiB so that a resident warp's chunk stays
 * bounded (8448 warps x 1 MiB = 8.3 GiB on h100 is the worst case). */
#define NATIVE_FRAME_MIN_BYTES GPUVM_TRACE_FRAME_MIN_BYTES
#define NATIVE_FRAME_MAX_BYTES GPUVM_TRACE_FRAME_MAX_BYTES
#define NATIVE_FRAME_LAST 0x80000000u
/* operand prefix (2 + 2 x 8) + a memory item (7 + 10 per lane) */
#define NATIVE_ITEM_MAX_BYTES (18u + 7u + GPUVM_WARP_LANES * 10u)
#define NATIVE_TAG_COMPUTE 0x01
#define NATIVE_TAG_GAP 0x02
#define NATIVE_TAG_REGS 0x03
#define NATIVE_TAG_BARRIER 0x04
#define NATIVE_TAG_MEM 0x10
#define NATIVE_TAG_MEM_ATTR 0x18
#define NATIVE_ZSTD_LEVEL 3

static inline uint64_t zigzag_enc(uint64_t v)
{
	return (v << 1) ^ (uint64_t)-(int64_t)(v >> 63);
}
static inline uint64_t zigzag_dec(uint64_t v)
{
	return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}
static inline unsigned char *varint_put(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* ---- writer ---------------------------------------------------------- */

struct native_writer {
	FILE *f;
	const char *path;
	uint64_t offset; /* bytes written so far */
	ZSTD_CCtx *cctx;
	unsigned char *chunk; /* [frame_bytes] */
	size_t frame_bytes;
	size_t fill;
	unsigned char *cbuf;
	size_t cbuf_cap;
	uint64_t prev_addr; /* first active lane of the warp's previous access */
	uint64_t stream_bytes;
	bool write_failed; /* the file refused bytes (disk full, device) */
};
/* Every file and scratch kernel written carries version 6 checksums. */

/* Starts writing warps (and, with header, a whole file) to f, in frames
 * of at most frame_bytes raw (NATIVE_CHUNK_BYTES: a version 4 file;
 * otherwise NATIVE_FRAME_MIN_BYTES to NATIVE_FRAME_MAX_BYTES, version 5). */
int native_writer_init(struct native_writer *w, FILE *f, const char *path, bool header,
		       size_t frame_bytes, struct gpuvm_error *err);
void native_writer_free(struct native_writer *w);
int native_write_op(struct native_writer *w, const struct gpuvm_run_op *op,
		    struct gpuvm_error *err);
int native_write_kernel(struct native_writer *w, const struct gpuvm_kernel *k,
			struct gpuvm_error *err);
void native_write_warp_begin(struct native_writer *w);
int native_write_item(struct native_writer *w, const struct gpuvm_warp_item *it,
		      struct gpuvm_error *err);
int native_write_warp_end(struct native_writer *w, struct gpuvm_error *err);
int native_write_end(struct native_writer *w, struct gpuvm_error *err);

/* ---- kernel reader ---------------------------------------------------- */

/* A read-only mapping of a whole trace file (native_map.c); len 0 = not
 * mapped (mmap failed, e.g. a device or an empty file): pread is used. */
struct native_map {
	const unsigned char *p;
	uint64_t len;
};
/* Maps fd's regular file whole; fails quietly (m->len = 0). */
void native_map_open(struct native_map *m, int fd);
void native_map_close(struct native_map *m);
/* Lets the kernel drop the pages of [from, to) (already consumed); they
 * come back from the file if touched again. */
void native_map_drop(const struct native_map *m, uint64_t from, uint64_t to);

/* Buffered positional reads of one file descriptor, or of its mapping. */
struct bufrd {
	int fd;
	const struct native_map *map; /* mapped: bytes come from there */
	uint64_t pos;       /* file offset of the next byte */
	unsigned char *buf; /* [cap] */
	size_t cap, start, len; /* buf holds [start, start + len) of the file */
};
int bufrd_init(struct bufrd *r, int fd, const struct native_map *map, uint64_t pos);
void bufrd_free(struct bufrd *r);
/* Reads n bytes; returns n, or fewer at end of file, or -1 on I/O error. */
long bufrd_read(struct bufrd *r, void *dst, size_t n);

/* Serves one kernel's warps (in the layout above, starting at data_off of
 * fd) in any interleaving, CTAs visited in increasing order. */
struct native_kernel {
	int fd;
	struct native_map map; /* of fd, or len 0: pread */
	bool own_map;          /* map made here (scratch files), unmapped in free */
	uint32_t frame_bytes;  /* largest raw frame accepted; one chunk each */
	uint32_t frame_header_bytes; /* 8, or 16 with checksums (version 6) */
	uint64_t scan_dropped; /* mapped bytes before this, scanned, are unmapped */
	char origin[256];
	uint64_t ctas;
	uint32_t warps_per_cta;
	struct bufrd scan;    /* walks frame headers to find warps */
	uint64_t scan_cta;    /* next CTA the scanner will reach */
	uint64_t cur_cta;     /* CTA whose warp offsets are in warp_off */
	bool have_cur;
	uint64_t *warp_off;   /* [warps_per_cta] */
	ZSTD_DCtx *dctx;
	unsigned char *scratch;
	size_t scratch_cap;
	unsigned char **bufs; /* pool of chunk buffers, one per resident warp */
	uint32_t n_bufs, cap_bufs, *free_bufs, n_free;
	struct gpuvm_error pending; /* an error found in warp_begin */
	bool failed;
	struct gpuvm_kernel k;
};

/* checksums: frames carry version 6 checksums (every scratch file does).
 * map: the file's mapping, kept by the caller; NULL: native_kernel_init
 * maps fd itself (a scratch file complete by now) or falls back to pread. */
int native_kernel_init(struct native_kernel *nk, int fd, const struct native_map *map,
		       uint32_t frame_bytes, bool checksums, const char *origin, uint64_t data_off,
		       const char *name, const uint32_t grid[3], const uint32_t block[3],
		       struct gpuvm_error *err);
/* Moves past every remaining warp; *end_off is where the kernel's data ends. */
int native_kernel_finish(struct native_kernel *nk, uint64_t *end_off, struct gpuvm_error *err);
void native_kernel_free(struct native_kernel *nk);

/* Checks a kernel shape from any reader; origin/line for the message. */
int trace_check_shape(const uint32_t grid[3], const uint32_t block[3], const char *origin,
		      int line, struct gpuvm_error *err);

/* A scratch file for transcoded kernels, deleted on close. */
FILE *trace_temp_file(struct gpuvm_error *err);

#endif
