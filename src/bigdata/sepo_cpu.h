/* The pthreads CPU baseline of seeds/001 Fig. 6.9 (sepo_cpu.c). */
#ifndef GPUVM_SEPO_CPU_H
#define GPUVM_SEPO_CPU_H

#include <stdint.h>

#include "bigdata/sepo.h"
#include "bigdata/sepo_ref.h"

typedef void (*sepo_emit_fn)(void *table, const unsigned long long *key, unsigned int kbytes,
			     const unsigned long long *val, unsigned int vbytes);

/* An application as the CPU sees it: its input generator and its map
 * (one record -> zero or more pairs, each handed to emit; keys and
 * values as zero-padded words, as the GPU kernels build them). */
struct sepo_cpu_app {
	uint64_t records;
	uint32_t rec_words;
	void *ctx;
	void (*fill)(void *ctx, uint64_t first, uint64_t n, unsigned long long *out);
	void (*map)(void *ctx, const unsigned long long *rec, sepo_emit_fn emit, void *table);
};

/* Runs the map over every record on `threads` pthreads into a CPU table of
 * configuration c (sized for the whole table: no postponement), timing
 * the parallel part; then reads the table into `summary` (initialised by
 * the caller) for sepo_ref_compare. Returns -1 out of memory. */
int sepo_cpu_run(const struct sepo_cpu_app *app, const struct sepo_config *c, unsigned int threads,
		 struct sepo_ref *summary, double *seconds);

#endif
