/* The host-memory bound; see include/gpuvm/host_memory.h. */
#include "gpuvm/host_memory.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "gpuvm/units.h"

static uint64_t bound_bytes; /* 0: default */
static char context[300];     /* the workload spec being created */

void gpuvm_host_memory_set_context(const char *spec)
{
	snprintf(context, sizeof context, "%s", spec ? spec : "");
}

const char *gpuvm_host_memory_context(void)
{
	return context;
}

static void human(uint64_t b, char *buf, size_t len)
{
	if (b >= (1ull << 30))
		snprintf(buf, len, "%.1f GiB", (double)b / (double)(1ull << 30));
	else
		snprintf(buf, len, "%.1f MiB", (double)b / (double)(1ull << 20));
}

void gpuvm_host_memory_set_bound(uint64_t bytes)
{
	bound_bytes = bytes;
}

static uint64_t default_bound(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
	uint64_t b = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : 8ull << 30;
	struct rlimit rl;
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    (uint64_t)rl.rlim_cur / 4 * 3 < b)
		b = (uint64_t)rl.rlim_cur / 4 * 3;
	return b;
}

uint64_t gpuvm_host_memory_bound(void)
{
	return bound_bytes ? bound_bytes : default_bound();
}

int gpuvm_host_memory_check(uint64_t bytes, const char *origin, int line, const char *driver,
			    struct gpuvm_error *err)
{
	uint64_t bound = gpuvm_host_memory_bound();
	if (bytes <= bound)
		return 0;
	char need[32], have[32];
	human(bytes, need, sizeof need);
	human(bound, have, sizeof have);
	return gpuvm_fail(err, origin, line, NULL,
			  "%s needs about %s of host memory, past the bound of %s (%s); "
			  "use --max-host-memory=SIZE or --force to run it anyway",
			  driver, need, have,
			  bound_bytes ? "--max-host-memory" : "half of this machine's memory, "
							      "or 3/4 of ulimit -v");
}

int gpuvm_host_memory_parse(const char *text, uint64_t *bytes)
{
	uint64_t b;
	if (gpuvm_parse_size(text, &b) || b < (1u << 20))
		return -1;
	*bytes = b;
	return 0;
}
