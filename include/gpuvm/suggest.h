/* "Did you mean": the known name closest to a mistyped one. */
#ifndef GPUVM_SUGGEST_H
#define GPUVM_SUGGEST_H

#include <stddef.h>

/* The candidate within a small edit distance of word (case-insensitive:
 * at most 2 edits, or a third of the word's length for long names), or
 * NULL when none is close enough to be a likely typo. next(i) yields the
 * i-th candidate, NULL past the last. */
const char *gpuvm_suggest(const char *word, const char *(*next)(size_t i, const void *ctx),
			  const void *ctx);

#endif
