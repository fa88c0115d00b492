/* libFuzzer target for the NVBit mem_trace reader (both forms). */
#include <stdint.h>

#include "fuzz_trace_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write("memtrace.txt", data, size);
	fuzz_read_trace("memtrace.txt", GPUVM_TRACE_MEMTRACE, size);
	return 0;
}
