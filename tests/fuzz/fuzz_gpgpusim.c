/* libFuzzer target for `gpuvm presets import`: gpgpusim.config text read
 * by the GPGPU-Sim option syntax, then mapped onto the v100 preset and
 * written as a preset, which the import loads back and compares
 * (gpuvm/gpgpusim_import.h). Any input either fails with a message or
 * gives a preset that loads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/gpgpusim_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpuvm_gs_config gs = {0};
	struct gpuvm_gs_result res;
	struct gpuvm_error err;
	/* an include would read the machine's files: the harness reads none */
	if (memmem(data, size, "-config", 7))
		return 0;
	if (gpuvm_gs_parse_text(&gs, (const char *)data, size, "fuzz.config", NULL, &err) == 0 &&
	    gpuvm_gs_import(&gs, "v100", "fuzz.ini", &res, &err) == 0)
		gpuvm_gs_result_free(&res);
	gpuvm_gs_free(&gs);
	return 0;
}
