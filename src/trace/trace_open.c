/* Format detection and dispatch, and "trace:PATH" specs. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuvm/input_file.h"
#include "gpuvm/trace.h"
#include "trace/native.h"
#include "trace/readers.h"

static const char *const format_names[] = {"auto", "accelsim", "memtrace", "native"};

int gpuvm_trace_format_parse(const char *name, enum gpuvm_trace_format *out,
			     struct gpuvm_error *err)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, format_names[i])) {
			*out = (enum gpuvm_trace_format)i;
			return 0;
		}
	return gpuvm_fail(err, "--trace-format", 0, NULL,
			  "unknown format '%s' (auto, accelsim, memtrace, native)", name);
}

const char *gpuvm_trace_format_name(enum gpuvm_trace_format f)
{
	return (unsigned)f < 4 ? format_names[f] : "?";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int gpuvm_trace_detect(const char *path, enum gpuvm_trace_format *out, struct gpuvm_error *err)
{
	struct stat st;
	if (stat(path, &st))
		return gpuvm_fail(err, path, 0, NULL, "cannot open: %s", strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*out = GPUVM_TRACE_ACCELSIM;
		return 0;
	}
	if (ends_with(path, ".traceg") || ends_with(path, ".traceg.xz") || ends_with(path, ".g")) {
		*out = GPUVM_TRACE_ACCELSIM;
		return 0;
	}
	int fd = gpuvm_input_open(path, "trace", err);
	if (fd < 0)
		return -1;
	char head[4096];
	ssize_t n = read(fd, head, sizeof head - 1);
	close(fd);
	if (n < 0)
		return gpuvm_fail(err, path, 0, NULL, "read error: %s", strerror(errno));
	head[n] = 0;
	/* a .gvt name, or a magic a few bits away from ours, is a native
	 * trace (a damaged one is then reported with its byte offset) */
	int magic_bits = 64;
	if (n >= 8) {
		magic_bits = 0;
		for (int i = 0; i < 8; i++)
			magic_bits += __builtin_popcount((unsigned char)(head[i] ^ NATIVE_MAGIC[i]));
	}
	if (magic_bits <= 3 || ends_with(path, ".gvt")) {
		*out = GPUVM_TRACE_NATIVE;
		return 0;
	}
	/* mem_trace prints launch and access lines (maybe after the
	 * application's own output); Accel-Sim lists start with commands or
	 * kernel files, kernel files with "-kernel name". */
	if (strstr(head, "MEMTRACE:") || strstr(head, " - grid size ") ||
	    !strncmp(head, "CTA ", 4) || strstr(head, "\nCTA ")) {
		*out = GPUVM_TRACE_MEMTRACE;
		return 0;
	}
	if (!strncmp(head, "Memcpy", 6) || !strncmp(head, "cudaMalloc", 10) ||
	    !strncmp(head, "-kernel", 7) || strstr(head, ".traceg")) {
		*out = GPUVM_TRACE_ACCELSIM;
		return 0;
	}
	return gpuvm_fail(err, path, 0, NULL,
			  "cannot tell the trace format (use --trace-format accelsim|memtrace|native)");
}

unsigned gpuvm_trace_native_version(const char *path)
{
	struct gpuvm_error err;
	int fd = gpuvm_input_open(path, "trace", &err);
	if (fd < 0)
		return 0;
	unsigned char h[12];
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	if (n != (ssize_t)sizeof h || memcmp(h, NATIVE_MAGIC, 8))
		return 0;
	return (unsigned)h[8] | (unsigned)h[9] << 8 | (unsigned)h[10] << 16 | (unsigned)h[11] << 24;
}

int gpuvm_trace_open(const char *path, enum gpuvm_trace_format fmt, struct gpuvm_source *out,
		     struct gpuvm_error *err)
{
	if (fmt == GPUVM_TRACE_AUTO && gpuvm_trace_detect(path, &fmt, err))
		return -1;
	switch (fmt) {
	case GPUVM_TRACE_ACCELSIM:
		return trace_open_accelsim(path, out, err);
	case GPUVM_TRACE_MEMTRACE:
		return trace_open_memtrace(path, out, err);
	case GPUVM_TRACE_NATIVE:
		return trace_open_native(path, out, err);
	default:
		return gpuvm_fail(err, path, 0, NULL, "unknown trace format");
	}
}

int gpuvm_trace_spec_is(const char *spec)
{
	return !strncmp(spec, "trace:", 6) || !strncmp(spec, "trace-", 6) ||
	       !strncmp(spec, "trace+", 6);
}

int gpuvm_trace_open_spec(const char *spec, struct gpuvm_source *out, struct gpuvm_error *err)
{
	enum gpuvm_trace_format fmt = GPUVM_TRACE_AUTO;
	const char *colon = strchr(spec, ':');
	if (!gpuvm_trace_spec_is(spec) || !colon || !colon[1])
		return gpuvm_fail(err, "--workload", 0, NULL,
				  "'%s': a trace spec is trace[-FORMAT][+managed]:PATH", spec);
	/* The head before the colon: "trace", then "-FORMAT", then "+managed". */
	size_t head = (size_t)(colon - spec);
	const char *plus = memchr(spec, '+', head);
	bool managed = false;
	if (plus) {
		if ((size_t)(colon - plus) != 8 || strncmp(plus, "+managed", 8))
			return gpuvm_fail(err, "--workload", 0, NULL,
					  "'%.*s': the only trace option is +managed", (int)head, spec);
		managed = true;
	}
	const char *fmt_end = plus ? plus : colon;
	if (spec[5] == '-') {
		char name[16];
		size_t n = (size_t)(fmt_end - spec) - 6;
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, spec + 6, n);
		name[n] = 0;
		if (gpuvm_trace_format_parse(name, &fmt, err))
			return -1;
	}
	if (gpuvm_trace_open(colon + 1, fmt, out, err))
		return -1;
	if (managed && trace_wrap_managed(out, err)) {
		out->ops->destroy(out);
		out->ops = NULL;
		return -1;
	}
	return 0;
}
