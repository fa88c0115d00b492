/* The options' shared rules (cli_options.h). */
#include "cli_options.h"

#include "getopt_message.h"
#include "gpuvm/suggest.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gpuvm_getopt_init(struct gpuvm_getopt *g, const struct option *opts,
		       const char *const *repeatable)
{
	memset(g, 0, sizeof *g);
	opterr = 0; /* the messages are ours: one line, with a suggestion */
	g->opts = opts;
	g->repeatable = repeatable;
	g->longindex = -1;
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

const char *gpuvm_cli_suggest(const char *word, const char *const *names)
{
	return gpuvm_suggest(word, name_in_list, names);
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
