/* A run directory, as gem5's m5out/: everything one `gpuvm sim` produced,
 * in one place, under fixed names.
 *
 *   report.json  the full JSON report (what --json writes)
 *   stats.txt    the statistics in long form (what --stats-csv writes: one
 *                value per row, pd.read_csv reads it)
 *   config.ini   the resolved configuration as a preset: `gpuvm sim --gpu
 *                DIR/config.ini` with the same workload and seed reproduces
 *                the run (same config_hash, same statistics)
 *   log.txt      the text report (with CPU-time rates)
 *
 * Owns: the directory's checks and the config writer. Files go through
 * gpuvm/output_file.h like every output (atomic replace of regular files;
 * a device, FIFO or symlink is never replaced), in the caller's batch, so
 * a failed run leaves no partial directory (a directory it created is
 * removed again if empty).
 *
 * Safety of the default directory (gpuvm-out/, used when no output is
 * named): like m5out/ it holds the last run and is overwritten by the next
 * one, but only if gpuvm made it - an existing gpuvm-out that holds other
 * files and no config.ini of gpuvm's is refused (exit 2). A directory named
 * with --outdir is the user's choice: it is created if missing, and only
 * the four names above are replaced in it. */
#ifndef GPUVM_RUN_DIR_H
#define GPUVM_RUN_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gpuvm/error.h"

#define GPUVM_RUN_DIR_DEFAULT "gpuvm-out"
/* the first line of every config.ini gpuvm writes: marks a run directory */
#define GPUVM_RUN_DIR_MARK "; gpuvm run directory:"

enum gpuvm_run_dir_file {
	GPUVM_RUN_DIR_JSON,
	GPUVM_RUN_DIR_STATS,
	GPUVM_RUN_DIR_CONFIG,
	GPUVM_RUN_DIR_LOG,
	GPUVM_RUN_DIR_FILES
};

/* NULL-ended, so the output registry can take it as the directory's files */
extern const char *const gpuvm_run_dir_names[GPUVM_RUN_DIR_FILES + 1];

/* Writes DIR/NAME of file f into buf; -1 when it does not fit. */
int gpuvm_run_dir_path(const char *dir, enum gpuvm_run_dir_file f, char *buf, size_t len);

/* Before the run: DIR exists as a directory (or is created; its parent
 * must exist), is not a default directory gpuvm did not make, and each of
 * its four files can be written. what names the option in messages. */
int gpuvm_run_dir_prepare(const char *dir, bool is_default, const char *what,
			  struct gpuvm_error *err);

/* The run's resolved configuration ("config" of a run report) as preset
 * INI text: sections from the keys' prefixes, every value in the form the
 * preset parser reads back; command is recorded in a comment. The caller
 * frees the result; NULL when out of memory or the report has no config. */
char *gpuvm_run_dir_config_ini(const cJSON *run, const char *command);

#endif
