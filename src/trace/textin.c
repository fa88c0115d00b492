/* Numbered text lines from a plain or xz-compressed file (liblzma). */
#include "trace/readers.h"

#include "gpuvm/input_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TEXTIN_CHUNK (64u << 10)

int textin_open(struct textin *t, const char *path, struct gpuvm_error *err)
{
	memset(t, 0, sizeof *t);
	snprintf(t->path, sizeof t->path, "%s", path);
	size_t n = strlen(path);
	t->xz = n > 3 && !strcmp(path + n - 3, ".xz");
	t->f = gpuvm_input_fopen(path, "trace file", err);
	if (!t->f)
		return -1;
	t->data = malloc(TEXTIN_CHUNK);
	t->in = t->xz ? malloc(TEXTIN_CHUNK) : NULL;
	if (!t->data || (t->xz && !t->in)) {
		textin_close(t);
		return gpuvm_fail(err, path, 0, NULL, "out of memory");
	}
	if (t->xz) {
		lzma_stream init = LZMA_STREAM_INIT;
		t->lz = init;
		/* 256 MiB caps the decoder's dictionary (xz -9 needs 65 MiB). */
		if (lzma_stream_decoder(&t->lz, 256u << 20, LZMA_CONCATENATED) != LZMA_OK) {
			textin_close(t);
			return gpuvm_fail(err, path, 0, NULL, "cannot start the xz decoder");
		}
	}
	return 0;
}

void textin_close(struct textin *t)
{
	if (t->f)
		fclose(t->f);
	if (t->xz)
		lzma_end(&t->lz);
	free(t->in);
	free(t->data);
	free(t->line);
	memset(t, 0, sizeof *t);
}

/* Notes where the block just read has its first NUL byte. */
static long block_read(struct textin *t)
{
	const unsigned char *z = memchr(t->data, 0, t->len);
	t->nul_at = z ? (size_t)(z - t->data) : t->len;
	return (long)t->len;
}

/* Refills data; returns bytes available (0 at end) or -1. */
static long refill(struct textin *t, struct gpuvm_error *err)
{
	t->pos = t->len = t->nul_at = 0;
	if (t->eof)
		return 0;
	if (!t->xz) {
		size_t n = fread(t->data, 1, TEXTIN_CHUNK, t->f);
		if (n == 0) {
			if (ferror(t->f))
				return gpuvm_fail(err, t->path, (int)t->line_no + 1, NULL, "read error");
			t->eof = true;
		}
		t->len = n;
		return block_read(t);
	}
	t->lz.next_out = t->data;
	t->lz.avail_out = TEXTIN_CHUNK;
	while (t->lz.avail_out == TEXTIN_CHUNK) {
		lzma_action action = LZMA_RUN;
		if (t->lz.avail_in == 0) {
			size_t n = fread(t->in, 1, TEXTIN_CHUNK, t->f);
			if (ferror(t->f))
				return gpuvm_fail(err, t->path, (int)t->line_no + 1, NULL, "read error");
			t->lz.next_in = t->in;
			t->lz.avail_in = n;
			if (n == 0)
				action = LZMA_FINISH;
		}
		lzma_ret r = lzma_code(&t->lz, action);
		if (r == LZMA_STREAM_END) {
			t->eof = true;
			break;
		}
		if (r != LZMA_OK)
			return gpuvm_fail(err, t->path, (int)t->line_no + 1, NULL,
					  r == LZMA_BUF_ERROR ? "truncated xz data"
							      : "corrupt xz data (liblzma error %d)",
					  (int)r);
	}
	t->len = TEXTIN_CHUNK - t->lz.avail_out;
	return block_read(t);
}

int textin_getline(struct textin *t, char **line, size_t *len, struct gpuvm_error *err)
{
	size_t n = 0;
	bool any = false;
	for (;;) {
		if (t->pos == t->len) {
			long r = refill(t, err);
			if (r < 0)
				return -1;
			if (r == 0)
				break;
		}
		any = true;
		unsigned char *start = t->data + t->pos;
		unsigned char *nl = memchr(start, '\n', t->len - t->pos);
		size_t take = nl ? (size_t)(nl - start) : t->len - t->pos;
		if (t->nul_at >= t->pos && t->nul_at < t->pos + take)
			return gpuvm_fail(err, t->path, (int)t->line_no + 1, NULL,
					  "NUL byte in a text trace (binary file?)");
		if (n + take + 1 > TEXTIN_MAX_LINE)
			return gpuvm_fail(err, t->path, (int)t->line_no + 1, NULL,
					  "line longer than %u bytes", TEXTIN_MAX_LINE);
		if (n + take + 1 > t->line_cap) {
			size_t cap = t->line_cap ? t->line_cap : 256;
			while (cap < n + take + 1)
				cap *= 2;
			char *p = realloc(t->line, cap);
			if (!p)
				return gpuvm_fail(err, t->path, 0, NULL, "out of memory");
			t->line = p;
			t->line_cap = cap;
		}
		memcpy(t->line + n, start, take);
		n += take;
		t->pos += take + (nl ? 1 : 0);
		if (nl)
			break;
	}
	if (!any && n == 0)
		return 0;
	if (n && t->line[n - 1] == '\r')
		n--;
	t->line[n] = 0;
	t->line_no++;
	*line = t->line;
	*len = n;
	return 1;
}
