/* A run on a system of several GPUs: one struct system per GPU, each
 * built from its own configuration (gpuvm_sysdesc_gpu_config), and the
 * GPU-GPU links between them (link/peer_link.h). The program's operations
 * go to the system of their GPU (gpuvm_run_op.device).
 *
 * Contract:
 *  - Owns: the host's clock and each GPU's stream (when its last copy or
 *    kernel is done), the peer links, the run's totals; each GPU's
 *    components are its struct system's (system.h), built and driven as
 *    run_loop.c builds and drives one, through system_run_kernel and the
 *    host link's link_copy.
 *  - Time: in seconds here, in each GPU's own cycles inside its system
 *    (its clock_mhz). A launch is asynchronous: it starts when its GPU's
 *    stream is free and its launch overhead has passed (the preset's
 *    kernel_launch_us after its issue, kernel_launch_period_us of host
 *    time per call, as run_loop.c pipelines them), and the host goes on,
 *    so kernels on different GPUs overlap in simulated time. A
 *    synchronous copy (cudaMemcpy) and cudaDeviceSynchronize hold the host
 *    until their GPU is done; cudaDeviceSynchronize waits for the current
 *    GPU only, as CUDA's does; the run ends when every GPU is done.
 *  - Exactness: a kernel touches its own GPU's device memory, managed
 *    memory and, after cudaDeviceEnablePeerAccess, its peers' device
 *    memory (system/peer_access.h; without the enable the SIMT executor
 *    refuses it), so kernels of different GPUs share no resource of the
 *    model but the managed pages and the peer links that migrations,
 *    remote mappings and peer accesses take. Running each launch to its
 *    end on its own system, in host order, is the same as interleaving
 *    their events where nothing is shared. What is shared by programs
 *    without peer access, the peer links and each GPU's host link, is
 *    booked by copies, which happen between kernels in each GPU's stream
 *    order. Peer accesses of overlapping kernels book the lanes in host
 *    order of the kernels: a later kernel queues behind an earlier one's
 *    sectors, never the other way (a modelling limit, docs/systems.md
 *    "Peer access").
 *  - Managed memory (uvm/uvm_shared.h): a managed allocation is known to
 *    every GPU's driver, which consults the residency they share: a far
 *    fault on GPU g for a page GPU h holds migrates it h -> g over the
 *    peer route (NVLink / NVSwitch, else staged through host memory), and
 *    h drops the page (uvm_invalidate_taken) before its next kernel, copy
 *    or synchronisation. As the engines simulate kernels in host order, two
 *    kernels of different GPUs that overlapped in time and touched the same
 *    pages would see each other's migrations out of time order; so while a
 *    managed allocation lives, a kernel starts after every kernel already
 *    launched on the other GPUs is done (the model does not know which
 *    allocations a kernel touches before running it, so it assumes any:
 *    a modelling limit, counted in managed_serialized_kernels, and
 *    docs/systems.md "Managed memory on several GPUs").
 *  - Peer copies run on copy engines beside the GPUs' streams: a copy is
 *    ready when the host calls it, both GPUs' kernels before it are done
 *    and the copies that wrote the range it reads are in (a ring forwards
 *    what it received; a halo swap's two copies overlap); a GPU's next
 *    kernel, host copy or synchronisation
 *    waits for the copies into and out of its memory. It goes over
 *    the NVLink / NVSwitch route between them (peer_link_copy), or, where
 *    none joins them, staged through host memory: a device-to-host copy
 *    on the source GPU's host link then a host-to-device copy on the
 *    destination's (no chunk pipelining: an upper bound of a staged copy).
 *  - May call: the system builder and system_run_kernel (system.h), the
 *    system description (gpuvm/sysdesc.h: gpuvm_sysdesc_host_link, each
 *    GPU's C2C link and its Grace), the allocation table (mem/alloc_table.h), the host link's link_copy
 *    (link/link.h), the GPU-GPU links (link/peer_link.h),
 *    memsys_sync_stats (memsys/memsys.h), each GPU's UVM driver for
 *    managed memory (uvm/uvm.h: uvm_copy_in, uvm_device_sync,
 *    uvm_prefetch_range, uvm_prefetch_to_host, uvm_invalidate_taken,
 *    uvm_remove_alloc, uvm_finish) and the residency they share
 *    (uvm/uvm_shared.h), peer access (system/peer_access.h: the enable, and
 *    the peer entries of each device allocation and free).
 *  - cudaMemAdviseSetPreferredLocation: a GPU's fault on a page whose
 *    preferred location is elsewhere has the location's driver take the
 *    page (managed_place: uvm_prefetch_range, or the holder's
 *    uvm_prefetch_to_host for the CPU) while the faulting GPU's kernel
 *    runs; exact for the same reason as the serialisation: no other
 *    kernel on managed memory runs then.
 *  - Host-pinned (zero-copy) memory is in every GPU's allocation table:
 *    each GPU reads and writes it over its own host link (link.h), which
 *    no other GPU's kernels use; the CPU memory behind the links is not a
 *    shared resource of the model.
 *  - cudaMemAdvise: the program's (simt_mem_advise) and the presets'
 *    keys (uvm.preferred_location, uvm.accessed_by, applied to each new
 *    managed allocation GPU by GPU) take one path, managed_advise; a
 *    managed allocation's cudaFree drops its advice
 *    (uvm_shared_drop_ranges).
 *  - System-allocated memory (mem=system, every GPU on NVLink-C2C): as
 *    managed memory in every GPU's driver and serialised the same way;
 *    a page is placed by its first toucher (a GPU's kernel: its HBM; the
 *    host: cpu.0), once, in the residency the GPUs share, and used in
 *    place by the others (system_alloc; docs/systems.md "System-allocated
 *    memory on several GPUs"). An access whose route the system file does
 *    not describe (GPU h to another Grace's memory, cpu.0 to GPU h's HBM,
 *    h > 0) stops the run after its kernel or CPU phase, naming the route
 *    (route_check); nothing is reported of it.
 *  - Refused, with a message naming the limitation: cudaMemAdvise and
 *    cudaMemPrefetchAsync of system-allocated memory, asynchronous host
 *    copies and event waits. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/later.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/units.h"
#include "link/peer_link.h"
#include "system/host_access.h"
#include "system/peer_access.h"
#include "system/system.h"
#include "uvm/uvm_shared.h"

struct gpu_dev {
	struct system sys; /* must not move: malloc'd per GPU */
	const struct gpuvm_config *cfg;
	struct gpuvm_stats *stats;
	double hz;
	double free_s;      /* its stream (kernels, host copies) is free from here (s) */
	/* its peer copies, on copy engines of their own: the last into its
	 * memory and the last out of it end here (s) */
	double in_s, out_s;
	/* the peer copies into its memory since its last kernel, host copy or
	 * synchronisation (which waited for them all): a copy out of it that
	 * reads one of their ranges waits for it (a ring forwards what it
	 * received), one that reads other data does not (a halo swap) */
	struct incoming { uint64_t lo, hi; double end; } *inc;
	uint32_t n_inc, cap_inc;
	bool oom;
	double launch_s, period_s, copy_fixed_s;
	uint64_t device_in_use;
	bool built;
};

/* The run's managed memory: the residency the GPUs' drivers share and
 * what the serialisation of their kernels needs. */
struct managed {
	struct uvm_shared sh;
	struct gpu_dev *devs;
	uint32_t n;
	struct peer_link *pl;
	struct peer_access *pa; /* cudaDeviceEnablePeerAccess (system/peer_access.h) */
	struct gpuvm_system_stats *out;
	uint32_t live;        /* managed allocations now */
	double kernels_end_s; /* the last kernel launched while one lived ends here */
};

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int check_device(const struct gpuvm_run_op *op, uint32_t n, struct gpuvm_error *err)
{
	uint32_t bad = op->device >= n ? op->device : op->peer_device;
	if (op->device < n && op->peer_device < n)
		return 0;
	return gpuvm_fail(err, "engine", 0, NULL,
			  "the program uses GPU %u and the system has %u (GPUs 0-%u)", bad, n, n - 1);
}

/* cudaMemAdvise(addr, bytes, advice, GPU d, or the CPU when to_cpu) on
 * managed memory: the advice becomes policy data of the residency the
 * GPUs share (uvm_shared.h), read by every GPU's fault path; the one path
 * of the program's simt_mem_advise and of the presets' advice keys
 * (managed_alloc). */
static int managed_advise(struct managed *mm, uint32_t d, uint32_t advice, bool to_cpu,
			  uint64_t addr, uint64_t bytes, struct gpuvm_error *err)
{
	struct gpu_dev *devs = mm->devs;
	if (advice == GPUVM_ADVISE_PREFERRED_LOCATION) {
		/* every GPU's fault path now asks where the pages prefer to
		 * live (the accesses take the counted path) */
		if (uvm_shared_set_preferred(&mm->sh, addr, bytes,
					     to_cpu ? UVM_PROC_CPU : UVM_PROC_GPU0 + d))
			return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
		for (uint32_t e = 0; e < mm->n; e++) {
			devs[e].sys.uvm.peer_map_on = true;
			devs[e].sys.sms.uvm_counts = uvm_counts(&devs[e].sys.uvm);
		}
		return 0;
	}
	if (advice == GPUVM_ADVISE_ACCESSED_BY) {
		/* GPU d uses its pages in place from now on: its accesses take
		 * the driver's counted path */
		if (uvm_shared_accessed_by(&mm->sh, addr, bytes, UVM_PROC_GPU0 + d))
			return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
		devs[d].sys.uvm.peer_map_on = true;
		devs[d].sys.sms.uvm_counts = uvm_counts(&devs[d].sys.uvm);
		return 0;
	}
	/* read-mostly: the GPUs' later takes of its pages duplicate */
	if (uvm_shared_read_mostly(&mm->sh, addr, bytes))
		return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
	/* a store may collapse a copy now: the accesses take the driver's
	 * counted path, where that is checked */
	for (uint32_t e = 0; e < mm->n; e++) {
		devs[e].sys.uvm.collapse_on = true;
		devs[e].sys.sms.uvm_counts = uvm_counts(&devs[e].sys.uvm);
	}
	return 0;
}

/* The presets' cudaMemAdvise keys on a new managed allocation a, as if the
 * program had called cudaMemAdvise for each GPU on all of a right after
 * allocating it, GPU 0 first: uvm.accessed_by = gpu on GPU d's preset
 * adds d to the range's accessed-by set; uvm.preferred_location = host or
 * gpu sets the range's preferred location (the CPU, or GPU d), and where
 * the presets disagree the last GPU's wins, as a later
 * cudaMemAdviseSetPreferredLocation replaces an earlier one in nvidia-uvm
 * (uvm_va_policy.h: one preferred location per range, accessed-by a
 * processor mask). Each only where the GPU's uvm.advise_allocations
 * names a. */
static int preset_advice(struct managed *mm, const struct gpuvm_alloc *a, struct gpuvm_error *err)
{
	for (uint32_t d = 0; d < mm->n; d++) {
		const struct gpuvm_config *cfg = mm->devs[d].cfg;
		if ((!cfg->uvm_accessed_by && cfg->uvm_preferred_location == GPUVM_UVM_PREFERRED_NONE) ||
		    !system_advise_applies(cfg, a->name))
			continue;
		if (cfg->uvm_accessed_by &&
		    managed_advise(mm, d, GPUVM_ADVISE_ACCESSED_BY, false, a->base, a->bytes, err))
			return -1;
		if (cfg->uvm_preferred_location != GPUVM_UVM_PREFERRED_NONE &&
		    managed_advise(mm, d, GPUVM_ADVISE_PREFERRED_LOCATION,
				   cfg->uvm_preferred_location == GPUVM_UVM_PREFERRED_HOST, a->base,
				   a->bytes, err))
			return -1;
	}
	return 0;
}

/* A managed allocation: every GPU's driver keeps its pages (the
 * residency they share decides where each is). */
static int managed_alloc(struct managed *mm, const struct gpuvm_run_op *op,
			 struct gpuvm_error *err)
{
	for (uint32_t d = 0; d < mm->n; d++) {
		struct system *sys = &mm->devs[d].sys;
		if (alloc_table_add(&sys->allocs, &op->alloc, err))
			return -1;
		if (system_track_managed(sys, &op->alloc))
			return gpuvm_fail(err, op->alloc.name, 0, NULL, "out of memory for page state");
	}
	if (preset_advice(mm, &op->alloc, err))
		return -1;
	mm->live++;
	mm->out->managed = true;
	return 0;
}

/* A system allocation (malloc memory, mem=system): as managed memory,
 * every GPU's driver keeps its pages (system_track_managed gives the
 * range UVM_ADVISE_SYSTEM and the GPU's system page size), in the
 * allocation tables as managed memory (the SM layer and the walks serve
 * it so, as run_loop.c), and kernels on it are serialised as on managed
 * memory (pages shared by kernels of several GPUs). Each GPU may use
 * another's pages in place (uvm_fault.c system_in_place): the counted
 * path. Every GPU needs a coherent C2C link (ATS), as on one GPU. */
static int system_alloc(struct managed *mm, const struct gpuvm_run_op *op,
			struct gpuvm_error *err)
{
	for (uint32_t d = 0; d < mm->n; d++)
		if (!mm->devs[d].cfg->c2c_coherent)
			return gpuvm_fail(err, op->alloc.name, 0, NULL,
					  "system-allocated memory (mem=system) needs a coherent "
					  "CPU-GPU link with address translation services on every "
					  "GPU, as NVLink-C2C on Grace Hopper; GPU %u's host link is "
					  "PCIe (use a system of GH200s, or mem=managed)", d);
	struct gpuvm_alloc m = op->alloc;
	m.kind = GPUVM_ALLOC_MANAGED;
	for (uint32_t d = 0; d < mm->n; d++) {
		struct system *sys = &mm->devs[d].sys;
		if (alloc_table_add(&sys->allocs, &m, err))
			return -1;
		if (system_track_managed(sys, &op->alloc))
			return gpuvm_fail(err, op->alloc.name, 0, NULL, "out of memory for page state");
		sys->uvm.peer_map_on = true;
		sys->sms.uvm_counts = uvm_counts(&sys->uvm);
	}
	mm->live++;
	mm->out->managed = true;
	return 0;
}

/* The first access of the run whose route the system files do not
 * describe (uvm_shared.h no_route), as an error naming it; 0 when none. */
static int route_check(const struct managed *mm, struct gpuvm_error *err)
{
	const struct uvm_shared_no_route *r = &mm->sh.no_route;
	if (!r->set)
		return 0;
	static const char why[] =
		"; the run stops rather than guess a route (docs/systems.md, \"System-allocated "
		"memory on several GPUs\"; issue 78): place the pages from the GPU that uses them "
		"(a kernel's first touch; c2c.first_touch=gpu for the host's uploads), or use "
		"mem=managed";
	unsigned long long a = (unsigned long long)r->addr;
	if (r->kind == UVM_ROUTE_GPU_TO_CPU)
		return gpuvm_fail(err, "engine", 0, NULL,
				  "GPU %u reached system-allocated memory at 0x%llx in cpu.%u's "
				  "memory, and the system file describes no route from gpu.%u to "
				  "cpu.%u (only gpu.%u's own NVLink-C2C link to its Grace: no "
				  "Grace-Grace link kind, nor a rule through another GPU's C2C)%s",
				  r->gpu, a, r->node, r->gpu, r->node, r->gpu, why);
	if (r->kind == UVM_ROUTE_CPU_TO_GPU)
		return gpuvm_fail(err, "engine", 0, NULL,
				  "the CPU (the host thread, on cpu.%u) reached system-allocated "
				  "memory at 0x%llx in GPU %u's HBM, and the system file describes "
				  "no route from cpu.%u to gpu.%u (cpu.%u's NVLink-C2C link reaches "
				  "its own GPU only; no Grace-Grace link kind)%s",
				  r->node, a, r->gpu, r->node, r->gpu, r->node, why);
	return gpuvm_fail(err, "engine", 0, NULL,
			  "GPU %u reached system-allocated memory at 0x%llx in GPU %u's HBM, and "
			  "no NVLink or NVSwitch route joins gpu.%u and gpu.%u in the system file%s",
			  r->gpu, a, r->node, r->gpu, r->node, why);
}

/* cudaMemcpy into system-allocated memory: the host writing its own
 * memory. Its first touch places the pages on the host thread's node,
 * cpu.0 (uvm_host_touch), at that memory's rate (c2c.cpu_memory_gb_s of
 * the GPU whose Grace cpu.0 is), after every kernel on shared pages; with
 * c2c.first_touch = gpu the program initialises it in a kernel instead:
 * nothing (as run_loop.c). */
static int system_host_write(struct managed *mm, struct gpu_dev *g, const struct gpuvm_run_op *op,
			     double *host_s, struct gpuvm_error *err)
{
	if (g->cfg->c2c_first_touch_gpu)
		return 0;
	const struct gpuvm_config *cpu0 = g->cfg;
	for (uint32_t d = 0; d < mm->n; d++)
		if (mm->sh.grace[d] == 0) {
			cpu0 = mm->devs[d].cfg;
			break;
		}
	double t = later(*host_s, mm->kernels_end_s);
	if (uvm_host_touch(&g->sys.uvm, op->copy_addr, op->copy_bytes))
		return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
	double end = t + (double)op->copy_bytes / (cpu0->c2c_cpu_memory_gb_s * 1e9);
	g->stats->copy_cycles += (end - t) * g->hz;
	*host_s = end;
	mm->kernels_end_s = later(mm->kernels_end_s, end);
	return 0;
}

static int alloc_op(struct gpu_dev *g, uint32_t d, const struct gpuvm_run_op *op,
		    struct managed *mm, struct gpuvm_error *err)
{
	if (op->alloc.kind == GPUVM_ALLOC_MANAGED)
		return managed_alloc(mm, op, err);
	if (op->alloc.kind == GPUVM_ALLOC_SYSTEM)
		return system_alloc(mm, op, err);
	if (op->alloc.kind == GPUVM_ALLOC_HOST_PINNED) {
		/* zero-copy memory (cudaHostAlloc, portable): every GPU maps
		 * it and reaches it over its own host link */
		for (uint32_t e = 0; e < mm->n; e++)
			if (alloc_table_add(&mm->devs[e].sys.allocs, &op->alloc, err))
				return -1;
		return 0;
	}
	const struct gpuvm_config *cfg = g->cfg;
	if (!op->alloc.extent_only && cfg->device_memory_bytes &&
	    op->alloc.bytes > cfg->device_memory_bytes - g->device_in_use) {
		char need[32], used[32], cap[32];
		gpuvm_format_size(op->alloc.bytes, need, sizeof need);
		gpuvm_format_size(g->device_in_use, used, sizeof used);
		gpuvm_format_size(cfg->device_memory_bytes, cap, sizeof cap);
		return gpuvm_fail(err, op->alloc.name, 0, NULL,
				  "cudaMalloc of %s on GPU %u does not fit: %s of its %s of device "
				  "memory (gpu.memory) are in use (out of memory)", need, d, used, cap);
	}
	if (alloc_table_add(&g->sys.allocs, &op->alloc, err) ||
	    peer_access_alloc(mm->pa, d, &op->alloc, err))
		return -1;
	if (!op->alloc.extent_only)
		g->device_in_use += op->alloc.bytes;
	return 0;
}

static void free_op(struct gpu_dev *g, const struct gpuvm_run_op *op, struct managed *mm)
{
	const struct gpuvm_alloc *fa = alloc_table_find(&g->sys.allocs, op->alloc.base);
	if (fa && fa->kind == GPUVM_ALLOC_MANAGED && fa->base == op->alloc.base) {
		uint64_t fa_base = fa->base, fa_bytes = fa->bytes; /* fa goes with the table entry */
		bool system_mem = uvm_is_system(&mm->devs[0].sys.uvm, fa_base);
		/* gone from every GPU: each driver's frames return */
		for (uint32_t d = 0; d < mm->n; d++) {
			struct system *sys = &mm->devs[d].sys;
			uvm_invalidate_taken(&sys->uvm);
			uvm_remove_alloc(&sys->uvm, op->alloc.base);
			alloc_table_remove(&sys->allocs, op->alloc.base);
		}
		/* its cudaMemAdvise goes with it (nvidia-uvm keeps a range's
		 * policy in its va_range, destroyed by the free) */
		uvm_shared_drop_ranges(&mm->sh, fa_base, fa_bytes);
		if (system_mem) /* a later allocation there starts untouched */
			uvm_shared_forget(&mm->sh, fa_base, fa_bytes);
		mm->live--;
		return;
	}
	if (fa && fa->kind == GPUVM_ALLOC_HOST_PINNED && fa->base == op->alloc.base) {
		for (uint32_t d = 0; d < mm->n; d++)
			alloc_table_remove(&mm->devs[d].sys.allocs, op->alloc.base);
		return;
	}
	if (fa && !fa->extent_only && fa->base == op->alloc.base)
		g->device_in_use -= fa->bytes < g->device_in_use ? fa->bytes : g->device_in_use;
	alloc_table_remove(&g->sys.allocs, op->alloc.base);
	peer_access_free_alloc(mm->pa, op->device, op->alloc.base);
}

/* A synchronous host copy on GPU g's host link from t (seconds): its end. */
static double host_copy(struct gpu_dev *g, bool h2d, double t, uint64_t bytes)
{
	double c0 = t * g->hz;
	double end = link_copy(&g->sys.link, h2d ? LINK_H2D : LINK_D2H, c0, bytes);
	if (h2d)
		g->stats->pcie_h2d_bytes += bytes;
	else
		g->stats->pcie_d2h_bytes += bytes;
	g->stats->copy_cycles += end - c0;
	return end / g->hz;
}

static int kernel_op(struct gpu_dev *g, const struct gpuvm_run_op *op, double *host_s,
		     struct managed *mm, struct gpuvm_error *err)
{
	if (op->wait_event)
		return gpuvm_fail(err, "engine", 0, NULL, "cudaStreamWaitEvent on a system of "
				  "several GPUs is not modelled yet");
	/* run_loop.c's launch: the kernel starts launch_s after its issue or
	 * when the GPU is free; the host goes on one period later */
	double issue = *host_s;
	/* after its stream's work and the peer copies into and out of its
	 * memory (the program's halos arrive before it reads them and leave
	 * before it overwrites them: cudaStreamWaitEvent on the copies') */
	double t0 = later(later(g->free_s, g->in_s), later(g->out_s, issue));
	if (mm->live) {
		/* managed memory: after every kernel launched before it (the
		 * contract's serialisation), with the pages others took dropped */
		if (mm->kernels_end_s > t0 && mm->kernels_end_s > g->free_s)
			mm->out->managed_serialized_kernels++;
		t0 = later(t0, mm->kernels_end_s);
		uvm_invalidate_taken(&g->sys.uvm);
	}
	double start = g->period_s > 0 ? later(issue + g->launch_s, t0) : t0 + g->launch_s;
	double end_c = 0, t0_c = t0 * g->hz;
	if (system_run_kernel(&g->sys, op->kernel, t0_c, (start - t0) * g->hz, &end_c, err))
		return -1;
	g->stats->kernel_cycles += end_c - t0_c;
	g->free_s = end_c / g->hz;
	if (mm->live)
		mm->kernels_end_s = later(mm->kernels_end_s, g->free_s);
	g->n_inc = 0; /* it waited for them; copies out of it come after it */
	*host_s = issue + g->period_s;
	return 0;
}

static double peer_op(struct gpu_dev *devs, struct peer_link *pl, const struct gpuvm_run_op *op,
		      double host_s, struct gpuvm_system_stats *out)
{
	struct gpu_dev *dst = &devs[op->device], *src = &devs[op->peer_device];
	/* after the kernels of both GPUs and the copies that brought src the
	 * data it sends (a ring forwards what it received) */
	double t = later(host_s, later(dst->free_s, src->free_s));
	uint64_t lo = op->peer_addr, hi = op->peer_addr + op->copy_bytes;
	for (uint32_t i = 0; i < src->n_inc; i++)
		if (src->inc[i].lo < hi && lo < src->inc[i].hi)
			t = later(t, src->inc[i].end);
	double end;
	if (op->device == op->peer_device) {
		/* within one GPU: its fixed time only (a device-to-device
		 * copy's DRAM traffic is not modelled; the workloads make none) */
		end = t + dst->copy_fixed_s;
	} else if (peer_link_joined(pl, op->peer_device, op->device)) {
		end = peer_link_copy(pl, op->peer_device, op->device, t, op->copy_bytes,
				     src->copy_fixed_s);
		out->peer_nvlink_bytes += op->copy_bytes;
	} else {
		/* staged: down the source GPU's host link, up the destination's */
		double mid = host_copy(src, false, t, op->copy_bytes);
		end = host_copy(dst, true, mid, op->copy_bytes);
		out->peer_host_bytes += op->copy_bytes;
	}
	out->peer_copies++;
	out->peer_copy_seconds += end - t;
	dst->in_s = later(dst->in_s, end);
	src->out_s = later(src->out_s, end);
	if (dst->n_inc == dst->cap_inc) {
		uint32_t cap = dst->cap_inc ? 2 * dst->cap_inc : 16;
		struct incoming *n = realloc(dst->inc, cap * sizeof *n);
		if (!n) {
			dst->oom = true;
			return end;
		}
		dst->inc = n;
		dst->cap_inc = cap;
	}
	dst->inc[dst->n_inc++] = (struct incoming){op->copy_addr, op->copy_addr + op->copy_bytes, end};
	return end;
}

/* cudaMemPrefetchAsync on GPU g's stream (to g, or to the CPU from g):
 * after its stream's work and, as it moves managed pages, after every
 * kernel or prefetch on them so far (the serialisation of the contract);
 * the host goes on. */
static int prefetch_op(struct gpu_dev *g, const struct gpuvm_run_op *op, double host_s,
		       struct managed *mm, struct gpuvm_error *err)
{
	const struct gpuvm_alloc *ca = alloc_table_find(&g->sys.allocs, op->copy_addr);
	if (!ca || ca->kind != GPUVM_ALLOC_MANAGED || !g->sys.uvm_on ||
	    uvm_is_system(&g->sys.uvm, op->copy_addr))
		return gpuvm_fail(err, "engine", 0, NULL,
				  "cudaMemPrefetchAsync of memory that is not managed (of "
				  "system-allocated memory on several GPUs: not modelled)");
	double t = later(later(host_s, g->free_s), later(g->in_s, g->out_s));
	t = later(t, mm->kernels_end_s);
	uint64_t room = ca->base + ca->bytes - op->copy_addr;
	uint64_t bytes = op->copy_bytes < room ? op->copy_bytes : room;
	uvm_invalidate_taken(&g->sys.uvm);
	double end = op->prefetch_to_cpu ? uvm_prefetch_to_host(&g->sys.uvm, op->copy_addr, bytes,
								t * g->hz)
					 : uvm_prefetch_range(&g->sys.uvm, op->copy_addr, bytes,
							      t * g->hz);
	g->free_s = end / g->hz;
	mm->kernels_end_s = later(mm->kernels_end_s, g->free_s);
	return 0;
}

/* A migration of bytes from GPU processor sp to dp (uvm_shared.peer_copy),
 * ready at t seconds: over their NVLink / NVSwitch route, or staged
 * through host memory (down sp's host link, up dp's) where none joins
 * them. No call overhead: the driver's copy engine work is in its fault
 * handling time. */
static double managed_peer_copy(void *ctx, uint32_t sp, uint32_t dp, double t, uint64_t bytes)
{
	struct managed *mm = ctx;
	uint32_t s = sp - UVM_PROC_GPU0, d = dp - UVM_PROC_GPU0;
	if (peer_link_joined(mm->pl, s, d)) {
		mm->out->uvm_peer_nvlink_bytes += bytes;
		return peer_link_copy(mm->pl, s, d, t, bytes, 0);
	}
	struct gpu_dev *src = &mm->devs[s], *dst = &mm->devs[d];
	double mid = link_copy(&src->sys.link, LINK_D2H, t * src->hz, bytes) / src->hz;
	src->stats->pcie_d2h_bytes += bytes;
	dst->stats->pcie_h2d_bytes += bytes;
	mm->out->uvm_peer_host_bytes += bytes;
	return link_copy(&dst->sys.link, LINK_H2D, mid * dst->hz, bytes) / dst->hz;
}

/* Makes [addr, addr + bytes) resident on processor loc, its preferred
 * location, ready at t seconds (uvm_shared.place, on another GPU's fault):
 * a GPU's driver takes the pages as a prefetch does (from the host over
 * its host link, from the GPU holding them over the peer route); the CPU
 * gets them back from the GPU that holds them. The mover's driver is idle:
 * kernels on managed memory do not overlap (the contract). */
static double managed_place(void *ctx, uint32_t loc, uint64_t addr, uint64_t bytes, double t)
{
	struct managed *mm = ctx;
	uint32_t holder = loc;
	if (loc == UVM_PROC_CPU) {
		const struct uvm_shared_blk *s = uvm_shared_block(&mm->sh, addr);
		uint32_t p = (uint32_t)((addr >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
		holder = s ? s->owner[p] : UVM_PROC_CPU;
		if (holder == UVM_PROC_CPU)
			return t;
	}
	struct gpu_dev *g = &mm->devs[holder - UVM_PROC_GPU0];
	uvm_invalidate_taken(&g->sys.uvm);
	double end = loc == UVM_PROC_CPU ? uvm_prefetch_to_host(&g->sys.uvm, addr, bytes, t * g->hz)
					 : uvm_prefetch_range(&g->sys.uvm, addr, bytes, t * g->hz);
	return end / g->hz;
}

/* A CPU phase touching managed memory (simt_host_access): after every
 * GPU's work so far (the program synchronised, as CUDA requires before
 * the CPU touches managed memory), each GPU's driver hands the CPU the
 * pages it holds (uvm_host_access), one GPU after the other, the host
 * waiting. */
static int host_access_op(struct gpu_dev *devs, uint32_t n, const struct gpuvm_run_op *op,
			  double *host_s, struct managed *mm, struct gpuvm_error *err)
{
	uint64_t bytes;
	if (host_access_check(&devs[op->device].sys, op, &bytes, err))
		return -1;
	double t = later(*host_s, mm->kernels_end_s);
	for (uint32_t d = 0; d < n && bytes; d++) {
		struct gpu_dev *g = &devs[d];
		t = later(t, g->free_s);
		uvm_invalidate_taken(&g->sys.uvm);
		t = host_access_gpu(&g->sys, op, bytes, t * g->hz) / g->hz;
		if (g->sys.uvm.oom || mm->sh.oom)
			return gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
	}
	*host_s = t;
	mm->kernels_end_s = later(mm->kernels_end_s, t);
	return 0;
}

static int run_ops(struct gpu_dev *devs, uint32_t n, struct peer_link *pl,
		   struct gpuvm_source *src, struct gpuvm_system_stats *out, struct managed *mm,
		   double *host_out, struct gpuvm_error *err)
{
	double host_s = 0;
	struct gpuvm_run_op op;
	for (uint32_t i = 0; i < GPUVM_RUN_EVENTS; i++)
		src->event_seconds[i] = -1;
	for (;;) {
		src->now_seconds = host_s;
		if (src->ops->next_op(src, &op, err) < 0)
			return -1;
		if (op.kind == GPUVM_RUN_END)
			break;
		if (check_device(&op, n, err))
			return -1;
		struct gpu_dev *g = &devs[op.device];
		switch (op.kind) {
		case GPUVM_RUN_ALLOC:
			if (alloc_op(g, op.device, &op, mm, err))
				return -1;
			break;
		case GPUVM_RUN_FREE:
			free_op(g, &op, mm);
			break;
		case GPUVM_RUN_COPY_H2D:
		case GPUVM_RUN_COPY_D2H: {
			double t = later(later(host_s, g->free_s), later(g->in_s, g->out_s));
			bool h2d = op.kind == GPUVM_RUN_COPY_H2D;
			const struct gpuvm_alloc *ca = alloc_table_find(&g->sys.allocs, op.copy_addr);
			if (h2d && ca && ca->kind == GPUVM_ALLOC_MANAGED &&
			    uvm_is_system(&g->sys.uvm, op.copy_addr)) {
				if (system_host_write(mm, g, &op, &host_s, err))
					return -1;
				break;
			}
			bool into_managed = h2d && ca && ca->kind == GPUVM_ALLOC_MANAGED;
			if (into_managed) /* it changes pages other GPUs' kernels use */
				t = later(t, mm->kernels_end_s);
			g->free_s = host_copy(g, h2d, t, op.copy_bytes);
			if (into_managed) {
				/* cudaMemcpy into managed memory leaves its pages on
				 * the GPU (as run_loop.c) */
				uint64_t room = ca->base + ca->bytes - op.copy_addr;
				uvm_invalidate_taken(&g->sys.uvm);
				g->free_s = uvm_copy_in(&g->sys.uvm, op.copy_addr,
							op.copy_bytes < room ? op.copy_bytes : room,
							t * g->hz, g->free_s * g->hz) / g->hz;
			}
			host_s = g->free_s; /* the call returns with the copy done */
			g->n_inc = 0;
			break;
		}
		case GPUVM_RUN_COPY_H2D_ASYNC:
		case GPUVM_RUN_COPY_D2H_ASYNC:
			return gpuvm_fail(err, "engine", 0, NULL, "asynchronous host copies on a "
					  "system of several GPUs are not modelled yet (use "
					  "simt_upload / simt_download)");
		case GPUVM_RUN_KERNEL:
			if (kernel_op(g, &op, &host_s, mm, err) || route_check(mm, err))
				return -1;
			break;
		case GPUVM_RUN_DEVICE_SYNC:
			host_s = later(later(host_s, g->free_s), later(g->in_s, g->out_s));
			if (g->sys.uvm_on) {
				/* uvm.device_sync: its write-backs, a copy after its kernels */
				uvm_invalidate_taken(&g->sys.uvm);
				double end = uvm_device_sync(&g->sys.uvm, host_s * g->hz) / g->hz;
				g->stats->copy_cycles += (end - host_s) * g->hz;
				host_s = g->free_s = later(g->free_s, end);
			}
			g->n_inc = 0;
			break;
		case GPUVM_RUN_COPY_PEER:
		case GPUVM_RUN_COPY_PEER_ASYNC: {
			double end = peer_op(devs, pl, &op, host_s, out);
			if (op.kind == GPUVM_RUN_COPY_PEER)
				host_s = end;
			break;
		}
		case GPUVM_RUN_PREFETCH:
			if (prefetch_op(g, &op, host_s, mm, err))
				return -1;
			break;
		case GPUVM_RUN_HOST_ACCESS:
			if (host_access_op(devs, n, &op, &host_s, mm, err) || route_check(mm, err))
				return -1;
			break;
		case GPUVM_RUN_PEER_ACCESS:
			/* g's kernels reach op.peer_device's device memory */
			if (peer_access_enable(mm->pa, op.device, op.peer_device,
					       &devs[op.peer_device].sys.allocs,
					       &g->sys.sms.port.peer, err))
				return -1;
			break;
		case GPUVM_RUN_ADVISE: {
			const struct gpuvm_alloc *ca = alloc_table_find(&g->sys.allocs, op.copy_addr);
			if (!ca || ca->kind != GPUVM_ALLOC_MANAGED)
				return gpuvm_fail(err, "engine", 0, NULL,
						  "cudaMemAdvise of memory that is not managed");
			if (uvm_is_system(&g->sys.uvm, op.copy_addr))
				return gpuvm_fail(err, "engine", 0, NULL, "cudaMemAdvise of "
						  "system-allocated memory on several GPUs is not "
						  "modelled yet");
			if (managed_advise(mm, op.device, op.advice, op.prefetch_to_cpu, op.copy_addr,
					   op.copy_bytes, err))
				return -1;
			break;
		}
		case GPUVM_RUN_END:
			break;
		}
	}
	*host_out = host_s;
	return 0;
}

int gpuvm_simulate_system(const struct gpuvm_sysdesc *desc,
			  const struct gpuvm_config *const *cfgs, struct gpuvm_source *src,
			  const struct gpuvm_sim_options *opt, struct gpuvm_system_stats *out,
			  struct gpuvm_error *err)
{
	double wall0 = wall_now();
	uint32_t n = desc->n_gpus;
	out->n_gpus = n;
	out->sim_seconds = out->peer_copy_seconds = 0;
	out->peer_copies = out->peer_nvlink_bytes = out->peer_host_bytes = 0;
	out->result[0] = 0;
	out->work_items = 0;
	int rc = -1;
	struct peer_link pl;
	memset(&pl, 0, sizeof pl);
	struct peer_access pa;
	memset(&pa, 0, sizeof pa);
	struct managed mm = {.n = n, .pl = &pl, .pa = &pa, .out = out};
	out->managed = false;
	out->uvm_peer_pages = out->uvm_peer_nvlink_bytes = out->uvm_peer_host_bytes = 0;
	out->uvm_invalidated_pages = out->managed_serialized_kernels = 0;
	out->uvm_duplicated_pages = out->uvm_collapsed_pages = out->uvm_peer_remote_bytes = 0;
	/* struct system's components sit on lines of their own (_Alignas(64)) */
	size_t bytes = ((n * sizeof(struct gpu_dev) + 63) / 64) * 64;
	struct gpu_dev *devs = aligned_alloc(_Alignof(struct gpu_dev), bytes);
	if (devs)
		memset(devs, 0, bytes);
	/* each GPU's progress is its own; a line per GPU would interleave */
	struct gpuvm_sim_options o = *opt;
	o.progress = false;
	o.progress_fn = NULL;
	mm.devs = devs;
	if (!devs || peer_link_init(&pl, desc) || uvm_shared_init(&mm.sh, n) ||
	    peer_access_init(&pa, &pl, n)) {
		gpuvm_fail(err, "engine", 0, NULL, "out of memory building the model");
		goto out;
	}
	for (uint32_t d = 0; d < n; d++) {
		struct gpu_dev *g = &devs[d];
		g->cfg = cfgs[d];
		g->stats = &out->gpu[d];
		memset(g->stats, 0, sizeof *g->stats);
		g->hz = g->cfg->clock_mhz * 1e6;
		g->launch_s = g->cfg->kernel_launch_us * 1e-6;
		g->period_s = g->cfg->kernel_launch_period_us * 1e-6;
		/* a peer copy's call, DMA set-up and completion: the part's
		 * measured cudaMemcpy fixed time (pcie.copy_latency_us, else the
		 * link latency as link.c takes it) */
		g->copy_fixed_s = g->cfg->pcie_copy_latency_us > 0 ? g->cfg->pcie_copy_latency_us * 1e-6
								    : g->cfg->pcie_latency_ns * 1e-9;
		g->built = true;
		if (system_init(&g->sys, g->cfg, g->stats, &o)) {
			gpuvm_fail(err, "engine", 0, NULL, "out of memory building GPU %u", d);
			goto out;
		}
		/* its driver, made at the first managed allocation, shares the
		 * residency of managed pages as processor d + 1 */
		g->sys.uvm_shared = &mm.sh;
		g->sys.uvm_proc = UVM_PROC_GPU0 + d;
		/* its side of peer access: a request's latency where the
		 * route gives none is the GPU's remote access's */
		struct peer_gpu *pg = &pa.gpus[d];
		pg->allocs = &g->sys.allocs;
		pg->hz = g->hz;
		pg->fallback_s = g->cfg->uvm_remote_latency_cycles / g->hz;
		pg->memory_s = (g->cfg->l2_hit_latency_cycles + g->cfg->dram_latency_cycles) / g->hz;
		pg->st = &g->stats->peer;
	}
	/* each GPU's Grace: the CPU at the other end of its NVLink-C2C link
	 * (system-allocated memory's routes, uvm_shared.h) */
	for (uint32_t d = 0; d < n && d < 64; d++) {
		const struct gpuvm_sys_link *l = gpuvm_sysdesc_host_link(desc, d);
		for (uint32_t e = 0; l && l->kind == GPUVM_LINK_NVLINK_C2C && e < l->n_ends; e++)
			if (l->ends[e].cpu)
				mm.sh.grace[d] = (uint8_t)l->ends[e].index;
	}
	mm.sh.peer_copy = managed_peer_copy;
	mm.sh.place = managed_place;
	mm.sh.ctx = &mm;
	/* the GPU memory each GPU maps (a preferred location's): over an
	 * NVLink / NVSwitch route; staged copies are no peer mapping */
	for (uint32_t a = 0; a < n && a < 64; a++)
		for (uint32_t b = 0; b < n && b < 64; b++)
			if (a != b && peer_link_joined(&pl, a, b))
				mm.sh.reach[a] |= 1ull << b;
	double host_s = 0;
	if (run_ops(devs, n, &pl, src, out, &mm, &host_s, err))
		goto out;
	double end = host_s;
	for (uint32_t d = 0; d < n; d++) {
		struct gpu_dev *g = &devs[d];
		if (g->sys.uvm_on) {
			/* the pages others took are not this GPU's at the end */
			uvm_invalidate_taken(&g->sys.uvm);
			uvm_finish(&g->sys.uvm);
			g->stats->pcie_h2d_bytes += g->stats->uvm.bytes_h2d;
			g->stats->pcie_d2h_bytes += g->stats->uvm.bytes_d2h;
		}
		if ((g->sys.uvm_on && g->sys.uvm.oom) || mm.sh.oom) {
			gpuvm_fail(err, "engine", 0, NULL, "out of memory for page state");
			goto out;
		}
		if (g->sys.link.oom || pl.oom || g->oom) {
			gpuvm_fail(err, "engine", 0, NULL, "out of memory for the links' lanes");
			goto out;
		}
		memsys_sync_stats(&g->sys.mem);
		double done = later(g->free_s, later(g->in_s, g->out_s));
		g->stats->sim_cycles = done * g->hz;
		g->stats->sim_seconds = done;
		end = later(end, done);
	}
	out->sim_seconds = end;
	out->uvm_peer_pages = mm.sh.peer_pages;
	out->uvm_invalidated_pages = mm.sh.invalidated_pages;
	out->uvm_duplicated_pages = mm.sh.duplicated_pages;
	out->uvm_collapsed_pages = mm.sh.collapsed_pages;
	out->uvm_peer_remote_bytes = mm.sh.peer_remote_bytes;
	if (src->ops->result)
		src->ops->result(src, out->result, sizeof out->result);
	if (src->ops->work_items)
		out->work_items = src->ops->work_items(src);
	rc = 0;
out:
	for (uint32_t d = 0; devs && d < n; d++)
		if (devs[d].built) {
			system_free(&devs[d].sys);
			free(devs[d].inc);
		}
	peer_link_free(&pl);
	peer_access_free(&pa);
	if (mm.sh.blocks.e)
		uvm_shared_free(&mm.sh);
	free(devs);
	out->wall_seconds = wall_now() - wall0;
	for (uint32_t d = 0; d < n; d++)
		out->gpu[d].wall_seconds = out->wall_seconds;
	return rc;
}
