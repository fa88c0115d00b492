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
	if (key)
		snprintf(err->msg, sizeof err->msg, "%s%s: %s", where, key, problem);
	else
		snprintf(err->msg, sizeof err->msg, "%s%s", where, problem);
	return -1;
}
