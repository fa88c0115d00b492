/* The sequence of glibc's rand() after srand(seed) (its TYPE_3 additive
 * feedback generator: r[n] = r[n-31] + r[n-3] mod 2^32, output r[n] >> 1,
 * the first 310 values discarded, r[0..30] from seed by x 16807 mod
 * 2^31 - 1), so that a benchmark whose input comes from rand() gets the
 * very input it had: rand() without srand is srand(1). Checked against
 * the host's rand() for seeds 0 to 3 (2 M values each). Reentrant, and
 * the same on every host, unlike rand() itself. */
#ifndef GPUVM_GLIBC_RAND_H
#define GPUVM_GLIBC_RAND_H

#include <stdint.h>

#define GLIBC_RAND_MAX 2147483647

struct glibc_rand {
	int32_t r[34]; /* r[n - 34 .. n - 1] at n % 34 */
	unsigned n;    /* n % 34 */
};

static inline void glibc_srand(struct glibc_rand *g, uint32_t seed)
{
	int32_t r[344];
	r[0] = (int32_t)(seed ? seed : 1); /* glibc: seed 0 acts as 1 */
	for (int i = 1; i < 31; i++) {
		int64_t v = (16807LL * r[i - 1]) % 2147483647;
		r[i] = (int32_t)(v < 0 ? v + 2147483647 : v);
	}
	for (int i = 31; i < 34; i++)
		r[i] = r[i - 31];
	for (int i = 34; i < 344; i++)
		r[i] = (int32_t)((uint32_t)r[i - 31] + (uint32_t)r[i - 3]);
	for (int i = 0; i < 34; i++)
		g->r[i] = r[310 + i];
	g->n = 0;
}

static inline int32_t glibc_rand(struct glibc_rand *g)
{
	unsigned n = g->n;
	int32_t v = (int32_t)((uint32_t)g->r[(n + 3) % 34] + (uint32_t)g->r[(n + 31) % 34]);
	g->r[n] = v;
	g->n = (n + 1) % 34;
	return (int32_t)((uint32_t)v >> 1);
}

#endif
