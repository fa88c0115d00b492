/* Functional execution of SIMT kernels on worker threads, ahead of the
 * timing model (gpuvm sim --threads N; simt_par.c). */
#ifndef GPUVM_SIMT_PAR_H
#define GPUVM_SIMT_PAR_H

#include <stdint.h>

struct simt_program;
struct simt_launch;
struct simt_par;

/* Chunks of items a warp may have waiting for the engine whatever the
 * budget (GPUVM_SIMT_BUFFER_MIB, simt_par.c); it holds one more while
 * the engine reads it, and a worker one while filling it. */
#define SIMT_PAR_READY_CHUNKS 2

/* Routes launch l (declared SIMT_ANY_ORDER), in the program's launch
 * slot `slot`, through p->exec_threads worker threads, started on first
 * use: l->k then hands the engine the workers' warp items. The workers
 * start on it at once; the launch before it must be one whose threads
 * they have all run (simt_par_ahead_done), though the engine may still be
 * timing it. Returns -1 when the workers cannot be had (out of memory, no
 * thread): l is left to run on the calling thread, which gives the same
 * results. */
int simt_par_launch(struct simt_program *p, struct simt_launch *l, uint32_t slot);
/* Whether the workers have run every thread of the newest launch, without
 * an error: the memory it writes is then as the engine will leave it. */
int simt_par_ahead_done(struct simt_par *par);
/* Stops and joins the workers and frees what they hold (also mid-kernel,
 * after an error). NULL is a no-op. */
void simt_par_free(struct simt_par *par);
/* Chunks made so far (the pool keeps those returned): the most that were
 * in use at once (tests check the bound). */
uint64_t simt_par_chunks_made(struct simt_par *par);
/* Launches whose first CTA a worker had claimed before the engine began
 * it: the host program ran ahead and the workers started it early. */
uint64_t simt_par_launches_ready(struct simt_par *par);

#endif
