/* validation/systems.tsv: published measurements of multi-processor
 * systems, each row with its role declared before any comparison. A
 * calibration row names the system file's parameter it sets (quantity =
 * "link.0.bandwidth_gb_s") and must hold the same value as that file; a
 * validation row is what a future model of the system is checked against. */
#include "gpuvm/sysdesc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"

#define HEADER "system\tquantity\tvalue\tunit\tsource\tconvention\trole"

static bool shipped_system(const char *name)
{
	for (size_t i = 0; i < gpuvm_shipped_systems_count; i++)
		if (!strcmp(gpuvm_shipped_systems[i].name, name))
			return true;
	return false;
}

static int copy_field(char *dst, size_t cap, const char *src, const char *what,
		      const char *origin, int line, struct gpuvm_error *err)
{
	if (strlen(src) >= cap)
		return gpuvm_fail(err, origin, line, NULL, "%s: longer than %zu characters", what,
				  cap - 1);
	if (!*src)
		return gpuvm_fail(err, origin, line, NULL, "%s: empty", what);
	snprintf(dst, cap, "%s", src);
	return 0;
}

/* One row's seven fields; fails on any other count. */
static int split_row(char *line, char **f, const char *origin, int ln, struct gpuvm_error *err)
{
	int n = 0;
	char *at = line;
	for (;;) {
		if (n == 7)
			return gpuvm_fail(err, origin, ln, NULL,
					  "more than 7 tab-separated columns (" HEADER ")");
		f[n++] = at;
		char *tab = strchr(at, '\t');
		if (!tab)
			break;
		*tab = 0;
		at = tab + 1;
	}
	if (n != 7)
		return gpuvm_fail(err, origin, ln, NULL, "%d columns, want 7 (" HEADER ")", n);
	return 0;
}

static int check_calibration(const struct gpuvm_sys_evidence *r, const char *origin,
			     struct gpuvm_error *err)
{
	struct gpuvm_sysdesc *sys = malloc(sizeof *sys);
	if (!sys)
		return gpuvm_fail(err, origin, r->line, NULL, "out of memory");
	struct gpuvm_error e2;
	int rc = gpuvm_sysdesc_load(sys, r->system, &e2);
	double v = 0;
	if (rc)
		rc = gpuvm_fail(err, origin, r->line, NULL, "system %s does not load: %s", r->system,
				e2.msg);
	else if (gpuvm_sysdesc_value(sys, r->quantity, &v))
		rc = gpuvm_fail(err, origin, r->line, NULL,
				"a calibration row names the parameter it sets (link.N.bandwidth_gb_s, "
				"cpu.N.memory_bytes, ...); %s has no '%s'",
				sys->origin, r->quantity);
	else if (fabs(v - r->value) > 1e-9 * fabs(r->value))
		rc = gpuvm_fail(err, origin, r->line, NULL,
				"calibration row: %s = %.15g here but %s has %.15g", r->quantity,
				r->value, sys->origin, v);
	free(sys);
	return rc;
}

int gpuvm_sys_evidence_parse(const char *text, const char *origin,
			     struct gpuvm_sys_evidence **rows_out, size_t *n_out,
			     struct gpuvm_error *err)
{
	struct gpuvm_sys_evidence *rows = NULL;
	size_t n = 0, cap = 0;
	bool header = false;
	int ln = 0, rc = 0;
	const char *at = text;
	while (*at && !rc) {
		const char *nl = strchr(at, '\n');
		size_t len = nl ? (size_t)(nl - at) : strlen(at);
		ln++;
		char *line = malloc(len + 1);
		if (!line) {
			rc = gpuvm_fail(err, origin, ln, NULL, "out of memory");
			break;
		}
		memcpy(line, at, len);
		line[len] = 0;
		if (len && line[len - 1] == '\r')
			line[len - 1] = 0;
		at = nl ? nl + 1 : at + len;
		if (!line[0] || line[0] == '#') {
			free(line);
			continue;
		}
		if (!header) {
			if (strcmp(line, HEADER))
				rc = gpuvm_fail(err, origin, ln, NULL,
						"the first row must be the header: " HEADER);
			header = true;
			free(line);
			continue;
		}
		char *f[7];
		if ((rc = split_row(line, f, origin, ln, err))) {
			free(line);
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			struct gpuvm_sys_evidence *g = realloc(rows, cap * sizeof *rows);
			if (!g) {
				free(line);
				rc = gpuvm_fail(err, origin, ln, NULL, "out of memory");
				break;
			}
			rows = g;
		}
		struct gpuvm_sys_evidence *r = &rows[n];
		memset(r, 0, sizeof *r);
		r->line = ln;
		if ((rc = copy_field(r->system, sizeof r->system, f[0], "system", origin, ln, err)) ||
		    (rc = copy_field(r->quantity, sizeof r->quantity, f[1], "quantity", origin, ln,
				     err)) ||
		    (rc = copy_field(r->unit, sizeof r->unit, f[3], "unit", origin, ln, err)) ||
		    (rc = copy_field(r->source, sizeof r->source, f[4], "source", origin, ln, err)) ||
		    (rc = copy_field(r->convention, sizeof r->convention, f[5], "convention", origin,
				     ln, err))) {
			free(line);
			break;
		}
		if (!shipped_system(r->system))
			rc = gpuvm_fail(err, origin, ln, NULL,
					"system '%s' is not a shipped system (gpuvm systems)", r->system);
		else if (gpuvm_parse_double(f[2], &r->value))
			rc = gpuvm_fail(err, origin, ln, NULL, "value '%s' is not a number", f[2]);
		else if (!strcmp(f[6], "calibration"))
			r->role = GPUVM_ROLE_CALIBRATION;
		else if (!strcmp(f[6], "validation"))
			r->role = GPUVM_ROLE_VALIDATION;
		else
			rc = gpuvm_fail(err, origin, ln, NULL,
					"role '%s': calibration (a system file's parameter is set "
					"from it) or validation (the model is checked against it)",
					f[6]);
		free(line);
		if (!rc && r->role == GPUVM_ROLE_CALIBRATION)
			rc = check_calibration(r, origin, err);
		if (!rc)
			n++;
	}
	if (!rc && !header)
		rc = gpuvm_fail(err, origin, 0, NULL, "no header row (" HEADER ")");
	if (rc) {
		free(rows);
		return rc;
	}
	*rows_out = rows;
	*n_out = n;
	return 0;
}
