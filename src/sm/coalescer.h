/* Per-instruction coalescing: the distinct translation units (first-level
 * TLB entries), 32 B sectors and 128 B lines a warp's active lanes touch.
 * Small open-addressing sets stamped with a generation number, so starting
 * a new instruction costs nothing. */
#ifndef GPUVM_COALESCER_H
#define GPUVM_COALESCER_H

#include <stdbool.h>
#include <stdint.h>

/* 4 x (32 lanes x up to 2 sectors): at most a quarter full, so a probe
 * rarely meets another key (each such meeting is a host branch miss). */
#define COALESCER_SLOTS 256
#define COALESCER_HASH_SHIFT 56 /* 64 - log2(COALESCER_SLOTS) */

struct coalescer_set {
	uint64_t key[COALESCER_SLOTS];
	uint16_t gen[COALESCER_SLOTS]; /* 16 bits: the sets stay small in the host cache */
};

struct coalescer {
	unsigned unit_shift, sector_shift, line_shift;
	bool lazy_ok; /* a unit holds whole lines, so distinct units share no line */
	uint16_t gen;
	struct coalescer_set units, sectors, lines;
	double unit_ready[COALESCER_SLOTS]; /* by the units set's slot */
};

int coalescer_init(struct coalescer *c, uint64_t unit_bytes, uint32_t sector_bytes,
		   uint32_t line_bytes);

static inline void coalescer_begin(struct coalescer *c)
{
	if (++c->gen == 0) { /* wrapped: forget stale stamps */
		for (uint32_t i = 0; i < COALESCER_SLOTS; i++)
			c->units.gen[i] = c->sectors.gen[i] = c->lines.gen[i] = 0;
		c->gen = 1;
	}
}

/* The slot of key: where it is (*found) or where it goes; in the second
 * case the key is entered there. */
static inline uint32_t coalescer_insert(struct coalescer_set *s, uint16_t gen, uint64_t key,
					bool *found)
{
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> COALESCER_HASH_SHIFT);
	while (s->gen[i] == gen) {
		if (s->key[i] == key) {
			*found = true;
			return i;
		}
		i = (i + 1) & (COALESCER_SLOTS - 1);
	}
	s->key[i] = key;
	s->gen[i] = gen;
	*found = false;
	return i;
}

/* A translation unit of this instruction: true and its ready time when it
 * was seen before; otherwise it is entered and *slot takes its ready time
 * through coalescer_set_ready. */
static inline bool coalescer_unit(struct coalescer *c, uint64_t unit, double *ready,
				  uint32_t *slot)
{
	bool found;
	*slot = coalescer_insert(&c->units, c->gen, unit, &found);
	if (found)
		*ready = c->unit_ready[*slot];
	return found;
}

static inline void coalescer_set_ready(struct coalescer *c, uint32_t slot, double ready)
{
	c->unit_ready[slot] = ready;
}

/* True the first time a sector is seen in this instruction; counts the
 * distinct lines into *lines as a side effect. */
static inline bool coalescer_new_sector(struct coalescer *c, uint64_t sector, uint64_t *lines)
{
	bool found;
	coalescer_insert(&c->sectors, c->gen, sector, &found);
	if (found)
		return false;
	coalescer_insert(&c->lines, c->gen, sector >> (c->line_shift - c->sector_shift), &found);
	if (!found)
		(*lines)++;
	return true;
}

#endif
