/* Environment knobs read with a warning for a value they do not take
 * (env_knob.h). */
#include "core/env_knob.h"
#include "gpuvm/number.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ENV_KNOB_WARNED_MAX 32

static pthread_mutex_t knob_mu = PTHREAD_MUTEX_INITIALIZER;
static const char *warned[ENV_KNOB_WARNED_MAX];
static int n_warned;
static FILE *warn_stream;

void env_knob_set_stream(FILE *f)
{
	pthread_mutex_lock(&knob_mu);
	warn_stream = f;
	n_warned = 0;
	pthread_mutex_unlock(&knob_mu);
}

/* The warning, once per name: knob names are string literals, compared
 * by content so two call sites of one knob share it. */
static void warn_once(const char *name, const char *value, const char *takes, const char *used)
{
	pthread_mutex_lock(&knob_mu);
	for (int i = 0; i < n_warned; i++)
		if (!strcmp(warned[i], name)) {
			pthread_mutex_unlock(&knob_mu);
			return;
		}
	if (n_warned < ENV_KNOB_WARNED_MAX)
		warned[n_warned++] = name;
	fprintf(warn_stream ? warn_stream : stderr,
		"gpuvm: warning: %s=\"%s\" is not %s; using %s\n", name, value, takes, used);
	pthread_mutex_unlock(&knob_mu);
}

uint64_t env_knob_u64(const char *name, uint64_t dflt, uint64_t min, uint64_t max)
{
	const char *e = getenv(name);
	if (!e || !*e)
		return dflt;
	uint64_t v;
	if (!gpuvm_num_u64(e, strlen(e), min, max, &v))
		return v;
	char takes[96], used[32];
	snprintf(takes, sizeof takes, "a whole number from %llu to %llu", (unsigned long long)min,
		 (unsigned long long)max);
	snprintf(used, sizeof used, "%llu", (unsigned long long)dflt);
	warn_once(name, e, takes, used);
	return dflt;
}

int env_knob_word(const char *name, const char *const *words, int n, int dflt)
{
	const char *e = getenv(name);
	if (!e || !*e)
		return dflt;
	for (int i = 0; i < n; i++)
		if (!strcmp(e, words[i]))
			return i;
	char takes[160];
	size_t at = (size_t)snprintf(takes, sizeof takes, "one of");
	for (int i = 0; i < n && at < sizeof takes; i++)
		at += (size_t)snprintf(takes + at, sizeof takes - at, "%s \"%s\"",
				       i == 0 ? "" : i == n - 1 ? " or" : ",", words[i]);
	char used[40];
	snprintf(used, sizeof used, "\"%s\"", words[dflt]);
	warn_once(name, e, takes, used);
	return dflt;
}
