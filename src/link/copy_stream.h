/* Asynchronous copies (cudaMemcpyAsync on a copy stream, cudaEventRecord,
 * cudaStreamWaitEvent): each PCIe direction has one copy engine that runs
 * its copies in issue order, concurrently with kernels; a copy records an
 * event when it ends, and a kernel launched to wait for the event starts
 * no earlier.
 *
 * The link is shared with what kernels move over it (zero-copy packets,
 * demand paging). A copy is resolved lazily, when its end is first needed
 * (a kernel waits for it, a synchronous operation or the run's end), by
 * which time every kernel it overlaps has been simulated: in each kernel's
 * span the copy gets the lane's time that the kernel's own traffic left,
 * taken as spread evenly over the span. Kernels' traffic thus goes first
 * and a copy never slows a kernel: a bound that favours placements whose
 * kernels use the link (pinned, managed) over those whose kernels do not.
 * A copy's end also pays pcie.latency_ns once, as a synchronous copy does.
 * Unused (no asynchronous copy issued), it changes nothing.
 *
 * Contract:
 *  - Owns: each direction's copy queue and the events copies record.
 *  - May call: nothing outside its own files and core/: the lane time kernels
 *    left and the transfer times come in as arguments from the run loop
 *    (run_loop.c, which asks the host link). */
#ifndef GPUVM_ENGINE_COPY_STREAM_H
#define GPUVM_ENGINE_COPY_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/stream.h"

/* Copies one direction's engine may have issued and not yet resolved. */
#define COPY_STREAM_PENDING 256

struct copy_pending {
	double issue, cycles; /* issue time, transfer time on a free lane */
	uint32_t event, gen;  /* the event it records (0: none), its generation */
};

struct copy_span {
	double start, end;   /* a kernel's span */
	double busy[2];      /* lane time its own traffic took: [0] h2d, [1] d2h */
};

struct copy_stream {
	bool used;             /* an asynchronous copy was ever issued */
	double latency;        /* pcie.latency_ns in cycles */
	double lane_free[2];   /* end of each engine's last resolved copy */
	struct copy_pending pend[2][COPY_STREAM_PENDING];
	uint32_t head[2], n[2];
	double event_end[GPUVM_RUN_EVENTS];
	uint32_t event_gen[GPUVM_RUN_EVENTS];
	uint8_t event_dir[GPUVM_RUN_EVENTS];
	bool event_pending[GPUVM_RUN_EVENTS];
	struct copy_span *spans; /* kernels run while a copy was pending */
	size_t n_spans, cap_spans;
};

void copy_stream_init(struct copy_stream *cs, double latency_cycles);
void copy_stream_free(struct copy_stream *cs);
/* Issues a copy on direction dir (0 = host to device, 1 = device to host)
 * at host time t taking `cycles` on a free lane, recording event (0 =
 * none) at its end. Returns -1 when COPY_STREAM_PENDING copies of the
 * direction are already unresolved. */
int copy_stream_issue(struct copy_stream *cs, int dir, double t, double cycles, uint32_t event);
/* When the event's last recorded copy ends (resolving it); 0 for an event
 * never recorded. */
double copy_stream_event_end(struct copy_stream *cs, uint32_t event);
/* Resolves every copy of dir; returns when that engine is free. */
double copy_stream_drain(struct copy_stream *cs, int dir);
/* Whether copies are unresolved (kernels must then report their spans). */
static inline bool copy_stream_pending(const struct copy_stream *cs)
{
	return cs->n[0] || cs->n[1];
}
/* A kernel ran over [start, end) and its traffic took busy_h2d / busy_d2h
 * of the lanes' time. Returns -1 out of memory. */
int copy_stream_span(struct copy_stream *cs, double start, double end, double busy_h2d,
		     double busy_d2h);

#endif
