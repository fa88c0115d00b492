/* gpuvm trace info | record | convert: look into traces, write native ones. */
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/output_file.h"
#include "gpuvm/config.h"
#include "gpuvm/report.h"
#include "gpuvm/trace.h"
#include "gpuvm/units.h"
#include "gpuvm/workload.h"
#include "trace/native.h"

static void trace_usage(FILE *out)
{
	fputs("usage: gpuvm trace info INPUT [--trace-format F] [--json FILE] [--no-footprint] [-q]\n"
	      "       gpuvm trace record INPUT -o OUT.gvt [--gpu NAME] [--seed N] [--trace-format F]\n"
	      "                          [--frame-bytes N]\n"
	      "       gpuvm trace convert IN OUT.gvt [--trace-format F] [--frame-bytes N]\n"
	      "\n"
	      "Reads GPU memory traces and writes gpuvm's native trace format.\n"
	      "\n"
	      "INPUT is a trace path or a workload spec:\n"
	      "  DIR or DIR/kernelslist.g   Accel-Sim trace (kernel-N.traceg or .traceg.xz, tracer\n"
	      "                             1.2 to 5); a single kernel-N.traceg also works\n"
	      "  FILE (mem_trace output)    NVBit mem_trace tool output, 1.5 or 1.7 form\n"
	      "  FILE.gvt                   native trace written by `gpuvm trace record`\n"
	      "  random-sampling:region=1GiB  any workload (`gpuvm workloads`); built for --gpu\n"
	      "The format is detected; --trace-format accelsim|memtrace|native forces one.\n"
	      "\n"
	      "  info      kernels (grid, block, CTAs, warps per CTA), warp instructions, memory\n"
	      "            instructions, thread accesses, footprint (distinct 4 KiB pages),\n"
	      "            allocations (recorded, or inferred from the footprint), copies and\n"
	      "            managed-memory operations (prefetch, advice, CPU access);\n"
	      "            --json FILE writes it as JSON; --no-footprint skips the page count\n"
	      "            (then info times the reader alone)\n"
	      "  record    replays INPUT in sequential order and writes it natively (zstd frames,\n"
	      "            delta-encoded addresses); reading it back gives the identical stream\n"
	      "  convert   record with a trace as input\n"
	      "\n"
	      "  --frame-bytes N   record/convert: raw item bytes per zstd frame, 1KiB to 1MiB\n",
	      out);
	/* the versions from the reader's and writer's own constant: the text
	 * named versions 4 and 5 after version 6 was the only one written */
	fprintf(out,
		"                    (default 8KiB; any size writes native version %u, with\n"
		"                    checksums; gpuvm reads versions 1 to %u). Larger frames\n",
		NATIVE_VERSION, NATIVE_VERSION);
	fputs("                    compress a little better and take fewer decoder calls;\n"
	      "                    a replay holds one frame per resident warp (h100, 8448\n"
	      "                    warps: 69 MiB at 8KiB, 528 MiB at 64KiB)\n"
	      "  --gpu NAME|FILE   preset a workload is built for (default p100)\n"
	      "  --quiet, -q       print nothing on success (info with --json FILE: the file only)\n"
	      "  --seed N          workload seed (default 1)\n"
	      "\n"
	      "Replay any of them with `gpuvm sim --gpu p100 --trace PATH`.\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm trace info traces/accelsim-vectoradd\n"
	      "  gpuvm trace convert traces/accelsim-vectoradd vectoradd.gvt\n"
	      "  gpuvm trace record stream-triad:elems=1000000 -o triad.gvt\n"
	      "  gpuvm sim --gpu h100 --trace vectoradd.gvt\n"
	      "\n"
	      "exit status: 0 ok, 1 write failure, 2 bad input (message names file and line,\n"
	      "or byte offset for native files); no output file on failure.\n",
	      out);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A workload spec names a registered workload; anything else is a trace. */
static int open_input(const char *input, enum gpuvm_trace_format fmt, const char *gpu,
		      uint64_t seed, struct gpuvm_source *src, struct gpuvm_error *err)
{
	if (gpuvm_trace_spec_is(input))
		return gpuvm_trace_open_spec(input, src, err);
	char name[64];
	size_t n = strcspn(input, ":");
	snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), input);
	if (fmt == GPUVM_TRACE_AUTO && gpuvm_workload_find(name)) {
		const struct gpuvm_workload_def *def;
		struct gpuvm_params params;
		struct gpuvm_config *cfg = malloc(sizeof *cfg);
		if (!cfg)
			return gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory");
		int rc = -1;
		if (!gpuvm_config_load(cfg, gpu, err) && !gpuvm_config_finalize(cfg, err) &&
		    !gpuvm_workload_parse(input, &def, &params, err))
			rc = def->create(cfg, &params, seed, src, err);
		free(cfg);
		return rc;
	}
	return gpuvm_trace_open(input, fmt, src, err);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static void print_info(const char *input, const cJSON *o)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "totals");
	printf("trace        %s\n", input);
	printf("kernels      %.0f\n", num(t, "kernels"));
	const cJSON *k;
	int i = 0;
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(o, "kernels")) {
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(k, "grid");
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(k, "block");
		printf("  #%d %s\n     grid (%d,%d,%d) block (%d,%d,%d): %.0f CTAs of %.0f warps, "
		       "%.0f warp insts, %.0f memory insts, %.0f thread accesses\n",
		       ++i, str(k, "name"), cJSON_GetArrayItem(g, 0)->valueint,
		       cJSON_GetArrayItem(g, 1)->valueint, cJSON_GetArrayItem(g, 2)->valueint,
		       cJSON_GetArrayItem(b, 0)->valueint, cJSON_GetArrayItem(b, 1)->valueint,
		       cJSON_GetArrayItem(b, 2)->valueint, num(k, "ctas"), num(k, "warps_per_cta"),
		       num(k, "warp_instructions"), num(k, "memory_instructions"),
		       num(k, "thread_accesses"));
	}
	printf("CTAs         %.0f\nwarps        %.0f\nwarp insts   %.0f\nmemory insts %.0f "
	       "(%.0f loads, %.0f stores, %.0f atomics)\nthread accesses %.0f\n",
	       num(t, "ctas"), num(t, "warps"), num(t, "warp_instructions"),
	       num(t, "memory_instructions"), num(t, "loads"), num(t, "stores"), num(t, "atomics"),
	       num(t, "thread_accesses"));
	if (cJSON_GetObjectItemCaseSensitive(t, "footprint_bytes"))
		printf("footprint    %.0f bytes (distinct 4 KiB pages)\n", num(t, "footprint_bytes"));
	printf("allocations  %d\n", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "allocations")));
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(o, "allocations"))
		printf("  %-28s %s  %.0f bytes  %s\n", str(k, "name"), str(k, "base"), num(k, "bytes"),
		       str(k, "kind"));
	printf("copies       %d\n", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "copies")));
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(o, "copies"))
		printf("  %-4s %s  %.0f bytes\n", str(k, "direction"), str(k, "addr"), num(k, "bytes"));
	const cJSON *mops = cJSON_GetObjectItemCaseSensitive(o, "managed_operations");
	if (cJSON_GetArraySize(mops)) {
		printf("managed ops  %d\n", cJSON_GetArraySize(mops));
		cJSON_ArrayForEach(k, mops)
			printf("  %-10s %s  %.0f bytes  %s\n", str(k, "op"), str(k, "addr"),
			       num(k, "bytes"), str(k, "detail"));
	}
	printf("read in      %.3f s (%.1f M thread accesses/s)\n", num(o, "wall_seconds"),
	       num(t, "thread_accesses") / (num(o, "wall_seconds") + 1e-12) / 1e6);
}

/* The files trace writes: --json (info), -o (record, convert), and
 * convert's positional OUT, which -o may stand for. */
static const struct gpuvm_cli_output trace_outputs[] = {
	{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
	{"output", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
	{0},
};
static const struct gpuvm_cli_output convert_outputs[] = {
	{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
	{"output", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
	{"OUT", GPUVM_CLI_OUT_FILE, 0, 0, 0, 2},
	{0},
};

/* What the command line asked for (sub is argv[1]). */
struct trace_args {
	enum gpuvm_trace_format fmt;
	const char *json_path, *gpu, *out_path;
	uint64_t seed, frame_bytes;
	bool frame_given;
	int no_footprint, quiet;
};

/* Parses the options after the subcommand into a; returns -1 to go on,
 * else the exit status (0 after --help, 2 with the message printed). */
static int parse_trace_args(int argc, char **argv, struct trace_args *a)
{
	static const struct option opts[] = {
		{"trace-format", required_argument, 0, 'f'}, {"json", required_argument, 0, 'j'},
		{"gpu", required_argument, 0, 'g'},          {"seed", required_argument, 0, 'S'},
		{"output", required_argument, 0, 'o'},       {"no-footprint", no_argument, 0, 'n'},
		{"quiet", no_argument, 0, 'q'},              {"frame-bytes", required_argument, 0, 'F'},
		{"help", no_argument, 0, 'h'},               {0, 0, 0, 0},
	};
	int c;
	struct gpuvm_error err = {{0}};
	optind = 1;
	struct gpuvm_getopt go; /* no valued option may repeat (cli_options.h) */
	gpuvm_getopt_init(&go, opts, NULL);
	gpuvm_getopt_outputs(&go, argc > 1 && !strcmp(argv[1], "convert") ? convert_outputs
									  : trace_outputs);
	while ((c = gpuvm_getopt(&go, argc - 1, argv + 1, "o:q")) != -1) {
		if (c == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm trace: %s\n", go.why);
			return 2;
		}
		switch (c) {
		case 'f':
			if (gpuvm_trace_format_parse(optarg, &a->fmt, &err)) {
				fprintf(stderr, "gpuvm trace: %s\n", err.msg);
				return 2;
			}
			break;
		case 'j':
			a->json_path = optarg;
			break;
		case 'g':
			a->gpu = optarg;
			break;
		case 'S':
			if (gpuvm_parse_u64(optarg, &a->seed)) {
				fprintf(stderr, "gpuvm trace: --seed: '%s' is not a non-negative integer\n", optarg);
				return 2;
			}
			break;
		case 'o':
			a->out_path = optarg;
			break;
		case 'F':
			if (gpuvm_parse_size(optarg, &a->frame_bytes) ||
			    a->frame_bytes < GPUVM_TRACE_FRAME_MIN_BYTES ||
			    a->frame_bytes > GPUVM_TRACE_FRAME_MAX_BYTES) {
				fprintf(stderr, "gpuvm trace: --frame-bytes: '%s' is not a size from 1KiB "
					"to 1MiB (e.g. 8KiB, 65536)\n", optarg);
				return 2;
			}
			a->frame_given = true;
			break;
		case 'n':
			a->no_footprint = 1;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			trace_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "gpuvm trace: %s (see gpuvm trace --help)\n", go.why);
			return 2;
		}
	}
	if (gpuvm_cli_claim_or_report(&go, "trace"))
		return 2;
	return -1;
}

/* trace info on src (read from input): the summary and --json. The exit
 * status. */
static int trace_info(struct gpuvm_source *src, const char *input, const struct trace_args *a,
		      double t0)
{
	struct gpuvm_error err = {{0}};
	cJSON *o;
	int rc = gpuvm_trace_info(src, !a->no_footprint, &o, &err);
	if (rc) {
		fprintf(stderr, "gpuvm trace: %s\n", err.msg);
		rc = 2;
	} else {
		cJSON_AddStringToObject(o, "input", input);
		/* integrity: version 6 checks every byte; older files read
		 * on trust (docs/traces.md) */
		unsigned nv = gpuvm_trace_native_version(input);
		if (nv) {
			cJSON_AddBoolToObject(o, "checksums", nv >= 6);
			if (nv < 6 && !a->quiet)
				fprintf(stderr, "gpuvm trace: note: %s is native version %u, which "
						"carries no checksums (trace convert writes version "
						"6, which does)\n", input, nv);
		}
		cJSON_AddNumberToObject(o, "wall_seconds", now_s() - t0);
		if (a->json_path) {
			char *text = cJSON_Print(o);
			if (!text || gpuvm_output_write_text(a->json_path, text, &err)) {
				fprintf(stderr, "gpuvm trace: %s\n", text ? err.msg : "out of memory");
				rc = 1;
			}
			free(text);
		}
		if (!rc && !a->quiet && !(a->json_path && !strcmp(a->json_path, "-")))
			print_info(input, o);
		cJSON_Delete(o);
	}
	return rc;
}

int gpuvm_cmd_trace(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		trace_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "info") && strcmp(sub, "record") && strcmp(sub, "convert")) {
		static const char *const subs[] = {"info", "record", "convert", NULL};
		fprintf(stderr, "gpuvm trace: unknown subcommand '%s'%s (see gpuvm trace --help)\n",
			sub, gpuvm_cli_did_you_mean(sub, subs));
		return 2;
	}
	struct trace_args a = {.fmt = GPUVM_TRACE_AUTO, .gpu = "p100", .seed = 1,
			       .frame_bytes = GPUVM_TRACE_FRAME_DEFAULT_BYTES};
	struct gpuvm_error err = {{0}};
	int prc = parse_trace_args(argc, argv, &a);
	if (prc >= 0)
		return prc;
	char **pos = argv + 1 + optind;
	int npos = argc - 1 - optind;
	int want = !strcmp(sub, "convert") ? 2 : 1;
	if (!strcmp(sub, "convert") && npos == 1 && a.out_path)
		want = 1;
	if (npos != want) {
		fprintf(stderr, "gpuvm trace %s: expected %s\n\n", sub,
			want == 2 ? "IN and OUT" : "one INPUT");
		trace_usage(stderr);
		return 2;
	}
	if (!strcmp(sub, "convert") && npos == 2) {
		if (a.out_path) {
			fprintf(stderr, "gpuvm trace convert: OUT given twice (--output/-o '%s', "
					"then as the second argument '%s'); give it once\n",
				a.out_path, pos[1]);
			return 2;
		}
		/* a positional output: claimed as -o is */
		a.out_path = pos[1];
		if (gpuvm_cli_claim_positional(convert_outputs, 2, a.out_path, &err)) {
			fprintf(stderr, "gpuvm trace: %s\n", err.msg);
			return 2;
		}
	}
	if (a.frame_given && !strcmp(sub, "info")) {
		fprintf(stderr, "gpuvm trace info: --frame-bytes is for record and convert\n");
		return 2;
	}
	if (strcmp(sub, "info") && !a.out_path) {
		fprintf(stderr, "gpuvm trace %s: -o OUT is required\n", sub);
		return 2;
	}
	/* outputs are checked before the input is read: a bad path costs
	 * nothing (claimed after the parse) */
	if ((a.json_path && gpuvm_output_check(a.json_path, "--json", true, &err)) ||
	    (a.out_path && gpuvm_output_check(a.out_path, "-o", false, &err))) {
		fprintf(stderr, "gpuvm trace: %s\n", err.msg);
		return 2;
	}
	struct gpuvm_source src = {0};
	if (open_input(pos[0], a.fmt, a.gpu, a.seed, &src, &err)) {
		fprintf(stderr, "gpuvm trace: %s\n", err.msg);
		return 2;
	}
	int rc = 0;
	double t0 = now_s();
	if (!strcmp(sub, "info")) {
		rc = trace_info(&src, pos[0], &a, t0);
	} else {
		struct gpuvm_trace_counts cnt;
		int wrc = gpuvm_trace_record_frames(&src, a.out_path, (size_t)a.frame_bytes, &cnt, &err);
		if (wrc) {
			fprintf(stderr, "gpuvm trace: %s\n", err.msg);
			/* docs/outputs.md: a write failure after the run exits 1 */
			rc = wrc == -2 ? GPUVM_EXIT_OUTPUT_FAILED : 2;
		} else if (!a.quiet) {
			double dt = now_s() - t0;
			printf("wrote %s: %" PRIu64 " kernels, %" PRIu64 " CTAs, %" PRIu64 " warps, %" PRIu64
			       " warp insts, %" PRIu64 " memory insts, %" PRIu64 " thread accesses\n"
			       "  %" PRIu64 " bytes of items -> %" PRIu64 " bytes on disk (%.1fx), %.2f s\n",
			       a.out_path, cnt.kernels, cnt.ctas, cnt.warps, cnt.warp_insts, cnt.mem_insts,
			       cnt.thread_accesses, cnt.stream_bytes, cnt.file_bytes,
			       cnt.file_bytes ? (double)cnt.stream_bytes / (double)cnt.file_bytes : 0, dt);
		}
	}
	src.ops->destroy(&src);
	return rc;
}
