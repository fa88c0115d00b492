/* The rows of gpuvm calibrate (calib_rows.h): making one, judging it
 * against its published value, and one row per further published value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/calib_quantities.h"
#include "cli/calib_rows.h"

/* A row's error and status against its published value. */
void calib_judge(struct row *r)
{
	double tol = r->kind == K_LATENCY ? LATENCY_TOL_PCT : THROUGHPUT_TOL_PCT;
	r->err_pct = NAN;
	if (r->kind == K_CURVE)
		r->status = "";
	else if (!isfinite(r->sim))
		r->status = "n/a";
	else if (!r->pub || !r->pub->have)
		r->status = "no-ref";
	else {
		r->err_pct = (r->sim - r->pub->v) / r->pub->v * 100;
		r->status = fabs(r->err_pct) <= tol ? "pass" : "FAIL";
	}
}

struct row *calib_add_row(struct calib *c, const char *gpu, const char *q, const char *unit,
			  enum row_kind kind, double x, double sim)
{
	/* in every build: a name outside the registry would make a row no
	 * table can be checked against before the run (a few hundred
	 * string compares a preset, against seconds of runs) */
	const struct calib_quantity *known = calib_quantity_find(q);
	if (!known || known->curve != (kind == K_CURVE)) {
		if (!c->failed)
			gpuvm_fail(c->err, gpu, 0, "quantity", "internal error: '%s' %s in "
				   "src/cli/calib_quantities.c's registry", q,
				   known ? "is listed with the other kind (curve or compared)" : "is not");
		c->failed = 1;
		return NULL;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 128;
		struct row *nr = realloc(c->rows, cap * sizeof *nr);
		if (!nr)
			return NULL;
		c->rows = nr;
		c->cap = cap;
	}
	struct row *r = &c->rows[c->n++];
	memset(r, 0, sizeof *r);
	snprintf(r->gpu, sizeof r->gpu, "%s", gpu);
	snprintf(r->quantity, sizeof r->quantity, "%s", q);
	snprintf(r->unit, sizeof r->unit, "%s", unit);
	r->kind = kind;
	r->x = x;
	r->sim = sim;
	r->err_pct = NAN;
	r->pub = kind == K_CURVE ? NULL : pub_find(c->pub, gpu, q);
	calib_judge(r);
	return r;
}

/* A quantity may have several published values (the source a preset was
 * set from, and independent measurements that validate it): each is a row
 * of its own, with the simulated value of the first, right after it. The
 * rows from first on are this preset's. 0, or -1 when out of memory. */
int calib_add_other_published(struct calib *c, size_t first)
{
	size_t extra = 0;
	for (size_t i = first; i < c->n; i++)
		for (const struct pub *p = c->rows[i].pub; (p = pub_find_next(c->pub, p));)
			extra++;
	if (!extra)
		return 0;
	struct row *nr = malloc((c->n + extra) * sizeof *nr);
	if (!nr)
		return -1;
	memcpy(nr, c->rows, first * sizeof *nr);
	size_t k = first;
	for (size_t i = first; i < c->n; i++) {
		nr[k++] = c->rows[i];
		for (const struct pub *p = c->rows[i].pub; (p = pub_find_next(c->pub, p));) {
			struct row *r = &nr[k++];
			*r = c->rows[i];
			r->pub = p;
			calib_judge(r);
		}
	}
	free(c->rows);
	c->rows = nr;
	c->n = c->cap = k;
	return 0;
}

int calib_check_table(struct calib *c, const char *const *presets, size_t n_presets)
{
	const struct pub_table *t = c->pub;
	bool *used = calloc(t->n ? t->n : 1, sizeof *used);
	if (!used)
		return gpuvm_fail(c->err, "calibrate", 0, NULL, "out of memory");
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].pub)
			used[c->rows[i].pub - t->rows] = true;
	int rc = pub_check_rows(t, presets, n_presets, used, c->err);
	free(used);
	return rc;
}

int calib_check_table_before(const struct calib *c, const char *const *presets, size_t n_presets)
{
	struct gpuvm_error e = {{0}}, *err = c->err;
	struct calib d = {.pub = c->pub, .quick = c->quick, .names_only = true, .err = &e,
			  .chase_steps = c->chase_steps};
	size_t loaded = 0;
	int rc = 0;
	for (; loaded < n_presets; loaded++)
		if (calibrate_preset(&d, presets[loaded])) {
			/* failed: a name outside the registry; else the
			 * preset did not load, which its run reports */
			if (d.failed) {
				*err = e;
				rc = -1;
			}
			break;
		}
	if (!rc && loaded == n_presets) {
		d.err = err;
		rc = calib_check_table(&d, presets, n_presets);
	}
	free(d.rows);
	return rc;
}
