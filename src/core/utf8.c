/* UTF-8 validation and repair; see include/gpuvm/utf8.h. */
#include "gpuvm/utf8.h"

#include <stdlib.h>
#include <string.h>

size_t gpuvm_utf8_seq_len(const unsigned char *s, size_t n)
{
	if (!n)
		return 0;
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF; /* range of the second byte (RFC 3629 s. 4) */
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0; /* no overlongs */
		else if (c == 0xED)
			hi = 0x9F; /* no surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F; /* nothing past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

bool gpuvm_utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	for (size_t i = 0; i < n;) {
		size_t k = gpuvm_utf8_seq_len(s + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

void gpuvm_utf8_scrub(char *str)
{
	unsigned char *s = (unsigned char *)str;
	size_t n = strlen(str);
	for (size_t i = 0; i < n;) {
		size_t k = gpuvm_utf8_seq_len(s + i, n - i);
		if (!k) {
			s[i] = '?';
			k = 1;
		}
		i += k;
	}
}

char *gpuvm_utf8_repair(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), bad = 0;
	for (size_t i = 0; i < n;) {
		size_t k = gpuvm_utf8_seq_len(s + i, n - i);
		if (!k) {
			bad++;
			k = 1;
		}
		i += k;
	}
	char *out = malloc(n + 2 * bad + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = gpuvm_utf8_seq_len(s + i, n - i);
		if (!k) {
			memcpy(out + o, "\xEF\xBF\xBD", 3); /* U+FFFD */
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, s + i, k);
		o += k;
		i += k;
	}
	out[o] = 0;
	return out;
}
