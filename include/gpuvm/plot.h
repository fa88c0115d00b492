/* Line figures through gnuplot: a small driver that sweeps, the demo and
 * probe figures share. Data go to gnuplot inline (datablocks on a pipe);
 * the figure is written to "<out>.tmp" and renamed only on success, so a
 * failed plot never leaves a partial file. The format follows the output
 * file's extension: .png (pngcairo when gnuplot has it, else png), .svg,
 * .pdf (pdfcairo). */
#ifndef GPUVM_PLOT_H
#define GPUVM_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/error.h"

/* One line of the figure: n points (x[i], y[i]). Points need not be
 * sorted (the driver sorts by x); non-finite values, and values <= 0 on a
 * log axis, are left out. */
struct gpuvm_plot_series {
	const char *name; /* legend entry */
	const double *x;
	const double *y;
	size_t n;
	/* gnuplot's drawing style after "with" ("points pt 5 ps 1.5 lc rgb
	 * '#d62728'": markers alone, for values measured at a few points
	 * that no line should join); NULL: lines through points */
	const char *style;
};

struct gpuvm_plot_opts {
	const char *title;  /* NULL: none */
	const char *xlabel; /* NULL: none */
	const char *ylabel; /* NULL: none */
	bool logx;          /* log2 x axis */
	bool logy;          /* log10 y axis */
	bool x_bytes;       /* x values are byte counts: tics read 64MiB, 4GiB */
	/* Non-NULL: x values are indices 0..n_x_categories-1 into these labels
	 * (a categorical axis, e.g. policy names). */
	const char *const *x_categories;
	size_t n_x_categories;
	int width, height;  /* pixels (svg: points); 0 = 900 x 600 */
	/* Otherwise an axis becomes logarithmic when some series spans more
	 * than 10x on it with every value positive (a categorical x never). */
	bool fixed_scales;
	/* A note drawn in the figure's top left corner ('\n' breaks lines),
	 * e.g. why two kinds of point differ; NULL: none. Line figures only. */
	const char *note;
};

/* True when a gnuplot executable is on PATH. */
bool gpuvm_plot_available(void);

/* A workload spec as a figure title shows it: "hash-groupby (input =
 * 16.8M, region = 4GiB)" for "hash-groupby:input=16777216,region=4GiB";
 * integers of 10000 or more in k/M/G, other values as given. */
void gpuvm_plot_readable_spec(const char *spec, char *out, size_t len);

/* Checks that out_path has a supported extension (.png, .svg, .pdf; a
 * device or FIFO without one gets PNG) and can be written (gpuvm_output_check).
 * Returns 0, or -1 with err set (origin "--plot"). */
int gpuvm_plot_check_path(const char *out_path, struct gpuvm_error *err);
/* The same, naming the option what ("--pcie-plot") in messages. */
int gpuvm_plot_check_path_as(const char *out_path, const char *what, struct gpuvm_error *err);

/* The gnuplot script kept beside a figure (fig.png -> fig.gp) into buf:
 * false when there is none (a device, a FIFO, a name without an
 * extension). The CLI claims it with the figure (gpuvm_output_claim). */
bool gpuvm_plot_script_path(const char *out_path, char *buf, size_t len);

/* Draws the series into out_path. Returns 0, or -1 with err set: gnuplot
 * missing, unsupported extension, no plottable point, gnuplot failure. */
int gpuvm_plot_lines_opts(const char *out_path, const struct gpuvm_plot_opts *opts,
			  const struct gpuvm_plot_series *series, size_t n,
			  struct gpuvm_error *err);

/* Shorthand for the common case. */
int gpuvm_plot_lines(const char *out_path, const char *title, const char *xlabel,
		     const char *ylabel, bool logx, bool logy,
		     const struct gpuvm_plot_series *series, size_t n,
		     struct gpuvm_error *err);

/* A correlation scatter, as Accel-Sim's correlator draws them: one point
 * per (x[i], y[i]), labelled labels[i] (NULL: no labels), log10 on both
 * axes over one common range, and the line y = x. opts gives the title,
 * axis labels and size (its log and x-axis fields are not used). Points
 * that are not finite or not positive are left out. Written atomically
 * like the lines. The points' families are their labels' programs, as
 * gpuvm_plot_scatter_families below gives them. */
int gpuvm_plot_scatter_diagonal(const char *out_path, const struct gpuvm_plot_opts *opts,
				const char *const *labels, const double *x, const double *y,
				size_t n, struct gpuvm_error *err);

/* The same figure for points of several families and devices (validate:
 * programs measured on GPUs). Every family gets its own colour and marker
 * shape, one legend entry each; every device its fill (the first filled,
 * the second open, ...), one legend entry each in grey; band_pct > 0 draws
 * the band y = x (1 ± band_pct / 100). Labels are drawn beside the points
 * only while there are few enough not to cover one another (30). */
struct gpuvm_plot_scatter {
	const char *const *labels;   /* per point, or NULL */
	const char *const *families; /* per point, or NULL: the label up to a
					'-' before a digit ("gemm-256": gemm) */
	const char *const *devices;  /* per point, or NULL: one device, unnamed */
	double band_pct;
};
int gpuvm_plot_scatter_families(const char *out_path, const struct gpuvm_plot_opts *opts,
				const struct gpuvm_plot_scatter *s, const double *x,
				const double *y, size_t n, struct gpuvm_error *err);

/* A heatmap of a rows x cols matrix z (row-major; row r drawn bottom to
 * top as y = r, column c as x = c; non-finite cells are grey, apart from
 * the palette's white 0), e.g.
 * the TLB probe's sharing matrix. Written atomically like the lines. */
int gpuvm_plot_heatmap(const char *out_path, const struct gpuvm_plot_opts *opts,
		       const double *z, size_t rows, size_t cols, const char *cblabel,
		       struct gpuvm_error *err);

/* Heat maps: one panel per entry, stacked, sharing the x axis and the
 * colour range. Each panel lists its non-empty cells: centre (x, y),
 * half-extents (dx, dy) and value z. */
struct gpuvm_plot_heatmap {
	const char *title;  /* panel title */
	const double *x, *y, *dx, *dy, *z;
	size_t n;           /* cells */
	double ymax;        /* y range [0, ymax] (0: from the cells) */
	const double *vlines; /* x positions marked by dashed lines (e.g. launches) */
	size_t n_vlines;
};

struct gpuvm_plot_heatmap_opts {
	const char *title, *xlabel, *ylabel, *cblabel;
	/* Diverging colours around 0: negative z in blues labelled neg_label,
	 * positive z in reds labelled pos_label. Otherwise one sequential
	 * palette from 0. */
	bool diverging;
	const char *neg_label, *pos_label;
	/* Colour-bar tics: value, label (n_cbtics of them; 0: automatic). */
	const double *cbtic_values;
	const char *const *cbtic_labels;
	size_t n_cbtics;
	double zmax;        /* colour range [-zmax, zmax] or [0, zmax]; 0: from data */
	/* Categorical colours instead: z is an index 0..n_categories-1, cell
	 * colour category_colours[z] ("#rrggbb"), the colour bar names them. */
	const char *const *categories;
	const char *const *category_colours;
	size_t n_categories;
	int width, panel_height; /* pixels; 0: 1000 x 260 per panel */
};

int gpuvm_plot_heatmaps(const char *out_path, const struct gpuvm_plot_heatmap_opts *opts,
			const struct gpuvm_plot_heatmap *panels, size_t n,
			struct gpuvm_error *err);

#endif
