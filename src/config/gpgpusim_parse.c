/* Reading a GPGPU-Sim / Accel-Sim gpgpusim.config into its options
 * (gpuvm/gpgpusim_import.h). The syntax is GPGPU-Sim's own
 * (src/option_parser.cc, OptionParser::ParseFile and ParseStringStream):
 * each line loses what follows its first '#', the lines are joined, the
 * result is split at white space, a token opening with '"' takes the
 * tokens up to one ending with '"', and the tokens pair as option and
 * value; "-config FILE" parses FILE there. Unlike GPGPU-Sim, which only
 * knows tokens, every option keeps the line it was given on, so messages
 * and the imported preset's comments can cite file:line.
 *
 * Contract (gpuvm/gpgpusim_import.h states the syntax):
 *  - Owns: struct gpuvm_gs_config's option list.
 *  - May call: nothing outside src/config and core (input files, errors).
 *  - Guarantees: every option keeps the file and line of its name; a
 *    refusal names file:line; the input is never run or written. */
#include "gpuvm/gpgpusim_import.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/input_file.h"

/* Far above any gpgpusim.config (Accel-Sim's are 6-10 KB). */
#define GS_MAX_FILE_BYTES (4u << 20)
/* Accel-Sim nests none; 8 leaves room and stops a file including itself. */
#define GS_MAX_DEPTH 8

struct gs_lex {
	struct gpuvm_gs_config *gs;
	const char *origin;
	const char *dir;
	int depth;
	struct gpuvm_error *err;
	char *name; /* an option waiting for its value */
	int name_line;
	char *quote; /* a quoted value being gathered */
	size_t qlen, qcap;
	int quote_line;
};

static int parse_depth(struct gpuvm_gs_config *gs, const char *text, size_t len,
		       const char *origin, const char *dir, int depth, struct gpuvm_error *err);

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

struct gpuvm_gs_option *gpuvm_gs_find(const struct gpuvm_gs_config *gs, const char *name)
{
	for (size_t i = 0; i < gs->n; i++)
		if (!strcmp(gs->opt[i].name, name))
			return &gs->opt[i];
	return NULL;
}

/* An option given again replaces its value and place (GPGPU-Sim keeps the
 * last value it parsed). */
static int add_option(struct gs_lex *lx, char *name, const char *value, size_t vlen, int line)
{
	struct gpuvm_gs_config *gs = lx->gs;
	char *v = dup_n(value, vlen), *f = dup_n(lx->origin, strlen(lx->origin));
	struct gpuvm_gs_option *o = gpuvm_gs_find(gs, name);
	if (!o && gs->n == gs->cap) {
		size_t cap = gs->cap ? gs->cap * 2 : 64;
		struct gpuvm_gs_option *p = realloc(gs->opt, cap * sizeof *p);
		if (p) {
			gs->opt = p;
			gs->cap = cap;
		}
	}
	if (!v || !f || (!o && gs->n == gs->cap)) {
		free(v);
		free(f);
		free(name);
		return gpuvm_fail(lx->err, lx->origin, line, NULL, "out of memory");
	}
	if (o) {
		free(name);
		free(o->value);
		free(o->file);
	} else {
		o = &gs->opt[gs->n++];
		o->name = name;
	}
	o->value = v;
	o->file = f;
	o->line = line;
	o->used = false;
	o->why = NULL;
	return 0;
}

static int include_file(struct gs_lex *lx, const char *file, int line)
{
	if (!*file)
		return gpuvm_fail(lx->err, lx->origin, line, "-config", "needs a file name");
	if (lx->depth + 1 >= GS_MAX_DEPTH)
		return gpuvm_fail(lx->err, lx->origin, line, "-config",
				  "'%s': includes nested deeper than %d (does a file include itself?)",
				  file, GS_MAX_DEPTH);
	size_t need = strlen(file) + (lx->dir ? strlen(lx->dir) : 0) + 2;
	char *path = malloc(need);
	if (!path)
		return gpuvm_fail(lx->err, lx->origin, line, NULL, "out of memory");
	if (file[0] == '/' || !lx->dir || !*lx->dir)
		snprintf(path, need, "%s", file);
	else
		snprintf(path, need, "%s/%s", lx->dir, file);
	struct gpuvm_error inner;
	FILE *f = gpuvm_input_fopen(path, "gpgpusim.config include", &inner);
	if (!f) {
		free(path);
		return gpuvm_fail(lx->err, lx->origin, line, "-config", "%s", inner.msg);
	}
	char *buf = malloc(GS_MAX_FILE_BYTES + 1);
	size_t n = buf ? fread(buf, 1, GS_MAX_FILE_BYTES + 1, f) : 0;
	int bad = !buf || ferror(f) || n > GS_MAX_FILE_BYTES;
	fclose(f);
	int rc;
	if (bad) {
		rc = gpuvm_fail(lx->err, lx->origin, line, "-config", "'%s': %s", path,
				buf ? "read error or over 4 MiB" : "out of memory");
	} else {
		const char *slash = strrchr(path, '/');
		char *dir = slash ? dup_n(path, (size_t)(slash - path)) : NULL;
		rc = parse_depth(lx->gs, buf, n, path, dir, lx->depth + 1, lx->err);
		free(dir);
	}
	free(buf);
	free(path);
	return rc;
}

/* The option waiting for a value gets this one. */
static int give_value(struct gs_lex *lx, const char *v, size_t n)
{
	char *name = lx->name;
	int line = lx->name_line;
	lx->name = NULL;
	if (!strcmp(name, "-config")) {
		char *file = dup_n(v, n);
		free(name);
		if (!file)
			return gpuvm_fail(lx->err, lx->origin, line, NULL, "out of memory");
		int rc = include_file(lx, file, line);
		free(file);
		return rc;
	}
	return add_option(lx, name, v, n, line);
}

static bool is_option_name(const char *t, size_t n)
{
	return n > 1 && t[0] == '-' && (isalpha((unsigned char)t[1]) || t[1] == '_');
}

static int quote_append(struct gs_lex *lx, const char *t, size_t n)
{
	if (lx->qlen + n + 2 > lx->qcap) {
		size_t cap = (lx->qlen + n + 2) * 2;
		char *q = realloc(lx->quote, cap);
		if (!q)
			return gpuvm_fail(lx->err, lx->origin, lx->quote_line, NULL, "out of memory");
		lx->quote = q;
		lx->qcap = cap;
	}
	if (lx->qlen)
		lx->quote[lx->qlen++] = ' ';
	memcpy(lx->quote + lx->qlen, t, n);
	lx->qlen += n;
	lx->quote[lx->qlen] = 0;
	return 0;
}

static int token(struct gs_lex *lx, const char *t, size_t n, int line)
{
	if (lx->quote_line) {
		if (quote_append(lx, t, n))
			return -1;
		if (t[n - 1] != '"')
			return 0;
		lx->quote_line = 0;
		/* the words between the quotes */
		int rc = give_value(lx, lx->quote + 1, lx->qlen - 2);
		lx->qlen = 0;
		return rc;
	}
	if (lx->name) {
		if (is_option_name(t, n)) {
			/* the one before is a flag given no value */
			if (give_value(lx, "", 0))
				return -1;
		} else if (t[0] == '"') {
			lx->quote_line = line;
			lx->qlen = 0;
			if (quote_append(lx, t, n))
				return -1;
			if (n >= 2 && t[n - 1] == '"') {
				lx->quote_line = 0;
				int rc = give_value(lx, lx->quote + 1, n - 2);
				lx->qlen = 0;
				return rc;
			}
			return 0;
		} else {
			return give_value(lx, t, n);
		}
	}
	if (!is_option_name(t, n))
		return gpuvm_fail(lx->err, lx->origin, line, NULL,
				  "expected an option ('-name value', as '-gpgpu_n_clusters 80'), got '%.*s'",
				  (int)(n > 60 ? 60 : n), t);
	lx->name = dup_n(t, n);
	lx->name_line = line;
	if (!lx->name)
		return gpuvm_fail(lx->err, lx->origin, line, NULL, "out of memory");
	return 0;
}

static int parse_depth(struct gpuvm_gs_config *gs, const char *text, size_t len,
		       const char *origin, const char *dir, int depth, struct gpuvm_error *err)
{
	struct gs_lex lx = {.gs = gs, .origin = origin, .dir = dir, .depth = depth, .err = err};
	int rc = 0, line = 1;
	for (size_t i = 0; i < len && !rc; line++) {
		size_t eol = i;
		while (eol < len && text[eol] != '\n')
			eol++;
		size_t end = i;
		while (end < eol && text[end] != '#')
			end++;
		while (i < end && !rc) {
			while (i < end && (isspace((unsigned char)text[i]) || !text[i]))
				i++;
			size_t s = i;
			while (i < end && !isspace((unsigned char)text[i]) && text[i])
				i++;
			if (i > s)
				rc = token(&lx, text + s, i - s, line);
		}
		i = eol + 1;
	}
	if (!rc && lx.quote_line)
		rc = gpuvm_fail(err, origin, lx.quote_line, lx.name, "unterminated quote (no token ends with '\"')");
	if (!rc && lx.name)
		rc = give_value(&lx, "", 0);
	free(lx.name);
	free(lx.quote);
	return rc;
}

int gpuvm_gs_parse_text(struct gpuvm_gs_config *gs, const char *text, size_t len,
			const char *origin, const char *dir, struct gpuvm_error *err)
{
	if (!gs->path) {
		gs->path = dup_n(origin, strlen(origin));
		if (!gs->path)
			return gpuvm_fail(err, origin, 0, NULL, "out of memory");
	}
	return parse_depth(gs, text, len, origin, dir, 0, err);
}

int gpuvm_gs_parse_file(struct gpuvm_gs_config *gs, const char *path, struct gpuvm_error *err)
{
	FILE *f = gpuvm_input_fopen(path, "gpgpusim.config", err);
	if (!f)
		return -1;
	char *buf = malloc(GS_MAX_FILE_BYTES + 1);
	size_t n = buf ? fread(buf, 1, GS_MAX_FILE_BYTES + 1, f) : 0;
	int rerr = ferror(f);
	fclose(f);
	if (!buf)
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	if (rerr || n > GS_MAX_FILE_BYTES) {
		free(buf);
		return gpuvm_fail(err, path, 0, NULL, "%s", rerr ? "read error" : "over 4 MiB: not a gpgpusim.config");
	}
	const char *slash = strrchr(path, '/');
	char *dir = slash ? dup_n(path, (size_t)(slash - path)) : NULL;
	int rc = gpuvm_gs_parse_text(gs, buf, n, path, dir ? (*dir ? dir : "/") : NULL, err);
	free(dir);
	free(buf);
	return rc;
}

void gpuvm_gs_free(struct gpuvm_gs_config *gs)
{
	for (size_t i = 0; i < gs->n; i++) {
		free(gs->opt[i].name);
		free(gs->opt[i].value);
		free(gs->opt[i].file);
	}
	free(gs->opt);
	free(gs->path);
	*gs = (struct gpuvm_gs_config){0};
}
