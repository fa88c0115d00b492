/* The published microbenchmark table (calib_published.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/calib_published.h"
#include "cli/calib_quantities.h"
#include "gpuvm/config.h"
#include "gpuvm/input_file.h"
#include "gpuvm/units.h"

#define MAX_TABLE_BYTES (4u << 20)

static const char *const pub_cols[] = {"gpu", "quantity", "value", "unit", "source", "convention"};
#define N_PUB_COLS 6

const char *pub_role_name(enum pub_role role)
{
	return role == PUB_ROLE_CALIBRATION ? "calibration"
	       : role == PUB_ROLE_VALIDATION ? "validation"
					     : "";
}

/* The role column (calib_published.h): NULL when the table has none. */
static int parse_role(struct pub *r, const char *role, const char *path, int line,
		      struct gpuvm_error *err)
{
	if (!role) {
		r->role = r->have ? PUB_ROLE_VALIDATION : PUB_ROLE_NONE;
		return 0;
	}
	if (!r->have) {
		if (*role && strcmp(role, "-"))
			return gpuvm_fail(err, path, line, "role", "'%s' on a row without a published "
					  "value (leave it empty or '-')", role);
		r->role = PUB_ROLE_NONE;
		return 0;
	}
	if (!strcmp(role, "calibration"))
		r->role = PUB_ROLE_CALIBRATION;
	else if (!strcmp(role, "validation"))
		r->role = PUB_ROLE_VALIDATION;
	else
		return gpuvm_fail(err, path, line, "role", "'%s' is neither 'calibration' (a preset "
				  "parameter was set from this value) nor 'validation' (nothing was)",
				  role);
	return 0;
}

/* Tab-separated, '#' comment lines, a header naming the six columns (and,
 * optionally, role). */
int pub_load(struct pub_table *t, const char *path, struct gpuvm_error *err)
{
	t->path = path;
	FILE *f = gpuvm_input_fopen_any(path, "table", MAX_TABLE_BYTES + 1ull, err);
	if (!f)
		return -1;
	t->text = malloc(MAX_TABLE_BYTES + 1);
	if (!t->text) {
		fclose(f);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	size_t len = fread(t->text, 1, MAX_TABLE_BYTES + 1, f);
	fclose(f);
	if (len > MAX_TABLE_BYTES)
		return gpuvm_fail(err, path, 0, NULL, "larger than %u bytes", MAX_TABLE_BYTES);
	t->text[len] = '\0';
	if (memchr(t->text, '\0', len))
		return gpuvm_fail(err, path, 0, NULL, "contains a NUL byte: not a text table");
	int col_at[N_PUB_COLS], role_at = -1, point_at = -1;
	size_t n_header = 0, cap = 0;
	int line = 0;
	bool header = false;
	for (char *p = t->text, *next; p && *p; p = next) {
		line++;
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		size_t l = strlen(p);
		if (l && p[l - 1] == '\r')
			p[--l] = '\0';
		if (!l || p[0] == '#')
			continue;
		char *fields[16];
		size_t nf = 0;
		for (char *q = p;; nf++) {
			if (nf == 16)
				return gpuvm_fail(err, path, line, NULL, "more than 16 fields");
			fields[nf] = q;
			char *tab = strchr(q, '\t');
			if (!tab) {
				nf++;
				break;
			}
			*tab = '\0';
			q = tab + 1;
		}
		if (!header) {
			header = true;
			n_header = nf;
			for (int c = 0; c < N_PUB_COLS; c++) {
				col_at[c] = -1;
				for (size_t i = 0; i < nf; i++)
					if (!strcmp(fields[i], pub_cols[c]))
						col_at[c] = (int)i;
				if (col_at[c] < 0)
					return gpuvm_fail(err, path, line, NULL,
							  "header lacks the column '%s' (columns: gpu, quantity, "
							  "value, unit, source, convention; tab-separated)",
							  pub_cols[c]);
			}
			for (size_t i = 0; i < nf; i++)
				if (!strcmp(fields[i], "role"))
					role_at = (int)i;
				else if (!strcmp(fields[i], "at"))
					point_at = (int)i;
			continue;
		}
		if (nf != n_header)
			return gpuvm_fail(err, path, line, NULL,
					  "%zu fields, the header has %zu; fields are separated by single tabs",
					  nf, n_header);
		if (t->n == cap) {
			cap = cap ? 2 * cap : 64;
			struct pub *nr = realloc(t->rows, cap * sizeof *nr);
			if (!nr)
				return gpuvm_fail(err, path, 0, NULL, "out of memory");
			t->rows = nr;
		}
		struct pub *r = &t->rows[t->n++];
		memset(r, 0, sizeof *r);
		r->line = line;
		char **dst[N_PUB_COLS] = {&r->gpu, &r->quantity, &r->value, &r->unit, &r->source,
					  &r->convention};
		for (int c = 0; c < N_PUB_COLS; c++)
			*dst[c] = fields[col_at[c]];
		if (!*r->gpu || !*r->quantity || !*r->value || !*r->unit)
			return gpuvm_fail(err, path, line, NULL, "gpu, quantity, value and unit must "
					  "not be empty");
		if (strcmp(r->value, "none published")) {
			if (gpuvm_parse_double(r->value, &r->v) || !isfinite(r->v) || r->v <= 0)
				return gpuvm_fail(err, path, line, "value", "'%s' is neither a positive "
						  "number nor \"none published\"", r->value);
			if (!*r->source)
				return gpuvm_fail(err, path, line, "source", "a published value needs its "
						  "source");
			r->have = true;
		}
		if (parse_role(r, role_at < 0 ? NULL : fields[role_at], path, line, err))
			return -1;
		const char *at = point_at < 0 ? "" : fields[point_at];
		if (*at && strcmp(at, "-") &&
		    (gpuvm_parse_size(at, &r->at_bytes) || r->at_bytes == 0))
			return gpuvm_fail(err, path, line, "at", "'%s' is not a size such as 29207KiB "
					  "(where the row was measured; empty or '-' for none)", at);
		for (size_t i = 0; i + 1 < t->n; i++)
			if (!strcmp(t->rows[i].gpu, r->gpu) &&
			    !strcmp(t->rows[i].quantity, r->quantity) &&
			    (!t->rows[i].have || !r->have || !strcmp(t->rows[i].source, r->source)))
				return gpuvm_fail(err, path, line, "quantity", "%s/%s given twice%s",
						  r->gpu, r->quantity,
						  r->have && t->rows[i].have ? " from one source" : "");
	}
	if (!header)
		return gpuvm_fail(err, path, 0, NULL, "empty: needs a header row (gpu, quantity, "
				  "value, unit, source, convention)");
	return 0;
}

const struct pub *pub_find(const struct pub_table *t, const char *gpu, const char *q)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].gpu, gpu) && !strcmp(t->rows[i].quantity, q))
			return &t->rows[i];
	return NULL;
}

const struct pub *pub_find_next(const struct pub_table *t, const struct pub *after)
{
	if (!after)
		return NULL;
	for (size_t i = (size_t)(after - t->rows) + 1; i < t->n; i++)
		if (!strcmp(t->rows[i].gpu, after->gpu) && !strcmp(t->rows[i].quantity, after->quantity))
			return &t->rows[i];
	return NULL;
}

int pub_check_rows(const struct pub_table *t, const char *const *gpus, size_t n_gpus,
		   const bool *used, struct gpuvm_error *err)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct pub *r = &t->rows[i];
		bool shipped = false, calibrated = false;
		for (size_t k = 0; k < gpuvm_shipped_presets_count && !shipped; k++)
			shipped = !strcmp(gpuvm_shipped_presets[k].name, r->gpu);
		for (size_t k = 0; k < n_gpus && !calibrated; k++)
			calibrated = !strcmp(gpus[k], r->gpu);
		if (!shipped && !calibrated)
			return gpuvm_fail(err, t->path, r->line, "gpu", "'%s' is not a shipped "
					  "preset (gpuvm presets lists them) nor a --gpu of this run",
					  r->gpu);
		/* before the runs: a name no preset's rows carry (a typo),
		 * refused with the registry's closest one */
		const struct calib_quantity *known = calib_quantity_find(r->quantity);
		if (calibrated && !used && (!known || known->curve)) {
			const char *near = calib_quantity_near(r->quantity);
			return gpuvm_fail(err, t->path, r->line, "quantity", "'%s' is %s%s%s%s",
					  r->quantity, known ? "a curve gpuvm calibrate draws, not a "
					  "quantity it compares" : "not a quantity gpuvm calibrate "
					  "measures", near ? "; did you mean '" : "", near ? near : "",
					  near ? "'?" : "");
		}
		if (calibrated && used && !used[i])
			return gpuvm_fail(err, t->path, r->line, "quantity", "'%s' is not a quantity "
					  "gpuvm calibrate measures on %s (the CSV's quantity column "
					  "lists them)", r->quantity, r->gpu);
	}
	return 0;
}
