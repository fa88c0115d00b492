/* The SePo iteration driver (seeds/001 §6.3.3, Fig. 6.6): streams the
 * input to the GPU chunk by chunk, launches the application's map kernel
 * on each, and after the last chunk (or once the basic method's 50 % rule
 * halts the iteration) ends the iteration; repeats from the first
 * postponed record until every record is done, then copies the table out.
 * Input chunks go host-to-device through `buffers` rotating device
 * buffers: with 2 or more, each chunk's copy is asynchronous and runs
 * beside the kernels of the chunks before it, and the chunk's kernel
 * waits for its copy's event (the thesis feeds the map kernels through
 * BigKernel's pipeline, §6.5 and §6.6.1, whose buffer sets rotate three
 * deep, §4.3.3); with 1, each chunk is a synchronous cudaMemcpy followed
 * by its kernel, nothing overlapped. BigKernel pipelines per thread
 * block within one kernel; here the unit is the chunk, one launch each.
 * What a chunk sends (`resend_epochs` = 0, the default): BigKernel's
 * stages for the chunk's pending records only -- their addresses go to
 * the host (8 B a record, one per fixed-size record as the author's
 * prediction threads send), the host gathers the records into one
 * prefetch buffer and sends it in one copy; the done-bit test is control
 * flow, which BigKernel's address-generation slice keeps (seeds/001 §4.2,
 * §6.2.2, §6.6.1; docs/sepo.md). In the first iteration every record is
 * pending. `resend_epochs` = 1: no addresses, and a later iteration sends
 * the runs of 1024-record epochs that hold a pending record (the author's
 * code; the model before issue 76). */
#ifndef GPUVM_SEPO_RUN_H
#define GPUVM_SEPO_RUN_H

#include "bigdata/sepo.h"

struct sepo_input {
	uint64_t records;
	uint32_t rec_words;
	uint32_t key_bytes;   /* passed to the kernel (word count's longest word) */
	int needs_progress;   /* the kernel keeps per-record progress (word count) */
	int resend_epochs;    /* 1: whole epochs, no addresses (above); 0: pending records */
	unsigned int app;     /* SEPO_APP_* (sepo_kernels.h) */
	void *ctx;
	void (*fill)(void *ctx, uint64_t first, uint64_t n, unsigned long long *out);
	simt_body_fn kernel;
	const char *kernel_name;
};

#define SEPO_CHUNK_LOG 256

struct sepo_run_stats {
	unsigned int iterations;
	double iter_seconds[SEPO_MAX_ITERS]; /* each with its copy-out */
	/* each iteration's end: the done bitmap's download, the decision and
	 * the heap's copy-out (the last one's final copy-out too) */
	double iter_out_seconds[SEPO_MAX_ITERS];
	uint64_t iter_input_bytes[SEPO_MAX_ITERS]; /* input sent in each iteration */
	uint64_t iter_pending[SEPO_MAX_ITERS];     /* records still pending after each */
	uint32_t iter_kept_pages[SEPO_MAX_ITERS];  /* multi-valued: key pages kept on the GPU after each */
	double seconds;                      /* the whole run, final copy-out included */
	uint64_t input_bytes;                /* input copied to the GPU, all iterations */
	uint64_t address_bytes;              /* BigKernel's addresses sent to the host */
	/* pipelined runs: when each of the first SEPO_CHUNK_LOG launches'
	 * input copy ended (simulated seconds), in launch order (tests) */
	unsigned int n_chunk_log;
	double copy_end_seconds[SEPO_CHUNK_LOG];
};

int sepo_run(struct simt_host *h, struct sepo_table *t, const struct sepo_input *in,
	     uint64_t chunk_records, uint32_t threads, unsigned int buffers,
	     struct sepo_run_stats *st);

#endif
