/* Allocation inference for traces without cudaMalloc records: touched
 * 64 KiB granules, grouped into allocations (see readers.h). The set
 * holds one entry per touched granule, so memory follows the footprint
 * (10 GiB touched -> 160 K granules, ~2.5 MiB), not the trace length. */
#include "trace/readers.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void infer_init(struct alloc_infer *a)
{
	memset(a, 0, sizeof *a);
}

void infer_free(struct alloc_infer *a)
{
	u64set_free(&a->set);
	free(a->known);
	free(a->fresh);
	memset(a, 0, sizeof *a);
}

static inline size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

int u64set_add(struct u64set *s, uint64_t key)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *t = calloc(cap, sizeof *t);
		if (!t)
			return -1;
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i]) {
				size_t j = slot_of(s->slot[i], cap);
				while (t[j])
					j = (j + 1) & (cap - 1);
				t[j] = s->slot[i];
			}
		free(s->slot);
		s->slot = t;
		s->cap = cap;
	}
	size_t j = slot_of(key, s->cap);
	while (s->slot[j]) {
		if (s->slot[j] == key)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->slot[j] = key;
	s->n++;
	return 1;
}

void u64set_clear(struct u64set *s)
{
	if (s->slot)
		memset(s->slot, 0, s->cap * sizeof *s->slot);
	s->n = 0;
}

void u64set_free(struct u64set *s)
{
	free(s->slot);
	memset(s, 0, sizeof *s);
}

int infer_add(struct alloc_infer *a, uint64_t addr)
{
	uint64_t key = (addr >> INFER_GRANULE_SHIFT) + 1;
	a->last = key;
	return u64set_add(&a->set, key) < 0 ? -1 : 0;
}

int infer_add_range(struct alloc_infer *a, uint64_t base, uint64_t bytes)
{
	if (!bytes)
		return 0;
	uint64_t last = base + bytes - 1 < base ? UINT64_MAX : base + bytes - 1;
	for (uint64_t g = base >> INFER_GRANULE_SHIFT; g <= last >> INFER_GRANULE_SHIFT; g++)
		if (u64set_add(&a->set, g + 1) < 0)
			return -1;
	return 0;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
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
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct gpuvm_alloc *p = realloc(*arr, c * sizeof *p);
		if (!p)
			return -1;
		*arr = p;
		*cap = c;
	}
	(*arr)[(*n)++] = *x;
	return 0;
}

static int cmp_alloc(const void *x, const void *y)
{
	const struct gpuvm_alloc *a = x, *b = y;
	return a->base < b->base ? -1 : a->base > b->base;
}

int infer_take(struct alloc_infer *a)
{
	a->n_fresh = 0;
	size_t n = 0;
	uint64_t *g = malloc((a->set.n ? a->set.n : 1) * sizeof *g);
	if (!g)
		return -1;
	for (size_t i = 0; i < a->set.cap; i++)
		if (a->set.slot[i]) {
			uint64_t base = (a->set.slot[i] - 1) << INFER_GRANULE_SHIFT;
			if (!known_covers(a, base))
				g[n++] = a->set.slot[i] - 1;
		}
	u64set_clear(&a->set);
	a->last = 0;
	if (n > 1)
		qsort(g, n, sizeof *g, cmp_u64);
	const uint64_t gbytes = 1ull << INFER_GRANULE_SHIFT;
	for (size_t i = 0; i < n;) {
		uint64_t start = g[i], last = g[i];
		size_t j = i + 1;
		while (j < n && (g[j] - last - 1) * gbytes <= INFER_MERGE_GAP_BYTES &&
		       !known_in(a, (last + 1) * gbytes, g[j] * gbytes))
			last = g[j++];
		struct gpuvm_alloc al = {.base = start * gbytes,
					 .bytes = (last - start + 1) * gbytes,
					 .kind = GPUVM_ALLOC_DEVICE};
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
