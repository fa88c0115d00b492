/* Geo Location input (gen.h). */
#include <stdio.h>
#include <string.h>

#include "bigdata/gen.h"

void gen_geo_init(struct gen_geo *g, uint64_t seed, uint64_t places, double s)
{
	g->seed = seed;
	g->places = places;
	gen_zipf_init(&g->z, places, s);
}

void gen_geo_fill(const struct gen_geo *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng r = gen_rng_at(g->seed, 0x67656f, first + i);
		uint64_t place = gen_zipf_sample(&g->z, &r);
		struct gen_rng pr = gen_rng_at(g->seed, 0x706c6163, place);
		/* latitude -89.99..89.99, longitude -179.99..179.99, 0.01 degree steps */
		long lat = (long)(gen_next(&pr) % 17999) - 8999, lon = (long)(gen_next(&pr) % 35999) - 17999;
		char title[32];
		unsigned int tl = 4 + (unsigned int)(gen_next(&r) % 24);
		for (unsigned int k = 0; k < tl; k++)
			title[k] = k && gen_next(&r) % 6 == 0 ? '_' : (char)('a' + gen_next(&r) % 26);
		title[tl] = 0;
		char line[80];
		int len = snprintf(line, sizeof line, "%08llu\t%s\t%c%02ld.%02ld %c%03ld.%02ld",
				   (unsigned long long)((first + i) % 100000000), title, lat < 0 ? '-' : '+',
				   (lat < 0 ? -lat : lat) / 100, (lat < 0 ? -lat : lat) % 100, lon < 0 ? '-' : '+',
				   (lon < 0 ? -lon : lon) / 100, (lon < 0 ? -lon : lon) % 100);
		memset(line + len, ' ', sizeof line - (size_t)len);
		line[63] = '\n';
		memcpy(out + i * 8, line, 64);
	}
}
