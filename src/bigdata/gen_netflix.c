/* Netflix input (gen.h). */
#include <stdio.h>
#include <string.h>

#include "bigdata/gen.h"

void gen_netflix_init(struct gen_netflix *g, uint64_t seed, uint64_t users, uint64_t movies, double s)
{
	g->seed = seed;
	g->users = users;
	g->movies = movies;
	gen_zipf_init(&g->z, users, s);
}

/* A user's id: ranks spread over the id space (1000003 is prime, so the
 * map is one to one for users < 1000003). */
static uint64_t user_id(const struct gen_netflix *g, uint64_t rank)
{
	return (rank * 1000003ull) % g->users;
}

/* quality of a movie (0..4) + bias of a user (-1..1) + noise (-1..1) */
static int rating(const struct gen_netflix *g, uint64_t movie, uint64_t user, struct gen_rng *r)
{
	int v = 1 + (int)(splitmix64(g->seed ^ movie * 0x6d6f76) % 5) +
		(int)(splitmix64(g->seed ^ user * 0x757372) % 3) - 1 + (int)(gen_next(r) % 3) - 1;
	return v < 1 ? 1 : v > 5 ? 5 : v;
}

static void date(struct gen_rng *r, char *out)
{
	snprintf(out, 20, "%02u:%02u:%02u %02u/%02u/%04u", (unsigned)(gen_next(r) % 24),
		 (unsigned)(gen_next(r) % 60), (unsigned)(gen_next(r) % 60), 1 + (unsigned)(gen_next(r) % 28),
		 1 + (unsigned)(gen_next(r) % 12), 2000 + (unsigned)(gen_next(r) % 6));
}

void gen_netflix_fill(const struct gen_netflix *g, uint64_t first, uint64_t n, unsigned long long *out)
{
	for (uint64_t i = 0; i < n; i++) {
		struct gen_rng r = gen_rng_at(g->seed, 0x6e666c78, first + i);
		uint64_t movie = gen_next(&r) % g->movies;
		uint64_t a = user_id(g, gen_zipf_sample(&g->z, &r) - 1), b = a;
		for (int k = 0; k < 8 && b == a; k++)
			b = user_id(g, gen_zipf_sample(&g->z, &r) - 1);
		if (b == a)
			b = (a + 1) % g->users;
		char da[20], db[20], line[65];
		date(&r, da);
		date(&r, db);
		snprintf(line, sizeof line, "%05u %06u %s %d %06u %s %d\n", (unsigned)(movie % 100000),
			 (unsigned)a, da, rating(g, movie, a, &r), (unsigned)b, db, rating(g, movie, b, &r));
		memcpy(out + i * 8, line, 64);
	}
}
