/* libFuzzer target for the system description parser (systems/ *.ini
 * text, gpuvm systems --check) and the evidence table parser
 * (validation/systems.tsv). The first byte picks the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuvm/sysdesc.h"

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
	struct gpuvm_error err;
	if (data[0] % 2 == 0) {
		struct gpuvm_sysdesc *sys = malloc(sizeof *sys);
		if (sys)
			gpuvm_sysdesc_parse(sys, text, "fuzz.ini", &err);
		free(sys);
	} else {
		struct gpuvm_sys_evidence *rows = NULL;
		size_t n = 0;
		if (gpuvm_sys_evidence_parse(text, "fuzz.tsv", &rows, &n, &err) == 0)
			free(rows);
	}
	free(text);
	return 0;
}
