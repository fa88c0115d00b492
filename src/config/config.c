/* Loading, overriding, checking and deriving a GPU configuration.
 *
 * Presets are INI files parsed with inih through our own line reader, which
 * counts physical lines (so every message names file and line), rejects
 * over-long lines and NUL bytes instead of letting inih split them, and
 * mirrors inih's continuation-line rule so an indented line continuing a
 * list is appended rather than mistaken for a duplicate key.
 *
 * Every setting records where it came from (cfg->set_at[key id]), so the
 * cross-field checks of gpuvm_config_finalize() still point at a file and
 * line. */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config_internal.h"
#include "xlat/peer.h"
#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/input_file.h"
#include "gpuvm/suggest.h"
#include "gpuvm/units.h"
#include "gpuvm/uvm.h"

#define MAX_PRESET_FILE_BYTES (1u << 20)
#define MAX_PHYS_SMS (2 * GPUVM_MAX_SMS)

/* ---- defaults ---- */

void gpuvm_config_defaults(struct gpuvm_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	snprintf(cfg->name, sizeof cfg->name, "default");
	snprintf(cfg->description, sizeof cfg->description,
		 "built-in defaults: a generic 16-SM GPU, not a real part");

	cfg->sms = 16;
	cfg->gpcs = 4;
	cfg->tpcs_per_gpc = 4;
	cfg->sms_per_tpc = 1;
	cfg->sm_numbering = GPUVM_SM_LINEAR;
	cfg->clock_mhz = 1000;
	cfg->max_warps_per_sm = 64;
	cfg->max_ctas_per_sm = 32;
	cfg->issue_warp_insts_per_cycle = 4;
	cfg->imul32_issue_slots = 1;
	cfg->load_base_latency_cycles = 200;
	cfg->kernel_launch_us = 5;

	cfg->tlb_levels = 2;
	static const struct {
		uint32_t entries, ways;
		uint64_t entry_bytes;
		enum gpuvm_share_domain share;
		double miss_penalty;
		uint32_t mshrs;
	} lv[GPUVM_MAX_TLB_LEVELS] = {
		{16, 0, 2u << 20, GPUVM_SHARE_SM, 10, 16},
		{512, 16, 2u << 20, GPUVM_SHARE_GPU, 50, 32},
		{1024, 16, 2u << 20, GPUVM_SHARE_GPU, 50, 32},
		{2048, 16, 2u << 20, GPUVM_SHARE_GPU, 50, 32},
	};
	for (int i = 0; i < GPUVM_MAX_TLB_LEVELS; i++) {
		struct gpuvm_tlb_level_config *t = &cfg->tlb[i];
		t->entries = lv[i].entries;
		t->ways = lv[i].ways;
		t->entry_bytes = lv[i].entry_bytes;
		t->share = lv[i].share;
		t->hit_latency_cycles = 0;
		t->miss_penalty_cycles = lv[i].miss_penalty;
		t->mshrs = lv[i].mshrs;
	}

	cfg->walkers = 32;
	cfg->walk_latency_cycles = 150;
	cfg->pwc_entries = 0;
	cfg->pwc_entry_bytes = 2u << 20;
	cfg->pwc_hit_walk_latency_cycles = 50;

	cfg->l2_bytes = 4u << 20;
	cfg->l2_ways = 16;
	cfg->l2_line_bytes = 128;
	cfg->l2_sector_bytes = 32;
	cfg->l2_hit_latency_cycles = 100;

	/* a Volta-class SM (Jia et al. arXiv:1804.06826; presets/v100.ini cites each value) */
	cfg->l1_bytes = 64u << 10;
	cfg->l1_ways = 4;
	cfg->l1_line_bytes = 128;
	cfg->l1_hit_latency_cycles = 33;
	cfg->l1_cache_global = 1;
	cfg->l1_bytes_per_cycle = 128;
	cfg->smem_bytes = 96u << 10;
	cfg->smem_latency_cycles = 27;
	cfg->smem_banks = 32;
	cfg->schedulers_per_sm = 4;
	static const double lat[8] = {4, 4, 4, 21, 8, 24, 4, 4};
	static const double ii[8] = {1, 1, 2, 4, 2, 2, 1, 1};
	memcpy(cfg->class_latency_cycles, lat, sizeof lat);
	memcpy(cfg->class_interval_cycles, ii, sizeof ii);

	cfg->dram_latency_cycles = 250;
	/* HBM2, 16 banks, 1 KiB rows, ~14 ns (Accel-Sim SM6_P100 -gpgpu_dram_timing_opt) */
	cfg->dram_channels = 32;
	cfg->dram_banks = 16;
	cfg->dram_row_bytes = 1024;
	/* one partition: the whole L2 and every channel behind one address
	 * map, the model of gpuvm 1b4e3ad (memsys.h) */
	cfg->mem_partitions = 1;
	cfg->mem_partition_interleave_bytes = 4096;
	cfg->dram_trcd_ns = cfg->dram_trp_ns = cfg->dram_tcas_ns = 14;
	cfg->dram_bandwidth_gb_s = 500;
	cfg->pcie_latency_ns = 1000;
	cfg->pcie_bandwidth_gb_s = 16;    /* raw rate of PCIe 3.0 x16 (seeds/003 Table 1) */

	/* Paging defaults: the NVIDIA driver's policies (nvidia-uvm uvm_perf_prefetch.c,
	 * uvm_pmm_gpu.c) with Zheng et al.'s GMMU (seeds/003 Table 1, 3.2). */
	cfg->uvm_fault_latency_us = 20;   /* seeds/003 Table 1: 20 us far-fault service */
	cfg->uvm_fault_model = GPUVM_UVM_REPLAYABLE;
	cfg->uvm_far_fault_mshrs = 16;    /* seeds/003 3.2: "little reason to go beyond 16" */
	cfg->uvm_fault_batch = 256;       /* uvm_gpu_replayable_faults.c: batches of 256 */
	cfg->uvm_gmmu = GPUVM_UVM_GMMU_DRIVER; /* uvm_gpu_replayable_faults.c service loop */
	cfg->uvm_fault_accounting = GPUVM_UVM_IN_TIMING;
	cfg->uvm_pcie_model = GPUVM_UVM_LINK_CURVE;
	snprintf(cfg->uvm_prefetcher, sizeof cfg->uvm_prefetcher, "tree-driver");
	snprintf(cfg->uvm_eviction, sizeof cfg->uvm_eviction, "lru-2mb-alloc");
	cfg->uvm_writeback = GPUVM_UVM_WB_ALL; /* uvm_pmm_gpu.c evict_root_chunk: no dirty check */

	/* TLB sharing schemes: off unless a level names one */
	for (int i = 0; i < GPUVM_MAX_TLB_LEVELS; i++)
		snprintf(cfg->tlb[i].peer, sizeof cfg->tlb[i].peer, "none");
	cfg->neidty_entries = 0;    /* seeds/002 III.B: as many entries as the L1 TLB */
	cfg->neidty_tag_bits = 18;  /* seeds/002 III.B: 52-bit VPN hashed to an 18-bit tag */
	cfg->neidty_eviction = 0;   /* seeds/002 III.B.2: FIFO (local-first is the other) */
	cfg->neidty_update = 0;     /* seeds/002 III.C: NeiDty-default */
	cfg->neidty_directory_latency_cycles = 1; /* seeds/002 IV.A: one cycle */
	cfg->neidty_neighbour_latency_cycles = 1; /* seeds/002 IV.A: one cycle */
	cfg->valkyrie_probing = 1;  /* Baruah et al. PACT'20: both mechanisms on */
	cfg->valkyrie_ldt = 1;
	/* assumption: a ring hop costs what NeiDty's neighbour link does
	 * (seeds/002 IV.A, 1 cycle); Valkyrie's own value was not located */
	cfg->valkyrie_hop_cycles = 1;
	/* Valkyrie on MGPUSim's R9 Nano: 16 L1 TLBs per shader-engine ring,
	 * probes live 15 hops clockwise and 4 counter-clockwise (a third-party
	 * re-implementation; unverified, see docs/neidty.md) */
	cfg->valkyrie_ring_size = 16;
	cfg->valkyrie_ttl_cw = 15;
	cfg->valkyrie_ttl_ccw = 4;
	/* assumption: as many LDT entries as the gem5gpu-neidty L2 TLB
	 * (seeds/002 Table III, 32 x 16), so it can track every page the L2
	 * TLB can evict; the paper's size was not located */
	cfg->valkyrie_ldt_entries = 512;
	cfg->tlb_sharing_analysis = 0;
	/* delayed migration: off (first touch, the paper's Baseline/Disabled,
	 * seeds/004 VI); t_s = 8 and p = 2 are Table I's bold defaults */
	snprintf(cfg->uvm_migration, sizeof cfg->uvm_migration, "first-touch");
	cfg->uvm_access_counter_threshold = 8;
	cfg->uvm_migration_penalty = 2;
	cfg->uvm_remote_latency_cycles = 200; /* seeds/004 Table I: remote zero-copy access latency */
	cfg->uvm_thrashing = 0;
	cfg->l1_fill_line = 0;
	cfg->cta_issue_after_last = 0; /* every launch from SM 0, as before the key */
	cfg->cta_placement = 0;        /* round-robin (src/sm/cta_place.c) */
	cfg->tlb_l1_in_flight_miss = 0; /* merge: an MSHR hit, as before the key */
	cfg->uvm_device_sync_writeback = 0; /* keep: NVIDIA's driver leaves pages at a sync */
	cfg->tlb_peer_read_touch = 0;   /* keep: as before the key */
	cfg->tlb_translate_per_access = 0; /* page: as before the key */
	snprintf(cfg->l1_replacement, sizeof cfg->l1_replacement, "lru"); /* as before the key */
	/* every module parameter at its row's default (gpuvm/module.h) */
	for (size_t i = 0; i < gpuvm_module_count(); i++) {
		const struct gpuvm_module *m = gpuvm_module_at(i);
		for (uint32_t p = 0; p < m->n_params; p++)
			cfg->module_params[gpuvm_module_param_slot(m, p)] = m->params[p].def;
	}
}

/* ---- small helpers ---- */

static void copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

/* Name of a config: the stem of the file ("presets/p100.ini" -> "p100"). */
static void set_name_from(struct gpuvm_config *cfg, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n >= sizeof cfg->name)
		n = sizeof cfg->name - 1;
	memcpy(cfg->name, base, n);
	cfg->name[n] = '\0';
}

static void record_origin(struct gpuvm_config *cfg, int k, const char *origin, int line)
{
	struct gpuvm_config_origin *o = &cfg->set_at[k];
	copy_str(o->origin, sizeof o->origin, origin);
	o->line = line;
	o->seq = ++cfg->set_seq;
}

/* Where to point a message about key k: where it was set, else the file
 * the config came from, else "defaults". */
static int fail_at(struct gpuvm_error *err, const struct gpuvm_config *cfg, int k,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail_at(struct gpuvm_error *err, const struct gpuvm_config *cfg, int k,
		   const char *fmt, ...)
{
	char problem[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);
	const struct gpuvm_config_origin *o = &cfg->set_at[k];
	const char *origin = o->seq ? o->origin : cfg->source[0] ? cfg->source : "defaults";
	int line = o->seq ? o->line : 0;
	return gpuvm_fail(err, origin, line, cfg_key_get(k)->name, "%s", problem);
}

const struct gpuvm_config_origin *gpuvm_config_key_origin(const struct gpuvm_config *cfg,
							  const char *key)
{
	int id = cfg_key_find(key);
	return id < 0 ? NULL : &cfg->set_at[id];
}

/* Of several keys that together broke a rule, the one set last (the
 * override that caused it), or the first listed when none was set. */
static int latest_of(const struct gpuvm_config *cfg, const int *keys, size_t n)
{
	int best = keys[0];
	for (size_t i = 1; i < n; i++)
		if (cfg->set_at[keys[i]].seq > cfg->set_at[best].seq)
			best = keys[i];
	return best;
}

/* A key that only makes sense under another (a TLB level key under
 * tlb.levels, share_map under share = map) conflicts with it when it was
 * set after it, or both in the same file: setting the controlling key later
 * (an override) just makes the dependent one unused. */
static bool set_against(const struct gpuvm_config *cfg, int dependent, int controlling)
{
	const struct gpuvm_config_origin *d = &cfg->set_at[dependent];
	const struct gpuvm_config_origin *c = &cfg->set_at[controlling];
	if (!d->seq)
		return false;
	if (d->seq > c->seq)
		return true;
	return c->line > 0 && d->line > 0 && strcmp(c->origin, d->origin) == 0;
}

/* ---- INI loading ---- */

struct load_ctx {
	struct gpuvm_config *cfg;
	struct gpuvm_error *err;
	const char *origin;
	const char *text;
	size_t len, pos;
	int line;            /* physical lines handed to inih so far */
	bool continues;      /* current line continues the previous value */
	bool have_pair;      /* mirrors inih's prev_name: a pair seen in this section */
	int last_key;        /* key of the latest pair, -1 if none or unknown */
	bool failed;
	int fail_line;
	int first_line[GPUVM_CONFIG_MAX_KEYS]; /* line where each key was set in this text */
	bool seen_key;       /* a key was set: too late for base = */
};

static int ctx_fail(struct load_ctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ctx_fail(struct load_ctx *c, const char *key, const char *fmt, ...)
{
	char problem[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);
	if (!c->failed) {
		c->failed = true;
		c->fail_line = c->line;
		gpuvm_fail(c->err, c->origin, c->line, key, "%s", problem);
	}
	return 0; /* the inih handler's "error" */
}

/* fgets-like reader over the text: one physical line per call, never a
 * partial one, so our line count always equals inih's. */
static char *ctx_reader(char *str, int num, void *stream)
{
	struct load_ctx *c = stream;
	if (c->failed || c->pos >= c->len)
		return NULL;
	const char *p = c->text + c->pos;
	size_t rem = c->len - c->pos;
	const char *nl = memchr(p, '\n', rem);
	size_t n = nl ? (size_t)(nl - p) : rem;
	c->line++;
	if (memchr(p, '\0', n)) {
		ctx_fail(c, NULL, "line contains a NUL byte (not a text file?)");
		return NULL;
	}
	if (num < 3 || n + 2 > (size_t)num) {
		ctx_fail(c, NULL, "line is too long (%zu characters, at most %d)", n, num - 2);
		return NULL;
	}
	memcpy(str, p, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	c->pos += n + (nl ? 1 : 0);

	/* Classify the line the way inih will. */
	const char *s = str;
	if (c->line == 1 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
	    (unsigned char)s[2] == 0xBF)
		s += 3;
	const char *t = s;
	while (*t && isspace((unsigned char)*t))
		t++;
	c->continues = false;
	if (*t == '\0' || *t == ';' || *t == '#') {
		/* blank or comment: no change */
	} else if (c->have_pair && t > str) {
		c->continues = true;
	} else if (*t == '[') {
		c->have_pair = false;
		c->last_key = -1;
		/* a section is checked when it opens, not at its first key: an
		 * empty [bogus] or [] is refused too (inih trims the name) */
		const char *close = strchr(t, ']');
		if (close) {
			const char *a = t + 1, *b = close;
			while (a < b && isspace((unsigned char)*a))
				a++;
			while (b > a && isspace((unsigned char)b[-1]))
				b--;
			char sec[64];
			snprintf(sec, sizeof sec, "%.*s", (int)(b - a), a);
			if (a == b) {
				ctx_fail(c, NULL, "empty section name '[]'");
				return NULL;
			}
			if ((size_t)(b - a) >= sizeof sec || !cfg_section_known(sec)) {
				ctx_fail(c, NULL, "unknown section [%s] (sections: gpu, tlb, tlb.l1 .. "
					 "tlb.l4, walker, l2, dram, pcie)", sec);
				return NULL;
			}
		}
	} else {
		c->have_pair = true;
	}
	return str;
}

/* Bases nest (a preset on a preset on p100), but not forever. */
#define MAX_BASE_DEPTH 4
static int base_depth;

/* "base = NAME" at the top of a preset: the named preset (shipped, or a
 * file) is loaded first and this file overrides it; its keys keep their
 * own origins, so messages still point at the file that set them. */
static int load_base(struct load_ctx *c, const char *value)
{
	if (c->seen_key)
		return ctx_fail(c, "base", "must come first, before any [section] or key");
	if (base_depth >= MAX_BASE_DEPTH)
		return ctx_fail(c, "base", "bases nest more than %d deep (a loop?)", MAX_BASE_DEPTH);
	struct gpuvm_config *b = malloc(sizeof *b);
	if (!b)
		return ctx_fail(c, "base", "out of memory");
	struct gpuvm_error berr;
	base_depth++;
	int rc = gpuvm_config_load(b, value, &berr);
	base_depth--;
	if (rc) {
		free(b);
		return ctx_fail(c, "base", "%s", berr.msg);
	}
	char name[sizeof b->name], source[sizeof b->source];
	memcpy(name, c->cfg->name, sizeof name);
	memcpy(source, c->cfg->source, sizeof source);
	*c->cfg = *b;
	memcpy(c->cfg->name, name, sizeof name);
	memcpy(c->cfg->source, source, sizeof source);
	free(b);
	c->seen_key = true;
	return 1;
}

static int ctx_handler(void *user, const char *section, const char *name, const char *value)
{
	struct load_ctx *c = user;
	char problem[600];
	if (c->failed)
		return 0;

	if (c->continues) {
		if (c->last_key < 0)
			return ctx_fail(c, NULL, "indented line continues no known key");
		const struct cfg_key *k = cfg_key_get(c->last_key);
		if (k->type != CT_U16_LIST)
			return ctx_fail(c, k->name,
					"unexpected indented line: only lists may continue on "
					"indented lines (remove the leading whitespace)");
		/* Older inih (r55) keeps inline comments on continuation lines;
		 * newer ones strip them. Strip here so both behave alike. */
		char cont[256];
		snprintf(cont, sizeof cont, "%s", value);
		for (char *p = cont; *p; p++)
			if (*p == ';' && (p == cont || isspace((unsigned char)p[-1]))) {
				*p = '\0';
				break;
			}
		if (cfg_key_parse(k, c->cfg, cont, true, problem, sizeof problem))
			return ctx_fail(c, k->name, "%s", problem);
		return 1;
	}

	char key[128];
	if (*section)
		snprintf(key, sizeof key, "%s.%s", section, name);
	else
		snprintf(key, sizeof key, "%s", name);
	c->last_key = -1;
	if (!*section && !strcmp(name, "base"))
		return load_base(c, value);
	c->seen_key = true;

	int id = cfg_key_find(key);
	if (id < 0) {
		char list[400];
		if (*section && !cfg_section_known(section))
			return ctx_fail(c, key,
					"unknown section [%s] (sections: gpu, tlb, tlb.l1 .. tlb.l4, "
					"walker, l2, dram, pcie)", section);
		if (!*section) {
			if (strchr(name, '.')) {
				char sec[128];
				snprintf(sec, sizeof sec, "%.*s", (int)(strrchr(name, '.') - name), name);
				if (!cfg_section_known(sec))
					return ctx_fail(c, key, "unknown key");
				cfg_section_keys(sec, list, sizeof list);
				return ctx_fail(c, key, "unknown key (keys of [%s]: %s)", sec, list);
			}
			return ctx_fail(c, key, "unknown key outside any [section]");
		}
		cfg_section_keys(section, list, sizeof list);
		return ctx_fail(c, key, "unknown key (keys of [%s]: %s)", section, list);
	}
	const struct cfg_key *k = cfg_key_get(id);
	if (c->first_line[id])
		return ctx_fail(c, k->name, "set twice (first at line %d); remove one",
				c->first_line[id]);
	c->first_line[id] = c->line;
	if (cfg_key_parse(k, c->cfg, value, false, problem, sizeof problem))
		return ctx_fail(c, k->name, "%s", problem);
	record_origin(c->cfg, id, c->origin, c->line);
	c->last_key = id;
	return 1;
}

/* Text of line n (1-based) of text, for describing inih syntax errors. */
static void line_text(const char *text, size_t len, int n, char *buf, size_t cap)
{
	const char *p = text, *end = text + len;
	for (int i = 1; i < n && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
	while (l && isspace((unsigned char)p[l - 1]))
		l--;
	while (l && isspace((unsigned char)*p)) {
		p++;
		l--;
	}
	snprintf(buf, cap, "%.*s", (int)(l > 60 ? 60 : l), p);
}

static int parse_text(struct gpuvm_config *cfg, const char *text, size_t len,
		      const char *origin, struct gpuvm_error *err)
{
	struct load_ctx *c = calloc(1, sizeof *c);
	if (!c)
		return gpuvm_fail(err, origin, 0, NULL, "out of memory");
	c->cfg = cfg;
	c->err = err;
	c->origin = origin;
	c->text = text;
	c->len = len;
	c->last_key = -1;

	int rc = ini_parse_stream(ctx_reader, c, ctx_handler, c);
	int ret = 0;
	if (rc > 0 && (!c->failed || rc < c->fail_line)) {
		char shown[64];
		line_text(text, len, rc, shown, sizeof shown);
		if (shown[0] == '[')
			ret = gpuvm_fail(err, origin, rc, NULL,
					 "syntax error: section header without ']': '%s'", shown);
		else
			ret = gpuvm_fail(err, origin, rc, NULL,
					 "syntax error: expected '[section]', 'key = value' or a "
					 "comment, got '%s'", shown);
	} else if (c->failed) {
		ret = -1;
	} else if (rc < 0) {
		ret = gpuvm_fail(err, origin, 0, NULL, "cannot parse (inih error %d)", rc);
	}
	free(c);
	return ret;
}

int gpuvm_config_load_string(struct gpuvm_config *cfg, const char *text,
			     const char *origin, struct gpuvm_error *err)
{
	if (!origin)
		origin = "(string)";
	gpuvm_config_defaults(cfg);
	copy_str(cfg->source, sizeof cfg->source, origin);
	set_name_from(cfg, origin);
	return parse_text(cfg, text ? text : "", text ? strlen(text) : 0, origin, err);
}

static bool looks_like_path(const char *s)
{
	size_t n = strlen(s);
	return strchr(s, '/') || (n >= 4 && strcmp(s + n - 4, ".ini") == 0);
}

static int load_file(struct gpuvm_config *cfg, const char *path, struct gpuvm_error *err)
{
	/* a FIFO with no writer must not block, a directory not half-read */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		FILE *g = gpuvm_input_fopen(path, "preset file", err);
		if (g) /* raced into a regular file */
			fclose(g);
		return -1;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		int e = errno;
		char stem[64];
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		snprintf(stem, sizeof stem, "%s", base);
		char *dot = strrchr(stem, '.');
		if (dot)
			*dot = '\0';
		for (size_t i = 0; i < gpuvm_shipped_presets_count; i++)
			if (strcmp(gpuvm_shipped_presets[i].name, stem) == 0)
				return gpuvm_fail(err, path, 0, NULL,
						  "cannot open preset file: %s (the shipped preset "
						  "is named '%s', without a path)", strerror(e), stem);
		return gpuvm_fail(err, path, 0, NULL, "cannot open preset file: %s", strerror(e));
	}
	char *buf = malloc(MAX_PRESET_FILE_BYTES + 1);
	if (!buf) {
		fclose(f);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	size_t n = fread(buf, 1, MAX_PRESET_FILE_BYTES + 1, f);
	int rerr = ferror(f);
	fclose(f);
	if (rerr) {
		free(buf);
		return gpuvm_fail(err, path, 0, NULL, "read error");
	}
	if (n > MAX_PRESET_FILE_BYTES) {
		free(buf);
		return gpuvm_fail(err, path, 0, NULL, "file is too large for a preset (over %u bytes)",
				  MAX_PRESET_FILE_BYTES);
	}
	buf[n] = '\0';
	gpuvm_config_defaults(cfg);
	cfg->require_every_key = true;
	copy_str(cfg->source, sizeof cfg->source, path);
	set_name_from(cfg, path);
	int rc = parse_text(cfg, buf, n, path, err);
	free(buf);
	return rc;
}

int gpuvm_config_load(struct gpuvm_config *cfg, const char *name_or_path,
		      struct gpuvm_error *err)
{
	if (!name_or_path || !*name_or_path)
		return gpuvm_fail(err, "argument", 0, NULL, "empty GPU preset name");
	for (size_t i = 0; i < gpuvm_shipped_presets_count; i++) {
		const struct gpuvm_preset_text *p = &gpuvm_shipped_presets[i];
		if (strcmp(p->name, name_or_path) == 0) {
			gpuvm_config_defaults(cfg);
			cfg->require_every_key = true;
			copy_str(cfg->source, sizeof cfg->source, p->path);
			copy_str(cfg->name, sizeof cfg->name, p->name);
			return parse_text(cfg, p->text, strlen(p->text), p->path, err);
		}
	}
	if (looks_like_path(name_or_path))
		return load_file(cfg, name_or_path, err);

	char names[512] = "";
	size_t used = 0;
	for (size_t i = 0; i < gpuvm_shipped_presets_count && used < sizeof names; i++)
		used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
					 gpuvm_shipped_presets[i].name);
	return gpuvm_fail(err, "argument", 0, NULL,
			  "unknown GPU preset '%s' (shipped presets: %s; a file path must "
			  "contain '/' or end in .ini)", name_or_path, names);
}

/* ---- --set ---- */

static const char *key_name_at(size_t i, const void *ctx)
{
	(void)ctx;
	return i < cfg_key_total() ? cfg_key_get(i)->name : NULL;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int gpuvm_config_set(struct gpuvm_config *cfg, const char *assignment,
		     const char *origin, struct gpuvm_error *err)
{
	if (!origin)
		origin = "--set";
	if (!assignment)
		return gpuvm_fail(err, origin, 0, NULL, "expected key=value");
	size_t n = strlen(assignment);
	char *copy = malloc(n + 1);
	if (!copy)
		return gpuvm_fail(err, origin, 0, NULL, "out of memory");
	memcpy(copy, assignment, n + 1);

	int rc = 0;
	char problem[600];
	char *eq = strchr(copy, '=');
	if (!eq) {
		rc = gpuvm_fail(err, origin, 0, NULL, "expected key=value, got '%s'", assignment);
		goto out;
	}
	*eq = '\0';
	char *key = trim(copy), *value = trim(eq + 1);
	int id = cfg_key_find(key);
	if (id < 0) {
		const char *near = gpuvm_suggest(key, key_name_at, NULL);
		rc = gpuvm_fail(err, origin, 0, key[0] ? key : "(empty)", "unknown key%s%s%s",
				near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
		goto out;
	}
	if (cfg_key_parse(cfg_key_get(id), cfg, value, false, problem, sizeof problem)) {
		rc = gpuvm_fail(err, origin, 0, cfg_key_get(id)->name, "%s", problem);
		goto out;
	}
	record_origin(cfg, id, origin, 0);
out:
	free(copy);
	return rc;
}

/* ---- get / iterate ---- */

int gpuvm_config_get(const struct gpuvm_config *cfg, const char *key,
		     char *buf, size_t buflen)
{
	int id = key ? cfg_key_find(key) : -1;
	if (id < 0 || !buf)
		return -1;
	return cfg_key_format(cfg_key_get(id), cfg, buf, buflen);
}

static bool key_active(const struct gpuvm_config *cfg, size_t id)
{
	const struct cfg_key *k = cfg_key_get(id);
	/* the memory-partition and CTA-placement keys are listed (a report's
	 * config, config_hash) only where they change the model from the one
	 * before them (one partition, round robin), so runs of an unchanged
	 * model keep their reports bit for bit */
	if (cfg && (id == K_MEM_PARTITIONS || id == K_MEM_PARTITION_INTERLEAVE))
		return cfg->mem_partitions != 1;
	if (cfg && id == K_CTA_PLACEMENT)
		return cfg->cta_placement != 0;
	if (cfg && k->quiet_default) {
		/* listed once it differs from its default (cfg_key.quiet_default) */
		char buf[64];
		if (cfg_key_format(k, cfg, buf, sizeof buf))
			return true;
		if (k->type == CT_STRING)
			return strcmp(buf, k->def_str) != 0;
		double v;
		memcpy(&v, (const char *)cfg + k->off, sizeof v);
		return v != k->def;
	}
	if (!cfg || k->level < 0)
		return true;
	if ((uint32_t)k->level >= cfg->tlb_levels)
		return false;
	if (id == (size_t)CFG_TLB_KEY(k->level, KT_SHARE_MAP))
		return cfg->tlb[k->level].share == GPUVM_SHARE_MAP;
	return true;
}

const char *gpuvm_config_key_at(const struct gpuvm_config *cfg, size_t i)
{
	for (size_t id = 0, n_keys = cfg_key_total(); id < n_keys; id++) {
		if (!key_active(cfg, id))
			continue;
		if (i-- == 0)
			return cfg_key_get(id)->name;
	}
	return NULL;
}

/* ---- finalize ---- */

static int check_grid(struct gpuvm_config *cfg, struct gpuvm_error *err, uint32_t *phys_out)
{
	uint64_t phys = (uint64_t)cfg->gpcs * cfg->tpcs_per_gpc * cfg->sms_per_tpc;
	if (phys > MAX_PHYS_SMS) {
		const int ks[] = {K_GPCS, K_TPCS_PER_GPC, K_SMS_PER_TPC};
		return fail_at(err, cfg, latest_of(cfg, ks, 3),
			       "the physical grid gpcs %u x tpcs_per_gpc %u x sms_per_tpc %u = %llu "
			       "SMs exceeds %d", cfg->gpcs, cfg->tpcs_per_gpc, cfg->sms_per_tpc,
			       (unsigned long long)phys, MAX_PHYS_SMS);
	}
	bool seen[MAX_PHYS_SMS] = {false};
	for (uint32_t i = 0; i < cfg->disabled_sms_len; i++) {
		uint32_t p = cfg->disabled_sms[i];
		/* blame the key set last: a preset based on p100 that shrinks
		 * the grid broke p100's disabled_sms, not the other way round */
		const int gk[] = {K_DISABLED_SMS, K_GPCS, K_TPCS_PER_GPC, K_SMS_PER_TPC};
		if (p >= phys)
			return fail_at(err, cfg, latest_of(cfg, gk, 4),
				       "physical SM id %u in gpu.disabled_sms is out of range (the grid has %llu SMs, "
				       "ids 0..%llu)", p, (unsigned long long)phys,
				       (unsigned long long)phys - 1);
		if (seen[p])
			return fail_at(err, cfg, K_DISABLED_SMS, "physical SM id %u is listed twice", p);
		seen[p] = true;
	}
	if (phys - cfg->disabled_sms_len != cfg->sms) {
		const int ks[] = {K_SMS, K_GPCS, K_TPCS_PER_GPC, K_SMS_PER_TPC, K_DISABLED_SMS};
		return fail_at(err, cfg, latest_of(cfg, ks, 5),
			       "gpu.sms = %u, but gpcs %u x tpcs_per_gpc %u x sms_per_tpc %u - %u "
			       "disabled_sms = %llu active SMs", cfg->sms, cfg->gpcs, cfg->tpcs_per_gpc,
			       cfg->sms_per_tpc, cfg->disabled_sms_len,
			       (unsigned long long)(phys - cfg->disabled_sms_len));
	}
	*phys_out = (uint32_t)phys;
	return 0;
}

/* Physical id of each logical SM, in %smid order. */
static void lay_out_sms(const struct gpuvm_config *cfg, uint32_t phys, uint16_t *phys_of)
{
	bool off[MAX_PHYS_SMS] = {false};
	for (uint32_t i = 0; i < cfg->disabled_sms_len; i++)
		off[cfg->disabled_sms[i]] = true;
	uint32_t n = 0;
	if (cfg->sm_numbering == GPUVM_SM_INTERLEAVED) {
		for (uint32_t r = 0; r < cfg->tpcs_per_gpc; r++)
			for (uint32_t g = 0; g < cfg->gpcs; g++)
				for (uint32_t k = 0; k < cfg->sms_per_tpc; k++) {
					uint32_t p = (g * cfg->tpcs_per_gpc + r) * cfg->sms_per_tpc + k;
					if (!off[p])
						phys_of[n++] = (uint16_t)p;
				}
	} else {
		for (uint32_t p = 0; p < phys; p++)
			if (!off[p])
				phys_of[n++] = (uint16_t)p;
	}
}

static int finalize_level(struct gpuvm_config *cfg, int lv, const uint16_t *phys_of,
			  struct gpuvm_error *err)
{
	struct gpuvm_tlb_level_config *t = &cfg->tlb[lv];
	if (t->ways && t->entries % t->ways) {
		const int ks[] = {CFG_TLB_KEY(lv, KT_WAYS), CFG_TLB_KEY(lv, KT_ENTRIES)};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "%u ways do not divide %u entries (use ways = 0 for fully associative)",
			       t->ways, t->entries);
	}
	int map_key = CFG_TLB_KEY(lv, KT_SHARE_MAP), share_key = CFG_TLB_KEY(lv, KT_SHARE);
	if (t->share == GPUVM_SHARE_MAP) {
		if (t->share_map_len != cfg->sms) {
			const int ks[] = {map_key, K_SMS};
			int at = cfg->set_at[map_key].seq ? latest_of(cfg, ks, 2) : share_key;
			return fail_at(err, cfg, at,
				       "share = map needs one instance id per active SM: share_map "
				       "has %u entries, gpu.sms is %u", t->share_map_len, cfg->sms);
		}
	} else if (t->share_map_len && set_against(cfg, map_key, share_key)) {
		return fail_at(err, cfg, map_key, "share_map is only used with share = map (share is %s)",
			       gpuvm_share_domain_name(t->share));
	}

	/* Group key of each logical SM, then dense ids by first appearance. */
	uint32_t group[GPUVM_MAX_SMS], distinct[GPUVM_MAX_SMS];
	uint32_t ndistinct = 0;
	uint32_t per_gpc = cfg->tpcs_per_gpc * cfg->sms_per_tpc;
	for (uint32_t s = 0; s < cfg->sms; s++) {
		uint32_t p = phys_of[s];
		switch (t->share) {
		case GPUVM_SHARE_SM: group[s] = s; break;
		case GPUVM_SHARE_TPC: group[s] = p / cfg->sms_per_tpc; break;
		case GPUVM_SHARE_GPC: group[s] = p / per_gpc; break;
		case GPUVM_SHARE_GPU: group[s] = 0; break;
		case GPUVM_SHARE_MAP: group[s] = t->share_map[s]; break;
		}
	}
	for (uint32_t s = 0; s < cfg->sms; s++) {
		uint32_t id = 0;
		while (id < ndistinct && distinct[id] != group[s])
			id++;
		if (id == ndistinct)
			distinct[ndistinct++] = group[s];
		t->instance_of_sm[s] = (uint16_t)id;
	}
	t->instances = ndistinct;
	return 0;
}

/* A preset defines every key in use, or names a base: nothing is taken
 * from the built-in generic GPU without the user saying so. */
static int check_every_key_set(const struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	for (size_t id = 0, n_keys = cfg_key_total(); id < n_keys; id++) {
		const struct cfg_key *k = cfg_key_get(id);
		if (cfg->set_at[id].seq || cfg_key_optional(id))
			continue;
		if (k->level >= 0 && (uint32_t)k->level >= cfg->tlb_levels)
			continue;
		/* a sharing map only exists with share = map (checked below) */
		if (k->type == CT_U16_LIST && k->level >= 0)
			continue;
		const struct gpuvm_config_origin *lv = &cfg->set_at[K_TLB_LEVELS];
		if (k->level >= 0 && lv->seq && lv->line == 0)
			return gpuvm_fail(err, lv->origin, 0, k->name,
					  "missing: tlb.levels = %u needs every key of [tlb.l%d] "
					  "(give them with --set too)", cfg->tlb_levels, k->level + 1);
		return gpuvm_fail(err, cfg->source, 0, k->name,
				  "missing: a preset sets every key, or starts with 'base = NAME' "
				  "(a shipped preset or a file) and overrides what differs");
	}
	return 0;
}

int gpuvm_config_finalize(struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	char problem[600];

	/* Single-field rules of every key in use (also catches fields set by
	 * code rather than through a key). */
	if (cfg_key_check(cfg_key_get(K_TLB_LEVELS), cfg, problem, sizeof problem))
		return fail_at(err, cfg, K_TLB_LEVELS, "%s", problem);
	for (size_t id = 0, n_keys = cfg_key_total(); id < n_keys; id++) {
		const struct cfg_key *k = cfg_key_get(id);
		if (k->level >= 0 && (uint32_t)k->level >= cfg->tlb_levels) {
			if (set_against(cfg, (int)id, K_TLB_LEVELS))
				return fail_at(err, cfg, (int)id,
					       "level %d is above tlb.levels = %u (raise tlb.levels "
					       "or remove [tlb.l%d])", k->level + 1, cfg->tlb_levels,
					       k->level + 1);
			continue;
		}
		if (cfg_key_check(k, cfg, problem, sizeof problem))
			return fail_at(err, cfg, (int)id, "%s", problem);
	}

	if (cfg->require_every_key && check_every_key_set(cfg, err))
		return -1;

	/* 0 is off; below 1 % asks for more than 100x the working set as
	 * device memory (1e-300 overflows the page count) */
	if (cfg->uvm_oversub_percent > 0 && cfg->uvm_oversub_percent < 1)
		return fail_at(err, cfg, K_UVM_OVERSUB, "%g: must be 0 (off) or from 1 to 1000",
			       cfg->uvm_oversub_percent);

	uint32_t phys = 0;
	if (check_grid(cfg, err, &phys))
		return -1;

	/* L2 geometry. */
	if (cfg->l2_line_bytes % cfg->l2_sector_bytes) {
		const int ks[] = {K_L2_SECTOR, K_L2_LINE};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "sector_size %u does not divide line_size %u", cfg->l2_sector_bytes,
			       cfg->l2_line_bytes);
	}
	uint64_t way_line = (uint64_t)cfg->l2_ways * cfg->l2_line_bytes;
	if (cfg->l2_bytes % way_line) {
		const int ks[] = {K_L2_SIZE, K_L2_WAYS, K_L2_LINE};
		char sz[32];
		gpuvm_format_size(cfg->l2_bytes, sz, sizeof sz);
		return fail_at(err, cfg, latest_of(cfg, ks, 3),
			       "size %s is not a whole number of sets of ways %u x line_size %u "
			       "= %llu bytes", sz, cfg->l2_ways, cfg->l2_line_bytes,
			       (unsigned long long)way_line);
	}

	/* Memory partitions: each a whole number of L2 sets and channels. */
	if (cfg->l2_bytes % ((uint64_t)cfg->mem_partitions * way_line)) {
		const int ks[] = {K_MEM_PARTITIONS, K_L2_SIZE, K_L2_WAYS, K_L2_LINE};
		return fail_at(err, cfg, latest_of(cfg, ks, 4),
			       "mem.partitions %u does not divide the L2 into whole sets of %llu bytes",
			       cfg->mem_partitions, (unsigned long long)way_line);
	}
	if (cfg->dram_channels % cfg->mem_partitions) {
		const int ks[] = {K_MEM_PARTITIONS, K_DRAM_CHANNELS};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "mem.partitions %u does not divide dram.channels %u",
			       cfg->mem_partitions, cfg->dram_channels);
	}
	if (cfg->mem_partition_interleave_bytes < cfg->l2_line_bytes) {
		const int ks[] = {K_MEM_PARTITION_INTERLEAVE, K_L2_LINE};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "mem.partition_interleave %u is smaller than l2.line_size %u",
			       cfg->mem_partition_interleave_bytes, cfg->l2_line_bytes);
	}
	if (cfg->mem_far_latency_cycles > 0 && cfg->mem_partitions != 2) {
		const int ks[] = {K_MEM_FAR_LATENCY, K_MEM_PARTITIONS};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "mem.far_latency_cycles needs mem.partitions = 2 (a near and a far "
			       "half), not %u", cfg->mem_partitions);
	}

	/* L1 geometry (when there is an L1). */
	if (cfg->l1_bytes) {
		if (cfg->l1_line_bytes % cfg->l2_sector_bytes) {
			const int ks[] = {K_L2_SECTOR, K_L1_LINE};
			return fail_at(err, cfg, latest_of(cfg, ks, 2),
				       "l2.sector_size %u does not divide l1.line_size %u",
				       cfg->l2_sector_bytes, cfg->l1_line_bytes);
		}
		if (cfg->l1_line_bytes / cfg->l2_sector_bytes > 8) {
			const int ks[] = {K_L2_SECTOR, K_L1_LINE};
			return fail_at(err, cfg, latest_of(cfg, ks, 2),
				       "l1.line_size %u holds more than 8 sectors of %u bytes",
				       cfg->l1_line_bytes, cfg->l2_sector_bytes);
		}
		uint64_t l1_way_line = (uint64_t)cfg->l1_ways * cfg->l1_line_bytes;
		if (cfg->l1_bytes % l1_way_line) {
			const int ks[] = {K_L1_SIZE, K_L1_WAYS, K_L1_LINE};
			return fail_at(err, cfg, latest_of(cfg, ks, 3),
				       "l1.size %llu is not a whole number of sets of ways %u x line_size %u",
				       (unsigned long long)cfg->l1_bytes, cfg->l1_ways, cfg->l1_line_bytes);
		}
	}
	/* Unified L1/shared array: carve-outs ascending, the largest the
	 * shared memory an SM offers, all inside the array. */
	if (cfg->l1_unified_bytes) {
		const int ks[] = {K_L1_UNIFIED, K_SMEM_CARVEOUTS, K_SMEM_SIZE};
		if (!cfg->l1_bytes || !cfg->smem_carveouts_len)
			return fail_at(err, cfg, latest_of(cfg, ks, 2),
				       "l1.unified_size needs an L1 (l1.size > 0) and smem.carveouts");
		for (uint32_t i = 1; i < cfg->smem_carveouts_len; i++)
			if (cfg->smem_carveouts_kib[i] <= cfg->smem_carveouts_kib[i - 1])
				return fail_at(err, cfg, K_SMEM_CARVEOUTS,
					       "smem.carveouts must ascend (%u after %u)",
					       cfg->smem_carveouts_kib[i], cfg->smem_carveouts_kib[i - 1]);
		uint64_t top = (uint64_t)cfg->smem_carveouts_kib[cfg->smem_carveouts_len - 1] << 10;
		if (top != cfg->smem_bytes)
			return fail_at(err, cfg, latest_of(cfg, ks + 1, 2),
				       "the largest carve-out (%llu KiB) is not smem.size (%llu bytes)",
				       (unsigned long long)(top >> 10), (unsigned long long)cfg->smem_bytes);
		if (top + (uint64_t)cfg->l1_ways * cfg->l1_line_bytes > cfg->l1_unified_bytes)
			return fail_at(err, cfg, latest_of(cfg, ks, 3),
				       "l1.unified_size %llu leaves no L1 set beside the largest carve-out",
				       (unsigned long long)cfg->l1_unified_bytes);
	}
	if (cfg->dram_banks) {
		double closed = (cfg->dram_trp_ns + cfg->dram_trcd_ns + cfg->dram_tcas_ns) * cfg->clock_mhz * 1e-3;
		if (closed > cfg->dram_latency_cycles) {
			const int ks[] = {K_DRAM_LATENCY, K_DRAM_TRCD, K_DRAM_TRP, K_DRAM_TCAS};
			return fail_at(err, cfg, latest_of(cfg, ks, 4),
				       "dram.latency_cycles %g is less than a row miss's trp + trcd + "
				       "tcas = %g cycles (it is the whole DRAM part of a load)",
				       cfg->dram_latency_cycles, closed);
		}
	}
	if (cfg->schedulers_per_sm > cfg->max_warps_per_sm)
		return fail_at(err, cfg, K_CORE_SCHEDULERS, "%u schedulers for %u warps per SM",
			       cfg->schedulers_per_sm, cfg->max_warps_per_sm);

	/* 0 means unlimited; anything else must hold at least one 4 KiB page,
	 * or every access would evict the page it just faulted in */
	if (cfg->uvm_device_memory_bytes && cfg->uvm_device_memory_bytes < 4096)
		return fail_at(err, cfg, K_UVM_DEVICE_MEMORY,
			       "%llu bytes is less than one 4KiB page (0 = unlimited; range 4KiB .. 64TiB)",
			       (unsigned long long)cfg->uvm_device_memory_bytes);
	/* module names: the "known" lists come from the registry (gpuvm/module.h) */
	if (!gpuvm_uvm_prefetcher_known(cfg->uvm_prefetcher))
		return fail_at(err, cfg, K_UVM_PREFETCHER, "unknown prefetcher '%s' (known: %s)",
			       cfg->uvm_prefetcher, gpuvm_module_names(GPUVM_MODULE_PREFETCH));
	if (cfg->uvm_prefetcher_oversub[0] && !gpuvm_uvm_prefetcher_known(cfg->uvm_prefetcher_oversub))
		return fail_at(err, cfg, K_UVM_PREFETCHER_OVERSUB, "unknown prefetcher '%s' (known: %s; empty = keep)",
			       cfg->uvm_prefetcher_oversub, gpuvm_module_names(GPUVM_MODULE_PREFETCH));
	if (!gpuvm_uvm_eviction_known(cfg->uvm_eviction))
		return fail_at(err, cfg, K_UVM_EVICTION, "unknown eviction policy '%s' (known: %s)",
			       cfg->uvm_eviction, gpuvm_module_names(GPUVM_MODULE_EVICT));
	if (!gpuvm_uvm_migration_known(cfg->uvm_migration))
		return fail_at(err, cfg, K_UVM_MIGRATION, "unknown migration policy '%s' (known: %s)",
			       cfg->uvm_migration, gpuvm_module_names(GPUVM_MODULE_MIGRATE));
	if (!gpuvm_module_find(GPUVM_MODULE_L1_REPLACEMENT, cfg->l1_replacement))
		return fail_at(err, cfg, K_L1_REPLACEMENT, "unknown L1 replacement policy '%s' (known: %s)",
			       cfg->l1_replacement, gpuvm_module_names(GPUVM_MODULE_L1_REPLACEMENT));

	for (uint32_t lv = 0; lv < cfg->tlb_levels; lv++)
		if (!xlat_peer_find(cfg->tlb[lv].peer))
			return fail_at(err, cfg, CFG_TLB_KEY(lv, KT_PEER),
				       "unknown TLB sharing scheme '%s' (known: %s)", cfg->tlb[lv].peer,
				       xlat_peer_names());

	uint16_t phys_of[GPUVM_MAX_SMS];
	lay_out_sms(cfg, phys, phys_of);
	for (int lv = 0; lv < GPUVM_MAX_TLB_LEVELS; lv++) {
		struct gpuvm_tlb_level_config *t = &cfg->tlb[lv];
		if ((uint32_t)lv >= cfg->tlb_levels) {
			memset(t->instance_of_sm, 0, sizeof t->instance_of_sm);
			t->instances = 0;
			continue;
		}
		if (finalize_level(cfg, lv, phys_of, err))
			return -1;
		memset(t->instance_of_sm + cfg->sms, 0,
		       (GPUVM_MAX_SMS - cfg->sms) * sizeof t->instance_of_sm[0]);
	}
	return 0;
}
