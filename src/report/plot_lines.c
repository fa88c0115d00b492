/* Line plots (gpuvm_plot_lines, gpuvm_plot_lines_opts): series of (x, y)
 * points as gnuplot datablocks, log axes, byte-size tics on a log2 x axis
 * (4KiB, 1MiB, ...), points sorted by x. Used by sweep --plot, probe, the
 * UVM link figure and calibrate; plot_maps.c's heatmap reuses the script
 * builder.
 *
 * Owns: nothing between calls. May call: plot.c's driver (plot_internal.h).
 * Guarantees: points that cannot be drawn (NaN, or <= 0 on a log axis) are
 * left out and counted out of the "points drawn" total. */

#include "report/plot_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"

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
			if (plot_plottable(o, series[s].x[i], series[s].y[i]) && series[s].x[i] >= 0 &&
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
			plot_put_quoted(f, label);
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

/* The title (a line past ~95 characters broken at its next space) and
 * the note in the top-left corner, each double-quoted so that a '\n'
 * breaks its line. */
static void put_title_note(FILE *f, const struct gpuvm_plot_opts *o)
{
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
	if (o->note) {
		/* double-quoted, so that its '\n' break lines; boxed on white
		 * so that a grid line does not run through it */
		fputs("set label 1 \"", f);
		for (const char *p = o->note; *p; p++) {
			if (*p == '\n')
				fputs("\\n", f);
			else if (*p == '"' || *p == '\\')
				fprintf(f, "\\%c", *p);
			else
				fputc(*p == '\r' || *p == '\t' ? ' ' : *p, f);
		}
		fputs("\" at graph 0.02, graph 0.97 left front boxed\n"
		      "set style textbox opaque noborder\n", f);
	}
}

/* Builds the whole gnuplot script in memory. Returns the number of series
 * with at least one plottable point. */
size_t plot_build_script(FILE *f, enum plot_format fmt,
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
	plot_put_terminal(f, fmt, w, h, (struct plot_fonts){10, 12, 9}, true);
	/* large y values in engineering form (1.5G, 200k: gnuplot %s%c),
	 * small ones plainly */
	double ymax = 0;
	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < series[s].n; i++)
			if (plot_plottable(o, series[s].x[i], series[s].y[i]))
				ymax = fmax(ymax, fabs(series[s].y[i]));
	fprintf(f, "set grid\nset key %s\nset format y '%s'\n",
		o->x_categories ? "outside right top vertical" : "below horizontal",
		ymax < 1e4 ? "%g" : o->logy ? "%.0s%c" : "%.1s%c");
	put_title_note(f, o);
	if (o->xlabel) {
		fputs("set xlabel ", f);
		plot_put_quoted(f, o->xlabel);
		fputc('\n', f);
	}
	if (o->ylabel) {
		fputs("set ylabel ", f);
		plot_put_quoted(f, o->ylabel);
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
			if (plot_plottable(o, series[s].x[i], series[s].y[i]) && series[s].y[i] < 0)
				nonneg = false;
	if (!o->logy && nonneg)
		fputs("set yrange [0:*]\n", f);

	if (o->x_categories) {
		fputs("set xtics (", f);
		for (size_t i = 0; i < o->n_x_categories; i++) {
			fprintf(f, "%s", i ? ", " : "");
			plot_put_quoted(f, o->x_categories[i]);
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
			if (plot_plottable(o, series[s].x[i], series[s].y[i]))
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
			any = plot_plottable(o, series[s].x[i], series[s].y[i]);
		if (!any)
			continue;
		if (bars)
			fprintf(f, "%s$d%zu using ($1%+.6g):2 with boxes title ",
				first ? "" : ", \\\n     ", s, ((double)k - ((double)used - 1) / 2) * bw);
		else
			fprintf(f, "%s$d%zu using 1:2 with %s title ", first ? "" : ", \\\n     ", s,
				series[s].style ? series[s].style : "linespoints lw 2 pt 7 ps 0.8");
		plot_put_quoted(f, series[s].name ? series[s].name : "");
		first = false;
		k++;
	}
	fputs("\nunset output\n", f);
	return used;
}

struct lines_ctx {
	const struct gpuvm_plot_opts *o;
	const struct gpuvm_plot_series *series;
	size_t n;
};

static size_t lines_script(FILE *f, enum plot_format fmt, const void *ctx)
{
	const struct lines_ctx *c = ctx;
	return plot_build_script(f, fmt, c->o, c->series, c->n);
}

int gpuvm_plot_lines_opts(const char *out_path, const struct gpuvm_plot_opts *opts,
			  const struct gpuvm_plot_series *series, size_t n,
			  struct gpuvm_error *err)
{
	if (gpuvm_plot_check_path(out_path, err) != 0)
		return -1;
	struct gpuvm_plot_opts none = {0};
	struct lines_ctx c = {opts ? opts : &none, series, n};
	return plot_render_figure(out_path, lines_script, &c, err);
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
