/* Private to the Accel-Sim reader (accelsim.c, accelsim_header.c): the
 * kernel header a .traceg file opens with, and the small text parsers the
 * header and instruction parsers share. tok, as_parse_dec and as_is_blank
 * run once per instruction field and stay inline. */
#ifndef GPUVM_TRACE_ACCELSIM_INTERNAL_H
#define GPUVM_TRACE_ACCELSIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/error.h"
#include "trace/readers.h"

struct as_header {
	char name[96];
	uint32_t grid[3], block[3];
	bool have_grid, have_block, have_version;
	uint64_t shmem_base, local_base;
	uint32_t shmem_bytes; /* -shmem: static + dynamic shared memory per CTA */
	int version; /* 12, 30, 40, 50 for tracer 1.2, 3, 4, 5 */
	int lineinfo;
};

/* The next token of *p (spaces and tabs separate), NULL at the end; *p
 * moves past it. */
static inline const char *as_tok(const char **p, size_t *n)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	const char *e = s;
	while (*e && *e != ' ' && *e != '\t')
		e++;
	*p = e;
	*n = (size_t)(e - s);
	return e == s ? NULL : s;
}


/* A signed decimal of n bytes; -1 when it is not one or overflows. */
static inline int as_parse_dec(const char *s, size_t n, int64_t *v)
{
	bool neg = n && s[0] == '-';
	size_t i = neg;
	if (i == n || n - i > 19)
		return -1;
	uint64_t x = 0;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}


static inline bool as_is_blank(const char *l)
{
	while (*l == ' ' || *l == '\t')
		l++;
	return *l == 0;
}


/* The next line that is not blank: 1, 0 at the end, -1 on error. */
int as_next_nonblank(struct textin *t, char **line, struct gpuvm_error *err);
/* "key = value" (key from line + skip); key and value trimmed in place. */
bool as_split_kv(char *line, size_t skip, char **key, char **val);
/* Reads a kernel file's header up to its first "#BEGIN_TB" (the kernel
 * name, grid and block, tracer version, shared/local windows). */
int as_parse_header(struct textin *t, struct as_header *h, struct gpuvm_error *err);

#endif
