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

int calib_plot_claim(const char *base, const char *const *gpus, size_t n,
		     struct gpuvm_error *err)
{
	for (size_t i = 0; i < n; i++)
		for (int fig = 0; fig < 2; fig++) {
			char path[4096], gp[4096];
			figure_path(base, gpus[i], fig ? "bandwidth" : "latency", path, sizeof path);
			if (gpuvm_output_claim(path, "--plot (a preset's figure)", err) ||
			    (gpuvm_plot_script_path(path, gp, sizeof gp) &&
			     gpuvm_output_claim(gp, "--plot (a figure's gnuplot script)", err)))
				return -1;
		}
	return 0;
}

/* A published value's source family for the legend: the repository of
 * "owner/repo@commit path" (gpu-benches, PPT), the tool of "MT4G logs"
 * or "RF21 path" (MT4G, RF21), this project's boards for "measured: ...". */
static void source_family(const char *source, char *buf, size_t len)
{
	if (!strncmp(source, "measured", 8)) {
		snprintf(buf, len, "measured on the boards (hwbench)");
		return;
	}
	size_t n = strcspn(source, " ,;@");
	const char *slash = memchr(source, '/', n);
	if (slash) {
		n -= (size_t)(slash + 1 - source);
		source = slash + 1;
	}
	snprintf(buf, len, "%.*s", (int)n, source);
}

/* Styles of the published points: a colour per source family, a shape
 * per role (calibration: a square, the preset was set from it;
 * validation: a triangle, nothing was). Markers only: a few measured
 * footprints, no ramp between them. */
static const char *const pub_colours[] = {"#d62728", "#2ca02c", "#ff7f0e", "#1f77b4",
					  "#8c564b", "#e377c2", "#17becf", "#7f7f7f"};
#define CALIB_MAX_FAMILIES 8

struct pub_series {
	char name[160], style[96];
	size_t n;
};

int calib_plot_preset(const struct calib *c, const char *gpu, const char *base,
		      struct gpuvm_error *err)
{
	/* per figure: the curve, the simulated __ldca L1 point, and one
	 * series per (source family, role) of published points */
	enum { MAX_SERIES = 2 + 2 * CALIB_MAX_FAMILIES };
	double *buf = malloc(2 * MAX_SERIES * (c->n + 1) * sizeof *buf);
	if (!buf)
		return gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	int rc = 0;
	for (int fig = 0; fig < 2 && !rc; fig++) {
		const char *curve = fig ? "triad_gb_s" : "chase_cycles";
		struct pub_series ps[MAX_SERIES];
		char fams[CALIB_MAX_FAMILIES][64];
		size_t n_fams = 0, n_ps = 2;
		memset(ps, 0, sizeof ps);
		double *xs[MAX_SERIES], *ys[MAX_SERIES];
		for (size_t k = 0; k < MAX_SERIES; k++) {
			xs[k] = buf + 2 * k * (c->n + 1);
			ys[k] = xs[k] + c->n + 1;
		}
		double curve_at_l1 = NAN, ldca = NAN;
		for (size_t i = 0; i < c->n; i++) {
			const struct row *r = &c->rows[i];
			if (strcmp(r->gpu, gpu))
				continue;
			if (r->kind == K_CURVE && !strcmp(r->quantity, curve)) {
				xs[0][ps[0].n] = r->x;
				ys[0][ps[0].n++] = r->sim;
				if (!fig && r->x == 4096)
					curve_at_l1 = r->sim;
			}
			if (!fig && !strcmp(r->quantity, "chase_l1_hit_cycles"))
				ldca = r->sim;
			bool pub_point = fig ? !strncmp(r->quantity, "stream_triad_gb_s", 17)
					     : !strncmp(r->quantity, "chase_", 6);
			if (r->kind == K_CURVE || !pub_point || !r->pub || !r->pub->have ||
			    !isfinite(r->x))
				continue;
			char fam[64];
			source_family(r->pub->source, fam, sizeof fam);
			size_t f = 0;
			while (f < n_fams && strcmp(fams[f], fam))
				f++;
			if (f == n_fams) {
				if (n_fams == CALIB_MAX_FAMILIES)
					continue;
				snprintf(fams[n_fams++], sizeof fams[0], "%s", fam);
			}
			bool cal = r->pub->role == PUB_ROLE_CALIBRATION;
			/* find or open the series of this family and role */
			size_t k = 2;
			char name[160];
			snprintf(name, sizeof name, "published: %s, %s", fam,
				 cal ? "calibration (preset set from it)" : "validation");
			while (k < n_ps && strcmp(ps[k].name, name))
				k++;
			if (k == n_ps) {
				n_ps++;
				snprintf(ps[k].name, sizeof ps[k].name, "%s", name);
				snprintf(ps[k].style, sizeof ps[k].style,
					 "points pt %d ps 1.8 lw 2 lc rgb '%s'", cal ? 5 : 9,
					 pub_colours[f % (sizeof pub_colours / sizeof pub_colours[0])]);
			}
			xs[k][ps[k].n] = r->x;
			ys[k][ps[k].n++] = r->pub->v;
		}
		/* The curve's loads are default ones; published L1 hits chase
		 * with __ldca (or on parts whose default loads use the L1).
		 * Where the two differ (Kepler and Pascal keep globals out of
		 * the L1 by default), the simulated __ldca chase is drawn
		 * beside them and a note says so: the gap is a convention, not
		 * a miss. */
		char note[320] = "";
		bool conv_gap = !fig && isfinite(ldca) && isfinite(curve_at_l1) && ldca > 0 &&
				fabs(curve_at_l1 - ldca) > 0.2 * ldca;
		if (conv_gap) {
			xs[1][0] = 4096;
			ys[1][0] = ldca;
			ps[1].n = 1;
			snprintf(ps[1].name, sizeof ps[1].name, "gpuvm, __ldca L1 chase (the L1 rows' convention)");
			snprintf(ps[1].style, sizeof ps[1].style, "points pt 6 ps 2.2 lw 2 lc rgb '#9400d3'");
			snprintf(note, sizeof note,
				 "At 4 KiB the curve uses default loads, which %s's L1 does not cache\n"
				 "(%.0f cycles: an L2 hit); published L1 hits chase with __ldca (cached),\n"
				 "as gpuvm's open circle (%.0f cycles): a convention, not a miss.",
				 gpu, curve_at_l1, ldca);
		}
		struct gpuvm_plot_series s[MAX_SERIES];
		size_t ns = 0;
		/* the curve, the published points, then gpuvm's __ldca point on
		 * top of the published L1 hits it stands beside */
		for (size_t j = 0; j < n_ps; j++) {
			size_t k = j == 0 ? 0 : j + 1 < n_ps ? j + 1 : 1;
			if (k > 0 && !ps[k].n)
				continue;
			s[ns++] = (struct gpuvm_plot_series){
				.name = k ? ps[k].name : "gpuvm (simulated)",
				.x = xs[k],
				.y = ys[k],
				.n = ps[k].n,
				.style = k ? ps[k].style : NULL,
			};
		}
		char path[PATH_MAX], title[160];
		figure_path(base, gpu, fig ? "bandwidth" : "latency", path, sizeof path);
		snprintf(title, sizeof title, fig ? "%s: STREAM triad bandwidth vs occupancy"
						  : "%s: pointer-chase latency vs footprint", gpu);
		struct gpuvm_plot_opts o = {.title = title,
					    .xlabel = fig ? "occupancy (threads per SM, in 2 CTAs)"
							  : "footprint (bytes)",
					    .ylabel = fig ? "bandwidth (GB/s)" : "latency (cycles per load)",
					    .logx = true,
					    .x_bytes = !fig,
					    .fixed_scales = true,
					    .note = *note ? note : NULL};
		rc = gpuvm_plot_lines_opts(path, &o, s, ns, err);
	}
	free(buf);
	return rc;
}
