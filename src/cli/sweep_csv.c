/* Reading sweep CSVs back (for --resume and `sweep merge`): RFC 4180
 * fields (quotes, doubled quotes, commas and newlines inside quotes), every
 * row as wide as the header; a malformed file is refused with its name and
 * line. */
#include "gpuvm/input_file.h"
#include "sweep_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "gpuvm sweep: out of memory\n");
		exit(1);
	}
	return p;
}

struct buf {
	char *p;
	size_t n, cap;
};

static void put(struct buf *b, char c)
{
	if (b->n + 1 >= b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->p = xrealloc(b->p, b->cap);
	}
	b->p[b->n++] = c;
	b->p[b->n] = 0;
}

static char *take(struct buf *b)
{
	char *s = b->p ? b->p : xrealloc(NULL, 1);
	if (!b->p)
		s[0] = 0;
	b->p = NULL;
	b->n = b->cap = 0;
	return s;
}

static void free_row(char **row, size_t n)
{
	for (size_t c = 0; c < n; c++)
		free(row[c]);
	free(row);
}

int sweep_csv_read(const char *path, struct sweep_csv *t, struct gpuvm_error *err)
{
	memset(t, 0, sizeof *t);
	FILE *f = gpuvm_input_fopen_any(path, "CSV", 0, err);
	if (!f)
		return -1;
	t->path = strdup(path);
	struct buf field = {0};
	char **row = NULL;
	size_t nf = 0, line = 1, row_line = 1;
	bool quoted = false, was_quoted = false, any = false;
	int rc = 0;
	for (;;) {
		int ch = getc(f);
		if (quoted) {
			if (ch == EOF) {
				rc = gpuvm_fail(err, path, row_line, NULL, "unterminated quoted field");
				break;
			}
			if (ch == '"') {
				int next = getc(f);
				if (next == '"') {
					put(&field, '"');
					continue;
				}
				quoted = false;
				was_quoted = true;
				if (next != EOF)
					ungetc(next, f);
				continue;
			}
			if (ch == '\n')
				line++;
			put(&field, (char)ch);
			continue;
		}
		if (ch == '"' && field.n == 0 && !was_quoted) {
			quoted = true;
			any = true;
			continue;
		}
		if (ch == '\r')
			continue;
		if (ch == ',' || ch == '\n' || ch == EOF) {
			if (ch == EOF && !any && nf == 0)
				break; /* end of file after a newline */
			row = xrealloc(row, (nf + 1) * sizeof *row);
			row[nf++] = take(&field);
			was_quoted = false;
			if (ch == ',') {
				any = true;
				continue;
			}
			/* end of a row */
			if (t->head == NULL) {
				t->head = row;
				t->ncol = nf;
			} else if (nf != t->ncol) {
				free_row(row, nf);
				row = NULL;
				rc = gpuvm_fail(err, path, row_line, NULL,
						"%zu fields where the header has %zu", nf, t->ncol);
				break;
			} else {
				t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof *t->rows);
				t->line = xrealloc(t->line, (t->nrows + 1) * sizeof *t->line);
				t->rows[t->nrows] = row;
				t->line[t->nrows++] = row_line;
			}
			row = NULL;
			nf = 0;
			any = false;
			if (ch == EOF)
				break;
			line++;
			row_line = line;
			continue;
		}
		if (was_quoted) {
			rc = gpuvm_fail(err, path, line, NULL, "text after a closing quote");
			break;
		}
		any = true;
		put(&field, (char)ch);
	}
	if (rc == 0 && ferror(f))
		rc = gpuvm_fail(err, path, 0, NULL, "read error");
	if (rc == 0 && !t->head)
		rc = gpuvm_fail(err, path, 0, NULL, "empty file (no header)");
	free(field.p);
	if (row)
		free_row(row, nf);
	fclose(f);
	if (rc)
		sweep_csv_free(t);
	return rc;
}

void sweep_csv_free(struct sweep_csv *t)
{
	if (t->head)
		free_row(t->head, t->ncol);
	for (size_t r = 0; r < t->nrows; r++)
		free_row(t->rows[r], t->ncol);
	free(t->rows);
	free(t->line);
	free(t->path);
	memset(t, 0, sizeof *t);
}

long sweep_csv_col(const struct sweep_csv *t, const char *name)
{
	for (size_t c = 0; c < t->ncol; c++)
		if (strcmp(t->head[c], name) == 0)
			return (long)c;
	return -1;
}
