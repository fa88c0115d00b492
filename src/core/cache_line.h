/* Cache-line-aligned allocation: state that one thread writes on every
 * request (a memory partition's L2 clock, a TLB's LRU list) must not
 * share a 64-byte line with state another thread reads or writes, or the
 * line moves between their cores at each write (false sharing). With
 * --threads the barrier's two stages run on two cores (src/sm/sm_window.c);
 * the components they own are allocated whole lines apart. */
#ifndef GPUVM_CORE_CACHE_LINE_H
#define GPUVM_CORE_CACHE_LINE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GPUVM_CACHE_LINE_BYTES 64

/* n zeroed objects of size bytes on lines of their own (the block's start
 * aligned, its length rounded up to whole lines); NULL when out of memory
 * or n * size overflows. Released with free(). */
static inline void *gpuvm_calloc_lines(size_t n, size_t size)
{
	if (size && n > (SIZE_MAX - GPUVM_CACHE_LINE_BYTES) / size)
		return NULL;
	size_t bytes = (n * size + GPUVM_CACHE_LINE_BYTES - 1) / GPUVM_CACHE_LINE_BYTES *
		       GPUVM_CACHE_LINE_BYTES;
	if (!bytes)
		bytes = GPUVM_CACHE_LINE_BYTES;
	void *p = aligned_alloc(GPUVM_CACHE_LINE_BYTES, bytes);
	if (p)
		memset(p, 0, bytes);
	return p;
}

#endif
