/* gpuvm presets import: an Accel-Sim / GPGPU-Sim gpgpusim.config as a
 * gpuvm preset (gpuvm/gpgpusim_import.h does the work; this reads the
 * options and writes the file through gpuvm/output_file.h). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/gpgpusim_import.h"
#include "gpuvm/output_file.h"

static void usage(FILE *f)
{
	fputs("usage: gpuvm presets import FILE [--base PRESET] [-o OUT.ini]\n"
	      "\n"
	      "Turns an Accel-Sim / GPGPU-Sim gpgpusim.config into a gpuvm preset: every\n"
	      "option with a gpuvm counterpart is mapped (SMs, clocks, L1/shared/L2\n"
	      "geometry and latencies, DRAM channels, bandwidth and timings, issue and\n"
	      "instruction latencies); every other key keeps the base preset's value.\n"
	      "The preset sets every key, each imported one with a comment naming the\n"
	      "option, value and file:line it came from; the options with no counterpart\n"
	      "and the keys left at the base's value are listed on stderr and in the file.\n"
	      "\n"
	      "  --base PRESET     start from this shipped preset or preset file (default:\n"
	      "                    the shipped preset nearest in compute capability, then\n"
	      "                    SM count)\n"
	      "  -o, --output FILE write the preset here (default: standard output)\n"
	      "  -q, --quiet       no list on stderr (the file keeps it)\n"
	      "\n"
	      "example:\n"
	      "  gpuvm presets import SM7_QV100/gpgpusim.config -o qv100.ini\n"
	      "  gpuvm sim --gpu qv100.ini --workload stream-triad\n"
	      "Mapping table and conventions: docs/presets.md.\n",
	      f);
}

int gpuvm_cmd_presets_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{"base", required_argument, 0, 'b'}, {"output", required_argument, 0, 'o'},
		{"quiet", no_argument, 0, 'q'},      {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *base = NULL, *outp = "-";
	bool quiet = false;
	int c;
	optind = 1;
	static const struct gpuvm_cli_output outputs[] = {
		{"output", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{0},
	};
	struct gpuvm_getopt go; /* no valued option may repeat (cli_options.h) */
	gpuvm_getopt_init(&go, opts, NULL);
	gpuvm_getopt_outputs(&go, outputs);
	while ((c = gpuvm_getopt(&go, argc, argv, "o:qh")) != -1) {
		if (c == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm presets import: %s\n", go.why);
			return 2;
		}
		switch (c) {
		case 'b':
			base = optarg;
			break;
		case 'o':
			outp = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "gpuvm presets import: %s (see gpuvm presets import --help)\n", go.why);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "gpuvm presets import: %s (see gpuvm presets import --help)\n",
			optind >= argc ? "needs one gpgpusim.config FILE" : "takes one FILE");
		return 2;
	}
	const char *in = argv[optind];
	struct gpuvm_error err;
	/* the output registry: --output claimed before any work, standard
	 * output (the default) too */
	if (gpuvm_cli_claim_or_report(&go, "presets import"))
		return 2;
	if (!strcmp(outp, "-") && gpuvm_output_claim(outp, "standard output", &err)) {
		fprintf(stderr, "gpuvm presets import: %s\n", err.msg);
		return 2;
	}
	if (gpuvm_output_check(outp, "--output", true, &err)) {
		fprintf(stderr, "gpuvm presets import: %s\n", err.msg);
		return 2;
	}
	/* the preset's name in its header: the output's file name, or with
	 * standard output the input's, ending in .ini */
	bool to_stdout = !strcmp(outp, "-");
	const char *from = to_stdout ? in : outp, *slash = strrchr(from, '/');
	char name[128];
	snprintf(name, sizeof name, "%s", slash ? slash + 1 : from);
	char *dot = strrchr(name, '.');
	if (to_stdout)
		snprintf(dot ? dot : name + strlen(name), 5, ".ini");

	struct gpuvm_gs_config gs = {0};
	struct gpuvm_gs_result res = {0};
	int rc = 2;
	if (gpuvm_gs_parse_file(&gs, in, &err) || gpuvm_gs_import(&gs, base, name, &res, &err)) {
		fprintf(stderr, "gpuvm presets import: %s\n", err.msg);
		goto out;
	}
	rc = GPUVM_EXIT_OUTPUT_FAILED;
	if (gpuvm_output_write_text(outp, res.ini, &err)) {
		fprintf(stderr, "gpuvm presets import: %s\n", err.msg);
		goto out;
	}
	rc = 0;
	if (quiet)
		goto out;
	fprintf(stderr,
		"gpuvm presets import: %s from %s on base %s: %zu keys imported, %zu options "
		"without a counterpart, %zu keys at the base's value:\n%s",
		to_stdout ? "preset" : outp, in, res.base, res.n_imported, res.n_unmapped,
		res.n_base_keys, res.notes);
out:
	gpuvm_gs_result_free(&res);
	gpuvm_gs_free(&gs);
	return rc;
}
