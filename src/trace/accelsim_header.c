/* The Accel-Sim kernel header (accelsim_internal.h): "-key = value" lines
 * before the first thread block, as tracer_tool.cu writes them and
 * trace_parser.cc's parse_kernel_info reads them. */
#include <stdio.h>
#include <string.h>

#include "trace/accelsim_internal.h"

int as_next_nonblank(struct textin *t, char **line, struct gpuvm_error *err)
{
	size_t len;
	int r;
	while ((r = textin_getline(t, line, &len, err)) == 1 && as_is_blank(*line))
		;
	return r;
}

/* "key = value" (key from line + skip); key and value trimmed in place. */
bool as_split_kv(char *line, size_t skip, char **key, char **val)
{
	char *eq = strchr(line, '=');
	if (!eq)
		return false;
	char *k = line + skip, *ke = eq;
	while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
		ke--;
	*ke = 0;
	char *v = eq + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	char *ve = v + strlen(v);
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
		*--ve = 0;
	*key = k;
	*val = v;
	return true;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* The words of pat at p, any blanks (or none) where pat has a space, as
 * sscanf matched them: what follows, or NULL. */
static const char *match_words(const char *p, const char *pat)
{
	for (; *pat; pat++) {
		if (*pat == ' ')
			p = skip_blank(p);
		else if (*p++ != *pat)
			return NULL;
	}
	return p;
}

/* "(x,y,z)", blanks allowed around each number. Each number on the parser
 * family: sscanf's %u read 4294967299 as 3 (issue 79). */
static int parse_dim(const struct textin *t, int ln, const char *key, const char *v,
		     uint32_t d[3], struct gpuvm_error *err)
{
	const char *p = match_words(v, " (");
	for (int i = 0; p && i < 3; i++) {
		p = skip_blank(p);
		if (gpuvm_read_u32(err, t->path, ln, key, &p, 0, UINT32_MAX, &d[i]))
			return -1;
		p = match_words(p, i < 2 ? " ," : " )");
	}
	if (!p || *p)
		return gpuvm_fail(err, t->path, ln, key, "expected (x,y,z), got '%s'", v);
	return 0;
}

int as_parse_block(const char *path, int line, const char *text, uint32_t xyz[3],
		   const char **end, struct gpuvm_error *err)
{
	const char *p = match_words(text, "thread block = ");
	for (int i = 0; p && i < 3; i++) {
		if (gpuvm_read_u32(err, path, line, "thread block", &p, 0, UINT32_MAX, &xyz[i]))
			return -1;
		if (i < 2)
			p = match_words(p, ", ");
	}
	if (!p)
		return gpuvm_fail(err, path, line, NULL, "expected 'thread block = x,y,z'");
	*end = p;
	return 0;
}

int as_parse_warp_line(const struct textin *t, const char *line, uint32_t *w,
		       struct gpuvm_error *err)
{
	const char *p = match_words(line, "warp = ");
	if (!p || *p < '0' || *p > '9')
		return 0;
	if (gpuvm_read_u32(err, t->path, (int)t->line_no, "warp", &p, 0, UINT32_MAX, w))
		return -1;
	return as_is_blank(p);
}

/* ---- kernel header --------------------------------------------------------- */

int as_parse_header(struct textin *t, struct as_header *h, struct gpuvm_error *err)
{
	memset(h, 0, sizeof *h);
	char *line;
	size_t len;
	int r;
	while ((r = textin_getline(t, &line, &len, err)) == 1) {
		int ln = (int)t->line_no;
		if (!strncmp(line, "#BEGIN_TB", 9))
			break;
		if (as_is_blank(line) || line[0] == '#')
			continue;
		char *key, *val;
		if (line[0] != '-' || !as_split_kv(line, 1, &key, &val))
			return gpuvm_fail(err, t->path, ln, NULL,
					  "expected '-key = value' in the kernel header or #BEGIN_TB");
		if (!strcmp(key, "kernel name")) {
			snprintf(h->name, sizeof h->name, "%s", val);
		} else if (!strcmp(key, "grid dim")) {
			if (parse_dim(t, ln, key, val, h->grid, err))
				return -1;
			h->have_grid = true;
		} else if (!strcmp(key, "block dim")) {
			if (parse_dim(t, ln, key, val, h->block, err))
				return -1;
			h->have_block = true;
		} else if (!strcmp(key, "shmem")) {
			int64_t v;
			if (as_parse_dec(val, strlen(val), &v) || v < 0)
				return gpuvm_fail(err, t->path, ln, key, "expected a byte count, got '%s'", val);
			/* 228 KiB: the most shared memory per block of any NVIDIA part
			 * (H100); the native format holds no more either */
			if (v > (228 << 10))
				return gpuvm_fail(err, t->path, ln, key,
						  "%s bytes per block, more than any GPU has (228 KiB)", val);
			h->shmem_bytes = (uint32_t)v;
		} else if (!strcmp(key, "shmem base_addr") || !strcmp(key, "local mem base_addr")) {
			uint64_t v;
			if (parse_hex(val, strlen(val), &v))
				return gpuvm_fail(err, t->path, ln, key, "bad hex '%s'", val);
			*(key[0] == 's' ? &h->shmem_base : &h->local_base) = v;
		} else if (!strcmp(key, "accelsim tracer version")) {
			static const struct { const char *text; int v; } known[] = {
				{"1.2", 12}, {"3", 30}, {"4", 40}, {"5", 50},
			};
			h->version = 0;
			for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
				if (!strcmp(val, known[i].text))
					h->version = known[i].v;
			if (!h->version)
				return gpuvm_fail(err, t->path, ln, key,
						  "unknown tracer version '%s' (supported: 1.2, 3, 4, 5)", val);
			h->have_version = true;
		} else if (!strcmp(key, "enable lineinfo")) {
			int64_t v;
			if (as_parse_dec(val, strlen(val), &v) || (v != 0 && v != 1))
				return gpuvm_fail(err, t->path, ln, key, "expected 0 or 1, got '%s'", val);
			h->lineinfo = (int)v;
		}
	}
	if (r < 0)
		return -1;
	if (r == 0)
		return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
				  "truncated: file ends in the kernel header (no #BEGIN_TB)");
	if (!h->have_grid || !h->have_block)
		return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
				  "kernel header lacks '-grid dim' or '-block dim'");
	if (!h->have_version)
		return gpuvm_fail(err, t->path, (int)t->line_no, NULL,
				  "kernel header lacks '-accelsim tracer version' (traces older than "
				  "tracer 1.2 are not supported)");
	if (!h->name[0])
		snprintf(h->name, sizeof h->name, "kernel");
	return trace_check_shape(h->grid, h->block, t->path, (int)t->line_no, err);
}
