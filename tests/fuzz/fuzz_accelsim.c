/* libFuzzer target for the Accel-Sim reader. First byte even: the input
 * is a kernel .traceg file named by a fixed kernelslist.g; odd: the input
 * is the kernelslist.g, next to a fixed small kernel file. Inputs of odd
 * size are read at two threads (fuzz_trace_util.h), and with a part size
 * of 64 bytes a kernel file of two parts' size is then cut and parsed in
 * parts (src/trace/accelsim_split.c): the cut search, the parts' threads
 * and the fallback to the whole parse see arbitrary bytes too. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char small_kernel[] =
	"-kernel name = k\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
	"-accelsim tracer version = 5\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
	"0000 ffffffff 1 R1 MOV 0 0 0\n00a0 ffffffff 1 R4 LDG.E 1 R4 4 1 0x7f0000001000 4 0\n#END_TB\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	setenv("GPUVM_TRACE_SPLIT_BYTES", "64", 0);
	if (data[0] & 1) {
		fuzz_write("kernel-1.traceg", small_kernel, sizeof small_kernel - 1);
		fuzz_write("kernelslist.g", data + 1, size - 1);
	} else {
		static const char list[] = "MemcpyHtoD,0x00007f0000001000,4096\nkernel-1.traceg\n";
		fuzz_write("kernelslist.g", list, sizeof list - 1);
		fuzz_write("kernel-1.traceg", data + 1, size - 1);
	}
	fuzz_read_trace("kernelslist.g", GPUVM_TRACE_ACCELSIM, size);
	return 0;
}
