/* gpuvm sweep merge PART.csv... --csv OUT: joins the CSVs of a sharded
 * sweep (--shard I/N) into the CSV one run of the whole grid writes.
 *
 * Rows are put in grid order by their `point` column. Columns are joined
 * by name: the fixed ones (gpu and the varied keys first; workload, seed,
 * point, error last) must be the same in every file; the metric columns
 * between them are ordered as the sweep orders them - by
 * sweep_metric_rank, then by first appearance walking the points in grid
 * order - which the files give back because a metric cell is empty exactly
 * when the point has no such metric. Files of different sweeps, a point
 * in two files, or a point in none are refused, and nothing is written. */
#include "cli_options.h"
#include "commands.h"
#include "gpuvm/number.h"
#include "sweep_internal.h"
#include "gpuvm/output_file.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		fprintf(stderr, "gpuvm sweep merge: out of memory\n");
		exit(1);
	}
	return p;
}

static void usage(FILE *f)
{
	fputs("usage: gpuvm sweep merge PART.csv... --csv OUT\n"
	      "\n"
	      "Joins the CSVs of a sweep run in shards (gpuvm sweep --shard I/N ... --csv\n"
	      "PART.csv) into exactly the CSV a single run of the whole grid gives: rows in\n"
	      "grid order (by the point column), columns joined by name in the sweep's\n"
	      "order. Only wall-time columns differ from a single run's.\n"
	      "\n"
	      "Refused (exit 2, nothing written): a file that is not a sweep CSV, files\n"
	      "whose fixed columns differ (different --gpu/--vary: another sweep), a point\n"
	      "in two files, a point in none (a shard missing).\n"
	      "\n"
	      "  --csv OUT   the merged CSV (- for stdout)\n"
	      "  -q, --quiet no summary on stderr\n",
	      f);
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("gpuvm sweep merge: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

/* The layout of one sweep CSV: [0, prefix) fixed, [prefix, suffix)
 * metrics, [suffix, ncol) fixed (workload ... error). */
struct layout {
	size_t prefix, suffix;
};

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

static int layout_of(const struct sweep_csv *t, struct layout *l, struct gpuvm_error *err)
{
	size_t n = t->ncol;
	if (n < 4 || strcmp(t->head[0], "gpu") != 0 || strcmp(t->head[n - 2], "point") != 0 ||
	    strcmp(t->head[n - 1], "error") != 0)
		return gpuvm_fail(err, t->path, 1, NULL,
				  "not a sweep CSV (its columns must start with gpu and end with "
				  "point,error; CSVs of gpuvm before --shard have no point column)");
	size_t w = n;
	for (size_t c = n - 2; c-- > 0;)
		if (strcmp(t->head[c], "workload") == 0) {
			w = c;
			break;
		}
	if (w == n || n - w > 4)
		return gpuvm_fail(err, t->path, 1, NULL,
				  "not a sweep CSV (no workload column before point,error)");
	size_t p = 1;
	while (p < w) {
		const char *name = t->head[p], *prev = t->head[p - 1];
		size_t pl = strlen(prev);
		/* gpus and nvlink: a --system sweep's modifiers (sweep_grid.c;
		 * a system's "gpus" metric ranks after the preferred ones, so
		 * it never follows the varied columns) */
		bool param = strchr(name, '.') || strcmp(name, "seed") == 0 ||
			     strcmp(name, "gpus") == 0 || strcmp(name, "nvlink") == 0 ||
			     (ends_with(name, "_bytes") && strlen(name) == pl + 6 &&
			      strncmp(name, prev, pl) == 0);
		if (!param)
			break;
		p++;
	}
	l->prefix = p;
	l->suffix = w;
	return 0;
}

static char *join_cols(const struct sweep_csv *t, size_t from, size_t to)
{
	size_t len = 1;
	for (size_t c = from; c < to; c++)
		len += strlen(t->head[c]) + 1;
	char *s = xcalloc(len, 1);
	for (size_t c = from; c < to; c++) {
		if (c > from)
			strcat(s, ",");
		strcat(s, t->head[c]);
	}
	return s;
}

struct entry {
	size_t point, file, row;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *p = a, *q = b;
	if (p->point != q->point)
		return p->point < q->point ? -1 : 1;
	return p->file < q->file ? -1 : p->file > q->file;
}

struct metric {
	const char *name;
	size_t rank, order;
};

static int cmp_metric(const void *a, const void *b)
{
	const struct metric *p = a, *q = b;
	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	return p->order < q->order ? -1 : p->order > q->order;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Fixed columns: the same in every file. 0, or bad()'s status. */
static int check_fixed_columns(struct sweep_csv *t, size_t nf, const struct layout *l)
{
	int rc = 0;
	for (size_t f = 1; f < nf && !rc; f++) {
		char *a = join_cols(&t[0], 0, l[0].prefix), *b = join_cols(&t[f], 0, l[f].prefix);
		char *c = join_cols(&t[0], l[0].suffix, t[0].ncol);
		char *d = join_cols(&t[f], l[f].suffix, t[f].ncol);
		if (strcmp(a, b) != 0)
			rc = bad("%s: its grid columns (%s) differ from %s's (%s): CSVs of "
				 "different sweeps", t[f].path, b, t[0].path, a);
		else if (strcmp(c, d) != 0)
			rc = bad("%s: its last columns (%s) differ from %s's (%s): CSVs of "
				 "different sweeps", t[f].path, d, t[0].path, c);
		free(a), free(b), free(c), free(d);
	}
	return rc;
}

/* Rows by point (e: n entries, sorted): none twice, none missing. 0, or
 * bad()'s status. */
static int collect_points(struct sweep_csv *t, size_t nf, struct entry *e, size_t n)
{
	int rc = 0;
	size_t k = 0;
	for (size_t f = 0; f < nf && !rc; f++) {
		size_t pc = t[f].ncol - 2;
		for (size_t r = 0; r < t[f].nrows && !rc; r++) {
			const char *v = t[f].rows[r][pc];
			uint64_t p = 0;
			if (gpuvm_num_u64(v, strlen(v), 0, SWEEP_MAX_POINTS - 1, &p))
				rc = bad("%s:%zu: point '%s' is not a grid index", t[f].path,
					 t[f].line[r], v);
			e[k++] = (struct entry){(size_t)p, f, r};
		}
	}
	if (!rc && n)
		qsort(e, n, sizeof *e, cmp_entry);
	for (size_t i = 0; i < n && !rc; i++) {
		if (i > 0 && e[i].point == e[i - 1].point)
			rc = bad("point %zu is in %s (line %zu) and in %s (line %zu): overlapping "
				 "shards", e[i].point, t[e[i - 1].file].path, t[e[i - 1].file].line[e[i - 1].row],
				 t[e[i].file].path, t[e[i].file].line[e[i].row]);
		else if (e[i].point != i)
			rc = bad("point %zu is in none of the files (a shard missing?)", i);
	}
	return rc;
}

/* None missing at the end: the grid is the product of the values seen in
 * each grid column. 0, or bad()'s status. */
static int check_grid(struct sweep_csv *t, const struct layout *l, const struct entry *e, size_t n)
{
	const char **vals = xcalloc(n, sizeof *vals);
	double grid = 1;
	for (size_t c = 0; c < l[0].prefix; c++) {
		if (c > 0 && ends_with(t[0].head[c], "_bytes") &&
		    strlen(t[0].head[c]) == strlen(t[0].head[c - 1]) + 6)
			continue;
		for (size_t i = 0; i < n; i++)
			vals[i] = t[e[i].file].rows[e[i].row][c];
		qsort(vals, n, sizeof *vals, cmp_str);
		size_t distinct = 1;
		for (size_t i = 1; i < n; i++)
			distinct += strcmp(vals[i], vals[i - 1]) != 0;
		grid *= (double)distinct;
	}
	free(vals);
	if (grid != (double)n)
		return bad("the files hold %zu points, but their gpu and varied values span a "
			   "grid of %.0f: %s", n, grid,
			   grid > (double)n ? "points are missing (a shard missing?)"
					    : "some points repeat (CSVs of different sweeps?)");
	return 0;
}

/* The metric columns of every file, in the sweep's order (*nm of them);
 * fmap[f][c]: file f's column c -> its metric, -1 where none. */
static struct metric *collect_metrics(struct sweep_csv *t, const struct layout *l,
				      const struct entry *e, size_t n, long **fmap, size_t *nm_out)
{
	struct metric *m = NULL;
	size_t nm = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sweep_csv *tf = &t[e[i].file];
		const struct layout *lf = &l[e[i].file];
		char **row = tf->rows[e[i].row];
		for (size_t c = lf->prefix; c < lf->suffix; c++) {
			if (!*row[c] || fmap[e[i].file][c] >= 0)
				continue;
			long found = -1;
			for (size_t j = 0; j < nm && found < 0; j++)
				if (strcmp(m[j].name, tf->head[c]) == 0)
					found = (long)j;
			if (found < 0) {
				if (nm == cap) {
					cap = cap ? 2 * cap : 128;
					m = realloc(m, cap * sizeof *m);
					if (!m) {
						fprintf(stderr, "gpuvm sweep merge: out of memory\n");
						exit(1);
					}
				}
				m[nm] = (struct metric){tf->head[c], sweep_metric_rank(tf->head[c]), nm};
				found = (long)nm++;
			}
			fmap[e[i].file][c] = found;
		}
	}
	if (nm)
		qsort(m, nm, sizeof *m, cmp_metric);
	*nm_out = nm;
	return m;
}

/* The merged CSV at out: the grid columns, the metrics (omap[f][j]: file
 * f's column of metric j, -1 where none), the last columns. 0, or 1 with
 * the message printed. */
static int write_merged(struct sweep_csv *t, size_t nf, const struct layout *l,
			const struct entry *e, size_t n, const struct metric *m, size_t nm,
			long **omap, const char *out, bool quiet)
{
	struct gpuvm_error err = {{0}};
	struct gpuvm_output o;
	if (gpuvm_output_open(&o, out, &err) != 0)
		return bad("%s", err.msg);
	FILE *fo = o.f;
	for (size_t c = 0; c < l[0].prefix; c++) {
		if (c)
			fputc(',', fo);
		gpuvm_csv_field(fo, t[0].head[c]);
	}
	for (size_t j = 0; j < nm; j++) {
		fputc(',', fo);
		gpuvm_csv_field(fo, m[j].name);
	}
	for (size_t c = l[0].suffix; c < t[0].ncol; c++) {
		fputc(',', fo);
		gpuvm_csv_field(fo, t[0].head[c]);
	}
	fputc('\n', fo);
	for (size_t i = 0; i < n; i++) {
		size_t f = e[i].file;
		char **row = t[f].rows[e[i].row];
		for (size_t c = 0; c < l[f].prefix; c++) {
			if (c)
				fputc(',', fo);
			gpuvm_csv_field(fo, row[c]);
		}
		for (size_t j = 0; j < nm; j++) {
			fputc(',', fo);
			if (omap[f][j] >= 0)
				gpuvm_csv_field(fo, row[omap[f][j]]);
		}
		for (size_t c = l[f].suffix; c < t[f].ncol; c++) {
			fputc(',', fo);
			gpuvm_csv_field(fo, row[c]);
		}
		fputc('\n', fo);
	}
	if (gpuvm_output_close(&o, &err) != 0) {
		fprintf(stderr, "gpuvm sweep merge: %s\n", err.msg);
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "gpuvm sweep merge: %zu points from %zu file%s into %s\n", n, nf,
			nf == 1 ? "" : "s", out);
	return 0;
}

static int merge(struct sweep_csv *t, size_t nf, const char *out, bool quiet)
{
	struct gpuvm_error err = {{0}};
	struct layout *l = xcalloc(nf, sizeof *l);
	int rc = 0;
	for (size_t f = 0; f < nf && !rc; f++)
		if (layout_of(&t[f], &l[f], &err) != 0)
			rc = bad("%s", err.msg);
	if (!rc)
		rc = check_fixed_columns(t, nf, l);
	size_t n = 0;
	for (size_t f = 0; f < nf; f++)
		n += t[f].nrows;
	struct entry *e = xcalloc(n, sizeof *e);
	if (!rc)
		rc = collect_points(t, nf, e, n);
	if (!rc && n)
		rc = check_grid(t, l, e, n);

	/* metric columns, in the sweep's order */
	struct metric *m = NULL;
	size_t nm = 0;
	long **fmap = xcalloc(nf, sizeof *fmap); /* file column -> metric */
	for (size_t f = 0; f < nf; f++) {
		fmap[f] = xcalloc(t[f].ncol, sizeof **fmap);
		for (size_t c = 0; c < t[f].ncol; c++)
			fmap[f][c] = -1;
	}
	if (!rc)
		m = collect_metrics(t, l, e, n, fmap, &nm);
	/* output column j <- file column, per file */
	long **omap = xcalloc(nf, sizeof *omap);
	for (size_t f = 0; f < nf && !rc; f++) {
		omap[f] = xcalloc(nm, sizeof **omap);
		for (size_t j = 0; j < nm; j++) {
			omap[f][j] = -1;
			for (size_t c = l[f].prefix; c < l[f].suffix; c++)
				if (strcmp(t[f].head[c], m[j].name) == 0)
					omap[f][j] = (long)c;
		}
	}
	if (!rc)
		rc = write_merged(t, nf, l, e, n, m, nm, omap, out, quiet);
	for (size_t f = 0; f < nf; f++) {
		free(fmap[f]);
		if (omap)
			free(omap[f]);
	}
	free(fmap);
	free(omap);
	free(m);
	free(e);
	free(l);
	return rc;
}

int sweep_merge_main(int argc, char **argv)
{
	const char *out = NULL;
	bool quiet = false;
	const char **files = xcalloc((size_t)argc, sizeof *files);
	size_t nf = 0;
	int rc = 0;
	/* getopt as every command parses (cli_options.h): --csv given twice is
	 * an error quoting both, and the CSV is claimed in the output registry */
	static const struct option opts[] = {
		{"csv", required_argument, 0, 'c'}, {"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},      {0, 0, 0, 0},
	};
	static const struct gpuvm_cli_output outputs[] = {
		{"csv", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{0},
	};
	struct gpuvm_getopt go;
	gpuvm_getopt_init(&go, opts, NULL);
	gpuvm_getopt_outputs(&go, outputs);
	optind = 1;
	opterr = 0;
	int c;
	while (!rc && (c = gpuvm_getopt(&go, argc, argv, ":qh")) != -1) {
		if (c == GPUVM_GETOPT_REPEATED) {
			rc = bad("%s", go.why);
		} else if (c == 'h') {
			usage(stdout);
			free(files);
			return 0;
		} else if (c == 'q') {
			quiet = true;
		} else if (c == 'c') {
			out = optarg;
		} else {
			rc = bad("%s", go.why); /* '?' or ':', explained by gpuvm_getopt */
		}
	}
	for (int i = optind; i < argc && !rc; i++) {
		if (!strcmp(argv[i], "-"))
			rc = bad("'-': the parts are files (standard input is not read)");
		files[nf++] = argv[i];
	}
	if (!rc && gpuvm_cli_claim_or_report(&go, "sweep merge"))
		rc = 2;
	if (!rc && !nf)
		rc = bad("no CSV to merge (usage: gpuvm sweep merge PART.csv... --csv OUT)");
	if (!rc && !out)
		rc = bad("--csv OUT is required (- for stdout)");
	if (!rc && !*out)
		rc = bad("--csv: empty file name");
	struct gpuvm_error err = {{0}};
	if (!rc && gpuvm_output_check(out, "--csv", true, &err) != 0)
		rc = bad("%s", err.msg);
	struct sweep_csv *t = xcalloc(nf, sizeof *t);
	size_t nread = 0;
	for (size_t f = 0; f < nf && !rc; f++) {
		if (sweep_csv_read(files[f], &t[f], &err) != 0)
			rc = bad("%s", err.msg);
		else
			nread++;
	}
	if (!rc)
		rc = merge(t, nf, out, quiet);
	for (size_t f = 0; f < nread; f++)
		sweep_csv_free(&t[f]);
	free(t);
	free(files);
	fflush(stdout);
	return rc;
}
