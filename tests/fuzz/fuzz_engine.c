/* libFuzzer target that runs the engine: fuzzed "key=value" lines are
 * applied with --set semantics over a shipped preset, and a tiny workload
 * (random sampling, managed triad under oversubscription, group-by, a
 * zero-copy read) runs through the whole model. What it looks for is a
 * hang or a crash from an accepted value: every value the checks let
 * through must finish in time proportional to the work (scripts/fuzz.sh
 * runs it with -timeout). First byte: preset; second: workload. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpuvm/run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const presets[] = {"p100", "k80", "h100", "gtx1080ti-uvmsmart",
					      "gem5gpu-neidty"};
	/* tiny: a few thousand thread accesses each */
	static const char *const workloads[] = {
		"random-sampling:threads=256,reads=4,region=64MiB",
		"stream-triad:elems=8192,threads=1024,mem=managed",
		"hash-groupby:groups=256,input=4096,threads=512",
		"random-sampling:threads=128,reads=4,region=8MiB,mem=managed",
		"stream-triad:elems=4096,threads=512,mem=copy",
	};
	if (size < 2 || size > 4096)
		return 0;
	char *text = malloc(size - 1);
	if (!text)
		return 0;
	memcpy(text, data + 2, size - 2);
	text[size - 2] = 0;
	struct gpuvm_run_spec spec = {
		.gpu = presets[data[0] % (sizeof presets / sizeof presets[0])],
		.workload = workloads[data[1] % (sizeof workloads / sizeof workloads[0])],
		.seed = 1,
	};
	/* one assignment per line, as many --set options */
	for (char *line = text, *next; line && spec.n_sets < GPUVM_MAX_SETS; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (*line)
			spec.sets[spec.n_sets++] = line;
	}
	cJSON *run = NULL;
	struct gpuvm_error err;
	if (gpuvm_run_point(&spec, &run, &err) == 0)
		cJSON_Delete(run);
	free(text);
	return 0;
}
