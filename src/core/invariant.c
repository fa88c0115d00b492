#include "core/invariant.h"

#include <stdarg.h>
#include <stdio.h>

int gpuvm_violated(char *why, size_t len, const char *what, const char *tag, int n,
		   const char *fmt, ...)
{
	if (why && len) {
		int k = snprintf(why, len, "%s invariant %s%d: ", what, tag, n);
		if (k >= 0 && (size_t)k < len) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(why + k, len - (size_t)k, fmt, ap);
			va_end(ap);
		}
	}
	return n;
}
