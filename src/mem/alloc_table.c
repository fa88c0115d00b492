#include "mem/alloc_table.h"

#include <stdlib.h>
#include <string.h>

void alloc_table_init(struct alloc_table *t)
{
	memset(t, 0, sizeof *t);
	t->block_shift = 63;
}

void alloc_table_free(struct alloc_table *t)
{
	free(t->a);
	memset(t, 0, sizeof *t);
}

const struct gpuvm_alloc *alloc_table_find(const struct alloc_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) { /* first allocation with base > addr */
		size_t mid = (lo + hi) / 2;
		if (t->a[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct gpuvm_alloc *a = &t->a[lo - 1];
	return addr - a->base < a->bytes ? a : NULL;
}

int alloc_table_add(struct alloc_table *t, const struct gpuvm_alloc *a, struct gpuvm_error *err)
{
	if (!a->bytes)
		return gpuvm_fail(err, a->name, 0, NULL, "allocation of zero bytes");
	if (a->base + a->bytes < a->base)
		return gpuvm_fail(err, a->name, 0, NULL, "allocation wraps the address space");
	size_t pos = 0;
	while (pos < t->n && t->a[pos].base < a->base)
		pos++;
	if ((pos > 0 && t->a[pos - 1].base + t->a[pos - 1].bytes > a->base) ||
	    (pos < t->n && a->base + a->bytes > t->a[pos].base))
		return gpuvm_fail(err, a->name, 0, NULL,
				  "allocation at 0x%llx overlaps a live allocation",
				  (unsigned long long)a->base);
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct gpuvm_alloc *p = realloc(t->a, cap * sizeof *p);
		if (!p)
			return gpuvm_fail(err, a->name, 0, NULL, "out of memory");
		t->a = p;
		t->cap = cap;
	}
	memmove(&t->a[pos + 1], &t->a[pos], (t->n - pos) * sizeof *t->a);
	t->a[pos] = *a;
	t->n++;
	t->hit_base = t->hit_end = 0;
	unsigned aligned = (unsigned)__builtin_ctzll(a->base | (a->base + a->bytes));
	if (aligned < t->block_shift)
		t->block_shift = aligned;
	return 0;
}

void alloc_table_remove(struct alloc_table *t, uint64_t base)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->a[i].base == base) {
			memmove(&t->a[i], &t->a[i + 1], (t->n - i - 1) * sizeof *t->a);
			t->n--;
			t->hit_base = t->hit_end = 0;
			return;
		}
}
