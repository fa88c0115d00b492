/* Progress lines: the live terminal line and the periodic batch-log line
 * (include/gpuvm/progress.h has the contract and how time left is
 * estimated). */
#include "gpuvm/progress.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "gpuvm/units.h"

/* the live line is redrawn at most this often (as engine.c always did) */
#define LIVE_REDRAW_S 0.25

static double clock_seconds(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double gpuvm_progress_wall_seconds(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double gpuvm_progress_cpu_seconds(void)
{
	return clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
}

int gpuvm_progress_parse(const char *text, double *interval_s, bool *off)
{
	*off = false;
	if (!strcmp(text, "off") || !strcmp(text, "none") || !strcmp(text, "0")) {
		*off = true;
		return 0;
	}
	double v;
	if (gpuvm_parse_double(text, &v) || !(v > 0) || v > 1e6)
		return -1;
	*interval_s = v;
	return 0;
}

void gpuvm_progress_init(struct gpuvm_progress *p, enum gpuvm_progress_mode mode,
			 double interval_s, FILE *out, const char *label)
{
	memset(p, 0, sizeof *p);
	p->mode = mode;
	p->interval_s = interval_s > 0 ? interval_s : GPUVM_PROGRESS_DEFAULT_INTERVAL_S;
	p->out = out;
	p->label = label ? label : "gpuvm";
	p->cpu0_s = gpuvm_progress_cpu_seconds();
	p->wall0_s = p->last_wall_s = clock_seconds(CLOCK_MONOTONIC);
	p->launch_cpu0_s = p->cpu0_s;
}

void gpuvm_progress_expect(struct gpuvm_progress *p, uint64_t thread_accesses)
{
	p->expected_accesses = thread_accesses;
}

void gpuvm_progress_format_duration(double s, char *buf, size_t len)
{
	if (!(s >= 0) || s > 1e8) {
		snprintf(buf, len, "?");
		return;
	}
	unsigned long long n = (unsigned long long)llround(s);
	if (n < 60)
		snprintf(buf, len, "%llus", n);
	else if (n < 3600)
		snprintf(buf, len, "%llum%02llus", n / 60, n % 60);
	else
		snprintf(buf, len, "%lluh%02llum", n / 3600, n / 60 % 60);
}

/* "~12m05s CPU, ~30m wall at this load (thread accesses: 45% of the
 * workload's estimate)" or ">= 40s CPU (this launch's CTAs; ...)" */
static void time_left(const struct gpuvm_progress *p, const struct gpuvm_progress_sample *s,
		      double cpu_now, double wall_now, char *buf, size_t len)
{
	char d[32], w[32];
	double spent = cpu_now - p->cpu0_s, wall = wall_now - p->wall0_s;
	/* CPU seconds left become wall seconds at the load seen so far */
	double load = spent > 0 ? wall / spent : 1;
	double left;
	const char *how;
	char basis[96];
	if (p->expected_accesses && s->thread_accesses >= p->expected_accesses) {
		snprintf(buf, len, "~0s (the workload's estimated thread accesses are done)");
		return;
	}
	if (p->expected_accesses && s->thread_accesses) {
		double f = (double)s->thread_accesses / (double)p->expected_accesses;
		left = spent * (1 - f) / f;
		how = "~";
		snprintf(basis, sizeof basis, "thread accesses: %.0f%% of the workload's estimate",
			 100 * f);
	} else if (s->ctas && s->ctas_done && s->ctas_done < s->ctas) {
		double f = (double)s->ctas_done / (double)s->ctas;
		left = (cpu_now - p->launch_cpu0_s) * (1 - f) / f;
		how = ">= ";
		snprintf(basis, sizeof basis, "this launch's CTAs; later launches not known ahead");
	} else {
		snprintf(buf, len, "? (no estimate of the work yet)");
		return;
	}
	gpuvm_progress_format_duration(left, d, sizeof d);
	gpuvm_progress_format_duration(left * load, w, sizeof w);
	snprintf(buf, len, "%s%s CPU, %s%s wall at this load (%s)", how, d, how, w, basis);
}

static void batch_line(struct gpuvm_progress *p, const struct gpuvm_progress_sample *s,
		       double wall_now)
{
	double cpu_now = gpuvm_progress_cpu_seconds();
	double cpu = cpu_now - p->cpu0_s;
	char wall[32], cpus[32], left[192];
	gpuvm_progress_format_duration(wall_now - p->wall0_s, wall, sizeof wall);
	gpuvm_progress_format_duration(cpu, cpus, sizeof cpus);
	time_left(p, s, cpu_now, wall_now, left, sizeof left);
	fprintf(p->out,
		"%s: progress at %s (%s CPU): %.4g cycles simulated, %llu launches done, "
		"launch %llu %s CTAs %llu/%llu, %.3g warp insts/CPU s, left %s\n",
		p->label, wall, cpus, s->sim_cycles, (unsigned long long)p->launches_done,
		(unsigned long long)s->kernel_index, s->kernel ? s->kernel : "-",
		(unsigned long long)s->ctas_done, (unsigned long long)s->ctas,
		cpu > 0 ? (double)s->warp_insts / cpu : 0.0, left);
	fflush(p->out);
	p->lines++;
}

void gpuvm_progress_report(void *ctx, const struct gpuvm_progress_sample *s)
{
	struct gpuvm_progress *p = ctx;
	if (!p || p->mode == GPUVM_PROGRESS_OFF)
		return;
	if (s->kernel_index != p->launch_index) {
		p->launch_index = s->kernel_index;
		p->launch_cpu0_s = gpuvm_progress_cpu_seconds();
	}
	if (s->launch_end)
		p->launches_done++;
	double now = clock_seconds(CLOCK_MONOTONIC);
	double dt = now - p->last_wall_s;
	if (p->mode == GPUVM_PROGRESS_LIVE) {
		if (!s->launch_end && dt < LIVE_REDRAW_S)
			return;
		p->last_wall_s = now;
		fprintf(p->out, "\r  kernel %llu %-24.24s CTAs %llu/%llu  %.3g warp insts%s",
			(unsigned long long)s->kernel_index, s->kernel ? s->kernel : "-",
			(unsigned long long)s->ctas_done, (unsigned long long)s->ctas,
			(double)s->warp_insts, s->launch_end ? "\n" : "");
		p->live_line_open = !s->launch_end;
		fflush(p->out);
		return;
	}
	if (dt < p->interval_s)
		return;
	p->last_wall_s = now;
	batch_line(p, s, now);
}

void gpuvm_progress_finish(struct gpuvm_progress *p)
{
	if (p->mode == GPUVM_PROGRESS_LIVE && p->live_line_open) {
		fputc('\n', p->out);
		p->live_line_open = false;
	}
}
