/* gpuvm sweep: runs a grid of simulation points, in parallel worker
 * processes, and reports them as a table, CSV, JSON and a figure.
 *
 * Every point is checked before anything is simulated. Results come back
 * from the workers as JSON text and are assembled in grid order, so the
 * output does not depend on -j (wall-time fields aside). Output files are
 * published together through the output module, only once everything has
 * succeeded.
 *
 * This file owns the command line (usage, options) and the sweep's life:
 * validate, resume/cache, run (sweep_run.c), MPI gather, write outputs.
 * The grid is sweep_grid.c, the outputs sweep_output.c and sweep_csv.c. */
#include "gpuvm/host_memory.h"
#include "commands.h"
#include "sweep_internal.h"
#include "cli_options.h"
#include "gpuvm/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpuvm/plot.h"
#include "gpuvm/stats_registry.h"
#include "gpuvm/units.h"

static void usage(FILE *f)
{
	fputs(
"usage: gpuvm sweep (--gpu GPU[,GPU...] | --system SPEC) --workload NAME[:k=v,...]\n"
"                   [options]\n"
"       gpuvm sweep merge PART.csv... --csv OUT   (join --shard outputs)\n"
"\n"
"Runs one simulation per point of a grid (the GPUs times every --vary list)\n"
"and prints a table; --csv, --json and --plot save the results.\n"
"\n"
"Grid:\n"
"  --gpu LIST          presets (p100, k80, ...) or preset files, comma-separated;\n"
"                      the outermost dimension of the grid\n"
"  --system SPEC       in place of --gpu: every point a system run, as gpuvm sim\n"
"                      --system SPEC (a system, a file, NAME:gpus=N,nvlink=off);\n"
"                      vary its modifiers with --vary gpus=1,2 --vary\n"
"                      nvlink=on,off; --set applies to every GPU. The gpu\n"
"                      column holds SPEC; a point of several GPUs has the run's\n"
"                      totals (sim_seconds: the last GPU's end, peer_*) and\n"
"                      each GPU's metrics as gpu_D_METRIC (docs/systems.md)\n"
"  --workload SPEC     workload and its parameters, e.g.\n"
"                      random-sampling:threads=8192,reads=1024 (see gpuvm workloads)\n"
"  --vary KEY=V1,V2,.. one dimension of the grid (repeatable; several make a\n"
"                      cartesian product, the last varying fastest). KEY is\n"
"                      - a config key (tlb.l2.entries=...), applied like --set\n"
"                      - workload.PARAM (workload.region=...), set in the spec\n"
"                      - seed\n"
"                      A value may be a range: LO..HI*F (geometric, e.g.\n"
"                      32MiB..16GiB*2) or LO..HI+STEP (arithmetic, e.g. 8..64+8).\n"
"  --set KEY=VALUE     config override for every point (repeatable)\n"
"  --oversub PCT       managed working set / device memory in percent (110, 125,\n"
"                      150): --set uvm.oversub_percent=PCT; vary it with\n"
"                      --vary uvm.oversub_percent=110,125,150\n"
"  --seed N            random seed of every point (default 1)\n"
"  --kernel-sampling[=TOL]  sample alike kernel launches (as in gpuvm sim: the\n"
"                      last 3 detailed launches of a class agree on cycles per\n"
"                      warp instruction within TOL, default 0.02; later ones are\n"
"                      fast-forwarded functionally); columns kernel_sampling_*\n"
"                      say how many launches ran in detail. TOL only after '='.\n"
"\n"
"Running:\n"
"  -j, --jobs N        simulate N points at a time in worker processes\n"
"                      (default 1; 0 = one per CPU). Results do not depend on N.\n"
"  --threads N         each point runs its SIMT kernels' GPU threads on N worker\n"
"                      threads (as gpuvm sim --threads; default 1): -j J\n"
"                      --threads N keeps up to J x (N + 1) threads busy, so on C\n"
"                      cores use J x (N + 1) <= C or leave N at 1 and raise -j.\n"
"                      Results do not depend on N; the cache ignores it.\n"
"  --quiet             no table and no progress\n"
"  --force             run points estimated past the work cap (1e11 thread\n"
"                      accesses, about 80 CPU minutes each; see gpuvm sim --help)\n"
"  --keep-going        (the default) a point that fails is a row with its message\n"
"                      in the error column and empty metrics; the others still\n"
"                      run; the exit status is 1 and stderr says how many failed\n"
"  --fail-fast         stop at the first failed point and write nothing\n"
"  --resume            keep the rows already in the --csv file (or FILE.partial,\n"
"                      the checkpoint an interrupted run leaves) whose point\n"
"                      (index, gpu, varied values, workload, seed) is in this\n"
"                      grid; run the missing and failed points. The CSV ends\n"
"                      as a fresh run's. Needs --csv; not with --json\n"
"  --mpi               run under mpirun: rank R of N runs the points i with\n"
"                      i mod N == R, rank 0 gathers them and writes the outputs\n"
"                      a single run would (docs/outputs.md); -j applies per rank.\n"
"                      Not with --shard or --resume. Needs a gpuvm built with MPI\n"
"  --cache DIR         keep each point's result in DIR under a hash of what\n"
"                      determines it (resolved config, preset, workload, seed,\n"
"                      sampling, gpuvm version and commit); a later sweep meeting\n"
"                      the same point reads it instead of simulating (its wall\n"
"                      columns are the first run's). Traces are not cached\n"
"  --shard I/N         run only the points i with i mod N == I (0-based, grid\n"
"                      order; 0 <= I < N): shard I of N, for a cluster. Each\n"
"                      shard writes its own CSV; `gpuvm sweep merge` joins them\n"
"                      into the CSV one run would give. Not with --plot\n"
"\n"
"Merging: gpuvm sweep merge PART.csv... --csv OUT joins shard CSVs by column\n"
"name (rows in grid order by their point column); CSVs of different sweeps,\n"
"a point in two files or a missing point are refused and nothing is written.\n"
"\n"
"Output (written when the sweep ends; with --csv FILE, FILE.partial holds\n"
"the finished rows meanwhile and is removed once FILE is written):\n"
"  --csv FILE          one row per point: gpu, each varied key (and KEY_bytes for\n"
"                      sizes), then the metrics (sim_cycles, sim_seconds,\n"
"                      accesses_per_sim_second, ..., tlb_l1_hits, tlb_l1_hit_ratio, ...),\n"
"                      then workload, seed, point (0-based grid index) and error\n"
"                      (empty, or why the point failed)\n"
"  --json FILE         a JSON array of the per-point results, each with a \"point\"\n"
"                      object naming its gpu, workload, seed and varied values\n"
"  --plot FILE         a figure (.png, .svg or .pdf) drawn with gnuplot; without\n"
"                      gnuplot on PATH a note is printed and the CSV has the data\n"
"  --x KEY             x axis of the figure: a varied key or gpu (default: the\n"
"                      first --vary; log2 scale when its values are sizes)\n"
"  --y METRIC          y axis: any CSV metric column (default accesses_per_sim_second)\n"
"  --logx, --logy      log scale on that axis\n"
"  --title TEXT        figure title (default: the workload spec)\n"
"  One line is drawn per GPU and per value of every other varied key.\n"
"\n"
"Exit status: 0 success, 1 a point failed (its row says why) or an output could\n"
"not be written, 2 bad input (nothing is written).\n"
"\n"
"Examples:\n"
"  gpuvm sweep --gpu p100,k80 --workload random-sampling \\\n"
"      --vary workload.region=32MiB..16GiB*2 -j 4 --csv fig1.csv --plot fig1.png\n"
"  gpuvm sweep --gpu p100 --workload hash-groupby:groups=1000000 \\\n"
"      --vary tlb.l2.entries=32,64,128 --vary workload.region=1GiB,4GiB --csv out.csv\n"
"  for i in 0 1 2 3; do gpuvm sweep --shard $i/4 ... --csv part$i.csv; done\n"
"  gpuvm sweep merge part*.csv --csv all.csv\n"
"  mpirun -n 8 gpuvm sweep --mpi --gpu p100 --workload bfs:mem=managed \\\n"
"      --vary uvm.oversub_percent=110,125,150 --csv out.csv\n"
"  (OpenMPI as root needs --allow-run-as-root; more ranks than cores need\n"
"  --oversubscribe: mpirun --allow-run-as-root --oversubscribe -n 4 ...)\n",
	      f);
}

/* ---- outputs ----------------------------------------------------------- */

enum { OUT_CSV, OUT_JSON, OUT_PLOT, N_OUT };
static const char *const out_names[N_OUT] = {"--csv", "--json", "--plot"};

/* ---- arguments -------------------------------------------------------- */

struct args {
	struct sweep s;
	char *gpu_list;
	bool help;
};

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error: message, pointer to --help, exit status 2. */
static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("gpuvm sweep: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(" (see gpuvm sweep --help)\n", stderr);
	va_end(ap);
	return 2;
}

/* --shard I/N */
static int parse_shard(struct sweep *s, const char *val)
{
	const char *slash = strchr(val, '/');
	char ibuf[32];
	uint64_t si, sn;
	if (!slash || (size_t)(slash - val) >= sizeof ibuf)
		return bad("--shard '%s': expected I/N, e.g. 0/4 (shard I of N, 0-based)",
			   val);
	snprintf(ibuf, sizeof ibuf, "%.*s", (int)(slash - val), val);
	if (gpuvm_parse_u64(ibuf, &si) != 0 || gpuvm_parse_u64(slash + 1, &sn) != 0)
		return bad("--shard '%s': expected I/N with unsigned integers, e.g. 0/4",
			   val);
	if (sn == 0 || sn > SWEEP_MAX_POINTS)
		return bad("--shard '%s': N must be between 1 and %d", val,
			   SWEEP_MAX_POINTS);
	if (si >= sn)
		return bad("--shard '%s': I must be below N (shards are 0/%llu to "
			   "%llu/%llu)", val, (unsigned long long)sn,
			   (unsigned long long)sn - 1, (unsigned long long)sn);
	s->shard_i = (size_t)si;
	s->shard_n = (size_t)sn;
	return 0;
}

/* A valued option, by the name the messages use (opt): 0, or bad()'s 2. */
static int parse_value(struct args *a, const char *opt, const char *val)
{
	struct sweep *s = &a->s;
	if (!strcmp(opt, "--gpu")) {
		if (a->gpu_list)
			return bad("--gpu given twice (list the GPUs comma-separated)");
		a->gpu_list = strdup(val);
	} else if (!strcmp(opt, "--system")) {
		s->system = val;
	} else if (!strcmp(opt, "--workload")) {
		if (s->workload)
			return bad("--workload given twice");
		s->workload = val;
	} else if (!strcmp(opt, "--vary")) {
		if (s->n_vary >= SWEEP_MAX_VARY)
			return bad("too many --vary (at most %d)", SWEEP_MAX_VARY);
		struct gpuvm_error err = {{0}};
		if (sweep_vary_parse(&s->vary[s->n_vary++], val, &err) != 0)
			return bad("%s", err.msg);
	} else if (!strcmp(opt, "--set")) {
		if (s->n_sets >= GPUVM_MAX_SETS)
			return bad("too many --set (at most %d)", GPUVM_MAX_SETS);
		if (!strchr(val, '=') || val[0] == '=')
			return bad("--set '%s': expected KEY=VALUE", val);
		s->sets[s->n_sets++] = val;
	} else if (!strcmp(opt, "--oversub")) {
		double pct;
		if (gpuvm_parse_double(val, &pct) != 0 || !(pct > 0))
			return bad("--oversub '%s': expected a percentage such as 125", val);
		if (s->n_sets >= GPUVM_MAX_SETS)
			return bad("too many --set (at most %d)", GPUVM_MAX_SETS);
		/* the whole text, however long (a 64-byte buffer cut a
		 * 47-digit spelling of 125 to 1.25) */
		if (!(s->sets[s->n_sets++] = gpuvm_cli_format("uvm.oversub_percent=%s", val)))
			return bad("out of memory");
	} else if (!strcmp(opt, "--seed")) {
		if (gpuvm_parse_u64(val, &s->seed) != 0)
			return bad("--seed '%s': expected an unsigned integer", val);
	} else if (!strcmp(opt, "-j")) {
		uint64_t j;
		if (gpuvm_parse_u64(val, &j) != 0 || j > 4096)
			return bad("%s '%s': expected a number of jobs (0 = one per CPU)",
				   opt, val);
		if (j == 0) {
			long n = sysconf(_SC_NPROCESSORS_ONLN);
			j = n > 0 ? (uint64_t)n : 1;
		}
		s->jobs = (long)j;
	} else if (!strcmp(opt, "--threads")) {
		if (gpuvm_parse_threads(val, &s->threads))
			return bad("--threads '%s': expected a thread count from 1 to %d", val,
				   GPUVM_MAX_THREADS);
	} else if (!strcmp(opt, "--csv")) {
		s->csv = val;
	} else if (!strcmp(opt, "--json")) {
		s->json = val;
	} else if (!strcmp(opt, "--plot")) {
		s->plot = val;
	} else if (!strcmp(opt, "--x")) {
		s->x = val;
	} else if (!strcmp(opt, "--y")) {
		s->y = val;
	} else if (!strcmp(opt, "--title")) {
		s->title = val;
	} else if (!strcmp(opt, "--cache")) {
		if (!*val)
			return bad("--cache: empty directory name");
		s->cache = val;
	} else if (!strcmp(opt, "--shard")) {
		return parse_shard(s, val);
	}
	return 0;
}

/* The getopt loop and the claim of every output option's files: 0, or
 * the exit status (bad()'s 2). */
static int parse_options(int argc, char **argv, struct args *a)
{
	struct sweep *s = &a->s;
	enum { O_KS = 256, O_LOGX, O_LOGY, O_FORCE, O_KEEP, O_FAILFAST, O_RESUME, O_MPI, O_GPU,
	       O_WORKLOAD, O_VARY, O_SET, O_OVERSUB, O_SEED, O_CSV, O_JSON, O_PLOT, O_X, O_Y,
	       O_TITLE, O_SHARD, O_CACHE, O_THREADS, O_SYSTEM };
	static const struct option longopts[] = {
		{"kernel-sampling", optional_argument, 0, O_KS}, {"quiet", no_argument, 0, 'q'},
		{"logx", no_argument, 0, O_LOGX}, {"logy", no_argument, 0, O_LOGY},
		{"help", no_argument, 0, 'h'}, {"force", no_argument, 0, O_FORCE},
		{"keep-going", no_argument, 0, O_KEEP}, {"fail-fast", no_argument, 0, O_FAILFAST},
		{"resume", no_argument, 0, O_RESUME}, {"mpi", no_argument, 0, O_MPI},
		{"gpu", required_argument, 0, O_GPU}, {"workload", required_argument, 0, O_WORKLOAD},
		{"vary", required_argument, 0, O_VARY}, {"set", required_argument, 0, O_SET},
		{"oversub", required_argument, 0, O_OVERSUB}, {"seed", required_argument, 0, O_SEED},
		{"jobs", required_argument, 0, 'j'}, {"csv", required_argument, 0, O_CSV},
		{"json", required_argument, 0, O_JSON}, {"plot", required_argument, 0, O_PLOT},
		{"x", required_argument, 0, O_X}, {"y", required_argument, 0, O_Y},
		{"title", required_argument, 0, O_TITLE}, {"shard", required_argument, 0, O_SHARD},
		{"cache", required_argument, 0, O_CACHE}, {"threads", required_argument, 0, O_THREADS},
		{"system", required_argument, 0, O_SYSTEM}, {0, 0, 0, 0},
	};
	/* getopt_long as in the other commands: --opt=value, --opt value, -j4,
	 * -j 4, unique prefixes; the messages are ours (getopt_message.h) */
	static const char *const repeatable[] = {"vary", "set", NULL};
	/* every file a sweep writes: the CSV and its checkpoint (sweep_run.c),
	 * the JSON, the figure and its script, the cache's KEY.json files */
	static const char *const cache_files[] = {"????????????????.json", NULL};
	static const struct gpuvm_cli_output outputs[] = {
		{"csv", GPUVM_CLI_OUT_FILE, ".partial", "its checkpoint", 0, 0},
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"plot", GPUVM_CLI_OUT_FIGURE, 0, 0, 0, 0},
		{"cache", GPUVM_CLI_OUT_DIR, 0, 0, cache_files, 0},
		{0},
	};
	struct gpuvm_getopt go;
	gpuvm_getopt_init(&go, longopts, repeatable);
	gpuvm_getopt_outputs(&go, outputs);
	optind = 1;
	opterr = 0;
	int c;
	while ((c = gpuvm_getopt(&go, argc, argv, ":qhj:")) != -1) {
		const char *val = optarg;
		char opt[16];
		if (c == GPUVM_GETOPT_REPEATED)
			return bad("%s", go.why);
		if (c == '?' || c == ':')
			return bad("%s", go.why);
		snprintf(opt, sizeof opt, "%s", c == 'j' ? "-j" : "");
		if (c == O_KS) {
			s->kernel_sampling = true;
			if (val && (gpuvm_parse_double(val, &s->kernel_sampling_tolerance) != 0 ||
				    !(s->kernel_sampling_tolerance > 0 &&
				      s->kernel_sampling_tolerance < 1)))
				return bad("--kernel-sampling '%s': expected a tolerance between 0 and "
					   "1, e.g. 0.02", val);
			continue;
		}
		switch (c) {
		case 'q': s->quiet = true; continue;
		case O_LOGX: s->logx = true; continue;
		case O_LOGY: s->logy = true; continue;
		case O_FORCE: s->force = true, gpuvm_host_memory_set_bound(UINT64_MAX); continue;
		case O_KEEP: s->fail_fast = false; continue;
		case O_FAILFAST: s->fail_fast = true; continue;
		case O_RESUME: s->resume = true; continue;
		case O_MPI: s->mpi = true; continue;
		case 'h': a->help = true; continue;
		default: break;
		}
		/* the valued options, by the name the checks below use */
		static const struct { int code; const char *name; } names[] = {
			{O_GPU, "--gpu"}, {O_WORKLOAD, "--workload"}, {O_VARY, "--vary"},
			{O_SET, "--set"}, {O_OVERSUB, "--oversub"}, {O_SEED, "--seed"},
			{'j', "-j"}, {O_CSV, "--csv"}, {O_JSON, "--json"}, {O_PLOT, "--plot"},
			{O_X, "--x"}, {O_Y, "--y"}, {O_TITLE, "--title"}, {O_SHARD, "--shard"},
			{O_CACHE, "--cache"}, {O_THREADS, "--threads"}, {O_SYSTEM, "--system"},
		};
		for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
			if (names[k].code == c)
				snprintf(opt, sizeof opt, "%s", names[k].name);

		int rc = parse_value(a, opt, val);
		if (rc)
			return rc;
	}
	if (gpuvm_cli_claim_or_report(&go, "sweep"))
		return 2;
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	return 0;
}

/* The options taken together: the GPU list, the grid's size, the
 * outputs, the combinations refused. */
static int check_args(struct args *a)
{
	struct sweep *s = &a->s;
	/* as sim checks them, and a --set on a varied key (the vary's values
	 * would replace it at every point) refused */
	const char *vary_keys[SWEEP_MAX_VARY];
	for (size_t k = 0; k < s->n_vary; k++)
		vary_keys[k] = s->vary[k].key;
	char why[768];
	if (gpuvm_cli_check_sets(s->sets, s->n_sets, vary_keys, s->n_vary, why, sizeof why))
		return bad("%s", why);
	if (a->help)
		return 0;
	if (a->gpu_list && s->system)
		return bad("give --gpu or --system, not both");
	if (!a->gpu_list && !s->system)
		return bad("--gpu (or --system) is required (e.g. --gpu p100,k80)");
	if (!s->workload)
		return bad("--workload is required (e.g. --workload random-sampling)");
	if (s->system && !*s->system)
		return bad("--system: empty system name");
	/* one system: the grid's outer dimension of one value (its spec may
	 * hold commas: NAME:gpus=2,nvlink=off) */
	if (s->system)
		s->gpus[s->n_gpus++] = (char *)s->system;

	/* strtok would skip an empty name: "p100," or "p100,,k80" is a slip */
	size_t gl = s->system ? 1 : strlen(a->gpu_list);
	if (!s->system && (!gl || a->gpu_list[0] == ',' || a->gpu_list[gl - 1] == ',' || strstr(a->gpu_list, ",,")))
		return bad("--gpu '%s': empty GPU name in the list", a->gpu_list);
	for (char *save = NULL, *g = s->system ? NULL : strtok_r(a->gpu_list, ",", &save); g;
	     g = strtok_r(NULL, ",", &save)) {
		if (s->n_gpus >= SWEEP_MAX_GPUS)
			return bad("--gpu: too many GPUs (at most %d)", SWEEP_MAX_GPUS);
		s->gpus[s->n_gpus++] = g;
	}
	if (!s->n_gpus)
		return bad("--gpu '%s': no GPU named", a->gpu_list);
	for (size_t k = 0; k < s->n_vary && !s->system; k++)
		if (s->vary[k].kind == VARY_SYSTEM)
			return bad("--vary %s: a modifier of a system (NAME:gpus=N,nvlink=on|off): "
				   "it needs --system NAME", s->vary[k].key);

	s->n_points = s->n_gpus;
	for (size_t k = 0; k < s->n_vary; k++) {
		if (s->n_points > SWEEP_MAX_POINTS / s->vary[k].n)
			return bad("the grid has more than %d points", SWEEP_MAX_POINTS);
		s->n_points *= s->vary[k].n;
	}

	/* two outputs on one file were refused by their claims (parse_args) */
	const char *outs[N_OUT] = {s->csv, s->json, s->plot};
	for (int k = 0; k < N_OUT; k++)
		if (outs[k] && !*outs[k])
			return bad("%s: empty file name", out_names[k]);
	if (s->plot) {
		struct gpuvm_error err = {{0}};
		if (gpuvm_plot_check_path(s->plot, &err) != 0)
			return bad("%s", err.msg);
	}
	if (s->x && !sweep_has_dimension(s, s->x))
		return bad("--x '%s': not a varied key (nor gpu)", s->x);
	if (s->resume && (!s->csv || !strcmp(s->csv, "-")))
		return bad("--resume needs --csv FILE (the rows to keep are read from it)");
	if (s->resume && s->json)
		return bad("--resume with --json: the CSV holds the results to keep, not "
			   "the JSON's; run without --json, or without --resume");
	if (s->mpi && s->shard_n)
		return bad("--mpi with --shard: under MPI each rank is a shard already");
	if (s->mpi && s->resume)
		return bad("--resume with --mpi: resume a sweep without --mpi, or run it again");
	if (s->shard_n > 1 && s->plot)
		return bad("--plot with --shard: a shard has only part of the grid; merge "
			   "the CSVs (gpuvm sweep merge) and plot those");
	if ((s->x || s->y || s->title || s->logx || s->logy) && !s->plot)
		fprintf(stderr, "gpuvm sweep: note: --x, --y, --title, --logx and --logy only "
				"matter with --plot\n");
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	a->s.seed = 1;
	a->s.jobs = 1;
	int rc = parse_options(argc, argv, a);
	return rc ? rc : check_args(a);
}

/* ---- main ------------------------------------------------------------- */

static void free_args(struct args *a)
{
	for (size_t k = 0; k < a->s.n_vary; k++)
		sweep_vary_free(&a->s.vary[k]);
	if (a->s.results)
		for (size_t i = 0; i < a->s.n_points; i++)
			cJSON_Delete(a->s.results[i]);
	if (a->s.errors)
		for (size_t i = 0; i < a->s.n_points; i++)
			free(a->s.errors[i]);
	free(a->s.results);
	free(a->s.errors);
	free(a->s.cost);
	free(a->gpu_list);
}

/* Writes every output through the output module in one batch: all
 * outputs or none. */
static int write_outputs(struct sweep *s, bool plot, struct gpuvm_error *err)
{
	const char *outs[N_OUT] = {s->csv, s->json, plot ? s->plot : NULL};
	int rc = 0;
	gpuvm_output_batch_begin();
	for (int k = 0; k < N_OUT && !rc; k++) {
		if (!outs[k] || k == OUT_PLOT)
			continue;
		struct gpuvm_output o;
		if (gpuvm_output_open(&o, outs[k], err)) {
			rc = -1;
			break;
		}
		rc = k == OUT_CSV ? sweep_write_csv(s, o.f, err) : sweep_write_json(s, o.f, err);
		if (rc)
			gpuvm_output_cancel(&o);
		else
			rc = gpuvm_output_close(&o, err);
	}
	if (!rc && plot)
		rc = sweep_write_plot(s, s->plot, err);
	if (!rc)
		rc = gpuvm_output_batch_commit(err);
	if (rc)
		gpuvm_output_batch_abort();
	return rc;
}

/* Fails early on an output that cannot be created (missing directory...). */
static int probe_outputs(const struct sweep *s, bool plot)
{
	const char *outs[N_OUT] = {s->csv, s->json, plot ? s->plot : NULL};
	for (int k = 0; k < N_OUT; k++) {
		struct gpuvm_error err;
		if (outs[k] && gpuvm_output_check(outs[k], out_names[k], k != OUT_PLOT, &err)) {
			fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
			return -1;
		}
	}
	return 0;
}

/* "-" for --csv or --json: stdout carries that output alone. */
static bool stdout_taken(const struct sweep *s)
{
	return (s->csv && !strcmp(s->csv, "-")) || (s->json && !strcmp(s->json, "-"));
}

static int sweep_main(struct args *a)
{
	struct sweep *s = &a->s;
	struct gpuvm_error err = {{0}};
	s->results = calloc(s->n_points, sizeof *s->results);
	s->errors = calloc(s->n_points, sizeof *s->errors);
	s->cost = calloc(s->n_points, sizeof *s->cost);
	if (!s->results || !s->errors || !s->cost) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	bool ok = sweep_validate(s, &err) == 0;
	if (!ok && !s->silent)
		fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
	/* under MPI every rank stops when one does (rank 0's outputs below) */
	if (s->mpi && !ok)
		sweep_mpi_agree(false);
	if (!ok)
		return 2;
	bool plot = s->plot != NULL;
	if (plot && !gpuvm_plot_available()) {
		fprintf(stderr, "gpuvm sweep: note: gnuplot is not on PATH, so no figure is drawn "
				"(%s)%s\n", s->plot,
			s->csv ? "; the CSV holds the data" : "; use --csv to keep the data");
		plot = false;
	}
	ok = probe_outputs(s, plot) == 0;
	if (ok && s->cache && sweep_cache_check(s, &err) != 0) {
		fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
		ok = false;
	}
	if (s->mpi && !sweep_mpi_agree(ok))
		return 2;
	if (!ok)
		return 2;
	if (s->resume) {
		size_t loaded;
		if (sweep_resume_load(s, s->csv, &loaded, &err) != 0) {
			fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
			return 2;
		}
		/* a resumed row stands; a rejection at validation does not
		 * apply to it (it ran before), so it is not reported twice */
		for (size_t i = 0; i < s->n_points; i++)
			if (s->results[i] && s->errors[i]) {
				free(s->errors[i]);
				s->errors[i] = NULL;
			}
		if (!s->quiet)
			fprintf(stderr, "gpuvm sweep: --resume: %zu point%s kept from %s\n", loaded,
				loaded == 1 ? "" : "s", s->csv);
	}
	for (size_t i = 0; i < s->n_points; i++)
		if (s->errors[i]) {
			char label[512];
			sweep_point_label(s, i, label, sizeof label);
			fprintf(stderr, "gpuvm sweep: point %zu of %zu (%s) failed: %s\n", i + 1,
				s->n_points, label, s->errors[i]);
		}

	/* --cache: points run before come from DIR; what is present now
	 * (resumed rows, cached results) is not written back */
	bool *known = NULL;
	if (s->cache) {
		known = calloc(s->n_points ? s->n_points : 1, sizeof *known);
		if (!known) {
			fprintf(stderr, "gpuvm sweep: out of memory\n");
			exit(1);
		}
		size_t selected = 0;
		for (size_t i = 0; i < s->n_points; i++) {
			known[i] = s->results[i] != NULL;
			selected += sweep_selected(s, i);
		}
		size_t hits = sweep_cache_load(s, known);
		if (!s->quiet)
			fprintf(stderr, "gpuvm sweep: --cache: %zu of %zu point%s from %s\n", hits,
				selected, selected == 1 ? "" : "s", s->cache);
	}
	size_t failed;
	int rc = sweep_run_all(s, &failed, &err);
	if (known) {
		sweep_cache_store(s, known);
		free(known);
	}
	if (s->mpi) {
		/* rank 0 gets every rank's points (and the first failure) */
		if (sweep_mpi_gather(s, &rc, &failed, &err) != 0)
			fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
		if (s->silent)
			return 0; /* rank 0 reports; the exit status is its */
	}
	if (rc != 0 && failed != SIZE_MAX) {
		char label[512];
		sweep_point_label(s, failed, label, sizeof label);
		fprintf(stderr, "%sgpuvm sweep: point %zu of %zu (%s): %s\n",
			isatty(STDERR_FILENO) && !s->quiet ? "\r\033[K" : "", failed + 1,
			s->n_points, label, err.msg);
	} else if (rc != 0) {
		fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
	} else {
		size_t n_failed = 0, n_run = 0;
		for (size_t i = 0; i < s->n_points; i++) {
			if (!sweep_selected(s, i))
				continue;
			n_run++;
			if (s->results[i])
				sweep_annotate(s, i, s->results[i]);
			else
				n_failed++;
		}
		if (write_outputs(s, plot, &err) != 0) {
			rc = 1;
			fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
			sweep_checkpoint_explain(s);
		} else {
			sweep_checkpoint_remove(s);
			if (!s->quiet && !stdout_taken(s))
				sweep_print_table(s, stdout);
		}
		if (n_failed) {
			fprintf(stderr, "gpuvm sweep: %zu of %zu point%s failed%s%s%s\n", n_failed,
				n_run, n_run == 1 ? "" : "s",
				s->csv || s->json ? " (their rows carry the error: " : "",
				s->csv ? s->csv : s->json ? s->json : "",
				s->csv || s->json ? ")" : "");
			rc = 1;
		}
	}
	return rc;
}

int gpuvm_cmd_sweep(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "merge") == 0)
		return sweep_merge_main(argc - 1, argv + 1);
	struct args a;
	memset(&a, 0, sizeof a);
	int rc = parse_args(argc, argv, &a);
	if (rc == 0 && a.help) {
		usage(stdout);
	} else if (rc == 0 && a.s.mpi) {
		struct gpuvm_error err = {{0}};
		size_t rank, size;
		if (sweep_mpi_init(NULL, NULL, &rank, &size, &err) != 0) {
			fprintf(stderr, "gpuvm sweep: %s\n", err.msg);
			rc = 2;
		} else {
			a.s.shard_i = rank;
			a.s.shard_n = size;
			if (rank != 0) {
				/* rank 0 writes and prints; the others run their points */
				a.s.csv = a.s.json = a.s.plot = NULL;
				a.s.quiet = a.s.silent = true;
			}
			rc = sweep_main(&a);
			fflush(stdout);
			rc = sweep_mpi_status(rank == 0 ? rc : 0);
		}
		sweep_mpi_finalize();
	} else if (rc == 0) {
		rc = sweep_main(&a);
	}
	free_args(&a);
	fflush(stdout);
	return rc;
}
