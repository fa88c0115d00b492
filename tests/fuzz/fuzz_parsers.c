/* libFuzzer target for the input parsers a user can reach: preset INI
 * text (then finalize, which checks every cross-field rule), --set
 * assignments, and workload specs. The first byte picks the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/config.h"
#include "gpuvm/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	struct gpuvm_error err;
	if (cfg) {
		switch (data[0] % 3) {
		case 0:
			if (gpuvm_config_load_string(cfg, text, "fuzz.ini", &err) == 0)
				gpuvm_config_finalize(cfg, &err);
			break;
		case 1:
			if (gpuvm_config_load(cfg, "p100", &err) == 0 &&
			    gpuvm_config_set(cfg, text, "--set", &err) == 0)
				gpuvm_config_finalize(cfg, &err);
			break;
		default: {
			const struct gpuvm_workload_def *def;
			struct gpuvm_params params;
			gpuvm_workload_parse(text, &def, &params, &err);
			break;
		}
		}
	}
	free(cfg);
	free(text);
	return 0;
}
