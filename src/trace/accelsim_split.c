/* A large Accel-Sim kernel file parsed in parts on threads
 * (accelsim_internal.h: as_split_parts, as_transcode_parts).
 *
 * A kernel file's thread blocks follow one another, each opened by a
 * "#BEGIN_TB" line and numbered by the "thread block = x,y,z" line after
 * it, and each warp's instructions are encoded in the native format on
 * their own (native_write_warp_begin resets the writer). So the file can
 * be cut at "#BEGIN_TB" lines near equal byte offsets, each part parsed
 * by its own thread into its own scratch file, and the parts appended in
 * order: the bytes one parse of the whole file writes. With --threads 2
 * the kernel's parse takes the reader's thread and one more while the
 * engine waits for the kernel (a 110 MB single-kernel trace: about half
 * of its replay is the parse). Anything unexpected at a cut, or an error
 * in any part, gives the file back to the one-thread parse, which reports
 * the file's first error at its line as before. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "par/thread_profile.h"
#include "trace/accelsim_internal.h"
#include "core/env_knob.h"

/* A part's least size: below it a thread's start and a scratch file's
 * copy are not paid back (the parse reads ~250 MB/s a core here). */
#define AS_SPLIT_PART_BYTES (16ull << 20)
/* How far past a cut's offset a "#BEGIN_TB" line is looked for. */
#define AS_SPLIT_SEARCH_BYTES (8u << 20)

static uint64_t part_bytes(void)
{
	return env_knob_u64("GPUVM_TRACE_SPLIT_BYTES", AS_SPLIT_PART_BYTES, 1, UINT64_MAX);
}

/* The file offset of t's next byte (plain files), or -1. */
static long long text_offset(const struct textin *t)
{
	off_t o = ftello(t->f);
	return o < 0 ? -1 : (long long)o - (long long)(t->len - t->pos);
}

/* The first "#BEGIN_TB" line starting at or after offset from (from > 0)
 * in fd: *text_at just past it, *cta the block the "thread block" line
 * after it names. 0 when found within AS_SPLIT_SEARCH_BYTES. */
static int find_cut(int fd, uint64_t from, const struct as_header *h, uint64_t *text_at,
		    uint64_t *cta)
{
	enum { WINDOW = 1 << 20, TAIL = 512 };
	char *buf = malloc(WINDOW + 1);
	if (!buf)
		return -1;
	int rc = -1;
	bool stop = false;
	/* from - 1: the newline before a line that starts at from */
	for (uint64_t at = from - 1; at < from + AS_SPLIT_SEARCH_BYTES && rc && !stop;) {
		ssize_t n = pread(fd, buf, WINDOW, (off_t)at);
		if (n <= 0)
			break;
		buf[n] = 0;
		char *p = buf, *end = buf + n, *nl = NULL;
		while (rc && !stop && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			nl = p;
			char *line = p + 1;
			if (n == WINDOW && end - line < TAIL)
				break; /* it may run past the window: read on from its newline */
			p = line;
			if (end - line < 9 || strncmp(line, "#BEGIN_TB", 9))
				continue;
			/* the rest of the line blank, then blank lines, then the
			 * block's number */
			char *q = line + 9;
			while (*q == ' ' || *q == '\t' || *q == '\r')
				q++;
			if (*q != '\n')
				continue;
			uint64_t after = at + (uint64_t)(q + 1 - buf);
			while (*q == '\n' || *q == ' ' || *q == '\t' || *q == '\r')
				q++;
			uint32_t b[3];
			const char *rest;
			/* a number past 32 bits makes no cut either: the
			 * parse that reads the line names it */
			if (as_parse_block(NULL, 0, q, b, &rest, NULL) ||
			    b[0] >= h->grid[0] || b[1] >= h->grid[1] || b[2] >= h->grid[2]) {
				stop = true; /* not the layout expected: no cut */
				break;
			}
			*cta = b[0] + (uint64_t)h->grid[0] * (b[1] + (uint64_t)h->grid[1] * b[2]);
			*text_at = after;
			rc = 0;
		}
		if (n < WINDOW)
			break; /* the file's end */
		at += nl && nl > buf ? (uint64_t)(nl - buf) : (uint64_t)n;
	}
	free(buf);
	return rc;
}

unsigned as_split_parts(const struct textin *t, const struct as_header *h, uint32_t threads,
			struct as_cuts *cuts)
{
	struct stat st;
	if (threads < 2 || t->xz || fstat(fileno(t->f), &st) || !S_ISREG(st.st_mode))
		return 1;
	long long at = text_offset(t);
	if (at < 0 || st.st_size <= at)
		return 1;
	uint64_t parts = (uint64_t)(st.st_size - at) / part_bytes();
	if (parts > threads)
		parts = threads;
	if (parts > AS_SPLIT_MAX_PARTS)
		parts = AS_SPLIT_MAX_PARTS;
	/* the cuts: increasing offsets and blocks, else fewer parts */
	uint64_t ctas = as_grid_ctas(h);
	unsigned n = 1;
	cuts->at[0] = (uint64_t)at;
	cuts->cta[0] = 0;
	for (unsigned i = 1; i < parts; i++) {
		uint64_t from = (uint64_t)at + ((uint64_t)st.st_size - (uint64_t)at) * i / parts;
		uint64_t ta = 0, c = 0;
		if (from <= cuts->at[n - 1] || find_cut(fileno(t->f), from, h, &ta, &c) ||
		    ta <= cuts->at[n - 1] || c <= cuts->cta[n - 1] || c >= ctas)
			continue;
		cuts->at[n] = ta;
		cuts->cta[n] = c;
		n++;
	}
	cuts->cta[n] = ctas;
	cuts->n = n;
	return n;
}

struct part {
	const char *path;
	const struct as_header *h;
	struct op_ahead *ahead;
	struct textin *t; /* the first part: the caller's, past the header */
	uint64_t text_at, first, end;
	bool last, infer;
	FILE *out;
	struct alloc_infer inf;
	struct gpuvm_error err;
	int rc;
	pthread_t tid;
	bool started;
};

static int part_parse(struct part *p)
{
	struct textin own;
	struct textin *t = p->t;
	if (!t) {
		if (textin_open(&own, p->path, &p->err))
			return -1;
		t = &own;
		if (fseeko(t->f, (off_t)p->text_at, SEEK_SET)) {
			textin_close(&own);
			return gpuvm_fail(&p->err, p->path, 0, NULL, "cannot seek");
		}
	}
	struct native_writer nw;
	int rc = native_writer_init(&nw, p->out, p->path, false, NATIVE_CHUNK_BYTES, &p->err);
	if (!rc) {
		struct as_ctx c = {.t = t, .h = p->h, .nw = &nw, .inf = p->infer ? &p->inf : NULL,
				   .ahead = p->ahead};
		rc = as_parse_blocks(&c, p->first, p->end, p->last, &p->err);
		if (!rc && fflush(p->out))
			rc = gpuvm_fail(&p->err, p->path, 0, NULL,
					"scratch file write failed (disk full?)");
		native_writer_free(&nw);
	}
	if (t == &own)
		textin_close(&own);
	return rc;
}

static void *part_main(void *arg)
{
	struct part *p = arg;
	p->rc = part_parse(p);
	return NULL;
}

/* Appends the scratch file f to out. */
static int append(FILE *out, FILE *f)
{
	char buf[64 << 10];
	rewind(f);
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return -1;
	return ferror(f) ? -1 : 0;
}

/* Adds the granules one part touched to inf. */
static int merge_granules(struct alloc_infer *inf, const struct alloc_infer *from)
{
	for (uint32_t i = u64map_next(&from->set, 0); i < u64map_slots(&from->set);
	     i = u64map_next(&from->set, i + 1))
		if (infer_add(inf, (from->set.e[i].key - 1) << INFER_GRANULE_SHIFT))
			return -1;
	return 0;
}

int as_transcode_parts(struct textin *t, const struct as_header *h, FILE *out,
		       const struct as_cuts *cuts, struct alloc_infer *inf, struct op_ahead *ahead,
		       struct gpuvm_error *err)
{
	unsigned n = cuts->n;
	struct part part[AS_SPLIT_MAX_PARTS];
	memset(part, 0, sizeof part);
	int rc = 1;
	for (unsigned i = 0; i < n; i++) {
		struct part *p = &part[i];
		*p = (struct part){.path = t->path, .h = h, .ahead = ahead, .t = i ? NULL : t,
				   .text_at = cuts->at[i], .first = cuts->cta[i], .end = cuts->cta[i + 1],
				   .last = i == n - 1, .infer = inf != NULL};
		infer_init(&p->inf);
		struct gpuvm_error scratch_err;
		p->out = i ? trace_temp_file(&scratch_err) : out;
		if (!p->out) {
			rc = 0; /* no scratch file for a part: the whole parse needs none */
			n = i;  /* the parts set up so far are cleaned up below */
			break;
		}
	}
	for (unsigned i = 1; i < n && rc == 1; i++)
		part[i].started = !pthread_create(&part[i].tid, NULL, part_main, &part[i]);
	if (rc == 1)
		part[0].rc = part_parse(&part[0]);
	for (unsigned i = 1; i < n; i++) {
		if (part[i].started)
			pthread_join(part[i].tid, NULL);
		else if (rc == 1) /* no thread to be had: parsed here, after the first */
			part[i].rc = part_parse(&part[i]);
	}
	if (rc == 1 && op_ahead_stopping(ahead))
		rc = gpuvm_fail(err, t->path, 0, NULL, "cancelled");
	for (unsigned i = 0; i < n && rc == 1; i++)
		if (part[i].rc)
			rc = 0; /* parsed whole by the caller, which finds the error */
	for (unsigned i = 1; i < n && rc == 1; i++)
		if (append(out, part[i].out))
			rc = gpuvm_fail(err, t->path, 0, NULL, "scratch file write failed (disk full?)");
	if (rc == 1 && fflush(out))
		rc = gpuvm_fail(err, t->path, 0, NULL, "scratch file write failed (disk full?)");
	for (unsigned i = 0; i < n && rc == 1 && inf; i++)
		if (merge_granules(inf, &part[i].inf))
			rc = gpuvm_fail(err, t->path, 0, NULL, "out of memory");
	if (thread_profile_printing())
		fprintf(stderr, "threads-profile: %s: thread blocks parsed in %u parts%s\n", t->path,
			n, rc == 1 ? "" : ", then whole (a part failed)");
	for (unsigned i = 0; i < n; i++) {
		if (i && part[i].out)
			fclose(part[i].out);
		infer_free(&part[i].inf);
	}
	return rc;
}
