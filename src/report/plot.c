/* gnuplot driver: builds a script with the data inline as datablocks and
 * pipes it to a gnuplot child whose standard output is the figure, opened
 * through the output module (so a device stays a device, a regular file is
 * replaced only when gnuplot succeeded, and gnuplot never opens a path).
 *
 * This file owns finding gnuplot, checking figure paths, the terminal
 * lines, running gnuplot and the companion script (fig.gp); the figure
 * kinds are plot_lines.c (line plots) and plot_maps.c (scatter against a
 * diagonal, heatmaps). Guarantees: a figure file is replaced only when
 * gnuplot succeeded; without gnuplot nothing is written. */
#include "report/plot_internal.h"
#include "gpuvm/number.h"

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
bool gpuvm_plot_script_path(const char *out_path, char *buf, size_t len)
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

static int check_path(const char *out_path, const char *what, struct gpuvm_error *err)
{
	if (!out_path || !*out_path)
		return gpuvm_fail(err, what, 0, NULL, "empty output file name");
	if (format_of(out_path) == FMT_NONE)
		return gpuvm_fail(err, what, 0, NULL,
				  "%s: unsupported figure format (use .png, .svg or .pdf)",
				  out_path);
	if (gpuvm_output_check(out_path, what, false, err))
		return -1;
	char gp[PATH_MAX], gp_what[80];
	snprintf(gp_what, sizeof gp_what, "%s (its gnuplot script)", what);
	if (gpuvm_plot_script_path(out_path, gp, sizeof gp) &&
	    gpuvm_output_check(gp, gp_what, false, err))
		return -1;
	return 0;
}

int gpuvm_plot_check_path(const char *out_path, struct gpuvm_error *err)
{
	return check_path(out_path, "--plot", err);
}

int gpuvm_plot_check_path_as(const char *out_path, const char *what, struct gpuvm_error *err)
{
	return check_path(out_path, what, err);
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
void plot_put_quoted(FILE *f, const char *s)
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

/* The terminal for fmt at w x h pixels (PDF at 150 px per inch), then the
 * output file. PNG falls back to the plain png terminal where gnuplot
 * lacks cairo. svg_dynamic adds the SVG terminal's 'dynamic' sizing. */
void plot_put_terminal(FILE *f, enum plot_format fmt, int w, int h, struct plot_fonts font,
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

bool plot_plottable(const struct gpuvm_plot_opts *o, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return false;
	if (o->logx && x <= 0)
		return false;
	if (o->logy && y <= 0)
		return false;
	return true;
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
		plot_put_quoted(f, base);
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

int plot_render_figure(const char *out_path, plot_script_fn write_script, const void *ctx,
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
		if (rc == 0 && keep_script && gpuvm_plot_script_path(out_path, gp, sizeof gp))
			rc = write_companion(out_path, gp, script, err);
	} else if (rc == 0) {
		rc = -1;
	}
	free(script);
	return rc;
}

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
		uint64_t u = 0;
		if (v && !gpuvm_num_u64(val, strlen(val), 0, UINT64_MAX, &u) && u >= 10000) {
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
