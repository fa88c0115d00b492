/* Allocation inference for traces without cudaMalloc records: touched
 * 64 KiB granules, grouped into allocations (see readers.h). The set
 * holds one entry per touched granule, so memory follows the footprint
 * (10 GiB touched -> 160 K granules, ~2.5 MiB), not the trace length. */
#include "trace/readers.h"

#include "core/vec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void infer_init(struct alloc_infer *a)
{
	memset(a, 0, sizeof *a);
}

void infer_free(struct alloc_infer *a)
{
	u64map_free(&a->set);
	free(a->ranges);
	free(a->known);
	free(a->fresh);
	memset(a, 0, sizeof *a);
}

int infer_add(struct alloc_infer *a, uint64_t addr)
{
	uint64_t granule = addr >> INFER_GRANULE_SHIFT;
	a->last = granule + 1;
	return u64map_add(&a->set, granule, 0) < 0 ? -1 : 0;
}

static int push_span(struct infer_span **arr, size_t *n, size_t *cap, uint64_t start,
		     uint64_t last)
{
	return VEC_PUSH(*arr, *n, *cap, ((struct infer_span){start, last}));
}

int infer_add_range(struct alloc_infer *a, uint64_t base, uint64_t bytes)
{
	if (!bytes)
		return 0;
	uint64_t last = base + bytes - 1 < base ? UINT64_MAX : base + bytes - 1;
	return push_span(&a->ranges, &a->n_ranges, &a->cap_ranges, base >> INFER_GRANULE_SHIFT,
			 last >> INFER_GRANULE_SHIFT);
}

static int cmp_span(const void *x, const void *y)
{
	const struct infer_span *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* First known allocation whose end is above addr. */
static size_t known_at(const struct alloc_infer *a, uint64_t addr)
{
	size_t lo = 0, hi = a->n_known;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (a->known[mid].base + a->known[mid].bytes <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool known_covers(const struct alloc_infer *a, uint64_t addr)
{
	size_t i = known_at(a, addr);
	return i < a->n_known && a->known[i].base <= addr;
}

static bool known_in(const struct alloc_infer *a, uint64_t lo, uint64_t hi)
{
	size_t i = known_at(a, lo);
	return i < a->n_known && a->known[i].base < hi;
}

static int push(struct gpuvm_alloc **arr, size_t *n, size_t *cap, const struct gpuvm_alloc *x)
{
	return VEC_PUSH(*arr, *n, *cap, *x);
}

static int cmp_alloc(const void *x, const void *y)
{
	const struct gpuvm_alloc *a = x, *b = y;
	return a->base < b->base ? -1 : a->base > b->base;
}

int infer_take(struct alloc_infer *a)
{
	a->n_fresh = 0;
	const uint64_t gbytes = 1ull << INFER_GRANULE_SHIFT;
	size_t n = 0, cap = 0;
	struct infer_span *g = NULL;
	int rc = 0;
	/* touched granules not inside an allocation already known */
	for (uint32_t i = u64map_next(&a->set, 0); i < u64map_slots(&a->set) && !rc;
	     i = u64map_next(&a->set, i + 1)) {
		uint64_t k = a->set.e[i].key - 1;
		if (!known_covers(a, k << INFER_GRANULE_SHIFT))
			rc = push_span(&g, &n, &cap, k, k);
	}
	/* copied ranges, less the known allocations inside them */
	for (size_t r = 0; r < a->n_ranges && !rc; r++) {
		uint64_t s = a->ranges[r].start, last = a->ranges[r].last;
		while (s <= last && !rc) {
			size_t i = known_at(a, s << INFER_GRANULE_SHIFT);
			if (i < a->n_known && a->known[i].base <= (s << INFER_GRANULE_SHIFT)) {
				uint64_t end = a->known[i].base + a->known[i].bytes; /* > s's base */
				uint64_t next = (end + gbytes - 1) >> INFER_GRANULE_SHIFT;
				if (!end || next <= s)
					break; /* the known allocation runs to the top */
				s = next;
				continue;
			}
			uint64_t e = last;
			if (i < a->n_known && (a->known[i].base >> INFER_GRANULE_SHIFT) <= last)
				e = (a->known[i].base >> INFER_GRANULE_SHIFT) - 1;
			rc = push_span(&g, &n, &cap, s, e);
			if (e == UINT64_MAX >> INFER_GRANULE_SHIFT)
				break;
			s = e + 1;
		}
	}
	u64map_clear(&a->set);
	a->n_ranges = 0;
	a->last = 0;
	if (rc) {
		free(g);
		return -1;
	}
	if (n > 1)
		qsort(g, n, sizeof *g, cmp_span);
	for (size_t i = 0; i < n;) {
		uint64_t start = g[i].start, last = g[i].last;
		size_t j = i + 1;
		/* spans that overlap, touch, or lie within the merge gap of each
		 * other, with no known allocation between, are one allocation */
		while (j < n && (g[j].start <= last + 1 ||
				 ((g[j].start - last - 1) * gbytes <= INFER_MERGE_GAP_BYTES &&
				  !known_in(a, (last + 1) * gbytes, g[j].start * gbytes)))) {
			if (g[j].last > last)
				last = g[j].last;
			j++;
		}
		struct gpuvm_alloc al = {.base = start * gbytes,
					 .bytes = (last - start + 1) * gbytes,
					 .kind = GPUVM_ALLOC_DEVICE, .extent_only = true};
		/* the top granule of the address space would wrap */
		if (al.base + al.bytes < al.base)
			al.bytes = UINT64_MAX - al.base;
		snprintf(al.name, sizeof al.name, "inferred@0x%" PRIx64, al.base);
		if (al.bytes && push(&a->fresh, &a->n_fresh, &a->cap_fresh, &al)) {
			free(g);
			return -1;
		}
		i = j;
	}
	free(g);
	for (size_t i = 0; i < a->n_fresh; i++)
		if (push(&a->known, &a->n_known, &a->cap_known, &a->fresh[i]))
			return -1;
	if (a->n_known > 1) /* known may still be NULL: qsort wants a pointer */
		qsort(a->known, a->n_known, sizeof *a->known, cmp_alloc);
	return 0;
}
