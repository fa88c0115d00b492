/* gnuplot driver: builds a script with the data inline as datablocks and
 * pipes it to a gnuplot child whose standard output is the figure, opened
 * through the output module (so a device stays a device, a regular file is
 * replaced only when gnuplot succeeded, and gnuplot never opens a path). */
#include "gpuvm/plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuvm/output_file.h"
#include "gpuvm/units.h"

enum plot_format { FMT_NONE, FMT_PNG, FMT_SVG, FMT_PDF };

/* A figure's format from its extension; a device or FIFO without one
 * (a pipe to a viewer, /dev/null) gets PNG. */
static enum plot_format format_of(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/')) {
		struct stat st;
		return path && stat(path, &st) == 0 &&
				       (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
					S_ISFIFO(st.st_mode))
			       ? FMT_PNG
			       : FMT_NONE;
	}
	if (strcasecmp(dot, ".png") == 0)
		return FMT_PNG;
	if (strcasecmp(dot, ".svg") == 0)
		return FMT_SVG;
	if (strcasecmp(dot, ".pdf") == 0)
		return FMT_PDF;
	return FMT_NONE;
}

/* The gnuplot script kept beside a figure: fig.png -> fig.gp. Only for a
 * figure that is a regular file or a new path (not a device or FIFO, nor
 * a name without an extension). */
static bool companion_path(const char *out_path, char *buf, size_t len)
{
	const char *dot = strrchr(out_path, '.');
	if (!dot || strchr(dot, '/'))
		return false;
	struct stat st;
	if (stat(out_path, &st) == 0 && !S_ISREG(st.st_mode))
		return false;
	int n = snprintf(buf, len, "%.*s.gp", (int)(dot - out_path), out_path);
	return n > 0 && (size_t)n < len;
}

static int check_path(const char *out_path, const char *what, bool claim,
		      struct gpuvm_error *err)
{
	if (!out_path || !*out_path)
		return gpuvm_fail(err, what, 0, NULL, "empty output file name");
	if (format_of(out_path) == FMT_NONE)
		return gpuvm_fail(err, what, 0, NULL,
				  "%s: unsupported figure format (use .png, .svg or .pdf)",
				  out_path);
	if (gpuvm_output_check(out_path, what, false, err) ||
	    (claim && gpuvm_output_claim(out_path, what, err)))
		return -1;
	char gp[PATH_MAX], gp_what[80];
	snprintf(gp_what, sizeof gp_what, "%s (its gnuplot script)", what);
	if (companion_path(out_path, gp, sizeof gp) &&
	    (gpuvm_output_check(gp, gp_what, false, err) ||
	     (claim && gpuvm_output_claim(gp, gp_what, err))))
		return -1;
	return 0;
}

int gpuvm_plot_check_path(const char *out_path, struct gpuvm_error *err)
{
	return check_path(out_path, "--plot", false, err);
}

int gpuvm_plot_check_path_as(const char *out_path, const char *what, struct gpuvm_error *err)
{
	return check_path(out_path, what, true, err);
}

/* Finds gnuplot on PATH; writes its full path into buf. */
static bool find_gnuplot(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		return false;
	const char *p = path;
	while (*p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		int w;
		if (n == 0)
			w = snprintf(buf, len, "./gnuplot");
		else
			w = snprintf(buf, len, "%.*s/gnuplot", (int)n, p);
		struct stat st;
		if (w > 0 && (size_t)w < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

bool gpuvm_plot_available(void)
{
	char buf[PATH_MAX];
	return find_gnuplot(buf, sizeof buf);
}

/* Writes s as a gnuplot single-quoted string ('' stands for '). */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if (*s == '\n' || *s == '\r' || *s == '\t')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* Font sizes in points per output format: PNG, SVG, PDF. */
struct plot_fonts {
	int png, svg, pdf;
};

/* The terminal for fmt at w x h pixels (PDF at 150 px per inch), then the
 * output file. PNG falls back to the plain png terminal where gnuplot
 * lacks cairo. svg_dynamic adds the SVG terminal's 'dynamic' sizing. */
static void put_terminal(FILE *f, enum plot_format fmt, int w, int h, struct plot_fonts font,
			 bool svg_dynamic)
{
	switch (fmt) {
	case FMT_PNG:
		fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
			   "  set terminal pngcairo size %d,%d noenhanced font 'Sans,%d'\n"
			   "} else {\n"
			   "  set terminal png size %d,%d noenhanced\n"
			   "}\n", w, h, font.png, w, h);
		break;
	case FMT_SVG:
		fprintf(f, "set terminal svg size %d,%d noenhanced %sfont 'Sans,%d' "
			   "background rgb 'white'\n", w, h, svg_dynamic ? "dynamic " : "", font.svg);
		break;
	case FMT_PDF:
		fprintf(f, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'Sans,%d'\n",
			w / 150.0, h / 150.0, font.pdf);
		break;
	case FMT_NONE:
		break;
	}
	/* no file name: the figure goes to gnuplot's stdout, which is ours */
	fputs("set output\n", f);
}

struct point {
	double x, y;
	size_t i;
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *p = a, *q = b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static bool plottable(const struct gpuvm_plot_opts *o, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return false;
	if (o->logx && x <= 0)
		return false;
	if (o->logy && y <= 0)
		return false;
	return true;
}

/* Explicit x tics at the data's x values (at most ~12), labelled as sizes. */
static void put_byte_tics(FILE *f, const struct gpuvm_plot_opts *o,
			  const struct gpuvm_plot_series *series, size_t n)
{
	size_t total = 0;
	for (size_t s = 0; s < n; s++)
		total += series[s].n;
	double *xs = malloc((total ? total : 1) * sizeof *xs);
	if (!xs)
		return;
	size_t k = 0;
	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < series[s].n; i++)
			if (plottable(o, series[s].x[i], series[s].y[i]) && series[s].x[i] >= 0 &&
			    series[s].x[i] < 1.8e19)
				xs[k++] = series[s].x[i];
	qsort(xs, k, sizeof *xs, cmp_double);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || xs[i] != xs[u - 1])
			xs[u++] = xs[i];
	if (u > 0) {
		/* A label only where it cannot run into another: at least 1/12
		 * of the axis from every other label (log2 positions on a log
		 * axis), powers of two first, so 1536MiB and 2GiB do not print
		 * as "1536MiB2GiB" and the labels fall on round sizes. */
		double lo = o->logx && xs[0] > 0 ? log2(xs[0]) : xs[0];
		double hi = o->logx && xs[u - 1] > 0 ? log2(xs[u - 1]) : xs[u - 1];
		double gap = (hi - lo) / 12;
		bool *pick = calloc(u, sizeof *pick);
		if (!pick) {
			free(xs);
			return;
		}
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < u; i++) {
				uint64_t v = (uint64_t)xs[i];
				bool pow2 = v && !(v & (v - 1)) && (double)v == xs[i];
				if (pick[i] || (pass == 0 && !pow2))
					continue;
				double pos = o->logx && xs[i] > 0 ? log2(xs[i]) : xs[i];
				bool room = true;
				for (size_t j = 0; j < u && room; j++) {
					double pj = o->logx && xs[j] > 0 ? log2(xs[j]) : xs[j];
					room = !pick[j] || fabs(pos - pj) >= gap;
				}
				pick[i] = room;
			}
		size_t shown = 0;
		fputs("set xtics (", f);
		for (size_t i = 0; i < u; i++) {
			if (!pick[i])
				continue;
			char label[32];
			gpuvm_format_size((uint64_t)xs[i], label, sizeof label);
			fprintf(f, "%s", shown ? ", " : "");
			put_quoted(f, label);
			fprintf(f, " %.17g", xs[i]);
			shown++;
		}
		fputs(")\n", f);
		free(pick);
		if (shown > 8)
			fputs("set xtics rotate by -30\n", f);
	}
	free(xs);
}

/* Whether some series' positive values on one axis span more than 10x,
 * with no value <= 0 anywhere on it (those a log axis cannot show). */
static bool spans_decade(const struct gpuvm_plot_series *series, size_t n, bool on_x)
{
	bool wide = false;
	for (size_t s = 0; s < n; s++) {
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < series[s].n; i++) {
			double x = series[s].x[i], y = series[s].y[i];
			if (!isfinite(x) || !isfinite(y))
				continue;
			double v = on_x ? x : y;
			if (v <= 0)
				return false;
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
		if (hi > 10 * lo)
			wide = true;
	}
	return wide;
}

/* Builds the whole gnuplot script in memory. Returns the number of series
 * with at least one plottable point. */
static size_t build_script(FILE *f, enum plot_format fmt,
			   const struct gpuvm_plot_opts *in,
			   const struct gpuvm_plot_series *series, size_t n)
{
	struct gpuvm_plot_opts opts = *in, *o = &opts;
	/* log axes chosen from the data: a series spanning more than 10x
	 * (a cliff) would be flattened on a linear axis */
	if (!o->fixed_scales) {
		o->logy |= spans_decade(series, n, false);
		if (!o->x_categories)
			o->logx |= spans_decade(series, n, true);
	}
	/* the legend never sits on the data: below the plot for lines, on the
	 * right for bars (a wider canvas) */
	int w = o->width > 0 ? o->width : o->x_categories ? 1100 : 900;
	int h = o->height > 0 ? o->height : 600;
	put_terminal(f, fmt, w, h, (struct plot_fonts){10, 12, 9}, true);
	/* large y values in engineering form (1.5G, 200k: gnuplot %s%c),
	 * small ones plainly */
	double ymax = 0;
	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < series[s].n; i++)
			if (plottable(o, series[s].x[i], series[s].y[i]))
				ymax = fmax(ymax, fabs(series[s].y[i]));
	fprintf(f, "set grid\nset key %s\nset format y '%s'\n",
		o->x_categories ? "outside right top vertical" : "below horizontal",
		ymax < 1e4 ? "%g" : o->logy ? "%.0s%c" : "%.1s%c");
	if (o->title) {
		/* double-quoted, so a '\n' in the title breaks the line */
		fputs("set title \"", f);
		size_t col = 0;
		for (const char *p = o->title; *p; p++, col++) {
			/* a line past ~95 characters breaks at its next space */
			if (*p == ' ' && col > 95) {
				fputs("\\n", f);
				col = 0;
			} else if (*p == '\n')
				fputs("\\n", f), col = 0;
			else if (*p == '"' || *p == '\\')
				fprintf(f, "\\%c", *p);
			else if (*p != '\r' && *p != '\t')
				fputc(*p, f);
			else
				fputc(' ', f);
		}
		fputs("\"\n", f);
	}
	if (o->xlabel) {
		fputs("set xlabel ", f);
		put_quoted(f, o->xlabel);
		fputc('\n', f);
	}
	if (o->ylabel) {
		fputs("set ylabel ", f);
		put_quoted(f, o->ylabel);
		fputc('\n', f);
	}
	if (o->logx)
		fputs("set logscale x 2\n", f);
	if (o->logy)
		fputs("set logscale y 10\n", f);
	bool bars = o->x_categories != NULL;
	if (bars)
		fprintf(f, "set xrange [-0.6:%.1f]\nset style fill solid 0.85 border -1\n"
			   "set grid noxtics ytics\n",
			(double)o->n_x_categories - 0.4);
	else
		fputs("set autoscale xfix\nset offsets graph 0.03, graph 0.03, 0, 0\n", f);
	/* Linear y with no negative value: start at 0, as throughput plots do. */
	bool nonneg = true;
	for (size_t s = 0; s < n && nonneg; s++)
		for (size_t i = 0; i < series[s].n; i++)
			if (plottable(o, series[s].x[i], series[s].y[i]) && series[s].y[i] < 0)
				nonneg = false;
	if (!o->logy && nonneg)
		fputs("set yrange [0:*]\n", f);

	if (o->x_categories) {
		fputs("set xtics (", f);
		for (size_t i = 0; i < o->n_x_categories; i++) {
			fprintf(f, "%s", i ? ", " : "");
			put_quoted(f, o->x_categories[i]);
			fprintf(f, " %zu", i);
		}
		fputs(")\n", f);
		size_t chars = 0;
		for (size_t i = 0; i < o->n_x_categories; i++)
			chars += strlen(o->x_categories[i]) + 2;
		if (o->n_x_categories > 6 || chars > 70)
			fputs("set xtics rotate by -30\n", f);
	} else if (o->x_bytes) {
		put_byte_tics(f, o, series, n);
	}

	size_t used = 0;
	for (size_t s = 0; s < n; s++) {
		struct point *pts = malloc((series[s].n ? series[s].n : 1) * sizeof *pts);
		if (!pts)
			continue;
		size_t k = 0;
		for (size_t i = 0; i < series[s].n; i++)
			if (plottable(o, series[s].x[i], series[s].y[i]))
				pts[k++] = (struct point){series[s].x[i], series[s].y[i], i};
		if (k > 0) {
			qsort(pts, k, sizeof *pts, cmp_point);
			fprintf(f, "$d%zu << EOD\n", s);
			for (size_t i = 0; i < k; i++)
				fprintf(f, "%.17g %.17g\n", pts[i].x, pts[i].y);
			fputs("EOD\n", f);
			used++;
		}
		free(pts);
	}
	if (!used)
		return 0;

	/* Categories are drawn as grouped bars (one colour per series, side
	 * by side within a category), numbers as lines. */
	double bw = bars ? 0.8 / (double)used : 0;
	if (bars) {
		fprintf(f, "set boxwidth %.6g absolute\n", bw * 0.95);
		/* a log axis has no 0: bars rise from the axis' bottom */
		if (o->logy)
			fputs("set yrange [*:*]\n", f);
	}
	fputs("plot ", f);
	bool first = true;
	size_t k = 0;
	for (size_t s = 0; s < n; s++) {
		bool any = false;
		for (size_t i = 0; i < series[s].n && !any; i++)
			any = plottable(o, series[s].x[i], series[s].y[i]);
		if (!any)
			continue;
		if (bars)
			fprintf(f, "%s$d%zu using ($1%+.6g):2 with boxes title ",
				first ? "" : ", \\\n     ", s, ((double)k - ((double)used - 1) / 2) * bw);
		else
			fprintf(f, "%s$d%zu using 1:2 with linespoints lw 2 pt 7 ps 0.8 title ",
				first ? "" : ", \\\n     ", s);
		put_quoted(f, series[s].name ? series[s].name : "");
		first = false;
		k++;
	}
	fputs("\nunset output\n", f);
	return used;
}

/* Runs gnuplot with the script on its stdin and fig_fd as its stdout (the
 * figure: the script sets no output file); its stderr is ours. */
static int run_gnuplot(const char *exe, const char *script, size_t len, int fig_fd,
		       struct gpuvm_error *err)
{
	int fds[2];
	if (pipe(fds) != 0)
		return gpuvm_fail(err, "--plot", 0, NULL, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return gpuvm_fail(err, "--plot", 0, NULL, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[1]);
		if (dup2(fds[0], 0) < 0 || dup2(fig_fd, 1) < 0)
			_exit(127);
		close(fds[0]);
		execl(exe, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);

	struct sigaction ign = {0}, old;
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fds[1], script + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* gnuplot went away; its exit status tells why */
		off += (size_t)w;
	}
	close(fds[1]);
	sigaction(SIGPIPE, &old, NULL);

	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return gpuvm_fail(err, "--plot", 0, NULL, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		return gpuvm_fail(err, "--plot", 0, NULL, "gnuplot (%s) failed with exit status %d",
				  exe, WEXITSTATUS(status));
	return gpuvm_fail(err, "--plot", 0, NULL, "gnuplot (%s) killed by signal %d", exe,
			  WTERMSIG(status));
}

/* Every figure: the caller's writer puts the gnuplot script into f and
 * returns how many points it drew; gnuplot renders it into the output
 * opened here, which is published only when gnuplot succeeded, so a failed
 * plot never leaves a half-written file (nor figure bytes on a terminal). */
typedef size_t (*plot_script_fn)(FILE *f, enum plot_format fmt, const void *ctx);

/* fig.gp beside fig.png: the very script that drew it, data inline, with
 * the figure's file name as its output, so `cd DIR && gnuplot fig.gp`
 * redraws it and a user can restyle it. */
static int write_companion(const char *out_path, const char *gp, const char *script,
			   struct gpuvm_error *err)
{
	const char *base = strrchr(out_path, '/');
	base = base ? base + 1 : out_path;
	const char *at = strstr(script, "set output\n");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	fprintf(f, "# gnuplot script of %s, written by gpuvm with it; the data are inline.\n"
		   "# Redraw (after restyling): cd to this folder, then: gnuplot %s\n",
		base, strrchr(gp, '/') ? strrchr(gp, '/') + 1 : gp);
	if (at) {
		fwrite(script, 1, (size_t)(at - script), f);
		fputs("set output ", f);
		put_quoted(f, base);
		fputc('\n', f);
		fputs(at + strlen("set output\n"), f);
	} else {
		fputs(script, f);
	}
	if (fclose(f) != 0 || !text)
		return free(text), gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	int rc = gpuvm_output_write_text(gp, text, err);
	free(text);
	return rc;
}

static int render_figure(const char *out_path, plot_script_fn write_script, const void *ctx,
			 struct gpuvm_error *err)
{
	char exe[PATH_MAX];
	if (!find_gnuplot(exe, sizeof exe))
		return gpuvm_fail(err, "--plot", 0, NULL, "gnuplot not found on PATH");
	char *script = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&script, &len);
	if (!f)
		return gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	size_t used = write_script(f, format_of(out_path), ctx);
	int rc = 0;
	if (fclose(f) != 0 || !script)
		rc = gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	else if (!used)
		rc = gpuvm_fail(err, "--plot", 0, NULL, "%s: no plottable point (all values "
				"missing, or not positive on a log axis)", out_path);
	struct gpuvm_output out;
	if (rc == 0 && gpuvm_output_open(&out, out_path, err) == 0) {
		if (fflush(out.f) != 0)
			rc = gpuvm_fail(err, "--plot", 0, NULL, "%s: %s", out_path, strerror(errno));
		if (rc == 0)
			rc = run_gnuplot(exe, script, len, fileno(out.f), err);
		struct stat st;
		if (rc == 0 && out.kind == GPUVM_OUTPUT_ATOMIC &&
		    (fstat(fileno(out.f), &st) != 0 || st.st_size == 0))
			rc = gpuvm_fail(err, "--plot", 0, NULL, "%s: gnuplot wrote no figure", out_path);
		bool keep_script = out.kind == GPUVM_OUTPUT_ATOMIC;
		if (rc == 0)
			rc = gpuvm_output_close(&out, err);
		else
			gpuvm_output_cancel(&out);
		char gp[PATH_MAX];
		if (rc == 0 && keep_script && companion_path(out_path, gp, sizeof gp))
			rc = write_companion(out_path, gp, script, err);
	} else if (rc == 0) {
		rc = -1;
	}
	free(script);
	return rc;
}

struct lines_ctx {
	const struct gpuvm_plot_opts *o;
	const struct gpuvm_plot_series *series;
	size_t n;
};

static size_t lines_script(FILE *f, enum plot_format fmt, const void *ctx)
{
	const struct lines_ctx *c = ctx;
	return build_script(f, fmt, c->o, c->series, c->n);
}

int gpuvm_plot_lines_opts(const char *out_path, const struct gpuvm_plot_opts *opts,
			  const struct gpuvm_plot_series *series, size_t n,
			  struct gpuvm_error *err)
{
	if (gpuvm_plot_check_path(out_path, err) != 0)
		return -1;
	struct gpuvm_plot_opts none = {0};
	struct lines_ctx c = {opts ? opts : &none, series, n};
	return render_figure(out_path, lines_script, &c, err);
}

int gpuvm_plot_lines(const char *out_path, const char *title, const char *xlabel,
		     const char *ylabel, bool logx, bool logy,
		     const struct gpuvm_plot_series *series, size_t n,
		     struct gpuvm_error *err)
{
	struct gpuvm_plot_opts o = {
		.title = title, .xlabel = xlabel, .ylabel = ylabel, .logx = logx, .logy = logy,
	};
	return gpuvm_plot_lines_opts(out_path, &o, series, n, err);
}

struct scatter_ctx {
	const struct gpuvm_plot_opts *o;
	const char *const *labels;
	const double *x, *y;
	size_t n;
};

/* A workload spec for a title: "hash-groupby (input = 16.8M, region = 4GiB)"
 * instead of "hash-groupby:input=16777216,region=4GiB"; plain integers of
 * 10000 or more in k/M/G, other values as given. */
void gpuvm_plot_readable_spec(const char *spec, char *out, size_t len)
{
	size_t n = strcspn(spec, ":"), w = 0;
	w += (size_t)snprintf(out, len, "%.*s", (int)n, spec);
	if (!spec[n] || w >= len)
		return;
	const char *p = spec + n + 1;
	w += (size_t)snprintf(out + w, len - w, " (");
	for (bool first = true; *p && w < len; first = false) {
		size_t kl = strcspn(p, "=,"), vl = 0;
		const char *v = p[kl] == '=' ? p + kl + 1 : NULL;
		if (v)
			vl = strcspn(v, ",");
		char val[64];
		snprintf(val, sizeof val, "%.*s", (int)(vl < 63 ? vl : 63), v ? v : "");
		char *end;
		unsigned long long u = v ? strtoull(val, &end, 10) : 0;
		if (v && *val && !*end && u >= 10000) {
			static const char *const sfx[] = {"k", "M", "G", "T"};
			double d = (double)u / 1e3;
			int k = 0;
			while (d >= 1000 && k < 3)
				d /= 1000, k++;
			snprintf(val, sizeof val, "%.3g%s", d, sfx[k]);
		}
		w += (size_t)snprintf(out + w, len - w, "%s%.*s%s%s", first ? "" : ", ", (int)kl, p,
				      v ? " = " : "", val);
		p = v ? v + vl : p + kl;
		if (*p == ',')
			p++;
	}
	if (w < len)
		snprintf(out + w, len - w, ")");
}

/* More labelled tics on a log axis over [lo, hi]: gnuplot labels only
 * the powers of ten (10 and 100 on a 10..100 axis); when it spans 3
 * decades or fewer, 2 and 5 of every decade are added. */
static void put_log_tics(FILE *f, const char *axis, double lo, double hi)
{
	if (!(lo > 0) || !(hi > lo) || hi / lo > 1e3 + 1)
		return;
	static const double steps[] = {2, 5};
	fprintf(f, "set %stics add (", axis);
	const char *sep = "";
	for (double d = pow(10, floor(log10(lo))); d <= hi * 1.0001; d *= 10)
		for (int i = 0; i < 2; i++) {
			double v = d * steps[i];
			if (v >= lo * 0.9999 && v <= hi * 1.0001) {
				fprintf(f, "%s\"%g\" %.17g", sep, v, v);
				sep = ", ";
			}
		}
	fputs(")\n", f);
}

static size_t scatter_script(FILE *f, enum plot_format fmt, const void *ctx)
{
	const struct scatter_ctx *c = ctx;
	double lo = INFINITY, hi = -INFINITY;
	size_t used = 0;
	for (size_t i = 0; i < c->n; i++) {
		double x = c->x[i], y = c->y[i];
		if (!isfinite(x) || !isfinite(y) || x <= 0 || y <= 0)
			continue;
		lo = fmin(lo, fmin(x, y));
		hi = fmax(hi, fmax(x, y));
		used++;
	}
	if (!used)
		return 0;
	/* one range for both axes, out to whole decades with some room, so
	 * the diagonal runs corner to corner */
	lo = pow(10, floor(log10(lo / 1.5)));
	hi = pow(10, ceil(log10(hi * 1.5)));
	int w = c->o->width > 0 ? c->o->width : 700, h = c->o->height > 0 ? c->o->height : 700;
	put_terminal(f, fmt, w, h, (struct plot_fonts){10, 12, 9}, true);
	fputs("set grid\nset key top left\nset size square\nset logscale xy 10\n"
	      "set format x '%g'\nset format y '%g'\n", f);
	put_log_tics(f, "x", lo, hi);
	put_log_tics(f, "y", lo, hi);
	const char *labels[3][2] = {{"title", c->o->title},
				    {"xlabel", c->o->xlabel},
				    {"ylabel", c->o->ylabel}};
	for (int i = 0; i < 3; i++)
		if (labels[i][1]) {
			fprintf(f, "set %s ", labels[i][0]);
			put_quoted(f, labels[i][1]);
			fputc('\n', f);
		}
	fprintf(f, "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\nset samples 200\n", lo, hi,
		lo, hi);
	/* x y "label": a label's double quotes become single ones */
	fputs("$p << EOD\n", f);
	for (size_t i = 0; i < c->n; i++) {
		double x = c->x[i], y = c->y[i];
		if (!isfinite(x) || !isfinite(y) || x <= 0 || y <= 0)
			continue;
		fprintf(f, "%.17g %.17g \"", x, y);
		for (const char *s = c->labels && c->labels[i] ? c->labels[i] : ""; *s; s++)
			fputc(*s == '"' ? '\'' : (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s, f);
		fputs("\"\n", f);
	}
	fputs("EOD\n", f);
	fputs("plot x with lines dt 2 lw 1.5 lc rgb '#808080' title 'y = x', \\\n"
	      "     $p using 1:2 with points pt 7 ps 1.3 lc rgb '#1f77b4' "
	      "title 'simulated vs measured'", f);
	if (c->labels)
		fputs(", \\\n     $p using 1:2:3 with labels left offset char 1,0.6 notitle", f);
	fputs("\nunset output\n", f);
	return used;
}

int gpuvm_plot_scatter_diagonal(const char *out_path, const struct gpuvm_plot_opts *opts,
				const char *const *labels, const double *x, const double *y,
				size_t n, struct gpuvm_error *err)
{
	if (gpuvm_plot_check_path(out_path, err) != 0)
		return -1;
	struct gpuvm_plot_opts none = {0};
	struct scatter_ctx c = {opts ? opts : &none, labels, x, y, n};
	return render_figure(out_path, scatter_script, &c, err);
}

struct matrix_ctx {
	const struct gpuvm_plot_opts *o;
	const double *z;
	size_t rows, cols;
	const char *cblabel;
};

static size_t matrix_script(FILE *f, enum plot_format fmt, const void *ctx)
{
	const struct matrix_ctx *m = ctx;
	size_t rows = m->rows, cols = m->cols;
	const double *z = m->z;
	const char *cblabel = m->cblabel;
	/* The terminal and labels as for line figures; no series. */
	struct gpuvm_plot_opts head = *m->o;
	head.x_bytes = false;
	head.x_categories = NULL;
	head.logx = head.logy = false;
	build_script(f, fmt, &head, NULL, 0);
	fprintf(f, "unset grid\nset offsets 0, 0, 0, 0\nset autoscale fix\nset yrange [-0.5:%zu-0.5]\nset xrange [-0.5:%zu-0.5]\n"
		   "set palette defined (0 'white', 1 '#fdd49e', 2 '#d7301f', 3 '#7f0000')\n"
		   "set size ratio -1\nset key off\nset cbrange [0:*]\n"
		   /* Non-finite cells are not drawn: grey behind them tells
		    * "not measured" apart from a white 0. */
		   "set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb '#9e9e9e' "
		   "fillstyle solid noborder\n", rows, cols);
	if (cblabel) {
		fputs("set cblabel ", f);
		put_quoted(f, cblabel);
		fputc('\n', f);
	}
	fputs("$m << EOD\n", f);
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++) {
			double v = z[r * cols + c];
			if (isfinite(v))
				fprintf(f, "%zu %zu %.9g\n", c, r, v);
			else
				fprintf(f, "%zu %zu NaN\n", c, r);
		}
	fputs("EOD\nplot $m using 1:2:3 with image\nunset output\n", f);
	return rows * cols;
}

int gpuvm_plot_heatmap(const char *out_path, const struct gpuvm_plot_opts *opts,
		       const double *z, size_t rows, size_t cols, const char *cblabel,
		       struct gpuvm_error *err)
{
	if (gpuvm_plot_check_path(out_path, err) != 0)
		return -1;
	if (!rows || !cols)
		return gpuvm_fail(err, "--plot", 0, NULL, "%s: empty matrix", out_path);
	struct gpuvm_plot_opts none = {0};
	struct matrix_ctx c = {opts ? opts : &none, z, rows, cols, cblabel};
	return render_figure(out_path, matrix_script, &c, err);
}

/* Heat maps (page-access figures): boxes per non-empty cell, coloured by
 * a palette over z, one multiplot panel per map. */
struct heatmaps_ctx {
	const struct gpuvm_plot_heatmap_opts *o;
	const struct gpuvm_plot_heatmap *panels;
	size_t n;
};

static size_t heatmaps_script(FILE *f, enum plot_format fmt, const void *ctx)
{
	const struct heatmaps_ctx *hc = ctx;
	const struct gpuvm_plot_heatmap_opts *o = hc->o;
	const struct gpuvm_plot_heatmap *p = hc->panels;
	size_t n = hc->n;
	int w = o->width > 0 ? o->width : 1000;
	int ph = o->panel_height > 0 ? o->panel_height : 260;
	int h = ph * (int)n + 60;
	put_terminal(f, fmt, w, h, (struct plot_fonts){9, 10, 8}, false);
	double zmax = o->zmax;
	for (size_t i = 0; i < n && zmax <= 0; i++)
		for (size_t c = 0; c < p[i].n; c++)
			if (isfinite(p[i].z[c]) && fabs(p[i].z[c]) > zmax)
				zmax = fabs(p[i].z[c]);
	if (zmax <= 0)
		zmax = 1;
	double xmin = INFINITY, xmax = -INFINITY;
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < p[i].n; c++) {
			if (p[i].x[c] - p[i].dx[c] < xmin)
				xmin = p[i].x[c] - p[i].dx[c];
			if (p[i].x[c] + p[i].dx[c] > xmax)
				xmax = p[i].x[c] + p[i].dx[c];
		}
	if (!(xmin < xmax)) {
		xmin = 0;
		xmax = 1;
	}
	if (o->n_categories) {
		/* one colour per integer z: maxcolors samples the defined
		 * points exactly once each over [-0.5, n - 0.5] */
		fprintf(f, "set palette maxcolors %zu\nset palette defined (", o->n_categories);
		for (size_t i = 0; i < o->n_categories; i++)
			fprintf(f, "%s%zu '%s'", i ? ", " : "", i, o->category_colours[i]);
		fprintf(f, ")\nset cbrange [-0.5:%.17g]\nset cbtics (", (double)o->n_categories - 0.5);
		for (size_t i = 0; i < o->n_categories; i++) {
			fputs(i ? ", " : "", f);
			put_quoted(f, o->categories[i]);
			fprintf(f, " %zu", i);
		}
		fputs(") scale 0\n", f);
	} else if (o->diverging) {
		fputs("set palette defined (-1 '#08306b', -0.5 '#2171b5', -0.01 '#c6dbef', "
		      "0 '#ffffff', 0.01 '#fcbba1', 0.5 '#de2d26', 1 '#67000d')\n", f);
		fprintf(f, "set cbrange [%.17g:%.17g]\n", -zmax, zmax);
	} else {
		fputs("set palette defined (0 '#ffffcc', 0.3 '#fd8d3c', 0.7 '#bd0026', 1 '#400010')\n", f);
		fprintf(f, "set cbrange [0:%.17g]\n", zmax);
	}
	if (o->n_cbtics && !o->n_categories) {
		fputs("set cbtics (", f);
		for (size_t i = 0; i < o->n_cbtics; i++) {
			fputs(i ? ", " : "", f);
			put_quoted(f, o->cbtic_labels[i]);
			fprintf(f, " %.17g", o->cbtic_values[i]);
		}
		fputs(")\n", f);
	}
	if (o->cblabel) {
		fputs("set cblabel ", f);
		put_quoted(f, o->cblabel);
		fputc('\n', f);
	}
	fprintf(f, "set xrange [%.17g:%.17g]\n", xmin, xmax);
	fputs("set format x '%.1s%c'\nset tics out\nset grid front lc rgb '#d0d0d0'\n", f);
	fputs("set multiplot", f);
	if (o->title) {
		fputs(" title ", f);
		put_quoted(f, o->title);
	}
	fprintf(f, " layout %zu,1\n", n);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "$h%zu << EOD\n", i);
		for (size_t c = 0; c < p[i].n; c++)
			if (isfinite(p[i].z[c]))
				fprintf(f, "%.17g %.17g %.17g %.17g %.17g\n", p[i].x[c], p[i].y[c],
					p[i].dx[c], p[i].dy[c], p[i].z[c]);
		fputs("EOD\n", f);
	}
	for (size_t i = 0; i < n; i++) {
		fputs("unset arrow\n", f);
		for (size_t v = 0; v < p[i].n_vlines && v < 64; v++)
			fprintf(f, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead front "
				   "lc rgb '#606060' dt 2\n", p[i].vlines[v], p[i].vlines[v]);
		fputs("set title ", f);
		put_quoted(f, p[i].title ? p[i].title : "");
		fputc('\n', f);
		if (o->ylabel) {
			fputs("set ylabel ", f);
			put_quoted(f, o->ylabel);
			fputc('\n', f);
		}
		if (p[i].ymax > 0)
			fprintf(f, "set yrange [0:%.17g]\n", p[i].ymax);
		else
			fputs("set autoscale y\n", f);
		if (i + 1 == n && o->xlabel) {
			fputs("set xlabel ", f);
			put_quoted(f, o->xlabel);
			fputc('\n', f);
		}
		if (p[i].n)
			fprintf(f, "plot $h%zu using 1:2:3:4:5 with boxxyerror fs solid 1.0 noborder "
				   "lc palette z notitle\n", i);
		else
			fputs("plot NaN notitle\n", f);
	}
	fputs("unset multiplot\nunset output\n", f);
	return n; /* an empty panel still draws its frame */
}

int gpuvm_plot_heatmaps(const char *out_path, const struct gpuvm_plot_heatmap_opts *opts,
			const struct gpuvm_plot_heatmap *panels, size_t n,
			struct gpuvm_error *err)
{
	if (gpuvm_plot_check_path(out_path, err) != 0)
		return -1;
	if (n == 0)
		return gpuvm_fail(err, "--plot", 0, NULL, "%s: no panel to draw", out_path);
	struct gpuvm_plot_heatmap_opts none = {0};
	struct heatmaps_ctx c = {opts ? opts : &none, panels, n};
	return render_figure(out_path, heatmaps_script, &c, err);
}
