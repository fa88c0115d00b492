/* Read-only mappings of native trace files, opt-in (GPUVM_TRACE_MMAP=1).
 * Mapping saves the reader a pread (a system call and a copy) per frame,
 * but in full replays it gained no CPU time (random sampling 4 GiB: 2.24
 * vs 2.22 s; bfs rmat-18: 2.77 vs 2.82 s) while the kernel's fault-around
 * put up to 64 KiB of file pages per resident warp into the resident set
 * (172 vs 37 MB max RSS on a 139 MB trace): memory must stay proportional
 * to warps resident, so pread is the default. Where a file cannot be
 * mapped (not a regular file, empty) the reader preads too. A mapped trace
 * must not shrink while it is replayed: a page past the new end faults
 * (SIGBUS). */
#include "trace/native.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/env_knob.h"

static uint64_t page_bytes(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	return pg > 0 ? (uint64_t)pg : 4096;
}

void native_map_open(struct native_map *m, int fd)
{
	memset(m, 0, sizeof *m);
	if (!env_knob_bool("GPUVM_TRACE_MMAP", 0))
		return;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX)
		return;
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return;
	/* warps read their chains forward, a few thousand places at once:
	 * readahead helps, and consumed pages are dropped (native_map_drop) */
	(void)madvise(p, (size_t)st.st_size, MADV_RANDOM);
	m->p = p;
	m->len = (uint64_t)st.st_size;
}

void native_map_close(struct native_map *m)
{
	if (m->len)
		munmap((void *)m->p, (size_t)m->len);
	memset(m, 0, sizeof *m);
}

void native_map_drop(const struct native_map *m, uint64_t from, uint64_t to)
{
	uint64_t pg = page_bytes();
	from = (from + pg - 1) / pg * pg; /* only whole pages before 'to' */
	to = to / pg * pg;
	if (!m->len || to <= from || to > m->len)
		return;
	(void)madvise((void *)(m->p + from), (size_t)(to - from), MADV_DONTNEED);
}
