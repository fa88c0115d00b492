/* Every workload's limits come from its one range table (struct
 * gpuvm_param_range, include/gpuvm/workload.h): this walks every
 * registered workload and every entry of its table, so a workload added
 * later is covered without editing the test (issue 79, item 7: `gpuvm
 * workloads` printed 2dconv's n as 0..2^40 while its create() refused all
 * but 3..131072). For each entry: the key is a numeric parameter of the
 * workload, the default obeys it, its ends parse, one past each end is
 * refused "out of range", and a value off its step or not a power of two
 * is refused. Parameters shared through a macro (the same key and help
 * text in several workloads: verify=, launches=, the graph inputs') carry
 * a range in every workload that lists them, so none forgets it.
 * That no create() limits a single parameter in code instead is
 * scripts/check-workload-limits.py's (test cli_workload_limits). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/units.h"
#include "gpuvm/workload.h"

static const struct gpuvm_param_def *param_of(const struct gpuvm_workload_def *d, const char *key)
{
	for (size_t i = 0; i < d->n_params; i++)
		if (!strcmp(d->params[i].key, key))
			return &d->params[i];
	return NULL;
}

/* Another workload with the same table has the parameter. */
static int shared_table_names(const struct gpuvm_workload_def *d, const char *key)
{
	for (size_t w = 0; w < gpuvm_workloads_count; w++)
		if (gpuvm_workloads[w] != d && gpuvm_workloads[w]->ranges == d->ranges &&
		    param_of(gpuvm_workloads[w], key))
			return 1;
	return 0;
}

static int integer_type(enum gpuvm_param_type t)
{
	return t == GPUVM_PARAM_U64 || t == GPUVM_PARAM_SIZE;
}

/* Parses "name:key=value"; returns 0 or -1 with the message in msg. */
static int parse_one(const struct gpuvm_workload_def *d, const char *key, const char *value,
		     char *msg, size_t len)
{
	char spec[256];
	snprintf(spec, sizeof spec, "%s:%s=%s", d->name, key, value);
	const struct gpuvm_workload_def *got = NULL;
	struct gpuvm_params p;
	struct gpuvm_error err = {0};
	int rc = gpuvm_workload_parse(spec, &got, &p, &err);
	snprintf(msg, len, "%s", rc ? err.msg : "");
	return rc;
}

static void number_text(double v, int integer, char *out, size_t len)
{
	if (integer)
		snprintf(out, len, "%llu", (unsigned long long)v);
	else
		snprintf(out, len, "%.17g", v);
}

static void expect_refused(const struct gpuvm_workload_def *d, const char *key, double v,
			   int integer, const char *why)
{
	char text[64], msg[1024];
	number_text(v, integer, text, sizeof text);
	if (!parse_one(d, key, text, msg, sizeof msg))
		fail_msg("%s: %s=%s was accepted (want refused: %s)", d->name, key, text, why);
	if (!strstr(msg, why))
		fail_msg("%s: %s=%s refused as '%s' (want '%s')", d->name, key, text, msg, why);
}

static void expect_accepted(const struct gpuvm_workload_def *d, const char *key, double v,
			    int integer)
{
	char text[64], msg[1024];
	number_text(v, integer, text, sizeof text);
	if (parse_one(d, key, text, msg, sizeof msg))
		fail_msg("%s: %s=%s refused: %s", d->name, key, text, msg);
}

static int obeys(const struct gpuvm_param_range *r, double v)
{
	if (!(v >= r->min && v <= r->max))
		return 0;
	if (r->step > 1 && fmod(v, (double)r->step) != 0)
		return 0;
	if (r->power_of_two) {
		uint64_t u = (uint64_t)v;
		return u && !(u & (u - 1));
	}
	return 1;
}

static void test_every_range_entry(void **state)
{
	(void)state;
	size_t entries = 0;
	for (size_t w = 0; w < gpuvm_workloads_count; w++) {
		const struct gpuvm_workload_def *d = gpuvm_workloads[w];
		for (size_t i = 0; i < d->n_ranges; i++) {
			const struct gpuvm_param_range *r = &d->ranges[i];
			const struct gpuvm_param_def *pd = param_of(d, r->key);
			if (!pd && shared_table_names(d, r->key))
				continue; /* a table several workloads share (sepo-*) */
			if (!pd)
				fail_msg("%s: range for '%s', which is not a parameter", d->name,
					 r->key);
			if (pd->type != GPUVM_PARAM_U64 && pd->type != GPUVM_PARAM_SIZE &&
			    pd->type != GPUVM_PARAM_DOUBLE)
				fail_msg("%s: range for '%s', which is not a number", d->name,
					 r->key);
			if (!(r->min <= r->max))
				fail_msg("%s: %s: min %g above max %g", d->name, r->key, r->min,
					 r->max);
			int integer = integer_type(pd->type);
			if ((r->step > 1 || r->power_of_two) && !integer)
				fail_msg("%s: %s: a step or power of two on a non-integer", d->name,
					 r->key);
			/* the default a run takes obeys its own table */
			if (pd->default_text) {
				double v;
				uint64_t u;
				int ok = pd->type == GPUVM_PARAM_SIZE	? !gpuvm_parse_size(pd->default_text, &u)
					 : pd->type == GPUVM_PARAM_U64 ? !gpuvm_parse_u64(pd->default_text, &u)
									: !gpuvm_parse_double(pd->default_text, &v);
				if (ok && integer)
					v = (double)u;
				if (ok && !obeys(r, v))
					fail_msg("%s: default %s=%s breaks its range", d->name, r->key,
						 pd->default_text);
			}
			/* its ends: the first and last values that obey it */
			double lo = r->min, hi = r->max;
			if (integer) {
				lo = ceil(lo);
				hi = floor(hi);
				if (r->step > 1) {
					lo = ceil(lo / (double)r->step) * (double)r->step;
					hi = floor(hi / (double)r->step) * (double)r->step;
				}
				if (r->power_of_two) {
					lo = exp2(ceil(log2(lo < 1 ? 1 : lo)));
					hi = exp2(floor(log2(hi)));
				}
			}
			expect_accepted(d, r->key, lo, integer);
			expect_accepted(d, r->key, hi, integer);
			/* one past each end */
			double past = integer ? hi + 1 : hi * 2 + 1;
			expect_refused(d, r->key, integer ? floor(r->max) + 1 : past, integer,
				       "out of range");
			if (r->min >= 1)
				expect_refused(d, r->key, integer ? ceil(r->min) - 1 : r->min - 1,
					       integer, "out of range");
			else if (!integer && r->min > 0)
				expect_refused(d, r->key, r->min / 2, integer, "out of range");
			/* off the step, or not a power of two, inside the range */
			if (r->step > 1 && lo + 1 <= r->max)
				expect_refused(d, r->key, lo + 1, integer, "must be a multiple of");
			if (r->power_of_two && lo * 2 - 1 > lo && lo * 2 - 1 <= r->max &&
			    lo * 2 - 1 >= r->min)
				expect_refused(d, r->key, lo * 2 - 1, integer, "must be a power of two");
			entries++;
		}
	}
	printf("  %zu range entries of %zu workloads checked\n", entries, gpuvm_workloads_count);
	assert_true(entries > 100);
}

/* A parameter several workloads share (same key, same help text: one
 * macro) has a range in each of them, or in none (the limits may differ:
 * ubench-ops and ubench-atomic size their grids apart). */
static void test_shared_parameters_share_ranges(void **state)
{
	(void)state;
	size_t shared = 0;
	for (size_t a = 0; a < gpuvm_workloads_count; a++) {
		const struct gpuvm_workload_def *da = gpuvm_workloads[a];
		for (size_t i = 0; i < da->n_params; i++) {
			const struct gpuvm_param_def *pa = &da->params[i];
			if (!integer_type(pa->type) && pa->type != GPUVM_PARAM_DOUBLE)
				continue;
			const struct gpuvm_param_range *ra = gpuvm_param_range_find(da, pa);
			for (size_t b = a + 1; b < gpuvm_workloads_count; b++) {
				const struct gpuvm_workload_def *db = gpuvm_workloads[b];
				const struct gpuvm_param_def *pb = param_of(db, pa->key);
				if (!pb || strcmp(pb->help, pa->help))
					continue;
				const struct gpuvm_param_range *rb = gpuvm_param_range_find(db, pb);
				shared++;
				if (!ra != !rb)
					fail_msg("%s=%s is shared by %s and %s (same help), but only %s "
						 "lists its range", pa->key, pa->default_text, da->name,
						 db->name, ra ? da->name : db->name);
			}
		}
	}
	printf("  %zu shared parameter pairs agree\n", shared);
	assert_true(shared > 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_range_entry),
		cmocka_unit_test(test_shared_parameters_share_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
