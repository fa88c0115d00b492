/* The options' shared rules (cli_options.h). */
#include "cli_options.h"
#include "gpuvm/output_file.h"
#include "gpuvm/plot.h"

#include "getopt_message.h"
#include "gpuvm/suggest.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void gpuvm_getopt_init(struct gpuvm_getopt *g, const struct option *opts,
		       const char *const *repeatable)
{
	memset(g, 0, sizeof *g);
	opterr = 0; /* the messages are ours: one line, with a suggestion */
	g->opts = opts;
	g->repeatable = repeatable;
	g->longindex = -1;
}

void gpuvm_getopt_outputs(struct gpuvm_getopt *g, const struct gpuvm_cli_output *outputs)
{
	g->outputs = outputs;
}

int gpuvm_cli_list_fd = -1;

static bool may_repeat(const struct gpuvm_getopt *g, const struct option *o);

static const struct gpuvm_cli_output *output_of(const struct gpuvm_getopt *g, const char *name)
{
	for (const struct gpuvm_cli_output *o = g->outputs; o && o->name; o++)
		if (!o->position && !strcmp(o->name, name))
			return o;
	return NULL;
}

static const char *const kind_words[] = {"file", "figure", "prefix", "dir"};

/* Each path an output claims for VALUE, with what it is; 0 or what cb
 * returned. */
static int each_claim(const struct gpuvm_cli_output *o, const char *value,
		      int (*cb)(void *, const char *path, const char *what,
				const char *const *dir_files), void *ctx)
{
	static const char *const none[] = {NULL};
	char what[96], *path = NULL;
	struct stat st;
	int rc = 0;
	/* an option is "--json"; a positional output its usage name, "OUT" */
	snprintf(what, sizeof what, "%s%s", o->position ? "" : "--", o->name);
	switch (o->kind) {
	case GPUVM_CLI_OUT_FILE:
		rc = cb(ctx, value, what, NULL);
		/* a derived file beside a regular output only (not "-", not a device) */
		if (!rc && o->derived && strcmp(value, "-") &&
		    (stat(value, &st) != 0 || S_ISREG(st.st_mode))) {
			path = malloc(strlen(value) + strlen(o->derived) + 1);
			if (!path)
				return -1;
			sprintf(path, "%s%s", value, o->derived);
			snprintf(what, sizeof what, "--%s (%s)", o->name,
				 o->derived_what ? o->derived_what : o->derived);
			rc = cb(ctx, path, what, NULL);
		}
		break;
	case GPUVM_CLI_OUT_FIGURE: {
		rc = cb(ctx, value, what, NULL);
		char gp[4096];
		if (!rc && gpuvm_plot_script_path(value, gp, sizeof gp)) {
			snprintf(what, sizeof what, "--%s (its gnuplot script)", o->name);
			rc = cb(ctx, gp, what, NULL);
		}
		break;
	}
	case GPUVM_CLI_OUT_PREFIX: {
		if (stat(value, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ||
					      S_ISFIFO(st.st_mode)))
			return cb(ctx, value, what, NULL); /* the data alone, in place */
		static const char *const ext[] = {".csv", ".json", ".png", ".gp"};
		path = malloc(strlen(value) + 6);
		if (!path)
			return -1;
		for (int i = 0; i < 4 && !rc; i++) {
			sprintf(path, "%s%s", value, ext[i]);
			rc = cb(ctx, path, what, NULL);
		}
		break;
	}
	case GPUVM_CLI_OUT_DIR:
		rc = cb(ctx, value, what, o->files ? o->files : none);
		break;
	}
	free(path);
	return rc;
}

static int claim_one(void *ctx, const char *path, const char *what, const char *const *dir_files)
{
	struct gpuvm_error *err = ctx;
	return dir_files ? gpuvm_output_claim_dir(path, dir_files, what, err)
			 : gpuvm_output_claim(path, what, err);
}

int gpuvm_cli_claim_outputs(const struct gpuvm_getopt *g, struct gpuvm_error *err)
{
	for (int k = 0; g->opts[k].name && k < GPUVM_CLI_MAX_OPTS; k++) {
		const struct gpuvm_cli_output *o = output_of(g, g->opts[k].name);
		if (o && g->arg[k] && each_claim(o, g->arg[k], claim_one, err))
			return -1;
	}
	return 0;
}

int gpuvm_cli_claim_positional(const struct gpuvm_cli_output *outputs, int position,
			       const char *value, struct gpuvm_error *err)
{
	for (const struct gpuvm_cli_output *o = outputs; o && o->name; o++)
		if (o->position == position)
			return each_claim(o, value, claim_one, err);
	return gpuvm_fail(err, "argument", 0, value,
			  "positional argument %d is written but not declared an output "
			  "(struct gpuvm_cli_output.position)", position);
}

int gpuvm_cli_claim_or_report(const struct gpuvm_getopt *g, const char *command)
{
	struct gpuvm_error err;
	gpuvm_output_claims_reset();
	if (gpuvm_cli_claim_outputs(g, &err) == 0)
		return 0;
	fprintf(stderr, "gpuvm %s: %s\n", command, err.msg);
	return 2;
}

static int print_claim(void *ctx, const char *path, const char *what, const char *const *dir_files)
{
	const char *name = ctx;
	dprintf(gpuvm_cli_list_fd, "claims\t%s\t%s\t%s\t%s\n", name, path, dir_files ? "dir" : "file", what);
	for (const char *const *p = dir_files; p && *p; p++)
		dprintf(gpuvm_cli_list_fd, "claims\t%s\t%s/%s\tin-dir\t%s\n", name, path, *p, what);
	return 0;
}

/* The table as the parser sees it, one line an option, then the files
 * each output claims for the sample value "same.png". */
static void list_table(const struct gpuvm_getopt *g, const char *shortopts)
{
	for (int k = 0; g->opts[k].name; k++) {
		const struct option *o = &g->opts[k];
		const struct gpuvm_cli_output *out = output_of(g, o->name);
		char sh[2] = {0};
		if (!o->flag && o->val > 0 && o->val < 128 && strchr(shortopts, o->val))
			sh[0] = (char)o->val;
		dprintf(gpuvm_cli_list_fd, "option\t%s\t%s\t%s\t%s\t%s\n", o->name, *sh ? sh : "-",
		       o->has_arg == no_argument	 ? "flag"
		       : o->has_arg == required_argument ? "value"
							 : "optional",
		       may_repeat(g, o) ? "repeat" : "once", out ? kind_words[out->kind] : "-");
	}
	for (const struct gpuvm_cli_output *o = g->outputs; o && o->name; o++)
		if (o->position)
			dprintf(gpuvm_cli_list_fd, "positional\t%s\t%d\t%s\n", o->name, o->position,
				kind_words[o->kind]);
	for (const struct gpuvm_cli_output *o = g->outputs; o && o->name; o++)
		each_claim(o, "same.png", print_claim, (void *)o->name);
	exit(0);
}

static bool may_repeat(const struct gpuvm_getopt *g, const struct option *o)
{
	if (o->has_arg == no_argument)
		return true; /* a flag twice means what it means once */
	for (const char *const *r = g->repeatable; r && *r; r++)
		if (!strcmp(*r, o->name))
			return true;
	return false;
}

/* "'--oversub 110'" or "'--oversub=110'", as typed */
static void quote(char *buf, size_t len, const char *word, const char *value)
{
	if (value)
		snprintf(buf, len, "'%.100s %.100s'", word, value);
	else
		snprintf(buf, len, "'%.200s'", word);
}

static const char *long_name_at(size_t i, const void *ctx)
{
	const struct option *opts = ctx;
	for (size_t k = 0; k <= i; k++)
		if (!opts[k].name)
			return NULL;
	return opts[i].name;
}

static const char *name_in_list(size_t i, const void *ctx)
{
	const char *const *names = ctx;
	for (size_t k = 0; k <= i; k++)
		if (!names[k])
			return NULL;
	return names[i];
}

const char *gpuvm_cli_did_you_mean(const char *word, const char *const *names)
{
	const char *near = gpuvm_suggest(word, name_in_list, names);
	const char *hint = near ? gpuvm_cli_format("; did you mean '%s'?", near) : NULL;
	return hint ? hint : "";
}

/* g->why for getopt_long's '?' or ':': gpuvm_getopt_message's wording,
 * and for an unknown long option the command's closest one */
static void explain(struct gpuvm_getopt *g, int c, char **argv)
{
	gpuvm_getopt_message(c, argv, optind, optopt, g->why, sizeof g->why);
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	if (c != '?' || strncmp(arg, "--", 2) || strncmp(g->why, "unknown option", 14))
		return;
	char name[64];
	size_t n = strcspn(arg + 2, "=");
	snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), arg + 2);
	const char *near = gpuvm_suggest(name, long_name_at, g->opts);
	size_t used = strlen(g->why);
	if (near)
		snprintf(g->why + used, sizeof g->why - used, "; did you mean '--%s'?", near);
}

int gpuvm_getopt(struct gpuvm_getopt *g, int argc, char **argv, const char *shortopts)
{
	if (gpuvm_cli_list_fd >= 0)
		list_table(g, shortopts ? shortopts : "");
	int li = -1;
	/* a leading ':' makes getopt_long tell a missing value (':') from an
	 * unknown option ('?') */
	char colon_opts[64];
	if (shortopts[0] != ':' && strlen(shortopts) + 2 <= sizeof colon_opts) {
		snprintf(colon_opts, sizeof colon_opts, ":%s", shortopts);
		shortopts = colon_opts;
	}
	int c = getopt_long(argc, argv, shortopts, g->opts, &li);
	g->longindex = li;
	if (c == '?' || c == ':') {
		explain(g, c, argv);
		return c;
	}
	if (c == -1)
		return c;
	if (li < 0) /* a short option: its long twin, if it has one */
		for (int k = 0; g->opts[k].name; k++)
			if (!g->opts[k].flag && g->opts[k].val == c) {
				li = g->longindex = k;
				break;
			}
	if (li >= 0 && li < GPUVM_CLI_MAX_OPTS)
		g->arg[li] = optarg;
	if (li < 0 || li >= GPUVM_CLI_MAX_OPTS || may_repeat(g, &g->opts[li]))
		return c;
	/* the words typed: "--x VALUE" (two words) or "--x=VALUE", "-jN" (one) */
	const char *word, *value = NULL;
	if (optarg && optind >= 2 && optarg == argv[optind - 1]) {
		word = argv[optind - 2];
		value = optarg;
	} else {
		word = optind >= 1 ? argv[optind - 1] : "";
	}
	if (!g->first_word[li]) {
		g->first_word[li] = word;
		g->first_value[li] = value;
		return c;
	}
	char a[208], b[208];
	quote(a, sizeof a, g->first_word[li], g->first_value[li]);
	quote(b, sizeof b, word, value);
	snprintf(g->why, sizeof g->why, "--%.60s given twice (%s, then %s); give it once",
		 g->opts[li].name, a, b);
	return GPUVM_GETOPT_REPEATED;
}

static size_t key_len(const char *set)
{
	size_t n = strcspn(set, "=");
	while (n && (set[n - 1] == ' ' || set[n - 1] == '\t'))
		n--;
	return n;
}

bool gpuvm_cli_same_key(const char *a, size_t na, const char *b, size_t nb)
{
	return na == nb && !strncasecmp(a, b, na);
}

int gpuvm_cli_check_sets(const char *const *sets, int n_sets, const char *const *vary_keys,
			 size_t n_vary, char *why, size_t len)
{
	for (int i = 0; i < n_sets; i++) {
		size_t a = key_len(sets[i]);
		for (size_t v = 0; v < n_vary; v++)
			if (gpuvm_cli_same_key(sets[i], a, vary_keys[v], strlen(vary_keys[v]))) {
				snprintf(why, len, "--set '%s' names '%s', which --vary varies: "
					 "give the key one way", sets[i], vary_keys[v]);
				return -1;
			}
		for (int j = 0; j < i; j++) {
			size_t b = key_len(sets[j]);
			/* config keys are case-insensitive (config_keys.c), so
			 * the check is too; the same setting twice is harmless */
			if (gpuvm_cli_same_key(sets[i], a, sets[j], b) &&
			    strcmp(sets[i] + a, sets[j] + b) != 0) {
				snprintf(why, len, "--set: key '%.*s' given twice ('%s', then '%s')",
					 (int)b, sets[j], sets[j], sets[i]);
				return -1;
			}
		}
	}
	return 0;
}

static char **kept;
static size_t n_kept, cap_kept;

const char *gpuvm_cli_format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if (n_kept == cap_kept) {
		size_t cap = cap_kept ? 2 * cap_kept : 16;
		char **k = realloc(kept, cap * sizeof *k);
		if (!k)
			return NULL;
		kept = k;
		cap_kept = cap;
	}
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	/* kept reachable, so a leak checker sees it owned until exit */
	kept[n_kept++] = s;
	return s;
}
