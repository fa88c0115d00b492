/* Reader for real input files of the SePo workloads (read_log.c): web
 * logs for sepo-pvc, and files of one record per line for the
 * fixed-format applications. */
#ifndef GPUVM_READ_LOG_H
#define GPUVM_READ_LOG_H

#include <stdint.h>

#include "gpuvm/error.h"

struct log_reader {
	int fd;
	uint64_t lines, size;
	uint64_t *index, nindex; /* offset of lines 0, 64, 128, ... */
	uint32_t raw_bytes;      /* 0: web log (URL records); else a line per record of this size */
};

/* Opens, checks (regular text file, lines up to 1 MiB, at least one line)
 * and indexes path; errors name the file and line. */
int log_reader_open(struct log_reader *r, const char *path, struct gpuvm_error *err);
/* The same for a file whose every line is one record of rec_bytes (a
 * multiple of 8): the line as it is, space-padded, '\n' last; a line
 * longer than rec_bytes - 1 is an error naming file and line. */
int log_reader_open_lines(struct log_reader *r, const char *path, uint32_t rec_bytes,
			  struct gpuvm_error *err);
/* Records [first, first + n) (8 words each, raw_bytes / 8 for a file of
 * records); -1 on a read error. Safe
 * from several threads at once. */
int log_reader_fill(const struct log_reader *r, uint64_t first, uint64_t n, unsigned long long *out);
void log_reader_close(struct log_reader *r);

#endif
