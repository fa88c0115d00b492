/* Patent Citation input (gen.h). */
#include <stdio.h>
#include <string.h>

#include "bigdata/gen.h"

#define PATENT_FIRST 3000000ull

void gen_patent_init(struct gen_patent *g, uint64_t seed, uint64_t patents, double s)
{
	g->seed = seed;
	g->patents = patents < 2 ? 2 : patents;
	gen_zipf_init(&g->z, g->patents, s);
}

void gen_patent_fill(const struct gen_patent *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng r = gen_rng_at(g->seed, 0x706174, first + i);
		uint64_t citing = gen_next(&r) % g->patents;
		/* popular patents spread over the numbers (7919 is prime: one to
		 * one unless patents is a multiple of it) */
		uint64_t cited = (gen_zipf_sample(&g->z, &r) - 1) * 7919 % g->patents;
		if (cited == citing)
			cited = (cited + 1) % g->patents;
		char line[17];
		snprintf(line, sizeof line, "%07llu,%07llu\n", (unsigned long long)(PATENT_FIRST + cited),
			 (unsigned long long)(PATENT_FIRST + citing));
		memcpy(out + i * 2, line, 16);
	}
}
