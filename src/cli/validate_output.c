/* gpuvm validate's outputs (validate_internal.h): the table on stdout and
 * the CSV, JSON and figure files, one record per manifest row. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/validate_internal.h"
#include "gpuvm/csv.h"
#include "gpuvm/output_file.h"
#include "gpuvm/plot.h"
#include "gpuvm_version.h"

static void csv_num(FILE *f, bool have, double v)
{
	if (have && isfinite(v))
		fprintf(f, "%.10g", v);
}

/* Columns of the CSV and the JSON records, in this order. */
#define ROW_COLUMNS                                                                     \
	"name,preset,measured_us,simulated_us,ratio,error_percent,status,note,"           \
	"manifest_preset,device,trace,trace_resolved,what,source,kernels,"                \
	"sim_kernel_cycles,clock_mhz,kernel_launch_us,manifest,manifest_line,convention,role"

int validate_write_csv(const struct manifest *m, const char *path, struct gpuvm_error *err)
{
	struct gpuvm_output o;
	if (gpuvm_output_open(&o, path, err))
		return -1;
	FILE *f = o.f;
	fputs(ROW_COLUMNS "\n", f);
	for (size_t i = 0; i < m->n; i++) {
		const struct vrow *r = &m->rows[i];
		bool ok = !r->skipped;
		gpuvm_csv_field(f, r->f[C_NAME]);
		fputc(',', f);
		gpuvm_csv_field(f, r->preset);
		fputc(',', f);
		csv_num(f, true, r->measured_us);
		fputc(',', f);
		csv_num(f, ok, r->sim_us);
		fputc(',', f);
		csv_num(f, ok, r->ratio);
		fputc(',', f);
		csv_num(f, ok, r->error_pct);
		fputs(ok ? ",ok," : ",skipped,", f);
		gpuvm_csv_field(f, r->note);
		fputc(',', f);
		gpuvm_csv_field(f, r->f[C_PRESET]);
		fputc(',', f);
		gpuvm_csv_field(f, r->f[C_DEVICE]);
		fputc(',', f);
		gpuvm_csv_field(f, r->f[C_TRACE]);
		fputc(',', f);
		gpuvm_csv_field(f, r->trace_path);
		fputc(',', f);
		gpuvm_csv_field(f, r->f[C_WHAT]);
		fputc(',', f);
		gpuvm_csv_field(f, r->f[C_SOURCE]);
		fputc(',', f);
		if (ok)
			fprintf(f, "%llu", (unsigned long long)r->kernels);
		fputc(',', f);
		csv_num(f, ok, r->kernel_cycles);
		fputc(',', f);
		csv_num(f, true, r->cfg->clock_mhz);
		fputc(',', f);
		csv_num(f, true, r->cfg->kernel_launch_us);
		fputc(',', f);
		gpuvm_csv_field(f, m->path);
		fprintf(f, ",%d,%s,%s\n", r->line, validate_convention_names[r->conv],
			r->calibration ? "calibration" : "validation");
	}
	return gpuvm_output_close(&o, err);
}

static void json_num(cJSON *o, const char *k, bool have, double v)
{
	if (have && isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

int validate_write_json(const struct manifest *m, const char *path, struct gpuvm_error *err)
{
	cJSON *arr = cJSON_CreateArray();
	if (!arr)
		return gpuvm_fail(err, "--json", 0, NULL, "out of memory");
	for (size_t i = 0; i < m->n; i++) {
		const struct vrow *r = &m->rows[i];
		bool ok = !r->skipped;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, "name", r->f[C_NAME]);
		cJSON_AddStringToObject(o, "preset", r->preset);
		json_num(o, "measured_us", true, r->measured_us);
		json_num(o, "simulated_us", ok, r->sim_us);
		json_num(o, "ratio", ok, r->ratio);
		json_num(o, "error_percent", ok, r->error_pct);
		cJSON_AddStringToObject(o, "status", ok ? "ok" : "skipped");
		cJSON_AddStringToObject(o, "note", r->note);
		cJSON_AddStringToObject(o, "manifest_preset", r->f[C_PRESET]);
		cJSON_AddStringToObject(o, "device", r->f[C_DEVICE]);
		cJSON_AddStringToObject(o, "trace", r->f[C_TRACE]);
		cJSON_AddStringToObject(o, "trace_resolved", r->trace_path);
		cJSON_AddStringToObject(o, "what", r->f[C_WHAT]);
		cJSON_AddStringToObject(o, "source", r->f[C_SOURCE]);
		json_num(o, "kernels", ok, (double)r->kernels);
		json_num(o, "sim_kernel_cycles", ok, r->kernel_cycles);
		json_num(o, "clock_mhz", true, r->cfg->clock_mhz);
		json_num(o, "kernel_launch_us", true, r->cfg->kernel_launch_us);
		cJSON_AddStringToObject(o, "manifest", m->path);
		cJSON_AddNumberToObject(o, "manifest_line", r->line);
		cJSON_AddStringToObject(o, "convention", validate_convention_names[r->conv]);
		cJSON_AddStringToObject(o, "role", r->calibration ? "calibration" : "validation");
		cJSON_AddStringToObject(o, "gpuvm_version", GPUVM_VERSION);
		cJSON_AddStringToObject(o, "gpuvm_commit", GPUVM_COMMIT);
	}
	char *text = cJSON_Print(arr);
	cJSON_Delete(arr);
	if (!text)
		return gpuvm_fail(err, "--json", 0, NULL, "out of memory");
	int rc = gpuvm_output_write_text(path, text, err);
	free(text);
	return rc;
}

int validate_write_plot(const struct manifest *m, const struct summary *s, const char *path,
		      struct gpuvm_error *err)
{
	double *x = calloc(m->n, sizeof *x), *y = calloc(m->n, sizeof *y);
	const char **labels = calloc(m->n, sizeof *labels);
	const char **devices = calloc(m->n, sizeof *devices);
	int rc = -1;
	if (!x || !y || !labels || !devices) {
		gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
		goto out;
	}
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct vrow *r = &m->rows[i];
		if (r->skipped)
			continue;
		x[k] = r->measured_us;
		y[k] = r->sim_us;
		/* the GPU measured (the manifest's device), else the preset:
		 * its fill in the figure */
		devices[k] = r->f[C_DEVICE] && *r->f[C_DEVICE] ? r->f[C_DEVICE] : r->preset;
		labels[k++] = r->f[C_NAME];
	}
	char title[160], r_text[48];
	if (isfinite(s->r_log))
		snprintf(r_text, sizeof r_text, "r(log) = %.3f", s->r_log);
	else
		snprintf(r_text, sizeof r_text, s->n >= 3 ? "r n/a (no spread)" : "r n/a (< 3 rows)");
	snprintf(title, sizeof title, "gpuvm vs measured kernel time: %zu row%s, mean abs. error "
		 "%.1f %%, %s", s->n, s->n == 1 ? "" : "s", s->mae_pct, r_text);
	struct gpuvm_plot_opts o = {
		.title = title,
		.xlabel = "measured kernel time (µs, launch overhead excluded)",
		.ylabel = "simulated kernel time (µs, launch overhead excluded)",
	};
	/* a colour and shape per program (the name before "-<digit>"), a
	 * fill per device, and the band of errors within 20 % */
	struct gpuvm_plot_scatter sc = {.labels = labels, .devices = devices, .band_pct = 20};
	rc = gpuvm_plot_scatter_families(path, &o, &sc, x, y, k, err);
out:
	free(x);
	free(y);
	free(labels);
	free(devices);
	return rc;
}

/* Whether row i is the first of its preset. */
static bool first_of_preset(const struct manifest *m, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(m->rows[j].preset, m->rows[i].preset))
			return false;
	return true;
}

/* "mean absolute error E % over N rows" of the rows that ran among those
 * of preset (NULL: every preset) and role (-1: both; 0 validation; 1
 * calibration); "none" without such a row. */
static void print_mae(const struct manifest *m, const char *preset, int role)
{
	size_t n = 0;
	double abs_err = 0;
	for (size_t k = 0; k < m->n; k++) {
		const struct vrow *r = &m->rows[k];
		if (r->skipped || (preset && strcmp(r->preset, preset)) ||
		    (role >= 0 && r->calibration != (role == 1)))
			continue;
		n++;
		abs_err += fabs(r->error_pct);
	}
	if (n)
		printf("mean absolute error %.1f %% over %zu row%s", abs_err / (double)n, n,
		       n == 1 ? "" : "s");
	else
		printf("none");
}

/* The validation rows (nothing was set from them: the evidence) apart
 * from the calibration rows, overall and then one line per preset, in the
 * order the presets first appear. */
static void print_preset_errors(const struct manifest *m)
{
	printf("validation rows alone: ");
	print_mae(m, NULL, 0);
	printf("; calibration rows: ");
	print_mae(m, NULL, 1);
	putchar('\n');
	for (size_t i = 0; i < m->n; i++) {
		if (!first_of_preset(m, i))
			continue; /* listed at its first row */
		printf("  %-12s validation ", m->rows[i].preset);
		print_mae(m, m->rows[i].preset, 0);
		printf("; calibration ");
		print_mae(m, m->rows[i].preset, 1);
		printf("; all ");
		print_mae(m, m->rows[i].preset, -1);
		putchar('\n');
	}
}

void validate_print_table(const struct manifest *m, const struct summary *s, const char *gpu)
{
	int w = 4;
	for (size_t i = 0; i < m->n; i++) {
		int l = (int)strlen(m->rows[i].f[C_NAME]);
		if (l > w)
			w = l < 40 ? l : 40;
	}
	int pw = 6;
	for (size_t i = 0; i < m->n; i++) {
		int l = (int)strlen(m->rows[i].preset);
		if (l > pw)
			pw = l < 40 ? l : 40;
	}
	printf("manifest: %s (%zu row%s)%s%s\n", m->path, m->n, m->n == 1 ? "" : "s",
	       gpu ? "; every row on --gpu " : "", gpu ? gpu : "");
	printf("simulated: kernel time summed over the trace's kernels, timed as each row's "
	       "convention says\n(nsys: front-end and tail in, launch overhead excluded; ctas: "
	       "first CTA to last warp;\nhost: launch overhead in; nsys-median, nsys-first: "
	       "repeated launches, each kernel's median or first)\n\n");
	printf("%-*s  %-*s  %12s  %12s  %12s  %9s  %s\n", w, "name", pw, "preset", "measured us",
	       "simulated us", "sim/measured", "error %", "convention");
	for (size_t i = 0; i < m->n; i++) {
		const struct vrow *r = &m->rows[i];
		if (r->skipped)
			printf("%-*.*s  %-*.*s  %#12.4g  %12s  %12s  %9s  %s\n", w, w, r->f[C_NAME], pw,
			       pw, r->preset, r->measured_us, "skipped", "-", "-",
			       validate_convention_names[r->conv]);
		else
			printf("%-*.*s  %-*.*s  %#12.4g  %#12.4g  %12.3f  %+9.1f  %s\n", w, w,
			       r->f[C_NAME], pw, pw, r->preset, r->measured_us, r->sim_us, r->ratio,
			       r->error_pct, validate_convention_names[r->conv]);
	}
	for (size_t i = 0; i < m->n; i++)
		if (m->rows[i].skipped)
			printf("skipped %s (line %d): %s\n", m->rows[i].f[C_NAME], m->rows[i].line,
			       m->rows[i].note);
	putchar('\n');
	if (s->n)
		printf("mean absolute error: %.1f %% over %zu row%s", s->mae_pct, s->n,
		       s->n == 1 ? "" : "s");
	else
		printf("mean absolute error: n/a (no row could be run)");
	printf(" (%zu skipped)\n", s->skipped);
	print_preset_errors(m);
	if (isfinite(s->r_log))
		printf("correlation (Pearson r of log times): %.3f over %zu rows\n", s->r_log, s->n);
	else if (s->n >= 3)
		printf("correlation (Pearson r of log times): n/a (no spread in the times)\n");
	else
		printf("correlation (Pearson r of log times): n/a (needs >= 3 rows, have %zu)\n",
		       s->n);
}
