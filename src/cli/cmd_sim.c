/* gpuvm sim: one workload on one GPU. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "gpuvm/report.h"
#include "gpuvm/run.h"
#include "gpuvm/scope.h"
#include "gpuvm/units.h"

static void sim_usage(FILE *out)
{
	fputs("usage: gpuvm sim --gpu NAME|FILE --workload NAME[:key=value,...]\n"
	      "                 [--set key=value]... [--seed N] [--scope BYTES|auto]\n"
	      "                 [--json FILE] [--quiet]\n"
	      "\n"
	      "Replays a workload through the GPU model and prints what happened: TLB hits\n"
	      "and misses per level, page walks, L2/DRAM/PCIe traffic and the simulated time.\n"
	      "\n"
	      "  --gpu NAME|FILE   a shipped preset (see `gpuvm presets`) or an .ini file\n"
	      "  --workload SPEC   workload and parameters, e.g. random-sampling:region=4GiB\n"
	      "                    (see `gpuvm workloads`; sizes take KiB/MiB/GiB)\n"
	      "  --set key=value   override any preset key, e.g. --set tlb.l2.entries=128;\n"
	      "                    repeatable, applied in order after the preset\n"
	      "  --seed N          random seed of the workload (default 1); same seed,\n"
	      "                    same results\n"
	      "  --scope BYTES|auto  TLB-scoped passes (Karnagel et al. §5) for random-sampling\n"
	      "                    and hash-groupby: the region is split into BYTES-sized scopes\n"
	      "                    and the kernel runs once per scope; auto prints the model's\n"
	      "                    predicted time for every candidate scope on this GPU and runs\n"
	      "                    the fastest (docs/scoping.md). Same as the workload's scope=\n"
	      "  --json FILE       write the full report (resolved config included) as JSON\n"
	      "  --quiet           print nothing on success\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm sim --gpu k80 --workload random-sampling:region=8GiB --scope 2GiB\n"
	      "  gpuvm sim --gpu p100 --workload hash-groupby:region=4GiB,input=16777216,scoped=copy \\\n"
	      "            --scope auto\n"
	      "\n"
	      "exit status: 0 ok, 1 simulation failure, 2 bad input (message names the file,\n"
	      "line and key); no output file is written on failure.\n",
	      out);
}

/* --scope: a size is passed on as the workload's scope=; auto runs the
 * scope model on the resolved preset, prints its table (stdout, so it is
 * part of the run's output) and passes on the chosen scope. */
static int apply_scope(struct gpuvm_run_spec *spec, const char *scope, int quiet, char *buf,
		       size_t len, struct gpuvm_error *err)
{
	char value[32];
	if (!strcmp(scope, "auto")) {
		struct gpuvm_config *cfg = malloc(sizeof *cfg);
		if (!cfg)
			return gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory"), 1;
		int bad = gpuvm_config_load(cfg, spec->gpu, err);
		for (int i = 0; !bad && i < spec->n_sets; i++)
			bad = gpuvm_config_set(cfg, spec->sets[i], "--set", err);
		struct gpuvm_scope_advice adv;
		if (!bad)
			bad = gpuvm_config_finalize(cfg, err) ||
			      gpuvm_scope_advise(cfg, spec->workload, &adv, err);
		free(cfg);
		if (bad)
			return 2;
		if (!quiet)
			gpuvm_scope_advice_print(stdout, &adv);
		uint64_t s = adv.c[adv.best].scope_bytes;
		if (s)
			gpuvm_format_size(s, value, sizeof value);
		else
			snprintf(value, sizeof value, "none");
	} else {
		uint64_t s;
		if (gpuvm_parse_size(scope, &s) && strcmp(scope, "none"))
			return gpuvm_fail(err, "--scope", 0, NULL,
					  "'%s': expected a size such as 2GiB, auto or none", scope),
			       2;
		snprintf(value, sizeof value, "%s", scope);
	}
	/* a later key=value replaces an earlier one in a workload spec */
	int n = snprintf(buf, len, "%s%sscope=%s", spec->workload,
			 strchr(spec->workload, ':') ? "," : ":", value);
	if (n < 0 || (size_t)n >= len)
		return gpuvm_fail(err, "--workload", 0, NULL, "spec too long"), 2;
	spec->workload = buf;
	return 0;
}

int gpuvm_cmd_sim(int argc, char **argv)
{
	static const struct option opts[] = {
		{"gpu", required_argument, 0, 'g'},   {"workload", required_argument, 0, 'w'},
		{"set", required_argument, 0, 's'},   {"seed", required_argument, 0, 'S'},
		{"json", required_argument, 0, 'j'},  {"quiet", no_argument, 0, 'q'},
		{"scope", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	struct gpuvm_run_spec spec = {.seed = 1};
	const char *json_path = NULL, *scope = NULL;
	int quiet = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			spec.gpu = optarg;
			break;
		case 'w':
			spec.workload = optarg;
			break;
		case 's':
			if (spec.n_sets == GPUVM_MAX_SETS) {
				fprintf(stderr, "gpuvm sim: at most %d --set options\n", GPUVM_MAX_SETS);
				return 2;
			}
			spec.sets[spec.n_sets++] = optarg;
			break;
		case 'S':
			if (gpuvm_parse_u64(optarg, &spec.seed)) {
				fprintf(stderr, "gpuvm sim: --seed: '%s' is not a non-negative integer\n", optarg);
				return 2;
			}
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'c':
			scope = optarg;
			break;
		case 'h':
			sim_usage(stdout);
			return 0;
		default:
			sim_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpuvm sim: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!spec.gpu || !spec.workload) {
		fprintf(stderr, "gpuvm sim: --gpu and --workload are required\n\n");
		sim_usage(stderr);
		return 2;
	}
	spec.progress = isatty(2) && !quiet;

	struct gpuvm_error err = {{0}};
	char scoped_spec[512];
	if (scope) {
		int rc = apply_scope(&spec, scope, quiet, scoped_spec, sizeof scoped_spec, &err);
		if (rc) {
			fprintf(stderr, "gpuvm sim: %s\n", err.msg);
			return rc;
		}
	}
	cJSON *run;
	if (gpuvm_run_point(&spec, &run, &err)) {
		fprintf(stderr, "gpuvm sim: %s\n", err.msg);
		return 2;
	}
	int rc = 0;
	if (json_path) {
		char *text = cJSON_Print(run);
		if (!text || gpuvm_write_file_atomic(json_path, text, &err)) {
			fprintf(stderr, "gpuvm sim: %s\n", text ? err.msg : "out of memory");
			rc = 1;
		}
		free(text);
	}
	if (!quiet && !rc)
		gpuvm_report_print(stdout, run);
	cJSON_Delete(run);
	return rc;
}
