/* The windowed model's partition and barrier times (window_profile.h). */
#include "par/window_profile.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

const double window_profile_cores[WINDOW_PROFILE_CORES] = {2, 8, 32, 64};

static atomic_bool enabled;
static struct window_profile_snapshot acc;

void window_profile_enable(bool on)
{
	atomic_store(&enabled, on);
}

bool window_profile_enabled(void)
{
	return atomic_load_explicit(&enabled, memory_order_relaxed);
}

double window_profile_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void window_profile_add(double barrier_s, const double *partition_s, uint32_t n)
{
	double sum = 0, longest = 0;
	for (uint32_t i = 0; i < n; i++) {
		sum += partition_s[i];
		if (partition_s[i] > longest)
			longest = partition_s[i];
	}
	acc.windows++;
	acc.partitions = n;
	acc.barrier_s += barrier_s;
	acc.partitions_s += sum;
	acc.longest_s += longest;
	for (int c = 0; c < WINDOW_PROFILE_CORES; c++) {
		double p = window_profile_cores[c] < n ? window_profile_cores[c] : n;
		double spread = sum / p;
		acc.spread_s[c] += spread > longest ? spread : longest;
	}
}

void window_profile_reset(void)
{
	memset(&acc, 0, sizeof acc);
}

void window_profile_read(struct window_profile_snapshot *out)
{
	*out = acc;
}
