/* gpuvm presets / gpuvm workloads: what ships, and how to use it. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/config.h"
#include "gpuvm/module.h"
#include "gpuvm/units.h"
#include "gpuvm/workload.h"

static void describe_levels(const struct gpuvm_config *cfg, char *buf, size_t len)
{
	buf[0] = 0;
	for (uint32_t l = 0; l < cfg->tlb_levels; l++) {
		const struct gpuvm_tlb_level_config *t = &cfg->tlb[l];
		char sz[32], part[96];
		gpuvm_format_size(t->entry_bytes, sz, sizeof sz);
		snprintf(part, sizeof part, "%sL%u %ux%s/%s", l ? "  " : "", l + 1, t->entries, sz,
			 gpuvm_share_domain_name(t->share));
		strncat(buf, part, len - strlen(buf) - 1);
	}
}

/* Every registered module (gpuvm/module.h), by kind, as a template a
 * preset can copy: the selecting key and the names, then each module's
 * help and a [section] with its parameters at their defaults. */
/* A module's rows as an INI template: the section its keys live in
 * ("[uvm.prefetcher.tree-driver]", or the old "[neidty]" of a parameter
 * with a compat_key), a choice by name with its choices. */
static void print_module_params(const struct gpuvm_module *m, const char *kind_key)
{
	char section[96] = "";
	for (uint32_t p = 0; p < m->n_params; p++) {
		const struct gpuvm_module_param *r = &m->params[p];
		char sec[96];
		const char *dot = r->compat_key ? strrchr(r->compat_key, '.') : NULL;
		if (dot)
			snprintf(sec, sizeof sec, "%.*s", (int)(dot - r->compat_key), r->compat_key);
		else
			snprintf(sec, sizeof sec, "%s.%s", kind_key, m->name);
		if (strcmp(sec, section) != 0) {
			printf("[%s]\n", sec);
			snprintf(section, sizeof section, "%s", sec);
		}
		if (r->values) {
			printf("%s = %s    ; one of", r->key, r->values[(uint32_t)r->def]);
			for (uint32_t v = 0; v < r->n_values; v++)
				printf("%s %s", v ? "," : "", r->values[v]);
			printf(": %s\n", r->help);
			continue;
		}
		printf("%s = %.15g    ; %s, %.15g .. %.15g%s: %s\n", r->key, r->def, r->unit, r->min,
		       r->max, r->integer ? ", whole" : "", r->help);
	}
}

static void print_modules(void)
{
	for (int k = 0; k < GPUVM_MODULE_KINDS; k++) {
		const char *names = gpuvm_module_names((enum gpuvm_module_kind)k);
		if (!names[0])
			continue; /* a kind no module implements yet */
		const char *key = gpuvm_module_kind_key((enum gpuvm_module_kind)k);
		if (k == GPUVM_MODULE_THRASHING)
			printf("; %s = off, on (on runs: %s)\n", key, names);
		else
			printf("; %s = %s\n", k == GPUVM_MODULE_PEER ? "tlb.lN.peer" : key, names);
		for (size_t i = 0; i < gpuvm_module_count(); i++) {
			const struct gpuvm_module *m = gpuvm_module_at(i);
			if ((int)m->kind != k)
				continue;
			printf(";   %-15s %s\n", m->name, m->help);
			if (!m->n_params)
				continue;
			print_module_params(m, key);
		}
		putchar('\n');
	}
}

int gpuvm_cmd_presets(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: gpuvm presets            list the shipped GPU presets\n"
		     "       gpuvm presets NAME       print a preset's file (a template for your own)\n"
		     "       gpuvm presets --modules  list the policy modules and their parameters\n"
		     "                                (defaults, ranges; a template for [sections])\n"
		     "       gpuvm presets import FILE [--base PRESET] [-o OUT.ini]\n"
		     "                                an Accel-Sim/GPGPU-Sim gpgpusim.config as a preset\n"
		     "                                (gpuvm presets import --help)\n"
		     "\n"
		     "A preset is an INI file: [gpu], [tlb] levels=N, [tlb.l1]..[tlb.l4], [walker],\n"
		     "[l2], [dram], [pcie]. Pass your own with --gpu FILE; override any key with\n"
		     "--set section.key=value (e.g. --set tlb.l2.entry_size=2MiB).");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "import"))
		return gpuvm_cmd_presets_import(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[1], "--modules")) {
		print_modules();
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "gpuvm presets: too many arguments (see gpuvm presets --help)\n");
		return 2;
	}
	if (argc == 2) {
		for (size_t i = 0; i < gpuvm_shipped_presets_count; i++)
			if (!strcmp(gpuvm_shipped_presets[i].name, argv[1])) {
				fputs(gpuvm_shipped_presets[i].text, stdout);
				return 0;
			}
		/* an option (--modules, --help) or a preset name, misspelt */
		static const char *const opts[] = {"--modules", "--help", NULL};
		const char *names[64] = {0};
		size_t n_names = 0;
		for (; n_names < gpuvm_shipped_presets_count && n_names + 2 < 64; n_names++)
			names[n_names] = gpuvm_shipped_presets[n_names].name;
		names[n_names] = "import"; /* the subcommand, misspelt */
		bool option = argv[1][0] == '-';
		fprintf(stderr, "gpuvm presets: %s '%s'%s (see gpuvm presets --help)\n",
			option ? "unknown option" : "no shipped preset", argv[1],
			gpuvm_cli_did_you_mean(argv[1], option ? opts : names));
		return 2;
	}
	printf("%-20s %4s  %-60s\n", "preset", "SMs", "TLB levels (entries x entry size / sharing)");
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	if (!cfg)
		return 1;
	int rc = 0;
	for (size_t i = 0; i < gpuvm_shipped_presets_count; i++) {
		struct gpuvm_error err;
		if (gpuvm_config_load(cfg, gpuvm_shipped_presets[i].name, &err) ||
		    gpuvm_config_finalize(cfg, &err)) {
			fprintf(stderr, "gpuvm presets: %s\n", err.msg);
			rc = 1;
			continue;
		}
		char levels[256];
		describe_levels(cfg, levels, sizeof levels);
		printf("%-20s %4u  %s\n", cfg->name, cfg->sms, levels);
		if (cfg->description[0])
			printf("%-20s       %s\n", "", cfg->description);
	}
	free(cfg);
	return rc;
}

/* A range bound a person reads: sizes with units (512TiB, not
 * 562949953421312), large counts as powers of two or in 3 digits. */
static void range_number(double v, bool size, char *buf, size_t len)
{
	if (size && v >= 0 && v < 18446744073709551616.0) {
		gpuvm_format_size((uint64_t)v, buf, len);
		return;
	}
	int e;
	if (v >= 1048576 && frexp(v, &e) == 0.5)
		snprintf(buf, len, "2^%d", e - 1);
	else if (v >= 1e10)
		snprintf(buf, len, "%.3g", v);
	else
		snprintf(buf, len, "%.15g", v);
}

int gpuvm_cmd_workloads(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: gpuvm workloads\n\n"
		     "Lists every workload, its parameters (defaults in brackets, accepted range\n"
		     "of numbers in braces: sizes in B/KiB/MiB/GiB/TiB, large counts as powers\n"
		     "of two: 2^32 = 4294967296, and a step or power of two where the kernel\n"
		     "needs one), the limits that tie parameters together (\"also:\") and the\n"
		     "formula of its working set. These are the limits a run enforces, from one\n"
		     "table per workload. Use as --workload NAME:key=value,key=value.");
		return 0;
	}
	if (argc > 1) {
		static const char *const opts[] = {"--help", NULL};
		bool option = argv[1][0] == '-';
		fprintf(stderr, "gpuvm workloads: %s '%s'%s (see gpuvm workloads --help)\n",
			option ? "unknown option" : "unexpected argument", argv[1],
			option ? gpuvm_cli_did_you_mean(argv[1], opts) : "");
		return 2;
	}
	for (size_t i = 0; i < gpuvm_workloads_count; i++) {
		const struct gpuvm_workload_def *d = gpuvm_workloads[i];
		printf("%s\n  %s\n  working set: %s\n", d->name, d->summary, d->working_set);
		for (size_t k = 0; k < d->n_params; k++) {
			const struct gpuvm_param_def *p = &d->params[k];
			double lo, hi;
			char range[96] = ""; /* " {" a ".." b step "}": 2 + 23 + 2 + 23 + 39 + 1 + NUL */
			gpuvm_param_range(d, p, &lo, &hi);
			if (p->type == GPUVM_PARAM_U64 || p->type == GPUVM_PARAM_SIZE) {
				char a[24], b[24];
				range_number(lo, p->type == GPUVM_PARAM_SIZE, a, sizeof a);
				range_number(hi, p->type == GPUVM_PARAM_SIZE, b, sizeof b);
				const struct gpuvm_param_range *r = gpuvm_param_range_find(d, p);
				char step[40] = "";
				if (r && r->step > 1)
					snprintf(step, sizeof step, ", multiple of %llu",
						 (unsigned long long)r->step);
				else if (r && r->power_of_two)
					snprintf(step, sizeof step, ", power of two");
				snprintf(range, sizeof range, " {%s..%s%s}", a, b, step);
			}
			printf("    %-10s [%s]%s %s\n", p->key,
			       p->default_text ? p->default_text : "auto", range, p->help);
		}
		if (d->constraints)
			printf("  also: %s\n", d->constraints);
		putchar('\n');
	}
	return 0;
}
