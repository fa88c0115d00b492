/* "Did you mean": Levenshtein distance over short names (keys, workloads,
 * parameters), case-insensitive, with an early cut-off. */
#include "gpuvm/suggest.h"

#include <ctype.h>
#include <string.h>

#define MAX_NAME 64

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > MAX_NAME || lb > MAX_NAME)
		return (size_t)-1;
	size_t row[MAX_NAME + 1];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *gpuvm_suggest(const char *word, const char *(*next)(size_t i, const void *ctx),
			  const void *ctx)
{
	size_t len = strlen(word);
	size_t limit = len / 3 > 2 ? len / 3 : 2;
	const char *best = NULL;
	size_t best_d = limit + 1;
	const char *c;
	for (size_t i = 0; (c = next(i, ctx)) != NULL; i++) {
		size_t d = edit_distance(word, c);
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	return best;
}
