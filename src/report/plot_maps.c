/* Scatter plots against the diagonal (gpuvm_plot_scatter_families:
 * validate's simulated vs measured times, a colour and shape per program,
 * a fill per device, a band of tolerance) and heatmaps (gpuvm_plot_heatmap: probe's
 * TLB matrices; gpuvm_plot_heatmaps: the page-access panels).
 *
 * Owns: nothing between calls. May call: plot.c's driver and plot_lines.c's
 * script builder (plot_internal.h). Guarantees: as plot.c's. */

#include "report/plot_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/units.h"

struct scatter_ctx {
	const struct gpuvm_plot_opts *o;
	const struct gpuvm_plot_scatter *s;
	const double *x, *y;
	size_t n;
};

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

#define SCATTER_MAX_LABELS 30
/* Past this many families one colour for all: no reader tells 40 apart. */
#define SCATTER_MAX_FAMILIES 40
#define SCATTER_MAX_DEVICES 4

/* Colours a reader tells apart (Tableau 10, then 6 darker or lighter
 * ones), and marker shapes: filled and open forms of each (gnuplot's
 * pt numbers), so that colour and shape together name a family even in
 * grey print. A device is the fill: the first filled, the second open,
 * the third and fourth a plus and a cross in the family's colour. */
static const char *const family_colours[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf", "#393b79", "#b15928", "#637939", "#e7298a", "#005f5f", "#f2b701",
};
#define N_COLOURS (sizeof family_colours / sizeof family_colours[0])
static const int shape_filled[] = {7, 5, 9, 13, 11}; /* circle square triangle diamond ∇ */
static const int shape_open[] = {6, 4, 8, 12, 10};
#define N_SHAPES (sizeof shape_filled / sizeof shape_filled[0])

static int family_pt(size_t family, size_t device)
{
	size_t k = family % N_SHAPES;
	switch (device) {
	case 0: return shape_filled[k];
	case 1: return shape_open[k];
	case 2: return 1; /* + */
	default: return 2; /* x */
	}
}

/* The length of a point label's family: up to the first '-' that a digit
 * follows ("2dconv-128-x8": 6), or all of it ("b+tree"). */
static size_t group_length(const char *label)
{
	size_t i = 0;
	for (; label[i]; i++)
		if (label[i] == '-' && label[i + 1] >= '0' && label[i + 1] <= '9')
			break;
	return i;
}

/* Point i's family name: s->families[i], or its label's prefix. */
static void family_of(const struct scatter_ctx *c, size_t i, char *buf, size_t len)
{
	const struct gpuvm_plot_scatter *s = c->s;
	if (s->families && s->families[i])
		snprintf(buf, len, "%s", s->families[i]);
	else if (s->labels && s->labels[i]) {
		size_t n = group_length(s->labels[i]);
		snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), s->labels[i]);
	} else
		snprintf(buf, len, "%s", "");
}

/* Index of name among names[0..*n), added when new (up to max; -1 past). */
static int intern(char (*names)[64], size_t *n, size_t max, const char *name)
{
	for (size_t k = 0; k < *n; k++)
		if (!strcmp(names[k], name))
			return (int)k;
	if (*n == max)
		return -1;
	snprintf(names[*n], 64, "%s", name);
	return (int)(*n)++;
}

static size_t scatter_script(FILE *f, enum plot_format fmt, const void *ctx)
{
	const struct scatter_ctx *c = ctx;
	const struct gpuvm_plot_scatter *sc = c->s;
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
	/* Families and devices: a colour and shape each, a fill each. */
	static char fam[SCATTER_MAX_FAMILIES][64], dev[SCATTER_MAX_DEVICES][64];
	size_t n_fam = 0, n_dev = 0;
	int *g = calloc(c->n ? c->n : 1, 2 * sizeof *g);
	bool by_family = g && (sc->families || sc->labels);
	bool by_device = g && sc->devices;
	for (size_t i = 0; g && i < c->n; i++) {
		char name[64];
		family_of(c, i, name, sizeof name);
		g[2 * i] = by_family ? intern(fam, &n_fam, SCATTER_MAX_FAMILIES, name) : 0;
		g[2 * i + 1] = by_device ? intern(dev, &n_dev, SCATTER_MAX_DEVICES,
						  sc->devices[i] ? sc->devices[i] : "") : 0;
		by_family &= g[2 * i] >= 0;
		by_device &= g[2 * i + 1] >= 0;
	}
	if (!by_family)
		n_fam = 0;
	if (!by_device)
		n_dev = 0;
	bool key_right = n_fam + n_dev > 0;
	/* one range for both axes, out to whole decades with some room, so
	 * the diagonal runs corner to corner */
	lo = pow(10, floor(log10(lo / 1.5)));
	hi = pow(10, ceil(log10(hi * 1.5)));
	int w = c->o->width > 0 ? c->o->width : key_right ? 900 : 700;
	int h = c->o->height > 0 ? c->o->height : 700;
	plot_put_terminal(f, fmt, w, h, (struct plot_fonts){10, 12, 9}, true);
	/* the legend beside the square plot, never on the points */
	fprintf(f, "set grid\nset key %s\nset size square\nset logscale xy 10\n"
		   "set format x '%%g'\nset format y '%%g'\n",
		key_right ? "outside right top vertical Left reverse samplen 1.5" : "top left");
	put_log_tics(f, "x", lo, hi);
	put_log_tics(f, "y", lo, hi);
	const char *labels[3][2] = {{"title", c->o->title},
				    {"xlabel", c->o->xlabel},
				    {"ylabel", c->o->ylabel}};
	for (int i = 0; i < 3; i++)
		if (labels[i][1]) {
			fprintf(f, "set %s ", labels[i][0]);
			plot_put_quoted(f, labels[i][1]);
			fputc('\n', f);
		}
	fprintf(f, "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\nset samples 200\n", lo, hi,
		lo, hi);
	/* x y "label" family device: a label's double quotes become single ones */
	fputs("$p << EOD\n", f);
	for (size_t i = 0; i < c->n; i++) {
		double x = c->x[i], y = c->y[i];
		if (!isfinite(x) || !isfinite(y) || x <= 0 || y <= 0)
			continue;
		fprintf(f, "%.17g %.17g \"", x, y);
		for (const char *s = sc->labels && sc->labels[i] ? sc->labels[i] : ""; *s; s++)
			fputc(*s == '"' ? '\'' : (*s == '\n' || *s == '\r' || *s == '\t') ? ' ' : *s, f);
		fprintf(f, "\" %d %d\n", n_fam ? g[2 * i] : 0, n_dev ? g[2 * i + 1] : 0);
	}
	fputs("EOD\n", f);
	/* the band first, so that the points lie on it */
	if (sc->band_pct > 0) {
		double b = sc->band_pct / 100;
		fprintf(f, "plot '+' using 1:($1*%.17g):($1*%.17g) with filledcurves "
			   "fc rgb '#e3e3e3' fs solid 1.0 noborder title '± %g %%', \\\n     ",
			1 - b, 1 + b, sc->band_pct);
	} else
		fputs("plot ", f);
	fputs("x with lines dt 2 lw 1.5 lc rgb '#808080' title 'y = x'", f);
	if (n_fam || n_dev) {
		size_t nf = n_fam ? n_fam : 1, nd = n_dev ? n_dev : 1;
		/* the data: one clause per family and device present, no legend
		 * entry (the entries below name each once) */
		for (size_t k = 0; k < nf; k++)
			for (size_t d = 0; d < nd; d++) {
				bool any = false;
				for (size_t i = 0; i < c->n && !any; i++)
					any = (!n_fam || g[2 * i] == (int)k) && (!n_dev || g[2 * i + 1] == (int)d);
				if (!any)
					continue;
				fprintf(f, ", \\\n     $p using 1:($4 == %zu && $5 == %zu ? $2 : 1/0) with "
					   "points pt %d ps 1.2 lw 1.5 lc rgb '%s' notitle",
					k, d, family_pt(n_fam ? k : 0, d),
					n_fam ? family_colours[k % N_COLOURS] : "#1f77b4");
			}
		/* the legend: each family in its colour and shape, filled; each
		 * device in grey, in its fill */
		for (size_t k = 0; k < n_fam; k++) {
			fprintf(f, ", \\\n     NaN with points pt %d ps 1.2 lc rgb '%s' title ",
				family_pt(k, 0), family_colours[k % N_COLOURS]);
			plot_put_quoted(f, fam[k]);
		}
		for (size_t d = 0; d < n_dev; d++) {
			static const char *const fill[] = {"filled", "open", "plus", "cross"};
			char t[96];
			snprintf(t, sizeof t, "%s (%s)", dev[d], fill[d]);
			fprintf(f, ", \\\n     NaN with points pt %d ps 1.2 lc rgb '#404040' title ",
				family_pt(0, d));
			plot_put_quoted(f, t);
		}
	} else {
		fputs(", \\\n     $p using 1:2 with points pt 7 ps 1.3 lc rgb '#1f77b4' "
		      "title 'simulated vs measured'", f);
	}
	if (sc->labels && used <= SCATTER_MAX_LABELS)
		fputs(", \\\n     $p using 1:2:3 with labels left offset char 1,0.6 notitle", f);
	fputs("\nunset output\n", f);
	free(g);
	return used;
}

int gpuvm_plot_scatter_families(const char *out_path, const struct gpuvm_plot_opts *opts,
				const struct gpuvm_plot_scatter *s, const double *x,
				const double *y, size_t n, struct gpuvm_error *err)
{
	if (gpuvm_plot_check_path(out_path, err) != 0)
		return -1;
	struct gpuvm_plot_opts none = {0};
	struct gpuvm_plot_scatter plain = {0};
	struct scatter_ctx c = {opts ? opts : &none, s ? s : &plain, x, y, n};
	return plot_render_figure(out_path, scatter_script, &c, err);
}

int gpuvm_plot_scatter_diagonal(const char *out_path, const struct gpuvm_plot_opts *opts,
				const char *const *labels, const double *x, const double *y,
				size_t n, struct gpuvm_error *err)
{
	struct gpuvm_plot_scatter s = {.labels = labels};
	return gpuvm_plot_scatter_families(out_path, opts, &s, x, y, n, err);
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
	plot_build_script(f, fmt, &head, NULL, 0);
	fprintf(f, "unset grid\nset offsets 0, 0, 0, 0\nset autoscale fix\nset yrange [-0.5:%zu-0.5]\nset xrange [-0.5:%zu-0.5]\n"
		   "set palette defined (0 'white', 1 '#fdd49e', 2 '#d7301f', 3 '#7f0000')\n"
		   "set size ratio -1\nset key off\nset cbrange [0:*]\n"
		   /* Non-finite cells are not drawn: grey behind them tells
		    * "not measured" apart from a white 0. */
		   "set object 1 rectangle from graph 0,0 to graph 1,1 behind fillcolor rgb '#9e9e9e' "
		   "fillstyle solid noborder\n", rows, cols);
	if (cblabel) {
		fputs("set cblabel ", f);
		plot_put_quoted(f, cblabel);
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
	return plot_render_figure(out_path, matrix_script, &c, err);
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
	plot_put_terminal(f, fmt, w, h, (struct plot_fonts){9, 10, 8}, false);
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
			plot_put_quoted(f, o->categories[i]);
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
			plot_put_quoted(f, o->cbtic_labels[i]);
			fprintf(f, " %.17g", o->cbtic_values[i]);
		}
		fputs(")\n", f);
	}
	if (o->cblabel) {
		/* room right of the colour bar's tic labels for its unit,
		 * which gnuplot would otherwise draw past the canvas */
		fputs("set rmargin 18\nset cblabel ", f);
		plot_put_quoted(f, o->cblabel);
		fputc('\n', f);
	}
	fprintf(f, "set xrange [%.17g:%.17g]\n", xmin, xmax);
	fputs("set format x '%.1s%c'\nset tics out\nset grid front lc rgb '#d0d0d0'\n", f);
	fputs("set multiplot", f);
	if (o->title) {
		fputs(" title ", f);
		plot_put_quoted(f, o->title);
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
		plot_put_quoted(f, p[i].title ? p[i].title : "");
		fputc('\n', f);
		if (o->ylabel) {
			fputs("set ylabel ", f);
			plot_put_quoted(f, o->ylabel);
			fputc('\n', f);
		}
		if (p[i].ymax > 0)
			fprintf(f, "set yrange [0:%.17g]\n", p[i].ymax);
		else
			fputs("set autoscale y\n", f);
		if (i + 1 == n && o->xlabel) {
			fputs("set xlabel ", f);
			plot_put_quoted(f, o->xlabel);
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
	return plot_render_figure(out_path, heatmaps_script, &c, err);
}
