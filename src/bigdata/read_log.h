/* Reader for real web logs as sepo-pvc input (read_log.c). */
#ifndef GPUVM_READ_LOG_H
#define GPUVM_READ_LOG_H

#include <stdint.h>

#include "gpuvm/error.h"

struct log_reader {
	int fd;
	uint64_t lines, size;
	uint64_t *index, nindex; /* offset of lines 0, 64, 128, ... */
};

/* Opens, checks (regular text file, lines up to 1 MiB, at least one line)
 * and indexes path; errors name the file and line. */
int log_reader_open(struct log_reader *r, const char *path, struct gpuvm_error *err);
/* Records [first, first + n) (8 words each); -1 on a read error. Safe
 * from several threads at once. */
int log_reader_fill(const struct log_reader *r, uint64_t first, uint64_t n, unsigned long long *out);
void log_reader_close(struct log_reader *r);

#endif
