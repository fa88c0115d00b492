/* Per-instruction coalescing: the distinct translation units (first-level
 * TLB entries), 32 B sectors and 128 B lines a warp's active lanes touch.
 * Small open-addressing sets stamped with a generation number, so starting
 * a new instruction costs nothing. */
#ifndef GPUVM_COALESCER_H
#define GPUVM_COALESCER_H

#include <stdbool.h>
#include <stdint.h>

#define COALESCER_SLOTS 128 /* > 2 x (32 lanes x up to 2 sectors) */

struct coalescer_set {
	uint64_t key[COALESCER_SLOTS];
	uint32_t gen[COALESCER_SLOTS];
	double val[COALESCER_SLOTS];
};

struct coalescer {
	unsigned unit_shift, sector_shift, line_shift;
	uint32_t gen;
	struct coalescer_set units, sectors, lines;
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

static inline uint32_t coalescer_slot(const struct coalescer_set *s, uint32_t gen, uint64_t key,
				      bool *found)
{
	uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 57); /* 7 bits */
	while (s->gen[i] == gen) {
		if (s->key[i] == key) {
			*found = true;
			return i;
		}
		i = (i + 1) & (COALESCER_SLOTS - 1);
	}
	*found = false;
	return i;
}

/* Looks up a translation unit seen earlier in this instruction. */
static inline bool coalescer_unit(struct coalescer *c, uint64_t unit, double *ready)
{
	bool found;
	uint32_t i = coalescer_slot(&c->units, c->gen, unit, &found);
	if (found)
		*ready = c->units.val[i];
	return found;
}

static inline void coalescer_set_unit(struct coalescer *c, uint64_t unit, double ready)
{
	bool found;
	uint32_t i = coalescer_slot(&c->units, c->gen, unit, &found);
	c->units.key[i] = unit;
	c->units.gen[i] = c->gen;
	c->units.val[i] = ready;
}

/* True the first time a sector is seen in this instruction; counts the
 * distinct lines into *lines as a side effect. */
static inline bool coalescer_new_sector(struct coalescer *c, uint64_t sector, uint64_t *lines)
{
	bool found;
	uint32_t i = coalescer_slot(&c->sectors, c->gen, sector, &found);
	if (found)
		return false;
	c->sectors.key[i] = sector;
	c->sectors.gen[i] = c->gen;
	uint64_t line = sector >> (c->line_shift - c->sector_shift);
	i = coalescer_slot(&c->lines, c->gen, line, &found);
	if (!found) {
		c->lines.key[i] = line;
		c->lines.gen[i] = c->gen;
		(*lines)++;
	}
	return true;
}

#endif
