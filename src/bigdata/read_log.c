/* A reader for real input files, so the SePo workloads can run on a
 * user's own data (input=FILE). Web logs (sepo-pvc): one record per line, the record's URL the line's first
 * whitespace-separated token that starts with "http://", "https://" or
 * "/" (Common Log Format's request path), else its first token; a URL
 * longer than 63 bytes is cut there (the 64-byte record of the generated
 * input). Record files (the fixed-format applications): each line is a
 * record as it is. The file is checked and indexed once at open (every 64th line's
 * offset); a chunk is read again from the file when it is needed, with
 * pread, so readers on several threads (the CPU baseline) do not share a
 * file position and memory stays O(lines / 64). */
#include "bigdata/read_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_INDEX_EVERY 64
#define LOG_MAX_LINE (1u << 20)

static int open_checked(struct log_reader *r, const char *path, uint64_t max_line,
			struct gpuvm_error *err)
{
	r->fd = open(path, O_RDONLY);
	if (r->fd < 0)
		return gpuvm_fail(err, path, 0, NULL, "cannot open: %s", strerror(errno));
	struct stat st;
	if (fstat(r->fd, &st) || !S_ISREG(st.st_mode)) {
		log_reader_close(r);
		return gpuvm_fail(err, path, 0, NULL, "not a regular file");
	}
	unsigned char *buf = malloc(1 << 16);
	uint64_t cap = 1024, off = 0, line_start = 0;
	r->index = malloc(cap * sizeof *r->index);
	if (!buf || !r->index) {
		free(buf);
		log_reader_close(r);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	r->index[r->nindex++] = 0;
	for (;;) {
		ssize_t n = pread(r->fd, buf, 1 << 16, (off_t)off);
		if (n < 0) {
			free(buf);
			log_reader_close(r);
			return gpuvm_fail(err, path, 0, NULL, "read error: %s", strerror(errno));
		}
		for (ssize_t i = 0; i < n; i++) {
			uint64_t at = off + (uint64_t)i;
			if (buf[i] == 0) {
				free(buf);
				log_reader_close(r);
				return gpuvm_fail(err, path, r->lines + 1, NULL,
						  "a NUL byte (offset %llu): not a text log",
						  (unsigned long long)at);
			}
			if (buf[i] != '\n')
				continue;
			if (at - line_start > max_line) {
				free(buf);
				log_reader_close(r);
				return gpuvm_fail(err, path, r->lines + 1, NULL, "line longer than %llu bytes",
						  (unsigned long long)max_line);
			}
			r->lines++;
			line_start = at + 1;
			if (r->lines % LOG_INDEX_EVERY == 0) {
				if (r->nindex == cap) {
					uint64_t *ni = realloc(r->index, 2 * cap * sizeof *ni);
					if (!ni) {
						free(buf);
						log_reader_close(r);
						return gpuvm_fail(err, path, 0, NULL, "out of memory");
					}
					r->index = ni;
					cap *= 2;
				}
				r->index[r->nindex++] = line_start;
			}
		}
		if (n == 0)
			break;
		off += (uint64_t)n;
	}
	free(buf);
	if (off > line_start) { /* a last line without '\n' */
		if (off - line_start > max_line) {
			log_reader_close(r);
			return gpuvm_fail(err, path, r->lines + 1, NULL, "line longer than %llu bytes",
					  (unsigned long long)max_line);
		}
		r->lines++;
	}
	r->size = off;
	if (!r->lines) {
		log_reader_close(r);
		return gpuvm_fail(err, path, 0, NULL, "empty file: no lines");
	}
	return 0;
}

int log_reader_open(struct log_reader *r, const char *path, struct gpuvm_error *err)
{
	memset(r, 0, sizeof *r);
	return open_checked(r, path, LOG_MAX_LINE, err);
}

int log_reader_open_lines(struct log_reader *r, const char *path, uint32_t rec_bytes,
			  struct gpuvm_error *err)
{
	memset(r, 0, sizeof *r);
	r->raw_bytes = rec_bytes;
	return open_checked(r, path, rec_bytes - 1, err);
}

void log_reader_close(struct log_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->index);
	r->index = NULL;
}

static int url_start(const char *t, size_t n)
{
	return (n >= 7 && !memcmp(t, "http://", 7)) || (n >= 8 && !memcmp(t, "https://", 8)) ||
	       (n >= 1 && t[0] == '/');
}

/* The record of one line (64 bytes: URL, spaces, '\n'). */
static void line_record(const char *line, size_t len, unsigned char *rec)
{
	const char *tok = NULL, *first = NULL;
	size_t tlen = 0, flen = 0;
	for (size_t i = 0; i < len;) {
		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '"'))
			i++;
		size_t s = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '"')
			i++;
		if (i == s)
			break;
		if (!first) {
			first = line + s;
			flen = i - s;
		}
		if (url_start(line + s, i - s)) {
			tok = line + s;
			tlen = i - s;
			break;
		}
	}
	if (!tok) {
		tok = first;
		tlen = flen;
	}
	memset(rec, ' ', 64);
	if (tlen > 63)
		tlen = 63;
	if (tok)
		memcpy(rec, tok, tlen);
	rec[63] = '\n';
}

/* The record of one line, as it is (a '\r' of CRLF dropped). */
static void raw_record(const char *line, size_t len, unsigned char *rec, uint32_t rec_bytes)
{
	if (len && line[len - 1] == '\r')
		len--;
	memset(rec, ' ', rec_bytes);
	memcpy(rec, line, len);
	rec[rec_bytes - 1] = '\n';
}

static void fill_record(const struct log_reader *r, const char *line, size_t len,
			unsigned long long *out, uint64_t i)
{
	if (r->raw_bytes)
		raw_record(line, len, (unsigned char *)(out + i * (r->raw_bytes / 8)), r->raw_bytes);
	else
		line_record(line, len, (unsigned char *)(out + i * 8));
}

int log_reader_fill(const struct log_reader *r, uint64_t first, uint64_t n, unsigned long long *out)
{
	uint64_t line = first / LOG_INDEX_EVERY * LOG_INDEX_EVERY;
	uint64_t off = r->index[first / LOG_INDEX_EVERY];
	char *lb = malloc(LOG_MAX_LINE + 1);
	unsigned char *buf = malloc(1 << 16);
	int rc = 0;
	if (!lb || !buf) {
		rc = -1;
		goto out;
	}
	size_t ll = 0;
	while (line < first + n) {
		ssize_t got = pread(r->fd, buf, 1 << 16, (off_t)off);
		if (got < 0) {
			rc = -1;
			goto out;
		}
		if (got == 0) { /* end of file: a last line without '\n' */
			if (ll && line >= first)
				fill_record(r, lb, ll, out, line - first);
			if (ll)
				line++;
			break;
		}
		for (ssize_t i = 0; i < got && line < first + n; i++) {
			if (buf[i] != '\n') {
				if (ll < LOG_MAX_LINE)
					lb[ll++] = (char)buf[i];
				continue;
			}
			if (line >= first)
				fill_record(r, lb, ll, out, line - first);
			line++;
			ll = 0;
		}
		off += (uint64_t)got;
	}
	/* records past the file's end (callers never ask): empty lines */
	for (; line < first + n; line++)
		if (line >= first)
			fill_record(r, "", 0, out, line - first);
out:
	free(lb);
	free(buf);
	return rc;
}
