/* A GPU's ATS faults on system-allocated memory (c2c.coherent,
 * docs/systems.md "Grace Hopper memory"): its first touch
 * (uvm_system_first_touch), where a page not resident here is
 * (uvm_system_on_cpu), and the prefetch nvidia-uvm applies to a first
 * touch (uvm_ats_prefetch), described here.
 *
 * The driver services such a fault (an ATS fault) inside the replayable
 * batch, one 2 MiB VA block at a time (uvm_gpu_replayable_faults.c
 * service_fault_batch_ats_sub_vma calling uvm_ats_service_faults,
 * uvm_ats_faults.c), and since driver 550.40.07 (CUDA 12.4's driver is
 * 550.54.14) it widens the faulted pages with its prefetcher before
 * populating them (uvm_ats_faults.c ats_compute_prefetch ->
 * uvm_perf_prefetch_compute_ats, uvm_perf_prefetch.c):
 *  - the tree's leaves are the kernel's pages (PAGE_SIZE: the system page,
 *    c2c.system_page_bytes), over the VA block clipped to the vma
 *    (uvm_ats_region_from_vma: here the allocation), its nodes aligned to
 *    the region's first page and clipped to its end
 *    (init_bitmap_tree_from_region; uvm_perf_tree_iter_leaf_range);
 *  - a leaf counts when it is faulted or already resident on the faulting
 *    GPU's node (ats_compute_residency_mask: page_to_nid of each valid
 *    PTE); pages the CPU placed do not count;
 *  - from the faulted leaf up, the highest node with count * 100 >
 *    pages * uvm_perf_prefetch_threshold is prefetched
 *    (compute_prefetch_region), with no big-page growth step (that is the
 *    managed path's update_bitmap_tree_from_va_block);
 *  - pages already mapped are skipped (service_ats_requests:
 *    skip_mapped), so the CPU's pages stay where they are (on several
 *    GPUs also those another GPU placed: the shared residency).
 * The prefetched pages are populated on the GPU's node with the faulted
 * one, in the same batch (uvm_migrate_pageable): new pages, nothing
 * crosses the link. The whole-region first-touch case of
 * ats_compute_prefetch needs a vma memory policy (has_preferred_location,
 * ats_batch_select_residency), which plain malloc memory lacks.
 * The driver's prefetcher is one switch for both paths
 * (uvm_perf_prefetch_enable, uvm_perf_prefetch_threshold): the ATS
 * prefetch is on when uvm.prefetcher is tree-driver, with its threshold
 * (uvm.c). */
#include "uvm/uvm_impl.h"

/* Whether page q of b, in system range r and not resident on this GPU, is
 * mapped already (skip_mapped): the CPU placed it, or, on several GPUs,
 * any processor did (the residency they share: another GPU's first touch
 * is mapped too, and its page stays in that GPU's HBM). */
static bool placed_elsewhere(const struct uvm *u, const struct uvm_block *b,
			     const struct uvm_range *r, uint32_t q)
{
	if (__builtin_expect(!u->shared, 1))
		return uvm_range_host_touched(r, (b->base >> UVM_PAGE_SHIFT) + q - (r->base >> UVM_PAGE_SHIFT));
	enum uvm_sys_where where;
	uint32_t who;
	return uvm_system_where(u, b, q, &where, &who) && where != UVM_SYS_UNPLACED;
}

void uvm_ats_prefetch(struct uvm *u, struct uvm_block *b, uint32_t p, double ready)
{
	double threshold_percent = u->ats_prefetch_threshold_percent;
	const struct uvm_range *r = uvm_system_range(u, b, p);
	if (threshold_percent <= 0 || !r)
		return;
	/* the allocation's 4 KiB pages in this block: [lo, hi) */
	uint64_t base_page = b->base >> UVM_PAGE_SHIFT, r_first = r->base >> UVM_PAGE_SHIFT;
	uint64_t r_end = (r->base + r->bytes + UVM_PAGE_BYTES - 1) >> UVM_PAGE_SHIFT;
	uint32_t lo = r_first > base_page ? (uint32_t)(r_first - base_page) : 0;
	uint32_t hi = r_end - base_page < UVM_BLOCK_PAGES ? (uint32_t)(r_end - base_page) : UVM_BLOCK_PAGES;
	uint32_t sp = u->sys_page_pages;
	uint32_t leaf0 = lo / sp, n_leaves = (hi + sp - 1) / sp - leaf0, faulted = p / sp - leaf0;
	/* the tree's leaves: resident on the GPU (its first page in the
	 * allocation stands for the system page, placed whole) or faulted */
	uvm_mask tree = {0};
	for (uint32_t k = 0; k < n_leaves; k++) {
		uint32_t q = (leaf0 + k) * sp;
		if (q < lo)
			q = lo;
		if (k == faulted || mask_test(b->resident, q))
			mask_set(tree, k);
	}
	uint32_t best_lo = faulted, best_hi = faulted + 1;
	for (uint32_t size = 1;; size *= 2) {
		uint32_t a = faulted & ~(size - 1);
		uint32_t z = a + size < n_leaves ? a + size : n_leaves;
		if (mask_count_range(tree, a, z) * 100.0 > (z - a) * threshold_percent) {
			best_lo = a;
			best_hi = z;
		}
		if (size >= n_leaves)
			break;
	}
	for (uint32_t k = best_lo; k < best_hi; k++) {
		uint32_t q = (leaf0 + k) * sp;
		if (q < lo)
			q = lo;
		if (k == faulted || mask_test(b->resident, q) || placed_elsewhere(u, b, r, q))
			continue; /* the faulted page is placed already; mapped pages skipped */
		uint32_t end = (leaf0 + k + 1) * sp < hi ? (leaf0 + k + 1) * sp : hi;
		uvm_copy_in(u, b->base + ((uint64_t)q << UVM_PAGE_SHIFT), (uint64_t)(end - q) << UVM_PAGE_SHIFT,
			    ready, ready);
	}
}

/* System-allocated page p of b, not resident here: whether it is in a
 * CPU's memory (the host touched it first). Several GPUs: on this GPU's
 * own Grace it is read over this GPU's C2C link; on another Grace the
 * system files describe no route (through the Grace-Grace interconnect,
 * or over NVLink to that Grace's GPU and its C2C: docs/systems.md): the
 * access is recorded for the engine to stop the run, and served as if
 * local meanwhile (its time is never reported). */
bool uvm_system_on_cpu(struct uvm *u, const struct uvm_block *b, uint32_t p)
{
	enum uvm_sys_where where;
	uint32_t node;
	if (!uvm_system_where(u, b, p, &where, &node) || where != UVM_SYS_CPU)
		return false;
	if (u->shared && u->shared->grace[u->proc - UVM_PROC_GPU0] != node)
		uvm_shared_no_route(u->shared, UVM_ROUTE_GPU_TO_CPU, u->proc - UVM_PROC_GPU0, node,
				    b->base + ((uint64_t)p << UVM_PAGE_SHIFT));
	return true;
}

/* The GPU touches page p of b, system memory no one touched before, at t:
 * the system page it lies in is placed in device memory (first touch by
 * the touching processor: the GPU's memory is a NUMA node of its own on
 * Grace Hopper, Schieffer et al. ICPP'24). The translation misses in the
 * system page table and the fault is serviced inside the replayable
 * fault batch (nvidia-uvm uvm_gpu_replayable_faults.c calls
 * uvm_ats_service_faults, uvm_ats_faults.c, which populates the page on
 * the faulting GPU's node, with what its prefetcher adds: uvm_ats.c):
 * one of the handler's batches at the preset's fault latency (no GH200
 * figure was read); nothing crosses the link: the pages are new.
 * Returns when p is there. */
double uvm_system_first_touch(struct uvm *u, struct uvm_block *b, uint32_t p, double t)
{
	struct gpuvm_uvm_stats *st = u->st;
	double latency = u->spec.posthoc ? 0 : u->spec.fault_latency_cycles; /* uvm_fault.c service_latency */
	double start = uvm_batch_take(&u->faults, t, latency, u->polled, u->spec.batch_max, &st->fault_batches);
	double ready = start + latency;
	st->far_faults++;
	st->stall_fault_cycles += ready - t;
	st->posthoc_fault_cycles += u->spec.fault_latency_cycles;
	uint32_t lo = p / u->sys_page_pages * u->sys_page_pages;
	uvm_copy_in(u, b->base + ((uint64_t)lo << UVM_PAGE_SHIFT),
		    (uint64_t)u->sys_page_pages << UVM_PAGE_SHIFT, ready, ready);
	uvm_ats_prefetch(u, b, p, ready); /* and the pages the driver's tree adds */
	if (!mask_test(b->resident, p))
		return ready;
	return b->arrive[p] > ready ? b->arrive[p] : ready;
}
