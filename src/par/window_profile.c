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

/* n tasks' seconds side by side: their sum and longest, and into
 * spread[c] the time at p = window_profile_cores[c] cores (the sum over
 * min(p, n), never below the longest). */
static void spread_tasks(const double *task_s, uint32_t n, double *sum, double *longest,
			 double *spread)
{
	*sum = *longest = 0;
	for (uint32_t i = 0; i < n; i++) {
		*sum += task_s[i];
		if (task_s[i] > *longest)
			*longest = task_s[i];
	}
	for (int c = 0; c < WINDOW_PROFILE_CORES; c++) {
		double p = window_profile_cores[c] < n ? window_profile_cores[c] : n;
		double t = p > 0 ? *sum / p : 0;
		spread[c] += t > *longest ? t : *longest;
	}
}

void window_profile_add(double barrier_s, const double *partition_s, uint32_t n)
{
	double sum, longest;
	spread_tasks(partition_s, n, &sum, &longest, acc.spread_s);
	acc.windows++;
	acc.partitions = n;
	acc.barrier_s += barrier_s;
	acc.partitions_s += sum;
	acc.longest_s += longest;
}

void window_profile_add_memory(const double *task_s, uint32_t n)
{
	double sum, longest;
	spread_tasks(task_s, n, &sum, &longest, acc.memory_spread_s);
	acc.memory_s += sum;
	acc.memory_queues = n;
}

void window_profile_add_sm_side(double translation_s, const double *group_s, uint32_t n,
				double results_s)
{
	double sum, longest;
	spread_tasks(group_s, n, &sum, &longest, acc.sm_data_spread_s);
	acc.translation_s += translation_s;
	acc.sm_data_s += sum;
	acc.sm_groups = n;
	acc.results_s += results_s;
}

void window_profile_reset(void)
{
	memset(&acc, 0, sizeof acc);
}

void window_profile_read(struct window_profile_snapshot *out)
{
	*out = acc;
}
