/* Shared by the trace fuzz targets: the readers take paths, so each input
 * is written to files in a per-process scratch folder and read back
 * through the same code the CLI runs (open, then a full `trace info`
 * walk, which drives every warp of every kernel). */
#ifndef GPUVM_FUZZ_TRACE_UTIL_H
#define GPUVM_FUZZ_TRACE_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gpuvm/trace.h"

static char fuzz_dir_path[256];

/* At exit the folder goes, with whatever the inputs were written to:
 * every run of a replay or a fuzzer left one behind in /tmp. */
static void fuzz_dir_remove(void)
{
	DIR *d = opendir(fuzz_dir_path);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(fuzz_dir_path);
}

static const char *fuzz_dir(void)
{
	if (!fuzz_dir_path[0]) {
		snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/gpuvm-fuzz-XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(fuzz_dir_path))
			abort();
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

static void fuzz_write(const char *name, const void *data, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
}

static void fuzz_read_trace(const char *name, enum gpuvm_trace_format fmt, size_t size)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	struct gpuvm_source src;
	struct gpuvm_error err;
	if (gpuvm_trace_open(path, fmt, &src, &err))
		return;
	/* inputs of odd size are read as `sim --threads 2` reads them: the
	 * Accel-Sim list on a reader thread (issue 21 item 4) */
	src.exec_threads = size & 1 ? 2 : 1;
	cJSON *o = NULL;
	if (gpuvm_trace_info(&src, 1, &o, &err) == 0)
		cJSON_Delete(o);
	src.ops->destroy(&src);
}

#endif
