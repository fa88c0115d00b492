/* The CPU touching managed memory between kernels (simt_host_access): the
 * CPU-fault side of the driver, after nvidia-uvm's uvm_va_block.c
 * (uvm_va_block_cpu_fault -> block_cpu_fault_locked ->
 * uvm_va_block_select_residency -> uvm_va_block_service_locked).
 *
 * Contract:
 *  - Owns: the single-GPU read-mostly ranges (struct uvm_host_ranges,
 *    which the GPU's own fault path never reads: on one GPU read
 *    duplication only changes what the CPU's accesses do) and the
 *    host-access counters of struct gpuvm_uvm_stats (host_accesses,
 *    cpu_faults, cpu_fault_pages, cpu_duplicated_pages,
 *    cpu_invalidated_copies, cpu_remote_bytes).
 *  - Performs: MIGRATE_OUT of uvm_page_state.h for the pages a CPU fault
 *    takes (through uvm_prefetch_to_host: write-back over the D2H lane,
 *    shootdown, L2 lines stale, shared residency released) and, several
 *    GPUs, the drop of this GPU's read duplicates a CPU write collapses
 *    (through uvm_invalidate_taken: no write-back, the owner's data is
 *    current).
 *  - May call: uvm_prefetch_to_host, uvm_invalidate_taken, the lanes
 *    (uvm_lane_transfer), uvm_host_touch, the shared residency's masks.
 *  - Guarantees: invariants U1-U10 hold after each call (every page
 *    state change is one of the evict file's transitions); nothing
 *    changes for a range no page of which is resident on this GPU; a run
 *    without host accesses takes no path of this file.
 *
 * The model, and where it is simpler than the driver:
 *  - The CPU faults per 4 KB page (Linux's fault granularity); the driver
 *    services the faulting page and its prefetch hint grows the region
 *    (uvm_va_block_get_prefetch_hint runs for CPU faults too). We take one
 *    CPU fault per 64 KB chunk holding GPU-resident pages of the range
 *    (the big-page size the driver's prefetcher grows to first), at the
 *    driver's fault-handling time (uvm.fault_latency_us): the CPU fault
 *    runs the same service path as a GPU fault batch.
 *  - The faulting CPU thread waits for its data: faults are serial, each
 *    chunk's transfer starts after its fault is handled.
 *  - The host's own compute over the touched bytes is zero: the run loop
 *    times no host computation anywhere (a host program's loops between
 *    operations take no simulated time), and the cost this models is the
 *    paging the CPU's touches cause, which dominates them (a 64 KB chunk
 *    at 20-45 us of fault handling, presets' uvm.fault_latency_us, vs
 *    some 3 us to stream it from a CPU's DRAM at ~20 GB/s).
 *  - One GPU, read-mostly: the host's duplicate is not remembered (the
 *    single-GPU driver keeps no CPU page record, uvm_page_state.h): a
 *    second CPU read copies the page again, and a CPU write after a CPU
 *    read migrates it (the driver would only invalidate the GPU's copy).
 *  - System-allocated memory on coherent NVLink-C2C (GH200): the CPU
 *    reads and writes GPU-resident pages in place over C2C (as its
 *    loads and stores do on the coherent link), nothing migrates and no
 *    fault is taken; untouched pages get their first touch on the CPU
 *    (uvm_host_touch). */

#include "uvm/uvm_impl.h"

#include <stdlib.h>

struct uvm_host_ranges {
	uint64_t *base, *end;
	uint32_t n, cap;
};

int uvm_host_read_mostly(struct uvm *u, uint64_t addr, uint64_t bytes)
{
	struct uvm_host_ranges *r = u->host_read_mostly;
	if (!r && !(r = u->host_read_mostly = calloc(1, sizeof *r)))
		return -1;
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? 2 * r->cap : 4;
		uint64_t *b = realloc(r->base, cap * sizeof *b);
		if (!b)
			return -1;
		r->base = b;
		uint64_t *e = realloc(r->end, cap * sizeof *e);
		if (!e)
			return -1;
		r->end = e;
		r->cap = cap;
	}
	r->base[r->n] = addr;
	r->end[r->n++] = addr + bytes;
	return 0;
}

void uvm_host_drop_ranges(struct uvm *u, uint64_t addr, uint64_t bytes)
{
	struct uvm_host_ranges *r = u->host_read_mostly;
	uint64_t lo = addr, hi = addr + bytes;
	/* a tail appended by a split lies outside [lo, hi): met again, kept */
	for (uint32_t i = 0; r && i < r->n;) {
		if (r->end[i] <= lo || r->base[i] >= hi) {
			i++;
		} else if (r->base[i] >= lo && r->end[i] <= hi) {
			/* inside: the last takes its place (a set: order is free) */
			r->n--;
			r->base[i] = r->base[r->n];
			r->end[i] = r->end[r->n];
		} else if (r->base[i] < lo && r->end[i] > hi) {
			uint64_t end = r->end[i];
			r->end[i++] = lo;
			if (uvm_host_read_mostly(u, hi, end - hi))
				u->oom = true;
		} else {
			if (r->base[i] < lo)
				r->end[i] = lo;
			else
				r->base[i] = hi;
			i++;
		}
	}
}

void uvm_host_free(struct uvm *u)
{
	struct uvm_host_ranges *r = u->host_read_mostly;
	if (!r)
		return;
	free(r->base);
	free(r->end);
	free(r);
	u->host_read_mostly = NULL;
}

static bool read_mostly(const struct uvm *u, uint64_t addr)
{
	if (u->shared)
		return u->shared->n_read_mostly && uvm_shared_is_read_mostly(u->shared, addr);
	const struct uvm_host_ranges *r = u->host_read_mostly;
	for (uint32_t i = 0; r && i < r->n; i++)
		if (addr >= r->base[i] && addr < r->end[i])
			return true;
	return false;
}

/* The pages of [first, last] (page numbers) in block bn as a mask;
 * false when the block is not here or holds none of them. */
static bool range_mask(struct uvm *u, uint64_t bn, uint64_t first, uint64_t last, uvm_mask m,
		       struct uvm_block **out)
{
	struct uvm_block *b = block_find(u, bn);
	if (!b || !b->resident_count)
		return false;
	uint32_t lo = bn == first / UVM_BLOCK_PAGES ? (uint32_t)(first % UVM_BLOCK_PAGES) : 0;
	uint32_t hi = bn == last / UVM_BLOCK_PAGES ? (uint32_t)(last % UVM_BLOCK_PAGES) + 1
						   : UVM_BLOCK_PAGES;
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		m[w] = 0;
	mask_set_range(m, lo, hi);
	bool any = false;
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++) {
		m[w] &= b->resident[w];
		any |= m[w] != 0;
	}
	*out = b;
	return any;
}

/* Several GPUs, a CPU write: this GPU's read duplicates of pages another
 * processor owns are invalidated without a transfer (the owner's data is
 * current; nvidia-uvm revokes the other copies when a write collapses a
 * read-duplicated page). One CPU fault per 64 KB chunk holding some. */
static double drop_copies(struct uvm *u, uint64_t first, uint64_t last, double t)
{
	struct uvm_shared *sh = u->shared;
	uint64_t bit = 1ull << (u->proc - 1), n = 0;
	for (uint64_t bn = first / UVM_BLOCK_PAGES; bn <= last / UVM_BLOCK_PAGES; bn++) {
		uvm_mask m;
		struct uvm_block *b;
		struct uvm_map_entry *x = uvm_map_find(&sh->blocks, bn);
		struct uvm_shared_blk *s = x ? (struct uvm_shared_blk *)(uintptr_t)x->val : NULL;
		if (!s || !s->copies || !range_mask(u, bn, first, last, m, &b))
			continue;
		uint32_t chunk = UINT32_MAX;
		for (uint32_t p = mask_next(m, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(m, p + 1, true)) {
			if (s->owner[p] == u->proc || !(s->copies[p] & bit))
				continue;
			s->copies[p] &= ~bit;
			n++;
			if (p / UVM_CHUNK_PAGES != chunk) {
				chunk = p / UVM_CHUNK_PAGES;
				t += u->spec.fault_latency_cycles;
				u->st->cpu_faults++;
			}
		}
	}
	if (n) {
		sh->stale |= bit;
		uvm_invalidate_taken(u);
		u->st->cpu_invalidated_copies += n;
	}
	return t;
}

/* The resident pages of m in chunk ch of b this GPU may hand the CPU: on
 * several GPUs those it owns (a copy's holder leaves that to the owner). */
static uint32_t owned_in_chunk(const struct uvm *u, const struct uvm_block *b, const uint64_t *m,
			       uint32_t ch, uvm_mask out)
{
	for (uint32_t w = 0; w < UVM_MASK_WORDS; w++)
		out[w] = 0;
	const struct uvm_shared_blk *s = u->shared ? uvm_shared_block(u->shared, b->base) : NULL;
	uint32_t n = 0;
	for (uint32_t p = ch * UVM_CHUNK_PAGES; p < (ch + 1) * UVM_CHUNK_PAGES; p++)
		if (mask_test(m, p) && (!s || s->owner[p] == u->proc)) {
			mask_set(out, p);
			n++;
		}
	return n;
}

/* Read duplication of the chunk's pages (nvidia-uvm: a CPU read of a
 * read-mostly page resident elsewhere copies it, uvm_va_block_select_residency
 * with read_duplicate): the GPU keeps its copy; on several GPUs the CPU
 * becomes the owner and this GPU a copy's holder, so a later GPU write
 * collapses it as any duplicate (uvm_shared_write). */
static double duplicate(struct uvm *u, struct uvm_block *b, const uint64_t *own, uint32_t n,
			double t)
{
	t = uvm_lane_transfer(u, false, t, (uint64_t)n << UVM_PAGE_SHIFT);
	u->st->pages_d2h += n;
	u->st->cpu_duplicated_pages += n;
	if (!u->shared)
		return t;
	struct uvm_map_entry *x = uvm_map_find(&u->shared->blocks, b->base >> UVM_BLOCK_SHIFT);
	struct uvm_shared_blk *s = x ? (struct uvm_shared_blk *)(uintptr_t)x->val : NULL;
	if (!s)
		return t;
	if (!s->copies && !(s->copies = calloc(UVM_BLOCK_PAGES, sizeof *s->copies))) {
		u->shared->oom = true;
		return t;
	}
	for (uint32_t p = mask_next(own, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(own, p + 1, true)) {
		s->owner[p] = UVM_PROC_CPU;
		s->copies[p] |= 1ull << (u->proc - 1);
	}
	u->shared->duplicated_pages += n;
	return t;
}

/* In place over coherent NVLink-C2C: the resident pages' bytes cross the
 * link (reads D2H, writes H2D), nothing moves. */
static double in_place(struct uvm *u, uint64_t addr, uint64_t bytes, enum uvm_host_how how, double t)
{
	uint64_t first = addr >> UVM_PAGE_SHIFT, last = (addr + bytes - 1) >> UVM_PAGE_SHIFT, n = 0;
	for (uint64_t bn = first / UVM_BLOCK_PAGES; bn <= last / UVM_BLOCK_PAGES; bn++) {
		uvm_mask m;
		struct uvm_block *b;
		if (range_mask(u, bn, first, last, m, &b))
			n += mask_count(m);
	}
	if (!n)
		return t;
	/* several GPUs: the host thread runs on cpu.0 (uvm_host_touch), which
	 * reaches over C2C only the HBM of the GPU whose Grace it is; another
	 * GPU's has no route the system files describe: recorded, for the
	 * engine to stop the run */
	if (u->shared && u->shared->grace[u->proc - UVM_PROC_GPU0] != 0)
		uvm_shared_no_route(u->shared, UVM_ROUTE_CPU_TO_GPU, u->proc - UVM_PROC_GPU0, 0, addr);
	uint64_t moved = n << UVM_PAGE_SHIFT;
	u->st->cpu_remote_bytes += moved;
	return uvm_lane_transfer(u, how == UVM_HOST_WRITE, t, moved);
}

double uvm_host_access(struct uvm *u, uint64_t addr, uint64_t bytes, enum uvm_host_how how,
		       double t)
{
	u->st->host_accesses++;
	if (!bytes)
		return t;
	if (u->c2c && uvm_is_system(u, addr)) {
		/* several GPUs: each GPU's driver is asked in turn, and only
		 * the pages resident on its GPU cross its C2C link */
		if (uvm_host_touch(u, addr, bytes))
			u->oom = true;
		return in_place(u, addr, bytes, how, t);
	}
	uint64_t first = addr >> UVM_PAGE_SHIFT, last = (addr + bytes - 1) >> UVM_PAGE_SHIFT;
	if (u->shared && how == UVM_HOST_WRITE)
		t = drop_copies(u, first, last, t);
	for (uint64_t bn = first / UVM_BLOCK_PAGES; bn <= last / UVM_BLOCK_PAGES; bn++) {
		uvm_mask m;
		struct uvm_block *b;
		if (!range_mask(u, bn, first, last, m, &b))
			continue;
		for (uint32_t ch = 0; ch < UVM_BLOCK_CHUNKS; ch++) {
			uvm_mask own;
			uint32_t n = owned_in_chunk(u, b, m, ch, own);
			if (!n)
				continue; /* the CPU has these already, or none is here */
			uint64_t base = b->base + ((uint64_t)ch * UVM_CHUNK_PAGES << UVM_PAGE_SHIFT);
			/* block_cpu_fault_locked: the fault is handled, then its copy */
			t += u->spec.fault_latency_cycles;
			u->st->cpu_faults++;
			if (how == UVM_HOST_READ && read_mostly(u, base)) {
				t = duplicate(u, b, own, n, t);
				continue;
			}
			/* the chunk's part of the range: its pages leave this GPU */
			uint64_t lo = base > addr ? base : addr;
			uint64_t end = base + ((uint64_t)UVM_CHUNK_PAGES << UVM_PAGE_SHIFT);
			uint64_t hi = end < addr + bytes ? end : addr + bytes;
			t = uvm_prefetch_to_host(u, lo, hi - lo, t);
			u->st->cpu_fault_pages += n;
		}
	}
	return t;
}
