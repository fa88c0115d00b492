/* The report of a run on a system of several GPUs (gpuvm/report.h):
 * the run's own numbers (system, total simulated time, peer copies) and
 * one section per GPU, each the object a one-GPU run reports
 * (gpuvm_report_run), so every counter keeps its meaning and its name.
 * A one-GPU run's report is unchanged. "totals" sums the GPUs' counters
 * that add (gpuvm_counters_emit_totals: every row flagged GPUVM_CTR_SUM
 * or GPUVM_CTR_TOTAL), so a counter a component registers reaches the
 * system's totals without a line here. */
#include <stdlib.h>
#include <string.h>

#include "gpuvm/counters.h"
#include "gpuvm/engine.h"
#include "gpuvm/report.h"
#include "gpuvm/sysdesc.h"

cJSON *gpuvm_report_system(const struct gpuvm_sysdesc *desc,
			   const struct gpuvm_config *const *cfgs, const char *workload,
			   const char *const *gpu_workloads, uint64_t seed,
			   const struct gpuvm_system_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "system", desc->name);
	cJSON_AddNumberToObject(o, "gpus", st->n_gpus);
	cJSON_AddStringToObject(o, "workload", workload);
	cJSON_AddNumberToObject(o, "seed", (double)seed);
	cJSON_AddStringToObject(o, "result", st->result);
	cJSON_AddNumberToObject(o, "sim_seconds", st->sim_seconds);
	cJSON_AddNumberToObject(o, "work_items", (double)st->work_items);
	cJSON_AddNumberToObject(o, "items_per_sim_second",
				st->sim_seconds > 0 ? (double)st->work_items / st->sim_seconds : 0);
	cJSON_AddNumberToObject(o, "peer_copies", (double)st->peer_copies);
	cJSON_AddNumberToObject(o, "peer_nvlink_bytes", (double)st->peer_nvlink_bytes);
	cJSON_AddNumberToObject(o, "peer_host_bytes", (double)st->peer_host_bytes);
	cJSON_AddNumberToObject(o, "peer_copy_seconds", st->peer_copy_seconds);
	if (st->managed) { /* device-memory runs' reports stay as they were */
		cJSON_AddNumberToObject(o, "uvm_peer_pages", (double)st->uvm_peer_pages);
		cJSON_AddNumberToObject(o, "uvm_peer_nvlink_bytes", (double)st->uvm_peer_nvlink_bytes);
		cJSON_AddNumberToObject(o, "uvm_peer_host_bytes", (double)st->uvm_peer_host_bytes);
		cJSON_AddNumberToObject(o, "uvm_invalidated_pages", (double)st->uvm_invalidated_pages);
		cJSON_AddNumberToObject(o, "uvm_duplicated_pages", (double)st->uvm_duplicated_pages);
		cJSON_AddNumberToObject(o, "uvm_collapsed_pages", (double)st->uvm_collapsed_pages);
		cJSON_AddNumberToObject(o, "uvm_peer_remote_bytes", (double)st->uvm_peer_remote_bytes);
		cJSON_AddNumberToObject(o, "managed_serialized_kernels",
					(double)st->managed_serialized_kernels);
	}
	struct gpuvm_counter_ctx *runs = malloc((st->n_gpus ? st->n_gpus : 1) * sizeof *runs);
	if (runs) { /* out of memory: the report goes without its totals */
		for (uint32_t d = 0; d < st->n_gpus; d++)
			runs[d] = (struct gpuvm_counter_ctx){.cfg = cfgs[d], .st = &st->gpu[d],
							     .base = &st->gpu[d],
							     .hz = cfgs[d]->clock_mhz * 1e6};
		gpuvm_counters_emit_totals(cJSON_AddObjectToObject(o, "totals"), &gpuvm_run_section,
					   runs, st->n_gpus);
		free(runs);
	}
	cJSON_AddNumberToObject(o, "wall_seconds", st->wall_seconds);
	cJSON *gpus = cJSON_AddArrayToObject(o, "gpu");
	for (uint32_t d = 0; d < st->n_gpus; d++) {
		cJSON *g = gpuvm_report_run(cfgs[d], desc->gpus[d].preset,
					    gpu_workloads ? gpu_workloads[d] : workload, seed,
					    &st->gpu[d]);
		cJSON_AddNumberToObject(g, "index", d);
		cJSON_AddItemToArray(gpus, g);
	}
	return o;
}

bool gpuvm_report_is_system(const cJSON *run)
{
	return cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(run, "gpu"));
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

void gpuvm_report_print_system(FILE *out, const cJSON *run)
{
	const cJSON *sys = cJSON_GetObjectItemCaseSensitive(run, "system");
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(run, "workload");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(run, "result");
	fprintf(out, "system     %s (%g GPUs)\nworkload   %s\nresult     %s\n",
		cJSON_IsString(sys) ? sys->valuestring : "?", num(run, "gpus"),
		cJSON_IsString(wl) ? wl->valuestring : "?",
		cJSON_IsString(res) ? res->valuestring : "");
	fprintf(out, "simulated  %.6g s, the whole run (every GPU and copy done)\n",
		num(run, "sim_seconds"));
	fprintf(out, "peer       %g copies: %.4g bytes over NVLink, %.4g staged through the host, "
		"%.4g s busy\n", num(run, "peer_copies"), num(run, "peer_nvlink_bytes"),
		num(run, "peer_host_bytes"), num(run, "peer_copy_seconds"));
	if (cJSON_GetObjectItemCaseSensitive(run, "uvm_peer_pages"))
		fprintf(out, "managed    %g pages migrated GPU to GPU (%.4g bytes over NVLink, %.4g "
			"staged through the host), %g invalidated, %g duplicated, %g collapsed, %g "
			"kernels held for another GPU's\n", num(run, "uvm_peer_pages"),
			num(run, "uvm_peer_nvlink_bytes"), num(run, "uvm_peer_host_bytes"),
			num(run, "uvm_invalidated_pages"), num(run, "uvm_duplicated_pages"),
			num(run, "uvm_collapsed_pages"), num(run, "managed_serialized_kernels"));
	/* the GPUs' sums of what paging and peer access did (the JSON's
	 * totals have every summed counter) */
	const cJSON *tot = cJSON_GetObjectItemCaseSensitive(run, "totals");
	const cJSON *tu = cJSON_GetObjectItemCaseSensitive(tot, "uvm");
	const cJSON *tp = cJSON_GetObjectItemCaseSensitive(tot, "peer_access");
	if (tu || tp) {
		fprintf(out, "totals     of the GPUs:");
		const char *sep = " ";
		if (tu) {
			fprintf(out, "%s%g far faults, %g pages migrated in, %g out", sep,
				num(tu, "far_faults"), num(tu, "pages_h2d"), num(tu, "pages_d2h"));
			sep = "; ";
		}
		if (cJSON_GetObjectItemCaseSensitive(tu, "cpu_faults")) {
			fprintf(out, "%s%g CPU faults (%g pages back)", sep, num(tu, "cpu_faults"),
				num(tu, "cpu_fault_pages"));
			sep = "; ";
		}
		if (tp)
			fprintf(out, "%s%g peer requests (%.4g bytes read, %.4g written)", sep,
				num(tp, "requests"), num(tp, "read_bytes"), num(tp, "write_bytes"));
		fprintf(out, "\n");
	}
	const cJSON *g;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(run, "gpu"))
	{
		fprintf(out, "\n== GPU %g ==\n", num(g, "index"));
		/* the text report's per-CPU-second rates are the run's */
		cJSON *copy = cJSON_Duplicate(g, 1);
		const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(run, "cpu_seconds");
		if (copy && cJSON_IsNumber(cpu))
			cJSON_AddNumberToObject(copy, "cpu_seconds", cpu->valuedouble);
		gpuvm_report_print(out, copy ? copy : g);
		cJSON_Delete(copy);
	}
}
