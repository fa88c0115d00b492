/* gpuvm sim: one workload on one GPU. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/host_memory.h"
#include "gpuvm/output_file.h"
#include "gpuvm/page_access.h"
#include "gpuvm/plot.h"
#include "gpuvm/report.h"
#include "gpuvm/progress.h"
#include "gpuvm/module.h"
#include "gpuvm/run.h"
#include "gpuvm/run_dir.h"
#include "gpuvm/scope.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/units.h"
#include "gpuvm_version.h"

/* the usage text, around the migration policies' names (sim_usage) */
static const char sim_usage_head[] =
	"usage: gpuvm sim (--gpu NAME|FILE | --system SPEC) (--workload NAME[:key=value,...] | --trace PATH)\n"
	"                 [--trace-format F] [--trace-managed] [--set key=value]...\n"
	"                 [--oversub PCT] [--migration NAME] [--scope BYTES|auto] [--seed N]\n"
	"                 [--json FILE] [--stats-csv FILE] [--pcie-plot FILE] [--quiet]\n"
	"                 [--kernel-sampling[=TOL]] [--threads N]\n"
	"                 [--page-map PREFIX [--page-map-page SIZE]] [--force] [--tlb-sharing]\n"
	"                 [--max-host-memory SIZE]\n"
	"                 [--outdir DIR | --no-outdir] [--progress=SECONDS|off]\n"
	"\n"
	"Replays a workload through the GPU model and prints what happened: TLB hits\n"
	"and misses per level, page walks, L2/DRAM/PCIe traffic and the simulated time.\n"
	"\n"
	"  --gpu NAME|FILE   a shipped preset (see `gpuvm presets`) or an .ini file\n"
	"  --system SPEC     in place of --gpu: a system (see `gpuvm systems`), a system\n"
	"                    file, or NAME:gpus=N[,nvlink=off] (its first N GPUs; no\n"
	"                    GPU-GPU links). Several GPUs run a program's cudaSetDevice\n"
	"                    and peer copies (docs/systems.md); one is its preset's run\n"
	"  --workload SPEC   workload and parameters, e.g. random-sampling:region=4GiB\n"
	"                    (see `gpuvm workloads`; sizes take KiB/MiB/GiB)\n"
	"  --trace PATH      replay a trace instead: an Accel-Sim folder or kernelslist.g,\n"
	"                    an NVBit mem_trace output file, or a native .gvt file\n"
	"                    (same as --workload trace:PATH; see `gpuvm trace --help`);\n"
	"                    with --system, one --trace per GPU in order (trace:A;B)\n"
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
	"  --migration NAME  migration policy of managed memory (Ganguly et al. ISCA'19):\n";

static const char sim_usage_tail[] =
	"                    same as --set uvm.migration=NAME; see docs/uvm.md\n"
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
	"  --outdir DIR      a run directory, as gem5's m5out/: DIR/report.json (the\n"
	"                    JSON), DIR/stats.txt (the long form of --stats-csv),\n"
	"                    DIR/config.ini (the resolved config as a preset:\n"
	"                    --gpu DIR/config.ini reproduces the run) and DIR/log.txt\n"
	"                    (the text report). DIR is created if missing; only those\n"
	"                    four files are replaced in it. Without --outdir and with\n"
	"                    no other output named (--json, --stats-csv, --pcie-plot,\n"
	"                    --page-map), the run goes to gpuvm-out/, which holds the\n"
	"                    last run and is overwritten only if gpuvm made it\n"
	"                    (docs/outputs.md)\n"
	"  --no-outdir       no default gpuvm-out/ (only the text report)\n"
	"  --progress=N|off  when stderr is not a terminal (a batch log, nohup, | tee),\n"
	"                    a progress line every N seconds (default 30): simulated\n"
	"                    cycles, launches done, warp instructions per CPU second\n"
	"                    and the estimated time left; on a terminal the live line.\n"
	"                    off: none. --quiet implies off unless --progress is given\n"
	"  --force           run a workload estimated past the work cap of 1e11 thread\n"
	"                    accesses (about 80 CPU minutes at 20 M/s), or needing more\n"
	"                    host memory than the bound; without it such a run is\n"
	"                    refused at once with its estimate (exit 2)\n"
	"  --max-host-memory SIZE  the host-memory bound: a workload, graph or trace\n"
	"                    asking for more is refused before allocating, naming the\n"
	"                    parameter (default: half of physical memory)\n"
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
	"                    (most suite kernels; not bc's BFS, atax's,\n"
	"                    sl1, sepo) on N worker threads ahead of the timing model,\n"
	"                    which stays on this thread (N + 1 threads in all); results,\n"
	"                    statistics and JSON are identical at any N (wall times\n"
	"                    aside). 1 (default): all on this thread; N from 1 to 64\n"
	"                    With an Accel-Sim trace, N >= 2 also parses and transcodes\n"
	"                    the next kernel on a reader thread while this one replays\n"
	"                    (errors still stop the run at the same kernel and line)\n"
	"                    With --set core.window=on, N >= 2 also splits each\n"
	"                    window's barrier: translations on this thread, the\n"
	"                    sectors' data on another, where nothing couples them (no\n"
	"                    managed memory, walker.pte_reads = none) and a warp's\n"
	"                    lanes translate apart (docs/parallel.md)\n"
	"                    With --set core.window=lagged, N >= 2 serves each\n"
	"                    window's barrier on another thread while the next\n"
	"                    window runs, where serving it takes long enough (not\n"
	"                    with managed memory or SIMT workers; the same results)\n"
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
	"file, line and key, or the output path); no output file is written on failure.\n";

static void sim_usage(FILE *out)
{
	fputs(sim_usage_head, out);
	/* the names come from the module registry (gpuvm/module.h) */
	fprintf(out, "                    %s (default first-touch);\n",
		gpuvm_module_names(GPUVM_MODULE_MIGRATE));
	fputs(sim_usage_tail, out);
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
	/* the text passed on, whole (a 32-byte copy cut a long spelling of a
	 * valid size to another size: issue 79) */
	const char *value;
	char size[32]; /* the chosen size, formatted (at most "NNNNNNNNNNNNNNNNNNNNB") */
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
		gpuvm_format_size(s, size, sizeof size);
		value = s ? size : "none";
	} else {
		uint64_t s;
		if (gpuvm_parse_size(scope, &s) && strcmp(scope, "none"))
			return gpuvm_fail(err, "--scope", 0, NULL,
					  "'%s': expected a size such as 2GiB, auto or none", scope),
			       2;
		value = scope;
	}
	/* a parameter may be given once */
	const char *colon = strchr(spec->workload, ':');
	if (colon && (!strncmp(colon + 1, "scope=", 6) || strstr(colon, ",scope=")))
		return gpuvm_fail(err, "--scope", 0, NULL, "the workload spec sets scope= already; "
				  "give one of them"),
		       2;
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
	/* a prefix naming a directory ("/", "out/") would write "/.csv" */
	struct stat st;
	const char *slash = strrchr(prefix, '/');
	if ((slash && !slash[1]) || !strcmp(prefix, ".") || !strcmp(prefix, "..") ||
	    (stat(prefix, &st) == 0 && S_ISDIR(st.st_mode)))
		return gpuvm_fail(err, "--page-map", 0, NULL, "'%s' is a directory; give a "
				  "file prefix such as %s%sout", prefix, prefix,
				  slash && !slash[1] ? "" : "/");
	static const char *const ext[] = {".csv", ".json", ".png", ".gp"};
	for (int i = 0; i < 4; i++) {
		if (i >= 2 && !gpuvm_plot_available())
			break;
		/* whole: a cut copy could name another file */
		const char *path = gpuvm_cli_format("%s%s", prefix, ext[i]);
		if (!path)
			return gpuvm_fail(err, "--page-map", 0, NULL, "out of memory");
		/* claimed with the other outputs (gpuvm_cli_claim_outputs) */
		if (i < 3 && gpuvm_output_check(path, "--page-map", false, err))
			return -1;
	}
	return 0;
}

/* An option value that looks like an option ("--json --quiet") is a
 * forgotten value, unless written attached ("--json=./--quiet"). */
static int value_is_option(char **argv, const char *name)
{
	if (optarg && optarg[0] == '-' && optarg[1] && optarg == argv[optind - 1]) {
		fprintf(stderr, "gpuvm sim: --%s: the value '%s' looks like an option (write "
				"--%s=%s if it is meant)\n", name, optarg, name, optarg);
		return 1;
	}
	return 0;
}

static int write_page_map(const struct gpuvm_page_access *pa, const char *prefix,
			  enum gpuvm_page_map_colour colour, struct gpuvm_error *err)
{
	if (page_map_in_place(prefix))
		return gpuvm_page_access_write_csv(pa, prefix, err) ? 1 : 0;
	const char *png = NULL;
	bool draw = gpuvm_plot_available();
	if (draw && !(png = gpuvm_cli_format("%s.png", prefix)))
		return gpuvm_fail(err, "gpuvm", 0, NULL, "out of memory"), 1;
	if (!draw)
		fprintf(stderr, "gpuvm sim: gnuplot not found: %s.png not drawn (CSV and JSON "
				"are written)\n", prefix);
	return gpuvm_page_access_write(pa, prefix, draw ? png : NULL, colour, err) ? 1 : 0;
}

/* The run directory's report.json, stats.txt and config.ini, staged in
 * the caller's output batch (gpuvm/run_dir.h). */
static int write_run_dir(const char *dir, const cJSON *run, const struct gpuvm_page_access *pa,
			 int argc, char **argv, struct gpuvm_error *err)
{
	char path[4200], command[4096];
	size_t n = 0;
	command[0] = 0;
	for (int i = 0; i < argc && n < sizeof command; i++)
		n += (size_t)snprintf(command + n, sizeof command - n, "%s%s", i ? " " : "gpuvm ",
				      argv[i]);
	char *text = cJSON_Print(run);
	gpuvm_run_dir_path(dir, GPUVM_RUN_DIR_JSON, path, sizeof path);
	int rc = !text || gpuvm_output_write_text(path, text, err);
	free(text);
	if (!rc) {
		text = gpuvm_run_dir_config_ini(run, command);
		gpuvm_run_dir_path(dir, GPUVM_RUN_DIR_CONFIG, path, sizeof path);
		rc = !text || gpuvm_output_write_text(path, text, err);
		free(text);
	}
	if (!rc) {
		struct gpuvm_output o;
		gpuvm_run_dir_path(dir, GPUVM_RUN_DIR_STATS, path, sizeof path);
		rc = gpuvm_output_open(&o, path, err) ? 1 : 0;
		if (!rc && gpuvm_report_stats_csv(o.f, run, pa, path, err)) {
			gpuvm_output_cancel(&o);
			rc = 1;
		} else if (!rc && gpuvm_output_close(&o, err)) {
			rc = 1;
		}
	}
	return rc;
}

static int write_run_log(const char *dir, const cJSON *run, struct gpuvm_error *err)
{
	char path[4200];
	struct gpuvm_output o;
	gpuvm_run_dir_path(dir, GPUVM_RUN_DIR_LOG, path, sizeof path);
	if (gpuvm_output_open(&o, path, err))
		return 1;
	if (gpuvm_report_is_system(run))
		gpuvm_report_print_system(o.f, run);
	else
		gpuvm_report_print(o.f, run);
	return gpuvm_output_close(&o, err) ? 1 : 0;
}

/* ---- the command line ------------------------------------------------ */

static const struct option sim_opts[] = {
	{"gpu", required_argument, 0, 'g'},   {"workload", required_argument, 0, 'w'},
	{"system", required_argument, 0, 'Y'},
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
	{"max-host-memory", required_argument, 0, 'X'},
	{"outdir", required_argument, 0, 'O'}, {"no-outdir", no_argument, 0, 'D'},
	{"progress", required_argument, 0, 'R'},
	{"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
};

/* What the command line asked for: the run's spec and the outputs. */
struct sim_args {
	struct gpuvm_run_spec spec;
	const char *trace, *trace_format;
	const char *json_path, *plot_path, *page_map, *scope, *stats_csv, *outdir;
	struct gpuvm_page_access_opts pa_opts;
	enum gpuvm_page_map_colour pa_colour;
	int quiet, trace_managed, n_traces;
	bool no_outdir, progress_given, progress_off;
	bool outdir_default; /* no output named: the default run directory */
	double progress_s;
	uint32_t system_gpus; /* 1, or the GPUs of --system */
};

/* sim's steps answer SIM_GO to go on, or the exit status to return. */
#define SIM_GO (-1)

/* One more --set entry (--set itself, --oversub, --migration,
 * --tlb-sharing); text NULL: out of memory formatting it. */
static int add_set(struct gpuvm_run_spec *spec, const char *text)
{
	if (spec->n_sets == GPUVM_MAX_SETS) {
		fprintf(stderr, "gpuvm sim: at most %d --set options\n", GPUVM_MAX_SETS);
		return 2;
	}
	spec->sets[spec->n_sets++] = text;
	if (!text) {
		fprintf(stderr, "gpuvm sim: out of memory\n");
		return 1;
	}
	return SIM_GO;
}

/* The options whose value is a number, size or choice checked here. */
static int sim_value_option(struct sim_args *a, int c)
{
	switch (c) {
	case 'S':
		if (gpuvm_parse_u64(optarg, &a->spec.seed)) {
			fprintf(stderr, "gpuvm sim: --seed: '%s' is not a non-negative integer\n", optarg);
			return 2;
		}
		break;
	case 'o': {
		double pct;
		/* 1 to 1000: the range of uvm.oversub_percent (1e-300 would ask
		 * for 10^302 times the working set) */
		if (gpuvm_parse_double(optarg, &pct) || !(pct >= 1 && pct <= 1000)) {
			fprintf(stderr, "gpuvm sim: --oversub: '%s' is not a percentage such as "
					"125 (uvm.oversub_percent, range [1, 1000])\n", optarg);
			return 2;
		}
		/* the parsed value, never a cut copy of the text (checked for
		 * room first, as before: "at most" wins over out of memory) */
		if (a->spec.n_sets == GPUVM_MAX_SETS)
			return add_set(&a->spec, NULL);
		return add_set(&a->spec, gpuvm_cli_format("uvm.oversub_percent=%.17g", pct));
	}
	case 'X': {
		uint64_t b;
		if (gpuvm_host_memory_parse(optarg, &b)) {
			fprintf(stderr, "gpuvm sim: --max-host-memory: '%s' is not a size of at "
					"least 1MiB\n", optarg);
			return 2;
		}
		gpuvm_host_memory_set_bound(b);
		break;
	}
	case 'Z':
		if (gpuvm_parse_size(optarg, &a->pa_opts.page_bytes) ||
		    !gpuvm_is_pow2(a->pa_opts.page_bytes) || a->pa_opts.page_bytes < 64) {
			fprintf(stderr, "gpuvm sim: --page-map-page: '%s' is not a power-of-two "
					"size >= 64 bytes\n", optarg);
			return 2;
		}
		break;
	case 'L':
		if (!strcmp(optarg, "access")) {
			a->pa_colour = GPUVM_PAGE_MAP_ACCESS;
		} else if (!strcmp(optarg, "decision")) {
			a->pa_colour = GPUVM_PAGE_MAP_DECISION;
		} else {
			fprintf(stderr, "gpuvm sim: --page-map-colour: '%s': use access or "
					"decision\n", optarg);
			return 2;
		}
		break;
	case 'K':
		a->spec.kernel_sampling = true;
		if (optarg && (gpuvm_parse_double(optarg, &a->spec.kernel_sampling_tolerance) ||
			       !(a->spec.kernel_sampling_tolerance > 0 &&
				 a->spec.kernel_sampling_tolerance < 1))) {
			fprintf(stderr, "gpuvm sim: --kernel-sampling: '%s' is not a tolerance "
					"between 0 and 1 (e.g. 0.02 for 2 %%)\n", optarg);
			return 2;
		}
		break;
	case 'N':
		if (gpuvm_parse_threads(optarg, &a->spec.threads)) {
			fprintf(stderr, "gpuvm sim: --threads: '%s' is not a thread count from 1 "
					"to %d\n", optarg, GPUVM_MAX_THREADS);
			return 2;
		}
		break;
	case 'R':
		if (gpuvm_progress_parse(optarg, &a->progress_s, &a->progress_off)) {
			fprintf(stderr, "gpuvm sim: --progress: '%s' is not a number of seconds "
					"(e.g. 30) or off\n", optarg);
			return 2;
		}
		a->progress_given = true;
		break;
	}
	return SIM_GO;
}

/* One option getopt returned: SIM_GO, or the exit status (0 for --help). */
static int sim_option(struct sim_args *a, int c, const struct gpuvm_getopt *g)
{
	switch (c) {
	case GPUVM_GETOPT_REPEATED:
		fprintf(stderr, "gpuvm sim: %s\n", g->why);
		return 2;
	case 'g': a->spec.gpu = optarg; break;
	case 'Y': a->spec.system = optarg; break;
	case 'w': a->spec.workload = optarg; break;
	case 's': return add_set(&a->spec, optarg);
	case 't': /* one per GPU of --system, in order: "A;B" (run_system.c) */
		a->trace = a->trace ? gpuvm_cli_format("%s;%s", a->trace, optarg) : optarg;
		a->n_traces++;
		break;
	case 'F': a->trace_format = optarg; break;
	case 'M': a->trace_managed = 1; break;
	case 'j': a->json_path = optarg; break;
	case 'p': a->plot_path = optarg; break;
	case 'C': a->stats_csv = optarg; break;
	case 'm':
		if (a->spec.n_sets == GPUVM_MAX_SETS)
			return add_set(&a->spec, NULL);
		return add_set(&a->spec, gpuvm_cli_format("uvm.migration=%s", optarg));
	case 'T': return add_set(&a->spec, "tlb.sharing_analysis=on");
	case 'q': a->quiet = 1; break;
	case 'f':
		a->spec.force = true;
		gpuvm_host_memory_set_bound(UINT64_MAX);
		break;
	case 'P':
		if (!*optarg) {
			fprintf(stderr, "gpuvm sim: --page-map: empty prefix\n");
			return 2;
		}
		a->page_map = optarg;
		break;
	case 'c': a->scope = optarg; break;
	case 'O': a->outdir = optarg; break;
	case 'D': a->no_outdir = true; break;
	case 'S': case 'o': case 'X': case 'Z': case 'L': case 'K': case 'N': case 'R':
		return sim_value_option(a, c);
	case 'h':
		sim_usage(stdout);
		return 0;
	default:
		fprintf(stderr, "gpuvm sim: %s (see gpuvm sim --help)\n", g->why);
		return 2;
	}
	return SIM_GO;
}

/* The getopt loop and the claim of every output option's files. */
static int sim_parse(struct sim_args *a, int argc, char **argv)
{
	/* may be given more than once (cli_options.h); --oversub and
	 * --migration may not, though each becomes a --set */
	static const char *const repeatable[] = {"set", "trace", NULL};
	/* every file sim writes, claimed right after the parse (cli_options.h) */
	static const struct gpuvm_cli_output outputs[] = {
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"stats-csv", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"pcie-plot", GPUVM_CLI_OUT_FIGURE, 0, 0, 0, 0},
		{"page-map", GPUVM_CLI_OUT_PREFIX, 0, 0, 0, 0},
		{"outdir", GPUVM_CLI_OUT_DIR, 0, 0, gpuvm_run_dir_names, 0},
		{0},
	};
	struct gpuvm_getopt g;
	gpuvm_getopt_init(&g, sim_opts, repeatable);
	gpuvm_getopt_outputs(&g, outputs);
	optind = 1;
	int c;
	/* -q as in sweep */
	while ((c = gpuvm_getopt(&g, argc, argv, "q")) != -1) {
		int opt_index = g.longindex;
		if (opt_index >= 0 && sim_opts[opt_index].has_arg == required_argument &&
		    value_is_option(argv, sim_opts[opt_index].name))
			return 2;
		int rc = sim_option(a, c, &g);
		if (rc != SIM_GO)
			return rc;
	}
	if (gpuvm_cli_claim_or_report(&g, "sim"))
		return 2;
	if (optind < argc) {
		fprintf(stderr, "gpuvm sim: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return SIM_GO;
}

/* --system: how many GPUs, and the outputs not made for several. */
static int sim_check_system(struct sim_args *a)
{
	struct gpuvm_error serr = {{0}};
	struct gpuvm_sysdesc *desc = malloc(sizeof *desc);
	if (!desc) {
		fprintf(stderr, "gpuvm sim: out of memory\n");
		return 1;
	}
	if (gpuvm_sysdesc_load_spec(desc, a->spec.system, &serr)) {
		fprintf(stderr, "gpuvm sim: --system: %s\n", serr.msg);
		free(desc);
		return 2;
	}
	a->system_gpus = desc->n_gpus;
	free(desc);
	const char *unmade = a->stats_csv ? "--stats-csv" : a->page_map ? "--page-map"
			     : a->plot_path ? "--pcie-plot" : NULL;
	if (a->system_gpus > 1 && unmade) {
		fprintf(stderr, "gpuvm sim: %s is not made for a system of several GPUs yet "
				"(--json and --outdir are)\n", unmade);
		return 2;
	}
	if (a->scope && !strcmp(a->scope, "auto")) {
		fprintf(stderr, "gpuvm sim: --scope auto needs --gpu\n");
		return 2;
	}
	return SIM_GO;
}

/* The options taken together: the rules no single option breaks. */
static int sim_check_args(struct sim_args *a)
{
	/* a key set twice to different values on the command line is a slip
	 * (--oversub and --migration are --set uvm.oversub_percent/migration) */
	char sets_why[768];
	if (gpuvm_cli_check_sets(a->spec.sets, a->spec.n_sets, NULL, 0, sets_why,
				 sizeof sets_why)) {
		fprintf(stderr, "gpuvm sim: %s\n", sets_why);
		return 2;
	}
	if (a->trace && a->spec.workload) {
		fprintf(stderr, "gpuvm sim: give --workload or --trace, not both\n");
		return 2;
	}
	if ((a->trace_format || a->trace_managed) && !a->trace) {
		fprintf(stderr, "gpuvm sim: --trace-format and --trace-managed need --trace\n");
		return 2;
	}
	if (a->trace) {
		/* A trace runs as the workload spec "trace[-FORMAT][+managed]:PATH". */
		a->spec.workload = gpuvm_cli_format("trace%s%s%s:%s", a->trace_format ? "-" : "",
						    a->trace_format ? a->trace_format : "",
						    a->trace_managed ? "+managed" : "", a->trace);
		if (!a->spec.workload) {
			fprintf(stderr, "gpuvm sim: out of memory\n");
			return 1;
		}
	}
	if (a->n_traces > 1 && !a->spec.system) {
		fprintf(stderr, "gpuvm sim: --trace given %d times: one per GPU of --system\n",
			a->n_traces);
		return 2;
	}
	if (a->spec.gpu && a->spec.system) {
		fprintf(stderr, "gpuvm sim: give --gpu or --system, not both (a preset is also a "
				"system of one: --system %s)\n", a->spec.gpu);
		return 2;
	}
	if ((!a->spec.gpu && !a->spec.system) || !a->spec.workload) {
		fprintf(stderr, "gpuvm sim: --gpu (or --system) and --workload (or --trace) are "
				"required, e.g. --gpu p100 --workload stream-triad (see gpuvm sim "
				"--help)\n");
		return 2;
	}
	/* several GPUs: their report is per GPU (gpuvm_report_system); the
	 * outputs made of one GPU's run are not made of it yet */
	a->system_gpus = 1;
	if (a->spec.system) {
		int rc = sim_check_system(a);
		if (rc != SIM_GO)
			return rc;
	}
	if (a->outdir && a->no_outdir) {
		fprintf(stderr, "gpuvm sim: give --outdir or --no-outdir, not both\n");
		return 2;
	}
	/* as gem5's m5out/: a run that names no output keeps one anyway */
	a->outdir_default = !a->outdir && !a->no_outdir && !a->json_path && !a->stats_csv &&
			    !a->plot_path && !a->page_map;
	if (a->outdir_default)
		a->outdir = GPUVM_RUN_DIR_DEFAULT;
	/* with --json - (or --stats-csv -), stdout carries that output alone (no
	 * table, no scope advice; progress stays on stderr) */
	a->quiet |= (a->json_path && !strcmp(a->json_path, "-")) ||
		    (a->stats_csv && !strcmp(a->stats_csv, "-"));
	return SIM_GO;
}

/* --scope, then every output path checked, and resolved to its final
 * target once (two outputs on one file are refused), before any
 * simulation time is spent. scoped_spec holds the scoped workload spec. */
static int sim_prepare(struct sim_args *a, char *scoped_spec, size_t len,
		       struct gpuvm_error *err)
{
	if (a->scope && a->trace) {
		fprintf(stderr, "gpuvm sim: --scope applies to random-sampling and hash-groupby, "
				"not to traces\n");
		return 2;
	}
	if (a->scope) {
		int rc = apply_scope(&a->spec, a->scope, a->quiet, scoped_spec, len, err);
		if (rc) {
			fprintf(stderr, "gpuvm sim: %s\n", err->msg);
			return rc;
		}
	}
	if (a->outdir && gpuvm_run_dir_prepare(a->outdir, a->outdir_default, "--outdir", err)) {
		fprintf(stderr, "gpuvm sim: %s\n", err->msg);
		return 2;
	}
	/* the default run directory is no option's: claimed here */
	if (a->outdir_default && gpuvm_output_claim_dir(a->outdir, gpuvm_run_dir_names,
							"the run directory", err)) {
		fprintf(stderr, "gpuvm sim: %s\n", err->msg);
		return 2;
	}
	if ((a->json_path && gpuvm_output_check(a->json_path, "--json", true, err)) ||
	    (a->stats_csv && gpuvm_output_check(a->stats_csv, "--stats-csv", true, err)) ||
	    (a->plot_path && gpuvm_plot_check_path_as(a->plot_path, "--pcie-plot", err)) ||
	    (a->page_map && page_map_check(a->page_map, err))) {
		fprintf(stderr, "gpuvm sim: %s\n", err->msg);
		return 2;
	}
	return SIM_GO;
}

/* ---- the outputs ----------------------------------------------------- */

static int write_stats_csv(const char *path, const cJSON *run,
			   const struct gpuvm_page_access *pa, struct gpuvm_error *err)
{
	struct gpuvm_output o;
	if (gpuvm_output_open(&o, path, err))
		return 1;
	if (gpuvm_report_stats_csv(o.f, run, pa, path, err)) {
		gpuvm_output_cancel(&o);
		return 1;
	}
	return gpuvm_output_close(&o, err) ? 1 : 0;
}

/* Every output of a run that succeeded, all or none (each is staged and
 * published together); pa is destroyed here. 0, or the exit status. */
static int sim_write_outputs(const struct sim_args *a, cJSON *run, struct gpuvm_page_access *pa,
			     double cpu_seconds, int argc, char **argv, struct gpuvm_error *e)
{
	struct gpuvm_error err = *e;
	int rc = 0;
	gpuvm_output_batch_begin();
	if (pa && a->page_map)
		rc = write_page_map(pa, a->page_map, a->pa_colour, &err);
	if (a->stats_csv && !rc)
		rc = write_stats_csv(a->stats_csv, run, pa, &err);
	if (a->outdir && !rc && a->system_gpus > 1) {
		/* report.json alone (log.txt below): config.ini and stats.txt
		 * are one GPU's */
		char path[4200];
		char *text = cJSON_Print(run);
		gpuvm_run_dir_path(a->outdir, GPUVM_RUN_DIR_JSON, path, sizeof path);
		rc = !text || gpuvm_output_write_text(path, text, &err);
		free(text);
	} else if (a->outdir && !rc) {
		rc = write_run_dir(a->outdir, run, pa, argc, argv, &err);
	}
	gpuvm_page_access_destroy(pa);
	if (a->json_path && !rc) {
		char *text = cJSON_Print(run);
		if (!text || gpuvm_output_write_text(a->json_path, text, &err))
			rc = 1;
		free(text);
	}
	/* the text report's rates are per CPU second (the JSON files keep
	 * wall_seconds alone, so they stay comparable across runs) */
	cJSON_AddNumberToObject(run, "cpu_seconds", cpu_seconds);
	if (a->outdir && !rc)
		rc = write_run_log(a->outdir, run, &err);
	if (a->plot_path && !rc && gpuvm_report_pcie_plot(run, a->plot_path, &err))
		rc = 1;
	if (!rc && gpuvm_output_batch_commit(&err))
		rc = 1;
	if (rc) {
		fprintf(stderr, "gpuvm sim: %s\n", err.msg[0] ? err.msg : "out of memory");
		gpuvm_output_batch_abort();
		rc = GPUVM_EXIT_OUTPUT_FAILED;
	}
	return rc;
}

/* ---- the command ----------------------------------------------------- */

int gpuvm_cmd_sim(int argc, char **argv)
{
	struct sim_args a = {
		.spec = {.seed = 1},
		.pa_colour = GPUVM_PAGE_MAP_AUTO,
		.progress_s = GPUVM_PROGRESS_DEFAULT_INTERVAL_S,
	};
	int rc = sim_parse(&a, argc, argv);
	if (rc == SIM_GO)
		rc = sim_check_args(&a);
	struct gpuvm_error err = {{0}};
	char scoped_spec[4400];
	if (rc == SIM_GO)
		rc = sim_prepare(&a, scoped_spec, sizeof scoped_spec, &err);
	if (rc != SIM_GO)
		return rc;
	struct gpuvm_page_access *pa = NULL;
	struct gpuvm_uvm_observer pa_observer;
	/* --stats-csv's per-allocation rows come from the page-access recorder,
	 * which runs every launch in detail: with --kernel-sampling they are
	 * left out rather than changing the run */
	if (a.stats_csv && !a.page_map && a.spec.kernel_sampling && !a.quiet)
		fprintf(stderr, "gpuvm sim: note: --stats-csv has no per-allocation rows with "
				"--kernel-sampling (recording allocations needs every launch in "
				"detail)\n");
	if (a.system_gpus == 1 &&
	    (a.page_map || ((a.stats_csv || a.outdir) && !a.spec.kernel_sampling))) {
		/* without --page-map only the per-allocation totals are read */
		a.pa_opts.totals_only = !a.page_map;
		if (gpuvm_page_access_create(&a.pa_opts, &pa, &err)) {
			fprintf(stderr, "gpuvm sim: %s\n", err.msg);
			return 2;
		}
		a.spec.wrap_source = wrap_page_access;
		a.spec.wrap_ctx = pa;
		gpuvm_page_access_observer(pa, &pa_observer);
		a.spec.uvm_observer = &pa_observer;
	}
	/* progress: the live line on a terminal, else a line every
	 * progress_s seconds (a batch log); --quiet silences it unless asked */
	struct gpuvm_progress progress;
	enum gpuvm_progress_mode pmode = a.progress_off || (a.quiet && !a.progress_given)
						 ? GPUVM_PROGRESS_OFF
					 : isatty(2) ? GPUVM_PROGRESS_LIVE
						     : GPUVM_PROGRESS_LINES;
	gpuvm_progress_init(&progress, pmode, a.progress_s, stderr, "gpuvm sim");
	a.spec.progress_reporter = pmode == GPUVM_PROGRESS_OFF ? NULL : &progress;
	cJSON *run;
	double cpu0 = gpuvm_progress_cpu_seconds();
	int run_rc = gpuvm_run_point(&a.spec, &run, &err);
	double cpu_seconds = gpuvm_progress_cpu_seconds() - cpu0;
	gpuvm_progress_finish(&progress);
	if (run_rc) {
		fprintf(stderr, "gpuvm sim: %s\n", err.msg);
		gpuvm_page_access_destroy(pa);
		return 2;
	}
	/* a refusal is news the user asked for: say it once, on stderr */
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(run, "kernel_sampling");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(ks, "refused");
	if (cJSON_IsString(why) && why->valuestring[0])
		fprintf(stderr, "gpuvm sim: note: kernel sampling refused: %s\n", why->valuestring);
	if (a.plot_path && !cJSON_GetObjectItemCaseSensitive(run, "uvm")) {
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
	rc = sim_write_outputs(&a, run, pa, cpu_seconds, argc, argv, &err);
	if (!a.quiet && !rc) {
		if (gpuvm_report_is_system(run))
			gpuvm_report_print_system(stdout, run);
		else
			gpuvm_report_print(stdout, run);
		if (a.outdir)
			printf("outputs    %s/ (report.json, stats.txt, config.ini, log.txt)\n", a.outdir);
	}
	cJSON_Delete(run);
	return rc;
}
