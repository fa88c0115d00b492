/* DNA Assembly input (gen.h). */
#include <string.h>

#include "bigdata/gen.h"

#define DNA_READ 48
#define DNA_BLOCK 1024 /* bases per block; one block in 16 repeats block 0 */

void gen_dna_init(struct gen_dna *g, uint64_t seed, uint64_t genome, unsigned int error_per_mille)
{
	g->seed = seed;
	g->genome = genome < 2 * DNA_READ ? 2 * DNA_READ : genome;
	g->error_per_mille = error_per_mille;
}

static char base_at(const struct gen_dna *g, uint64_t pos)
{
	uint64_t block = pos / DNA_BLOCK;
	if (block && splitmix64(g->seed ^ splitmix64(block)) % 16 == 0)
		pos %= DNA_BLOCK; /* a repeat of block 0 */
	return "ACGT"[splitmix64(g->seed ^ splitmix64(pos + 0x646e61)) & 3];
}

void gen_dna_fill(const struct gen_dna *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng r = gen_rng_at(g->seed, 0x72656164, first + i);
		uint64_t start = gen_next(&r) % (g->genome - DNA_READ);
		char line[64];
		memset(line, ' ', sizeof line);
		for (unsigned int k = 0; k < DNA_READ; k++) {
			line[k] = base_at(g, start + k);
			if (gen_next(&r) % 1000 < g->error_per_mille) /* a misread: another base */
				line[k] = "ACGT"[(strchr("ACGT", line[k]) - "ACGT" + 1 + gen_next(&r) % 3) & 3];
		}
		line[63] = '\n';
		memcpy(out + i * 8, line, 64);
	}
}
