/* gpuvm validate: simulated kernel time against times measured on real
 * GPUs, like Accel-Sim's correlator. A manifest (validation/measurements.tsv)
 * lists the measurements: for each, the recorded trace is replayed on a
 * preset and the simulated quantity that matches the row's convention
 * (nsys: kernel durations with front-end and tail, launch overhead
 * excluded; ctas: first CTA to last warp; host: launch overhead too) is
 * compared with the measured one, like with like (docs/launch.md). */
#include "gpuvm/input_file.h"
#include "gpuvm/progress.h"
#include "gpuvm/number.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "cli/validate_internal.h"
#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "gpuvm/output_file.h"
#include "gpuvm/plot.h"
#include "gpuvm/trace.h"
#include "gpuvm/workload.h"
#include "gpuvm/host_memory.h"
#include "gpuvm/run.h"
#include "gpuvm/units.h"

#define DEFAULT_MANIFEST "validation/measurements.tsv"
#define MAX_MANIFEST_BYTES (16u << 20)

const char *const validate_col_names[N_COLS] = {
	"name", "trace", "device", "preset", "measured_us", "what", "source",
};
const char *const validate_convention_names[N_CONVENTIONS] = {"nsys", "ctas", "host",
							       "nsys-median", "nsys-first"};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* nsys-median and nsys-first: per kernel name (in the order the names
 * first launch), the median duration of its launches (the mean of the
 * middle two for an even count) or its first's, summed over the names. */
static double repeated_kernel_cycles(const struct gpuvm_kernel_stats *list, size_t n,
				     enum convention conv)
{
	double *d = malloc((n ? n : 1) * sizeof *d);
	bool *done = calloc(n ? n : 1, sizeof *done);
	double cycles = 0;
	if (!d || !done) {
		free(d);
		free(done);
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		const char *name = list[i].name;
		size_t m = 0;
		for (size_t j = i; j < n; j++) {
			const struct gpuvm_kernel_stats *k = &list[j];
			if (done[j] || strcmp(k->name, name))
				continue;
			done[j] = true;
			d[m++] = k->end_cycle - k->start_cycle;
		}
		if (conv == CONV_NSYS_FIRST) {
			cycles += d[0];
			continue;
		}
		qsort(d, m, sizeof *d, cmp_double);
		cycles += m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
	}
	free(d);
	free(done);
	return cycles;
}

/* The simulated time, in seconds, that a measurement of convention conv
 * gives, summed over the kernels. A kernel's record runs from its start
 * on the GPU (after its launch's overhead) to its completion, front-end
 * and tail inside (gpuvm/engine.h), which is what nsys times. */
static double validate_kernel_seconds(const struct gpuvm_config *cfg,
				      const struct gpuvm_kernel_stats *list, size_t n,
				      enum convention conv)
{
	if (conv == CONV_NSYS_MEDIAN || conv == CONV_NSYS_FIRST)
		return repeated_kernel_cycles(list, n, conv) / (cfg->clock_mhz * 1e6);
	double cycles = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gpuvm_kernel_stats *k = &list[i];
		double c = k->end_cycle - k->start_cycle;
		if (conv == CONV_CTAS)
			c -= k->frontend_cycles + k->tail_cycles;
		else if (conv == CONV_HOST)
			c += k->launch_cycles;
		cycles += c;
	}
	return cycles / (cfg->clock_mhz * 1e6);
}

static void validate_usage(FILE *out)
{
	fputs("usage: gpuvm validate [--manifest FILE] [--gpu PRESET] [--csv FILE] [--json FILE]\n"
	      "                      [--plot FILE] [--jobs N] [-q]\n"
	      "\n"
	      "Compares the simulator with real GPUs: for every measurement in the manifest\n"
	      "it replays the trace recorded on that GPU and compares the simulated kernel\n"
	      "time with the measured one, like with like: each row's convention says what\n"
	      "was timed, and the simulated quantity is the same one, summed over the trace's\n"
	      "kernels (copies are not part of it):\n"
	      "  nsys   kernel durations as nsys/CUPTI or ncu time them: start on the GPU to\n"
	      "         completion, the front-end and tail inside (gpu.kernel_frontend_cycles,\n"
	      "         kernel_tail_cycles); launch overhead is excluded on both sides\n"
	      "  ctas   first CTA start to last warp end (in-kernel clocks): front-end and\n"
	      "         tail left out\n"
	      "  host   host timers around the launches: each launch's exposed overhead added\n"
	      "  nsys-median, nsys-first  nsys durations of kernels launched several times\n"
	      "         back to back (the workload's launches=N): per kernel name the median\n"
	      "         of its launches (a profiler's summary of repeats), or its first launch\n"
	      "         (the L2 as the uploads left it), summed over the names\n"
	      "\n"
	      "Prints per row: name, preset, measured us, simulated us, sim/measured and the\n"
	      "error in % ((simulated - measured) / measured); then the mean absolute error\n"
	      "over the rows (and per preset, when the rows use several) and, with 3 rows or\n"
	      "more, the correlation (Pearson r of the log times).\n"
	      "\n"
	      "  --manifest FILE  the measurements (default: validation/measurements.tsv in\n"
	      "                   the current directory, else next to the binary's parent\n"
	      "                   directory, i.e. the repository's when run as build/gpuvm)\n"
	      "  --gpu PRESET     run every row on this preset (name or .ini file) instead of\n"
	      "                   the row's own\n"
	      "  --csv FILE       the rows as CSV (pd.read_csv); - for stdout\n"
	      "  --json FILE      the rows as a JSON array of records with gpuvm_version and\n"
	      "                   gpuvm_commit (pd.read_json(FILE, orient='records')); - for stdout\n"
	      "  --plot FILE      log-log scatter of simulated vs measured us with the line\n"
	      "                   y = x (.png, .svg, .pdf; needs gnuplot); up to 30 rows each\n"
	      "                   point names its row, beyond that points are coloured by\n"
	      "                   program (the name before its first -<digit>)\n"
	      "  --jobs N         replay N rows at once, each in its own worker process (the\n"
	      "                   results are those of one: a replay is deterministic); a\n"
	      "                   failing row is reported as with one job, the first in\n"
	      "                   the manifest's order, and the rows after it are stopped\n"
	      "                   (default 1; try the machine's cores)\n"
	      "  --quiet, -q      print nothing on success\n"
	      "\n"
	      "Manifest: tab-separated, a header row naming the columns (any order; more\n"
	      "columns are allowed and ignored), then one row per measurement; every field\n"
	      "non-empty, no double quotes, blank lines ignored:\n"
	      "  name         a short label (unique)\n"
	      "  trace        the trace folder, kernelslist.g or trace file; a relative path\n"
	      "               is looked up in the manifest's folder, then in that folder's\n"
	      "               parent (the repository root for validation/*.tsv, whose\n"
	      "               paths read traces/...); absolute paths as they are.\n"
	      "               workload:SPEC runs gpuvm's own implementation of the measured\n"
	      "               program instead (e.g. workload:2dconv:n=1024)\n"
	      "  device       the GPU it was measured on, as the trace's INFO names it\n"
	      "  preset       the gpuvm preset of that GPU\n"
	      "  measured_us  the measured kernel time in microseconds (a plain number)\n"
	      "  what         what was measured\n"
	      "  source       where the number comes from and how it was derived\n"
	      "  convention   (optional column) nsys, ctas, host, nsys-median or nsys-first,\n"
	      "               as above; nsys without it\n"
	      "  role         (optional column) calibration (a parameter of the model was\n"
	      "               set from this measurement: reported apart, not evidence) or\n"
	      "               validation (nothing was); validation without it\n"
	      "A trace found in neither folder is an error naming the manifest line, as is\n"
	      "an unknown preset (use --gpu). docs/validation.md has the details.\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm validate --gpu h100\n"
	      "  gpuvm validate --gpu h100 --csv val.csv --json val.json --plot val.png\n"
	      "\n"
	      "exit status: 0 ok, 1 an output could not be written after the run, 2 bad input\n"
	      "(the message names the manifest file and line, or the option); no output file\n"
	      "is written on failure.\n",
	      out);
}

static void manifest_free(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->rows[i].cfg);
		free(m->rows[i].launches);
	}
	free(m->rows);
	free(m->text);
}

/* The default manifest: ./validation/measurements.tsv, else
 * <binary's directory>/../validation/measurements.tsv (build/gpuvm run
 * from anywhere finds its repository's). */
static const char *default_manifest(char *buf, size_t len)
{
	if (access(DEFAULT_MANIFEST, F_OK) == 0)
		return DEFAULT_MANIFEST;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	int w = snprintf(buf, len, "%s/../%s", exe, DEFAULT_MANIFEST);
	char real[PATH_MAX];
	if (w < 0 || (size_t)w >= len || !realpath(buf, real))
		return NULL;
	snprintf(buf, len, "%s", real);
	return buf;
}

static int read_text(const char *path, char **out, struct gpuvm_error *err)
{
	FILE *f = gpuvm_input_fopen_any(path, "manifest", 0, err);
	if (!f)
		return -1;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (len + 1 >= cap) {
			if (cap >= MAX_MANIFEST_BYTES) {
				free(buf);
				fclose(f);
				return gpuvm_fail(err, path, 0, NULL, "larger than %u MiB; not a manifest",
						  MAX_MANIFEST_BYTES >> 20);
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t r = fread(buf + len, 1, cap - 1 - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (!buf) {
		fclose(f);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	if (ferror(f)) {
		int e = errno;
		free(buf);
		fclose(f);
		return gpuvm_fail(err, path, 0, NULL, "read error: %s", strerror(e));
	}
	fclose(f);
	if (memchr(buf, '\0', len)) {
		free(buf);
		return gpuvm_fail(err, path, 0, NULL, "holds NUL bytes; not a text manifest");
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Splits line at tabs in place; returns the field count (up to max). */
static size_t split_tabs(char *line, char **fields, size_t max)
{
	size_t n = 0;
	for (char *p = line;;) {
		char *tab = strchr(p, '\t');
		if (n < max)
			fields[n] = p;
		n++;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

/* A plain decimal number, as pandas reads one (strtod would also take hex
 * and "infinity"). */
static bool plain_number(const char *s)
{
	return *s && strspn(s, "0123456789.eE+-") == strlen(s);
}

#define MAX_COLUMNS 64

static int parse_manifest(struct manifest *m, struct gpuvm_error *err)
{
	const char *path = m->path;
	if (read_text(path, &m->text, err))
		return -1;
	size_t cap = 0;
	int col_at[N_COLS];
	int conv_at = -1; /* the optional column 'convention' */
	int role_at = -1; /* the optional column 'role' */
	size_t n_header = 0;
	int header_line = 0;
	int line = 0;
	char *p = m->text;
	while (*p) {
		char *nl = strchr(p, '\n');
		char *next = nl ? nl + 1 : p + strlen(p);
		if (nl)
			*nl = '\0';
		line++;
		size_t len = strlen(p);
		if (len && p[len - 1] == '\r')
			p[--len] = '\0';
		char *cur = p;
		p = next;
		if (!len)
			continue; /* pandas skips blank lines too */
		if (strchr(cur, '"'))
			return gpuvm_fail(err, path, line, NULL, "double quotes are not allowed (pandas "
					  "would read them as quoting); write the text without them");
		char *fields[MAX_COLUMNS];
		size_t nf = split_tabs(cur, fields, MAX_COLUMNS);
		if (nf > MAX_COLUMNS)
			return gpuvm_fail(err, path, line, NULL, "more than %d columns", MAX_COLUMNS);
		if (!header_line) {
			header_line = line;
			n_header = nf;
			for (int c = 0; c < N_COLS; c++)
				col_at[c] = -1;
			for (size_t i = 0; i < nf; i++) {
				if (!*fields[i])
					return gpuvm_fail(err, path, line, NULL, "header: column %zu has no "
							  "name", i + 1);
				for (size_t j = 0; j < i; j++)
					if (!strcmp(fields[i], fields[j]))
						return gpuvm_fail(err, path, line, NULL, "header: column '%s' "
								  "given twice", fields[i]);
				for (int c = 0; c < N_COLS; c++)
					if (!strcmp(fields[i], validate_col_names[c]))
						col_at[c] = (int)i;
				if (!strcmp(fields[i], "convention"))
					conv_at = (int)i;
				if (!strcmp(fields[i], "role"))
					role_at = (int)i;
			}
			for (int c = 0; c < N_COLS; c++)
				if (col_at[c] < 0)
					return gpuvm_fail(err, path, line, NULL,
							  "header lacks the column '%s' (a manifest's first "
							  "row names its tab-separated columns: name, trace, "
							  "device, preset, measured_us, what, source)%s",
							  validate_col_names[c],
							  nf == 1 ? "; this one has no tab" : "");
			continue;
		}
		if (nf != n_header)
			return gpuvm_fail(err, path, line, NULL, "%zu fields, the header (line %d) has "
					  "%zu; fields are separated by single tabs", nf, header_line,
					  n_header);
		if (m->n == cap) {
			cap = cap ? cap * 2 : 8;
			struct vrow *nr = realloc(m->rows, cap * sizeof *nr);
			if (!nr)
				return gpuvm_fail(err, path, 0, NULL, "out of memory");
			m->rows = nr;
		}
		struct vrow *r = &m->rows[m->n];
		memset(r, 0, sizeof *r);
		r->line = line;
		for (int c = 0; c < N_COLS; c++) {
			r->f[c] = fields[col_at[c]];
			if (!*r->f[c])
				return gpuvm_fail(err, path, line, validate_col_names[c], "empty (every field of a "
						  "measurement is needed)");
		}
		m->n++;
		r->conv = CONV_NSYS;
		if (conv_at >= 0) {
			const char *cv = fields[conv_at];
			int k = 0;
			while (k < N_CONVENTIONS && strcmp(cv, validate_convention_names[k]))
				k++;
			if (k == N_CONVENTIONS)
				return gpuvm_fail(err, path, line, "convention", "'%s' is not a "
						  "convention: nsys (kernel durations, front-end and tail "
						  "in), ctas (first CTA to last warp), host (launch "
						  "overhead in), nsys-median or nsys-first (repeated "
						  "launches: each kernel's median or first)", cv);
			r->conv = (enum convention)k;
		}
		if (role_at >= 0) {
			const char *role = fields[role_at];
			if (!strcmp(role, "calibration"))
				r->calibration = true;
			else if (strcmp(role, "validation"))
				return gpuvm_fail(err, path, line, "role", "'%s' is neither 'calibration' "
						  "(a parameter was set from this measurement) nor "
						  "'validation' (nothing was)", role);
		}
		double v;
		if (!plain_number(r->f[C_MEASURED]) || gpuvm_parse_double(r->f[C_MEASURED], &v) ||
		    !(v > 0))
			return gpuvm_fail(err, path, line, "measured_us", "'%s' is not a positive "
					  "number of microseconds", r->f[C_MEASURED]);
		r->measured_us = v;
		for (size_t i = 0; i + 1 < m->n; i++)
			if (!strcmp(m->rows[i].f[C_NAME], r->f[C_NAME]))
				return gpuvm_fail(err, path, line, "name", "'%s' is also the name of line "
						  "%d; names label the points and must differ",
						  r->f[C_NAME], m->rows[i].line);
	}
	if (!header_line)
		return gpuvm_fail(err, path, 0, NULL, "empty: a manifest needs a header row (name, "
				  "trace, device, preset, measured_us, what, source, tab-separated) "
				  "and one row per measurement");
	if (!m->n)
		return gpuvm_fail(err, path, header_line, NULL, "no measurement after the header");
	return 0;
}

/* The manifest's folder, and that folder's parent: where relative trace
 * paths are looked up, in that order. */
static int manifest_root(struct manifest *m, struct gpuvm_error *err)
{
	char real[PATH_MAX];
	if (!realpath(m->path, real))
		return gpuvm_fail(err, m->path, 0, NULL, "%s", strerror(errno));
	char *slash = strrchr(real, '/');
	if (slash && slash != real)
		*slash = '\0';
	else
		snprintf(real, sizeof real, "/");
	snprintf(m->dir, sizeof m->dir, "%s", real);
	slash = strrchr(real, '/');
	if (slash && slash != real)
		*slash = '\0';
	else
		snprintf(real, sizeof real, "/");
	snprintf(m->root, sizeof m->root, "%s", real);
	return 0;
}

/* 0 when path names something; 1 when nothing is there; -1 with err set
 * when it cannot be told (permissions, a loop) */
static int trace_missing(const struct manifest *m, const struct vrow *r, const char *path,
			 struct gpuvm_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0)
		return 0;
	if (errno == ENOENT || errno == ENOTDIR)
		return 1;
	return gpuvm_fail(err, m->path, r->line, "trace", "%s: %s", path, strerror(errno));
}

/* Row r's trace path: an absolute path as it is; a relative one from the
 * manifest's folder, else from its parent (the shipped manifests live in
 * validation/ and name traces/... from the repository root). A trace found
 * in neither is an error naming the manifest line: a row left out would
 * change the error and the correlation without anyone asking. */
static int resolve_trace(const struct manifest *m, struct vrow *r, struct gpuvm_error *err)
{
	const char *t = r->f[C_TRACE];
	int miss;
	if (t[0] == '/') {
		if ((size_t)snprintf(r->trace_path, sizeof r->trace_path, "%s", t) >= sizeof r->trace_path)
			return gpuvm_fail(err, m->path, r->line, "trace", "path too long");
		if ((miss = trace_missing(m, r, r->trace_path, err)) != 0)
			return miss < 0 ? -1
					: gpuvm_fail(err, m->path, r->line, "trace",
						     "row '%s': %s: no such file or folder", r->f[C_NAME], t);
	} else {
		const char *bases[2] = {m->dir, m->root};
		miss = 1;
		for (int b = 0; b < 2 && miss == 1; b++) {
			int w = snprintf(r->trace_path, sizeof r->trace_path, "%s/%s", bases[b], t);
			if (w < 0 || (size_t)w >= sizeof r->trace_path)
				return gpuvm_fail(err, m->path, r->line, "trace", "path too long");
			if ((miss = trace_missing(m, r, r->trace_path, err)) < 0)
				return -1;
		}
		if (miss)
			return gpuvm_fail(err, m->path, r->line, "trace",
					  "row '%s': '%s' is not in the manifest's folder (%s) nor in "
					  "its parent (%s)", r->f[C_NAME], t, m->dir, m->root);
	}
	char real[PATH_MAX];
	if (realpath(r->trace_path, real))
		snprintf(r->trace_path, sizeof r->trace_path, "%s", real);
	return 0;
}

/* Resolves every row's preset and trace (or checks its workload:SPEC)
 * before anything runs: an unknown preset or workload, or a missing
 * trace, is an error naming the manifest line. */
static int prepare_rows(struct manifest *m, const char *gpu, struct gpuvm_error *err)
{
	for (size_t i = 0; i < m->n; i++) {
		struct vrow *r = &m->rows[i];
		r->preset = gpu ? gpu : r->f[C_PRESET];
		r->cfg = malloc(sizeof *r->cfg);
		if (!r->cfg)
			return gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
		struct gpuvm_error e;
		if (gpuvm_config_load(r->cfg, r->preset, &e) || gpuvm_config_finalize(r->cfg, &e)) {
			/* the loader names its origin "argument" for a name */
			const char *msg = e.msg;
			if (!strncmp(msg, "argument: ", 10))
				msg += 10;
			if (gpu)
				return gpuvm_fail(err, "--gpu", 0, NULL, "%s", msg);
			bool named = strstr(msg, r->preset) != NULL;
			return gpuvm_fail(err, m->path, r->line, "preset", "%s%s%s; give --gpu PRESET "
					  "to run the manifest on another preset", named ? "" : r->preset,
					  named ? "" : ": ", msg);
		}
		/* the trace after the preset: a wrong --gpu is the one error
		 * of every row, so it is the one reported */
		const char *t = r->f[C_TRACE];
		if (!strncmp(t, "workload:", 9)) {
			/* the workload's name and parameters checked now, its
			 * values when it is created (they may depend on the preset) */
			const struct gpuvm_workload_def *def;
			struct gpuvm_params params;
			r->workload = t + 9;
			if (gpuvm_workload_parse(r->workload, &def, &params, &e))
				return gpuvm_fail(err, m->path, r->line, "trace", "%s", e.msg);
			snprintf(r->trace_path, sizeof r->trace_path, "%s", t);
		} else if (resolve_trace(m, r, err)) {
			return -1;
		}
	}
	return 0;
}

/* r's results from its replay's launches (its own, or an earlier row's) */
int validate_row_results(const struct manifest *m, struct vrow *r, const struct vrow *from,
			 struct gpuvm_error *err)
{
	double s = validate_kernel_seconds(r->cfg, from->launches, from->n_launches, r->conv);
	if (isnan(s))
		return gpuvm_fail(err, m->path, r->line, r->f[C_NAME],
				  "out of memory for the launches' durations");
	r->kernels = from->kernels;
	r->kernel_cycles = from->kernel_cycles;
	r->sim_us = s * 1e6;
	r->ratio = r->sim_us / r->measured_us;
	r->error_pct = (r->ratio - 1) * 100;
	return 0;
}

int validate_run_row(const struct manifest *m, struct vrow *r, bool progress,
		     struct gpuvm_error *err)
{
	/* an earlier row replayed the same trace on the same preset: the
	 * simulation is deterministic, so its launches answer this row too */
	for (const struct vrow *o = m->rows; o < r; o++)
		if (o->launches && validate_same_replay(o, r))
			return validate_row_results(m, r, o, err);
	struct gpuvm_source src = {0};
	struct gpuvm_stats st;
	memset(&st, 0, sizeof st);
	struct gpuvm_error e;
	int rc = -1;
	if (r->workload) {
		const struct gpuvm_workload_def *def;
		struct gpuvm_params params;
		/* as gpuvm sim runs it: the work cap and the host-memory
		 * estimate first (a manifest can name any size) */
		struct gpuvm_run_spec spec = {.gpu = r->preset, .workload = r->workload, .seed = 1};
		gpuvm_host_memory_set_context(r->workload);
		if (gpuvm_workload_parse(r->workload, &def, &params, &e) ||
		    gpuvm_run_check_work(&spec, r->cfg, def, &params, &e) ||
		    def->create(r->cfg, &params, 1, &src, &e)) {
			gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "%s", e.msg);
			goto out;
		}
	} else if (gpuvm_trace_open(r->trace_path, GPUVM_TRACE_AUTO, &src, &e)) {
		gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "%s", e.msg);
		goto out;
	}
	struct gpuvm_sim_options opt = {.progress = progress};
	if (gpuvm_simulate(r->cfg, &src, &opt, &st, &e) == 0) {
		r->kernels = st.kernels;
		r->kernel_cycles = st.kernel_cycles;
		r->n_launches = st.n_kernel_list;
		r->launches = malloc((st.n_kernel_list ? st.n_kernel_list : 1) * sizeof *r->launches);
		if (!r->launches)
			rc = gpuvm_fail(err, m->path, r->line, r->f[C_NAME],
					"out of memory for the launches' durations");
		else {
			if (st.n_kernel_list)
				memcpy(r->launches, st.kernel_list,
				       st.n_kernel_list * sizeof *r->launches);
			rc = validate_row_results(m, r, r, err);
		}
	} else {
		gpuvm_fail(err, m->path, r->line, r->f[C_NAME], "%s", e.msg);
	}
	gpuvm_stats_release(&st);
out:
	if (src.ops)
		src.ops->destroy(&src);
	return rc;
}

/* In a batch log, a line per row done, at most one every 30 s but the
 * last. */
void validate_progress_row(struct validate_progress *p, const char *name)
{
	double now = gpuvm_progress_wall_seconds();
	if (p->batch && (++p->done == p->total || now - p->last_line_s >= GPUVM_PROGRESS_DEFAULT_INTERVAL_S)) {
		char spent[32];
		gpuvm_progress_format_duration(now - p->start_s, spent, sizeof spent);
		fprintf(stderr, "gpuvm validate: %zu of %zu rows replayed (last: %s), %s wall\n", p->done,
			p->total, name, spent);
		p->last_line_s = now;
	}
}

static struct summary summarize(const struct manifest *m)
{
	struct summary s = {0, 0, NAN, NAN};
	double sum_abs = 0, sx = 0, sy = 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct vrow *r = &m->rows[i];
		if (r->skipped) {
			s.skipped++;
			continue;
		}
		s.n++;
		sum_abs += fabs(r->error_pct);
		sx += log(r->measured_us);
		sy += log(r->sim_us);
	}
	if (s.n)
		s.mae_pct = sum_abs / (double)s.n;
	if (s.n >= 3) {
		double mx = sx / (double)s.n, my = sy / (double)s.n, cxy = 0, cxx = 0, cyy = 0;
		for (size_t i = 0; i < m->n; i++) {
			const struct vrow *r = &m->rows[i];
			if (r->skipped)
				continue;
			double dx = log(r->measured_us) - mx, dy = log(r->sim_us) - my;
			cxy += dx * dy;
			cxx += dx * dx;
			cyy += dy * dy;
		}
		if (cxx > 0 && cyy > 0)
			s.r_log = cxy / sqrt(cxx * cyy);
	}
	return s;
}

/* What the command line asked for. */
struct validate_args {
	unsigned jobs;
	const char *manifest_path, *gpu, *csv, *json, *plot;
	int quiet;
};

/* Parses argv into a; returns -1 to go on, else the exit status (0 after
 * --help, 2 with the message printed). */
static int parse_validate_args(int argc, char **argv, struct validate_args *a)
{
	static const struct option opts[] = {
		{"manifest", required_argument, 0, 'm'}, {"gpu", required_argument, 0, 'g'},
		{"csv", required_argument, 0, 'c'},      {"json", required_argument, 0, 'j'},
		{"plot", required_argument, 0, 'p'},     {"quiet", no_argument, 0, 'q'},
		{"jobs", required_argument, 0, 'J'},     {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;
	optind = 1;
	struct gpuvm_getopt go; /* no valued option may repeat (cli_options.h) */
	static const struct gpuvm_cli_output outputs[] = {
		{"csv", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"plot", GPUVM_CLI_OUT_FIGURE, 0, 0, 0, 0},
		{0},
	};
	gpuvm_getopt_init(&go, opts, NULL);
	gpuvm_getopt_outputs(&go, outputs);
	while ((c = gpuvm_getopt(&go, argc, argv, "q")) != -1) {
		if (c == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm validate: %s\n", go.why);
			return 2;
		}
		switch (c) {
		case 'm':
			a->manifest_path = optarg;
			break;
		case 'g':
			a->gpu = optarg;
			break;
		case 'c':
			a->csv = optarg;
			break;
		case 'j':
			a->json = optarg;
			break;
		case 'p':
			a->plot = optarg;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'J': {
			uint64_t v;
			if (gpuvm_num_u64(optarg, strlen(optarg), 1, 1024, &v)) {
				fprintf(stderr, "gpuvm validate: --jobs: '%s': expected a whole number "
						"of worker processes, 1 to 1024\n",
					optarg);
				return 2;
			}
			a->jobs = (unsigned)v;
			break;
		}
		case 'h':
			validate_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "gpuvm validate: %s (see gpuvm validate --help)\n", go.why);
			return 2;
		}
	}
	if (gpuvm_cli_claim_or_report(&go, "validate"))
		return 2;
	if (optind < argc) {
		fprintf(stderr, "gpuvm validate: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (a->gpu && !*a->gpu) {
		fprintf(stderr, "gpuvm validate: --gpu: empty preset name\n");
		return 2;
	}
	if (a->csv && a->json && !strcmp(a->csv, "-") && !strcmp(a->json, "-")) {
		fprintf(stderr, "gpuvm validate: --csv - and --json - would share stdout; "
				"give one of them a file\n");
		return 2;
	}
	/* with an output on stdout, stdout carries it alone */
	a->quiet |= (a->csv && !strcmp(a->csv, "-")) || (a->json && !strcmp(a->json, "-"));
	return -1;
}

/* Replays the rows not skipped, on jobs worker processes or here. 0, or
 * -1 with err set. */
static int run_rows(struct manifest *m, const struct validate_args *a, struct gpuvm_error *err)
{
	/* progress: each replay's live line on a terminal (one job); in a
	 * batch log a line per row done, at most one every 30 s but the last */
	bool progress = isatty(2) && !a->quiet && a->jobs == 1;
	struct validate_progress prog = {.batch = !isatty(2) && !a->quiet,
					 .start_s = gpuvm_progress_wall_seconds()};
	prog.last_line_s = prog.start_s;
	for (size_t i = 0; i < m->n; i++)
		prog.total += !m->rows[i].skipped;
	if (a->jobs > 1)
		return validate_run_jobs(m, a->jobs, &prog, err);
	for (size_t i = 0; i < m->n; i++) {
		if (m->rows[i].skipped)
			continue;
		if (validate_run_row(m, &m->rows[i], progress, err))
			return -1;
		validate_progress_row(&prog, m->rows[i].f[C_NAME]);
	}
	return 0;
}

/* All outputs or none. 0, or -1 with err set (empty: out of memory). */
static int write_outputs(const struct manifest *m, const struct summary *s,
			 const struct validate_args *a, struct gpuvm_error *err)
{
	gpuvm_output_batch_begin();
	if ((a->csv && validate_write_csv(m, a->csv, err)) ||
	    (a->json && validate_write_json(m, a->json, err)) ||
	    (a->plot && validate_write_plot(m, s, a->plot, err)) || gpuvm_output_batch_commit(err)) {
		gpuvm_output_batch_abort();
		return -1;
	}
	return 0;
}

int gpuvm_cmd_validate(int argc, char **argv)
{
	struct validate_args a = {.jobs = 1};
	int prc = parse_validate_args(argc, argv, &a);
	if (prc >= 0)
		return prc;
	const char *manifest_path = a.manifest_path, *gpu = a.gpu, *plot = a.plot;
	char found[PATH_MAX + 64];
	if (!manifest_path && !(manifest_path = default_manifest(found, sizeof found))) {
		fprintf(stderr, "gpuvm validate: no manifest: %s is not in the current directory "
				"nor beside the binary's parent directory; give --manifest FILE\n",
			DEFAULT_MANIFEST);
		return 2;
	}
	struct gpuvm_error err = {{0}};
	/* Every output path is checked before any simulation time is spent. */
	if ((a.csv && gpuvm_output_check(a.csv, "--csv", true, &err)) ||
	    (a.json && gpuvm_output_check(a.json, "--json", true, &err)) ||
	    (plot && gpuvm_plot_check_path(plot, &err))) {
		fprintf(stderr, "gpuvm validate: %s\n", err.msg);
		return 2;
	}
	if (plot && !gpuvm_plot_available()) {
		fprintf(stderr, "gpuvm validate: --plot: gnuplot not found on PATH (install gnuplot, "
				"or leave out --plot)\n");
		return 2;
	}
	struct manifest m = {.path = manifest_path};
	if (parse_manifest(&m, &err) || manifest_root(&m, &err) || prepare_rows(&m, gpu, &err) ||
	    run_rows(&m, &a, &err)) {
		fprintf(stderr, "gpuvm validate: %s\n", err.msg);
		manifest_free(&m);
		return 2;
	}
	struct summary s = summarize(&m);
	if (!s.n) {
		/* every row skipped validates nothing: a failure, not a pass
		 * with an empty table (issue 79); known only now, and nothing
		 * has been written yet */
		for (size_t i = 0; i < m.n; i++)
			if (m.rows[i].skipped)
				fprintf(stderr, "gpuvm validate: skipped %s (line %d): %s\n",
					m.rows[i].f[C_NAME], m.rows[i].line, m.rows[i].note);
		fprintf(stderr, "gpuvm validate: no row could be run (all %zu skipped): nothing "
				"was validated%s\n", s.skipped, plot ? " and there is nothing to draw" : "");
		manifest_free(&m);
		return 2;
	}
	int rc = 0;
	if (write_outputs(&m, &s, &a, &err)) {
		fprintf(stderr, "gpuvm validate: %s\n", err.msg[0] ? err.msg : "out of memory");
		rc = GPUVM_EXIT_OUTPUT_FAILED;
	}
	if (!a.quiet && !rc)
		validate_print_table(&m, &s, gpu);
	manifest_free(&m);
	return rc;
}
