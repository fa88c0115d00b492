/* Invariant checkers' common reporting. Components number their
 * invariants in a comment at the top of their .c file (as SQLite's pager.c
 * does) and provide NAME_check(const struct NAME *, char *why, size_t len)
 * at its end: 0 when every invariant holds, else the number of the first
 * one violated, with why saying which and where. Tests call the checkers
 * after every operation; engines built with GPUVM_CHECK_INVARIANTS call
 * them at every kernel boundary (src/system/invariants.c). */
#ifndef GPUVM_CORE_INVARIANT_H
#define GPUVM_CORE_INVARIANT_H

#include <stddef.h>
#include <stdint.h>

/* Writes "<what> invariant <tag><n>: <message>" into why (may be NULL) and
 * returns n. */
int gpuvm_violated(char *why, size_t len, const char *what, const char *tag, int n,
		   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Two equal non-zero values among the n values of elem_bytes (4 or 8)
 * each at v: returns 1 with *first < *second their indices (of all such
 * pairs, the one whose first index is smallest, then whose second is),
 * else 0. O(n log n): a set's ways can number thousands (l2.ways accepts
 * up to 4096 for a fully associative cache), and a pairwise scan of
 * every set at every kernel boundary would take hours there. */
int gpuvm_find_duplicate(const void *v, size_t elem_bytes, uint32_t n, uint32_t *first,
			 uint32_t *second);

#endif
