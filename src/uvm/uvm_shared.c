/* Residency shared by the GPUs of a system (uvm_shared.h holds the contract). */
#include "uvm/uvm_shared.h"

#include <stdlib.h>
#include <string.h>

#include "uvm/thrashing_shared.h"

int uvm_shared_init(struct uvm_shared *sh, uint32_t n_gpus)
{
	memset(sh, 0, sizeof *sh);
	sh->n_gpus = n_gpus;
	memset(sh->grace, UVM_SHARED_NO_GRACE, sizeof sh->grace);
	return uvm_map_init(&sh->blocks, 64);
}

void uvm_shared_free(struct uvm_shared *sh)
{
	for (uint32_t i = u64map_next(&sh->blocks, 0); i < u64map_slots(&sh->blocks);
	     i = u64map_next(&sh->blocks, i + 1)) {
		struct uvm_shared_blk *s = (struct uvm_shared_blk *)(uintptr_t)sh->blocks.e[i].val;
		free(s->copies);
		free(s);
	}
	uvm_map_free(&sh->blocks);
	if (sh->thrash) {
		uvm_xthrash_free(sh->thrash);
		free(sh->thrash);
	}
	free(sh->read_mostly);
	free(sh->accessed_by);
	free(sh->preferred);
}

/* The block's shared state, made (every page the CPU's) at its first take. */
static struct uvm_shared_blk *blk_get(struct uvm_shared *sh, uint64_t base)
{
	struct uvm_map_entry *x = uvm_map_find(&sh->blocks, base >> UVM_BLOCK_SHIFT);
	if (x)
		return (struct uvm_shared_blk *)(uintptr_t)x->val;
	struct uvm_shared_blk *s = calloc(1, sizeof *s); /* owner 0: UVM_PROC_CPU */
	if (!s || !uvm_map_insert(&sh->blocks, base >> UVM_BLOCK_SHIFT, (uint64_t)(uintptr_t)s)) {
		free(s);
		sh->oom = true;
		return NULL;
	}
	return s;
}

bool uvm_shared_is_read_mostly(const struct uvm_shared *sh, uint64_t addr)
{
	for (uint32_t i = 0; i < sh->n_read_mostly; i++)
		if (addr >= sh->read_mostly[i].base && addr < sh->read_mostly[i].end)
			return true;
	return false;
}

/* Appends r to the range list *v of *n, capacity *cap: 0, or -1 out of memory. */
static int range_add(struct uvm_shared_range **v, uint32_t *n, uint32_t *cap,
		     struct uvm_shared_range r)
{
	if (*n == *cap) {
		uint32_t c = *cap ? 2 * *cap : 4;
		struct uvm_shared_range *x = realloc(*v, c * sizeof *x);
		if (!x)
			return -1;
		*v = x;
		*cap = c;
	}
	(*v)[(*n)++] = r;
	return 0;
}

/* Takes [lo, hi) out of the ranges of list *v (*n of them, capacity
 * *cap), keeping their order (the latest preferred location wins, so the
 * order is the advice's): a range inside it leaves the list, one across
 * an end is trimmed, one across both is split in two, side by side. 0,
 * or -1 out of memory. */
static int range_cut(struct uvm_shared_range **v, uint32_t *n, uint32_t *cap, uint64_t lo,
		     uint64_t hi)
{
	uint32_t i = 0;
	while (i < *n) {
		struct uvm_shared_range *r = &(*v)[i];
		if (r->end <= lo || r->base >= hi) {
			i++;
		} else if (r->base >= lo && r->end <= hi) {
			memmove(r, r + 1, (*n - i - 1) * sizeof *r);
			(*n)--;
		} else if (r->base < lo && r->end > hi) {
			struct uvm_shared_range tail = *r;
			tail.base = hi;
			r->end = lo;
			if (range_add(v, n, cap, tail))
				return -1;
			/* the tail next to its head */
			memmove(&(*v)[i + 2], &(*v)[i + 1], (*n - i - 2) * sizeof **v);
			(*v)[i + 1] = tail;
			i += 2;
		} else {
			if (r->base < lo)
				r->end = lo;
			else
				r->base = hi;
			i++;
		}
	}
	return 0;
}

void uvm_shared_drop_ranges(struct uvm_shared *sh, uint64_t addr, uint64_t bytes)
{
	uint64_t end = addr + bytes;
	if (range_cut(&sh->read_mostly, &sh->n_read_mostly, &sh->cap_read_mostly, addr, end) ||
	    range_cut(&sh->accessed_by, &sh->n_accessed_by, &sh->cap_accessed_by, addr, end) ||
	    range_cut(&sh->preferred, &sh->n_preferred, &sh->cap_preferred, addr, end))
		sh->oom = true;
}

int uvm_shared_read_mostly(struct uvm_shared *sh, uint64_t addr, uint64_t bytes)
{
	return range_add(&sh->read_mostly, &sh->n_read_mostly, &sh->cap_read_mostly,
			 (struct uvm_shared_range){addr, addr + bytes, 0, 0});
}

int uvm_shared_accessed_by(struct uvm_shared *sh, uint64_t addr, uint64_t bytes, uint32_t proc)
{
	return range_add(&sh->accessed_by, &sh->n_accessed_by, &sh->cap_accessed_by,
			 (struct uvm_shared_range){addr, addr + bytes, 1ull << (proc - 1), 0});
}

int uvm_shared_set_preferred(struct uvm_shared *sh, uint64_t addr, uint64_t bytes, uint32_t proc)
{
	return range_add(&sh->preferred, &sh->n_preferred, &sh->cap_preferred,
			 (struct uvm_shared_range){addr, addr + bytes, 0, proc});
}

uint32_t uvm_shared_preferred(const struct uvm_shared *sh, uint64_t addr)
{
	for (uint32_t i = sh->n_preferred; i-- > 0;) /* the latest advice wins */
		if (addr >= sh->preferred[i].base && addr < sh->preferred[i].end)
			return sh->preferred[i].proc;
	return UVM_SHARED_NO_PREF;
}

bool uvm_shared_is_accessed_by(const struct uvm_shared *sh, uint64_t addr, uint32_t proc)
{
	for (uint32_t i = 0; i < sh->n_accessed_by; i++)
		if (addr >= sh->accessed_by[i].base && addr < sh->accessed_by[i].end &&
		    (sh->accessed_by[i].gpus >> (proc - 1) & 1))
			return true;
	return false;
}

/* Every holder of page p but proc turns stale; proc owns it alone. */
static void collapse(struct uvm_shared *sh, struct uvm_shared_blk *s, uint32_t p, uint32_t proc)
{
	if (s->owner[p] != UVM_PROC_CPU && s->owner[p] != proc)
		sh->stale |= 1ull << (s->owner[p] - 1);
	if (s->copies) {
		sh->stale |= s->copies[p] & ~(1ull << (proc - 1));
		s->copies[p] = 0;
	}
	s->owner[p] = (uint8_t)proc;
}

void uvm_shared_take(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc)
{
	struct uvm_shared_blk *s = blk_get(sh, base);
	if (!s)
		return;
	bool rm = sh->n_read_mostly != 0;
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p + 1, true)) {
		s->from[p] = (uint8_t)uvm_shared_source(s, p, proc);
		if (rm && s->owner[p] != proc && uvm_shared_is_read_mostly(sh, base + ((uint64_t)p << UVM_PAGE_SHIFT))) {
			/* a duplicate: the holders keep theirs */
			if (!s->copies && !(s->copies = calloc(UVM_BLOCK_PAGES, sizeof *s->copies))) {
				sh->oom = true;
				return;
			}
			s->copies[p] |= 1ull << (proc - 1);
			sh->duplicated_pages++;
			continue;
		}
		collapse(sh, s, p, proc);
	}
}

bool uvm_shared_write(struct uvm_shared *sh, uint64_t base, uint32_t p, uint32_t proc)
{
	struct uvm_map_entry *x = uvm_map_find(&sh->blocks, base >> UVM_BLOCK_SHIFT);
	struct uvm_shared_blk *s = x ? (struct uvm_shared_blk *)(uintptr_t)x->val : NULL;
	if (!s || !s->copies || !s->copies[p])
		return false; /* not duplicated: its owner's alone */
	collapse(sh, s, p, proc);
	sh->collapsed_pages++;
	return true;
}

void uvm_shared_release(struct uvm_shared *sh, uint64_t base, const uint64_t *mask, uint32_t proc)
{
	struct uvm_map_entry *x = uvm_map_find(&sh->blocks, base >> UVM_BLOCK_SHIFT);
	if (!x)
		return;
	struct uvm_shared_blk *s = (struct uvm_shared_blk *)(uintptr_t)x->val;
	for (uint32_t p = mask_next(mask, 0, true); p < UVM_BLOCK_PAGES; p = mask_next(mask, p + 1, true)) {
		if (s->owner[p] == proc) {
			s->owner[p] = UVM_PROC_CPU;
			/* a system-allocated page written back goes to the
			 * GPU's own Grace (read only for such pages) */
			uint32_t g = sh->grace[proc - UVM_PROC_GPU0];
			s->cpu_node[p] = (uint8_t)(g == UVM_SHARED_NO_GRACE ? 0 : g + 1);
		}
		if (s->copies)
			s->copies[p] &= ~(1ull << (proc - 1));
	}
}

void uvm_shared_cpu_place(struct uvm_shared *sh, uint64_t addr, uint64_t bytes, uint32_t node)
{
	for (uint64_t a = addr & ~(uint64_t)(UVM_PAGE_BYTES - 1); a < addr + bytes; a += UVM_PAGE_BYTES) {
		struct uvm_shared_blk *s = blk_get(sh, a);
		if (!s)
			return;
		uint32_t p = (uint32_t)((a >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
		if (s->owner[p] == UVM_PROC_CPU && !s->cpu_node[p])
			s->cpu_node[p] = (uint8_t)(node + 1);
	}
}

void uvm_shared_forget(struct uvm_shared *sh, uint64_t addr, uint64_t bytes)
{
	for (uint64_t a = addr & ~(uint64_t)(UVM_PAGE_BYTES - 1); a < addr + bytes; a += UVM_PAGE_BYTES) {
		struct uvm_map_entry *x = uvm_map_find(&sh->blocks, a >> UVM_BLOCK_SHIFT);
		if (!x)
			continue;
		struct uvm_shared_blk *s = (struct uvm_shared_blk *)(uintptr_t)x->val;
		uint32_t p = (uint32_t)((a >> UVM_PAGE_SHIFT) & (UVM_BLOCK_PAGES - 1));
		s->owner[p] = UVM_PROC_CPU;
		s->cpu_node[p] = 0;
		if (s->copies)
			s->copies[p] = 0;
	}
}

void uvm_shared_no_route(struct uvm_shared *sh, enum uvm_route_kind kind, uint32_t gpu,
			 uint32_t node, uint64_t addr)
{
	if (sh->no_route.set)
		return;
	sh->no_route = (struct uvm_shared_no_route){.set = true, .kind = kind, .gpu = gpu,
						    .node = node, .addr = addr};
}
