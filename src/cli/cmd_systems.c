/* gpuvm systems: the shipped system descriptions (systems/ *.ini), one
 * printed with its sources, a user's file checked, and the published
 * measurements of these systems (validation/systems.tsv) by system. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_options.h"
#include "cli/commands.h"
#include "gpuvm/config.h"
#include "gpuvm/sysdesc.h"
#include "gpuvm/units.h"

static void usage(FILE *out)
{
	fputs("usage: gpuvm systems                 list the shipped systems, one line each\n"
	      "       gpuvm systems NAME            print one: its processors, links and sources\n"
	      "                                     (as comments), then its file: a template\n"
	      "       gpuvm systems --check FILE    check a system file of your own\n"
	      "       gpuvm systems --evidence      the published measurements, by system\n"
	      "\n"
	      "A system is GPUs (each a preset), CPU memory nodes and the links that join\n"
	      "them, in an INI file:\n"
	      "  [system]  name, description, source (one per line, repeatable)\n"
	      "  [gpu.N]   preset = NAME or FILE; memory_bytes (this system's part, optional)\n"
	      "  [cpu.N]   model, memory_bytes, bandwidth_gb_s, page_sizes (e.g. 4KiB 64KiB),\n"
	      "            page_bytes (the one in use)\n"
	      "  [link.N]  kind = pcie | nvlink | nvlink-c2c | nvswitch, endpoints = gpu.0 cpu.0,\n"
	      "            bandwidth_gb_s (per direction, per physical link), count (links\n"
	      "            ganged), latency_ns (optional)\n"
	      "Processors and links are numbered from 0; every processor must reach every\n"
	      "other over the links. Cite each number's source in a comment beside it.\n"
	      "Every preset is also a system of one: NAME or single-NAME (its GPU and its\n"
	      "host over the preset's PCIe link), e.g. gpuvm systems h100.\n"
	      "\n"
	      "Not modelled yet: no run uses a system; several GPUs, NVLink and\n"
	      "Grace Hopper in one simulation wait on the engine renovation (docs/systems.md).\n"
	      "\n"
	      "examples:\n"
	      "  gpuvm systems\n"
	      "  gpuvm systems gh200\n"
	      "  gpuvm systems dgx-h100-8 > my-node.ini    (edit, then:)\n"
	      "  gpuvm systems --check my-node.ini\n",
	      out);
}

static void bytes_text(uint64_t b, char *buf, size_t len)
{
	/* vendor capacities are decimal: say both */
	if (b % 1000000000ull == 0 && b % (1ull << 30))
		snprintf(buf, len, "%llu GB", (unsigned long long)(b / 1000000000ull));
	else
		gpuvm_format_size(b, buf, len);
}

static void endpoint_text(const struct gpuvm_sys_link *l, char *buf, size_t len)
{
	buf[0] = 0;
	for (uint32_t j = 0; j < l->n_ends; j++) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s.%u", j ? (l->n_ends > 2 ? "," : "-") : "",
			 l->ends[j].cpu ? "cpu" : "gpu", l->ends[j].index);
	}
}

/* "1x h100, 1 cpu; nvlink-c2c 450 GB/s" */
static void summary(const struct gpuvm_sysdesc *s, char *buf, size_t len)
{
	char gpus[128] = "";
	/* GPUs grouped by preset, in order of first appearance */
	bool done[GPUVM_SYS_MAX_GPUS] = {0};
	for (uint32_t i = 0; i < s->n_gpus; i++) {
		if (done[i])
			continue;
		uint32_t n = 0;
		for (uint32_t j = i; j < s->n_gpus; j++)
			if (!strcmp(s->gpus[j].preset, s->gpus[i].preset)) {
				done[j] = true;
				n++;
			}
		size_t at = strlen(gpus);
		snprintf(gpus + at, sizeof gpus - at, "%s%ux %.40s", at ? " + " : "", n,
			 s->gpus[i].preset);
	}
	char links[256] = "";
	for (int k = 0; k < GPUVM_LINK_KINDS; k++) {
		uint32_t n = 0;
		double bw = 0;
		for (uint32_t i = 0; i < s->n_links; i++)
			if ((int)s->links[i].kind == k) {
				n++;
				bw = s->links[i].bandwidth_gb_s * s->links[i].count;
			}
		if (!n)
			continue;
		size_t at = strlen(links);
		snprintf(links + at, sizeof links - at, "%s%ux %s %g GB/s", at ? ", " : "", n,
			 gpuvm_link_kind_name((enum gpuvm_link_kind)k), bw);
	}
	snprintf(buf, len, "%s, %u cpu; %s", gpus, s->n_cpus, links);
}

static void print_system(const struct gpuvm_sysdesc *s)
{
	printf("# system %s: %s\n", s->name, s->description);
	printf("#   from %s\n#\n", s->origin);
	for (uint32_t i = 0; i < s->n_gpus; i++) {
		char mem[32] = "the preset's";
		if (s->gpus[i].memory_bytes)
			bytes_text(s->gpus[i].memory_bytes, mem, sizeof mem);
		printf("#   gpu.%u   preset %s, memory %s\n", i, s->gpus[i].preset, mem);
	}
	for (uint32_t i = 0; i < s->n_cpus; i++) {
		const struct gpuvm_sys_cpu *c = &s->cpus[i];
		char mem[32] = "not described", page[32], sizes[96] = "";
		if (c->memory_bytes)
			bytes_text(c->memory_bytes, mem, sizeof mem);
		gpuvm_format_size(c->page_bytes, page, sizeof page);
		for (uint32_t j = 0; j < c->n_page_sizes; j++) {
			char one[32];
			gpuvm_format_size(c->page_sizes[j], one, sizeof one);
			size_t at = strlen(sizes);
			snprintf(sizes + at, sizeof sizes - at, "%s%s", j ? " or " : "", one);
		}
		printf("#   cpu.%u   %s, memory %s", i, c->model[0] ? c->model : "cpu", mem);
		if (c->bandwidth_gb_s > 0)
			printf(" at %g GB/s", c->bandwidth_gb_s);
		printf(", system pages %s (in use: %s)\n", sizes, page);
	}
	for (uint32_t i = 0; i < s->n_links; i++) {
		const struct gpuvm_sys_link *l = &s->links[i];
		char ends[512];
		endpoint_text(l, ends, sizeof ends);
		printf("#   link.%u  %-10s %s: %u x %g GB/s per direction = %g GB/s", i,
		       gpuvm_link_kind_name(l->kind), ends, l->count, l->bandwidth_gb_s,
		       l->count * l->bandwidth_gb_s);
		if (l->latency_ns >= 0)
			printf(", latency %g ns", l->latency_ns);
		printf("\n");
	}
	printf("#\n# sources:\n");
	for (const char *at = s->sources; *at;) {
		const char *nl = strchr(at, '\n');
		int n = nl ? (int)(nl - at) : (int)strlen(at);
		printf("#   %.*s\n", n, at);
		at += n + (nl ? 1 : 0);
	}
}

/* A system of one has no file: write it as one, so that it too is a
 * template (gpuvm systems h100 > mine.ini). */
static void print_as_file(const struct gpuvm_sysdesc *s)
{
	printf("[system]\nname = %s\ndescription = %s\n", s->name, s->description);
	for (const char *at = s->sources; *at;) {
		const char *nl = strchr(at, '\n');
		int n = nl ? (int)(nl - at) : (int)strlen(at);
		printf("source = %.*s\n", n, at);
		at += n + (nl ? 1 : 0);
	}
	for (uint32_t i = 0; i < s->n_gpus; i++)
		printf("\n[gpu.%u]\npreset = %s\n", i, s->gpus[i].preset);
	for (uint32_t i = 0; i < s->n_cpus; i++)
		printf("\n[cpu.%u]\nmodel = host\n"
		       "memory_bytes = 64GiB         ; placeholder: the preset describes no host memory\n"
		       "bandwidth_gb_s = 100         ; placeholder: the preset describes no host memory\n",
		       i);
	for (uint32_t i = 0; i < s->n_links; i++) {
		const struct gpuvm_sys_link *l = &s->links[i];
		char ends[512];
		endpoint_text(l, ends, sizeof ends);
		for (char *c = ends; *c; c++)
			if (*c == '-' || *c == ',')
				*c = ' ';
		printf("\n[link.%u]\nkind = %s\nendpoints = %s\nbandwidth_gb_s = %g   ; the preset's "
		       "pcie.bandwidth_gb_s\n",
		       i, gpuvm_link_kind_name(l->kind), ends, l->bandwidth_gb_s);
		if (l->latency_ns >= 0)
			printf("latency_ns = %g       ; the preset's pcie.latency_ns\n", l->latency_ns);
	}
}

static int list_systems(void)
{
	struct gpuvm_sysdesc *s = malloc(sizeof *s);
	if (!s)
		return 1;
	int rc = 0;
	printf("%-12s %s\n", "system", "processors; links (how many x kind, GB/s per direction of each)");
	for (size_t i = 0; i < gpuvm_shipped_systems_count; i++) {
		struct gpuvm_error err;
		if (gpuvm_sysdesc_parse(s, gpuvm_shipped_systems[i].text,
					gpuvm_shipped_systems[i].path, &err)) {
			fprintf(stderr, "gpuvm systems: %s\n", err.msg);
			rc = 1;
			continue;
		}
		char line[512];
		summary(s, line, sizeof line);
		printf("%-12s %s\n", s->name, line);
		printf("%-12s   %s\n", "", s->description);
	}
	printf("%-12s every preset, as a system of one: its GPU and host over its PCIe link\n"
	       "%-12s   (gpuvm systems h100; gpuvm presets lists the presets)\n",
	       "single-NAME", "");
	free(s);
	return rc;
}

static int print_evidence(void)
{
	struct gpuvm_sys_evidence *rows = NULL;
	size_t n = 0;
	struct gpuvm_error err;
	if (gpuvm_sys_evidence_parse(gpuvm_systems_evidence_tsv, "validation/systems.tsv", &rows,
				     &n, &err)) {
		fprintf(stderr, "gpuvm systems: %s\n", err.msg);
		return 1;
	}
	printf("Published measurements and vendor rates (validation/systems.tsv). calibration:\n"
	       "a system file's parameter is set from it; validation: a future model is\n"
	       "checked against it. [secondary]: read in a quotation of the source.\n");
	for (size_t i = 0; i < gpuvm_shipped_systems_count; i++) {
		const char *sys = gpuvm_shipped_systems[i].name;
		bool any = false;
		for (size_t r = 0; r < n; r++) {
			if (strcmp(rows[r].system, sys))
				continue;
			if (!any)
				printf("\n%s\n", sys);
			any = true;
			printf("  %-11s %-26s %14.15g %-5s %s\n", 
			       rows[r].role == GPUVM_ROLE_CALIBRATION ? "calibration" : "validation",
			       rows[r].quantity, rows[r].value, rows[r].unit, rows[r].convention);
			printf("  %-11s %-26s   source: %s\n", "", "", rows[r].source);
		}
		if (!any)
			printf("\n%s\n  no published rows yet\n", sys);
	}
	free(rows);
	return 0;
}

int gpuvm_cmd_systems(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 1)
		return list_systems();
	if (!strcmp(argv[1], "--evidence")) {
		if (argc > 2) {
			fprintf(stderr, "gpuvm systems: --evidence takes no argument\n");
			return 2;
		}
		return print_evidence();
	}
	bool check = !strcmp(argv[1], "--check");
	if (check && argc != 3) {
		fprintf(stderr, "gpuvm systems: --check takes one FILE (see --help)\n");
		return 2;
	}
	if (!check && argv[1][0] == '-') {
		static const char *const opts[] = {"--check", "--evidence", "--help", NULL};
		fprintf(stderr, "gpuvm systems: unknown option '%s'%s (see gpuvm systems --help)\n",
			argv[1], gpuvm_cli_did_you_mean(argv[1], opts));
		return 2;
	}
	if (!check && argc > 2) {
		fprintf(stderr, "gpuvm systems: too many arguments (see --help)\n");
		return 2;
	}
	const char *what = check ? argv[2] : argv[1];
	struct gpuvm_sysdesc *s = malloc(sizeof *s);
	if (!s)
		return 1;
	struct gpuvm_error err;
	int rc = 0;
	/* --check reads a file whatever its name */
	if (check)
		rc = gpuvm_sysdesc_load_file(s, what, &err);
	else
		rc = gpuvm_sysdesc_load(s, what, &err);
	if (rc) {
		fprintf(stderr, "gpuvm systems: %s\n", err.msg);
		free(s);
		return 2;
	}
	if (check) {
		char line[512];
		summary(s, line, sizeof line);
		printf("%s: a valid system '%s': %s\n", what, s->name, line);
		free(s);
		return 0;
	}
	/* the summary is comments: the whole output is a file that checks */
	print_system(s);
	printf("#\n");
	if (s->implicit) {
		printf("# (no file: a preset as a system of one, written as one)\n\n");
		print_as_file(s);
	}
	for (size_t i = 0; i < gpuvm_shipped_systems_count; i++)
		if (!strcmp(gpuvm_shipped_systems[i].name, what)) {
			printf("# %s:\n", gpuvm_shipped_systems[i].path);
			fputs(gpuvm_shipped_systems[i].text, stdout);
		}
	free(s);
	return 0;
}
