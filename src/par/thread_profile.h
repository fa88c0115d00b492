/* Busy time of the threads a run starts beside the engine's own (SIMT
 * workers, the trace reader), for gpuvm bench --profile.
 *
 * Owns: process-wide counters, added to atomically as each thread ends.
 * May call: the C library (clock_gettime of the calling thread).
 * Guarantees: a thread that calls thread_profile_exit() as it returns adds
 * its CPU time once; reading never blocks the threads; nothing here
 * changes what the simulation computes. */
#ifndef GPUVM_PAR_THREAD_PROFILE_H
#define GPUVM_PAR_THREAD_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#define THREAD_PROFILE_MAX 64

struct thread_profile_snapshot {
	uint32_t threads;                 /* that ended since the last reset */
	double cpu_s[THREAD_PROFILE_MAX]; /* each one's CPU seconds, in end order */
	double total_cpu_s;               /* all of them, also past THREAD_PROFILE_MAX */
};

/* Called by a helper thread just before it returns. */
void thread_profile_exit(void);
void thread_profile_reset(void);
void thread_profile_read(struct thread_profile_snapshot *out);
/* GPUVM_THREADS_PROFILE is set (not empty, not "0"): the threads' users
 * print what each did to stderr (SIMT workers, a trace's parts). */
bool thread_profile_printing(void);

#endif
