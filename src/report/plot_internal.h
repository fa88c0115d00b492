/* What the gnuplot driver (plot.c) shares with the figure kinds
 * (plot_lines.c, plot_maps.c); the public interface is gpuvm/plot.h. */
#ifndef GPUVM_REPORT_PLOT_INTERNAL_H
#define GPUVM_REPORT_PLOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gpuvm/plot.h"

enum plot_format { FMT_NONE, FMT_PNG, FMT_SVG, FMT_PDF };

/* Font sizes in points per output format: PNG, SVG, PDF. */
struct plot_fonts {
	int png, svg, pdf;
};

/* Every figure: the caller's writer puts the gnuplot script into f and
 * returns how many points it drew; gnuplot renders it into the output
 * opened here, which is published only when gnuplot succeeded, so a failed
 * plot never leaves a half-written file (nor figure bytes on a terminal). */
typedef size_t (*plot_script_fn)(FILE *f, enum plot_format fmt, const void *ctx);

/* plot.c: writes s as a gnuplot single-quoted string ('' stands for '). */
void plot_put_quoted(FILE *f, const char *s);
/* plot.c: the terminal for fmt at w x h pixels, then the output file. */
void plot_put_terminal(FILE *f, enum plot_format fmt, int w, int h, struct plot_fonts font,
		       bool svg_dynamic);
/* plot.c: whether (x, y) can be drawn on o's axes. */
bool plot_plottable(const struct gpuvm_plot_opts *o, double x, double y);
/* plot.c: runs write_script's gnuplot script into out_path (and writes its
 * companion fig.gp beside a regular file). */
int plot_render_figure(const char *out_path, plot_script_fn write_script, const void *ctx,
		       struct gpuvm_error *err);
/* plot_lines.c: builds a line plot's whole script; returns the number of
 * series with at least one plottable point. */
size_t plot_build_script(FILE *f, enum plot_format fmt, const struct gpuvm_plot_opts *in,
			 const struct gpuvm_plot_series *series, size_t n);

#endif
