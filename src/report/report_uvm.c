/* The Zheng-Fig.-6-style PCIe utilisation figure of a run's "uvm" object
 * (the object itself is generated from src/uvm/uvm_counters.c's rows). */
#include "gpuvm/report.h"

#include <string.h>

#include "gpuvm/plot.h"

#define UTIL_POINTS 100 /* the series src/uvm/uvm_counters.c writes */

int gpuvm_report_pcie_plot(const cJSON *run, const char *path, struct gpuvm_error *err)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(run, "uvm");
	const cJSON *pu = cJSON_GetObjectItemCaseSensitive(u, "pcie_utilization");
	if (!pu)
		return gpuvm_fail(err, path, 0, NULL,
				  "the run used no managed memory, so there is no PCIe paging to plot "
				  "(use a workload with mem=managed)");
	static const char *const keys[] = {"normalized_time", "h2d", "d2h"};
	double v[3][UTIL_POINTS];
	for (int k = 0; k < 3; k++) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(pu, keys[k]);
		int i = 0;
		const cJSON *e;
		cJSON_ArrayForEach(e, a) {
			if (i < UTIL_POINTS)
				v[k][i++] = e->valuedouble;
		}
		if (i != UTIL_POINTS)
			return gpuvm_fail(err, path, 0, NULL, "malformed utilisation series");
	}
	struct gpuvm_plot_series s[2] = {
		{.name = "host to device (migrations)", .x = v[0], .y = v[1], .n = UTIL_POINTS},
		{.name = "device to host (write-backs)", .x = v[0], .y = v[2], .n = UTIL_POINTS},
	};
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(run, "workload");
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(run, "gpu");
	char title[600], spec[300];
	gpuvm_plot_readable_spec(cJSON_IsString(wl) ? wl->valuestring : "?", spec, sizeof spec);
	snprintf(title, sizeof title, "PCIe utilization, %s on %s", spec,
		 cJSON_IsString(gpu) ? gpu->valuestring : "?");
	/* both axes are fractions 0..1: linear, whatever their spread */
	struct gpuvm_plot_opts o = {.title = title, .xlabel = "normalized runtime (0-1)",
				    .ylabel = "PCIe bandwidth utilization (0-1)", .fixed_scales = true};
	return gpuvm_plot_lines_opts(path, &o, s, 2, err);
}
