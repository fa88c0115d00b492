/* The system: a GPU built from its components and wired, and the run
 * loop that drives it.
 *
 * Contract:
 *  - system.c (the builder) turns a config into the components: the
 *    translation layer (src/xlat), the memory partitions (src/memsys),
 *    the host link (src/link), the SM layer (src/sm) and its CTA
 *    placement policy, the UVM driver (src/uvm, built at the first
 *    managed allocation), the copy engines (link/copy_stream.h) and
 *    the kernel sampler; it hands each component the ports of the others
 *    it may send requests to: the SM layer's struct sm_ports, the
 *    translation layer's page port (a finished walk to the driver,
 *    page_walk_done) and PTE port (a leaf read to the memory partitions,
 *    walk_pte_read), the driver's struct uvm_hooks (shootdown, L2 clock,
 *    the link's lanes). A port's request and response are typed structs
 *    (xlat.h, uvm.h); no component passes a result through another's
 *    fields. It is the only code that knows two components at once.
 *  - run_loop.c dispatches the host operations of a source (allocations,
 *    copies, launches, synchronisation) and, per launch (kernel_run.c),
 *    the warps' events in time order: it pops a warp, asks its kernel for
 *    its next item and hands it to the SM layer. It models nothing
 *    itself.
 *  - May call: every component it builds and drives: src/xlat,
 *    src/memsys, src/link, src/sm (sm.h, cta_place.h), src/uvm, the
 *    allocation table (mem/alloc_table.h), the event queue
 *    (event/event_queue.h), the copy engines (link/copy_stream.h), its
 *    own kernel sampling and invariant checkers; src/par (the
 *    window's barrier and helper threads with core.window, --threads);
 *    the progress line (gpuvm/progress.h, in src/core). */
#ifndef GPUVM_SYSTEM_SYSTEM_H
#define GPUVM_SYSTEM_SYSTEM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "mem/alloc_table.h"
#include "link/copy_stream.h"
#include "event/event_queue.h"
#include "system/kernel_sampling.h"
#include "gpuvm/engine.h"
#include "gpuvm/progress.h"
#include "link/link.h"
#include "memsys/memsys.h"
#include "sm/cta_place.h"
#include "sm/sm.h"
#include "system/partition.h"
#include "uvm/uvm.h"
#include "xlat/xlat.h"

struct system {
	const struct gpuvm_config *cfg;
	struct gpuvm_stats *stats;
	/* each component on lines of its own (core/cache_line.h): with
	 * --threads the translation and the memory partitions are served on
	 * two cores at a window's barrier */
	_Alignas(64) struct xlat xlat;
	_Alignas(64) struct memsys mem;
	_Alignas(64) struct host_link link;
	_Alignas(64) struct alloc_table allocs;
	_Alignas(64) struct sm_layer sms;
	struct cta_placer placer;
	struct event_queue events;
	/* core.window: the SM-side partitions the windows run (their queues
	 * take the SMs' events; the one above stays empty) */
	struct sm_partitions parts;
	unsigned pte_page_shift; /* log2 of the page a leaf page-table entry maps */

	/* unified memory: built at the first managed allocation */
	struct uvm uvm;
	bool uvm_on;

	struct copy_stream cs;
	/* kernel sampling: classes of alike launches, their convergence */
	struct kernel_sampler ks;

	/* progress: told where the run is (NULL: nobody listens) */
	bool progress;
	gpuvm_progress_fn *progress_fn;
	void *progress_ctx;
	struct gpuvm_progress live_progress;
	const struct gpuvm_uvm_observer *uvm_observer;
	/* a system of several GPUs (multi_gpu.c): the managed pages' shared
	 * residency and this GPU's processor id in it; NULL on one GPU */
	struct uvm_shared *uvm_shared;
	uint32_t uvm_proc;
	uint64_t kernel_index;
	/* the page port's shootdowns while the driver serves a walk
	 * (system.c page_walk_done): handed back in the walk's response
	 * rather than re-entering the translation layer below it */
	bool in_walk;
	struct xlat_range *shot;
	uint32_t n_shot, cap_shot;
};

/* Builds the components; on failure what was built is freed by
 * system_free. The system must not move afterwards (components hold
 * pointers to each other's parts). */
int system_init(struct system *sys, const struct gpuvm_config *cfg, struct gpuvm_stats *stats,
		const struct gpuvm_sim_options *opt);
void system_free(struct system *sys);
/* A managed allocation: the UVM driver learns it (built at the first).
 * A system-allocated one (GPUVM_ALLOC_SYSTEM, c2c.coherent) too, as a
 * range of UVM_ADVISE_SYSTEM, and the translation layer learns its
 * system pages. */
int system_track_managed(struct system *sys, const struct gpuvm_alloc *a);
/* Whether the preset's cudaMemAdvise keys (uvm.preferred_location,
 * uvm.accessed_by) apply to the allocation named name: uvm.advise_allocations
 * is empty or one of its comma-separated shell patterns matches it. */
bool system_advise_applies(const struct gpuvm_config *cfg, const char *name);

/* Runs one kernel launch (kernel_run.c): the GPU is free from t0, the
 * kernel starts launch cycles later (the part of the launch's overhead
 * the run loop found exposed), and *t_end is when it is done. */
int system_run_kernel(struct system *sys, struct gpuvm_kernel *k, double t0, double launch,
		      double *t_end, struct gpuvm_error *err);

#endif
