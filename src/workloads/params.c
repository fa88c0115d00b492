/* Workload specs: "name:key=value,key=value", checked against the
 * workload's declared parameters. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpuvm/suggest.h"
#include "gpuvm/units.h"
#include "gpuvm/workload.h"

const struct gpuvm_workload_def *gpuvm_workload_find(const char *name)
{
	for (size_t i = 0; i < gpuvm_workloads_count; i++)
		if (strcmp(gpuvm_workloads[i]->name, name) == 0)
			return gpuvm_workloads[i];
	return NULL;
}

static const struct gpuvm_param_def *find_def(const struct gpuvm_workload_def *d, const char *key)
{
	for (size_t i = 0; i < d->n_params; i++)
		if (strcmp(d->params[i].key, key) == 0)
			return &d->params[i];
	return NULL;
}

/* Index of word v in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *v)
{
	size_t n = strlen(v);
	int i = 0;
	for (const char *c = choices; c && *c; i++) {
		const char *bar = strchr(c, '|');
		size_t len = bar ? (size_t)(bar - c) : strlen(c);
		if (len == n && strncmp(c, v, n) == 0)
			return i;
		c = bar ? bar + 1 : NULL;
	}
	return -1;
}

const struct gpuvm_param_range *gpuvm_param_range_find(const struct gpuvm_workload_def *d,
						       const struct gpuvm_param_def *pd)
{
	for (size_t i = 0; i < d->n_ranges; i++)
		if (strcmp(d->ranges[i].key, pd->key) == 0)
			return &d->ranges[i];
	return NULL;
}

void gpuvm_param_range(const struct gpuvm_workload_def *d, const struct gpuvm_param_def *pd,
		       double *min, double *max)
{
	*min = 0;
	*max = 0;
	const struct gpuvm_param_range *r = gpuvm_param_range_find(d, pd);
	if (r) {
		*min = r->min;
		*max = r->max;
		return;
	}
	if (pd->type == GPUVM_PARAM_U64)
		*max = 1099511627776.0; /* 2^40 */
	else if (pd->type == GPUVM_PARAM_SIZE)
		*max = 562949953421312.0; /* 2^49 */
	else if (pd->type == GPUVM_PARAM_DOUBLE)
		*min = -1e300, *max = 1e300;
}

/* The syntax of v for pd's type; a number's value goes to *num (0 for
 * words), for the range check. */
static int check_value(const struct gpuvm_param_def *pd, const char *v, double *num)
{
	uint64_t u;
	*num = 0;
	switch (pd->type) {
	case GPUVM_PARAM_SIZE:
		if (gpuvm_parse_size(v, &u))
			return -1;
		*num = (double)u;
		return 0;
	case GPUVM_PARAM_U64:
		if (gpuvm_parse_u64(v, &u))
			return -1;
		*num = (double)u;
		return 0;
	case GPUVM_PARAM_DOUBLE:
		return gpuvm_parse_double(v, num);
	case GPUVM_PARAM_CHOICE:
		return choice_index(pd->default_text, v) < 0 ? -1 : 0;
	case GPUVM_PARAM_TEXT:
		return *v ? 0 : -1;
	}
	return -1;
}

static int is_power_of_two(double v)
{
	if (!(v >= 1) || v > 18446744073709551615.0)
		return 0;
	uint64_t u = (uint64_t)v;
	return (double)u == v && (u & (u - 1)) == 0;
}

static const char *type_hint(enum gpuvm_param_type t)
{
	return t == GPUVM_PARAM_SIZE ? "a size such as 4GiB or 128MiB"
	       : t == GPUVM_PARAM_U64	? "a non-negative integer"
	       : t == GPUVM_PARAM_DOUBLE ? "a number"
	       : t == GPUVM_PARAM_TEXT	? "a non-empty text"
					 : "a value";
}

static const char *workload_name_at(size_t i, const void *ctx)
{
	(void)ctx;
	return i < gpuvm_workloads_count ? gpuvm_workloads[i]->name : NULL;
}

static const char *param_name_at(size_t i, const void *ctx)
{
	const struct gpuvm_workload_def *d = ctx;
	return i < d->n_params ? d->params[i].key : NULL;
}

int gpuvm_workload_parse(const char *spec, const struct gpuvm_workload_def **def,
			 struct gpuvm_params *params, struct gpuvm_error *err)
{
	const char *origin = "--workload";
	memset(params, 0, sizeof *params);
	char name[64];
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (nlen == 0 || nlen >= sizeof name)
		return gpuvm_fail(err, origin, 0, NULL, "'%s': expected NAME[:key=value,...]", spec);
	memcpy(name, spec, nlen);
	name[nlen] = 0;
	const struct gpuvm_workload_def *d = gpuvm_workload_find(name);
	if (!d) {
		char list[512] = "";
		for (size_t i = 0; i < gpuvm_workloads_count; i++) {
			strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
			strncat(list, gpuvm_workloads[i]->name, sizeof list - strlen(list) - 1);
		}
		const char *near = gpuvm_suggest(name, workload_name_at, NULL);
		if (near)
			return gpuvm_fail(err, origin, 0, NULL, "unknown workload '%s' (did you mean "
					  "%s? known: %s)", name, near, list);
		return gpuvm_fail(err, origin, 0, NULL, "unknown workload '%s' (known: %s)", name, list);
	}
	*def = d;
	if (!colon || !colon[1])
		return 0;

	const char *p = colon + 1;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *eq = memchr(p, '=', len);
		if (!eq || eq == p)
			return gpuvm_fail(err, origin, 0, NULL, "'%.*s': expected key=value", (int)len, p);
		size_t klen = (size_t)(eq - p), vlen = len - klen - 1;
		if (klen >= sizeof params->key[0] || vlen >= sizeof params->value[0])
			return gpuvm_fail(err, origin, 0, NULL, "'%.*s': too long", (int)len, p);
		char key[32], val[sizeof params->value[0]];
		memcpy(key, p, klen);
		key[klen] = 0;
		memcpy(val, eq + 1, vlen);
		val[vlen] = 0;
		const struct gpuvm_param_def *pd = find_def(d, key);
		if (!pd) {
			const char *near = gpuvm_suggest(key, param_name_at, d);
			return gpuvm_fail(err, origin, 0, NULL,
					  "workload '%s' has no parameter '%s' (%s%s%ssee `gpuvm "
					  "workloads`)", d->name, key, near ? "did you mean " : "",
					  near ? near : "", near ? "? " : "");
		}
		double num, lo, hi;
		if (check_value(pd, val, &num) && pd->type == GPUVM_PARAM_CHOICE)
			return gpuvm_fail(err, origin, 0, NULL, "%s=%s: expected one of %s", key, val,
					  pd->default_text);
		if (check_value(pd, val, &num))
			return gpuvm_fail(err, origin, 0, NULL, "%s=%s: expected %s", key, val,
					  type_hint(pd->type));
		/* a number that parsed but means nothing for this parameter */
		gpuvm_param_range(d, pd, &lo, &hi);
		if (pd->type != GPUVM_PARAM_CHOICE && pd->type != GPUVM_PARAM_TEXT &&
		    !(num >= lo && num <= hi))
			return gpuvm_fail(err, origin, 0, NULL, "%s=%s: out of range [%.15g, %.15g]",
					  key, val, lo, hi);
		const struct gpuvm_param_range *r = gpuvm_param_range_find(d, pd);
		if (r && r->step > 1 && fmod(num, (double)r->step) != 0)
			return gpuvm_fail(err, origin, 0, NULL, "%s=%s: must be a multiple of %llu",
					  key, val, (unsigned long long)r->step);
		if (r && r->power_of_two && !is_power_of_two(num))
			return gpuvm_fail(err, origin, 0, NULL, "%s=%s: must be a power of two", key,
					  val);
		size_t i;
		for (i = 0; i < params->n; i++)
			if (strcmp(params->key[i], key) == 0)
				break;
		/* two different values: one would be lost; a repeat of the same
		 * value (a spec extended by a tool) changes nothing */
		if (i < params->n && strcmp(params->value[i], val) != 0)
			return gpuvm_fail(err, origin, 0, NULL,
					  "parameter '%s' given twice with different values (%s=%s, "
					  "then %s=%s)", key, key, params->value[i], key, val);
		if (i == params->n) {
			if (params->n == GPUVM_MAX_PARAMS)
				return gpuvm_fail(err, origin, 0, NULL, "too many parameters");
			params->n++;
		}
		strcpy(params->key[i], key);
		strcpy(params->value[i], val);
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

static const char *lookup(const struct gpuvm_params *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->key[i], key) == 0)
			return p->value[i];
	return NULL;
}

int gpuvm_params_size(const struct gpuvm_params *p, const char *key, uint64_t *out,
		      struct gpuvm_error *err)
{
	const char *v = lookup(p, key);
	if (!v)
		return 0;
	if (gpuvm_parse_size(v, out))
		return gpuvm_fail(err, "--workload", 0, key, "'%s' is not a size", v);
	return 1;
}

int gpuvm_params_u64(const struct gpuvm_params *p, const char *key, uint64_t *out,
		     struct gpuvm_error *err)
{
	const char *v = lookup(p, key);
	if (!v)
		return 0;
	if (gpuvm_parse_u64(v, out))
		return gpuvm_fail(err, "--workload", 0, key, "'%s' is not an integer", v);
	return 1;
}

int gpuvm_params_double(const struct gpuvm_params *p, const char *key, double *out,
			struct gpuvm_error *err)
{
	const char *v = lookup(p, key);
	if (!v)
		return 0;
	if (gpuvm_parse_double(v, out))
		return gpuvm_fail(err, "--workload", 0, key, "'%s' is not a number", v);
	return 1;
}

int gpuvm_params_choice(const struct gpuvm_params *p, const char *key, const char *choices,
			unsigned *index, struct gpuvm_error *err)
{
	const char *v = lookup(p, key);
	if (!v)
		return 0;
	int i = choice_index(choices, v);
	if (i < 0)
		return gpuvm_fail(err, "--workload", 0, key, "'%s' is not one of %s", v, choices);
	*index = (unsigned)i;
	return 1;
}

const char *gpuvm_params_text(const struct gpuvm_params *p, const char *key)
{
	return lookup(p, key);
}

int gpuvm_params_constraint(struct gpuvm_error *err, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return gpuvm_fail(err, "--workload", 0, key, "%s", msg);
}
