/* gpuvm stats: the statistics registry (gpuvm/stats_registry.h) as a
 * table, JSON or CSV, a description of named metrics, and --check, which
 * lists the keys or columns of a run's output the registry lacks. */
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/input_file.h"
#include "gpuvm/output_file.h"
#include "gpuvm/csv.h"
#include "gpuvm/stats_registry.h"

static void usage(FILE *out)
{
	fputs("usage: gpuvm stats [NAME...] [--json FILE] [--csv FILE] [--quiet]\n"
	      "       gpuvm stats --check FILE...\n"
	      "\n"
	      "Lists every statistic gpuvm reports, with its unit and what it counts:\n"
	      "the keys of `gpuvm sim --json` (nested objects joined by '.', a list of\n"
	      "objects as [], as pandas.json_normalize names them), the metric columns of\n"
	      "sweep CSVs (the same names with '_': uvm.far_faults -> uvm_far_faults,\n"
	      "tlb[].hits -> tlb_l1_hits, tlb_l2_hits, ...) and the kernel and alloc rows of\n"
	      "`gpuvm sim --stats-csv`.\n"
	      "\n"
	      "  NAME...       describe these (JSON path, CSV column, --stats-csv metric,\n"
	      "                or a short form: `ipc`, `bytes`, `far_faults` list every\n"
	      "                name ending in it); an unknown one is an error with the\n"
	      "                closest name\n"
	      "  --json FILE   the registry as a JSON array (name, csv, unit, label, scope,\n"
	      "                description); - for stdout\n"
	      "  --csv FILE    the same as CSV; - for stdout\n"
	      "  --check FILE...  read sim JSON, sweep JSON, sweep CSV or --stats-csv files\n"
	      "                and list every key or metric column the registry lacks\n"
	      "                (exit 1 if any)\n"
	      "  --quiet, -q   no table (with --json/--csv, or --check: only the exit status)\n"
	      "\n"
	      "Units: count, cycles (GPU cycles), s (simulated seconds, unless the name\n"
	      "says wall), bytes, pages, ratio (0..1), 1/s, bool, text, index.\n"
	      "\n"
	      "exit status: 0 ok, 1 --check found undocumented keys or an output failed,\n"
	      "2 bad input.\n",
	      out);
}

static const char *const scope_names[] = {"run", "kernel", "alloc", "meta"};

/* The CSV spelling of a registry name, or "" where no sweep CSV has it. */
static void csv_name(const struct gpuvm_stat_info *s, char *buf, size_t len)
{
	buf[0] = 0;
	if (s->scope == GPUVM_STAT_KERNEL || s->scope == GPUVM_STAT_ALLOC ||
	    !strcmp(s->unit, "text"))
		return;
	const char *p = s->name;
	size_t o = 0;
	if (strstr(p, "[]") && strncmp(p, "tlb[].", 6))
		return;
	if (!strncmp(p, "tlb[].", 6)) {
		if (strstr(p + 6, "[]"))
			return;
		o = (size_t)snprintf(buf, len, "tlb_lN_");
		p += 6;
	}
	for (; *p && o + 1 < len; p++)
		buf[o++] = *p == '.' ? '_' : *p;
	buf[o] = 0;
}

static int write_registry(const char *path, bool json, struct gpuvm_error *err)
{
	struct gpuvm_output o;
	if (gpuvm_output_open(&o, path, err))
		return -1;
	char csv[160];
	if (json) {
		cJSON *a = cJSON_CreateArray();
		for (size_t i = 0; i < gpuvm_stat_count(); i++) {
			const struct gpuvm_stat_info *s = gpuvm_stat_at(i);
			cJSON *e = cJSON_CreateObject();
			csv_name(s, csv, sizeof csv);
			cJSON_AddStringToObject(e, "name", s->name);
			cJSON_AddStringToObject(e, "csv", csv);
			cJSON_AddStringToObject(e, "unit", s->unit);
			cJSON_AddStringToObject(e, "label", s->label ? s->label : s->name);
			cJSON_AddStringToObject(e, "scope", scope_names[s->scope]);
			cJSON_AddStringToObject(e, "description", s->help);
			cJSON_AddItemToArray(a, e);
		}
		char *text = cJSON_Print(a);
		cJSON_Delete(a);
		if (text) {
			fputs(text, o.f);
			fputc('\n', o.f);
		}
		free(text);
	} else {
		fputs("name,csv,unit,label,scope,description\n", o.f);
		for (size_t i = 0; i < gpuvm_stat_count(); i++) {
			const struct gpuvm_stat_info *s = gpuvm_stat_at(i);
			csv_name(s, csv, sizeof csv);
			const char *f[] = {s->name, csv, s->unit, s->label ? s->label : s->name,
					   scope_names[s->scope], s->help};
			for (int k = 0; k < 6; k++) {
				if (k)
					fputc(',', o.f);
				gpuvm_csv_field(o.f, f[k]);
			}
			fputc('\n', o.f);
		}
	}
	return gpuvm_output_close(&o, err);
}

static void print_one(FILE *out, const struct gpuvm_stat_info *s)
{
	char csv[160];
	csv_name(s, csv, sizeof csv);
	fprintf(out, "%-44s %-7s %s%s%s%s\n", s->name, s->unit, s->help, csv[0] ? " [CSV " : "",
		csv, csv[0] ? "]" : "");
}

static void print_table(FILE *out)
{
	static const char *const heads[] = {
		"Per run (sim JSON; sweep CSV columns with '_' for '.')",
		"Per kernel launch (JSON kernels[]; --stats-csv scope kernel)",
		"Per allocation (--stats-csv scope alloc)",
		"What produced the numbers",
	};
	for (int sc = 0; sc < 4; sc++) {
		fprintf(out, "%s%s\n", sc ? "\n" : "", heads[sc]);
		for (size_t i = 0; i < gpuvm_stat_count(); i++) {
			const struct gpuvm_stat_info *s = gpuvm_stat_at(i);
			if ((int)s->scope == sc)
				print_one(out, s);
		}
	}
}

/* ---- --check ----------------------------------------------------------- */

struct unknown {
	char **names;
	size_t n;
};

static void note_unknown(struct unknown *u, const char *name)
{
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->names[i], name))
			return;
	char **p = realloc(u->names, (u->n + 1) * sizeof *p);
	if (!p || !(p[u->n] = strdup(name))) {
		fprintf(stderr, "gpuvm stats: out of memory\n");
		exit(1);
	}
	u->names = p;
	u->n++;
}

/* Whether the registry documents path as a list: path[] itself, or
 * fields of its elements (path[].NAME). */
static bool list_known(const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < gpuvm_stat_count(); i++) {
		const char *name = gpuvm_stat_at(i)->name;
		if (!strncmp(name, path, n) && !strncmp(name + n, "[]", 2))
			return true;
	}
	return false;
}

/* Every key under o: JSON paths with list indices as []. */
static void check_json(const cJSON *o, const char *prefix, struct unknown *u, int depth)
{
	const cJSON *it;
	if (depth > 8)
		return;
	cJSON_ArrayForEach(it, o) {
		if (!it->string)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s%s", prefix, it->string);
		if (depth == 0 && (!strcmp(path, "config") || !strcmp(path, "point"))) {
			continue; /* documented as config.* and point.* */
		} else if (depth == 0 && !strcmp(path, "gpu") && cJSON_IsArray(it)) {
			/* a system report's GPUs: each section is a one-GPU run's
			 * report (src/report/report_system.c), checked as one */
			const cJSON *e;
			cJSON_ArrayForEach(e, it)
				if (cJSON_IsObject(e))
					check_json(e, "", u, 0);
		} else if (cJSON_IsObject(it)) {
			char sub[520];
			snprintf(sub, sizeof sub, "%s.", path);
			check_json(it, sub, u, depth + 1);
		} else if (cJSON_IsArray(it) && !it->child) {
			/* an empty list (a GPU of a system that ran no kernel):
			 * known when the registry documents its elements */
			if (!list_known(path))
				note_unknown(u, path);
		} else if (cJSON_IsArray(it) && cJSON_IsObject(it->child)) {
			char sub[520];
			snprintf(sub, sizeof sub, "%s[].", path);
			const cJSON *e;
			cJSON_ArrayForEach(e, it)
				check_json(e, sub, u, depth + 1);
		} else {
			char name[520];
			snprintf(name, sizeof name, "%s%s", path, cJSON_IsArray(it) ? "[]" : "");
			if (!gpuvm_stat_find(name))
				note_unknown(u, name);
		}
	}
}

/* Reads a whole file; NULL with a message on failure. */
static char *slurp(const char *path, size_t *len)
{
	/* bounded: a FIFO or /dev/zero is refused, not read forever */
	struct gpuvm_error err;
	FILE *f = gpuvm_input_fopen_any(path, "input", 0, &err);
	if (!f) {
		fprintf(stderr, "gpuvm stats: %s\n", err.msg);
		return NULL;
	}
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? 2 * cap : 65536;
			char *b = realloc(buf, cap + 1);
			if (!b) {
				free(buf);
				fclose(f);
				fprintf(stderr, "gpuvm stats: out of memory\n");
				return NULL;
			}
			buf = b;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "gpuvm stats: %s: read error\n", path);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* Splits one CSV line (no quoted newlines in headers) into fields. */
static size_t csv_fields(char *line, char **out, size_t max)
{
	size_t n = 0;
	char *p = line;
	while (n < max) {
		char *start = p, *w = p;
		if (*p == '"') {
			p++;
			for (; *p; p++) {
				if (*p == '"' && p[1] == '"')
					*w++ = '"', p++;
				else if (*p == '"') {
					p++;
					break;
				} else
					*w++ = *p;
			}
		} else {
			while (*p && *p != ',')
				*w++ = *p++;
		}
		char *next = *p == ',' ? p + 1 : NULL;
		*w = 0;
		out[n++] = start;
		if (!next)
			break;
		p = next;
	}
	return n;
}

#define CSV_MAX_COLS 4096

static int check_csv(const char *path, char *text, struct unknown *u)
{
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	if (nl && nl > text && nl[-1] == '\r')
		nl[-1] = 0;
	char **col = malloc(CSV_MAX_COLS * sizeof *col);
	if (!col)
		return -1;
	size_t n = csv_fields(text, col, CSV_MAX_COLS);
	if (n >= 8 && !strcmp(col[3], "scope") && !strcmp(col[7], "metric")) {
		/* --stats-csv: check each row's scope.metric */
		char *line = nl ? nl + 1 : NULL;
		while (line && *line) {
			char *end = strchr(line, '\n');
			if (end)
				*end = 0;
			char *f[16];
			size_t k = csv_fields(line, f, 16);
			if (k >= 8) {
				char name[600];
				if (!strcmp(f[3], "kernel"))
					snprintf(name, sizeof name, "kernel.%s", f[7]);
				else if (!strcmp(f[3], "alloc"))
					snprintf(name, sizeof name, "alloc.%s", f[7]);
				else
					snprintf(name, sizeof name, "%s", f[7]);
				if (!gpuvm_stat_find(name))
					note_unknown(u, name);
			}
			line = end ? end + 1 : NULL;
		}
		free(col);
		return 0;
	}
	/* a sweep CSV: gpu, varied keys (KEY, KEY_bytes), metrics, workload,
	 * seed, point, error. A varied key is a config key or workload.X
	 * (it has a '.'), or seed. */
	for (size_t j = 0; j < n; j++) {
		const char *c = col[j];
		if (!strcmp(c, "gpu") || !strcmp(c, "workload") || !strcmp(c, "seed") ||
		    !strcmp(c, "point") || !strcmp(c, "error") || strchr(c, '.'))
			continue;
		/* a system point's GPU D: gpu_D_METRIC, a one-GPU run's METRIC
		 * (src/cli/sweep_output.c) */
		if (!strncmp(c, "gpu_", 4) && isdigit((unsigned char)c[4])) {
			const char *m = c + 4;
			while (isdigit((unsigned char)*m))
				m++;
			if (*m == '_')
				c = m + 1;
		}
		/* the sweep's ratio of a hits / misses pair of the totals
		 * (sweep_output.c derives one for every pair) */
		size_t len = strlen(c);
		if (!strncmp(c, "totals_", 7) && len > 10 && !strcmp(c + len - 10, "_hit_ratio") &&
		    gpuvm_stat_find(c + 7))
			continue;
		if (!gpuvm_stat_find(c))
			note_unknown(u, col[j]);
	}
	(void)path;
	free(col);
	return 0;
}

static int check_files(char **files, int n, bool quiet)
{
	struct unknown u = {0};
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		size_t len;
		char *text = slurp(files[i], &len);
		if (!text) {
			rc = 2;
			break;
		}
		const char *p = text;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p == '{' || *p == '[') {
			cJSON *j = cJSON_ParseWithLength(text, len);
			if (!j) {
				fprintf(stderr, "gpuvm stats: %s: not valid JSON (near byte %zu)\n",
					files[i], (size_t)(cJSON_GetErrorPtr() - text));
				rc = 2;
			} else if (cJSON_IsArray(j)) {
				const cJSON *e;
				cJSON_ArrayForEach(e, j)
					check_json(e, "", &u, 0);
			} else {
				check_json(j, "", &u, 0);
			}
			cJSON_Delete(j);
		} else if (check_csv(files[i], text, &u)) {
			fprintf(stderr, "gpuvm stats: out of memory\n");
			rc = 1;
		}
		free(text);
	}
	if (rc == 0 && u.n) {
		rc = 1;
		if (!quiet) {
			fprintf(stderr, "gpuvm stats: %zu key%s not in the registry "
					"(src/report/stats_registry.c):\n", u.n, u.n == 1 ? "" : "s");
			for (size_t i = 0; i < u.n; i++)
				fprintf(stderr, "  %s\n", u.names[i]);
		}
	}
	for (size_t i = 0; i < u.n; i++)
		free(u.names[i]);
	free(u.names);
	return rc;
}

int gpuvm_cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", required_argument, 0, 'j'}, {"csv", required_argument, 0, 'c'},
		{"check", no_argument, 0, 'k'},      {"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},       {0, 0, 0, 0},
	};
	const char *json = NULL, *csv = NULL;
	bool check = false, quiet = false;
	int c;
	optind = 1;
	struct gpuvm_getopt go; /* no valued option may repeat (cli_options.h) */
	static const struct gpuvm_cli_output outputs[] = {
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"csv", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{0},
	};
	gpuvm_getopt_init(&go, opts, NULL);
	gpuvm_getopt_outputs(&go, outputs);
	while ((c = gpuvm_getopt(&go, argc, argv, "qh")) != -1) {
		if (c == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm stats: %s\n", go.why);
			return 2;
		}
		switch (c) {
		case 'j':
			json = optarg;
			break;
		case 'c':
			csv = optarg;
			break;
		case 'k':
			check = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "gpuvm stats: %s (see gpuvm stats --help)\n", go.why);
			return 2;
		}
	}
	if (gpuvm_cli_claim_or_report(&go, "stats"))
		return 2;
	if (check) {
		if (json || csv) {
			fprintf(stderr, "gpuvm stats: --check takes files to read, not --json/--csv\n");
			return 2;
		}
		if (optind >= argc) {
			fprintf(stderr, "gpuvm stats: --check needs files (sim JSON, sweep CSV ...)\n");
			return 2;
		}
		return check_files(argv + optind, argc - optind, quiet);
	}
	if (optind < argc) {
		int rc = 0;
		for (int i = optind; i < argc; i++) {
			/* a bare name ("ipc", "bytes", "far_faults"): every entry
			 * whose name ends in it; else the JSON path or CSV column */
			const struct gpuvm_stat_info *hit[64];
			size_t n = gpuvm_stat_find_short(argv[i], hit, 64);
			const struct gpuvm_stat_info *s = gpuvm_stat_find(argv[i]);
			if (s && (n == 0 || strpbrk(argv[i], ".["))) {
				hit[0] = s;
				n = 1;
			}
			if (n) {
				for (size_t h = 0; h < n && h < 64 && !quiet; h++)
					print_one(stdout, hit[h]);
				continue;
			}
			const char *near = gpuvm_stat_suggest(argv[i], !strchr(argv[i], '.'));
			fprintf(stderr, "gpuvm stats: unknown statistic '%s'%s%s%s\n", argv[i],
				near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
			rc = 2;
		}
		return rc;
	}
	struct gpuvm_error err = {{0}};
	if ((json && gpuvm_output_check(json, "--json", true, &err)) ||
	    (csv && gpuvm_output_check(csv, "--csv", true, &err))) {
		fprintf(stderr, "gpuvm stats: %s\n", err.msg);
		return 2;
	}
	gpuvm_output_batch_begin();
	if ((json && write_registry(json, true, &err)) || (csv && write_registry(csv, false, &err)) ||
	    gpuvm_output_batch_commit(&err)) {
		gpuvm_output_batch_abort();
		fprintf(stderr, "gpuvm stats: %s\n", err.msg);
		return GPUVM_EXIT_OUTPUT_FAILED;
	}
	bool to_stdout = (json && !strcmp(json, "-")) || (csv && !strcmp(csv, "-"));
	if (!quiet && !to_stdout && !json && !csv)
		print_table(stdout);
	return 0;
}
