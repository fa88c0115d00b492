/* The timeline of a chunked CPU-GPU pipeline (BigKernel's four stages,
 * Fig. 4.1 and 4.9, and the single / double buffering baselines): every
 * stage of every chunk is a task of a measured duration on one resource
 * (the GPU, the CPU's assembly / staging threads, the host-to-device and
 * the device-to-host DMA engines). The engine runs a program's
 * operations one after the other, so the stages are timed there one by
 * one and overlapped here, as the CUDA streams and the CPU threads of a
 * real run would overlap them. */
#ifndef GPUVM_BK_SCHEDULE_H
#define GPUVM_BK_SCHEDULE_H

#include <stddef.h>

enum bk_stage {
	BK_ST_INDEX = 0,  /* an index slice to the GPU (not mapped data) */
	BK_ST_ADDRGEN,    /* stage 1: prefetch address generation (GPU) */
	BK_ST_ASSEMBLE,   /* stage 2: data assembly into the pinned buffer (CPU);
			   * the baselines' copy into the pinned staging buffer */
	BK_ST_H2D,        /* stage 3: the transfer */
	BK_ST_COMPUTE,    /* stage 4: the computation (GPU) */
	BK_ST_D2H,        /* mapped output back to the host */
	BK_STAGES
};

/* BK_RES_GPU_AG: the address-generation warps when they run beside the
 * computation warps (bk_schedule_ag). */
enum bk_resource { BK_RES_GPU = 0, BK_RES_CPU, BK_RES_H2D, BK_RES_D2H, BK_RES_GPU_AG, BK_RESOURCES };

extern const enum bk_resource bk_stage_resource[BK_STAGES];
extern const char *const bk_stage_names[BK_STAGES];

struct bk_task {
	double start_s, end_s;
};

/* Schedules chunks x BK_STAGES tasks with durations dur[chunk x
 * BK_STAGES + stage] (0: the stage is absent) on one server per
 * resource. A chunk's stages run in order; `buffers` buffer sets rotate
 * over the chunks: chunk i's first stage waits until chunk i - buffers
 * has finished computing (with one buffer, until it has finished
 * entirely: single buffering serializes everything). Among ready tasks
 * the one that can start earliest goes first (ties: the earlier chunk),
 * so a later chunk's address generation may run while an earlier chunk
 * waits for its data. Writes out[] and returns the makespan in seconds;
 * -1 on bad arguments. */
double bk_schedule(const double *dur, size_t chunks, unsigned buffers, struct bk_task *out);

/* bk_schedule, with address generation on a GPU server of its own when
 * ag_concurrent: the thesis's one kernel gives half of each block's
 * warps to address generation and half to computation (4.2, "Multiple
 * GPU thread blocks"; 4.3.3: address generation of iteration n runs
 * while the computation of n - 3 does), so stage 1 of one chunk and
 * stage 4 of another overlap. Each keeps the duration measured alone:
 * the two share no issue slots or memory bandwidth here (an optimistic
 * bound, docs/bigkernel.md). With 0 they share one GPU server. */
double bk_schedule_ag(const double *dur, size_t chunks, unsigned buffers, int ag_concurrent,
		      struct bk_task *out);

#endif
