/* gpuvm calibrate's outputs (calib_rows.h): the table on stdout, --csv,
 * --json and --plot, from the rows cmd_calibrate.c made. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/calib_rows.h"
#include "gpuvm/csv.h"
#include "gpuvm/output_file.h"
#include "gpuvm/plot.h"
#include "gpuvm/units.h"
#include "gpuvm_version.h"

static void fmt_num(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (fabs(v) >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static double tol_of(const struct row *r)
{
	return r->kind == K_LATENCY ? LATENCY_TOL_PCT : THROUGHPUT_TOL_PCT;
}

/* A row compared with a published value (its verdict pass or FAIL). */
static bool compared(const struct row *r)
{
	return !strcmp(r->status, "pass") || !strcmp(r->status, "FAIL");
}

/* A compared, non-curve row of role (PUB_ROLE_NONE: any role). */
static bool counts(const struct row *r, enum pub_role role)
{
	return r->kind != K_CURVE && compared(r) && r->pub &&
	       (role == PUB_ROLE_NONE || r->pub->role == role);
}

/* "N of M pass, mean |error| E %" over rows [i, j) of one role. */
static void print_tally(const struct calib *c, size_t i, size_t j, enum pub_role role, FILE *f)
{
	size_t n = 0, pass = 0;
	double abs_err = 0;
	for (size_t k = i; k < j; k++) {
		const struct row *r = &c->rows[k];
		if (!counts(r, role))
			continue;
		n++;
		pass += !strcmp(r->status, "pass");
		abs_err += fabs(r->err_pct);
	}
	if (n)
		fprintf(f, "%zu of %zu pass, mean |error| %.2f %%", pass, n, abs_err / (double)n);
	else
		fputs("none", f);
}

/* One line per preset, in the table's order: its validation rows (nothing
 * was set from them: the evidence) apart from its calibration rows (a
 * parameter was set from them, so they echo their inputs), then the two
 * together. */
static void print_preset_summaries(const struct calib *c, FILE *f)
{
	fputs("per preset, validation rows (nothing set from them) apart from calibration rows:\n", f);
	for (size_t i = 0; i < c->n;) {
		size_t j = i;
		while (j < c->n && !strcmp(c->rows[j].gpu, c->rows[i].gpu))
			j++;
		fprintf(f, "  %-10s validation ", c->rows[i].gpu);
		print_tally(c, i, j, PUB_ROLE_VALIDATION, f);
		fputs("; calibration ", f);
		print_tally(c, i, j, PUB_ROLE_CALIBRATION, f);
		fputs("; all ", f);
		print_tally(c, i, j, PUB_ROLE_NONE, f);
		fputc('\n', f);
		i = j;
	}
}

void calib_print_table(const struct calib *c, FILE *f)
{
	fprintf(f, "%-10s %-32s %-10s %10s %14s %8s %6s  %-11s %s\n", "gpu", "quantity", "unit",
		"simulated", "published", "error%", "tol%", "status", "role");
	size_t pass = 0, fail = 0, noref = 0, odd = 0;
	double abs_err = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct row *r = &c->rows[i];
		if (r->kind == K_CURVE)
			continue;
		char s[32], p[32], e[32];
		fmt_num(r->sim, s, sizeof s);
		if (r->pub && r->pub->have)
			fmt_num(r->pub->v, p, sizeof p);
		else
			snprintf(p, sizeof p, "none published");
		if (isfinite(r->err_pct))
			snprintf(e, sizeof e, "%+.1f", r->err_pct);
		else
			snprintf(e, sizeof e, "-");
		const char *role = r->pub ? pub_role_name(r->pub->role) : "";
		fprintf(f, "%-10s %-32s %-10s %10s %14s %8s %6.0f  %-11s %s%s%s\n", r->gpu, r->quantity,
			r->unit, s, p, e, tol_of(r), r->status, *role ? role : "-",
			*r->note ? "  " : "", r->note);
		pass += !strcmp(r->status, "pass");
		fail += !strcmp(r->status, "FAIL");
		noref += !strcmp(r->status, "no-ref") || !strcmp(r->status, "implausible");
		odd += !strncmp(r->note, "implausible", 11);
		if (compared(r))
			abs_err += fabs(r->err_pct);
	}
	fprintf(f, "\n%zu rows with a published value: %zu pass, %zu outside tolerance", pass + fail,
		pass, fail);
	if (pass + fail)
		fprintf(f, ", mean |error| %.2f %%", abs_err / (double)(pass + fail));
	fprintf(f, "; %zu without a published value (simulated only); %zu implausible "
		   "(the note says why)\n", noref, odd);
	fputs("validation rows alone: ", f);
	print_tally(c, 0, c->n, PUB_ROLE_VALIDATION, f);
	fputs("; calibration rows: ", f);
	print_tally(c, 0, c->n, PUB_ROLE_CALIBRATION, f);
	fputc('\n', f);
	print_preset_summaries(c, f);
	/* the curves, compactly */
	char prev[160] = "";
	for (size_t i = 0; i < c->n; i++) {
		const struct row *r = &c->rows[i];
		if (r->kind != K_CURVE)
			continue;
		char key[160];
		snprintf(key, sizeof key, "%s %s", r->gpu, r->quantity);
		if (strcmp(key, prev)) {
			fprintf(f, "\n%s vs %s:", key,
				!strcmp(r->quantity, "chase_cycles") ? "footprint"
				: !strcmp(r->quantity, "triad_gb_s") ? "threads per SM"
				: !strncmp(r->quantity, "tlb_par_", 8) ? "warps chasing"
								       : "bytes");
			snprintf(prev, sizeof prev, "%s", key);
		}
		char x[32], s[32];
		if (!strcmp(r->quantity, "triad_gb_s") || !strncmp(r->quantity, "tlb_par_", 8))
			snprintf(x, sizeof x, "%.0f", r->x);
		else
			gpuvm_format_size((uint64_t)r->x, x, sizeof x);
		fmt_num(r->sim, s, sizeof s);
		fprintf(f, " %s=%s", x, s);
	}
	fputc('\n', f);
}

static void csv_num(FILE *f, double v)
{
	if (isfinite(v)) {
		char b[64];
		gpuvm_csv_number(v, b, sizeof b);
		fputs(b, f);
	}
}

int calib_write_csv(const struct calib *c, const char *path, struct gpuvm_error *err)
{
	struct gpuvm_output o;
	if (gpuvm_output_open(&o, path, err))
		return -1;
	FILE *f = o.f;
	fputs("gpu,quantity,x,unit,simulated,published,error_pct,tolerance_pct,status,source,"
	      "convention,role\n", f);
	for (size_t i = 0; i < c->n; i++) {
		const struct row *r = &c->rows[i];
		bool have = r->pub && r->pub->have;
		gpuvm_csv_field(f, r->gpu);
		fputc(',', f);
		gpuvm_csv_field(f, r->quantity);
		fputc(',', f);
		csv_num(f, r->x);
		fputc(',', f);
		gpuvm_csv_field(f, r->unit);
		fputc(',', f);
		csv_num(f, r->sim);
		fputc(',', f);
		csv_num(f, have ? r->pub->v : NAN);
		fputc(',', f);
		csv_num(f, r->err_pct);
		fputc(',', f);
		if (r->kind != K_CURVE)
			csv_num(f, tol_of(r));
		fputc(',', f);
		gpuvm_csv_field(f, r->status);
		fputc(',', f);
		gpuvm_csv_field(f, r->pub ? r->pub->source : "");
		fputc(',', f);
		gpuvm_csv_field(f, r->pub ? r->pub->convention : "");
		fputc(',', f);
		gpuvm_csv_field(f, r->pub ? pub_role_name(r->pub->role) : "");
		fputc('\n', f);
	}
	return gpuvm_output_close(&o, err);
}

static void json_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

int calib_write_json(const struct calib *c, const char *path, struct gpuvm_error *err)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < c->n; i++) {
		const struct row *r = &c->rows[i];
		bool have = r->pub && r->pub->have;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "gpu", r->gpu);
		cJSON_AddStringToObject(o, "quantity", r->quantity);
		json_num(o, "x", r->x);
		cJSON_AddStringToObject(o, "unit", r->unit);
		json_num(o, "simulated", r->sim);
		json_num(o, "published", have ? r->pub->v : NAN);
		json_num(o, "error_pct", r->err_pct);
		json_num(o, "tolerance_pct", r->kind == K_CURVE ? NAN : tol_of(r));
		cJSON_AddStringToObject(o, "status", r->status);
		cJSON_AddStringToObject(o, "source", r->pub ? r->pub->source : "");
		cJSON_AddStringToObject(o, "convention", r->pub ? r->pub->convention : "");
		cJSON_AddStringToObject(o, "role", r->pub ? pub_role_name(r->pub->role) : "");
		cJSON_AddStringToObject(o, "gpuvm_version", GPUVM_VERSION);
		cJSON_AddStringToObject(o, "gpuvm_commit", GPUVM_COMMIT);
		cJSON_AddItemToArray(a, o);
	}
	char *text = cJSON_Print(a);
	cJSON_Delete(a);
	if (!text)
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	size_t len = strlen(text);
	char *nl = realloc(text, len + 2);
	if (!nl) {
		free(text);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	nl[len] = '\n';
	nl[len + 1] = '\0';
	int rc = gpuvm_output_write_text(path, nl, err);
	free(nl);
	return rc;
}

/* "out.png" + "-a100-latency" -> "out-a100-latency.png" */
static void figure_path(const char *base, const char *gpu, const char *what, char *buf,
			size_t len)
{
	const char *dot = strrchr(base, '.');
	const char *slash = strrchr(base, '/');
	if (!dot || (slash && dot < slash))
		dot = base + strlen(base);
	snprintf(buf, len, "%.*s-%s-%s%s", (int)(dot - base), base, gpu, what, dot);
}

int calib_plot_preset(const struct calib *c, const char *gpu, const char *base,
		      struct gpuvm_error *err)
{
	double *x = malloc(4 * c->n * sizeof *x);
	if (!x)
		return gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	double *y = x + c->n, *px = y + c->n, *py = px + c->n;
	int rc = 0;
	for (int fig = 0; fig < 2 && !rc; fig++) {
		const char *curve = fig ? "triad_gb_s" : "chase_cycles";
		size_t n = 0, np = 0;
		for (size_t i = 0; i < c->n; i++) {
			const struct row *r = &c->rows[i];
			if (strcmp(r->gpu, gpu))
				continue;
			if (r->kind == K_CURVE && !strcmp(r->quantity, curve)) {
				x[n] = r->x;
				y[n++] = r->sim;
			}
			bool pub_point = fig ? !strncmp(r->quantity, "stream_triad_gb_s", 17)
					     : !strncmp(r->quantity, "chase_", 6);
			if (r->kind != K_CURVE && pub_point && r->pub && r->pub->have) {
				px[np] = fig && !strcmp(r->quantity, "stream_triad_gb_s") ? 2048 : r->x;
				py[np++] = r->pub->v;
			}
		}
		char path[PATH_MAX], title[160];
		figure_path(base, gpu, fig ? "bandwidth" : "latency", path, sizeof path);
		snprintf(title, sizeof title, fig ? "%s: STREAM triad vs occupancy"
						  : "%s: pointer-chase latency vs footprint", gpu);
		struct gpuvm_plot_series s[2] = {{"gpuvm", x, y, n}, {"published", px, py, np}};
		struct gpuvm_plot_opts o = {.title = title,
					    .xlabel = fig ? "threads per SM (2 CTAs)" : "footprint",
					    .ylabel = fig ? "GB/s" : "cycles per load",
					    .logx = true,
					    .x_bytes = !fig,
					    .fixed_scales = true};
		rc = gpuvm_plot_lines_opts(path, &o, s, np ? 2 : 1, err);
	}
	free(x);
	return rc;
}
