/* gpuvm bench: the simulator's own speed on a fixed set of runs, single
 * threaded, full model on. Reported as simulated thread accesses and warp
 * instructions per CPU second (medians of --repeat runs), wall-clock rates
 * beside them; the unified-memory runs also as a fraction of the same run
 * on device memory (issue 5: paging must keep >= 50 % of the device-memory
 * speed). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/getopt_message.h"
#include "gpuvm/output_file.h"
#include "gpuvm/run.h"

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

static void bench_usage(FILE *out)
{
	fputs("usage: gpuvm bench [--repeat N] [--json FILE] [-q]\n\n"
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
	      "hand-written generator's row.\n",
	      out);
}

int gpuvm_cmd_bench(int argc, char **argv)
{
	long repeat = 1;
	const char *json_path = NULL;
	bool quiet = false;
	static const struct option opts[] = {
		{"repeat", required_argument, 0, 'r'}, {"json", required_argument, 0, 'j'},
		{"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	/* getopt_long like the other commands: --repeat=3 and --repeat 3 */
	optind = 1;
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			bench_usage(stdout);
			return 0;
		case 'r': {
			char *end;
			repeat = strtol(optarg, &end, 10);
			if (!*optarg || *end || repeat < 1 || repeat > 100) {
				fprintf(stderr, "gpuvm bench: --repeat: '%s' is not a count from 1 to 100\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'j':
			json_path = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		default: {
			char why[160];
			gpuvm_getopt_message(opt, argv, optind, optopt, why, sizeof why);
			fprintf(stderr, "gpuvm bench: %s (see gpuvm bench --help)\n", why);
			return 2;
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuvm bench: unexpected argument '%s' (see gpuvm bench --help)\n",
			argv[optind]);
		return 2;
	}
	struct gpuvm_error err;
	if (json_path && gpuvm_output_check(json_path, "--json", true, &err)) {
		fprintf(stderr, "gpuvm bench: %s\n", err.msg);
		return 2;
	}
	bool table = !quiet && !(json_path && !strcmp(json_path, "-"));
	char cpu[256];
	host_cpu(cpu, sizeof cpu);
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (table) {
		printf("host: %s, %ld cores; medians of %ld run%s; rates per CPU second (user + "
		       "system) unless marked wall\n", cpu, cores, repeat, repeat > 1 ? "s" : "");
		printf("%-30s %-6s %7s %7s %13s %13s %13s %9s %7s\n", "run", "gpu", "cpu s", "wall s",
		       "warp insts/s", "thread acc/s", "acc/wall s", "sim s", "vs dev");
	}
	cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "cases");
	cJSON_AddStringToObject(root, "host_cpu", cpu);
	cJSON_AddNumberToObject(root, "host_cores", (double)cores);
	cJSON_AddNumberToObject(root, "repeat", (double)repeat);
	double rate[N_CASES] = {0};
	double *cpu_s = calloc((size_t)repeat, sizeof *cpu_s), *wall_s = calloc((size_t)repeat, sizeof *wall_s);
	if (!cpu_s || !wall_s) {
		fprintf(stderr, "gpuvm bench: out of memory\n");
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < N_CASES && !rc; i++) {
		const struct bench_case *c = &cases[i];
		struct gpuvm_run_spec spec = {.gpu = c->gpu, .workload = c->workload, .seed = 1};
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
				rc = 1;
				break;
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
		if (rc)
			break;
		double cm = median(cpu_s, (int)repeat), wm = median(wall_s, (int)repeat);
		double winst = cm > 0 ? insts / cm : 0, acc = cm > 0 ? accesses / cm : 0;
		rate[i] = !strcmp(c->metric, ACC) ? acc : winst;
		double vs = c->device_case >= 0 && rate[c->device_case] > 0
				    ? rate[i] / rate[c->device_case] : 0;
		cJSON_AddStringToObject(one, "run", c->what);
		cJSON_AddStringToObject(one, "gpu", c->gpu);
		cJSON_AddStringToObject(one, "workload", c->workload);
		cJSON_AddNumberToObject(one, "oversub_percent", c->oversub ? atof(c->oversub) : 0);
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
	}
	free(cpu_s);
	free(wall_s);
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
