/* gpuvm bench: the simulator's own speed on a fixed set of runs, single
 * threaded, full model on. Reported as simulated thread accesses and warp
 * instructions per CPU second (medians of --repeat runs), wall-clock rates
 * beside them; the unified-memory runs also as a fraction of the same run
 * on device memory (issue 5: paging must keep >= 50 % of the device-memory
 * speed). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/number.h"
#include "gpuvm/units.h"
#include "gpuvm/output_file.h"
#include "gpuvm/run.h"
#include "par/thread_profile.h"
#include "par/window_profile.h"
#include "par/window.h"
#include "gpuvm/config.h"

struct bench_case {
	const char *what;
	const char *gpu;
	const char *workload;
	const char *metric;  /* JSON key of the headline rate */
	const char *oversub; /* uvm.oversub_percent for managed runs, or NULL */
	int device_case;     /* index of the device-memory twin, or -1 */
};

#define RANDOM_4G "random-sampling:region=4GiB,reads=256"
#define TRIAD_16M "stream-triad:elems=16777216"
#define ACC "thread_accesses"
#define WINST "warp_instructions"

static const struct bench_case cases[] = {
	{"random sampling over 4 GB", "p100", RANDOM_4G, ACC, NULL, -1},
	{"coalesced streaming (triad)", "p100", TRIAD_16M, WINST, NULL, -1},
	{"hash group-by, 1 GB table", "p100", "hash-groupby:region=1GiB,input=67108864", ACC, NULL, -1},
	{"random sampling over 4 GB", "k80", RANDOM_4G, ACC, NULL, -1},
	/* paging: managed memory sized to fit (100 %) and oversubscribed (125 %) */
	{"  managed, 100 %", "p100", RANDOM_4G ",mem=managed", ACC, "100", 0},
	{"  managed, 125 %", "p100", RANDOM_4G ",mem=managed", ACC, "125", 0},
	{"  managed, 100 %", "p100", TRIAD_16M ",mem=managed", WINST, "100", 1},
	{"  managed, 125 %", "p100", TRIAD_16M ",mem=managed", WINST, "125", 1},
	/* the same triad as a kernel body on the SIMT executor (real data) */
	{"triad on the SIMT executor", "p100", "stream-triad-simt:elems=16777216", WINST, NULL, -1},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* --threads N: the rows of issue 34 (device rows, the graph kernels, the
 * SIMT triad, a trace replay with --trace), each run at 1 and N threads;
 * --small: the same kinds of run at sizes that take a second or two. */
static const struct bench_case par_cases[] = {
	{"random sampling over 4 GB", "p100", RANDOM_4G, ACC, NULL, -1},
	{"coalesced streaming (triad)", "p100", TRIAD_16M, WINST, NULL, -1},
	{"random sampling over 4 GB", "k80", RANDOM_4G, ACC, NULL, -1},
	{"  managed, 125 %", "p100", RANDOM_4G ",mem=managed", ACC, "125", -1},
	{"bfs, rmat scale 18", "p100", "bfs:graph=rmat:scale=18", WINST, NULL, -1},
	{"pagerank, rmat scale 17", "p100", "pagerank:graph=rmat:scale=17", WINST, NULL, -1},
	{"triad on the SIMT executor", "p100", "stream-triad-simt:elems=16777216", WINST, NULL, -1},
};
static const struct bench_case par_cases_small[] = {
	{"random sampling over 256 MB", "p100", "random-sampling:region=256MiB,reads=16", ACC, NULL, -1},
	{"coalesced streaming (triad)", "p100", "stream-triad:elems=1048576", WINST, NULL, -1},
	{"  managed, 125 %", "p100", "stream-triad:elems=1048576,mem=managed", WINST, "125", -1},
	{"bfs, rmat scale 13", "p100", "bfs:graph=rmat:scale=13", WINST, NULL, -1},
	{"pagerank, rmat scale 12", "p100", "pagerank:graph=rmat:scale=12", WINST, NULL, -1},
	{"triad on the SIMT executor", "p100", "stream-triad-simt:elems=262144", WINST, NULL, -1},
};
#define N_PAR_CASES (sizeof par_cases / sizeof par_cases[0])
#define N_PAR_CASES_SMALL (sizeof par_cases_small / sizeof par_cases_small[0])

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* CPU (user + system) seconds this process has used: the headline, as a
 * shared machine's wall clock says more about its load than about gpuvm. */
static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* CPU seconds of the calling thread alone: the engine's (the timing
 * model runs on the thread that calls gpuvm_run_point). */
static double thread_cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The host CPU's model name (/proc/cpuinfo), so figures from different
 * machines are not compared blindly. */
static void host_cpu(char *buf, size_t len)
{
	snprintf(buf, len, "unknown");
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		const char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		snprintf(buf, len, "%.*s", (int)strcspn(colon, "\n"), colon);
		break;
	}
	fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- --threads N: speed-up per row, and --profile --------------------- */

struct par_times {
	double cpu_s, wall_s;     /* the process: all threads */
	double engine_cpu_s;      /* the thread that runs the timing model */
	double helpers_cpu_s;     /* threads that ended during the run */
	struct thread_profile_snapshot helpers;
};

/* One run; the medians of repeat runs into *m (helpers: the median run's). */
static int par_measure(const struct gpuvm_run_spec *spec, long repeat, struct par_times *m,
		       double *insts, double *sim_cycles, struct gpuvm_error *err)
{
	struct par_times runs[100];
	double v[100];
	for (long r = 0; r < repeat; r++) {
		cJSON *run;
		thread_profile_reset();
		double c0 = cpu_seconds(), w0 = wall_seconds(), e0 = thread_cpu_seconds();
		if (gpuvm_run_point(spec, &run, err))
			return -1;
		runs[r].engine_cpu_s = thread_cpu_seconds() - e0;
		runs[r].wall_s = wall_seconds() - w0;
		runs[r].cpu_s = cpu_seconds() - c0;
		thread_profile_read(&runs[r].helpers);
		runs[r].helpers_cpu_s = runs[r].helpers.total_cpu_s;
		*insts = num(run, "warp_instructions");
		*sim_cycles = num(run, "sim_cycles");
		cJSON_Delete(run);
	}
	for (long r = 0; r < repeat; r++)
		v[r] = runs[r].wall_s;
	double wm = median(v, (int)repeat);
	long mid = 0; /* the run whose wall time is the median (or nearest) */
	for (long r = 1; r < repeat; r++)
		if (fabs(runs[r].wall_s - wm) < fabs(runs[mid].wall_s - wm))
			mid = r;
	*m = runs[mid];
	m->wall_s = wm;
	for (long r = 0; r < repeat; r++)
		v[r] = runs[r].cpu_s;
	m->cpu_s = median(v, (int)repeat);
	for (long r = 0; r < repeat; r++)
		v[r] = runs[r].engine_cpu_s;
	m->engine_cpu_s = median(v, (int)repeat);
	for (long r = 0; r < repeat; r++)
		v[r] = runs[r].helpers_cpu_s;
	m->helpers_cpu_s = median(v, (int)repeat);
	return 0;
}

/* The bench's last step: --json written when the rows all ran, the report
 * freed; returns the exit status. */
static int finish_json(cJSON *root, int rc, const char *json_path)
{
	struct gpuvm_error err;
	if (!rc && json_path) {
		char *text = cJSON_Print(root);
		if (!text || gpuvm_output_write_text(json_path, text, &err)) {
			fprintf(stderr, "gpuvm bench: %s\n", text ? err.msg : "out of memory");
			rc = GPUVM_EXIT_OUTPUT_FAILED;
		}
		free(text);
	}
	cJSON_Delete(root);
	return rc;
}

/* The speed-up predicted at p cores from runs at 1 and n threads
 * (docs/parallel.md), in CPU seconds, which a loaded host does not
 * distort as it does wall time:
 *   T(p) = S + P / p + O * (log2(p) / log2(max(n, 2)) - 1)
 *   speed-up(p) = T1 / T(p)
 * T1: CPU time at one thread; S: the engine thread's busy time at n
 * (serial: no other thread can do it); P: the other threads' busy time
 * (divisible over cores); O = max(0, CPU at n - T1): the synchronisation
 * the threads add (hand-offs, barriers), already inside S + P at n and
 * growing with the depth of a barrier tree beyond it. At p = n the model
 * gives S + P / n, the critical path the run at n had. Amdahl's additive
 * form: pessimistic where the engine and the helpers overlap. */
static double predict_speedup(double t1_cpu, const struct par_times *m, uint32_t n, double p)
{
	double o = m->cpu_s - t1_cpu;
	if (o < 0)
		o = 0;
	/* The serial work is the N-thread run's own busy time less the sync
	 * it added, not the 1-thread run's CPU: two runs' CPU times differ by
	 * up to 2x on a shared host (the first run pays the cold start), and
	 * a ratio across them predicted 1.8x for a run with no helper. */
	double t1 = m->engine_cpu_s + m->helpers_cpu_s - o;
	if (t1 <= 0)
		t1 = t1_cpu;
	double tp = m->engine_cpu_s + m->helpers_cpu_s / p + o * (log2(p) / log2(n < 2 ? 2 : n) - 1);
	return tp > 0 ? t1 / tp : 0;
}

/* --profile --window: the windowed model's own split, measured at one
 * thread (repeat runs averaged, wall-clock seconds): the barriers, the SM
 * partitions' runs and the rest (input, output, setup), and the time predicted at p cores
 * if the partitions of each window ran side by side and nothing else did
 * (window_profile.h: per window the longest partition or the partitions'
 * sum over min(p, partitions), whichever is longer; waits not counted). */
static void partition_profile(cJSON *pr, const struct window_profile_snapshot *wp, double t1_wall,
			      long repeat, bool table)
{
	double barrier = wp->barrier_s / (double)repeat, parts = wp->partitions_s / (double)repeat;
	/* wall time, as the windows are timed (a monotonic clock) */
	double other = t1_wall - barrier - parts;
	if (other < 0)
		other = 0;
	/* the barriers' memory side where it was served a memory partition
	 * per task: spread as the partitions are, the rest of them serial */
	double memory = wp->memory_s / (double)repeat;
	/* and its SM side's L1s and ports, a task per SM group */
	double sm_data = wp->sm_data_s / (double)repeat;
	double t1 = other + barrier + parts, pred[WINDOW_PROFILE_CORES];
	for (int c = 0; c < WINDOW_PROFILE_CORES; c++) {
		double tp = other + barrier - memory - sm_data + wp->spread_s[c] / (double)repeat +
			    wp->memory_spread_s[c] / (double)repeat +
			    wp->sm_data_spread_s[c] / (double)repeat;
		pred[c] = tp > 0 ? t1 / tp : 0;
	}
	cJSON *o = cJSON_AddObjectToObject(pr, "partitions");
	cJSON_AddNumberToObject(o, "windows", (double)wp->windows / (double)repeat);
	cJSON_AddNumberToObject(o, "partitions", wp->partitions);
	cJSON_AddNumberToObject(o, "barrier_seconds", barrier);
	cJSON_AddNumberToObject(o, "partitions_seconds", parts);
	cJSON_AddNumberToObject(o, "longest_partition_seconds", wp->longest_s / (double)repeat);
	cJSON_AddNumberToObject(o, "other_seconds", other);
	cJSON_AddNumberToObject(o, "wall_seconds", t1_wall); /* the profiled runs' */
	cJSON_AddNumberToObject(o, "barrier_memory_seconds", memory);
	cJSON_AddNumberToObject(o, "memory_tasks", wp->memory_queues);
	/* the SM side of those barriers by phase (sm_split.c): the L1s and
	 * ports a task per SM group, the others serial */
	cJSON_AddNumberToObject(o, "barrier_translation_seconds", wp->translation_s / (double)repeat);
	cJSON_AddNumberToObject(o, "barrier_sm_data_seconds", sm_data);
	cJSON_AddNumberToObject(o, "sm_data_tasks", wp->sm_groups);
	cJSON_AddNumberToObject(o, "barrier_results_seconds", wp->results_s / (double)repeat);
	cJSON_AddNumberToObject(o, "barrier_fraction", t1 > 0 ? barrier / t1 : 0);
	cJSON_AddNumberToObject(o, "serial_fraction",
				t1 > 0 ? (barrier - memory - sm_data + other) / t1 : 0);
	for (int c = 0; c < WINDOW_PROFILE_CORES; c++) {
		char key[48];
		snprintf(key, sizeof key, "predicted_speedup_%.0f", window_profile_cores[c]);
		cJSON_AddNumberToObject(o, key, pred[c]);
	}
	if (!table)
		return;
	printf("  partitions at 1 thread: %.0f windows over %u partitions; barrier %.2f s (%.0f %%; "
	       "its memory side over %u tasks %.2f s), partitions %.2f s (longest per window "
	       "%.2f s), other %.2f s;\n  predicted speed-up of the partitioned model T1/(other + "
	       "barrier's rest + its memory side, its L1s and the partitions over p) at 2/8/32/64 "
	       "cores: %.2f / %.2f / %.2f / %.2f\n",
	       (double)wp->windows / (double)repeat, wp->partitions, barrier,
	       t1 > 0 ? 100 * barrier / t1 : 0, wp->memory_queues, memory, parts,
	       wp->longest_s / (double)repeat, other, pred[0], pred[1], pred[2], pred[3]);
	if (wp->memory_queues)
		printf("  the barrier's SM side: translations %.2f s and results %.2f s (serial), "
		       "L1s and ports %.2f s over %u SM groups\n",
		       wp->translation_s / (double)repeat, wp->results_s / (double)repeat, sm_data,
		       wp->sm_groups);
}

/* --profile: row's "profile" object (and its table lines): where the
 * N-thread run's time went, the speed-up it predicts at more cores, and
 * the windowed model's grain; wp: the one-thread runs' partition
 * profile (with --window), else NULL. */
static void profile_row(cJSON *row, const struct bench_case *c, const struct par_times *one,
			const struct par_times *many, uint32_t threads, double sim_cycles,
			const struct window_profile_snapshot *wp, double profiled_wall_s, long repeat,
			bool table)
{
	struct gpuvm_error err;
	double busy = many->engine_cpu_s + many->helpers_cpu_s;
	double serial = busy > 0 ? many->engine_cpu_s / busy : 1;
	double wait = many->wall_s - many->engine_cpu_s;
	if (wait < 0)
		wait = 0;
	double sync = many->cpu_s - one->cpu_s;
	if (sync < 0)
		sync = 0;
	static const double at[] = {8, 32, 64};
	double pred[3];
	for (int j = 0; j < 3; j++)
		pred[j] = predict_speedup(one->cpu_s, many, threads, at[j]);
	cJSON *pr = cJSON_AddObjectToObject(row, "profile");
	cJSON_AddNumberToObject(pr, "engine_busy_seconds", many->engine_cpu_s);
	cJSON *parts = cJSON_AddArrayToObject(pr, "helper_busy_seconds");
	uint32_t nh = many->helpers.threads < THREAD_PROFILE_MAX ? many->helpers.threads
								 : THREAD_PROFILE_MAX;
	for (uint32_t h = 0; h < nh; h++)
		cJSON_AddItemToArray(parts, cJSON_CreateNumber(many->helpers.cpu_s[h]));
	cJSON_AddNumberToObject(pr, "helpers_busy_seconds", many->helpers_cpu_s);
	cJSON_AddNumberToObject(pr, "engine_wait_seconds", wait);
	cJSON_AddNumberToObject(pr, "sync_cpu_seconds", sync);
	cJSON_AddNumberToObject(pr, "serial_fraction", serial);
	cJSON_AddNumberToObject(pr, "sync_fraction", many->cpu_s > 0 ? sync / many->cpu_s : 0);
	cJSON_AddNumberToObject(pr, "predicted_speedup_8", pred[0]);
	cJSON_AddNumberToObject(pr, "predicted_speedup_32", pred[1]);
	cJSON_AddNumberToObject(pr, "predicted_speedup_64", pred[2]);
	/* the windowed model's grain (docs/parallel.md): its window from
	 * the preset, and the CPU time a window holds at one thread */
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	struct par_window win = {0};
	if (cfg && !gpuvm_config_load(cfg, c->gpu, &err) && !gpuvm_config_finalize(cfg, &err))
		par_window_of(cfg, PAR_SCOPE_GPC, &win);
	free(cfg);
	double windows = win.cycles > 0 ? sim_cycles / win.cycles : 0;
	cJSON_AddNumberToObject(pr, "sim_cycles", sim_cycles);
	cJSON_AddNumberToObject(pr, "window_cycles", win.cycles);
	cJSON_AddStringToObject(pr, "window_limit", win.limit);
	cJSON_AddNumberToObject(pr, "window_partitions", win.partitions);
	cJSON_AddNumberToObject(pr, "windows", windows);
	cJSON_AddNumberToObject(pr, "cpu_us_per_window_1", windows > 0 ? one->cpu_s / windows * 1e6 : 0);
	if (wp && wp->windows)
		partition_profile(pr, wp, profiled_wall_s, repeat, table);
	if (table) {
		printf("  profile at %u: engine busy S %.2f s (waited %.2f s of wall); %u "
		       "helper thread%s busy P %.2f s; sync O %.2f s CPU;\n  serial fraction "
		       "%.3f, sync fraction %.3f; predicted speed-up T1/(S + P/p + "
		       "O(log2 p/log2 n - 1)) at 8/32/64 cores: %.2f / %.2f / %.2f\n",
		       threads, many->engine_cpu_s, wait, many->helpers.threads,
		       many->helpers.threads == 1 ? "" : "s", many->helpers_cpu_s, sync, serial,
		       many->cpu_s > 0 ? sync / many->cpu_s : 0, pred[0], pred[1], pred[2]);
		/* simulated cycles / W bounds the windows from above: a
		 * windowed run skips idle stretches (a managed run's
		 * fault waits are most of its cycles) */
		printf("  windowed model: W %.0f cycles over %u GPC partitions (%s); at most "
		       "%.0f windows (cycles / W), at least %.1f us CPU each at 1 thread\n",
		       win.cycles, win.partitions, win.limit, windows,
		       windows > 0 ? one->cpu_s / windows * 1e6 : 0);
		fflush(stdout);
	}
}

/* What the command line asked for. */
struct bench_args {
	long repeat;
	const char *json_path, *window, *trace;
	bool quiet, profile, small;
	uint32_t threads;
	uint32_t rows; /* --rows: bit i runs row i + 1; 0: every row */
};

static int bench_threads(const struct bench_args *a)
{
	uint32_t threads = a->threads;
	bool small = a->small, profile = a->profile, quiet = a->quiet;
	const char *window_mode = a->window, *trace = a->trace, *json_path = a->json_path;
	long repeat = a->repeat;
	bool window = window_mode != NULL;
	/* whole, however long the arguments (cli_options.h) */
	const char *window_set = gpuvm_cli_format("core.window=%s", window ? window_mode : "off");
	struct gpuvm_error err;
	bool table = !quiet && !(json_path && !strcmp(json_path, "-"));
	const struct bench_case *list = small ? par_cases_small : par_cases;
	size_t n_list = small ? N_PAR_CASES_SMALL : N_PAR_CASES;
	char cpu[256];
	const char *trace_spec = trace ? gpuvm_cli_format("trace:%s", trace) : "";
	if (!window_set || !trace_spec) {
		fprintf(stderr, "gpuvm bench: out of memory\n");
		return 1;
	}
	host_cpu(cpu, sizeof cpu);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (table) {
		printf("host: %s, %ld cores; medians of %ld run%s; cpu: user + system of all "
		       "threads; speed-up: wall at 1 thread / wall at %u%s%s\n",
		       cpu, cores, repeat, repeat > 1 ? "s" : "", threads,
		       window ? "; core.window = " : "", window ? window_mode : "");
		printf("%-30s %-5s %8s %8s %8s %8s %8s %12s\n", "run", "gpu", "cpu1 s", "wall1 s",
		       "cpuN s", "wallN s", "speed-up", "ns/winst@1");
	}
	cJSON *root = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(root, "rows");
	cJSON_AddStringToObject(root, "host_cpu", cpu);
	cJSON_AddNumberToObject(root, "host_cores", (double)cores);
	cJSON_AddNumberToObject(root, "repeat", (double)repeat);
	cJSON_AddNumberToObject(root, "threads", threads);
	cJSON_AddBoolToObject(root, "window", window);
	cJSON_AddStringToObject(root, "window_mode", window ? window_mode : "off");
	int rc = 0;
	for (size_t i = 0; i < n_list + (trace ? 1 : 0) && !rc; i++) {
		struct bench_case tc = {"trace replay", "h100", trace_spec, WINST, NULL, -1};
		const struct bench_case *c = i < n_list ? &list[i] : &tc;
		if (a->rows && !(a->rows & (UINT32_C(1) << i)))
			continue;
		struct gpuvm_run_spec spec = {.gpu = c->gpu, .workload = c->workload, .seed = 1};
		char oversub[64];
		if (c->oversub) {
			snprintf(oversub, sizeof oversub, "uvm.oversub_percent=%s", c->oversub);
			spec.sets[spec.n_sets++] = oversub;
		}
		if (window)
			spec.sets[spec.n_sets++] = window_set;
		struct par_times one, many;
		double insts = 0, sim_cycles = 0;
		spec.threads = 1;
		/* --profile --window: the one-thread runs time their
		 * partitions and barriers (par/window_profile.h) */
		struct window_profile_snapshot wp = {0};
		window_profile_reset();
		window_profile_enable(profile && window);
		int failed = par_measure(&spec, repeat, &one, &insts, &sim_cycles, &err);
		window_profile_enable(false);
		window_profile_read(&wp);
		/* the profiled runs serve the barrier's memory side a partition
		 * per task to time it, slower on one thread than the barrier
		 * they stand for: the table's one-thread times are a plain run's */
		double profiled_wall_s = one.wall_s;
		if (!failed && profile && window)
			failed = par_measure(&spec, repeat, &one, &insts, &sim_cycles, &err);
		if (failed) {
			rc = 1;
			break;
		}
		spec.threads = threads;
		if (par_measure(&spec, repeat, &many, &insts, &sim_cycles, &err)) {
			rc = 1;
			break;
		}
		double speedup = many.wall_s > 0 ? one.wall_s / many.wall_s : 0;
		double ns_winst = insts > 0 ? one.cpu_s / insts * 1e9 : 0;
		cJSON *row = cJSON_CreateObject();
		cJSON_AddItemToArray(rows, row);
		cJSON_AddStringToObject(row, "run", c->what);
		cJSON_AddStringToObject(row, "gpu", c->gpu);
		cJSON_AddStringToObject(row, "workload", c->workload);
		cJSON_AddNumberToObject(row, "warp_instructions", insts);
		cJSON_AddNumberToObject(row, "cpu_seconds_1", one.cpu_s);
		cJSON_AddNumberToObject(row, "wall_seconds_1", one.wall_s);
		cJSON_AddNumberToObject(row, "cpu_seconds_n", many.cpu_s);
		cJSON_AddNumberToObject(row, "wall_seconds_n", many.wall_s);
		cJSON_AddNumberToObject(row, "speedup", speedup);
		cJSON_AddNumberToObject(row, "cpu_ns_per_warp_inst_1", ns_winst);
		if (table) {
			printf("%-30s %-5s %8.2f %8.2f %8.2f %8.2f %7.2fx %12.0f\n", c->what, c->gpu,
			       one.cpu_s, one.wall_s, many.cpu_s, many.wall_s, speedup, ns_winst);
			fflush(stdout);
		}
		if (profile)
			profile_row(row, c, &one, &many, threads, sim_cycles, window ? &wp : NULL,
				    profiled_wall_s, repeat, table);
	}
	if (rc)
		fprintf(stderr, "gpuvm bench: %s\n", err.msg);
	return finish_json(root, rc, json_path);
}

static void bench_usage(FILE *out)
{
	fputs("usage: gpuvm bench [--repeat N] [--json FILE] [-q]\n"
	      "       gpuvm bench --threads N [--profile] [--small] [--window[=on|lagged]]\n"
	      "                   [--trace DIR] [--rows LIST]\n"
	      "                   [--repeat N] [--json FILE] [-q]\n\n"
	      "Runs a fixed set of simulations single-threaded with the full model on and\n"
	      "prints the simulator's speed: simulated warp instructions and thread\n"
	      "accesses per CPU second (user + system: the headline, as it depends little\n"
	      "on what else the machine runs), and thread accesses per wall-clock second\n"
	      "beside it. The host CPU is printed first: compare figures from one machine.\n\n"
	      "  --repeat N   run every case N times and report medians (default 1)\n"
	      "  --json FILE  also write every run's times and the medians as JSON\n"
	      "               (- for stdout, which then carries the JSON alone)\n"
	      "  --quiet, -q  no table (with --json FILE: only the file)\n\n"
	      "The 'managed' rows rerun a device-memory case above them with unified\n"
	      "memory (mem=managed: far faults, migrations, the p100 preset's driver\n"
	      "policies) at 100 % and 125 % oversubscription (working set / device\n"
	      "memory); 'vs dev' is their headline rate (thread accesses/s for random\n"
	      "sampling, warp instructions/s for streaming) over the device-memory run's,\n"
	      "both per CPU second. The last row runs the triad's launch as a kernel\n"
	      "body on the SIMT executor (docs/simt.md), for comparison with the\n"
	      "hand-written generator's row.\n\n"
	      "  --threads N  instead: issue 34's rows (device rows, bfs, pagerank, the\n"
	      "               SIMT triad; a trace replay with --trace DIR) each at 1 and N\n"
	      "               threads: CPU time (all threads), wall time and the speed-up\n"
	      "               (wall at 1 / wall at N), and CPU ns per warp instruction\n"
	      "  --profile    with --threads: the engine thread's busy time and wait, each\n"
	      "               helper thread's busy time, the CPU the threads add, the\n"
	      "               serial fraction and the speed-up predicted at 8, 32 and 64\n"
	      "               cores from them (CPU times; formula in docs/parallel.md)\n"
	      "  --small      with --threads: small sizes (a quick check, not a benchmark)\n"
	      "  --trace DIR  with --threads: also replay this trace (h100 preset)\n"
	      "  --rows LIST  with --threads: only these rows, by their numbers from 1 in\n"
	      "               the table's order (--trace's row last), e.g. --rows 1,2\n"
	      "  --window[=on|lagged]  with --threads: every run with core.window = on (or\n"
	      "               lagged), at 1 and N threads alike: the windowed timing, whose\n"
	      "               barriers then translate on one thread and serve the data on\n"
	      "               another where a warp's lanes translate apart (random\n"
	      "               sampling); lagged: each barrier served on the other thread\n"
	      "               while the next window runs (the triads). Results the same at\n"
	      "               any N (docs/parallel.md). With --profile and on, extra\n"
	      "               one-thread runs time each window's SM partitions and\n"
	      "               its barrier: their seconds, the rest's, and the speed-up\n"
	      "               the partitioned model would reach at 2, 8, 32 and 64 cores\n"
	      "               with its barrier serial but for its memory side, which\n"
	      "               presets with memory partitions (mem.partitions, not near\n"
	      "               and far halves) serve and time a partition per task, and\n"
	      "               its SMs' L1s and ports, a group of SMs per task; the\n"
	      "               translations and results stay serial (JSON:\n"
	      "               profile.partitions)\n",
	      out);
}

/* --rows LIST: comma-separated row numbers from 1 into *rows (bit i: row
 * i + 1); 0, or -1 with the message printed. */
static int parse_rows(const char *text, uint32_t *rows)
{
	const char *p = text;
	*rows = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		uint64_t r;
		if (gpuvm_num_u64(p, len, 1, 32, &r)) {
			fprintf(stderr, "gpuvm bench: --rows: '%.*s' is not a row number from 1 "
				"(in '%s')\n", (int)len, p, text);
			return -1;
		}
		*rows |= UINT32_C(1) << (r - 1);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* Parses argv into a; returns -1 to go on, else the exit status (0 after
 * --help, 2 with the message printed). */
static int parse_bench_args(int argc, char **argv, struct bench_args *a)
{
	static const struct option opts[] = {
		{"repeat", required_argument, 0, 'r'}, {"json", required_argument, 0, 'j'},
		{"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
		{"threads", required_argument, 0, 'N'}, {"profile", no_argument, 0, 'P'},
		{"small", no_argument, 0, 'S'},        {"trace", required_argument, 0, 'T'},
		{"window", optional_argument, 0, 'W'}, {"rows", required_argument, 0, 'R'},
		{0, 0, 0, 0},
	};
	/* getopt_long like the other commands: --repeat=3 and --repeat 3 */
	optind = 1;
	opterr = 0;
	int opt;
	struct gpuvm_getopt go; /* no valued option may repeat (cli_options.h) */
	static const struct gpuvm_cli_output outputs[] = {
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{0},
	};
	gpuvm_getopt_init(&go, opts, NULL);
	gpuvm_getopt_outputs(&go, outputs);
	while ((opt = gpuvm_getopt(&go, argc, argv, ":qh")) != -1) {
		if (opt == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm bench: %s\n", go.why);
			return 2;
		}
		switch (opt) {
		case 'h':
			bench_usage(stdout);
			return 0;
		case 'r': {
			uint64_t r;
			if (gpuvm_num_u64(optarg, strlen(optarg), 1, 100, &r)) {
				fprintf(stderr, "gpuvm bench: --repeat: '%s' is not a count from 1 to 100\n",
					optarg);
				return 2;
			}
			a->repeat = (long)r;
			break;
		}
		case 'j':
			a->json_path = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'N':
			if (gpuvm_parse_threads(optarg, &a->threads)) {
				fprintf(stderr, "gpuvm bench: --threads: '%s' is not a thread count from 1 "
					"to %d\n", optarg, GPUVM_MAX_THREADS);
				return 2;
			}
			break;
		case 'P':
			a->profile = true;
			break;
		case 'S':
			a->small = true;
			break;
		case 'T':
			a->trace = optarg;
			break;
		case 'R':
			if (parse_rows(optarg, &a->rows))
				return 2;
			break;
		case 'W':
			a->window = optarg ? optarg : "on";
			if (strcmp(a->window, "on") && strcmp(a->window, "lagged")) {
				fprintf(stderr, "gpuvm bench: --window=%s: on or lagged (see gpuvm "
						"bench --help)\n", a->window);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "gpuvm bench: %s (see gpuvm bench --help)\n", go.why);
			return 2;
		}
	}
	if (gpuvm_cli_claim_or_report(&go, "bench"))
		return 2;
	if (optind < argc) {
		fprintf(stderr, "gpuvm bench: unexpected argument '%s' (see gpuvm bench --help)\n",
			argv[optind]);
		return 2;
	}
	struct gpuvm_error err;
	if (a->json_path && gpuvm_output_check(a->json_path, "--json", true, &err)) {
		fprintf(stderr, "gpuvm bench: %s\n", err.msg);
		return 2;
	}
	if ((a->profile || a->small || a->trace || a->window || a->rows) && !a->threads) {
		fprintf(stderr, "gpuvm bench: --profile, --small, --trace, --window and --rows go "
			"with --threads N\n");
		return 2;
	}
	/* the rows this mode has: --small's or the full set's, and --trace's */
	size_t n_rows = (a->small ? N_PAR_CASES_SMALL : N_PAR_CASES) + (a->trace ? 1 : 0);
	if (a->rows >> n_rows) {
		fprintf(stderr, "gpuvm bench: --rows: row %d: there are %zu rows here (see gpuvm "
			"bench --help)\n", 32 - __builtin_clz(a->rows), n_rows);
		return 2;
	}
	if (a->trace && access(a->trace, R_OK)) {
		fprintf(stderr, "gpuvm bench: --trace: cannot read '%s'\n", a->trace);
		return 2;
	}
	return -1;
}

/* Runs case i repeat times (cpu_s, wall_s: room for repeat), adds its
 * object to list, its rate to rate[i] and, with table, its line. 0, or 1
 * with the message printed. */
static int bench_case(size_t i, long repeat, bool table, double *cpu_s, double *wall_s,
		      double *rate, cJSON *list)
{
	const struct bench_case *c = &cases[i];
	struct gpuvm_run_spec spec = {.gpu = c->gpu, .workload = c->workload, .seed = 1};
	struct gpuvm_error err;
	char oversub[64];
	if (c->oversub) {
		snprintf(oversub, sizeof oversub, "uvm.oversub_percent=%s", c->oversub);
		spec.sets[spec.n_sets++] = oversub;
	}
	cJSON *one = cJSON_CreateObject();
	cJSON_AddItemToArray(list, one);
	cJSON *cpu_runs = cJSON_CreateArray(), *wall_runs = cJSON_CreateArray();
	double insts = 0, accesses = 0, sim_s = 0;
	for (long r = 0; r < repeat; r++) {
		cJSON *run;
		double c0 = cpu_seconds(), w0 = wall_seconds();
		if (gpuvm_run_point(&spec, &run, &err)) {
			fprintf(stderr, "gpuvm bench: %s\n", err.msg);
			cJSON_Delete(cpu_runs);
			cJSON_Delete(wall_runs);
			return 1;
		}
		cpu_s[r] = cpu_seconds() - c0;
		wall_s[r] = wall_seconds() - w0;
		cJSON_AddItemToArray(cpu_runs, cJSON_CreateNumber(cpu_s[r]));
		cJSON_AddItemToArray(wall_runs, cJSON_CreateNumber(wall_s[r]));
		insts = num(run, "warp_instructions");
		accesses = num(run, "thread_accesses");
		sim_s = num(run, "sim_seconds");
		cJSON_Delete(run);
	}
	double cm = median(cpu_s, (int)repeat), wm = median(wall_s, (int)repeat);
	double winst = cm > 0 ? insts / cm : 0, acc = cm > 0 ? accesses / cm : 0;
	rate[i] = !strcmp(c->metric, ACC) ? acc : winst;
	double vs = c->device_case >= 0 && rate[c->device_case] > 0
			    ? rate[i] / rate[c->device_case] : 0;
	cJSON_AddStringToObject(one, "run", c->what);
	cJSON_AddStringToObject(one, "gpu", c->gpu);
	cJSON_AddStringToObject(one, "workload", c->workload);
	double oversub_pct = 0;
	if (c->oversub && gpuvm_parse_double(c->oversub, &oversub_pct))
		oversub_pct = 0; /* the case table's own text: never */
	cJSON_AddNumberToObject(one, "oversub_percent", oversub_pct);
	cJSON_AddItemToObject(one, "cpu_seconds_runs", cpu_runs);
	cJSON_AddItemToObject(one, "wall_seconds_runs", wall_runs);
	cJSON_AddNumberToObject(one, "cpu_seconds", cm);
	cJSON_AddNumberToObject(one, "wall_seconds", wm);
	cJSON_AddNumberToObject(one, "warp_instructions", insts);
	cJSON_AddNumberToObject(one, "thread_accesses", accesses);
	cJSON_AddNumberToObject(one, "warp_instructions_per_cpu_second", winst);
	cJSON_AddNumberToObject(one, "thread_accesses_per_cpu_second", acc);
	cJSON_AddNumberToObject(one, "thread_accesses_per_wall_second", wm > 0 ? accesses / wm : 0);
	cJSON_AddNumberToObject(one, "sim_seconds", sim_s);
	if (c->device_case >= 0)
		cJSON_AddNumberToObject(one, "vs_device", vs);
	if (table) {
		char ratio[16] = "";
		if (c->device_case >= 0)
			snprintf(ratio, sizeof ratio, "%.0f %%", 100 * vs);
		printf("%-30s %-6s %7.2f %7.2f %13.3g %13.3g %13.3g %9.3g %7s\n", c->what, c->gpu,
		       cm, wm, winst, acc, wm > 0 ? accesses / wm : 0, sim_s, ratio);
		fflush(stdout);
	}
	return 0;
}

int gpuvm_cmd_bench(int argc, char **argv)
{
	struct bench_args a = {.repeat = 1};
	int rc = parse_bench_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	if (a.threads)
		return bench_threads(&a);
	long repeat = a.repeat;
	bool table = !a.quiet && !(a.json_path && !strcmp(a.json_path, "-"));
	char cpu[256];
	host_cpu(cpu, sizeof cpu);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (table) {
		printf("host: %s, %ld cores; medians of %ld run%s; rates per CPU second (user + "
		       "system) unless marked wall\n", cpu, cores, repeat, repeat > 1 ? "s" : "");
		printf("%-30s %-6s %7s %7s %13s %13s %13s %9s %7s\n", "run", "gpu", "cpu s", "wall s",
		       "warp insts/s", "thread acc/s", "acc/wall s", "sim s", "vs dev");
	}
	double *cpu_s = calloc((size_t)repeat, sizeof *cpu_s), *wall_s = calloc((size_t)repeat, sizeof *wall_s);
	if (!cpu_s || !wall_s) {
		free(cpu_s);
		free(wall_s);
		fprintf(stderr, "gpuvm bench: out of memory\n");
		return 1;
	}
	cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "cases");
	cJSON_AddStringToObject(root, "host_cpu", cpu);
	cJSON_AddNumberToObject(root, "host_cores", (double)cores);
	cJSON_AddNumberToObject(root, "repeat", (double)repeat);
	double rate[N_CASES] = {0};
	rc = 0;
	for (size_t i = 0; i < N_CASES && !rc; i++)
		rc = bench_case(i, repeat, table, cpu_s, wall_s, rate, list);
	free(cpu_s);
	free(wall_s);
	return finish_json(root, rc, a.json_path);
}
