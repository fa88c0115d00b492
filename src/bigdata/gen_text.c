/* Word Count input (gen.h). */
#include <string.h>

#include "bigdata/gen.h"

void gen_text_init(struct gen_text *g, uint64_t seed, uint64_t vocab, double s)
{
	g->seed = seed;
	g->vocab = vocab;
	gen_zipf_init(&g->z, vocab, s);
}

unsigned int gen_text_word(uint64_t seed, uint64_t rank, char *w)
{
	/* English word lengths in running text: mean ~4.7-5.1 letters, mode 3
	 * (Sigurd, Eeg-Olofsson and van Weijer, Studia Linguistica 58(1)
	 * 2004); frequent words are short, so length grows with the rank's
	 * magnitude: 2-4 letters for the top 100, up to 12 in the tail */
	struct gen_rng r = gen_rng_at(seed, 0x776f7264, rank);
	unsigned int mag = 0;
	for (uint64_t v = rank; v >= 10; v /= 10)
		mag++;
	unsigned int len = 2 + mag + (unsigned int)(gen_next(&r) % 4);
	if (len > 12)
		len = 12;
	/* the rank in base 26 first: distinct ranks, distinct words */
	uint64_t v = rank;
	for (unsigned int i = 0; i < len; i++) {
		if (v) {
			w[i] = (char)('a' + v % 26);
			v /= 26;
		} else {
			w[i] = (char)('a' + gen_next(&r) % 26);
		}
	}
	while (v && len < 12) {
		w[len++] = (char)('a' + v % 26);
		v /= 26;
	}
	w[len] = 0;
	return len;
}

void gen_text_fill(const struct gen_text *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	for (uint64_t i = 0; i < n; i++) {
		char line[64];
		memset(line, ' ', sizeof line);
		line[63] = '\n';
		struct gen_rng r = gen_rng_at(g->seed, 0x74657874, first + i);
		unsigned int at = 0;
		for (;;) {
			char w[16];
			unsigned int len = gen_text_word(g->seed, gen_zipf_sample(&g->z, &r) - 1, w);
			if (at + len > 63)
				break;
			memcpy(line + at, w, len);
			at += len + 1;
		}
		memcpy(out + i * 8, line, 64);
	}
}
