/* The window of the conservative parallel timing model (issue 34,
 * docs/parallel.md): how long SM-side partitions may simulate on their own
 * before any result of the shared memory side can reach them.
 *
 * Owns: nothing (a pure function of the config).
 * May call: the config's fields and gpuvm_share_domain_name (src/config,
 * for the names in its messages).
 * Guarantees: the window is the shortest time, derived from the preset's
 * latencies, from an SM issuing a request to state outside its partition
 * to that request's answer changing anything the partition computes; a
 * partition that simulates [T, T + window) therefore needs no answer from
 * another partition or the memory side before T + window (lookahead, as in
 * Chandy-Misra-Bryant conservative simulation; Fujimoto, "Parallel
 * discrete event simulation", CACM 33(10), 1990, section 3.1). It names the
 * path that sets it. */
#ifndef GPUVM_PAR_WINDOW_H
#define GPUVM_PAR_WINDOW_H

#include <stdint.h>

#include "gpuvm/config.h"

enum par_scope {
	PAR_SCOPE_TPC = 0, /* a partition is a texture processing cluster */
	PAR_SCOPE_GPC,     /* a graphics processing cluster */
};

struct par_window {
	double cycles;       /* the window: the shortest path below */
	uint32_t partitions; /* SM-side partitions of this scope */
	char limit[160];     /* which path sets it, with its terms */
	/* the candidates, for the report (0 when the path does not exist) */
	double l2_round_trip_cycles;    /* crossbar + L2 hit + crossbar */
	double shared_tlb_cycles;       /* a TLB level beyond the partition, then L1 */
	double walker_cycles;           /* the memory-side walker (PWC hit), then L1 */
};

/* GPUVM_WINDOW_THREADS (docs/parallel.md): what a windowed run may hand
 * to helper threads besides the barrier's second stage. */
enum window_threads {
	WINDOW_THREADS_BARRIER = 0, /* unset: the barrier's stages only */
	WINDOW_THREADS_PARTITIONS,  /* the SM partitions on the fork-join pool */
	WINDOW_THREADS_ALL,         /* and every window's barrier to the pipe */
};
enum window_threads window_threads_knob(void);

void par_window_of(const struct gpuvm_config *cfg, enum par_scope scope, struct par_window *w);
const char *par_scope_name(enum par_scope s);

#endif
