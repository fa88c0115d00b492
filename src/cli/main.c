/* gpuvm: command-line entry point. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/output_file.h"
#include "gpuvm_version.h"

static void usage(FILE *out)
{
	fputs("gpuvm - models GPU address translation and paging, and replays GPU workloads\n"
	      "through that model.\n"
	      "\n"
	      "usage: gpuvm <command> [options]    (gpuvm <command> --help for details)\n"
	      "       gpuvm --version\n"
	      "\n"
	      "commands:\n"
	      "  sim        simulate one workload on one GPU preset and report\n"
	      "  sweep      simulate a grid of presets x parameters (parallel, CSV, figure)\n"
	      "  presets    list the shipped GPU presets, or print one\n"
	      "  systems    list the shipped systems (GPUs, CPUs, links), print or check one\n"
	      "  workloads  list workloads with their parameters and working sets\n"
	      "  bench      measure the simulator's own speed\n"
	      "  trace      inspect traces (Accel-Sim, NVBit mem_trace, native), record/convert\n"
	      "  probe      measure a TLB hierarchy (simulated GPU, host CPU, recorded GPU)\n"
	      "  graph      read or generate a graph input (mtx, gr, snap, rmat) and describe it\n"
	      "  validate   compare simulated kernel times with times measured on real GPUs\n"
	      "  calibrate  run microbenchmarks on presets beside published hardware values\n"
	      "  stats      describe every statistic in the JSON and CSV outputs (unit, meaning)\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm sim --gpu p100 --workload random-sampling:region=4GiB\n"
	      "  gpuvm sim --gpu k80 --workload hash-groupby:groups=1000000,input=100000000 --json out.json\n"
	      "  gpuvm sim --gpu p100 --set tlb.l2.entries=128 --workload random-sampling:region=4GiB\n"
	      "  gpuvm sweep --gpu p100,k80 --workload random-sampling:reads=64 \\\n"
	      "              --vary workload.region=32MiB,256MiB,1GiB,4GiB -j 2 --csv fig1.csv --plot fig1.png\n",
	      out);
}

/* Every command ends here: whatever it left uncommitted (a temp file, an
 * empty directory it made) goes, and a lost write to stdout (a full disk,
 * a device refusing writes) turns success into failure. */
static int finish(int rc)
{
	if (rc == 0)
		gpuvm_output_keep_dirs();
	gpuvm_output_batch_abort();
	struct gpuvm_error err;
	if (gpuvm_output_check_stdout(&err)) {
		fprintf(stderr, "gpuvm: %s\n", err.msg);
		if (rc == 0)
			rc = GPUVM_EXIT_OUTPUT_FAILED;
	}
	return rc;
}

int main(int argc, char **argv)
{
	/* before anything is printed: a lost stdout is reported one way */
	gpuvm_output_stdout_track();
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return finish(0);
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("gpuvm %s (commit %s)\n", GPUVM_VERSION, GPUVM_COMMIT);
		return finish(0);
	}
	/* subs: the subcommands with option tables of their own */
	static const struct {
		const char *name;
		int (*fn)(int, char **);
		const char *subs[4];
	} cmds[] = {
		{"sim", gpuvm_cmd_sim, {0}},
		{"sweep", gpuvm_cmd_sweep, {"merge"}},
		{"presets", gpuvm_cmd_presets, {"import"}},
		{"systems", gpuvm_cmd_systems, {0}},
		{"workloads", gpuvm_cmd_workloads, {0}},
		{"bench", gpuvm_cmd_bench, {0}},
		{"trace", gpuvm_cmd_trace, {"info", "record", "convert"}},
		{"probe", gpuvm_cmd_probe, {0}},
		{"graph", gpuvm_cmd_graph, {"info"}},
		{"validate", gpuvm_cmd_validate, {0}},
		{"stats", gpuvm_cmd_stats, {0}},
		{"calibrate", gpuvm_cmd_calibrate, {0}},
	};
	size_t n_cmds = sizeof cmds / sizeof cmds[0];
	/* the CLI's option tables, for tests (cli_options.h): the commands,
	 * or one command's table as its parser sees it */
	if (!strcmp(cmd, "--list-options")) {
		if (argc == 2) {
			for (size_t i = 0; i < n_cmds; i++) {
				printf("command\t%s\n", cmds[i].name);
				for (int k = 0; k < 4 && cmds[i].subs[k]; k++)
					printf("command\t%s %s\n", cmds[i].name, cmds[i].subs[k]);
			}
			return finish(0);
		}
		for (size_t i = 0; i < n_cmds; i++)
			if (!strcmp(argv[2], cmds[i].name)) {
				/* the table goes to stdout; anything else a command
				 * without a table prints, nowhere */
				fflush(stdout);
				gpuvm_cli_list_fd = dup(1);
				int null_fd = open("/dev/null", O_WRONLY);
				if (gpuvm_cli_list_fd < 0 || null_fd < 0 || dup2(null_fd, 1) < 0)
					return 1;
				close(null_fd);
				cmds[i].fn(argc - 2, argv + 2);
				return 0;
			}
		fprintf(stderr, "gpuvm: --list-options: unknown command '%s'\n", argv[2]);
		return 2;
	}
	gpuvm_output_catch_signals(true);
	/* every file a command writes is claimed first (output_file.h) */
	gpuvm_output_claims_enforce(true);
	for (size_t i = 0; i < n_cmds; i++)
		if (!strcmp(cmd, cmds[i].name))
			return finish(cmds[i].fn(argc - 1, argv + 1));
	const char *names[sizeof cmds / sizeof cmds[0] + 1];
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		names[i] = cmds[i].name;
	names[sizeof cmds / sizeof cmds[0]] = NULL;
	fprintf(stderr, "gpuvm: unknown command '%s'%s (see gpuvm --help)\n", cmd,
		gpuvm_cli_did_you_mean(cmd, names));
	return 2;
}
