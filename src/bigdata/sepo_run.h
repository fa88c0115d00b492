/* The SePo iteration driver (seeds/001 §6.3.3, Fig. 6.6): streams the
 * input to the GPU chunk by chunk, launches the application's map kernel
 * on each, and after the last chunk (or once the basic method's 50 % rule
 * halts the iteration) ends the iteration; repeats from the first
 * postponed record until every record is done, then copies the table out.
 * Input chunks go host-to-device as cudaMemcpy copies (the thesis feeds
 * them with BigKernel; double-buffered copies overlap less, which the
 * numbers here therefore slightly overstate). */
#ifndef GPUVM_SEPO_RUN_H
#define GPUVM_SEPO_RUN_H

#include "bigdata/sepo.h"

struct sepo_input {
	uint64_t records;
	uint32_t rec_words;
	uint32_t key_bytes;   /* passed to the kernel (word count's longest word) */
	int needs_progress;   /* the kernel keeps per-record progress (word count) */
	unsigned int app;     /* SEPO_APP_* (sepo_kernels.h) */
	void *ctx;
	void (*fill)(void *ctx, uint64_t first, uint64_t n, unsigned long long *out);
	simt_body_fn kernel;
	const char *kernel_name;
};

struct sepo_run_stats {
	unsigned int iterations;
	double iter_seconds[SEPO_MAX_ITERS]; /* each with its copy-out */
	double seconds;                      /* the whole run, final copy-out included */
	uint64_t input_bytes;                /* input copied to the GPU, all iterations */
};

int sepo_run(struct simt_host *h, struct sepo_table *t, const struct sepo_input *in,
	     uint64_t chunk_records, uint32_t threads, struct sepo_run_stats *st);

#endif
