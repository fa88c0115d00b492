/* System description files (systems/ *.ini): parsing and checking.
 *
 * Contract:
 *  - Owns: the line reader of system files (its own, not inih's: every
 *    message must name the physical line, and a file is a few dozen lines
 *    of key = value with no continuation lines), and the checks of a
 *    description as a whole: preset existence, endpoints, connectivity.
 *  - May call: src/config (gpuvm_shipped_presets to know the presets'
 *    names, gpuvm_config_load and gpuvm_config_number to read a preset
 *    file and a preset's host link for a system of one); the did-you-mean
 *    and number parsing of the shared base.
 *  - Guarantees: gpuvm_sysdesc_parse fills the description only when the
 *    whole file passes; otherwise err holds "origin:line: problem". The
 *    text is never modified and nothing outlives the call but the
 *    description. */
#include "gpuvm/input_file.h"
#include "gpuvm/number.h"
#include "gpuvm/sysdesc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/suggest.h"
#include "gpuvm/units.h"

#define MAX_LINE 1024

static const char *const kind_names[GPUVM_LINK_KINDS] = {"pcie", "nvlink", "nvlink-c2c",
							  "nvswitch"};

const char *gpuvm_link_kind_name(enum gpuvm_link_kind k)
{
	return (unsigned)k < GPUVM_LINK_KINDS ? kind_names[k] : "?";
}

enum sec_type { SEC_NONE = 0, SEC_SYSTEM, SEC_GPU, SEC_CPU, SEC_LINK };

/* The keys each section takes; a key's bit in the section's "seen" mask
 * is its index here. */
static const char *const system_keys[] = {"name", "description", "source", NULL};
static const char *const gpu_keys[] = {"preset", "memory_bytes", NULL};
static const char *const cpu_keys[] = {"model", "memory_bytes", "bandwidth_gb_s", "page_sizes",
				       "page_bytes", NULL};
static const char *const link_keys[] = {"kind", "endpoints", "bandwidth_gb_s", "count",
					"latency_ns", "copy_h2d_gb_s", "copy_d2h_gb_s", NULL};
static const char *const section_names[] = {"system", "gpu", "cpu", "link", NULL};

static const char *const *keys_of(enum sec_type t)
{
	switch (t) {
	case SEC_SYSTEM: return system_keys;
	case SEC_GPU: return gpu_keys;
	case SEC_CPU: return cpu_keys;
	case SEC_LINK: return link_keys;
	default: return NULL;
	}
}

static const char *list_at(size_t i, const void *ctx)
{
	const char *const *list = ctx;
	for (size_t j = 0; j <= i; j++)
		if (!list[j])
			return NULL;
	return list[i];
}

/* Per-section bookkeeping: where it opened and where each key was set. */
struct sec_state {
	int line;          /* 0: not given */
	int key_line[8];
};

struct parser {
	struct gpuvm_sysdesc *sys;
	const char *origin;
	struct gpuvm_error *err;
	struct sec_state system;
	struct sec_state gpu[GPUVM_SYS_MAX_GPUS];
	struct sec_state cpu[GPUVM_SYS_MAX_CPUS];
	struct sec_state link[GPUVM_SYS_MAX_LINKS];
	char endpoints[GPUVM_SYS_MAX_LINKS][MAX_LINE]; /* resolved once every processor is known */
	bool page_sizes_given[GPUVM_SYS_MAX_CPUS];
	enum sec_type cur;
	uint32_t cur_index;
	int line;
};

static int fail(struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parser *p, int line, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return gpuvm_fail(p->err, p->origin, line, NULL, "%s", msg);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

/* "gpu.3" -> SEC_GPU, 3; "system" -> SEC_SYSTEM. */
static int parse_section(struct parser *p, const char *name, enum sec_type *t, uint32_t *idx)
{
	if (!strcmp(name, "system")) {
		*t = SEC_SYSTEM;
		*idx = 0;
		return 0;
	}
	char base[32];
	const char *dot = strchr(name, '.');
	size_t bl = dot ? (size_t)(dot - name) : strlen(name);
	if (bl >= sizeof base)
		bl = sizeof base - 1;
	memcpy(base, name, bl);
	base[bl] = 0;
	uint32_t max = 0;
	if (!strcmp(base, "gpu")) {
		*t = SEC_GPU;
		max = GPUVM_SYS_MAX_GPUS;
	} else if (!strcmp(base, "cpu")) {
		*t = SEC_CPU;
		max = GPUVM_SYS_MAX_CPUS;
	} else if (!strcmp(base, "link")) {
		*t = SEC_LINK;
		max = GPUVM_SYS_MAX_LINKS;
	} else {
		const char *near = gpuvm_suggest(base, list_at, section_names);
		return fail(p, p->line,
			    "unknown section [%s]%s%s%s (sections: [system], [gpu.N], [cpu.N], "
			    "[link.N])",
			    name, near ? " (did you mean [" : "", near ? near : "",
			    near ? (strcmp(near, "system") ? ".N]?)" : "]?)") : "");
	}
	uint64_t n;
	if (!dot || gpuvm_parse_u64(dot + 1, &n) || n >= max)
		return fail(p, p->line, "section [%s]: want [%s.N], N a whole number below %u", name,
			    base, max);
	*idx = (uint32_t)n;
	return 0;
}

static struct sec_state *state_of(struct parser *p, enum sec_type t, uint32_t i)
{
	switch (t) {
	case SEC_SYSTEM: return &p->system;
	case SEC_GPU: return &p->gpu[i];
	case SEC_CPU: return &p->cpu[i];
	case SEC_LINK: return &p->link[i];
	default: return NULL;
	}
}

static const char *sec_label(enum sec_type t)
{
	return t == SEC_GPU ? "gpu" : t == SEC_CPU ? "cpu" : t == SEC_LINK ? "link" : "system";
}

/* A number in [lo, hi]; what it is for the message. */
static int real_in(struct parser *p, const char *key, const char *v, double lo, double hi,
		   bool lo_open, double *out)
{
	double d;
	if (gpuvm_parse_double(v, &d))
		return fail(p, p->line, "%s: '%s' is not a number", key, v);
	if ((lo_open ? d <= lo : d < lo) || d > hi)
		return fail(p, p->line, "%s: %g is out of range (%s%g .. %g)", key, d,
			    lo_open ? "above " : "", lo, hi);
	*out = d;
	return 0;
}

static int size_in(struct parser *p, const char *key, const char *v, uint64_t lo, uint64_t hi,
		   uint64_t *out)
{
	uint64_t n;
	if (gpuvm_parse_size(v, &n))
		return fail(p, p->line,
			    "%s: '%s' is not a size (a byte count, or with KiB/MiB/GiB/TiB; "
			    "vendor capacities in decimal GB are written as byte counts)",
			    key, v);
	if (n < lo || n > hi) {
		char a[32], b[32];
		gpuvm_format_size(lo, a, sizeof a);
		gpuvm_format_size(hi, b, sizeof b);
		return fail(p, p->line, "%s: %s is out of range (%s .. %s)", key, v, a, b);
	}
	*out = n;
	return 0;
}

static int set_key(struct parser *p, const char *key, const char *v)
{
	struct gpuvm_sysdesc *s = p->sys;
	const char *const *keys = keys_of(p->cur);
	int k = -1;
	for (int i = 0; keys[i]; i++)
		if (!strcmp(keys[i], key))
			k = i;
	if (k < 0) {
		const char *near = gpuvm_suggest(key, list_at, keys);
		char known[256] = "";
		for (int i = 0; keys[i]; i++)
			snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
				 i ? ", " : "", keys[i]);
		return fail(p, p->line, "unknown key '%s' in [%s%s]%s%s%s (keys here: %s)", key,
			    sec_label(p->cur), p->cur == SEC_SYSTEM ? "" : ".N",
			    near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "", known);
	}
	struct sec_state *st = state_of(p, p->cur, p->cur_index);
	bool repeatable = p->cur == SEC_SYSTEM && !strcmp(key, "source");
	if (st->key_line[k] && !repeatable)
		return fail(p, p->line, "%s is given twice in this section (first at line %d)", key,
			    st->key_line[k]);
	st->key_line[k] = p->line;
	if (!*v)
		return fail(p, p->line, "%s: empty value", key);
	uint32_t i = p->cur_index;
	const uint64_t max_mem = 1ull << 50; /* 1 PiB: past any one processor's memory */
	switch (p->cur) {
	case SEC_SYSTEM:
		if (!strcmp(key, "name")) {
			if (strlen(v) >= sizeof s->name)
				return fail(p, p->line, "name: longer than %zu characters",
					    sizeof s->name - 1);
			for (const char *c = v; *c; c++)
				if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
					return fail(p, p->line,
						    "name: '%s' may hold only letters, digits, '-', '_' "
						    "and '.'",
						    v);
			snprintf(s->name, sizeof s->name, "%s", v);
		} else if (!strcmp(key, "description")) {
			snprintf(s->description, sizeof s->description, "%s", v);
		} else {
			size_t n = strlen(s->sources);
			if (n + strlen(v) + 2 > sizeof s->sources)
				return fail(p, p->line, "source: the sources exceed %zu characters",
					    sizeof s->sources - 1);
			snprintf(s->sources + n, sizeof s->sources - n, "%s\n", v);
		}
		return 0;
	case SEC_GPU:
		if (!strcmp(key, "preset")) {
			if (strlen(v) >= sizeof s->gpus[i].preset)
				return fail(p, p->line, "preset: name too long");
			snprintf(s->gpus[i].preset, sizeof s->gpus[i].preset, "%s", v);
			return 0;
		}
		return size_in(p, key, v, 1, max_mem, &s->gpus[i].memory_bytes);
	case SEC_CPU: {
		struct gpuvm_sys_cpu *c = &s->cpus[i];
		if (!strcmp(key, "model")) {
			snprintf(c->model, sizeof c->model, "%s", v);
			return 0;
		}
		if (!strcmp(key, "memory_bytes"))
			return size_in(p, key, v, 1, max_mem, &c->memory_bytes);
		if (!strcmp(key, "bandwidth_gb_s"))
			return real_in(p, key, v, 0, 100000, true, &c->bandwidth_gb_s);
		if (!strcmp(key, "page_bytes"))
			return size_in(p, key, v, 4096, 1ull << 30, &c->page_bytes);
		/* page_sizes: a list */
		char buf[MAX_LINE];
		snprintf(buf, sizeof buf, "%s", v);
		c->n_page_sizes = 0;
		for (char *save = NULL, *t = strtok_r(buf, " ,\t", &save); t;
		     t = strtok_r(NULL, " ,\t", &save)) {
			if (c->n_page_sizes == GPUVM_SYS_MAX_PAGE_SIZES)
				return fail(p, p->line, "page_sizes: at most %d sizes",
					    GPUVM_SYS_MAX_PAGE_SIZES);
			uint64_t n;
			if (size_in(p, key, t, 4096, 1ull << 30, &n))
				return -1;
			if (!gpuvm_is_pow2(n))
				return fail(p, p->line, "page_sizes: %s is not a power of two", t);
			c->page_sizes[c->n_page_sizes++] = n;
		}
		p->page_sizes_given[i] = true;
		return 0;
	}
	case SEC_LINK: {
		struct gpuvm_sys_link *l = &s->links[i];
		if (!strcmp(key, "kind")) {
			for (int kk = 0; kk < GPUVM_LINK_KINDS; kk++)
				if (!strcmp(v, kind_names[kk])) {
					l->kind = (enum gpuvm_link_kind)kk;
					return 0;
				}
			static const char *const kinds_list[] = {"pcie", "nvlink", "nvlink-c2c",
								 "nvswitch", NULL};
			const char *near = gpuvm_suggest(v, list_at, kinds_list);
			return fail(p, p->line,
				    "kind: unknown link kind '%s'%s%s%s (kinds: pcie, nvlink, "
				    "nvlink-c2c, nvswitch)",
				    v, near ? " (did you mean '" : "", near ? near : "",
				    near ? "'?)" : "");
		}
		if (!strcmp(key, "endpoints")) {
			snprintf(p->endpoints[i], sizeof p->endpoints[i], "%s", v);
			return 0;
		}
		if (!strcmp(key, "bandwidth_gb_s"))
			return real_in(p, key, v, 0, 100000, true, &l->bandwidth_gb_s);
		if (!strcmp(key, "latency_ns"))
			return real_in(p, key, v, 0, 1e9, false, &l->latency_ns);
		if (!strcmp(key, "copy_h2d_gb_s"))
			return real_in(p, key, v, 0, 100000, true, &l->copy_gb_s[0]);
		if (!strcmp(key, "copy_d2h_gb_s"))
			return real_in(p, key, v, 0, 100000, true, &l->copy_gb_s[1]);
		double c;
		if (real_in(p, key, v, 1, 1024, false, &c))
			return -1;
		if (c != floor(c))
			return fail(p, p->line, "count: %g is not a whole number", c);
		l->count = (uint32_t)c;
		return 0;
	}
	default: return -1;
	}
}

static bool preset_shipped(const char *name)
{
	for (size_t i = 0; i < gpuvm_shipped_presets_count; i++)
		if (!strcmp(gpuvm_shipped_presets[i].name, name))
			return true;
	return false;
}

static const char *preset_at(size_t i, const void *ctx)
{
	(void)ctx;
	return i < gpuvm_shipped_presets_count ? gpuvm_shipped_presets[i].name : NULL;
}

static bool looks_like_path(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') || (n > 4 && !strcmp(s + n - 4, ".ini"));
}

/* The processors' names, for did-you-mean over endpoints. */
struct proc_names {
	char names[GPUVM_SYS_MAX_GPUS + GPUVM_SYS_MAX_CPUS][16];
	size_t n;
};

static const char *proc_at(size_t i, const void *ctx)
{
	const struct proc_names *pn = ctx;
	return i < pn->n ? pn->names[i] : NULL;
}

static int resolve_endpoints(struct parser *p, uint32_t li, const struct proc_names *pn)
{
	struct gpuvm_sys_link *l = &p->sys->links[li];
	int line = p->link[li].key_line[1];
	char buf[MAX_LINE];
	snprintf(buf, sizeof buf, "%s", p->endpoints[li]);
	l->n_ends = 0;
	for (char *save = NULL, *t = strtok_r(buf, " ,\t", &save); t;
	     t = strtok_r(NULL, " ,\t", &save)) {
		if (l->n_ends == GPUVM_SYS_MAX_ENDPOINTS)
			return fail(p, line, "endpoints: at most %d", GPUVM_SYS_MAX_ENDPOINTS);
		struct gpuvm_sys_endpoint e = {0};
		uint64_t n;
		bool ok = false;
		if (!strncmp(t, "gpu.", 4) && !gpuvm_parse_u64(t + 4, &n) && n < p->sys->n_gpus) {
			e.cpu = false;
			ok = true;
		} else if (!strncmp(t, "cpu.", 4) && !gpuvm_parse_u64(t + 4, &n) &&
			   n < p->sys->n_cpus) {
			e.cpu = true;
			ok = true;
		}
		if (!ok) {
			const char *near = gpuvm_suggest(t, proc_at, pn);
			return fail(p, line,
				    "endpoints: no processor '%s' in this system%s%s%s (it has "
				    "gpu.0 to gpu.%u and cpu.0 to cpu.%u)",
				    t, near ? " (did you mean '" : "", near ? near : "",
				    near ? "'?)" : "", p->sys->n_gpus - 1, p->sys->n_cpus - 1);
		}
		e.index = (uint32_t)n;
		for (uint32_t j = 0; j < l->n_ends; j++)
			if (l->ends[j].cpu == e.cpu && l->ends[j].index == e.index)
				return fail(p, line, "endpoints: %s is named twice", t);
		l->ends[l->n_ends++] = e;
	}
	uint32_t cpus = 0, gpus = 0;
	for (uint32_t j = 0; j < l->n_ends; j++)
		l->ends[j].cpu ? cpus++ : gpus++;
	const char *kind = kind_names[l->kind];
	switch (l->kind) {
	case GPUVM_LINK_PCIE:
	case GPUVM_LINK_NVLINK_C2C:
		if (cpus != 1 || gpus != 1)
			return fail(p, line, "endpoints: a %s link joins one CPU and one GPU "
				    "(cpu.M gpu.N)", kind);
		break;
	case GPUVM_LINK_NVLINK:
		if (gpus != 2 || cpus)
			return fail(p, line, "endpoints: an nvlink link joins two GPUs (gpu.M "
				    "gpu.N); several GPUs through switches are kind = nvswitch");
		break;
	case GPUVM_LINK_NVSWITCH:
		if (gpus < 2 || cpus)
			return fail(p, line, "endpoints: an nvswitch joins two or more GPUs, "
				    "and no CPU");
		break;
	default: break;
	}
	return 0;
}

static uint32_t find_root(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

static int check_whole(struct parser *p)
{
	struct gpuvm_sysdesc *s = p->sys;
	if (!p->system.line)
		return fail(p, 0, "no [system] section (it names the system and its sources)");
	if (!p->system.key_line[0])
		return fail(p, p->system.line, "[system] has no name");
	if (!p->system.key_line[2])
		return fail(p, p->system.line,
			    "[system] has no source: say where its numbers come from "
			    "(source = [TAG] document, table or page)");
	/* processors numbered from 0 without gaps */
	for (uint32_t i = 0; i < GPUVM_SYS_MAX_GPUS; i++)
		if (p->gpu[i].line)
			s->n_gpus = i + 1;
	for (uint32_t i = 0; i < GPUVM_SYS_MAX_CPUS; i++)
		if (p->cpu[i].line)
			s->n_cpus = i + 1;
	for (uint32_t i = 0; i < GPUVM_SYS_MAX_LINKS; i++)
		if (p->link[i].line)
			s->n_links = i + 1;
	if (!s->n_gpus)
		return fail(p, p->system.line, "the system has no GPU ([gpu.0] preset = NAME)");
	if (!s->n_cpus)
		return fail(p, p->system.line,
			    "the system has no CPU ([cpu.0]: the host memory node every GPU's "
			    "pages come from)");
	for (uint32_t i = 0; i < s->n_gpus; i++)
		if (!p->gpu[i].line)
			return fail(p, 0, "[gpu.%u] is missing: GPUs are numbered from 0 without gaps "
				    "(there is a [gpu.%u])", i, s->n_gpus - 1);
	for (uint32_t i = 0; i < s->n_cpus; i++)
		if (!p->cpu[i].line)
			return fail(p, 0, "[cpu.%u] is missing: CPUs are numbered from 0 without gaps "
				    "(there is a [cpu.%u])", i, s->n_cpus - 1);
	for (uint32_t i = 0; i < s->n_links; i++)
		if (!p->link[i].line)
			return fail(p, 0, "[link.%u] is missing: links are numbered from 0 without "
				    "gaps (there is a [link.%u])", i, s->n_links - 1);
	for (uint32_t i = 0; i < s->n_gpus; i++) {
		struct gpuvm_sys_gpu *g = &s->gpus[i];
		g->line = p->gpu[i].line;
		if (!p->gpu[i].key_line[0])
			return fail(p, g->line, "[gpu.%u] has no preset", i);
		int pl = p->gpu[i].key_line[0];
		if (looks_like_path(g->preset)) {
			struct gpuvm_config *cfg = malloc(sizeof *cfg);
			struct gpuvm_error e2;
			if (!cfg)
				return fail(p, pl, "out of memory");
			int rc = gpuvm_config_load(cfg, g->preset, &e2);
			free(cfg);
			if (rc)
				return fail(p, pl, "preset: %s", e2.msg);
		} else if (!preset_shipped(g->preset)) {
			const char *near = gpuvm_suggest(g->preset, preset_at, NULL);
			return fail(p, pl,
				    "preset: no shipped preset '%s'%s%s%s (gpuvm presets lists "
				    "them; a file needs a '/' or .ini)",
				    g->preset, near ? " (did you mean '" : "", near ? near : "",
				    near ? "'?)" : "");
		}
	}
	for (uint32_t i = 0; i < s->n_cpus; i++) {
		struct gpuvm_sys_cpu *c = &s->cpus[i];
		c->line = p->cpu[i].line;
		if (!p->cpu[i].key_line[1])
			return fail(p, c->line, "[cpu.%u] has no memory_bytes", i);
		if (!p->cpu[i].key_line[2])
			return fail(p, c->line, "[cpu.%u] has no bandwidth_gb_s", i);
		if (!p->page_sizes_given[i]) {
			/* every CPU gpuvm knows offers 4 KiB pages */
			c->page_sizes[0] = 4096;
			c->n_page_sizes = 1;
		}
		if (!p->cpu[i].key_line[4])
			c->page_bytes = c->page_sizes[0];
		bool offered = false;
		for (uint32_t j = 0; j < c->n_page_sizes; j++)
			offered |= c->page_sizes[j] == c->page_bytes;
		if (!offered)
			return fail(p, p->cpu[i].key_line[4],
				    "page_bytes: not one of this CPU's page_sizes");
	}
	struct proc_names *pn = malloc(sizeof *pn);
	if (!pn)
		return fail(p, 0, "out of memory");
	pn->n = 0;
	for (uint32_t i = 0; i < s->n_gpus; i++)
		snprintf(pn->names[pn->n++], sizeof pn->names[0], "gpu.%u", i);
	for (uint32_t i = 0; i < s->n_cpus; i++)
		snprintf(pn->names[pn->n++], sizeof pn->names[0], "cpu.%u", i);
	for (uint32_t i = 0; i < s->n_links; i++) {
		struct gpuvm_sys_link *l = &s->links[i];
		l->line = p->link[i].line;
		static const char *const req[] = {"kind", "endpoints", "bandwidth_gb_s"};
		for (int k = 0; k < 3; k++)
			if (!p->link[i].key_line[k]) {
				free(pn);
				return fail(p, l->line, "[link.%u] has no %s", i, req[k]);
			}
		if (!p->link[i].key_line[3])
			l->count = 1;
		if (!p->link[i].key_line[4])
			l->latency_ns = -1;
		if (resolve_endpoints(p, i, pn)) {
			free(pn);
			return -1;
		}
	}
	free(pn);
	/* connected: every processor reaches every other over the links */
	uint32_t nproc = s->n_gpus + s->n_cpus;
	uint32_t up[GPUVM_SYS_MAX_GPUS + GPUVM_SYS_MAX_CPUS];
	for (uint32_t i = 0; i < nproc; i++)
		up[i] = i;
	for (uint32_t i = 0; i < s->n_links; i++) {
		const struct gpuvm_sys_link *l = &s->links[i];
		uint32_t a = l->ends[0].cpu ? s->n_gpus + l->ends[0].index : l->ends[0].index;
		for (uint32_t j = 1; j < l->n_ends; j++) {
			uint32_t b = l->ends[j].cpu ? s->n_gpus + l->ends[j].index : l->ends[j].index;
			up[find_root(up, b)] = find_root(up, a);
		}
	}
	for (uint32_t i = 1; i < nproc; i++)
		if (find_root(up, i) != find_root(up, 0)) {
			bool cpu = i >= s->n_gpus;
			uint32_t k = cpu ? i - s->n_gpus : i;
			return fail(p, cpu ? s->cpus[k].line : s->gpus[k].line,
				    "%s.%u is not connected to gpu.0: every processor must reach "
				    "every other over the links",
				    cpu ? "cpu" : "gpu", k);
		}
	return 0;
}

int gpuvm_sysdesc_parse(struct gpuvm_sysdesc *sys, const char *text, const char *origin,
			struct gpuvm_error *err)
{
	struct parser *p = calloc(1, sizeof *p);
	struct gpuvm_sysdesc *s = calloc(1, sizeof *s);
	if (!p || !s) {
		free(p);
		free(s);
		return gpuvm_fail(err, origin, 0, NULL, "out of memory");
	}
	p->sys = s;
	p->origin = origin;
	p->err = err;
	snprintf(s->origin, sizeof s->origin, "%s", origin);
	int rc = 0;
	const char *at = text;
	if (!strncmp(at, "\xEF\xBB\xBF", 3))
		at += 3; /* a UTF-8 byte order mark, as some editors write */
	while (*at && !rc) {
		const char *nl = strchr(at, '\n');
		size_t n = nl ? (size_t)(nl - at) : strlen(at);
		p->line++;
		char raw[MAX_LINE];
		if (n >= sizeof raw) {
			rc = fail(p, p->line, "line is too long (at most %d characters)", MAX_LINE - 1);
			break;
		}
		memcpy(raw, at, n);
		raw[n] = 0;
		at = nl ? nl + 1 : at + n;
		char *l = trim(raw);
		if (!*l || *l == ';' || *l == '#')
			continue;
		if (*l == '[') {
			char *close = strchr(l, ']');
			if (!close || trim(close + 1)[0]) {
				rc = fail(p, p->line, "a section header is [name] alone on its line");
				break;
			}
			*close = 0;
			enum sec_type t = SEC_NONE;
			uint32_t idx = 0;
			if ((rc = parse_section(p, trim(l + 1), &t, &idx)))
				break;
			struct sec_state *st = state_of(p, t, idx);
			if (st->line) {
				rc = fail(p, p->line, "section [%s] is given twice (first at line %d)",
					  trim(l + 1), st->line);
				break;
			}
			st->line = p->line;
			p->cur = t;
			p->cur_index = idx;
			continue;
		}
		char *eq = strchr(l, '=');
		if (!eq) {
			rc = fail(p, p->line, "expected 'key = value' or '[section]', not '%s'", l);
			break;
		}
		*eq = 0;
		char *key = trim(l), *v = eq + 1;
		/* an inline comment starts at ';' or '#' after white space */
		for (char *c = v; *c; c++)
			if ((*c == ';' || *c == '#') && (c == v || isspace((unsigned char)c[-1]))) {
				*c = 0;
				break;
			}
		v = trim(v);
		if (p->cur == SEC_NONE) {
			rc = fail(p, p->line, "key '%s' before any [section]", key);
			break;
		}
		rc = set_key(p, key, v);
	}
	if (!rc)
		rc = check_whole(p);
	if (!rc)
		memcpy(sys, s, sizeof *s);
	free(p);
	free(s);
	return rc;
}

/* A preset read as a system of one: its GPU and a host CPU over its own
 * PCIe link (pcie.bandwidth_gb_s and pcie.latency_ns of the preset). */
static int system_of_one(struct gpuvm_sysdesc *sys, const char *preset, struct gpuvm_error *err)
{
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	if (!cfg)
		return gpuvm_fail(err, preset, 0, NULL, "out of memory");
	double bw = 0, lat = 0;
	int rc = gpuvm_config_load(cfg, preset, err);
	if (!rc && (gpuvm_config_number(cfg, "pcie.bandwidth_gb_s", &bw) ||
		    gpuvm_config_number(cfg, "pcie.latency_ns", &lat)))
		rc = gpuvm_fail(err, preset, 0, NULL, "preset has no pcie link keys");
	free(cfg);
	if (rc)
		return rc;
	memset(sys, 0, sizeof *sys);
	snprintf(sys->name, sizeof sys->name, "single-%.50s", preset);
	snprintf(sys->description, sizeof sys->description,
		 "one GPU (preset %.60s) and its host over the preset's PCIe link", preset);
	snprintf(sys->sources, sizeof sys->sources,
		 "presets/%.60s.ini [pcie]: the link's numbers and their sources\n", preset);
	snprintf(sys->origin, sizeof sys->origin, "presets/%.60s.ini", preset);
	sys->implicit = true;
	sys->n_gpus = 1;
	snprintf(sys->gpus[0].preset, sizeof sys->gpus[0].preset, "%s", preset);
	sys->n_cpus = 1;
	snprintf(sys->cpus[0].model, sizeof sys->cpus[0].model, "host (not described)");
	sys->cpus[0].page_sizes[0] = sys->cpus[0].page_bytes = 4096;
	sys->cpus[0].n_page_sizes = 1;
	sys->n_links = 1;
	struct gpuvm_sys_link *l = &sys->links[0];
	l->kind = GPUVM_LINK_PCIE;
	l->n_ends = 2;
	l->ends[0] = (struct gpuvm_sys_endpoint){.cpu = false, .index = 0};
	l->ends[1] = (struct gpuvm_sys_endpoint){.cpu = true, .index = 0};
	l->bandwidth_gb_s = bw;
	l->count = 1;
	l->latency_ns = lat;
	return 0;
}

/* the shipped systems, then the shipped presets (a system of one each) */
static const char *system_or_preset_at(size_t i, const void *ctx)
{
	(void)ctx;
	if (i < gpuvm_shipped_systems_count)
		return gpuvm_shipped_systems[i].name;
	i -= gpuvm_shipped_systems_count;
	return i < gpuvm_shipped_presets_count ? gpuvm_shipped_presets[i].name : NULL;
}

int gpuvm_sysdesc_load(struct gpuvm_sysdesc *sys, const char *name, struct gpuvm_error *err)
{
	if (!looks_like_path(name)) {
		for (size_t i = 0; i < gpuvm_shipped_systems_count; i++)
			if (!strcmp(gpuvm_shipped_systems[i].name, name))
				return gpuvm_sysdesc_parse(sys, gpuvm_shipped_systems[i].text,
							   gpuvm_shipped_systems[i].path, err);
		const char *preset = !strncmp(name, "single-", 7) ? name + 7 : name;
		if (preset_shipped(preset))
			return system_of_one(sys, preset, err);
		const char *near = gpuvm_suggest(name, system_or_preset_at, NULL);
		return gpuvm_fail(err, name, 0, NULL,
				  "no shipped system or preset of that name%s%s%s (gpuvm systems "
				  "lists them; a file needs a '/' or .ini)",
				  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	}
	return gpuvm_sysdesc_load_file(sys, name, err);
}

int gpuvm_sysdesc_load_file(struct gpuvm_sysdesc *sys, const char *name, struct gpuvm_error *err)
{
	FILE *f = gpuvm_input_fopen_any(name, "system file", 0, err);
	if (!f)
		return -1;
	size_t cap = 1 << 16, n = 0;
	char *text = malloc(cap + 1);
	if (!text) {
		fclose(f);
		return gpuvm_fail(err, name, 0, NULL, "out of memory");
	}
	n = fread(text, 1, cap, f);
	bool more = !feof(f) && fgetc(f) != EOF;
	bool bad = ferror(f);
	fclose(f);
	if (bad || more) {
		free(text);
		return gpuvm_fail(err, name, 0, NULL,
				  bad ? "read error" : "larger than 64 KiB: not a system file");
	}
	text[n] = 0;
	if (memchr(text, 0, n)) {
		free(text);
		return gpuvm_fail(err, name, 0, NULL, "contains a NUL byte (not a text file?)");
	}
	int rc = gpuvm_sysdesc_parse(sys, text, name, err);
	free(text);
	return rc;
}

int gpuvm_sysdesc_value(const struct gpuvm_sysdesc *sys, const char *key, double *out)
{
	/* SECTION.INDEX.FIELD, e.g. link.0.bandwidth_gb_s */
	char sec[8], field[32];
	const char *dot1 = strchr(key, '.'), *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
	if (!dot1 || !dot2 || dot1 == key || (size_t)(dot1 - key) >= sizeof sec || !dot2[1] ||
	    strlen(dot2 + 1) >= sizeof field)
		return -1;
	uint64_t idx64;
	if (gpuvm_num_u64(dot1 + 1, (size_t)(dot2 - dot1 - 1), 0, UINT32_MAX, &idx64))
		return -1;
	memcpy(sec, key, (size_t)(dot1 - key));
	sec[dot1 - key] = 0;
	strcpy(field, dot2 + 1);
	size_t idx = (size_t)idx64;
	if (!strcmp(sec, "link") && idx < sys->n_links) {
		const struct gpuvm_sys_link *l = &sys->links[idx];
		if (!strcmp(field, "bandwidth_gb_s"))
			*out = l->bandwidth_gb_s;
		else if (!strcmp(field, "count"))
			*out = l->count;
		else if (!strcmp(field, "latency_ns") && l->latency_ns >= 0)
			*out = l->latency_ns;
		else if (!strcmp(field, "copy_h2d_gb_s") && l->copy_gb_s[0] > 0)
			*out = l->copy_gb_s[0];
		else if (!strcmp(field, "copy_d2h_gb_s") && l->copy_gb_s[1] > 0)
			*out = l->copy_gb_s[1];
		else
			return -1;
		return 0;
	}
	if (!strcmp(sec, "cpu") && idx < sys->n_cpus) {
		const struct gpuvm_sys_cpu *c = &sys->cpus[idx];
		if (!strcmp(field, "memory_bytes"))
			*out = (double)c->memory_bytes;
		else if (!strcmp(field, "bandwidth_gb_s"))
			*out = c->bandwidth_gb_s;
		else if (!strcmp(field, "page_bytes"))
			*out = (double)c->page_bytes;
		else
			return -1;
		return 0;
	}
	if (!strcmp(sec, "gpu") && idx < sys->n_gpus && !strcmp(field, "memory_bytes") &&
	    sys->gpus[idx].memory_bytes) {
		*out = (double)sys->gpus[idx].memory_bytes;
		return 0;
	}
	return -1;
}
