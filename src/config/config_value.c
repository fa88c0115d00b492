/* One key's value (config_internal.h): reading the field a key row
 * names, checking a value against the row's bounds, parsing a preset or
 * --set string into it and formatting it back, so that a formatted value
 * parses to the same field (config.ini reloads to the same config_hash). */
#include "config/config_internal.h"
#include "gpuvm/number.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuvm/units.h"

/* ---- field access ---- */

static void *field(const struct cfg_key *k, struct gpuvm_config *cfg)
{
	return (char *)cfg + k->off;
}

static const void *cfield(const struct cfg_key *k, const struct gpuvm_config *cfg)
{
	return (const char *)cfg + k->off;
}

static uint32_t list_len(const struct cfg_key *k, const struct gpuvm_config *cfg)
{
	uint32_t n;
	memcpy(&n, (const char *)cfg + k->len_off, sizeof n);
	return n;
}

/* Numeric value of a scalar key, as a double, for bounds checks. */
double cfg_key_number(const struct cfg_key *k, const struct gpuvm_config *cfg)
{
	switch (k->type) {
	case CT_U32:
	case CT_SIZE32: {
		uint32_t v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		return v;
	}
	case CT_SIZE64: {
		uint64_t v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		return (double)v;
	}
	case CT_DOUBLE: {
		double v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		return v;
	}
	case CT_ENUM: {
		int v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		return v;
	}
	default:
		return 0;
	}
}

void cfg_key_store_number(const struct cfg_key *k, struct gpuvm_config *cfg, double v)
{
	switch (k->type) {
	case CT_U32:
	case CT_SIZE32: {
		uint32_t u = (uint32_t)v;
		memcpy(field(k, cfg), &u, sizeof u);
		break;
	}
	case CT_SIZE64: {
		uint64_t u = (uint64_t)v;
		memcpy(field(k, cfg), &u, sizeof u);
		break;
	}
	case CT_DOUBLE:
		memcpy(field(k, cfg), &v, sizeof v);
		break;
	case CT_ENUM: {
		int e = (int)v;
		memcpy(field(k, cfg), &e, sizeof e);
		break;
	}
	default:
		break; /* lists and strings have no number */
	}
}

static void fmt_bound(const struct cfg_key *k, double v, char *buf, size_t len)
{
	if (k->type == CT_SIZE32 || k->type == CT_SIZE64)
		gpuvm_format_size((uint64_t)v, buf, len);
	else
		snprintf(buf, len, "%.15g", v);
}

/* Bounds and power-of-two rules of one number of key k. A value out of
 * bounds is told the key's whole range, so one message is enough to fix it. */
static int check_number(const struct cfg_key *k, double v, const char *shown,
			char *problem, size_t plen)
{
	char lo[48], hi[48];
	if (!isfinite(v)) {
		snprintf(problem, plen, "must be a finite number");
		return -1;
	}
	fmt_bound(k, k->min, lo, sizeof lo);
	fmt_bound(k, k->max, hi, sizeof hi);
	if (k->min_exclusive ? !(v > k->min) : !(v >= k->min)) {
		if (k->min_exclusive)
			snprintf(problem, plen, "must be greater than %s (got %s; range (%s, %s])", lo,
				 shown, lo, hi);
		else if (k->min == 0)
			snprintf(problem, plen, "must not be negative (got %s; range [0, %s])", shown, hi);
		else
			snprintf(problem, plen, "must be at least %s (got %s; range [%s, %s])", lo, shown,
				 lo, hi);
		return -1;
	}
	if (v > k->max) {
		snprintf(problem, plen, "must be at most %s (got %s; range %s%s, %s])", hi, shown,
			 k->min_exclusive ? "(" : "[", lo, hi);
		return -1;
	}
	if (k->integer && v != floor(v)) {
		snprintf(problem, plen, "must be a whole number (got %s)", shown);
		return -1;
	}
	if (k->pow2 && !gpuvm_is_pow2((uint64_t)v)) {
		snprintf(problem, plen, "must be a power of two (got %s)", shown);
		return -1;
	}
	return 0;
}

int cfg_key_check(const struct cfg_key *k, const struct gpuvm_config *cfg,
		  char *problem, size_t plen)
{
	char shown[64];
	switch (k->type) {
	case CT_STRING: {
		const char *s = cfield(k, cfg);
		if (!memchr(s, '\0', k->cap)) {
			snprintf(problem, plen, "is not terminated");
			return -1;
		}
		return 0;
	}
	case CT_U16_LIST:
		if (list_len(k, cfg) > k->cap) {
			snprintf(problem, plen, "has %u elements, at most %zu allowed",
				 list_len(k, cfg), k->cap);
			return -1;
		}
		return 0;
	case CT_ENUM: {
		int v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		if (v < 0 || (size_t)v >= k->enum_count) {
			snprintf(problem, plen, "holds no valid value (%d)", v);
			return -1;
		}
		return 0;
	}
	default:
		if (cfg_key_format(k, cfg, shown, sizeof shown) != 0)
			snprintf(shown, sizeof shown, "?");
		return check_number(k, cfg_key_number(k, cfg), shown, problem, plen);
	}
}

/* ---- parsing ---- */

static int parse_unsigned(const struct cfg_key *k, const char *value, bool size, uint64_t *out,
			  char *problem, size_t plen)
{
	if (value[0] == '-') {
		snprintf(problem, plen, "must not be negative (got '%s')", value);
		return -1;
	}
	if (size ? gpuvm_parse_size(value, out) : gpuvm_parse_u64(value, out)) {
		/* Digits plus (for sizes) a known unit that still fail: overflow. */
		size_t d = strspn(value, "0123456789");
		bool overflow = d > 0 && value[d] == '\0';
		if (size && d > 0 && value[d] && strlen(value + d) < 8) {
			char one[16];
			uint64_t dummy;
			snprintf(one, sizeof one, "1%s", value + d);
			overflow = gpuvm_parse_size(one, &dummy) == 0;
		}
		if (overflow)
			snprintf(problem, plen, "'%s' is out of range", value);
		else if (size)
			snprintf(problem, plen, "expected a size such as 4096, 64KiB or 2MiB, got '%s'", value);
		else
			snprintf(problem, plen, "expected an unsigned integer, got '%s'", value);
		return -1;
	}
	if (k->type != CT_SIZE64 && *out > UINT32_MAX) {
		snprintf(problem, plen, "'%s' is out of range", value);
		return -1;
	}
	return 0;
}

static int parse_list(const struct cfg_key *k, const char *value, uint16_t *vals, uint32_t *n,
		      char *problem, size_t plen)
{
	const char *p = value;
	for (;;) {
		while (*p && (isspace((unsigned char)*p) || *p == ','))
			p++;
		if (!*p)
			return 0;
		char tok[32];
		size_t t = strcspn(p, " \t\r\n\f\v,");
		if (t >= sizeof tok) {
			snprintf(problem, plen, "list element '%.*s...' is too long", 20, p);
			return -1;
		}
		memcpy(tok, p, t);
		tok[t] = '\0';
		p += t;
		uint64_t v;
		if (tok[0] == '-') {
			snprintf(problem, plen, "list element '%s' must not be negative", tok);
			return -1;
		}
		if (gpuvm_parse_u64(tok, &v) || v > (uint64_t)k->max) {
			snprintf(problem, plen, "list element '%s' is not an integer in 0..%.0f", tok, k->max);
			return -1;
		}
		if (*n >= k->cap) {
			snprintf(problem, plen, "too many elements (at most %zu)", k->cap);
			return -1;
		}
		vals[(*n)++] = (uint16_t)v;
	}
}

int cfg_key_parse(const struct cfg_key *k, struct gpuvm_config *cfg,
		  const char *value, bool append, char *problem, size_t plen)
{
	if (!*value && k->type != CT_STRING && k->type != CT_U16_LIST) {
		snprintf(problem, plen, "missing value");
		return -1;
	}
	/* Parse into a scratch copy of the field, check, then store. */
	switch (k->type) {
	case CT_STRING: {
		size_t n = strlen(value);
		if (n >= k->cap) {
			snprintf(problem, plen, "is too long (%zu characters, at most %zu)", n, k->cap - 1);
			return -1;
		}
		memcpy(field(k, cfg), value, n + 1);
		return 0;
	}
	case CT_U16_LIST: {
		uint16_t vals[GPUVM_MAX_SMS];
		uint32_t n = 0;
		if (append) {
			n = list_len(k, cfg);
			memcpy(vals, cfield(k, cfg), n * sizeof vals[0]);
		}
		if (parse_list(k, value, vals, &n, problem, plen))
			return -1;
		memcpy(field(k, cfg), vals, n * sizeof vals[0]);
		memcpy((char *)cfg + k->len_off, &n, sizeof n);
		return 0;
	}
	case CT_ENUM:
		for (size_t i = 0; i < k->enum_count; i++) {
			if (strcasecmp(value, k->enum_names[i]) == 0) {
				int v = (int)i;
				memcpy(field(k, cfg), &v, sizeof v);
				return 0;
			}
		}
		{
			char names[128] = "";
			size_t used = 0;
			for (size_t i = 0; i < k->enum_count; i++)
				used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
							 i ? ", " : "", k->enum_names[i]);
			snprintf(problem, plen, "unknown value '%s' (expected one of: %s)", value, names);
		}
		return -1;
	case CT_DOUBLE: {
		double v;
		if (gpuvm_parse_double(value, &v)) {
			snprintf(problem, plen, "expected a number, got '%s'", value);
			return -1;
		}
		if (check_number(k, v, value, problem, plen))
			return -1;
		memcpy(field(k, cfg), &v, sizeof v);
		return 0;
	}
	case CT_U32:
	case CT_SIZE32:
	case CT_SIZE64: {
		uint64_t v;
		if (parse_unsigned(k, value, k->type != CT_U32, &v, problem, plen))
			return -1;
		if (check_number(k, (double)v, value, problem, plen))
			return -1;
		if (k->type == CT_SIZE64) {
			memcpy(field(k, cfg), &v, sizeof v);
		} else {
			uint32_t v32 = (uint32_t)v;
			memcpy(field(k, cfg), &v32, sizeof v32);
		}
		return 0;
	}
	}
	snprintf(problem, plen, "internal error: unknown key type");
	return -1;
}

/* ---- formatting ---- */

/* Shortest %g form that reads back to exactly v. */
static void format_double(double v, char *buf, size_t len)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (gpuvm_num_reads_back(buf, v))
			return;
	}
}

int cfg_key_format(const struct cfg_key *k, const struct gpuvm_config *cfg,
		   char *buf, size_t len)
{
	char tmp[64];
	if (!len)
		return -1;
	switch (k->type) {
	case CT_STRING: {
		const char *s = cfield(k, cfg);
		size_t n = strnlen(s, k->cap);
		if (n >= len)
			return -1;
		memcpy(buf, s, n);
		buf[n] = '\0';
		return 0;
	}
	case CT_U16_LIST: {
		const uint16_t *vals = cfield(k, cfg);
		uint32_t n = list_len(k, cfg);
		size_t used = 0;
		buf[0] = '\0';
		for (uint32_t i = 0; i < n && i < k->cap; i++) {
			int w = snprintf(buf + used, len - used, "%s%u", i ? " " : "", (unsigned)vals[i]);
			if (w < 0 || (size_t)w >= len - used)
				return -1;
			used += (size_t)w;
		}
		return 0;
	}
	case CT_ENUM: {
		int v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		if (v < 0 || (size_t)v >= k->enum_count)
			snprintf(tmp, sizeof tmp, "%d", v);
		else
			snprintf(tmp, sizeof tmp, "%s", k->enum_names[v]);
		break;
	}
	case CT_DOUBLE: {
		double v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		format_double(v, tmp, sizeof tmp);
		break;
	}
	case CT_U32: {
		uint32_t v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		snprintf(tmp, sizeof tmp, "%u", v);
		break;
	}
	case CT_SIZE32: {
		uint32_t v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		gpuvm_format_size(v, tmp, sizeof tmp);
		break;
	}
	case CT_SIZE64: {
		uint64_t v;
		memcpy(&v, cfield(k, cfg), sizeof v);
		gpuvm_format_size(v, tmp, sizeof tmp);
		break;
	}
	}
	if (strlen(tmp) >= len)
		return -1;
	strcpy(buf, tmp);
	return 0;
}
