/* The BigKernel runtime (Mokhtari's thesis, seeds/001, chapter 4) and its
 * baselines, on the SIMT executor. An application's input ("mapped
 * data") lives in host memory and is processed chunk by chunk by one
 * computation kernel written once (bk_kernels.h); the variants differ in
 * how a chunk gets to the GPU:
 *
 *   single   copy the chunk into a pinned staging buffer (CPU), transfer
 *            it, compute; nothing overlaps (Fig. 4.5);
 *   double   the same stages with two buffer sets, CUDA-streams style, so
 *            one chunk's copy overlaps another's computation;
 *   bigkernel  stage 1: the address-generation slice runs on the GPU and
 *            sends addresses (or patterns, 4.3.1) to pinned host memory;
 *            stage 2: the CPU gathers exactly those elements into a
 *            pinned prefetch buffer in the interleaved order the
 *            computation reads them; stage 3: the buffer is transferred;
 *            stage 4: the computation reads element k of thread t at
 *            k x threads + t; `buffers` buffer sets rotate (the reference
 *            code uses 3);
 *   um       the whole input in one managed allocation, the kernel run on
 *            each chunk in place: demand paging (with the configured
 *            prefetcher) moves the data;
 *   bigkernel + S-L1  BigKernel whose computation kernel reads the data
 *            buffer (and its other non-atomic GPU data) through S-L1, the
 *            software L1 of chapter 5 (Fig. 5.14, 5.3.3).
 *
 * GPU stages (kernels, the address stores over PCIe, DMA copies) are
 * timed by the engine; CPU stages (staging copy, data assembly) are done
 * for real here and timed by a model: bytes moved over a host copy rate
 * (bk_opts.host_copy_gb_s). The stages are then overlapped on a timeline
 * (bk_schedule.h). Every variant's result is checked against the
 * application's CPU reference. */
#ifndef GPUVM_BK_RUNTIME_H
#define GPUVM_BK_RUNTIME_H

#include <stdint.h>
#include <stddef.h>

#include "bigkernel/bk_device.h"
#include "bigkernel/bk_schedule.h"
#include "gpuvm/simt.h"

struct bk_opts {
	uint64_t size_bytes;   /* mapped input */
	uint64_t chunk_bytes;  /* per chunk */
	uint64_t threads;      /* computation threads per launch */
	uint32_t block;
	unsigned buffers;      /* BigKernel's buffer sets */
	double host_copy_gb_s; /* one CPU thread's copy rate */
	unsigned cpu_threads;  /* BigKernel's assembly threads */
	int um;                /* also run the unified-memory variant */
	int nopat;             /* also run BigKernel without pattern recognition */
	int volume;            /* also run BigKernel without interleaving (Fig. 4.12) */
	int ag_overlap;        /* address generation beside the computation (bk_schedule_ag) */
	int cpu_time;          /* time the CPU references (thread CPU time, bk_run.cpu_ref_s) */
	int sl1;               /* also run BigKernel with S-L1 in the computation (Fig. 5.14) */
	int wc_lock;           /* Word Count: per-slot locks in its table (bk_table_add_locked) */
	int wc_keys;           /* Word Count: the locked table's keys are the words, compared bytewise */
	int of_keys;           /* Opinion Finder: its dictionaries hold words, compared bytewise */
	/* the preset's SM limits, for S-L1's CLN (sl1_cln.h) */
	uint32_t sms, max_warps, max_ctas;
	uint64_t smem_per_sm;
	uint64_t seed;
};

struct bk_run;

/* An application: its input, its kernel's arguments per chunk, its
 * mapped output, its CPU reference. */
struct bk_app {
	const char *name;
	struct bk_template tp; /* the mapped reads of one record */
	int passes;            /* MasterCard Affinity: 2 */
	int sl1_nds;           /* data structures its kernel declares to S-L1 (0: not an
				* S-L1 application, Table 5.1) */
	simt_body_fn kernel;
	const char *kernel_name;
	/* Generates the input (host memory, bk_run.input / nrec / index) and
	 * allocates the application's GPU tables. */
	int (*setup)(struct bk_run *r);
	/* Kernel arguments for one chunk; returns their size. */
	size_t (*args)(struct bk_run *r, int pass, const struct bk_map *m, const struct bk_range *g,
		       uint64_t first_rec, uint64_t chunk_base, void *out);
	/* Optional: the chunk's mapped output back to the host (K-means). */
	int (*chunk_out)(struct bk_run *r, uint64_t first_rec, uint64_t nrec);
	/* Compares the GPU's result with the CPU reference (1 = equal), puts
	 * a short summary in extra, and resets the GPU tables for the next
	 * variant. */
	int (*check)(struct bk_run *r, char *extra, size_t len);
};

extern const struct bk_app *const bk_apps[];
extern const size_t bk_apps_count;

/* One chunk of the input. */
struct bk_chunk {
	uint64_t first_rec, nrec, base, bytes; /* records; byte span in the input */
};

/* Stage times of one variant, summed over chunks. */
struct bk_variant {
	double seconds;                  /* makespan of the timeline */
	double serial_s;                 /* the same with address generation and
					  * computation serialized on the GPU */
	double stage_s[BK_STAGES];       /* busy time per stage */
	uint64_t h2d_bytes;              /* mapped data and index sent to the GPU */
	uint64_t addr_bytes;             /* addresses / patterns sent to the host */
	int ok;                          /* result equals the CPU reference */
};

enum bk_variant_id { BK_V_SINGLE = 0, BK_V_DOUBLE, BK_V_BIGKERNEL, BK_V_BK_NOPAT, BK_V_UM,
		     BK_V_OVERLAP, BK_V_VOLUME, BK_V_BK_SL1, BK_VARIANTS };

struct bk_run {
	struct simt_host *h;
	const struct bk_opts *o;
	const struct bk_app *app;
	/* the mapped input, in host memory */
	unsigned char *input;
	uint64_t input_bytes, nrec;
	uint64_t *index;             /* indexed records: byte offset of each (else NULL) */
	/* indexed: the index the next launch reads, from the chunk's first record */
	const unsigned long long *cur_index;
	struct bk_chunk *chunks;
	size_t nchunks;
	void *app_state;             /* freed with the run */
#define BK_MAX_OWNED 4
	void *owned[BK_MAX_OWNED];   /* the application's host arrays, freed with the run */
	int nowned;
	struct bk_variant v[BK_VARIANTS];
	int ran[BK_VARIANTS];
	char extra[96];
	/* CPU time of the application's CPU reference, one thread on this
	 * host (bk_opts.cpu_time; else 0): Fig. 4.10's serial CPU run */
	double cpu_ref_s;
	/* BigKernel + S-L1: the S-L1 totals of its computation kernels and
	 * the lines per thread (CLN) of its launches */
	struct sl1_stats sl1_stats;
	int sl1_cln;
	/* every chunk's stage times of the last pipelined variant (tests) */
	double *dur;
	struct bk_task *tasks;
};

/* Thread CPU time now (seconds), for timing the CPU references. */
double bk_cpu_clock(void);

/* Runs every variant of r->app (r->h, r->o, r->app set). */
int bk_run_all(struct bk_run *r);
void bk_run_free(struct bk_run *r);

/* Expands thread t's addresses from the address-generation buffers into
 * out[0..n) (n = the count the thread wrote); returns n. For tests and
 * for the data assembly. */
uint64_t bk_thread_addresses(const unsigned long long *pat, const unsigned long long *addr,
			     uint64_t threads, uint64_t t, uint64_t *out, uint64_t cap);

#endif
