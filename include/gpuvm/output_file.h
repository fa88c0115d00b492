/* Output files that never replace what the user pointed at.
 *
 * Every file gpuvm writes (--json, --csv, --plot, --pcie-plot, --page-map,
 * trace record/convert, probe outputs, --emit-preset) goes through here:
 *
 *   - a path naming a regular file, or nothing yet, is written atomically:
 *     a temporary file in the same directory, fsync, rename;
 *   - anything else - a character or block device (/dev/null), a FIFO - is
 *     opened and written in place, never replaced;
 *   - a symlink is followed: the rules above apply to its target, and the
 *     link stays a link;
 *   - "-" is standard output (textual outputs only).
 *
 * Temporary files are kept in a fixed table that a signal handler walks
 * (unlink and rmdir are async-signal-safe), so SIGINT, SIGTERM and SIGHUP
 * leave none behind, nor the empty directories a command created. Within a
 * batch, finished outputs stay temporary (in-place targets are spooled)
 * until gpuvm_output_batch_commit, so a command's outputs appear together
 * or not at all. */
#ifndef GPUVM_OUTPUT_FILE_H
#define GPUVM_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "gpuvm/error.h"

/* Exit status of a command whose output could not be written after the
 * run (disk full, a device that refuses writes); paths refused before the
 * run exit 2 like any bad input. */
#define GPUVM_EXIT_OUTPUT_FAILED 1

enum gpuvm_output_kind {
	GPUVM_OUTPUT_ATOMIC, /* regular file or new path: temp + rename */
	GPUVM_OUTPUT_DIRECT, /* device or FIFO (or a dangling link): written in place */
	GPUVM_OUTPUT_STDOUT, /* "-" */
};

struct gpuvm_output {
	enum gpuvm_output_kind kind;
	FILE *f;	/* what the caller writes to */
	int slot;	/* temp-file table slot, -1 when there is no temp file */
	char *target;	/* where the bytes end up (a symlink resolved) */
};

/* Checks, before any work, that path can be written: its directory exists
 * and is writable, it is not a directory or socket. stdout_ok allows "-".
 * what names the option in messages ("--json"). */
int gpuvm_output_check(const char *path, const char *what, bool stdout_ok,
		       struct gpuvm_error *err);

/* The output registry: outputs resolved once. Before a run, a command
 * claims each file it will write - the options' files and the derived
 * ones: a sweep's CSV.partial checkpoint, a page map's .csv/.json/.png, a
 * figure's .gp script, a cache directory. Each path is resolved to its
 * final target - an existing file by device and inode after following
 * symlinks, a new one by the resolved directory plus its name, so "x",
 * "./x" and "d/../x" are one file - and a second claim on a target
 * already claimed is an error naming both options. Standard output ("-")
 * counts as one target; a character device (/dev/null) may be claimed
 * many times. A path naming a directory, or ending in '/', is refused.
 * reset forgets every claim (a new command). The CLI's option table
 * declares which options are outputs (cli_options.h), and
 * gpuvm_cli_claim_outputs claims them all through here. */
void gpuvm_output_claims_reset(void);
int gpuvm_output_claim(const char *path, const char *what, struct gpuvm_error *err);

/* A directory whose files a command writes, named by the fnmatch patterns
 * files[] (NULL-ended: sweep --cache "*.json", probe --csv "curves.csv",
 * ...): a file claim that one of them matches, the directory claimed as a
 * file, or another directory claim whose patterns overlap, is refused. */
int gpuvm_output_claim_dir(const char *dir, const char *const *files, const char *what,
			   struct gpuvm_error *err);

/* Whether path was claimed (or is one of a claimed directory's files). */
bool gpuvm_output_claimed(const char *path);

/* on: gpuvm_output_open refuses a path that was not claimed ("internal
 * error: this output was not claimed"), so a writer added without a claim
 * fails the first time it runs, in every test that reaches it. The gpuvm
 * CLI turns it on first thing; library users and unit tests leave it off. */
void gpuvm_output_claims_enforce(bool on);

/* Opens path for writing; o->f is the stream. On failure err is set and
 * nothing is left behind. */
int gpuvm_output_open(struct gpuvm_output *o, const char *path, struct gpuvm_error *err);

/* Finishes the stream: checks every write, fsyncs, and renames (or, in a
 * batch, keeps the result staged). On failure the temp file is removed. */
int gpuvm_output_close(struct gpuvm_output *o, struct gpuvm_error *err);

/* Abandons an open output: its temp file is removed. */
void gpuvm_output_cancel(struct gpuvm_output *o);

/* open + write text + close. */
int gpuvm_output_write_text(const char *path, const char *text, struct gpuvm_error *err);

/* A batch: outputs closed between begin and commit are staged, and commit
 * publishes them all (in-place targets first, as they are the ones that
 * can still fail, then renames). abort removes every staged file and the
 * empty directories made by gpuvm_output_mkdir. */
void gpuvm_output_batch_begin(void);
int gpuvm_output_batch_commit(struct gpuvm_error *err);
void gpuvm_output_batch_abort(void);

/* mkdir that remembers the directory, so a failed or interrupted command
 * removes it again if it is still empty. An existing directory is fine. */
int gpuvm_output_mkdir(const char *dir, struct gpuvm_error *err);

/* The command succeeded: the directories it made stay. */
void gpuvm_output_keep_dirs(void);

/* on: installs the SIGINT/SIGTERM/SIGHUP handler that removes every temp
 * file and created empty directory, then dies of the same signal; off:
 * the default action again (a forked worker that writes no output). */
void gpuvm_output_catch_signals(bool on);

/* Flushes and checks standard output (a full disk, a closed pipe, a
 * device that refuses writes): -1 with err set when something written to
 * stdout was lost. Called once when a command ends. */
int gpuvm_output_check_stdout(struct gpuvm_error *err);

/* Routes stdout's writes through a stream that remembers why the first
 * one failed, so that every command reports a lost stdout the same way:
 * "standard output: write failed: No space left on device", not "I/O
 * error" when the failing write was an earlier flush than the last (issue
 * 79). Called once, first thing in main; without it (library users, unit
 * tests) the reports fall back to errno. */
void gpuvm_output_stdout_track(void);

/* The one wording of a lost stdout: fails err with "standard output:
 * write failed: REASON", the first failed write's reason. */
int gpuvm_output_stdout_fail(struct gpuvm_error *err);

#endif
