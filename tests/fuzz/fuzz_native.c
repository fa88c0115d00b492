/* libFuzzer target for the native trace reader (header, records, frame
 * chains, zstd frames, item decoding). */
#include <stdint.h>

#include "fuzz_trace_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write("trace.gvt", data, size);
	fuzz_read_trace("trace.gvt", GPUVM_TRACE_NATIVE, size);
	return 0;
}
