/* Parsed trace kernels kept for the rest of a run, so a kernelslist that
 * names one kernel file many times (a solver's iterations, b+tree's
 * repeated lookups) parses and transcodes it once.
 *
 * Owns: one scratch file per distinct kernel file (the kernel in native
 * form, native.h) and the kernel's header facts (name, grid, block, shared
 * memory per CTA). Allocation inference needs nothing from a second launch:
 * the first one's addresses are all inside allocations it made known.
 * May call: nothing outside the C library and core/.
 * Guarantees: a kernel served from the cache gives the engine the same
 * native bytes, header and inferred footprint as parsing the file again,
 * so results are byte-identical with and without it. A file is the same
 * kernel only while its path, device, inode, size and modification time are.
 * Bounded: at most KERNEL_CACHE_MAX_KERNELS entries and
 * KERNEL_CACHE_MAX_BYTES of scratch in all; beyond either the reader
 * parses into its own scratch as before (nothing is evicted, so which
 * kernels are cached does not depend on timing). Memory is one entry (and
 * one open file) per distinct kernel, disk its native form (typically
 * 1-5 % of its text): proportional to distinct kernels, not to the list. */
#ifndef GPUVM_TRACE_KERNEL_CACHE_H
#define GPUVM_TRACE_KERNEL_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#define KERNEL_CACHE_MAX_KERNELS 64u
#define KERNEL_CACHE_MAX_BYTES (2ull << 30)

struct kernel_cache_entry {
	char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
	FILE *native; /* the kernel in native form, owned */
	uint64_t native_bytes;
	char name[96];
	uint32_t grid[3], block[3];
	uint32_t smem_bytes;
	uint64_t hits;
};

struct kernel_cache {
	struct kernel_cache_entry *e;
	size_t n, cap;
	uint64_t bytes;
};

void kernel_cache_init(struct kernel_cache *kc);
void kernel_cache_free(struct kernel_cache *kc);
/* The entry for the file st describes (path as named), or NULL. */
struct kernel_cache_entry *kernel_cache_find(struct kernel_cache *kc, const char *path,
					     const struct stat *st);
/* Room for one more kernel of native_bytes? */
bool kernel_cache_has_room(const struct kernel_cache *kc, uint64_t native_bytes);
/* Adds a kernel: takes native (on success only). 0, or -1 when out of
 * memory (nothing taken). */
int kernel_cache_add(struct kernel_cache *kc, const char *path, const struct stat *st,
		     FILE *native, uint64_t native_bytes, const char *name, const uint32_t grid[3],
		     const uint32_t block[3], uint32_t smem_bytes);

#endif
