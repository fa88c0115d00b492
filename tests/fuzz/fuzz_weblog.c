/* libFuzzer target for the web-log reader of sepo-pvc (input=FILE,
 * src/bigdata/read_log.c): the input is written to a scratch file, which
 * must either be refused with a message or open, and then every record
 * must read back, in chunks of any size, as 64-byte records in the
 * generator's layout: the URL, space padding, a newline last and nowhere
 * before it. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bigdata/read_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/gpuvm-fuzz-weblog.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	struct log_reader r;
	struct gpuvm_error err;
	if (log_reader_open(&r, path, &err) == 0) {
		if (r.lines == 0)
			abort();
		uint64_t chunk = size ? (uint64_t)data[0] % 97 + 1 : 1;
		unsigned long long *rec = malloc(chunk * 8 * sizeof *rec);
		if (rec) {
			for (uint64_t first = 0; first < r.lines; first += chunk) {
				uint64_t n = r.lines - first < chunk ? r.lines - first : chunk;
				if (log_reader_fill(&r, first, n, rec))
					abort();
				for (uint64_t i = 0; i < n; i++) {
					const char *c = (const char *)&rec[8 * i];
					if (c[63] != '\n' || memchr(c, '\n', 63))
						abort();
				}
			}
			free(rec);
		}
		log_reader_close(&r);
	} else if (!err.msg[0]) {
		abort(); /* refused without saying why */
	}
	unlink(path);
	return 0;
}
