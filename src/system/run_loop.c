/* The run loop (system.h holds the contract): a source's host
 * operations in order (allocations, copies, launches, synchronisation),
 * each handed to the component that models it; a launch to
 * system_run_kernel. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/later.h"
#include "gpuvm/units.h"
#include "system/host_access.h"
#include "system/system.h"

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Tells the source when the events resolved so far ended. */
static void sync_events(const struct system *sys, struct gpuvm_source *src)
{
	double hz = sys->cfg->clock_mhz * 1e6;
	for (uint32_t i = 1; i < GPUVM_RUN_EVENTS; i++)
		src->event_seconds[i] = sys->cs.event_gen[i] && !sys->cs.event_pending[i]
						? sys->cs.event_end[i] / hz
						: -1;
}

/* l2.copy_fill: an H2D copy's data left in the L2 at t (memsys_copy_fill),
 * as much of it as lies in its allocation ca (all of it with no ca). */
static void copy_fill(struct system *sys, const struct gpuvm_alloc *ca,
		      const struct gpuvm_run_op *op, double t)
{
	uint64_t room = ca ? ca->base + ca->bytes - op->copy_addr : op->copy_bytes;
	memsys_copy_fill(&sys->mem, op->copy_addr, op->copy_bytes < room ? op->copy_bytes : room, t);
}

/* The host's side of a run: the simulated clock, the host's own clock
 * under launch pipelining, and the device memory in use. */
struct run_host {
	struct system *sys;
	const struct gpuvm_config *cfg;
	struct gpuvm_source *src;
	struct gpuvm_stats *stats;
	double t;
	double clock_hz;
	/* Launch pipelining (gpu.kernel_launch_period_us > 0): the host's
	 * clock, the earliest time it can make its next call. A launch
	 * returns to it one period after its issue; a synchronous copy or a
	 * device synchronisation holds it until the GPU is done. */
	double launch_cycles, launch_period_cycles;
	double host_free;
	uint64_t device_in_use; /* live device allocations' bytes (gpu.memory) */
};

/* cudaMalloc, cudaMallocManaged, malloc on a coherent link. */
static int run_alloc(struct run_host *h, const struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	const struct gpuvm_config *cfg = h->cfg;
	struct system *sys = h->sys;
	/* cudaMalloc fails when the board has no room left for it
	 * (cudaErrorMemoryAllocation); managed memory oversubscribes */
	if (op->alloc.kind == GPUVM_ALLOC_DEVICE && !op->alloc.extent_only &&
	    cfg->device_memory_bytes &&
	    op->alloc.bytes > cfg->device_memory_bytes - h->device_in_use) {
		char need[32], used[32], cap[32];
		gpuvm_format_size(op->alloc.bytes, need, sizeof need);
		gpuvm_format_size(h->device_in_use, used, sizeof used);
		gpuvm_format_size(cfg->device_memory_bytes, cap, sizeof cap);
		return gpuvm_fail(err, op->alloc.name, 0, NULL, "cudaMalloc of %s (%llu bytes) "
				  "does not fit: %s of the %s preset's %s of device memory "
				  "(gpu.memory) are in use (out of memory; allocate it managed "
				  "(mem=managed) to oversubscribe)", need,
				  (unsigned long long)op->alloc.bytes, used, cfg->name, cap);
	}
	if (op->alloc.kind == GPUVM_ALLOC_SYSTEM && !cfg->c2c_coherent)
		return gpuvm_fail(err, op->alloc.name, 0, "c2c.coherent",
				  "system-allocated memory (mem=system: plain malloc memory the GPU "
				  "reaches through the system page table) needs a coherent CPU-GPU "
				  "link with address translation services, as NVLink-C2C on Grace "
				  "Hopper; the %s preset's host link is PCIe, where the GPU reaches "
				  "malloc memory only through HMM, which gpuvm does not model (set "
				  "c2c.coherent=on for a GH200, or use mem=managed)", cfg->name);
	if (op->alloc.kind == GPUVM_ALLOC_SYSTEM) {
		/* the SM layer and the page walks serve it as
		 * managed memory: the UVM driver keeps its pages */
		struct gpuvm_alloc m = op->alloc;
		m.kind = GPUVM_ALLOC_MANAGED;
		if (alloc_table_add(&sys->allocs, &m, err))
			return -1;
	} else if (alloc_table_add(&sys->allocs, &op->alloc, err)) {
		return -1;
	}
	if (op->alloc.kind == GPUVM_ALLOC_DEVICE && !op->alloc.extent_only)
		h->device_in_use += op->alloc.bytes;
	if ((op->alloc.kind == GPUVM_ALLOC_MANAGED || op->alloc.kind == GPUVM_ALLOC_SYSTEM) &&
	    system_track_managed(sys, &op->alloc))
		return gpuvm_fail(err, op->alloc.name, 0, NULL, "out of memory for page state");
	return 0;
}

static void run_free(struct run_host *h, const struct gpuvm_run_op *op)
{
	struct system *sys = h->sys;
	const struct gpuvm_alloc *fa = alloc_table_find(&sys->allocs, op->alloc.base);
	if (fa && fa->kind == GPUVM_ALLOC_DEVICE && !fa->extent_only &&
	    fa->base == op->alloc.base)
		h->device_in_use -= fa->bytes < h->device_in_use ? fa->bytes : h->device_in_use;
	if (fa && fa->kind == GPUVM_ALLOC_MANAGED && sys->uvm_on)
		uvm_remove_alloc(&sys->uvm, op->alloc.base);
	alloc_table_remove(&sys->allocs, op->alloc.base);
}

/* A synchronous cudaMemcpy. Copies run between kernels (stream order):
 * size over bandwidth plus latency, on the host link's lane. */
static int run_copy(struct run_host *h, const struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	const struct gpuvm_config *cfg = h->cfg;
	struct system *sys = h->sys;
	struct gpuvm_stats *stats = h->stats;
	bool h2d = op->kind == GPUVM_RUN_COPY_H2D;
	if (h->launch_period_cycles > 0) /* not before the host calls it */
		h->t = later(h->t, h->host_free);
	if (h2d && sys->uvm_on && sys->uvm.c2c && uvm_is_system(&sys->uvm, op->copy_addr)) {
		/* the host writing system-allocated memory: its
		 * first touch places the pages in CPU memory, at
		 * the CPU memory's rate (c2c.cpu_memory_gb_s);
		 * with c2c.first_touch = gpu the program
		 * initialises it in a kernel instead: nothing */
		if (cfg->c2c_first_touch_gpu)
			return 0;
		if (uvm_host_touch(&sys->uvm, op->copy_addr, op->copy_bytes))
			return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
		double end = h->t + (double)op->copy_bytes / (cfg->c2c_cpu_memory_gb_s * 1e9) *
					    h->clock_hz;
		stats->copy_cycles += end - h->t;
		h->t = end;
		h->host_free = later(h->host_free, h->t);
		return 0;
	}
	if (sys->cs.used) {
		/* after the asynchronous copies issued before it on
		 * its lane */
		double free_at = copy_stream_drain(&sys->cs, !h2d);
		sync_events(sys, h->src);
		if (free_at > h->t)
			h->t = free_at;
	}
	/* the link model of migrations (uvm.pcie_model), so copy-then-
	 * execute and paging compare on the same link, behind what
	 * the driver still moves (write-backs of evictions) */
	double t = h->t;
	double end = link_copy(&sys->link, h2d ? LINK_H2D : LINK_D2H, t, op->copy_bytes);
	if (h2d)
		stats->pcie_h2d_bytes += op->copy_bytes;
	else
		stats->pcie_d2h_bytes += op->copy_bytes;
	const struct gpuvm_alloc *ca = alloc_table_find(&sys->allocs, op->copy_addr);
	if (h2d && ca && ca->kind == GPUVM_ALLOC_MANAGED && sys->uvm_on) {
		/* cudaMemcpy into managed memory leaves its pages on the GPU */
		uint64_t room = ca->base + ca->bytes - op->copy_addr;
		end = uvm_copy_in(&sys->uvm, op->copy_addr,
				  op->copy_bytes < room ? op->copy_bytes : room, t, end);
	} else if (h2d && (!ca || ca->kind == GPUVM_ALLOC_DEVICE) && cfg->l2_copy_fill) {
		/* the copy engine wrote it through the L2; a trace's
		 * copies precede the allocations its first kernel makes
		 * known (no ca yet): device memory too */
		copy_fill(sys, ca, op, end);
	}
	stats->copy_cycles += end - t;
	h->t = end;
	h->host_free = later(h->host_free, h->t); /* the call returns with the copy done */
	return 0;
}

/* cudaMemcpyAsync on the copy streams (link/copy_stream.h). */
static int run_copy_async(struct run_host *h, const struct gpuvm_run_op *op,
			  struct gpuvm_error *err)
{
	struct system *sys = h->sys;
	struct gpuvm_stats *stats = h->stats;
	bool h2d = op->kind == GPUVM_RUN_COPY_H2D_ASYNC;
	const struct gpuvm_alloc *ca = alloc_table_find(&sys->allocs, op->copy_addr);
	if (!ca || ca->kind != GPUVM_ALLOC_DEVICE)
		return gpuvm_fail(err, "engine", 0, NULL,
				  "an asynchronous copy must be to or from device memory");
	double cycles = link_copy_seconds(&sys->link, h2d ? LINK_H2D : LINK_D2H, op->copy_bytes) *
			h->clock_hz;
	if (copy_stream_issue(&sys->cs, !h2d, h->t, cycles, op->event))
		return gpuvm_fail(err, "engine", 0, NULL,
				  "more than %d asynchronous copies unconsumed, or event %u out of range",
				  COPY_STREAM_PENDING, op->event);
	if (h2d && h->cfg->l2_copy_fill) {
		/* its lines go into the L2 as it is issued: the kernels
		 * that read them wait for its event, and what runs
		 * meanwhile rarely evicts a whole copy's lines */
		copy_fill(sys, ca, op, h->t);
	}
	if (h2d)
		stats->pcie_h2d_bytes += op->copy_bytes;
	else
		stats->pcie_d2h_bytes += op->copy_bytes;
	stats->async_copies++;
	stats->async_copy_cycles += cycles + sys->link.spec.latency_cycles;
	return 0;
}

/* cudaDeviceSynchronize. */
static void run_device_sync(struct run_host *h)
{
	struct system *sys = h->sys;
	if (sys->cs.used) {
		/* the copy streams too */
		double f0 = copy_stream_drain(&sys->cs, 0), f1 = copy_stream_drain(&sys->cs, 1);
		sync_events(sys, h->src);
		h->t = later(h->t, later(f0, f1));
	}
	/* the host waits for the GPU; under uvm.device_sync =
	 * writeback it also waits for the write-back of dirty
	 * managed pages, a copy between kernels */
	if (sys->uvm_on) {
		double end = uvm_device_sync(&sys->uvm, h->t);
		h->stats->copy_cycles += end - h->t;
		h->t = end;
	}
	h->host_free = later(h->host_free, h->t);
}

/* A kernel launch: after its stream's event, its launch overhead, then
 * system_run_kernel; the lane time its traffic took goes to the copy
 * streams beside it. */
static int run_kernel(struct run_host *h, const struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct system *sys = h->sys;
	struct gpuvm_stats *stats = h->stats;
	if (op->wait_event) {
		/* cudaStreamWaitEvent: not before its copy is in */
		double ready = copy_stream_event_end(&sys->cs, op->wait_event);
		sync_events(sys, h->src);
		if (ready > h->t) {
			stats->async_wait_cycles += ready - h->t;
			h->t = ready;
		}
	}
	double t = h->t;
	/* the overhead before the kernel starts on the GPU: the
	 * whole launch after the work before it, or, pipelined,
	 * what is left of it once the GPU is free */
	double launch = h->launch_cycles;
	if (h->launch_period_cycles > 0) {
		launch = later(h->host_free + h->launch_cycles, t) - t;
		h->host_free += h->launch_period_cycles;
	}
	double end = t;
	double busy0 = link_lane_busy(&sys->link, LINK_H2D),
	       busy1 = link_lane_busy(&sys->link, LINK_D2H);
	uint64_t uvm_h2d = stats->uvm.bytes_h2d, uvm_d2h = stats->uvm.bytes_d2h;
	if (system_run_kernel(sys, op->kernel, t, launch, &end, err))
		return -1;
	if (copy_stream_pending(&sys->cs)) {
		/* the lane time this kernel's traffic took: zero-copy
		 * packets as held, paging at the link's bulk rate */
		double b0 = link_lane_busy(&sys->link, LINK_H2D) - busy0 +
			    (double)(stats->uvm.bytes_h2d - uvm_h2d) * sys->link.spec.cycles_per_byte;
		double b1 = link_lane_busy(&sys->link, LINK_D2H) - busy1 +
			    (double)(stats->uvm.bytes_d2h - uvm_d2h) * sys->link.spec.cycles_per_byte;
		if (copy_stream_span(&sys->cs, t, end, b0, b1))
			return gpuvm_fail(err, "engine", 0, NULL, "out of memory for copy streams");
	}
	stats->kernel_cycles += end - t;
	h->t = end;
	return 0;
}

/* cudaMemPrefetchAsync: in stream order, the host goes on. */
static int run_prefetch(struct run_host *h, const struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct system *sys = h->sys;
	const struct gpuvm_alloc *ca = alloc_table_find(&sys->allocs, op->copy_addr);
	if (!ca || ca->kind != GPUVM_ALLOC_MANAGED || !sys->uvm_on)
		return gpuvm_fail(err, "engine", 0, NULL, "cudaMemPrefetchAsync of memory "
				  "that is not managed");
	uint64_t room = ca->base + ca->bytes - op->copy_addr;
	uint64_t bytes = op->copy_bytes < room ? op->copy_bytes : room;
	h->t = op->prefetch_to_cpu ? uvm_prefetch_to_host(&sys->uvm, op->copy_addr, bytes, h->t)
				   : uvm_prefetch_range(&sys->uvm, op->copy_addr, bytes, h->t);
	return 0;
}

/* A CPU phase touching memory (simt_host_access): synchronous for the
 * host, as a CPU loop over the array is; the driver's CPU-fault side
 * times it (src/uvm/uvm_host_access.c). */
static int run_host_access(struct run_host *h, const struct gpuvm_run_op *op,
			   struct gpuvm_error *err)
{
	uint64_t bytes;
	if (host_access_check(h->sys, op, &bytes, err))
		return -1;
	if (h->launch_period_cycles > 0) /* not before the host gets there */
		h->t = later(h->t, h->host_free);
	h->t = host_access_gpu(h->sys, op, bytes, h->t);
	h->host_free = later(h->host_free, h->t);
	if (h->sys->uvm.oom)
		return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
	return 0;
}

/* One host operation, handed to what models it. */
static int run_op(struct run_host *h, const struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	if (op->device || op->kind == GPUVM_RUN_COPY_PEER || op->kind == GPUVM_RUN_COPY_PEER_ASYNC ||
	    op->kind == GPUVM_RUN_PEER_ACCESS)
		/* several GPUs are multi_gpu.c's: this run has one */
		return gpuvm_fail(err, "engine", 0, NULL, "the program uses GPU %u (cudaSetDevice, "
				  "a peer copy or peer access) and this run simulates one GPU: "
				  "run it on a system of several (--system dgx-h100-8)",
				  op->device ? op->device : op->peer_device);
	switch (op->kind) {
	case GPUVM_RUN_ALLOC:
		return run_alloc(h, op, err);
	case GPUVM_RUN_FREE:
		run_free(h, op);
		return 0;
	case GPUVM_RUN_COPY_H2D:
	case GPUVM_RUN_COPY_D2H:
		return run_copy(h, op, err);
	case GPUVM_RUN_COPY_H2D_ASYNC:
	case GPUVM_RUN_COPY_D2H_ASYNC:
		return run_copy_async(h, op, err);
	case GPUVM_RUN_DEVICE_SYNC:
		run_device_sync(h);
		return 0;
	case GPUVM_RUN_KERNEL:
		return run_kernel(h, op, err);
	case GPUVM_RUN_PREFETCH:
		return run_prefetch(h, op, err);
	case GPUVM_RUN_HOST_ACCESS:
		return run_host_access(h, op, err);
	case GPUVM_RUN_PEER_ACCESS: /* refused above */
		break;
	case GPUVM_RUN_ADVISE:
		if (op->advice == GPUVM_ADVISE_ACCESSED_BY)
			return gpuvm_fail(err, "engine", 0, "uvm.accessed_by",
					  "cudaMemAdviseSetAccessedBy on a system of one GPU: set "
					  "uvm.accessed_by = gpu (and uvm.advise_allocations) instead");
		if (op->advice == GPUVM_ADVISE_PREFERRED_LOCATION && op->prefetch_to_cpu)
			return gpuvm_fail(err, "engine", 0, "uvm.preferred_location",
					  "cudaMemAdviseSetPreferredLocation(cudaCpuDeviceId) on a "
					  "system of one GPU: set uvm.preferred_location = host (and "
					  "uvm.advise_allocations) instead");
		/* the one GPU as preferred location: its faults migrate the
		 * pages to it as without the advice, and a CPU access
		 * (simt_host_access) migrates them back as without it too:
		 * over PCIe the CPU cannot map GPU memory, so nvidia-uvm's
		 * uvm_va_block_select_residency skips the preferred location
		 * for the CPU's fault;
		 * read-mostly on one GPU: only the CPU's reads see it (they
		 * duplicate; uvm_host_access), the GPU's path is unchanged */
		if (op->advice == GPUVM_ADVISE_READ_MOSTLY && h->sys->uvm_on &&
		    uvm_host_read_mostly(&h->sys->uvm, op->copy_addr, op->copy_bytes))
			return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
		break;
	case GPUVM_RUN_COPY_PEER:
	case GPUVM_RUN_COPY_PEER_ASYNC:
	case GPUVM_RUN_END:
		break;
	}
	return 0;
}

/* After the last operation: the copies and the driver finish, and the
 * run's totals. */
static int run_end(struct run_host *h, struct gpuvm_error *err)
{
	struct system *sys = h->sys;
	struct gpuvm_stats *stats = h->stats;
	struct gpuvm_source *src = h->src;
	if (sys->cs.used) {
		/* the run ends when the last copy has */
		double f0 = copy_stream_drain(&sys->cs, 0), f1 = copy_stream_drain(&sys->cs, 1);
		sync_events(sys, src);
		h->t = later(h->t, later(f0, f1));
	}
	if (sys->uvm_on) {
		uvm_finish(&sys->uvm);
		stats->pcie_h2d_bytes += stats->uvm.bytes_h2d;
		stats->pcie_d2h_bytes += stats->uvm.bytes_d2h;
		if (sys->uvm.oom)
			return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
	}
	if (sys->link.oom)
		return gpuvm_fail(err, "engine", 0, NULL, "out of memory for the host link's lanes");
	memsys_sync_stats(&sys->mem);
	stats->sim_cycles = h->t;
	stats->sim_seconds = h->t / (h->cfg->clock_mhz * 1e6);
	if (src->ops->result)
		src->ops->result(src, stats->result, sizeof stats->result);
	if (src->ops->work_items)
		stats->work_items = src->ops->work_items(src);
	return 0;
}

int gpuvm_simulate(const struct gpuvm_config *cfg, struct gpuvm_source *src,
		   const struct gpuvm_sim_options *opt, struct gpuvm_stats *stats,
		   struct gpuvm_error *err)
{
	memset(stats, 0, sizeof *stats);
	double wall0 = wall_now();
	struct system sys;
	int rc = -1;
	if (system_init(&sys, cfg, stats, opt)) {
		gpuvm_fail(err, "engine", 0, NULL, "out of memory building the model");
		goto out;
	}
	struct run_host h = {
		.sys = &sys, .cfg = cfg, .src = src, .stats = stats,
		.clock_hz = cfg->clock_mhz * 1e6,
		.launch_cycles = cfg->kernel_launch_us * cfg->clock_mhz,
		.launch_period_cycles = cfg->kernel_launch_period_us * cfg->clock_mhz,
	};
	struct gpuvm_run_op op;
	for (uint32_t i = 0; i < GPUVM_RUN_EVENTS; i++)
		src->event_seconds[i] = -1;
	for (;;) {
		src->now_seconds = h.t / h.clock_hz;
		if (src->ops->next_op(src, &op, err) < 0)
			goto out;
		if (op.kind == GPUVM_RUN_END)
			break;
		if (run_op(&h, &op, err))
			goto out;
	}
	if (run_end(&h, err))
		goto out;
	rc = 0;
out:
	system_free(&sys);
	stats->wall_seconds = wall_now() - wall0;
	return rc;
}

const char *const gpuvm_stall_names[GPUVM_STALLS] = {"memory", "dependency", "barrier", "issue",
						     "fault"};

void gpuvm_stats_release(struct gpuvm_stats *stats)
{
	for (size_t i = 0; i < stats->n_kernel_list; i++)
		free(stats->kernel_list[i].counters);
	free(stats->kernel_list);
	stats->kernel_list = NULL;
	stats->n_kernel_list = 0;
	free(stats->uvm.allocs);
	stats->uvm.allocs = NULL;
	stats->uvm.n_allocs = 0;
	free(stats->uvm.util_h2d_busy_cycles);
	free(stats->uvm.util_d2h_busy_cycles);
	stats->uvm.util_h2d_busy_cycles = stats->uvm.util_d2h_busy_cycles = NULL;
	for (uint32_t l = 0; l < GPUVM_MAX_TLB_LEVELS; l++) {
		free(stats->tlb[l].instance_hits);
		free(stats->tlb[l].instance_misses);
		stats->tlb[l].instance_hits = stats->tlb[l].instance_misses = NULL;
	}
	free(stats->tlb_sharing.local_misses);
	free(stats->tlb_sharing.neighbour_held);
	stats->tlb_sharing.local_misses = stats->tlb_sharing.neighbour_held = NULL;
}