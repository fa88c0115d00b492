/* Shared by the end-to-end tests: run one point through gpuvm_run_point
 * and read numbers and the result line out of its JSON report. Include
 * after <cmocka.h> (fail_msg). */
#ifndef GPUVM_TESTS_RUN_UTIL_H
#define GPUVM_TESTS_RUN_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/run.h"

/* The report of one run (caller deletes); fails the test, naming the
 * workload and preset, when the run is refused. */
static inline cJSON *run_report(const struct gpuvm_run_spec *spec)
{
	struct gpuvm_error err = {{0}};
	cJSON *out = NULL;
	if (gpuvm_run_point(spec, &out, &err))
		fail_msg("%s on %s: %s", spec->workload, spec->gpu, err.msg);
	return out;
}

/* A top-level number of a report; fails the test when it is missing. */
static inline double report_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v))
		fail_msg("no number '%s' in the report", key);
	return v->valuedouble;
}

/* A top-level number of a report, or dflt when it has none (rows a mode
 * adds, such as core.window's). */
static inline double report_num_or(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* The report less what the host decides (wall time and the rates over
 * it): what must be the same at any thread count. */
static inline void report_drop_wall_fields(cJSON *o)
{
	for (cJSON *c = o ? o->child : NULL, *next; c; c = next) {
		next = c->next;
		if (c->string && strstr(c->string, "wall"))
			cJSON_Delete(cJSON_DetachItemViaPointer(o, c));
		else if (cJSON_IsObject(c) || cJSON_IsArray(c))
			report_drop_wall_fields(c);
	}
}

/* One number of the report of `workload` on `gpu`. */
static inline double run_num(const char *gpu, const char *workload, uint64_t seed,
			     const char *key)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = seed};
	cJSON *o = run_report(&spec);
	double v = report_num(o, key);
	cJSON_Delete(o);
	return v;
}

/* The result line of `workload` on `gpu` (caller frees). */
static inline char *run_result(const char *gpu, const char *workload, uint64_t seed)
{
	struct gpuvm_run_spec spec = {.gpu = gpu, .workload = workload, .seed = seed};
	cJSON *o = run_report(&spec);
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "result");
	if (!cJSON_IsString(r))
		fail_msg("no result line in the report of %s", workload);
	char *s = strdup(r->valuestring);
	cJSON_Delete(o);
	return s;
}

/* The number after key ("name=") in a result line (run_result's). */
static inline double result_line_num(const char *r, const char *key)
{
	const char *p = strstr(r, key);
	if (!p)
		fail_msg("no %s in %s", key, r);
	return atof(p + strlen(key));
}

/* One variant's time over another's in a result line: field a / field b. */
static inline double result_line_ratio(const char *r, const char *a, const char *b)
{
	return result_line_num(r, a) / result_line_num(r, b);
}

/* The KNOWN MISSES of issue 33 are checked by the fidelity tests but
 * reported instead of asserted: each prints "MISS (known, issue 33)" with
 * its numbers and the test still passes, so that CI stays green while the
 * miss stays visible. With GPUVM_FIDELITY_STRICT=1 in the environment
 * they are assertions as well (the test then fails today; it must pass
 * once the model is fixed, and the check then becomes an assertion).
 * docs/fidelity/fidelity.md has each miss's cause. */
static int fidelity_known_misses;

static inline int fidelity_strict(void)
{
	const char *s = getenv("GPUVM_FIDELITY_STRICT");
	return s && strcmp(s, "1") == 0;
}

static inline void fidelity_known_miss(int holds, const char *what)
{
	if (holds) {
		printf("  ok    %s\n", what);
		return;
	}
	fidelity_known_misses++;
	printf("  MISS (known, issue 33) %s\n", what);
	if (fidelity_strict())
		fail_msg("known miss (GPUVM_FIDELITY_STRICT=1): %s", what);
}

#endif
