/* SM-side partitions (issue 34, docs/parallel.md): with core.window the
 * SMs are split into partitions, each with its own event queue, its own
 * statistics and its own list of the window's memory instructions, so
 * that inside a window no partition writes anything another reads. A
 * window runs every partition's warps up to the window's end (on the
 * fork-join pool's threads when the kernel allows it), and the barrier
 * then merges, on one thread and in a fixed order, what they produced:
 * statistics in partition order, memory instructions in (issue cycle,
 * SM, sequence) order, finished CTAs' slots in (cycle, SM) order.
 *
 * Contract:
 *  - Owns: each partition's queue, statistics shard, request and parked
 *    lists, freed-slot list, and its copy of the SM layer's header (the
 *    arrays it points to stay the system's: a partition touches only its
 *    own SMs' entries); the fork-join pool.
 *  - May call: the SM layer (sm.h) on its own SMs, the kernel's
 *    warp_next and warp_end for its own warps, its event queue
 *    (event/event_queue.h), the helper threads and the window
 *    (par/fork_join.h, par/window.h).
 *  - Guarantees: the partitioning depends on the config only (never on
 *    --threads), so a run's results are the same at any thread count;
 *    partitions run on threads only for kernels that declare their warps
 *    independent (gpuvm_kernel.warps_independent). */
#ifndef GPUVM_SYSTEM_PARTITION_H
#define GPUVM_SYSTEM_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event/event_queue.h"
#include "gpuvm/engine.h"
#include "gpuvm/error.h"
#include "gpuvm/counters.h"
#include "sm/sm.h"

/* room for the merge plan of a shard (the rows flagged GPUVM_CTR_SHARD) */
#define SM_PARTITION_SHARD_FIELDS 32

struct fork_join;

/* A CTA slot freed inside a window: the placement policy hears of it at
 * the barrier (a new CTA is placed there from the barrier on). */
struct cta_freed {
	double t;
	uint32_t sm;
};

/* Where a run of warp events reads and writes: a partition's, or (the
 * event-order engine) the system's own. */
struct sm_partition {
	struct sm_layer *sl;
	struct event_queue *events;
	struct sm_launch *launch;
	/* core.window: freed CTA slots wait for the barrier (NULL: the
	 * placement policy hears at once) */
	struct cta_freed *freed;
	size_t n_freed, cap_freed;
	bool defer_refill;
	uint64_t events_run;   /* events the last window ran */
	/* the fields the SM side writes inside a window, from the counter
	 * rows flagged GPUVM_CTR_SHARD (gpuvm_counters_plan): the merge
	 * plan of own_stats */
	struct gpuvm_counter_field shard_plan[SM_PARTITION_SHARD_FIELDS];
	size_t n_shard_plan;
	int rc;                /* -1: the window failed (err says why) */
	struct gpuvm_error err;
	/* a partition's own storage, which the pointers above name */
	struct event_queue own_events;
	struct sm_launch own_launch;
	struct gpuvm_stats own_stats;
	_Alignas(64) struct sm_layer own_sl;
};

struct sm_partitions {
	uint32_t n;
	struct sm_partition *part; /* [n], each on cache lines of its own */
	uint32_t *of_sm;           /* [sms]: the partition of each SM */
	struct fork_join *pool;    /* made at the first window run on threads */
	/* GPUVM_WINDOW_THREADS=partitions (or all): the windows of
	 * independent kernels may run on threads with --threads N; unset,
	 * they stay on the engine's thread (on the 2-core host every row of
	 * the bench lost with them: docs/parallel.md) */
	bool threads_wanted;
};

/* n partitions of the config's SMs (contiguous ranges of logical SM ids,
 * gpu.gpcs of them, at most one per SM), each with a queue over all warp
 * slots; the SMs' events go to their partition's queue from here on. 0,
 * or -1 when out of memory. */
int sm_partitions_init(struct sm_partitions *ps, struct sm_layer *sl);
void sm_partitions_free(struct sm_partitions *ps);
/* Before a launch (and when the system's layer changed underneath, as
 * at the first use of registers): each partition's copy of the SM layer
 * takes the system's, keeping its own statistics, lists and sequence. */
void sm_partitions_sync(struct sm_partitions *ps, const struct sm_layer *sl,
			const struct sm_launch *kr);
/* Adds partition p's statistics of the window to stats and clears them:
 * the fields of the counter rows flagged GPUVM_CTR_SHARD, the ones the
 * SM side writes inside a window. */
void sm_partition_merge_stats(struct sm_partition *p, struct gpuvm_stats *stats);

#endif
