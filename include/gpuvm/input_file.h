/* Input files that cannot hang or surprise a reader.
 *
 * Presets, traces and graphs are read whole or by record and must be
 * regular files: a FIFO with no writer would block open() forever, a
 * directory reads as EISDIR half-way, and a device never ends. The file
 * is opened with O_NONBLOCK (so a FIFO's open returns at once), checked
 * with fstat, and refused unless regular; the descriptor then blocks
 * again for plain reads. Messages name the path and what it is. */
#ifndef GPUVM_INPUT_FILE_H
#define GPUVM_INPUT_FILE_H

#include <stdio.h>

#include "gpuvm/error.h"

/* Read-only descriptor of a regular file, or -1 with err set; what names
 * the role in messages ("preset file", "trace"). */
int gpuvm_input_open(const char *path, const char *what, struct gpuvm_error *err);

/* The same as a stdio stream ("rb"); NULL with err set. */
FILE *gpuvm_input_fopen(const char *path, const char *what, struct gpuvm_error *err);

/* The one reader of the text inputs that may come from a pipe: stats
 * --check, probe --input, calibrate --table, validate --manifest, sweep
 * merge's parts, sweep --resume's CSV, sweep's cache files, system files.
 * The choice (issue 79): a FIFO, a pipe ("<(cmd)") or a character device is
 * read, not refused, but bounded:
 *   - opened with O_NONBLOCK, so a FIFO with no writer does not block open;
 *   - read through poll(): when no byte arrives for GPUVM_INPUT_WAIT_S
 *     seconds (default 10; a FIFO nobody writes to), the input is refused
 *     "no data for 10 s (a FIFO with no writer?)";
 *   - at most GPUVM_INPUT_MAX_STREAM_BYTES (64 MiB) are read: /dev/zero is
 *     refused past that, "gave more than 64 MiB", not read until memory
 *     runs out;
 * and the bytes are handed over in a temporary file (tmpfile), so callers
 * read a stream as before. A regular file is opened as it is, after the
 * same check against max_bytes (0: no limit); a directory, socket or block
 * device is refused. NULL with err set (the path and what it is). */
#define GPUVM_INPUT_MAX_STREAM_BYTES (64ull << 20)
FILE *gpuvm_input_fopen_any(const char *path, const char *what, unsigned long long max_bytes,
			    struct gpuvm_error *err);

#endif
