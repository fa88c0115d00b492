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

#endif
