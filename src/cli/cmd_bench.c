/* gpuvm bench: the simulator's own speed on a fixed set of runs, single
 * threaded, full model on. Reported as simulated thread accesses and warp
 * instructions per wall-clock second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "gpuvm/run.h"

struct bench_case {
	const char *what;
	const char *gpu;
	const char *workload;
	const char *metric; /* JSON key of the headline rate */
};

static const struct bench_case cases[] = {
	{"random sampling over 4 GB", "p100", "random-sampling:region=4GiB,reads=256",
	 "thread_accesses_per_wall_second"},
	{"coalesced streaming (triad)", "p100", "stream-triad:elems=16777216",
	 "warp_instructions_per_wall_second"},
	{"hash group-by, 1 GB table", "p100", "hash-groupby:region=1GiB,input=67108864",
	 "thread_accesses_per_wall_second"},
	{"random sampling over 4 GB", "k80", "random-sampling:region=4GiB,reads=256",
	 "thread_accesses_per_wall_second"},
};

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
		      "accesses per wall-clock second.\n",
		      help ? stdout : stderr);
		return help ? 0 : 2;
	}
	printf("%-30s %-6s %10s %14s %16s %8s\n", "run", "gpu", "wall s", "warp insts/s",
	       "thread acc/s", "sim s");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct gpuvm_run_spec spec = {.gpu = cases[i].gpu, .workload = cases[i].workload,
					      .seed = 1};
		struct gpuvm_error err;
		cJSON *run;
		if (gpuvm_run_point(&spec, &run, &err)) {
			fprintf(stderr, "gpuvm bench: %s\n", err.msg);
			return 1;
		}
		printf("%-30s %-6s %10.2f %14.3g %16.3g %8.3g\n", cases[i].what, cases[i].gpu,
		       num(run, "wall_seconds"), num(run, "warp_instructions_per_wall_second"),
		       num(run, "thread_accesses_per_wall_second"), num(run, "sim_seconds"));
		fflush(stdout);
		cJSON_Delete(run);
	}
	return 0;
}
