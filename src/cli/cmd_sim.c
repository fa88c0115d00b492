/* gpuvm sim: one workload on one GPU. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "gpuvm/output_file.h"
#include "gpuvm/page_access.h"
#include "gpuvm/plot.h"
#include "gpuvm/report.h"
#include "gpuvm/module.h"
#include "gpuvm/run.h"
#include "gpuvm/scope.h"
#include "gpuvm/units.h"
#include "gpuvm_version.h"

static void sim_usage(FILE *out)
{
	fputs("usage: gpuvm sim --gpu NAME|FILE (--workload NAME[:key=value,...] | --trace PATH)\n"
	      "                 [--trace-format F] [--trace-managed] [--set key=value]...\n"
	      "                 [--oversub PCT] [--migration NAME] [--scope BYTES|auto] [--seed N]\n"
	      "                 [--json FILE] [--stats-csv FILE] [--pcie-plot FILE] [--quiet]\n"
	      "                 [--kernel-sampling[=TOL]] [--threads N]\n"
	      "                 [--page-map PREFIX [--page-map-page SIZE]] [--force] [--tlb-sharing]\n"
	      "\n"
	      "Replays a workload through the GPU model and prints what happened: TLB hits\n"
	      "and misses per level, page walks, L2/DRAM/PCIe traffic and the simulated time.\n"
	      "\n"
	      "  --gpu NAME|FILE   a shipped preset (see `gpuvm presets`) or an .ini file\n"
	      "  --workload SPEC   workload and parameters, e.g. random-sampling:region=4GiB\n"
	      "                    (see `gpuvm workloads`; sizes take KiB/MiB/GiB)\n"
	      "  --trace PATH      replay a trace instead: an Accel-Sim folder or kernelslist.g,\n"
	      "                    an NVBit mem_trace output file, or a native .gvt file\n"
	      "                    (same as --workload trace:PATH; see `gpuvm trace --help`)\n"
	      "  --trace-format F  accelsim, memtrace or native (default: detected)\n"
	      "  --trace-managed   replay the trace as its unified-memory port: its device\n"
	      "                    allocations become managed, its copies are dropped, and the\n"
	      "                    kernels fault the data in (same as trace+managed:PATH)\n"
	      "  --set key=value   override any preset key, e.g. --set tlb.l2.entries=128;\n"
	      "                    repeatable, applied in order after the preset;\n"
	      "                    l1.global_loads=cached|uncached switches the hardware L1\n"
	      "                    for globals, l1.fill=line makes an L1 miss fetch its\n"
	      "                    whole line (Kepler; default sector), docs/sl1.md\n"
	      "  --oversub PCT     oversubscribe device memory: managed working set / device\n"
	      "                    memory = PCT % (e.g. 125); same as --set uvm.oversub_percent=PCT\n"
	      "  --migration NAME  migration policy of managed memory (Ganguly et al. ISCA'19):\n",
	      out);
	/* the names come from the module registry (gpuvm/module.h) */
	fprintf(out, "                    %s (default first-touch);\n",
		gpuvm_module_names(GPUVM_MODULE_MIGRATE));
	fputs("                    same as --set uvm.migration=NAME; see docs/uvm.md\n"
	      "  --pcie-plot FILE  figure (.png/.svg/.pdf, gnuplot) of PCIe utilization over\n"
	      "                    normalized runtime (Zheng et al. Fig. 6); needs managed memory\n"
	      "  --seed N          random seed of the workload (default 1); same seed,\n"
	      "                    same results\n"
	      "  --scope BYTES|auto  TLB-scoped passes (Karnagel et al. §5) for random-sampling\n"
	      "                    and hash-groupby: the region is split into BYTES-sized scopes\n"
	      "                    and the kernel runs once per scope; auto prints the model's\n"
	      "                    predicted time for every candidate scope on this GPU and runs\n"
	      "                    the fastest (docs/scoping.md). Same as the workload's scope=\n"
	      "  --json FILE       write the full report (resolved config included) as JSON;\n"
	      "                    - for stdout (the text report is then left out)\n"
	      "  --stats-csv FILE  the statistics in long form, one value per row: gpu,\n"
	      "                    workload, seed, scope (run, kernel: each launch, alloc:\n"
	      "                    each allocation), index, name, kind, metric, value, unit\n"
	      "                    (`gpuvm stats` describes every metric); - for stdout\n"
	      "  --force           run a workload estimated past the work cap of 1e11 thread\n"
	      "                    accesses (about 80 CPU minutes at 20 M/s); without it\n"
	      "                    such a run is refused at once with its estimate (exit 2)\n"
	      "  --tlb-sharing     count Du et al.'s sharing analyses at the first TLB level: how\n"
	      "                    many instances hold each looked-up entry (Fig. 3) and each\n"
	      "                    instance's neighbour correlation (Tables I-II), JSON\n"
	      "                    \"tlb_sharing\" (docs/neidty.md); same as\n"
	      "                    --set tlb.sharing_analysis=on. Schemes: --set tlb.l1.peer=neidty\n"
	      "                    (or valkyrie); --set tlb.peer_read_lru=touch|keep: whether a\n"
	      "                    neighbour's or the ring's read makes the entry its owner's MRU;\n"
	      "                    --set tlb.translate_per=access|page: one first-level TLB lookup\n"
	      "                    per coalesced 128 B access (gem5-gpu) or per page touched\n"
	      "  --threads N       execute the GPU threads of SIMT kernels declared any-order\n"
	      "                    (most suite kernels; not bc, pagerank1, ra lookup,\n"
	      "                    sl1, sepo) on N worker threads ahead of the timing model,\n"
	      "                    which stays on this thread (N + 1 threads in all); results,\n"
	      "                    statistics and JSON are identical at any N (wall times\n"
	      "                    aside). 1 (default): all on this thread; N from 1 to 64\n"
	      "                    With an Accel-Sim trace, N >= 2 also parses and transcodes\n"
	      "                    the next kernel on a reader thread while this one replays\n"
	      "                    (errors still stop the run at the same kernel and line)\n"
	      "  --quiet, -q       print nothing on success\n"
	      "  --page-map PREFIX record which pages of each allocation are accessed over\n"
	      "                    time (Ganguly et al. Fig. 2-3): PREFIX.csv (one row per\n"
	      "                    allocation x page range x time bucket: accesses, written),\n"
	      "                    PREFIX.json (allocations, kernels) and PREFIX.png (one\n"
	      "                    heat map per allocation, blue read-only, red read-write;\n"
	      "                    needs gnuplot). Time = memory warp instructions pulled by\n"
	      "                    the engine, in 256 buckets; at most 1024 page rows each.\n"
	      "  --page-map-page SIZE  page size of the map (default 4KiB)\n"
	      "  --page-map-colour access|decision  what colours PREFIX.png: accesses per\n"
	      "                    page, or each cell's most frequent paging decision\n"
	      "                    (remote access, fault/counter migration, prefetch,\n"
	      "                    eviction: Ganguly et al.'s migrate-or-stay choice; the\n"
	      "                    CSV has every count). Default: decision when the run\n"
	      "                    paged managed memory, else access\n"
	      "  --kernel-sampling[=TOL]  simulate long runs of alike launches by sampling\n"
	      "                    (docs/kernel-sampling.md): launches of one class (same\n"
	      "                    kernel, grid and block; e.g. hash-groupby's 128 MB chunks)\n"
	      "                    run in full detail until the last 3 agree on simulated\n"
	      "                    cycles per warp instruction within TOL (default 0.02 =\n"
	      "                    2 %); later ones are only executed functionally (exact\n"
	      "                    result, exact instruction and access counts) and charged\n"
	      "                    the mean cycles per warp instruction; TLB/L2/DRAM/PCIe\n"
	      "                    counters are scaled from the detailed launches. Only\n"
	      "                    workloads that mark launches alike take part (hash-groupby,\n"
	      "                    scoped random-sampling); traces and suite kernels always\n"
	      "                    run in detail, and so does everything when managed memory\n"
	      "                    is in use (a note says so). TOL must be a number in (0, 1),\n"
	      "                    else exit 2. Hash-groupby's full 1.6 G-row input (48\n"
	      "                    launches): about 70 s sampled (3 in detail) instead of\n"
	      "                    about 6 minutes, simulated time within 0.6 %.\n"
	      "\n"
	      "Managed memory: workloads with mem=managed (stream-triad, random-sampling) page\n"
	      "on demand; mem=copy is the copy-then-execute baseline. Keys uvm.* choose the\n"
	      "fault model, prefetcher and eviction policy (docs/uvm.md); `gpuvm presets\n"
	      "--modules` lists every policy and its parameters (docs/modules.md).\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm sim --gpu k80 --workload stream-triad:mem=managed --set uvm.prefetcher=none\n"
	      "  gpuvm sim --gpu gtx1080ti-uvmsmart --workload random-sampling:region=64MiB,mem=managed \\\n"
	      "      --oversub 125 --set uvm.eviction=lru-4kb --pcie-plot util.png\n"
	      "  gpuvm sim --gpu p100 --workload stream-triad --page-map out/triad\n"
	      "  gpuvm sim --gpu k80 --workload random-sampling:region=8GiB --scope 2GiB\n"
	      "  gpuvm sim --gpu p100 --workload hash-groupby:region=32MiB --kernel-sampling\n"
	      "  gpuvm sim --gpu p100 --workload hash-groupby:region=4GiB,input=16777216,scoped=copy \\\n"
	      "            --scope auto\n"
	      "\n"
	      "Outputs: a regular file (or a new path) is replaced atomically and only\n"
	      "when the whole run succeeded; a device, FIFO or symlink target is written\n"
	      "in place, never replaced; every path is checked before the run starts\n"
	      "(docs/outputs.md).\n"
	      "\n"
	      "exit status: 0 ok, 1 simulation or output-write failure (disk full, a device\n"
	      "refusing writes, a lost write to stdout), 2 bad input (message names the\n"
	      "file, line and key, or the output path); no output file is written on failure.\n",
	      out);
}

static int wrap_page_access(void *ctx, struct gpuvm_source *src, struct gpuvm_error *err)
{
	return gpuvm_page_access_wrap(ctx, src, err);
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

/* --page-map PREFIX writes PREFIX.csv, PREFIX.json and PREFIX.png, each
 * under the output rules. A PREFIX that is itself a device or FIFO gets the
 * CSV (the data) alone. */
static bool page_map_in_place(const char *prefix)
{
	struct stat st;
	return stat(prefix, &st) == 0 &&
	       (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode));
}

static int page_map_check(const char *prefix, struct gpuvm_error *err)
{
	if (page_map_in_place(prefix))
		return gpuvm_output_check(prefix, "--page-map", false, err);
	static const char *const ext[] = {".csv", ".json", ".png"};
	char path[4200];
	for (int i = 0; i < 3; i++) {
		if (i == 2 && !gpuvm_plot_available())
			break;
		snprintf(path, sizeof path, "%s%s", prefix, ext[i]);
		if (gpuvm_output_check(path, "--page-map", false, err))
			return -1;
	}
	return 0;
}

static int write_page_map(const struct gpuvm_page_access *pa, const char *prefix,
			  enum gpuvm_page_map_colour colour, struct gpuvm_error *err)
{
	if (page_map_in_place(prefix))
		return gpuvm_page_access_write_csv(pa, prefix, err) ? 1 : 0;
	char png[4200];
	bool draw = gpuvm_plot_available();
	if (draw)
		snprintf(png, sizeof png, "%s.png", prefix);
	else
		fprintf(stderr, "gpuvm sim: gnuplot not found: %s.png not drawn (CSV and JSON "
				"are written)\n", prefix);
	return gpuvm_page_access_write(pa, prefix, draw ? png : NULL, colour, err) ? 1 : 0;
}

int gpuvm_cmd_sim(int argc, char **argv)
{
	static const struct option opts[] = {
		{"gpu", required_argument, 0, 'g'},   {"workload", required_argument, 0, 'w'},
		{"set", required_argument, 0, 's'},   {"seed", required_argument, 0, 'S'},
		{"json", required_argument, 0, 'j'},  {"quiet", no_argument, 0, 'q'},
		{"oversub", required_argument, 0, 'o'}, {"pcie-plot", required_argument, 0, 'p'},
		{"trace", required_argument, 0, 't'}, {"trace-format", required_argument, 0, 'F'},
		{"trace-managed", no_argument, 0, 'M'}, {"scope", required_argument, 0, 'c'},
		{"page-map", required_argument, 0, 'P'}, {"page-map-page", required_argument, 0, 'Z'},
		{"page-map-colour", required_argument, 0, 'L'},
		{"kernel-sampling", optional_argument, 0, 'K'}, {"force", no_argument, 0, 'f'},
		{"tlb-sharing", no_argument, 0, 'T'}, {"migration", required_argument, 0, 'm'},
		{"stats-csv", required_argument, 0, 'C'}, {"threads", required_argument, 0, 'N'},
		{"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
	};
	struct gpuvm_run_spec spec = {.seed = 1};
	const char *trace = NULL, *trace_format = NULL;
	char trace_spec[4200];
	const char *json_path = NULL, *plot_path = NULL, *page_map = NULL, *scope = NULL;
	const char *stats_csv = NULL;
	char oversub_set[64], migration_set[96];
	struct gpuvm_page_access_opts pa_opts = {0};
	enum gpuvm_page_map_colour pa_colour = GPUVM_PAGE_MAP_AUTO;
	struct gpuvm_uvm_observer pa_observer;
	int quiet = 0, trace_managed = 0, c;
	optind = 1;
	/* -q as in sweep */
	while ((c = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
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
		case 't':
			trace = optarg;
			break;
		case 'F':
			trace_format = optarg;
			break;
		case 'M':
			trace_managed = 1;
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'p':
			plot_path = optarg;
			break;
		case 'C':
			stats_csv = optarg;
			break;
		case 'o': {
			double pct;
			if (gpuvm_parse_double(optarg, &pct) || !(pct > 0)) {
				fprintf(stderr, "gpuvm sim: --oversub: '%s' is not a percentage such as 125\n",
					optarg);
				return 2;
			}
			if (spec.n_sets == GPUVM_MAX_SETS) {
				fprintf(stderr, "gpuvm sim: at most %d --set options\n", GPUVM_MAX_SETS);
				return 2;
			}
			snprintf(oversub_set, sizeof oversub_set, "uvm.oversub_percent=%s", optarg);
			spec.sets[spec.n_sets++] = oversub_set;
			break;
		}
		case 'm':
			if (spec.n_sets == GPUVM_MAX_SETS) {
				fprintf(stderr, "gpuvm sim: at most %d --set options\n", GPUVM_MAX_SETS);
				return 2;
			}
			snprintf(migration_set, sizeof migration_set, "uvm.migration=%s", optarg);
			spec.sets[spec.n_sets++] = migration_set;
			break;
		case 'T':
			if (spec.n_sets == GPUVM_MAX_SETS) {
				fprintf(stderr, "gpuvm sim: at most %d --set options\n", GPUVM_MAX_SETS);
				return 2;
			}
			spec.sets[spec.n_sets++] = "tlb.sharing_analysis=on";
			break;
		case 'q':
			quiet = 1;
			break;
		case 'f':
			spec.force = true;
			break;
		case 'P':
			if (!*optarg) {
				fprintf(stderr, "gpuvm sim: --page-map: empty prefix\n");
				return 2;
			}
			page_map = optarg;
			break;
		case 'Z':
			if (gpuvm_parse_size(optarg, &pa_opts.page_bytes) ||
			    !gpuvm_is_pow2(pa_opts.page_bytes) || pa_opts.page_bytes < 64) {
				fprintf(stderr, "gpuvm sim: --page-map-page: '%s' is not a power-of-two "
						"size >= 64 bytes\n", optarg);
				return 2;
			}
			break;
		case 'L':
			if (!strcmp(optarg, "access")) {
				pa_colour = GPUVM_PAGE_MAP_ACCESS;
			} else if (!strcmp(optarg, "decision")) {
				pa_colour = GPUVM_PAGE_MAP_DECISION;
			} else {
				fprintf(stderr, "gpuvm sim: --page-map-colour: '%s': use access or "
						"decision\n", optarg);
				return 2;
			}
			break;
		case 'c':
			scope = optarg;
			break;
		case 'K':
			spec.kernel_sampling = true;
			if (optarg && (gpuvm_parse_double(optarg, &spec.kernel_sampling_tolerance) ||
				       !(spec.kernel_sampling_tolerance > 0 &&
					 spec.kernel_sampling_tolerance < 1))) {
				fprintf(stderr, "gpuvm sim: --kernel-sampling: '%s' is not a tolerance "
						"between 0 and 1 (e.g. 0.02 for 2 %%)\n", optarg);
				return 2;
			}
			break;
		case 'N':
			if (gpuvm_parse_threads(optarg, &spec.threads)) {
				fprintf(stderr, "gpuvm sim: --threads: '%s' is not a thread count from 1 "
						"to %d\n", optarg, GPUVM_MAX_THREADS);
				return 2;
			}
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
	if (trace && spec.workload) {
		fprintf(stderr, "gpuvm sim: give --workload or --trace, not both\n");
		return 2;
	}
	if ((trace_format || trace_managed) && !trace) {
		fprintf(stderr, "gpuvm sim: --trace-format and --trace-managed need --trace\n");
		return 2;
	}
	if (trace) {
		/* A trace runs as the workload spec "trace[-FORMAT][+managed]:PATH". */
		snprintf(trace_spec, sizeof trace_spec, "trace%s%s%s:%s", trace_format ? "-" : "",
			 trace_format ? trace_format : "", trace_managed ? "+managed" : "", trace);
		spec.workload = trace_spec;
	}
	if (!spec.gpu || !spec.workload) {
		fprintf(stderr, "gpuvm sim: --gpu and --workload (or --trace) are required\n\n");
		sim_usage(stderr);
		return 2;
	}
	spec.progress = isatty(2) && !quiet;
	if (json_path && stats_csv && !strcmp(json_path, stats_csv)) {
		fprintf(stderr, "gpuvm sim: --json and --stats-csv name the same file '%s'\n",
			json_path);
		return 2;
	}
	/* with --json - (or --stats-csv -), stdout carries that output alone (no
	 * table, no scope advice; progress stays on stderr) */
	quiet |= (json_path && !strcmp(json_path, "-")) || (stats_csv && !strcmp(stats_csv, "-"));

	struct gpuvm_error err = {{0}};
	char scoped_spec[4400];
	if (scope && trace) {
		fprintf(stderr, "gpuvm sim: --scope applies to random-sampling and hash-groupby, "
				"not to traces\n");
		return 2;
	}
	if (scope) {
		int rc = apply_scope(&spec, scope, quiet, scoped_spec, sizeof scoped_spec, &err);
		if (rc) {
			fprintf(stderr, "gpuvm sim: %s\n", err.msg);
			return rc;
		}
	}
	/* Every output path is checked before any simulation time is spent. */
	if ((json_path && gpuvm_output_check(json_path, "--json", true, &err)) ||
	    (stats_csv && gpuvm_output_check(stats_csv, "--stats-csv", true, &err)) ||
	    (plot_path && gpuvm_plot_check_path(plot_path, &err)) ||
	    (page_map && page_map_check(page_map, &err))) {
		fprintf(stderr, "gpuvm sim: %s\n", err.msg);
		return 2;
	}
	struct gpuvm_page_access *pa = NULL;
	/* --stats-csv's per-allocation rows come from the page-access recorder,
	 * which runs every launch in detail: with --kernel-sampling they are
	 * left out rather than changing the run */
	if (stats_csv && !page_map && spec.kernel_sampling && !quiet)
		fprintf(stderr, "gpuvm sim: note: --stats-csv has no per-allocation rows with "
				"--kernel-sampling (recording allocations needs every launch in "
				"detail)\n");
	if (page_map || (stats_csv && !spec.kernel_sampling)) {
		if (gpuvm_page_access_create(&pa_opts, &pa, &err)) {
			fprintf(stderr, "gpuvm sim: %s\n", err.msg);
			return 2;
		}
		spec.wrap_source = wrap_page_access;
		spec.wrap_ctx = pa;
		gpuvm_page_access_observer(pa, &pa_observer);
		spec.uvm_observer = &pa_observer;
	}
	cJSON *run;
	if (gpuvm_run_point(&spec, &run, &err)) {
		fprintf(stderr, "gpuvm sim: %s\n", err.msg);
		gpuvm_page_access_destroy(pa);
		return 2;
	}
	int rc = 0;
	/* a refusal is news the user asked for: say it once, on stderr */
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(run, "kernel_sampling");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(ks, "refused");
	if (cJSON_IsString(why) && why->valuestring[0])
		fprintf(stderr, "gpuvm sim: note: kernel sampling refused: %s\n", why->valuestring);
	if (plot_path && !cJSON_GetObjectItemCaseSensitive(run, "uvm")) {
		/* known only now; nothing has been written yet */
		fprintf(stderr, "gpuvm sim: --pcie-plot: this run used no managed memory "
				"(use a workload with mem=managed)\n");
		gpuvm_page_access_destroy(pa);
		cJSON_Delete(run);
		return 2;
	}
	/* which simulator made these numbers */
	cJSON_AddStringToObject(run, "gpuvm_version", GPUVM_VERSION);
	cJSON_AddStringToObject(run, "gpuvm_commit", GPUVM_COMMIT);
	/* All outputs or none: each is staged and published together. */
	gpuvm_output_batch_begin();
	if (pa && page_map)
		rc = write_page_map(pa, page_map, pa_colour, &err);
	if (stats_csv && !rc) {
		struct gpuvm_output o;
		rc = gpuvm_output_open(&o, stats_csv, &err) ? 1 : 0;
		if (!rc && gpuvm_report_stats_csv(o.f, run, pa, stats_csv, &err)) {
			gpuvm_output_cancel(&o);
			rc = 1;
		} else if (!rc && gpuvm_output_close(&o, &err)) {
			rc = 1;
		}
	}
	gpuvm_page_access_destroy(pa);
	if (json_path && !rc) {
		char *text = cJSON_Print(run);
		if (!text || gpuvm_output_write_text(json_path, text, &err))
			rc = 1;
		free(text);
	}
	if (plot_path && !rc && gpuvm_report_pcie_plot(run, plot_path, &err))
		rc = 1;
	if (!rc && gpuvm_output_batch_commit(&err))
		rc = 1;
	if (rc) {
		fprintf(stderr, "gpuvm sim: %s\n", err.msg[0] ? err.msg : "out of memory");
		gpuvm_output_batch_abort();
		rc = GPUVM_EXIT_OUTPUT_FAILED;
	}
	if (!quiet && !rc)
		gpuvm_report_print(stdout, run);
	cJSON_Delete(run);
	return rc;
}
