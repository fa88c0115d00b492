/* The input-building thread count; see core/input_threads.h. */
#include "core/input_threads.h"

static _Thread_local uint32_t input_threads;

void gpuvm_input_threads_set(uint32_t threads)
{
	input_threads = threads;
}

uint32_t gpuvm_input_threads(void)
{
	return input_threads;
}
