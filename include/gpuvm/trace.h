/* Trace input and output: readers for Accel-Sim SASS traces
 * (kernelslist.g + kernel-N.traceg[.xz]), NVBit mem_trace output and
 * gpuvm's native compressed format, each a struct gpuvm_source; the
 * native writer (`gpuvm trace record`); and a summary pass (`trace info`).
 *
 * Every reader streams: memory is bounded by the resident warps of the
 * engine, never by the trace's length (docs/traces.md gives the bounds). */
#ifndef GPUVM_TRACE_H
#define GPUVM_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "gpuvm/error.h"
#include "gpuvm/stream.h"

enum gpuvm_trace_format {
	GPUVM_TRACE_AUTO = 0,
	GPUVM_TRACE_ACCELSIM, /* kernelslist.g, a kernel .traceg[.xz], or their folder */
	GPUVM_TRACE_MEMTRACE, /* NVBit mem_trace tool output (1.5 and 1.7 forms) */
	GPUVM_TRACE_NATIVE,   /* gpuvm's own format (trace record) */
};

/* "accelsim", "memtrace", "native" or "auto". */
int gpuvm_trace_format_parse(const char *name, enum gpuvm_trace_format *out,
			     struct gpuvm_error *err);
const char *gpuvm_trace_format_name(enum gpuvm_trace_format f);

/* Looks at the path (folder, name, first bytes) and says which format. */
int gpuvm_trace_detect(const char *path, enum gpuvm_trace_format *out, struct gpuvm_error *err);

/* Opens a trace as a source; AUTO detects. Errors name file and line. */
int gpuvm_trace_open(const char *path, enum gpuvm_trace_format fmt, struct gpuvm_source *out,
		     struct gpuvm_error *err);

/* Trace specs usable wherever a workload spec is (`--workload`, sweeps):
 * "trace:PATH" (format detected) or "trace-accelsim:PATH",
 * "trace-memtrace:PATH", "trace-native:PATH"; "+managed" before the colon
 * (e.g. "trace+managed:PATH") replays the trace as its unified-memory port:
 * device allocations become managed and explicit copies are dropped. */
int gpuvm_trace_spec_is(const char *spec);
int gpuvm_trace_open_spec(const char *spec, struct gpuvm_source *out, struct gpuvm_error *err);

/* Drains src in sequential order (kernel by kernel, CTA by CTA, warp by
 * warp) and writes it in the native format to path, atomically. */
struct gpuvm_trace_counts {
	uint64_t ops, kernels, ctas, warps, items, warp_insts, mem_insts, thread_accesses;
	uint64_t stream_bytes; /* uncompressed item bytes in the native encoding */
	uint64_t file_bytes;   /* native bytes written (record) */
};
int gpuvm_trace_record(struct gpuvm_source *src, const char *path,
		       struct gpuvm_trace_counts *counts, struct gpuvm_error *err);
/* The same with frames of at most frame_bytes raw item bytes (1 KiB to
 * 1 MiB; 8192 = the default, a version 4 file; any other size writes
 * version 5). Larger frames compress better and cost a replay one chunk
 * of that size per resident warp. */
/* The version of a native trace file (its header), or 0 when path is not
 * one. Versions before 6 carry no checksums. */
unsigned gpuvm_trace_native_version(const char *path);

/* Returns 0, -1 (bad input, or any failure before writing) or -2 (the
 * output refused bytes: disk full, a device; exit status 1). */
int gpuvm_trace_record_frames(struct gpuvm_source *src, const char *path, size_t frame_bytes,
			      struct gpuvm_trace_counts *counts, struct gpuvm_error *err);
/* Frame sizes gpuvm_trace_record_frames accepts, and the default. */
#define GPUVM_TRACE_FRAME_MIN_BYTES 1024u
#define GPUVM_TRACE_FRAME_MAX_BYTES (1u << 20)
#define GPUVM_TRACE_FRAME_DEFAULT_BYTES 8192u

/* Visits every operation and item of src in sequential order (kernel by
 * kernel, CTA by CTA, warp by warp). Callbacks may be NULL; one that
 * returns non-zero (with err set) stops the walk, which returns -1. */
struct gpuvm_trace_visitor {
	void *ctx;
	int (*op)(void *ctx, const struct gpuvm_run_op *op, struct gpuvm_error *err);
	int (*warp_begin)(void *ctx, const struct gpuvm_kernel *k, uint32_t cta, uint32_t warp,
			  struct gpuvm_error *err);
	int (*item)(void *ctx, const struct gpuvm_warp_item *it, struct gpuvm_error *err);
	int (*warp_end)(void *ctx, struct gpuvm_error *err);
	int (*kernel_end)(void *ctx, const struct gpuvm_kernel *k, struct gpuvm_error *err);
};
int gpuvm_trace_walk(struct gpuvm_source *src, const struct gpuvm_trace_visitor *v,
		     struct gpuvm_error *err);

/* `trace info`: walks src and writes a JSON summary (kernels, CTAs, warps,
 * instructions, memory instructions, accesses, footprint in 4 KiB pages
 * when asked, allocations, copies). Caller frees with cJSON_Delete. */
struct cJSON;
int gpuvm_trace_info(struct gpuvm_source *src, int footprint, struct cJSON **out,
		     struct gpuvm_error *err);

#endif
