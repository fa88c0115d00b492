/* The rules every command's options follow, in one place (issue 79):
 *  - which options may be given more than once: each command declares the
 *    long names that may repeat beside its option table (a NULL-ended list);
 *    a valued option not on it, given twice, is an error quoting both
 *    occurrences. Flags (no value) may repeat: twice means what once does.
 *  - --set KEY=VALUE: config keys compare case-insensitively, as the
 *    config reads them, so "--set UVM.Migration=x --set uvm.migration=y"
 *    is one key given twice; a sweep's --set may not name a key it varies;
 *  - option text built from an argument ("uvm.oversub_percent=VALUE", a
 *    trace spec) is formatted whole on the heap, never cut to a fixed
 *    buffer (sweep --oversub kept 64 bytes: a 47-digit spelling of 125 ran
 *    as 1.25 %).
 * Messages go to the caller (why[]), which prefixes "gpuvm COMMAND: ". */
#ifndef GPUVM_CLI_OPTIONS_H
#define GPUVM_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#define GPUVM_CLI_MAX_OPTS 64

/* gpuvm_getopt's return when a non-repeatable option came twice (why set). */
#define GPUVM_GETOPT_REPEATED (-2)

struct gpuvm_getopt {
	const struct option *opts;     /* the command's getopt_long table */
	const char *const *repeatable; /* long names that may repeat, NULL-ended */
	/* per opts[] entry: its first occurrence as typed, NULL if not yet */
	const char *first_word[GPUVM_CLI_MAX_OPTS], *first_value[GPUVM_CLI_MAX_OPTS];
	int longindex; /* opts[] index of the option returned, -1 for a short one not in opts */
	char why[640];
};

/* Starts a parse (optind = 1, opterr = 0 are the caller's, as before). */
void gpuvm_getopt_init(struct gpuvm_getopt *g, const struct option *opts,
		       const char *const *repeatable);

/* getopt_long, then the repeat rule: the option's code, -1 at the end, '?'
 * (unknown option) or ':' (missing value) with g->why one line -- "unknown
 * option '--ovresub' (did you mean '--oversub'?)", "option --csv needs a
 * value" -- or GPUVM_GETOPT_REPEATED with g->why "--oversub given twice
 * ('--oversub 110', then '--oversub=150'); give it once". getopt_long
 * prints nothing (gpuvm_getopt_init clears opterr): the command prints
 * "gpuvm COMMAND: WHY (see gpuvm COMMAND --help)", never its usage. */
int gpuvm_getopt(struct gpuvm_getopt *g, int argc, char **argv, const char *shortopts);

/* The name of names[] (NULL-ended) closest to word, as gpuvm_suggest
 * judges a likely typo, or NULL: "did you mean" for commands, subcommands
 * and presets. */
const char *gpuvm_cli_suggest(const char *word, const char *const *names);

/* Whether a[0..na) and b[0..nb) name one config key: case-insensitively,
 * as the config reads them (config_keys.c). */
bool gpuvm_cli_same_key(const char *a, size_t na, const char *b, size_t nb);

/* The --set list's key rule: 0, or -1 with why naming the key and both
 * settings when two entries set one key (case-insensitively) to different
 * values, or when an entry sets a key of vary_keys (n_vary of them). */
int gpuvm_cli_check_sets(const char *const *sets, int n_sets, const char *const *vary_keys,
			 size_t n_vary, char *why, size_t len);

/* printf into a heap string the size it needs; it lives until the process
 * ends (option text that a run spec points at). NULL only when out of
 * memory. */
const char *gpuvm_cli_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
