/* Kernel sampling: which launches are alike (classes), when a class's
 * detailed launches have converged, and how the counters of a
 * fast-forwarded launch are estimated from them. The engine drives the
 * warps; this file only keeps the books. */
#ifndef GPUVM_ENGINE_KERNEL_SAMPLING_H
#define GPUVM_ENGINE_KERNEL_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/engine.h"
#include "gpuvm/stream.h"

/* One detailed launch of a class. */
struct ks_sample {
	double exec_cycles;    /* launch overhead excluded */
	uint64_t warp_insts, thread_accesses;
	double *counters;      /* deltas of the estimated counters */
};

struct ks_class {
	const struct gpuvm_kernel_ops *ops;
	uint32_t grid[3], block[3], sample_class;
	uint64_t detailed;         /* launches run in detail so far */
	struct ks_sample *ring;    /* the last min_detailed of them */
	bool converged;
	double cycles_per_warp_inst;  /* mean over the converged samples */
	double *counters_per_access;  /* estimated counters per thread access */
};

struct kernel_sampler {
	bool on;
	double tolerance;
	uint32_t min_detailed;
	size_t n_counters;
	struct ks_class *classes;
	size_t n_classes, cap_classes;
	double *before;  /* counters when the current detailed launch began */
	double *after;
	struct gpuvm_stats *stats;
};

/* Reads opt (may be NULL) into ks and stats->kernel_sampling. stats must
 * already have its TLB instance arrays. Returns -1 when out of memory. */
int kernel_sampler_init(struct kernel_sampler *ks, const struct gpuvm_sim_options *opt,
			struct gpuvm_stats *stats);
void kernel_sampler_free(struct kernel_sampler *ks);

/* The class of k (made on first sight); NULL when out of memory. */
struct ks_class *kernel_sampler_class(struct kernel_sampler *ks, const struct gpuvm_kernel *k);

/* Notes (once) why a sampleable launch runs in detail anyway. */
void kernel_sampler_refuse(struct kernel_sampler *ks, const char *why);

/* Around a detailed launch of class c: snapshot, then record the launch's
 * deltas and test convergence. */
void kernel_sampler_begin(struct kernel_sampler *ks);
void kernel_sampler_record(struct kernel_sampler *ks, struct ks_class *c, double exec_cycles,
			   uint64_t warp_insts, uint64_t thread_accesses);

/* Adds the estimated counters of a fast-forwarded launch of converged
 * class c that made thread_accesses accesses. */
void kernel_sampler_charge(struct kernel_sampler *ks, const struct ks_class *c,
			   uint64_t thread_accesses);

#endif
