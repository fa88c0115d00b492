/* Invariant checkers' common reporting. Components number their
 * invariants in a comment at the top of their .c file (as SQLite's pager.c
 * does) and provide NAME_check(const struct NAME *, char *why, size_t len)
 * at its end: 0 when every invariant holds, else the number of the first
 * one violated, with why saying which and where. Tests call the checkers
 * after every operation; engines built with GPUVM_CHECK_INVARIANTS call
 * them at every kernel boundary (src/engine/invariants.c). */
#ifndef GPUVM_CORE_INVARIANT_H
#define GPUVM_CORE_INVARIANT_H

#include <stddef.h>

/* Writes "<what> invariant <tag><n>: <message>" into why (may be NULL) and
 * returns n. */
int gpuvm_violated(char *why, size_t len, const char *what, const char *tag, int n,
		   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#endif
