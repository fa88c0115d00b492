/* How many host threads a run's input building may use.
 *
 * Owns: one count per calling thread.
 * May call: nothing.
 * Guarantees: gpuvm_run_point sets it from --threads around a workload's
 * create, and the builders that read it (graph generation, src/graph/rmat.c)
 * make the same input at any count: threads change only how fast an input
 * is built, never what it is. Per calling thread, so runs made side by
 * side in one process each keep their own; 0 or 1 means the calling
 * thread alone. */
#ifndef GPUVM_CORE_INPUT_THREADS_H
#define GPUVM_CORE_INPUT_THREADS_H

#include <stdint.h>

void gpuvm_input_threads_set(uint32_t threads);
uint32_t gpuvm_input_threads(void);

#endif
