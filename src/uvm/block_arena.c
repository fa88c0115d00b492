/* See block_arena.h. */
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
		void *s = aligned_alloc(SLAB_BYTES, SLAB_BYTES);
		if (!s)
			return NULL;
#ifdef MADV_HUGEPAGE
		madvise(s, SLAB_BYTES, MADV_HUGEPAGE); /* a hint: without it, 4 KB pages */
#endif
		memset(s, 0, SLAB_BYTES);
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
		free(a->slabs[i]);
	free(a->slabs);
	memset(a, 0, sizeof *a);
}
