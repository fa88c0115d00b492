/* Growable arrays: the one "double the capacity when full" in the code base.
 *
 * Owns nothing itself: the caller keeps the array as three plain fields, a
 * pointer, a count and a size_t capacity (so the array's element type stays
 * visible in the struct, and a zeroed struct is an empty array), and asks
 * for room before it writes:
 *
 *     struct span *spans; size_t n_spans, cap_spans;
 *     if (VEC_PUSH(spans, n_spans, cap_spans, ((struct span){lo, hi})))
 *             return -1;                  // out of memory, spans unchanged
 *
 * Guarantees: on success the array holds at least `need` elements (the
 * first *cap of them keep their values: realloc); the capacity grows by
 * doubling from VEC_MIN_CAPACITY, so n pushes cost O(n) copies; a request
 * whose byte size overflows size_t, or a failed realloc, returns -1 and
 * leaves pointer and capacity as they were (the caller still frees them).
 * Calls only realloc. Not for hot-path arrays whose layout or growth is
 * tuned (the engine's, the SIMT executor's row buffers): those keep theirs. */
#ifndef GPUVM_CORE_VEC_H
#define GPUVM_CORE_VEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VEC_MIN_CAPACITY 16

/* *(void **)ptr_addr grows to hold need elements of elem_bytes; 0 or -1.
 * The pointer is read and written through memcpy, so any object pointer
 * type may be passed (through VEC_RESERVE). */
static inline int vec_reserve_bytes(void *ptr_addr, size_t *cap, size_t need, size_t elem_bytes)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : VEC_MIN_CAPACITY;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -1;
		c *= 2;
	}
	if (elem_bytes && c > SIZE_MAX / elem_bytes)
		return -1;
	void *old;
	memcpy(&old, ptr_addr, sizeof old);
	size_t bytes = c * elem_bytes;
	void *grown = realloc(old, bytes ? bytes : 1);
	if (!grown)
		return -1;
	memcpy(ptr_addr, &grown, sizeof grown);
	*cap = c;
	return 0;
}

/* Room for need elements in ptr (an lvalue pointer; cap a size_t lvalue). */
#define VEC_RESERVE(ptr, cap, need) vec_reserve_bytes(&(ptr), &(cap), (need), sizeof *(ptr))

/* Appends value (an expression of the element type) at ptr[n++]; 0 or -1. */
#define VEC_PUSH(ptr, n, cap, value) \
	(VEC_RESERVE(ptr, cap, (size_t)(n) + 1) ? -1 : ((ptr)[(n)++] = (value), 0))

#endif
