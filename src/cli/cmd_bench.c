/* gpuvm bench: the simulator's own speed on a fixed set of runs, single
 * threaded, full model on. Reported as simulated thread accesses and warp
 * instructions per wall-clock second; the unified-memory runs also as a
 * fraction of the same run on device memory (issue 5: paging must keep
 * >= 50 % of the device-memory speed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
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
#define ACC "thread_accesses_per_wall_second"
#define WINST "warp_instructions_per_wall_second"

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
};
#define N_CASES (sizeof cases / sizeof cases[0])

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int gpuvm_cmd_bench(int argc, char **argv)
{
	if (argc > 1) {
		int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
		fputs("usage: gpuvm bench\n\n"
		      "Runs a fixed set of simulations single-threaded with the full model on and\n"
		      "prints the simulator's speed: simulated warp instructions and thread\n"
		      "accesses per wall-clock second.\n\n"
		      "The 'managed' rows rerun a device-memory case above them with unified\n"
		      "memory (mem=managed: far faults, migrations, the p100 preset's driver\n"
		      "policies) at 100 % and 125 % oversubscription (working set / device\n"
		      "memory); 'vs dev' is their headline rate (thread accesses/s for random\n"
		      "sampling, warp instructions/s for streaming) over the device-memory run's.\n"
		      "Wall-clock rates vary with machine load; compare runs on one machine.\n",
		      help ? stdout : stderr);
		return help ? 0 : 2;
	}
	printf("%-30s %-6s %10s %14s %16s %8s %7s\n", "run", "gpu", "wall s", "warp insts/s",
	       "thread acc/s", "sim s", "vs dev");
	double rate[N_CASES] = {0};
	for (size_t i = 0; i < N_CASES; i++) {
		const struct bench_case *c = &cases[i];
		struct gpuvm_run_spec spec = {.gpu = c->gpu, .workload = c->workload, .seed = 1};
		char oversub[64];
		if (c->oversub) {
			snprintf(oversub, sizeof oversub, "uvm.oversub_percent=%s", c->oversub);
			spec.sets[spec.n_sets++] = oversub;
		}
		struct gpuvm_error err;
		cJSON *run;
		if (gpuvm_run_point(&spec, &run, &err)) {
			fprintf(stderr, "gpuvm bench: %s\n", err.msg);
			return 1;
		}
		rate[i] = num(run, c->metric);
		char ratio[16] = "";
		if (c->device_case >= 0 && rate[c->device_case] > 0)
			snprintf(ratio, sizeof ratio, "%.0f %%", 100 * rate[i] / rate[c->device_case]);
		printf("%-30s %-6s %10.2f %14.3g %16.3g %8.3g %7s\n", c->what, c->gpu,
		       num(run, "wall_seconds"), num(run, WINST), num(run, ACC),
		       num(run, "sim_seconds"), ratio);
		fflush(stdout);
		cJSON_Delete(run);
	}
	return 0;
}
