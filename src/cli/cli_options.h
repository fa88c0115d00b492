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
 *  - which options name files the command writes: each command declares
 *    them beside its option table (struct gpuvm_cli_output: a file, a
 *    figure with its .gp script, a file prefix, a directory, and derived
 *    files such as a checkpoint), and gpuvm_cli_claim_outputs claims every
 *    one given, derived files included, in the output registry
 *    (output_file.h) right after the parse, before any work: two outputs
 *    on one file are refused naming both options.
 *  - the table is the CLI's own: `gpuvm --list-options [COMMAND [SUB]]`
 *    prints it as the parser sees it (tests/cli/output_registry.sh walks
 *    every command and every pair of its outputs from it).
 * Messages go to the caller (why[]), which prefixes "gpuvm COMMAND: ". */
#ifndef GPUVM_CLI_OPTIONS_H
#define GPUVM_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/error.h"

#define GPUVM_CLI_MAX_OPTS 64

/* How an output option's value names what it writes. */
enum gpuvm_cli_out_kind {
	GPUVM_CLI_OUT_FILE,   /* the file itself ("-": standard output) */
	GPUVM_CLI_OUT_FIGURE, /* a figure, and its gnuplot script (fig.png -> fig.gp) */
	GPUVM_CLI_OUT_PREFIX, /* PREFIX.csv, PREFIX.json, PREFIX.png, PREFIX.gp */
	GPUVM_CLI_OUT_DIR,    /* a directory whose files the command writes */
};

struct gpuvm_cli_output {
	const char *name; /* the long option's name, as in the option table;
			     for a positional output, its name in the usage ("OUT") */
	enum gpuvm_cli_out_kind kind;
	const char *derived; /* FILE: VALUE+derived is written too (".partial"), or NULL */
	const char *derived_what; /* what that file is ("its checkpoint") */
	const char *const *files; /* DIR: fnmatch patterns of the files written in it */
	int position; /* 0: an option; k > 0: the k-th positional argument
			 after the (sub)command ("trace convert IN OUT": OUT is 2) */
};

/* gpuvm_getopt's return when a non-repeatable option came twice (why set). */
#define GPUVM_GETOPT_REPEATED (-2)

struct gpuvm_getopt {
	const struct option *opts;     /* the command's getopt_long table */
	const char *const *repeatable; /* long names that may repeat, NULL-ended */
	const struct gpuvm_cli_output *outputs; /* {NULL}-ended, or NULL: none */
	const char *arg[GPUVM_CLI_MAX_OPTS]; /* per opts[] entry: its last value */
	/* per opts[] entry: its first occurrence as typed, NULL if not yet */
	const char *first_word[GPUVM_CLI_MAX_OPTS], *first_value[GPUVM_CLI_MAX_OPTS];
	int longindex; /* opts[] index of the option returned, -1 for a short one not in opts */
	char why[640];
};

/* Starts a parse (optind = 1, opterr = 0 are the caller's, as before). */
void gpuvm_getopt_init(struct gpuvm_getopt *g, const struct option *opts,
		       const char *const *repeatable);

/* Declares the command's output options (a {NULL}-ended array that
 * outlives the parse). Called after init, before the first gpuvm_getopt. */
void gpuvm_getopt_outputs(struct gpuvm_getopt *g, const struct gpuvm_cli_output *outputs);

/* Claims every declared output that was given, and its derived files, in
 * the output registry (gpuvm_output_claim / _claim_dir): 0, or -1 with err
 * naming both options when two of them are one file. Called once, right
 * after the parse loop. */
int gpuvm_cli_claim_outputs(const struct gpuvm_getopt *g, struct gpuvm_error *err);

/* Claims a positional output: the entry of outputs (the array given to
 * gpuvm_getopt_outputs) at that position, given value. 0, or -1 with err
 * naming both when another output is the same file, or when no entry
 * declares that position (a positional output must be in the table, so
 * that `--list-options` shows it and the registry test walks it). */
int gpuvm_cli_claim_positional(const struct gpuvm_cli_output *outputs, int position,
			       const char *value, struct gpuvm_error *err);

/* The same for a command's main: forgets earlier claims, claims, and on a
 * conflict prints "gpuvm COMMAND: MESSAGE" and returns 2 (else 0). */
int gpuvm_cli_claim_or_report(const struct gpuvm_getopt *g, const char *command);

/* `gpuvm --list-options COMMAND`: main sets this to a descriptor, and the
 * command's first gpuvm_getopt prints its table there and exits 0 instead
 * of parsing; -1 (the default): parse. Lines, tab-separated:
 *   option NAME SHORT(-) flag|value|optional repeat|once file|figure|prefix|dir|-
 *   positional NAME POSITION file|figure|prefix|dir   (an output given as
 *              the POSITION-th argument after the (sub)command)
 *   claims NAME PATH file|dir|in-dir WHAT   (the files NAME claims for "same.png") */
extern int gpuvm_cli_list_fd;

/* getopt_long, then the repeat rule: the option's code, -1 at the end, '?'
 * (unknown option) or ':' (missing value) with g->why one line -- "unknown
 * option '--ovresub' (did you mean '--oversub'?)", "option --csv needs a
 * value" -- or GPUVM_GETOPT_REPEATED with g->why "--oversub given twice
 * ('--oversub 110', then '--oversub=150'); give it once". getopt_long
 * prints nothing (gpuvm_getopt_init clears opterr): the command prints
 * "gpuvm COMMAND: WHY (see gpuvm COMMAND --help)", never its usage. */
int gpuvm_getopt(struct gpuvm_getopt *g, int argc, char **argv, const char *shortopts);

/* The hint for a misspelt command, subcommand, option or preset: "; did
 * you mean 'NAME'?" for the name of names[] (NULL-ended) closest to word,
 * as gpuvm_suggest judges a likely typo, or "" when none is (or out of
 * memory). Appended to the message, before "(see ... --help)". */
const char *gpuvm_cli_did_you_mean(const char *word, const char *const *names);

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
