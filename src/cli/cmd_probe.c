/* gpuvm probe: Karnagel's TLB property and sharing benchmarks against the
 * simulator, the host CPU or timings recorded on a GPU. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/output_file.h"
#include "gpuvm/plot.h"
#include "gpuvm/probe.h"
#include "gpuvm/report.h"
#include "gpuvm/units.h"

#define MAX_SETS 64
#define MAX_INPUTS 64

static void probe_usage(FILE *out)
{
	fputs("usage: gpuvm probe --target sim:PRESET|cpu|cpu:huge|cuda [options]\n"
	      "\n"
	      "Measures a TLB hierarchy the way Karnagel et al. (DaMoN'17, section 3) did on\n"
	      "real GPUs, and recovers each level's entries, entry size, miss cost and which\n"
	      "SMs share it:\n"
	      "  property benchmark  one thread chases dependent pointers `hops` times at a\n"
	      "                      stride (traversed size = hops x stride), a warm-up pass\n"
	      "                      then a timed pass; latency per hop over a grid of strides\n"
	      "                      (2 KiB .. 128 MiB) x sizes. A level shows as a step at its\n"
	      "                      reach; stride X = entry size gives a full step at size a,\n"
	      "                      X/2 a half-high step at a, 2X a full step at 2a (Fig. 2).\n"
	      "  sharing benchmark   per level: fill it from SM i, disrupt from SM k with other\n"
	      "                      pages, re-measure on SM i; slower = i and k share it.\n"
	      "\n"
	      "targets:\n"
	      "  sim:PRESET   the simulator with a shipped preset or an .ini file (cycles);\n"
	      "               --set key=value overrides keys as for `gpuvm sim`\n"
	      "  cpu          this machine's CPU, 4 KiB pages (ns); prints what CPUID says\n"
	      "  cpu:huge     the same over 2 MiB pages (MADV_HUGEPAGE, else MAP_HUGETLB)\n"
	      "  cuda         analyse timings recorded on an NVIDIA GPU by cuda/tlb_probe.cu\n"
	      "               (--input FILE, repeatable). gpuvm itself never runs on a GPU:\n"
	      "               build and run the recorder where there is one (see the top of\n"
	      "               cuda/tlb_probe.cu), then analyse its CSV here.\n"
	      "\n"
	      "options:\n"
	      "  --csv DIR            write DIR/curves.csv (stride, size, hops, latency),\n"
	      "                       DIR/sharing.csv (level, SM pair, latency, shared) and\n"
	      "                       DIR/levels.csv (the summary table)\n"
	      "  --plot DIR           write DIR/latency.png (latency vs size, one line per\n"
	      "                       stride), DIR/levelN.png (X/2, X, 2X around level N) and\n"
	      "                       DIR/sharing_lN.png (heatmap of the sharing matrix)\n"
	      "  --emit-preset FILE   write a GPU preset with the probed TLB levels that\n"
	      "                       `gpuvm sim --gpu FILE` loads; other keys come from the\n"
	      "                       probed preset (sim) or the built-in defaults (cpu, cuda)\n"
	      "  --json FILE          the result as JSON (levels, sharing groups, notes)\n"
	      "  --sharing MODE       full (every SM pair), groups (one row per sharing group,\n"
	      "                       exact when sharing is a partition), off; default: full\n"
	      "                       up to 64 SMs, else groups\n"
	      "  --max-hops N         longest chase (default 12288; also capped at half the\n"
	      "                       data cache's lines, so every step is a TLB step)\n"
	      "  --strides MIN..MAX   stride range, powers of two (default 2KiB..128MiB for\n"
	      "                       sim; 1KiB..16KiB for cpu, 512KiB..8MiB for cpu:huge)\n"
	      "  --no-refine          skip bisecting each knee to one hop\n"
	      "  --quiet              print nothing on success\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm probe --target sim:p100 --csv out/p100 --plot out/p100\n"
	      "  gpuvm probe --target sim:k80 --emit-preset k80-probed.ini\n"
	      "  gpuvm probe --target sim:p100 --set tlb.l2.entries=128 --sharing off\n"
	      "  gpuvm probe --target cpu --json cpu.json\n"
	      "  gpuvm probe --target cuda --input a100-chase.csv --input a100-share.csv\n"
	      "\n"
	      "exit status: 0 ok, 1 measurement or output failure, 2 bad input; no output\n"
	      "file is written on failure.\n",
	      out);
}

static int parse_strides(const char *s, uint64_t *lo, uint64_t *hi)
{
	const char *dots = strstr(s, "..");
	if (!dots)
		return -1;
	char a[64];
	if ((size_t)(dots - s) >= sizeof a)
		return -1;
	memcpy(a, s, (size_t)(dots - s));
	a[dots - s] = 0;
	if (gpuvm_parse_size(a, lo) || gpuvm_parse_size(dots + 2, hi))
		return -1;
	return gpuvm_is_pow2(*lo) && gpuvm_is_pow2(*hi) && *lo <= *hi && *lo >= 64 ? 0 : -1;
}

static int write_in(const char *dir, const char *name, char *text, struct gpuvm_error *err)
{
	if (!text)
		return gpuvm_fail(err, "probe", 0, NULL, "out of memory");
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int rc = gpuvm_output_write_text(path, text, err);
	free(text);
	return rc;
}

static char *levels_csv(const struct gpuvm_probe_result *r)
{
	size_t cap = 256 + 256 * (size_t)r->levels;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	size_t n = (size_t)snprintf(s, cap,
				    "target,level,entries,entry_bytes,reach_bytes,miss_cost_%s,"
				    "half_step_seen,sharing_groups\n", r->unit);
	for (uint32_t l = 0; l < r->levels; l++) {
		const struct gpuvm_probe_level *lv = &r->level[l];
		n += (size_t)snprintf(s + n, cap - n, "%s,%u,%u,%llu,%llu,%.4f,%d,%d\n", r->target, l + 1,
				      lv->entries, (unsigned long long)lv->entry_bytes,
				      (unsigned long long)lv->reach_bytes, lv->miss_cost,
				      lv->half_step_seen, lv->sharing_measured ? (int)lv->groups : -1);
	}
	return s;
}

/* Latency vs traversed size for the given strides (all when n_only == 0). */
static int plot_curves(const struct gpuvm_probe_result *r, const char *path, const char *title,
		       const uint64_t *only, size_t n_only, struct gpuvm_error *err)
{
	size_t max_series = 64;
	struct gpuvm_plot_series series[64];
	char names[64][48];
	double *xs = malloc((r->n_points + 1) * sizeof *xs), *ys = malloc((r->n_points + 1) * sizeof *ys);
	if (!xs || !ys) {
		free(xs);
		free(ys);
		return gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	}
	size_t ns = 0;
	for (size_t i = 0; i < r->n_points && ns < max_series;) {
		size_t j = i;
		uint64_t s = r->points[i].stride_bytes;
		while (j < r->n_points && r->points[j].stride_bytes == s)
			j++;
		bool want = n_only == 0;
		for (size_t k = 0; k < n_only; k++)
			want |= only[k] == s;
		if (want) {
			for (size_t k = i; k < j; k++) {
				xs[k] = (double)(r->points[k].stride_bytes * r->points[k].hops);
				ys[k] = r->points[k].latency;
			}
			char sz[32];
			gpuvm_format_size(s, sz, sizeof sz);
			snprintf(names[ns], sizeof names[ns], "stride %s", sz);
			series[ns] = (struct gpuvm_plot_series){
				.name = names[ns], .x = xs + i, .y = ys + i, .n = j - i};
			ns++;
		}
		i = j;
	}
	char ylabel[64];
	snprintf(ylabel, sizeof ylabel, "latency per hop (%s)", r->unit);
	struct gpuvm_plot_opts o = {.title = title, .xlabel = "traversed size", .ylabel = ylabel,
				    .logx = true, .x_bytes = true, .width = 1100, .height = 650};
	int rc = ns ? gpuvm_plot_lines_opts(path, &o, series, ns, err) : 0;
	free(xs);
	free(ys);
	return rc;
}

static int plot_sharing(const struct gpuvm_probe_result *r, uint32_t l, const char *path,
			struct gpuvm_error *err)
{
	const struct gpuvm_probe_level *lv = &r->level[l];
	uint32_t n = r->sms;
	double *z = malloc((size_t)n * n * sizeof *z), *base = malloc(n * sizeof *base);
	if (!z || !base) {
		free(z);
		free(base);
		return gpuvm_fail(err, "--plot", 0, NULL, "out of memory");
	}
	for (size_t i = 0; i < (size_t)n * n; i++)
		z[i] = NAN;
	for (uint32_t i = 0; i < n; i++)
		base[i] = NAN;
	for (size_t c = 0; c < r->n_cells; c++) {
		const struct gpuvm_probe_share_cell *cell = &r->cells[c];
		if (cell->stride_bytes == lv->share_stride_bytes && cell->hops == lv->share_hops &&
		    cell->sm_disrupt == GPUVM_PROBE_NO_SM && cell->sm_fill < n)
			base[cell->sm_fill] = cell->latency;
	}
	for (size_t c = 0; c < r->n_cells; c++) {
		const struct gpuvm_probe_share_cell *cell = &r->cells[c];
		if (cell->stride_bytes == lv->share_stride_bytes && cell->hops == lv->share_hops &&
		    cell->sm_disrupt < n && cell->sm_fill < n)
			z[(size_t)cell->sm_fill * n + cell->sm_disrupt] = cell->latency - base[cell->sm_fill];
	}
	char title[400], cb[64];
	snprintf(title, sizeof title,
		 "L%u TLB sharing, %s: row = filling SM i, column = disrupting SM k (%u groups; grey = not measured)",
		 l + 1, r->target, lv->groups);
	snprintf(cb, sizeof cb, "slowdown of the measure stage (%s)", r->unit);
	struct gpuvm_plot_opts o = {.title = title, .xlabel = "disrupting SM k",
				    .ylabel = "filling and measuring SM i", .width = 900, .height = 800};
	int rc = gpuvm_plot_heatmap(path, &o, z, n, n, cb, err);
	free(z);
	free(base);
	return rc;
}

static int write_plots(const struct gpuvm_probe_result *r, const char *dir, struct gpuvm_error *err)
{
	char path[4096], title[512];
	snprintf(path, sizeof path, "%s/latency.png", dir);
	snprintf(title, sizeof title, "TLB property benchmark, %s", r->target);
	if (plot_curves(r, path, title, NULL, 0, err))
		return -1;
	for (uint32_t l = 0; l < r->levels; l++) {
		const struct gpuvm_probe_level *lv = &r->level[l];
		uint64_t only[3] = {lv->entry_bytes / 2, lv->entry_bytes, lv->entry_bytes * 2};
		char es[32];
		gpuvm_format_size(lv->entry_bytes, es, sizeof es);
		snprintf(path, sizeof path, "%s/level%u.png", dir, l + 1);
		snprintf(title, sizeof title, "L%u TLB of %s: X = %s, %u entries (strides X/2, X, 2X)",
			 l + 1, r->target, es, lv->entries);
		if (plot_curves(r, path, title, only, 3, err))
			return -1;
		if (lv->sharing_measured) {
			snprintf(path, sizeof path, "%s/sharing_l%u.png", dir, l + 1);
			if (plot_sharing(r, l, path, err))
				return -1;
		}
	}
	return 0;
}

/* What the command line asked for. */
struct probe_args {
	const char *target, *csv_dir, *plot_dir, *emit, *json;
	const char *sets[MAX_SETS], *inputs[MAX_INPUTS];
	size_t n_sets, n_inputs;
	int quiet;
	struct gpuvm_probe_plan plan;
};

/* Parses argv into a; returns -1 to go on, else the exit status (0 after
 * --help, 2 with the message printed). */
static int parse_probe_args(int argc, char **argv, struct probe_args *a)
{
	static const struct option opts[] = {
		{"target", required_argument, 0, 't'},  {"set", required_argument, 0, 's'},
		{"input", required_argument, 0, 'i'},   {"csv", required_argument, 0, 'c'},
		{"plot", required_argument, 0, 'p'},    {"emit-preset", required_argument, 0, 'e'},
		{"json", required_argument, 0, 'j'},    {"sharing", required_argument, 0, 'S'},
		{"max-hops", required_argument, 0, 'm'}, {"strides", required_argument, 0, 'r'},
		{"no-refine", no_argument, 0, 'n'},     {"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
	};
	int c;
	gpuvm_probe_plan_defaults(&a->plan);
	optind = 1;
	static const char *const repeatable[] = {"set", "input", NULL};
	struct gpuvm_getopt go;
	/* --csv DIR and --plot DIR: the files probe writes in them */
	static const char *const csv_files[] = {"curves.csv", "sharing.csv", "levels.csv", NULL};
	static const char *const plot_files[] = {"latency.png", "latency.gp", "level*.png",
						 "level*.gp", "sharing_l*.png", "sharing_l*.gp",
						 NULL};
	static const struct gpuvm_cli_output outputs[] = {
		{"csv", GPUVM_CLI_OUT_DIR, 0, 0, csv_files, 0},
		{"plot", GPUVM_CLI_OUT_DIR, 0, 0, plot_files, 0},
		{"emit-preset", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{"json", GPUVM_CLI_OUT_FILE, 0, 0, 0, 0},
		{0},
	};
	gpuvm_getopt_init(&go, opts, repeatable);
	gpuvm_getopt_outputs(&go, outputs);
	while ((c = gpuvm_getopt(&go, argc, argv, "q")) != -1) {
		if (c == GPUVM_GETOPT_REPEATED) {
			fprintf(stderr, "gpuvm probe: %s\n", go.why);
			return 2;
		}
		switch (c) {
		case 't': a->target = optarg; break;
		case 's':
			if (a->n_sets == MAX_SETS) {
				fprintf(stderr, "gpuvm probe: at most %d --set options\n", MAX_SETS);
				return 2;
			}
			a->sets[a->n_sets++] = optarg;
			break;
		case 'i':
			if (a->n_inputs == MAX_INPUTS) {
				fprintf(stderr, "gpuvm probe: at most %d --input files\n", MAX_INPUTS);
				return 2;
			}
			a->inputs[a->n_inputs++] = optarg;
			break;
		case 'c': a->csv_dir = optarg; break;
		case 'p': a->plot_dir = optarg; break;
		case 'e': a->emit = optarg; break;
		case 'j': a->json = optarg; break;
		case 'S':
			if (!strcmp(optarg, "full"))
				a->plan.sharing = GPUVM_PROBE_SHARING_FULL;
			else if (!strcmp(optarg, "groups"))
				a->plan.sharing = GPUVM_PROBE_SHARING_GROUPS;
			else if (!strcmp(optarg, "off"))
				a->plan.sharing = GPUVM_PROBE_SHARING_OFF;
			else {
				fprintf(stderr, "gpuvm probe: --sharing: '%s' is not full, groups or off\n", optarg);
				return 2;
			}
			break;
		case 'm': {
			uint64_t v;
			if (gpuvm_parse_u64(optarg, &v) || v < 8 || v > (1u << 24)) {
				fprintf(stderr, "gpuvm probe: --max-hops: '%s' is not an integer in 8..16777216\n", optarg);
				return 2;
			}
			a->plan.max_hops = (uint32_t)v;
			break;
		}
		case 'r':
			if (parse_strides(optarg, &a->plan.min_stride_bytes, &a->plan.max_stride_bytes)) {
				fprintf(stderr, "gpuvm probe: --strides: '%s' is not MIN..MAX, powers of two >= 64 "
					"(e.g. 2KiB..128MiB)\n", optarg);
				return 2;
			}
			break;
		case 'n': a->plan.refine = false; break;
		case 'q': a->quiet = 1; break;
		case 'h': probe_usage(stdout); return 0;
		default:
			fprintf(stderr, "gpuvm probe: %s (see gpuvm probe --help)\n", go.why);
			return 2;
		}
	}
	if (gpuvm_cli_claim_or_report(&go, "probe"))
		return 2;
	if (optind < argc) {
		fprintf(stderr, "gpuvm probe: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!a->target) {
		fprintf(stderr, "gpuvm probe: --target is required\n\n");
		probe_usage(stderr);
		return 2;
	}
	a->plan.progress = isatty(2) && !a->quiet;
	/* one key twice is a slip, as in sim (case-insensitive, as config keys) */
	char sets_why[768];
	if (gpuvm_cli_check_sets(a->sets, (int)a->n_sets, NULL, 0, sets_why, sizeof sets_why)) {
		fprintf(stderr, "gpuvm probe: %s\n", sets_why);
		return 2;
	}
	return -1;
}

/* The backend of a->target (and cfg: the preset of a sim target, else the
 * defaults). 0; 1 with the message printed; -1 with err set. */
static int open_backend(const struct probe_args *a, struct gpuvm_config *cfg,
			struct gpuvm_probe_backend *b, struct gpuvm_error *err)
{
	const char *target = a->target;
	bool is_sim = !strncmp(target, "sim:", 4);
	if (a->n_sets && !is_sim) {
		fprintf(stderr, "gpuvm probe: --set applies to sim targets only\n");
		return 1;
	}
	if (a->n_inputs && strcmp(target, "cuda")) {
		fprintf(stderr, "gpuvm probe: --input applies to --target cuda only\n");
		return 1;
	}
	if (is_sim) {
		if (!target[4]) {
			fprintf(stderr, "gpuvm probe: --target sim:PRESET needs a preset name or .ini file\n");
			return 1;
		}
		if (gpuvm_config_load(cfg, target + 4, err))
			return -1;
		for (size_t i = 0; i < a->n_sets; i++)
			if (gpuvm_config_set(cfg, a->sets[i], "--set", err))
				return -1;
		if (gpuvm_config_finalize(cfg, err) || gpuvm_probe_backend_sim(b, cfg, err))
			return -1;
	} else if (!strcmp(target, "cpu") || !strcmp(target, "cpu:huge")) {
		if (gpuvm_probe_backend_cpu(b, !strcmp(target, "cpu:huge"), err))
			return -1;
	} else if (!strcmp(target, "cuda")) {
		if (!a->n_inputs) {
			fprintf(stderr, "gpuvm probe: --target cuda needs --input FILE: there is no GPU here; "
				"record timings with cuda/tlb_probe.cu on one (see --help)\n");
			return 1;
		}
		if (gpuvm_probe_backend_recorded(b, a->inputs, a->n_inputs, err))
			return -1;
	} else {
		fprintf(stderr, "gpuvm probe: --target: '%s' is not sim:PRESET, cpu, cpu:huge or cuda\n", target);
		return 1;
	}
	if (!is_sim) {
		gpuvm_config_defaults(cfg);
		snprintf(cfg->name, sizeof cfg->name, "defaults");
	}
	return 0;
}

/* Every output directory must be writable before anything is measured or
 * written: a failing --plot must not follow a written --csv. 0; 1 with
 * the message printed; -1 with err set. */
static int check_outputs(const struct probe_args *a, struct gpuvm_error *err)
{
	if (a->plot_dir && !gpuvm_plot_available()) {
		fprintf(stderr, "gpuvm probe: --plot: gnuplot not found on PATH\n");
		return 1;
	}
	if (a->plot_dir) {
		char probe_path[4096];
		snprintf(probe_path, sizeof probe_path, "%s/latency.png", a->plot_dir);
		/* gpuvm_output_mkdir also checks the directory is writable */
		if (gpuvm_output_mkdir(a->plot_dir, err) || gpuvm_plot_check_path(probe_path, err)) {
			fprintf(stderr, "gpuvm probe: --plot %s: %s\n", a->plot_dir, err->msg);
			return 1;
		}
	}
	if (a->csv_dir && gpuvm_output_mkdir(a->csv_dir, err)) {
		fprintf(stderr, "gpuvm probe: --csv %s: %s\n", a->csv_dir, err->msg);
		return 1;
	}
	if ((a->json && gpuvm_output_check(a->json, "--json", true, err)) ||
	    (a->emit && gpuvm_output_check(a->emit, "--emit-preset", true, err)))
		return -1;
	return 0;
}

/* All outputs or none: staged, then published together. Figures first:
 * gnuplot is the step most likely to fail. 0, or -1 with err set (empty:
 * out of memory). */
static int write_outputs(const struct probe_args *a, const struct gpuvm_probe_result *res,
			 const char *preset_text, struct gpuvm_error *err)
{
	gpuvm_output_batch_begin();
	if (a->plot_dir && write_plots(res, a->plot_dir, err))
		return -1;
	if (a->csv_dir && (write_in(a->csv_dir, "curves.csv", gpuvm_probe_curves_csv(res), err) ||
			   write_in(a->csv_dir, "sharing.csv", gpuvm_probe_sharing_csv(res), err) ||
			   write_in(a->csv_dir, "levels.csv", levels_csv(res), err)))
		return -1;
	if (a->json) {
		cJSON *o = gpuvm_probe_result_json(res);
		char *text = o ? cJSON_Print(o) : NULL;
		cJSON_Delete(o);
		if (!text || gpuvm_output_write_text(a->json, text, err)) {
			free(text);
			return -1;
		}
		free(text);
	}
	if (a->emit && gpuvm_output_write_text(a->emit, preset_text, err))
		return -1;
	return gpuvm_output_batch_commit(err);
}

int gpuvm_cmd_probe(int argc, char **argv)
{
	struct probe_args a = {0};
	int rc = parse_probe_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	struct gpuvm_error err = {{0}};
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	struct gpuvm_probe_backend b = {0};
	struct gpuvm_probe_result res = {0};
	bool is_sim = !strncmp(a.target, "sim:", 4);
	rc = 2;
	if (!cfg) {
		fprintf(stderr, "gpuvm probe: out of memory\n");
		return 1;
	}
	int got = open_backend(&a, cfg, &b, &err);
	if (!got)
		got = check_outputs(&a, &err);
	if (got > 0)
		goto out;
	if (got < 0)
		goto bad;

	rc = 1;
	if (gpuvm_probe_run(&b, &a.plan, &res, &err)) {
		fprintf(stderr, "gpuvm probe: %s\n", err.msg);
		goto out;
	}
	if (!is_sim && res.sms) {
		/* A recorded GPU: as many SMs as the sharing benchmark saw. */
		cfg->sms = res.sms;
		cfg->gpcs = res.sms;
		cfg->tpcs_per_gpc = 1;
		cfg->sms_per_tpc = 1;
		cfg->disabled_sms_len = 0;
	}
	char *preset_text = NULL;
	if (a.emit) {
		if (!is_sim && gpuvm_config_finalize(cfg, &err))
			goto fail;
		if (gpuvm_probe_emit_preset(&res, cfg, &preset_text, &err))
			goto fail;
	}
	int w = write_outputs(&a, &res, preset_text, &err);
	free(preset_text);
	if (w)
		goto fail;
	/* with --json - or --emit-preset -, stdout carries that output alone */
	bool stdout_taken = (a.json && !strcmp(a.json, "-")) || (a.emit && !strcmp(a.emit, "-"));
	if (!a.quiet && !stdout_taken)
		gpuvm_probe_print_summary(stdout, &res);
	rc = 0;
	goto out;
bad:
	fprintf(stderr, "gpuvm probe: %s\n", err.msg);
	rc = 2;
	goto out;
fail:
	fprintf(stderr, "gpuvm probe: %s\n", err.msg[0] ? err.msg : "out of memory");
	rc = 1;
out:
	if (rc)
		gpuvm_output_batch_abort(); /* staged files and the directories made */
	gpuvm_probe_result_free(&res);
	gpuvm_probe_backend_free(&b);
	free(cfg);
	return rc;
}
