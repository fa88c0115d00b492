#include "core/invariant.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gpuvm_violated(char *why, size_t len, const char *what, const char *tag, int n,
		   const char *fmt, ...)
{
	if (why && len) {
		int k = snprintf(why, len, "%s invariant %s%d: ", what, tag, n);
		if (k >= 0 && (size_t)k < len) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(why + k, len - (size_t)k, fmt, ap);
			va_end(ap);
		}
	}
	return n;
}

struct keyed_index {
	uint64_t key;
	uint32_t index;
};

static int by_key_then_index(const void *a, const void *b)
{
	const struct keyed_index *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static uint64_t value_at(const void *v, size_t elem_bytes, uint32_t i)
{
	if (elem_bytes == 4) {
		uint32_t x;
		memcpy(&x, (const unsigned char *)v + (size_t)i * 4, 4);
		return x;
	}
	uint64_t x;
	memcpy(&x, (const unsigned char *)v + (size_t)i * 8, 8);
	return x;
}

/* the pairwise scan: cheap for the small sets of most caches and TLBs,
 * and the fallback when no scratch can be had */
static int pairwise_duplicate(const void *v, size_t elem_bytes, uint32_t n, uint32_t *first,
			      uint32_t *second)
{
	for (uint32_t i = 0; i < n; i++) {
		uint64_t x = value_at(v, elem_bytes, i);
		if (!x)
			continue;
		for (uint32_t j = i + 1; j < n; j++)
			if (value_at(v, elem_bytes, j) == x) {
				*first = i;
				*second = j;
				return 1;
			}
	}
	return 0;
}

int gpuvm_find_duplicate(const void *v, size_t elem_bytes, uint32_t n, uint32_t *first,
			 uint32_t *second)
{
	if (n <= 32)
		return pairwise_duplicate(v, elem_bytes, n, first, second);
	struct keyed_index *k = malloc((size_t)n * sizeof *k);
	if (!k)
		return pairwise_duplicate(v, elem_bytes, n, first, second);
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t x = value_at(v, elem_bytes, i);
		if (x)
			k[m++] = (struct keyed_index){x, i};
	}
	qsort(k, m, sizeof *k, by_key_then_index);
	int found = 0;
	for (uint32_t i = 1; i < m; i++)
		if (k[i].key == k[i - 1].key &&
		    (!found || k[i - 1].index < *first ||
		     (k[i - 1].index == *first && k[i].index < *second))) {
			*first = k[i - 1].index;
			*second = k[i].index;
			found = 1;
		}
	free(k);
	return found;
}
