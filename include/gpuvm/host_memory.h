/* One rule for host memory: before allocating what its parameters ask
 * for, every workload, graph reader and trace reader estimates the host
 * bytes and refuses past a bound, naming the estimate and the parameter
 * (or file line) that drives it - the same rule as the work cap
 * (GPUVM_WORK_CAP_THREAD_ACCESSES in gpuvm/workload.h) applies to
 * simulated work.
 *
 * The bound: half of physical memory (sysconf _SC_PHYS_PAGES x
 * _SC_PAGE_SIZE), and no more than three quarters of the address-space
 * limit (ulimit -v) when one is set, so a refusal comes with its reason
 * before malloc fails; --max-host-memory=SIZE sets it, --force lifts it.
 * Process-wide: a command sets it once from its options. */
#ifndef GPUVM_HOST_MEMORY_H
#define GPUVM_HOST_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuvm/error.h"

/* 0 = the default bound above; UINT64_MAX = none (--force). */
void gpuvm_host_memory_set_bound(uint64_t bytes);

/* The bound in force, in bytes. */
uint64_t gpuvm_host_memory_bound(void);

/* 0 when bytes fit the bound; else -1 with a message at origin:line (a
 * file and line, or an option such as "--workload") saying that driver
 * (e.g. "elems=1000000000", "the size line's 1000000000 vertices") needs
 * about bytes of host memory, the bound, and how to lift it. */
int gpuvm_host_memory_check(uint64_t bytes, const char *origin, int line, const char *driver,
			    struct gpuvm_error *err);

/* The workload spec being created (set by gpuvm_run_point around create),
 * for checks deep in a program (simt_malloc) to name its parameters. */
void gpuvm_host_memory_set_context(const char *spec);
const char *gpuvm_host_memory_context(void);

/* Parses --max-host-memory's SIZE (e.g. 8GiB; at least 1 MiB). */
int gpuvm_host_memory_parse(const char *text, uint64_t *bytes);

#endif
