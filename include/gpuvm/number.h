/* The one family of number parsers for every input gpuvm reads: command-line
 * arguments, config and preset values, Accel-Sim, NVBit mem_trace and native
 * trace text, graphs, TSV tables (issue 79).
 *
 * Contract:
 *  - a number that does not fit its type or the caller's [min, max] is
 *    refused (GPUVM_NUM_RANGE), never wrapped or clamped: sscanf's %u reads
 *    4294967299 as 3, strtoul reads "-1" as 2^64-1; these do neither;
 *  - unsigned forms take decimal digits only (no sign, no leading space);
 *    the signed form takes one optional '-'; hex takes 1 to 16 digits after
 *    an optional "0x";
 *  - the scan forms read as far as the number goes and say where it ended
 *    (for fields inside a line: "(4,1,1)", "x,y,z"); the span forms want the
 *    whole of s[0..n) to be the number;
 *  - the read forms report a failure through gpuvm_fail: the input's origin
 *    (file, "argument", "--set"), its line when there is one, the field's
 *    name, the text seen and the range wanted;
 *  - no other file in src/ calls strtoul, strtol, strtoull, strtod, atoi,
 *    atof or sscanf to read a number, except those on the commented
 *    allow-list of tests/cli/number_parsers.sh, which may only shrink.
 * The digit loops are inline: the trace readers run them once per field of
 * every instruction. */
#ifndef GPUVM_NUMBER_H
#define GPUVM_NUMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/error.h"

enum gpuvm_num_status {
	GPUVM_NUM_OK = 0,
	GPUVM_NUM_NONE = -1,  /* no number there, or trailing text in a span */
	GPUVM_NUM_RANGE = -2, /* a number, but past its type or [min, max] */
};

/* Decimal digits at s, as many as there are (at least one); *end (if not
 * NULL) points past them, also on GPUVM_NUM_RANGE. */
static inline int gpuvm_scan_u64(const char *s, const char **end, uint64_t min, uint64_t max,
				 uint64_t *out)
{
	const char *p = s;
	uint64_t x = 0;
	bool over = false;
	while (*p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p++ - '0');
		if (x > (UINT64_MAX - d) / 10)
			over = true;
		else
			x = x * 10 + d;
	}
	if (end)
		*end = p;
	if (p == s)
		return GPUVM_NUM_NONE;
	if (over || x < min || x > max)
		return GPUVM_NUM_RANGE;
	*out = x;
	return GPUVM_NUM_OK;
}

/* An optional '-', then decimal digits. */
static inline int gpuvm_scan_i64(const char *s, const char **end, int64_t min, int64_t max,
				 int64_t *out)
{
	bool neg = *s == '-';
	uint64_t mag;
	const char *e;
	int r = gpuvm_scan_u64(s + neg, &e, 0, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX,
			       &mag);
	if (end)
		*end = r == GPUVM_NUM_NONE ? s : e;
	if (r)
		return r;
	int64_t v = neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
	if (v < min || v > max)
		return GPUVM_NUM_RANGE;
	*out = v;
	return GPUVM_NUM_OK;
}

/* 1 to 16 hex digits, after an optional "0x" or "0X". */
static inline int gpuvm_scan_hex(const char *s, const char **end, uint64_t *out)
{
	const char *p = s;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	const char *digits = p;
	uint64_t x = 0;
	for (;; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		x = x << 4 | d;
	}
	if (p == digits) {
		if (digits == s) {
			if (end)
				*end = s;
			return GPUVM_NUM_NONE;
		}
		/* "0x" with no digit after it: the 0 is a number, the x is not */
		if (end)
			*end = s + 1;
		*out = 0;
		return GPUVM_NUM_OK;
	}
	if (end)
		*end = p;
	if (p - digits > 16)
		return GPUVM_NUM_RANGE;
	*out = x;
	return GPUVM_NUM_OK;
}

/* A finite real (strtod's syntax, no leading space, no inf or nan). */
int gpuvm_scan_double(const char *s, const char **end, double min, double max, double *out);

/* Whether text (a number this program just printed) reads back as exactly
 * v: the test of a shortest-exact printer ("%.15g", else "%.17g"). */
bool gpuvm_num_reads_back(const char *text, double v);

/* The span forms: all of s[0..n) is the number (GPUVM_NUM_NONE if not). */
static inline int gpuvm_num_u64(const char *s, size_t n, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *e;
	int r = gpuvm_scan_u64(s, &e, min, max, out);
	return (size_t)(e - s) != n ? GPUVM_NUM_NONE : r;
}

static inline int gpuvm_num_i64(const char *s, size_t n, int64_t min, int64_t max, int64_t *out)
{
	const char *e;
	int r = gpuvm_scan_i64(s, &e, min, max, out);
	return (size_t)(e - s) != n ? GPUVM_NUM_NONE : r;
}

static inline int gpuvm_num_hex(const char *s, size_t n, uint64_t *out)
{
	const char *e;
	int r = gpuvm_scan_hex(s, &e, out);
	return (size_t)(e - s) != n ? GPUVM_NUM_NONE : r;
}

/* The read forms: gpuvm_scan_* at *p, *p moved past the number; a failure
 * goes to err as "origin:line: name: expected ... got 'text'" (line 0 and
 * a NULL name are left out, as gpuvm_fail does) and returns -1. */
int gpuvm_read_u64(struct gpuvm_error *err, const char *origin, int line, const char *name,
		   const char **p, uint64_t min, uint64_t max, uint64_t *out);
int gpuvm_read_u32(struct gpuvm_error *err, const char *origin, int line, const char *name,
		   const char **p, uint32_t min, uint32_t max, uint32_t *out);
int gpuvm_read_i64(struct gpuvm_error *err, const char *origin, int line, const char *name,
		   const char **p, int64_t min, int64_t max, int64_t *out);
int gpuvm_read_double(struct gpuvm_error *err, const char *origin, int line, const char *name,
		      const char **p, double min, double max, double *out);

#endif
