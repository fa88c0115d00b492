/* Page View Count input (gen.h). */
#include <string.h>

#include "bigdata/gen.h"

void gen_pvc_init(struct gen_pvc *g, uint64_t seed, uint64_t urls, double s)
{
	g->seed = seed;
	g->urls = urls;
	gen_zipf_init(&g->z, urls, s);
}

unsigned int gen_pvc_url(uint64_t seed, uint64_t rank, char *url)
{
	struct gen_rng r = gen_rng_at(seed, 0x75726c, rank);
	/* 12-46 letters, as rezafmk/BRB_HashTable PVC/dataset */
	unsigned int letters = 12 + (unsigned int)(gen_next(&r) % 35);
	memcpy(url, "http://www.", 11);
	/* the rank in base 26 first, so two ranks never share a URL */
	unsigned int n = 11;
	uint64_t v = rank;
	for (unsigned int i = 0; i < letters; i++) {
		if (v) {
			url[n++] = (char)('a' + v % 26);
			v /= 26;
		} else {
			url[n++] = (char)('a' + gen_next(&r) % 26);
		}
	}
	if (v) /* past 26^12 ranks: more letters (never with a 2^40 cap) */
		while (v && n < 57) {
			url[n++] = (char)('a' + v % 26);
			v /= 26;
		}
	memcpy(url + n, ".com", 5);
	return n + 4;
}

void gen_pvc_fill(const struct gen_pvc *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng r = gen_rng_at(g->seed, 0x707663, first + i);
		uint64_t rank = gen_zipf_sample(&g->z, &r);
		char line[64];
		memset(line, ' ', sizeof line);
		char url[64];
		unsigned int len = gen_pvc_url(g->seed, rank, url);
		memcpy(line, url, len);
		line[63] = '\n';
		memcpy(out + i * 8, line, 64);
	}
}
