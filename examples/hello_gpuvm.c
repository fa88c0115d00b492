/* hello_gpuvm: one simulation through the installed library's public API.
 *
 * Runs a workload on a GPU preset, as `gpuvm sim --gpu GPU --workload
 * WORKLOAD` does, and prints a few results from the run's JSON report
 * (the same object `gpuvm sim --json` writes; its members are described
 * by `gpuvm stats`).
 *
 * Build against an installed gpuvm (make install, or cmake --install build
 * --prefix DIR; with a prefix outside the system's, point PKG_CONFIG_PATH at
 * DIR/lib/pkgconfig and LD_LIBRARY_PATH at DIR/lib):
 *
 *     cc -o hello_gpuvm examples/hello_gpuvm.c $(pkg-config --cflags --libs gpuvm)
 *     ./hello_gpuvm [GPU [WORKLOAD]]
 *
 * Defaults: the p100 preset and random-sampling:region=64MiB,reads=16
 * (a random read of a 64 MiB buffer, 16 reads per thread; under a second). */
#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include <gpuvm/error.h>
#include <gpuvm/run.h>

/* a number member of the report, or -1 when it is missing */
static double number(const cJSON *obj, const char *key)
{
	const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsNumber(item) ? item->valuedouble : -1.0;
}

int main(int argc, char **argv)
{
	struct gpuvm_run_spec spec = {
		.gpu = argc > 1 ? argv[1] : "p100",
		.workload = argc > 2 ? argv[2] : "random-sampling:region=64MiB,reads=16",
		.seed = 1,
	};
	struct gpuvm_error err = {{0}};
	cJSON *run = NULL;

	if (gpuvm_run_point(&spec, &run, &err)) {
		fprintf(stderr, "hello_gpuvm: %s\n", err.msg);
		return 2;
	}
	printf("gpu          %s\n", spec.gpu);
	printf("workload     %s\n", spec.workload);
	printf("sim_cycles   %.0f\n", number(run, "sim_cycles"));
	printf("sim_seconds  %.6g\n", number(run, "sim_seconds"));
	printf("accesses     %.0f thread accesses\n", number(run, "thread_accesses"));
	printf("walks        %.0f page walks\n", number(run, "walks"));
	cJSON_Delete(run);
	return 0;
}
