/* Error reporting: every user-facing failure names the file (or "--set",
 * "argument"), the line when there is one, the key, and the problem. */
#ifndef GPUVM_ERROR_H
#define GPUVM_ERROR_H

#include <stdarg.h>

struct gpuvm_error {
	char msg[768]; /* fully formatted: "presets/p100.ini:12: tlb.l2.entries: must be > 0" */
};

/* Formats "origin:line: key: problem" (line 0 and NULL key are left out)
 * into err and returns -1 so callers can `return gpuvm_fail(...)`. */
int gpuvm_fail(struct gpuvm_error *err, const char *origin, int line,
	       const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
