/* Shared pieces of the benchmark-suite workloads written on the SIMT
 * executor: the common parameters (mem=, verify=), result formatting and
 * output comparison against the plain CPU references. */
#ifndef GPUVM_SUITE_H
#define GPUVM_SUITE_H

#include <stdint.h>

#include "gpuvm/simt.h"
#include "gpuvm/workload.h"

/* Every suite workload takes these two after its own parameters. */
#define SUITE_COMMON_PARAMS                                                               \
	{"mem", GPUVM_PARAM_CHOICE, "device|managed|pinned|system",                       \
	 "allocation kind of the kernel data: device, managed (cudaMallocManaged), pinned or " \
	 "system (malloc memory over a coherent link: c2c.coherent=on)"},                 \
	{"verify", GPUVM_PARAM_U64, "0",                                                  \
	 "1: also run the plain CPU reference and report verify=pass or verify=FAIL"}

/* launches=N (only where a workload lists SUITE_LAUNCHES_PARAM): its
 * kernels run N times back to back after the one upload, as a profiler
 * session that times each of repeated launches (cuda/hwbench.cu
 * durations: five, the median taken; gpuvm validate's nsys-median rows).
 * The later runs find the L2 as the earlier ones left it. */
#define SUITE_LAUNCHES_PARAM                                                              \
	{"launches", GPUVM_PARAM_U64, "1",                                                \
	 "runs of the kernel sequence back to back after one upload (1-4096), as a "      \
	 "profiler's repeated launches; verify=1 needs 1"}

/* Their ranges: every suite workload's range table lists
 * SUITE_COMMON_RANGES (and SUITE_LAUNCHES_RANGE where it takes launches=) */
#define SUITE_COMMON_RANGES GPUVM_RANGE("verify", 0, 1)
#define SUITE_LAUNCHES_RANGE GPUVM_RANGE("launches", 1, 4096)

struct suite_opts {
	enum gpuvm_alloc_kind mem;
	int verify;
	uint64_t launches; /* SUITE_LAUNCHES_PARAM; 1 where not listed */
};

/* Reads mem=, verify= and launches=; fails with a message naming the bad
 * value. */
int suite_opts_parse(const struct gpuvm_params *p, struct suite_opts *o, struct gpuvm_error *err);

/* A block of block_x x block_y threads: at most 1024 (a limit tying the
 * two, so not in the range tables); 0, or -1 with err naming block_y. */
int suite_check_block_2d(uint64_t block_x, uint64_t block_y, struct gpuvm_error *err);

/* FNV-1a over bytes: the output digest in results. */
uint64_t suite_digest(const void *data, uint64_t bytes);

/* Largest relative difference |a-b| / max(1, |b|) over n floats. */
double suite_max_rel_err_f32(const float *got, const float *want, uint64_t n);
double suite_max_rel_err_f64(const double *got, const double *want, uint64_t n);

/* Sets the result "digest=... [verify=pass|FAIL max_err=...]" with extra text. */
void suite_result(struct simt_host *h, const struct suite_opts *o, uint64_t digest, int checked_ok,
		  double max_err, const char *extra);

/* PolyBench/GPU 1.0's matrix-vector kernels (mvt, bicg, gesummv): n x n
 * float matrices, a thread per row or column, blocks of block_x x block_y
 * whose index ignores threadIdx.y. The suite's .cuh files set 32 x 8 (mvt,
 * as atax: a CTA's 8 warps race on the same 32 elements, as on the GPU)
 * or 256 x 1 (bicg, gesummv). */
struct suite_pb_mv_cfg {
	uint64_t n, block_x, block_y;
	struct suite_opts o;
};

/* The parameters every one of them takes (n, the block's x and y with the
 * .cuh's values as strings, then the common two). */
#define SUITE_PB_MV_PARAMS(block_x_default, block_y_default)                              \
	{"n", GPUVM_PARAM_U64, "4096",                                                    \
	 "matrix side (PolyBench/GPU 1.0 STANDARD_DATASET: 4096)"},                       \
	{"block_x", GPUVM_PARAM_U64, block_x_default,                                     \
	 "threads in x of a block, a thread per element (the .cuh's DIM_THREAD_BLOCK_X)"}, \
	{"block_y", GPUVM_PARAM_U64, block_y_default,                                     \
	 "threads in y of a block (the .cuh's DIM_THREAD_BLOCK_Y); above 1 the y warps "  \
	 "of a block work on the same elements, racing, and verify=1 is refused"},        \
	SUITE_COMMON_PARAMS, SUITE_LAUNCHES_PARAM

#define SUITE_PB_MV_RANGES                                                                \
	GPUVM_RANGE("n", 1, 1u << 17), GPUVM_RANGE("block_x", 1, 1024),                      \
	GPUVM_RANGE("block_y", 1, 1024), SUITE_COMMON_RANGES, SUITE_LAUNCHES_RANGE
#define SUITE_PB_MV_CONSTRAINTS "block_x x block_y at most 1024; verify=1 needs block_y=1"

/* Reads SUITE_PB_MV_PARAMS into a new cfg and makes the program source
 * running host(h, cfg); verify=1 with block_y > 1 is refused (the racing
 * stores leave no single right answer). */
int suite_pb_mv_source(const char *name, int (*host)(struct simt_host *, void *),
		       uint64_t default_block_x, uint64_t default_block_y, const struct gpuvm_params *p,
		       struct gpuvm_source *out, struct gpuvm_error *err);

/* PolyBench/GPU's square matrix products (gemm, 2mm, 3mm, syrk): n x n float
 * matrices, a thread per output element in block_x x 8 blocks (the .cuh
 * files: 32 x 8). */
struct suite_square_cfg {
	uint64_t n, block_x;
	struct suite_opts o;
};

/* Their parameters after n: the block's x (the .cuh's 32), the common two. */
#define SUITE_SQUARE_PARAMS                                                               \
	{"block_x", GPUVM_PARAM_U64, "32",                                                \
	 "threads in x of the block_x x 8 blocks (the .cuh's DIM_THREAD_BLOCK_X: 32)"},   \
	SUITE_COMMON_PARAMS

#define SUITE_SQUARE_RANGES                                                               \
	GPUVM_RANGE("n", 1, 1u << 15), GPUVM_RANGE("block_x", 1, 128), SUITE_COMMON_RANGES

/* Reads n (default_n unless given), block_x and the common two into a new cfg and makes the program source running
 * host(h, cfg). */
int suite_square_source(const char *name, int (*host)(struct simt_host *, void *),
			uint64_t default_n, const struct gpuvm_params *p,
			struct gpuvm_source *out, struct gpuvm_error *err);

/* ceil(a / b) */
static inline uint32_t suite_div_up(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

#endif
