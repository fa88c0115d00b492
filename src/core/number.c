/* The number parser family's out-of-line half (gpuvm/number.h): reals,
 * and the read forms that turn a refusal into a message naming the input. */
#include "gpuvm/number.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int gpuvm_scan_double(const char *s, const char **end, double min, double max, double *out)
{
	/* strtod would skip leading space and read "inf", "nan" and hex
	 * floats' "0x": none is a number a user or a file means here */
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9'))) {
		if (end)
			*end = s;
		return GPUVM_NUM_NONE;
	}
	errno = 0;
	char *e;
	double v = strtod(s, &e);
	if (end)
		*end = e;
	/* ERANGE on underflow too: 1e-400 is not a number gpuvm can use
	 * either, so both directions are refused */
	if (errno == ERANGE || !isfinite(v) || v < min || v > max)
		return GPUVM_NUM_RANGE;
	*out = v;
	return GPUVM_NUM_OK;
}

bool gpuvm_num_reads_back(const char *text, double v)
{
	/* strtod's own reading, inf and nan included: the printer's inverse */
	return strtod(text, NULL) == v;
}

/* The text a refusal quotes: the number scanned (to e), or when there was
 * none, the next word. */
static int seen_len(const char *s, const char *e)
{
	if (e > s)
		return e - s > 40 ? 40 : (int)(e - s);
	int n = 0;
	while (n < 40 && s[n] && s[n] != ' ' && s[n] != '\t' && s[n] != ',' && s[n] != ')' &&
	       s[n] != '\n')
		n++;
	return n;
}

static int refuse(struct gpuvm_error *err, const char *origin, int line, const char *name,
		  int status, const char *s, const char *e, const char *what, const char *range)
{
	int n = seen_len(s, e);
	if (status == GPUVM_NUM_RANGE)
		return gpuvm_fail(err, origin, line, name, "%.*s%s is out of range (%s)", n, s,
				  e - s > 40 ? "..." : "", range);
	return gpuvm_fail(err, origin, line, name, "expected %s (%s), got '%.*s'", what, range, n, s);
}

int gpuvm_read_u64(struct gpuvm_error *err, const char *origin, int line, const char *name,
		   const char **p, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *s = *p, *e;
	int r = gpuvm_scan_u64(s, &e, min, max, out);
	if (r == GPUVM_NUM_OK) {
		*p = e;
		return 0;
	}
	char range[64];
	snprintf(range, sizeof range, "%" PRIu64 " to %" PRIu64, min, max);
	return refuse(err, origin, line, name, r, s, e, "a whole number", range);
}

int gpuvm_read_u32(struct gpuvm_error *err, const char *origin, int line, const char *name,
		   const char **p, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;
	if (gpuvm_read_u64(err, origin, line, name, p, min, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int gpuvm_read_i64(struct gpuvm_error *err, const char *origin, int line, const char *name,
		   const char **p, int64_t min, int64_t max, int64_t *out)
{
	const char *s = *p, *e;
	int r = gpuvm_scan_i64(s, &e, min, max, out);
	if (r == GPUVM_NUM_OK) {
		*p = e;
		return 0;
	}
	char range[64];
	snprintf(range, sizeof range, "%" PRId64 " to %" PRId64, min, max);
	return refuse(err, origin, line, name, r, s, e, "a whole number", range);
}

int gpuvm_read_double(struct gpuvm_error *err, const char *origin, int line, const char *name,
		      const char **p, double min, double max, double *out)
{
	const char *s = *p, *e;
	int r = gpuvm_scan_double(s, &e, min, max, out);
	if (r == GPUVM_NUM_OK) {
		*p = e;
		return 0;
	}
	char range[64];
	snprintf(range, sizeof range, "%g to %g", min, max);
	return refuse(err, origin, line, name, r, s, e, "a number", range);
}
