/* Deterministic inputs and CPU references of the S-L1 applications. */
#include "workloads/sl1/sl1_inputs.h"

#include <stdio.h>
#include <string.h>

#include "core/splitmix.h"

void sl1_gen_text(char *buf, uint64_t n, uint64_t seed)
{
	uint64_t s = seed, i = 0;
	unsigned words_left = 6 + (unsigned)(splitmix64_next(&s) % 10);
	while (i < n) {
		unsigned len = 1 + (unsigned)(splitmix64_next(&s) % 10);
		for (unsigned k = 0; k < len && i < n; k++)
			buf[i++] = (char)('a' + splitmix64_next(&s) % 26);
		if (i >= n)
			break;
		if (--words_left == 0) {
			buf[i++] = '\n';
			words_left = 6 + (unsigned)(splitmix64_next(&s) % 10);
		} else {
			buf[i++] = ' ';
		}
	}
	if (n)
		buf[n - 1] = '\n';
}

uint64_t sl1_gen_log(char *buf, uint64_t n, uint64_t seed, unsigned urls)
{
	uint64_t s = seed, used = 0;
	char line[160];
	if (!urls)
		return 0;
	for (;;) {
		/* popularity: the minimum of two uniform draws favours low ids */
		unsigned a = (unsigned)(splitmix64_next(&s) % urls), b = (unsigned)(splitmix64_next(&s) % urls);
		unsigned url = a < b ? a : b;
		unsigned ip = (unsigned)splitmix64_next(&s), sec = (unsigned)(splitmix64_next(&s) % 86400);
		unsigned size = 100 + (unsigned)(splitmix64_next(&s) % 9000);
		/* no '/' before the URL: the kernel's URL starts at the first '/' */
		int w = snprintf(line, sizeof line,
				 "%u.%u.%u.%u - - [2016-03-%02u %02u:%02u:%02u] \"GET /page/%u.html "
				 "HTTP/1.1\" 200 %u\n",
				 ip >> 24, ip >> 16 & 255, ip >> 8 & 255, ip & 255, 1 + sec % 28,
				 sec / 3600, sec / 60 % 60, sec % 60, url, size);
		if (w <= 0 || (size_t)w >= sizeof line || used + (uint64_t)w > n)
			break;
		memcpy(buf + used, line, (size_t)w);
		used += (uint64_t)w;
	}
	return used;
}

void sl1_gen_points(float *p, uint64_t n, unsigned dims, unsigned clusters, uint64_t seed)
{
	uint64_t s = seed;
	float centre[64];
	if (clusters > 64 / (dims ? dims : 1))
		clusters = 64 / (dims ? dims : 1);
	if (!clusters)
		clusters = 1;
	for (unsigned i = 0; i < clusters * dims; i++)
		centre[i] = (float)(splitmix64_next(&s) % 10000) / 100.0f;
	for (uint64_t i = 0; i < n; i++) {
		unsigned c = (unsigned)(splitmix64_next(&s) % clusters);
		for (unsigned d = 0; d < dims; d++) {
			float off = (float)((int)(splitmix64_next(&s) % 2001) - 1000) / 100.0f;
			p[i * dims + d] = centre[c * dims + d] + off;
		}
	}
}

void sl1_gen_floats(float *p, uint64_t n, uint64_t seed)
{
	uint64_t s = seed;
	for (uint64_t i = 0; i < n; i++)
		p[i] = (float)((int64_t)(splitmix64_next(&s) % 2000) - 1000) / 1000.0f;
}

uint64_t sl1_url_hash(const char *line)
{
	const char *p = line;
	while (*p != '/')
		p++;
	uint64_t h = 1469598103934665603ull; /* FNV-1a offset basis */
	for (; *p != ' '; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull; /* FNV-1a prime */
	return h;
}

int64_t sl1_pvc_reference(const char *log, uint64_t n, uint64_t *keys, unsigned *want,
			  uint64_t slots)
{
	int64_t distinct = 0;
	memset(keys, 0, slots * sizeof *keys);
	memset(want, 0, slots * sizeof *want);
	for (uint64_t s = 0; s < n;) {
		uint64_t h = sl1_url_hash(log + s), slot = h & (slots - 1);
		uint64_t probes = 0;
		while (keys[slot] && keys[slot] != h + 1) {
			slot = (slot + 1) & (slots - 1);
			if (++probes == slots)
				return -1;
		}
		if (!keys[slot]) {
			keys[slot] = h + 1;
			distinct++;
		}
		want[slot]++;
		const char *e = memchr(log + s, '\n', n - s);
		if (!e)
			break;
		s = (uint64_t)(e - log) + 1;
	}
	return distinct;
}

static int match_here(const char *re, const char *text);

static int match_star(char c, const char *re, const char *text)
{
	for (;;) {
		if (match_here(re, text))
			return 1;
		if (*text == '\n' || (*text != c && c != '.'))
			return 0;
		text++;
	}
}

static int match_here(const char *re, const char *text)
{
	if (re[0] == '\0')
		return 1;
	if (re[1] == '*')
		return match_star(re[0], re + 2, text);
	if (*text != '\n' && (re[0] == '.' || re[0] == *text))
		return match_here(re + 1, text + 1);
	return 0;
}

int sl1_grep_match(const char *re, const char *text)
{
	for (;; text++) {
		if (match_here(re, text))
			return 1;
		if (*text == '\n')
			return 0;
	}
}

void sl1_gen_txns(unsigned *txn, uint64_t n, unsigned customers, unsigned merchants,
		  uint64_t seed)
{
	uint64_t s = seed;
	for (uint64_t i = 0; i < n; i++) {
		unsigned a = (unsigned)(splitmix64_next(&s) % merchants);
		unsigned b = (unsigned)(splitmix64_next(&s) % merchants);
		txn[2 * i] = (unsigned)(splitmix64_next(&s) % customers);
		txn[2 * i + 1] = a < b ? a : b;
	}
}

static uint64_t put_word(char *buf, uint64_t i, uint64_t n, uint64_t *s)
{
	unsigned len = 1 + (unsigned)(splitmix64_next(s) % 10);
	for (unsigned k = 0; k < len && i < n; k++)
		buf[i++] = (char)('a' + splitmix64_next(s) % 26);
	return i;
}

void sl1_gen_html(char *buf, uint64_t n, uint64_t seed)
{
	uint64_t s = seed, i = 0;
	unsigned left = 6 + (unsigned)(splitmix64_next(&s) % 10);
	char link[64];
	while (i < n) {
		if (splitmix64_next(&s) % 8 == 0) {
			int w = snprintf(link, sizeof link, "<a href=\"/page/%u.html\">x</a>",
					 (unsigned)(splitmix64_next(&s) % 5000));
			if (w > 0 && i + (uint64_t)w + 1 < n) {
				memcpy(buf + i, link, (size_t)w);
				i += (uint64_t)w;
			} else {
				i = put_word(buf, i, n, &s);
			}
		} else {
			i = put_word(buf, i, n, &s);
		}
		if (i >= n)
			break;
		if (--left == 0) {
			buf[i++] = '\n';
			left = 6 + (unsigned)(splitmix64_next(&s) % 10);
		} else {
			buf[i++] = ' ';
		}
	}
	if (n)
		buf[n - 1] = '\n';
}

unsigned sl1_vocab_word(unsigned id, char *out)
{
	/* the id in base 26 (3 letters cover 17,576), then letters from a hash */
	uint64_t h = id * 0x9E3779B97F4A7C15ull + 12345;
	unsigned len = 4 + (unsigned)(h >> 60) % 6, k = 0;
	unsigned v = id;
	for (; k < 4; k++, v /= 26)
		out[k] = (char)('a' + v % 26);
	for (; k < len; k++) {
		h = h * 6364136223846793005ull + 1442695040888963407ull;
		out[k] = (char)('a' + (h >> 33) % 26);
	}
	return len;
}

void sl1_gen_tweets(char *buf, uint64_t n, unsigned vocab, uint64_t seed)
{
	uint64_t s = seed, i = 0;
	unsigned left = 5 + (unsigned)(splitmix64_next(&s) % 16);
	char w[16] = {0}; /* sl1_vocab_word writes at most 9 (gcc -O3 with a profile cannot tell) */
	while (i < n) {
		unsigned a = (unsigned)(splitmix64_next(&s) % vocab), b = (unsigned)(splitmix64_next(&s) % vocab);
		unsigned len = sl1_vocab_word(a < b ? a : b, w);
		for (unsigned k = 0; k < len && i < n; k++)
			buf[i++] = w[k];
		if (i >= n)
			break;
		if (--left == 0) {
			buf[i++] = '\n';
			left = 5 + (unsigned)(splitmix64_next(&s) % 16);
		} else {
			buf[i++] = ' ';
		}
	}
	if (n)
		buf[n - 1] = '\n';
}

uint64_t sl1_fnv1a(const char *s, uint64_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a offset basis */
	for (uint64_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull; /* FNV-1a prime */
	return h;
}
