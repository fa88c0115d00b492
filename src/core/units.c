#include "gpuvm/units.h"
#include "gpuvm/number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* On the number parser family (gpuvm/number.h), as every reader is. */
int gpuvm_parse_u64(const char *s, uint64_t *out)
{
	if (!s)
		return -1;
	size_t n = strlen(s);
	/* decimal, or hex with 0x: never octal, so "010" is ten */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return n > 2 && gpuvm_num_hex(s, n, out) == GPUVM_NUM_OK ? 0 : -1;
	return gpuvm_num_u64(s, n, 0, UINT64_MAX, out) == GPUVM_NUM_OK ? 0 : -1;
}

int gpuvm_parse_double(const char *s, double *out)
{
	if (!s)
		return -1;
	const char *end;
	if (gpuvm_scan_double(s, &end, -HUGE_VAL, HUGE_VAL, out) != GPUVM_NUM_OK || *end)
		return -1;
	return 0;
}

int gpuvm_parse_size(const char *s, uint64_t *out)
{
	if (!s)
		return -1;
	const char *end;
	uint64_t v;
	if (gpuvm_scan_u64(s, &end, 0, UINT64_MAX, &v) != GPUVM_NUM_OK)
		return -1;
	unsigned shift = 0;
	if (*end) {
		static const struct { const char *suffix; unsigned shift; } units[] = {
			{"B", 0}, {"K", 10}, {"KB", 10}, {"KiB", 10}, {"M", 20}, {"MB", 20},
			{"MiB", 20}, {"G", 30}, {"GB", 30}, {"GiB", 30}, {"T", 40},
			{"TB", 40}, {"TiB", 40},
		};
		size_t i, n = sizeof units / sizeof units[0];
		for (i = 0; i < n; i++)
			if (strcasecmp(end, units[i].suffix) == 0)
				break;
		if (i == n)
			return -1;
		shift = units[i].shift;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

void gpuvm_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned i = 0;
	while (i < 4 && bytes >= 1024 && bytes % 1024 == 0) {
		bytes /= 1024;
		i++;
	}
	snprintf(buf, len, "%llu%s", (unsigned long long)bytes, names[i]);
}
