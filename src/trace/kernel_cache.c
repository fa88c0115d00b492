/* Parsed trace kernels kept for the run (kernel_cache.h). A linear search:
 * at most KERNEL_CACHE_MAX_KERNELS entries, looked up once per kernel
 * launch, against a parse that reads megabytes. */
#include "trace/kernel_cache.h"

#include <stdlib.h>
#include <string.h>

#include "core/vec.h"

static int64_t mtime_ns_of(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

void kernel_cache_init(struct kernel_cache *kc)
{
	memset(kc, 0, sizeof *kc);
}

void kernel_cache_free(struct kernel_cache *kc)
{
	for (size_t i = 0; i < kc->n; i++) {
		free(kc->e[i].path);
		if (kc->e[i].native)
			fclose(kc->e[i].native);
	}
	free(kc->e);
	memset(kc, 0, sizeof *kc);
}

struct kernel_cache_entry *kernel_cache_find(struct kernel_cache *kc, const char *path,
					     const struct stat *st)
{
	for (size_t i = 0; i < kc->n; i++) {
		struct kernel_cache_entry *e = &kc->e[i];
		if (e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
		    e->mtime_ns == mtime_ns_of(st) && !strcmp(e->path, path))
			return e;
	}
	return NULL;
}

bool kernel_cache_has_room(const struct kernel_cache *kc, uint64_t native_bytes)
{
	return kc->n < KERNEL_CACHE_MAX_KERNELS && native_bytes <= KERNEL_CACHE_MAX_BYTES &&
	       kc->bytes <= KERNEL_CACHE_MAX_BYTES - native_bytes;
}

int kernel_cache_add(struct kernel_cache *kc, const char *path, const struct stat *st,
		     FILE *native, uint64_t native_bytes, const char *name, const uint32_t grid[3],
		     const uint32_t block[3], uint32_t smem_bytes)
{
	struct kernel_cache_entry e = {
		.dev = st->st_dev,
		.ino = st->st_ino,
		.size = st->st_size,
		.mtime_ns = mtime_ns_of(st),
		.native = native,
		.native_bytes = native_bytes,
		.smem_bytes = smem_bytes,
	};
	snprintf(e.name, sizeof e.name, "%s", name);
	memcpy(e.grid, grid, sizeof e.grid);
	memcpy(e.block, block, sizeof e.block);
	e.path = strdup(path);
	if (!e.path || VEC_PUSH(kc->e, kc->n, kc->cap, e)) {
		free(e.path);
		return -1;
	}
	kc->bytes += native_bytes;
	return 0;
}
