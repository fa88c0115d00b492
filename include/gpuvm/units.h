/* Parsing of the numbers users type: sizes with KiB/MiB/GiB suffixes,
 * plain integers and reals, each rejecting trailing junk and overflow. */
#ifndef GPUVM_UNITS_H
#define GPUVM_UNITS_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

/* "4GiB", "128MiB", "64KiB", "4096", "2MB" (K/M/G/T and KB/MB/GB/TB are
 * binary too, as GPU papers use them). Returns 0 or -1 on a malformed or
 * overflowing value. */
int gpuvm_parse_size(const char *s, uint64_t *out);
/* Unsigned decimal (or 0x hex) integer that fits in 64 bits. */
int gpuvm_parse_u64(const char *s, uint64_t *out);
/* Finite real number. */
int gpuvm_parse_double(const char *s, double *out);
/* Formats bytes compactly: 4GiB, 128MiB, 1536KiB, 100B. */
void gpuvm_format_size(uint64_t bytes, char *buf, size_t len);

static inline bool gpuvm_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* Smallest s with 2^s >= x (exact log2 for powers of two). */
static inline unsigned gpuvm_log2_ceil(uint64_t x)
{
	unsigned s = 0;
	while (s < 63 && (1ull << s) < x)
		s++;
	return s;
}

#endif
