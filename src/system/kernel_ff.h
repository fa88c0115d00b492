/* Kernel sampling's fast-forward of one launch, and the progress sample a
 * launch reports: the parts of a launch (kernel_run.c) that touch no
 * timing model.
 *
 * Contract:
 *  - Owns: nothing; works on the launch (sm_launch) and the system's
 *    counters it is given.
 *  - May call: the kernel's ops (functional steps), the kernel sampler's
 *    books (kernel_sampling.h) and the run's progress callback.
 *  - Guarantees: a fast-forwarded launch's work counters are exact (every
 *    warp runs functionally to its end); its time and other counters are
 *    its class's rates (kernel_sampling.c). */
#ifndef GPUVM_SYSTEM_KERNEL_FF_H
#define GPUVM_SYSTEM_KERNEL_FF_H

#include <stdbool.h>

struct system;
struct sm_launch;
struct ks_class;
struct gpuvm_error;

/* One progress sample of launch kr at cycles (final: its last). */
void kernel_show_progress(struct system *sys, const struct sm_launch *kr, double cycles, bool final);

/* Runs launch kr's remaining CTAs functionally from time t, its time the
 * class cls's cycles per warp instruction (kr->end set). 0, or -1 with
 * err from a kernel's failed step. */
int kernel_fast_forward(struct system *sys, struct sm_launch *kr, const struct ks_class *cls,
			double t, struct gpuvm_error *err);

#endif
