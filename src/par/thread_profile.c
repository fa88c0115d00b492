/* Helper threads' CPU time (thread_profile.h). One mutex taken once per
 * thread exit: a handful of times per run. */
#include "par/thread_profile.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/env_knob.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct thread_profile_snapshot acc;

void thread_profile_exit(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return;
	double s = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
	pthread_mutex_lock(&mu);
	if (acc.threads < THREAD_PROFILE_MAX)
		acc.cpu_s[acc.threads] = s;
	acc.threads++;
	acc.total_cpu_s += s;
	pthread_mutex_unlock(&mu);
}

void thread_profile_reset(void)
{
	pthread_mutex_lock(&mu);
	memset(&acc, 0, sizeof acc);
	pthread_mutex_unlock(&mu);
}

void thread_profile_read(struct thread_profile_snapshot *out)
{
	pthread_mutex_lock(&mu);
	*out = acc;
	pthread_mutex_unlock(&mu);
}

bool thread_profile_printing(void)
{
	return env_knob_bool("GPUVM_THREADS_PROFILE", 0);
}
