#include "gpuvm/error.h"

#include <stdio.h>
#include <string.h>

int gpuvm_fail(struct gpuvm_error *err, const char *origin, int line,
	       const char *key, const char *fmt, ...)
{
	if (!err)
		return -1;
	char problem[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);

	char where[320] = "";
	if (origin && line > 0)
		snprintf(where, sizeof where, "%s:%d: ", origin, line);
	else if (origin)
		snprintf(where, sizeof where, "%s: ", origin);
	/* A message longer than err->msg keeps its start (where it is, then
	 * what): the return value is read so that a cut is marked with "..."
	 * rather than passing silently (and GCC's -Wformat-truncation, which
	 * fails -O0 builds under -Werror, sees the cut handled). */
	int n;
	if (key)
		n = snprintf(err->msg, sizeof err->msg, "%s%s: %s", where, key, problem);
	else
		n = snprintf(err->msg, sizeof err->msg, "%s%s", where, problem);
	if (n >= (int)sizeof err->msg)
		memcpy(err->msg + sizeof err->msg - 4, "...", 4);
	return -1;
}
