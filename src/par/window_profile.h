/* The windowed model's work, split as partitions on threads would run it
 * (gpuvm bench --profile --window): each window's SM-side partitions
 * (issue, compute, the functional side of their warps) and its barrier
 * (every memory instruction, applied in key order), timed on the engine's
 * thread at --threads 1.
 *
 * Owns: process-wide sums, written by the engine's thread only while
 * enabled.
 * May call: the C library's monotonic clock.
 * Guarantees: nothing here changes what the simulation computes; off (the
 * default) the engine reads no clock. From the sums it predicts the
 * windowed model's wall time at p cores as if its partitions ran side by
 * side and nothing else did: per window, the barrier whole plus the
 * partitions' time spread over min(p, partitions) cores, never less than
 * the longest partition (docs/parallel.md); where the barrier's memory
 * side was served a memory partition per task, that part of it spread
 * the same way over min(p, tasks), and its SM side's L1s and ports over
 * min(p, SM groups). Waits and hand-overs are not
 * counted: an upper bound on the speed-up. */
#ifndef GPUVM_PAR_WINDOW_PROFILE_H
#define GPUVM_PAR_WINDOW_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#define WINDOW_PROFILE_CORES 4 /* the core counts predicted: 2, 8, 32, 64 */

struct window_profile_snapshot {
	uint64_t windows;
	uint32_t partitions;  /* of the last run */
	double barrier_s;     /* the barriers, all of them */
	double partitions_s;  /* the partitions' runs, summed */
	double longest_s;     /* per window, its longest partition, summed */
	/* per window, max(longest, partitions' sum / p), summed, at
	 * p = window_profile_cores[i] */
	double spread_s[WINDOW_PROFILE_CORES];
	/* the barriers' memory side where it was served a memory partition
	 * per task (src/sm/sm_split.c; part of barrier_s): the tasks' seconds
	 * summed, their queues (the partitions and the link), and per window
	 * max(longest task, tasks' sum / min(p, queues)) summed */
	double memory_s;
	uint32_t memory_queues;
	double memory_spread_s[WINDOW_PROFILE_CORES];
	/* the same barriers' SM side (part of barrier_s): the translations
	 * (coalescer, TLB levels, walkers) and the results written back (the
	 * fills, the warps' scoreboards), serial; between them the sectors'
	 * way through the SMs' L1s and L2 ports into the partitions' queues,
	 * a task per SM group: their seconds summed, the groups, and per
	 * window max(longest group, sum / min(p, groups)) summed */
	double translation_s, results_s;
	double sm_data_s;
	uint32_t sm_groups;
	double sm_data_spread_s[WINDOW_PROFILE_CORES];
};

extern const double window_profile_cores[WINDOW_PROFILE_CORES];

void window_profile_enable(bool on);
bool window_profile_enabled(void);
/* Seconds on a monotonic clock (for the engine's timing of a window). */
double window_profile_now(void);
/* One window: its barrier's seconds and its n partitions' seconds. */
void window_profile_add(double barrier_s, const double *partition_s, uint32_t n);
/* One barrier's memory side, served a partition per task: the n tasks'
 * seconds (within the barrier's, which window_profile_add counts). */
void window_profile_add_memory(const double *task_s, uint32_t n);
/* One such barrier's SM side: its translations' and results' seconds,
 * and its n SM groups' (tasks side by side). */
void window_profile_add_sm_side(double translation_s, const double *group_s, uint32_t n,
				double results_s);
void window_profile_reset(void);
void window_profile_read(struct window_profile_snapshot *out);

#endif
