/* Insert-rate benchmark input (gen.h). */
#include <string.h>

#include "bigdata/gen.h"

void gen_kv_init(struct gen_kv *g, uint64_t seed, uint64_t keys, unsigned int key_bytes,
		 unsigned int value_bytes)
{
	g->seed = seed;
	g->keys = keys;
	g->key_bytes = key_bytes;
	g->value_bytes = value_bytes;
	g->rec_words = 1 + (key_bytes + 7) / 8 + (value_bytes + 7) / 8;
}

void gen_kv_fill(const struct gen_kv *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	unsigned int kw = (g->key_bytes + 7) / 8, vw = (g->value_bytes + 7) / 8;
	for (uint64_t i = 0; i < n; i++) {
		unsigned long long *rec = out + i * g->rec_words;
		memset(rec, 0, (size_t)g->rec_words * 8);
		struct gen_rng r = gen_rng_at(g->seed, 0x6b76, first + i);
		uint64_t k = gen_next(&r) % g->keys;
		rec[0] = g->key_bytes | (unsigned long long)g->value_bytes << 16;
		/* the key's bytes: a hash stream of its id, the id itself first */
		struct gen_rng kr = gen_rng_at(g->seed, 0x6b6579, k);
		for (unsigned int w = 0; w < kw; w++)
			rec[1 + w] = w ? gen_next(&kr) : k ^ (gen_next(&kr) << 40);
		if (g->key_bytes % 8)
			rec[kw] &= (1ull << (8 * (g->key_bytes % 8))) - 1;
		for (unsigned int w = 0; w < vw; w++)
			rec[1 + kw + w] = gen_next(&r);
		if (g->value_bytes % 8)
			rec[kw + vw] &= (1ull << (8 * (g->value_bytes % 8))) - 1;
	}
}
