/* Inverted Index input (gen.h). */
#include <string.h>

#include "bigdata/gen.h"

void gen_html_init(struct gen_html *g, uint64_t seed, uint64_t urls, double s, uint64_t per_doc)
{
	g->seed = seed;
	g->urls = urls;
	g->per_doc = per_doc;
	gen_zipf_init(&g->z, urls, s);
}

/* filler text: lowercase words and markup without links */
static unsigned int filler(struct gen_rng *r, char *t, unsigned int room)
{
	static const char *const words[] = {"<p>", "the ", "page ", "</p>", "<b>", "data ",
					    "</b>", "and ", "of ", "<li>", "item ", "gpu "};
	unsigned int n = 0;
	for (;;) {
		const char *w = words[gen_next(r) % (sizeof words / sizeof words[0])];
		unsigned int l = (unsigned int)strlen(w);
		if (n + l > room || gen_next(r) % 4 == 0)
			return n;
		memcpy(t + n, w, l);
		n += l;
	}
}

void gen_html_fill(const struct gen_html *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	for (uint64_t i = 0; i < n; i++) {
		unsigned long long *rec = out + i * 16;
		char t[120];
		memset(t, ' ', sizeof t);
		struct gen_rng r = gen_rng_at(g->seed, 0x68746d6c, first + i);
		rec[0] = (first + i) / g->per_doc;
		unsigned int at = filler(&r, t, 20);
		unsigned int links = gen_next(&r) % 10 < 2 ? 0 : 1 + (gen_next(&r) % 3 == 0);
		for (unsigned int k = 0; k < links; k++) {
			char url[64];
			unsigned int ul = gen_pvc_url(g->seed, gen_zipf_sample(&g->z, &r), url);
			if (at + 9 + ul + 7 > sizeof t)
				break;
			memcpy(t + at, "<a href=\"", 9);
			memcpy(t + at + 9, url, ul);
			memcpy(t + at + 9 + ul, "\">x</a>", 7);
			at += 9 + ul + 7;
			if (at < sizeof t)
				at += filler(&r, t + at, (unsigned int)sizeof t - at);
		}
		memcpy(rec + 1, t, sizeof t);
	}
}
