/* Loading a GPU configuration from a preset INI file or a string.
 *
 * Presets are INI files parsed with inih through our own line reader, which
 * counts physical lines (so every message names file and line), rejects
 * over-long lines and NUL bytes instead of letting inih split them, and
 * mirrors inih's continuation-line rule so an indented line continuing a
 * list is appended rather than mistaken for a duplicate key. A preset may
 * name a base preset (loaded first, to a bounded depth).
 *
 * Owns: the INI reader's context while a file loads. May call: inih, the
 * key table's parser (config_internal.h), the origin records
 * (config_origin.h), gpuvm_config_defaults. Guarantees: every key set
 * records its file and line; a bad file, line, key or value fails with a
 * message naming the file and line and leaves no partial state behind. */

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/config_internal.h"
#include "config/config_origin.h"
#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/input_file.h"
#include "gpuvm/suggest.h"
#include "gpuvm/units.h"

#define MAX_PRESET_FILE_BYTES (1u << 20)

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
	cfg_record_origin(c->cfg, id, c->origin, c->line);
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
	cfg_copy_str(cfg->source, sizeof cfg->source, origin);
	cfg_set_name_from(cfg, origin);
	return parse_text(cfg, text ? text : "", text ? strlen(text) : 0, origin, err);
}

/* A preset file's text, origin its path: every key in use must be set
 * (require_every_key) or come from a base. The one path of `--gpu FILE`
 * (load_file) and gpuvm_config_load_preset_text. */
static int load_preset_text(struct gpuvm_config *cfg, const char *text, size_t len,
			    const char *origin, struct gpuvm_error *err)
{
	gpuvm_config_defaults(cfg);
	cfg->require_every_key = true;
	cfg_copy_str(cfg->source, sizeof cfg->source, origin);
	cfg_set_name_from(cfg, origin);
	return parse_text(cfg, text, len, origin, err);
}

int gpuvm_config_load_preset_text(struct gpuvm_config *cfg, const char *text,
				  const char *origin, struct gpuvm_error *err)
{
	if (!origin)
		origin = "(string)";
	return load_preset_text(cfg, text ? text : "", text ? strlen(text) : 0, origin, err);
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
	int rc = load_preset_text(cfg, buf, n, path, err);
	free(buf);
	return rc;
}

static const char *shipped_name_at(size_t i, const void *ctx)
{
	(void)ctx;
	return i < gpuvm_shipped_presets_count ? gpuvm_shipped_presets[i].name : NULL;
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
			cfg_copy_str(cfg->source, sizeof cfg->source, p->path);
			cfg_copy_str(cfg->name, sizeof cfg->name, p->name);
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
	const char *near = gpuvm_suggest(name_or_path, shipped_name_at, NULL);
	return gpuvm_fail(err, "argument", 0, NULL,
			  "unknown GPU preset '%s'%s%s%s (shipped presets: %s; a file path must "
			  "contain '/' or end in .ini)", name_or_path, near ? "; did you mean '" : "",
			  near ? near : "", near ? "'?" : "", names);
}
