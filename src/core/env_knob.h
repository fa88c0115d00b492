/* Environment knobs: the GPUVM_* variables that tune or trace the
 * simulator's machinery (buffer budgets, trace splitting, thread modes,
 * profiles), never the model: none changes a result.
 *
 * Owns: nothing but a short list of the knobs it has warned about.
 * Calls: getenv, and stderr for a warning.
 * Guarantees: a knob that is unset or empty gives the default without a
 * word; a set value that is not what the knob takes gives the default and
 * one warning on stderr naming the variable, its value, what it takes and
 * the value used, once per variable per process (a bench runs many
 * simulations). Thread-safe. */
#ifndef GPUVM_CORE_ENV_KNOB_H
#define GPUVM_CORE_ENV_KNOB_H

#include <stdint.h>
#include <stdio.h>

/* A whole number in [min, max] (decimal); else dflt. */
uint64_t env_knob_u64(const char *name, uint64_t dflt, uint64_t min, uint64_t max);

/* The index of the value in words[0..n), compared exactly; else dflt
 * (an index into words). */
int env_knob_word(const char *name, const char *const *words, int n, int dflt);

/* 0 or 1; else dflt. */
static inline int env_knob_bool(const char *name, int dflt)
{
	static const char *const words[] = {"0", "1"};
	return env_knob_word(name, words, 2, dflt ? 1 : 0);
}

/* Tests: where warnings go (NULL: stderr), and forget which were given. */
void env_knob_set_stream(FILE *f);

#endif
