/* See block_arena.h.
 *
 * Invariants (block_arena_check verifies them, naming the number):
 *
 *   A1  n_slabs <= cap_slabs, and each of the n_slabs slabs is a non-NULL,
 *       SLAB_BYTES-aligned slab.
 *   A2  used_bytes (of the last slab) is a multiple of 64 and at most
 *       SLAB_BYTES; 0 while there is no slab.
 *
 * block_arena_owns(a, p, bytes) tells whether [p, p + bytes) lies in the
 * handed-out part of a slab: uvm_check's U2 uses it to catch a block
 * record that is not the arena's (freed, or a stray pointer).
 */
#include "uvm/block_arena.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SLAB_BYTES ((size_t)2 << 20) /* one x86-64 huge page */

void *block_arena_alloc(struct block_arena *a, size_t bytes)
{
	bytes = (bytes + 63) & ~(size_t)63;
	if (bytes > SLAB_BYTES)
		return NULL; /* not a per-block record */
	if (!a->n_slabs || a->used_bytes + bytes > SLAB_BYTES) {
		if (a->n_slabs == a->cap_slabs) {
			uint32_t cap = a->cap_slabs ? 2 * a->cap_slabs : 8;
			void **p = realloc(a->slabs, cap * sizeof *p);
			if (!p)
				return NULL;
			a->slabs = p;
			a->cap_slabs = cap;
		}
		/* fresh anonymous memory is zero and takes no RAM until touched;
		 * twice the size, trimmed, to get a huge-page-aligned slab */
		char *m = mmap(NULL, 2 * SLAB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		char *s = (char *)(((uintptr_t)m + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1));
		if (s > m)
			munmap(m, (size_t)(s - m));
		if (s + SLAB_BYTES < m + 2 * SLAB_BYTES)
			munmap(s + SLAB_BYTES, (size_t)(m + 2 * SLAB_BYTES - (s + SLAB_BYTES)));
#ifdef MADV_HUGEPAGE
		madvise(s, SLAB_BYTES, MADV_HUGEPAGE); /* a hint: without it, 4 KB pages */
#endif
		a->slabs[a->n_slabs++] = s;
		a->used_bytes = 0;
	}
	void *r = (char *)a->slabs[a->n_slabs - 1] + a->used_bytes;
	a->used_bytes += bytes;
	return r;
}

void block_arena_free(struct block_arena *a)
{
	for (uint32_t i = 0; i < a->n_slabs; i++)
		munmap(a->slabs[i], SLAB_BYTES);
	free(a->slabs);
	memset(a, 0, sizeof *a);
}

/* ---- invariants (numbered at the top of this file) ----------------- */

#include "core/invariant.h"

#define violated(why, len, n, ...) gpuvm_violated(why, len, "block arena", "A", n, __VA_ARGS__)

int block_arena_check(const struct block_arena *a, char *why, size_t len)
{
	if (why && len)
		why[0] = 0;
	if (a->n_slabs > a->cap_slabs)
		return violated(why, len, 1, "%u slabs, room for %u", a->n_slabs, a->cap_slabs);
	for (uint32_t i = 0; i < a->n_slabs; i++)
		if (!a->slabs[i] || ((uintptr_t)a->slabs[i] & (SLAB_BYTES - 1)))
			return violated(why, len, 1, "slab %u at %p is not a %zu-aligned slab", i,
					a->slabs[i], SLAB_BYTES);
	if (a->used_bytes % 64 || a->used_bytes > SLAB_BYTES || (!a->n_slabs && a->used_bytes))
		return violated(why, len, 2, "used_bytes %zu with %u slabs", a->used_bytes, a->n_slabs);
	return 0;
}

bool block_arena_owns(const struct block_arena *a, const void *p, size_t bytes)
{
	uintptr_t x = (uintptr_t)p;
	for (uint32_t i = 0; i < a->n_slabs; i++) {
		uintptr_t s = (uintptr_t)a->slabs[i];
		size_t used = i + 1 == a->n_slabs ? a->used_bytes : SLAB_BYTES;
		if (x >= s && x + bytes <= s + used)
			return true;
	}
	return false;
}
