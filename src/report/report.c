#include "gpuvm/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuvm/counters.h"
#include "gpuvm/units.h"
#include "core/demangle.h"

cJSON *gpuvm_report_config(const struct gpuvm_config *cfg)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", cfg->name);
	char buf[1024];
	const char *key;
	for (size_t i = 0; (key = gpuvm_config_key_at(cfg, i)); i++) {
		if (gpuvm_config_get(cfg, key, buf, sizeof buf))
			continue;
		double v;
		if (gpuvm_parse_double(buf, &v) == 0)
			cJSON_AddNumberToObject(o, key, v);
		else
			cJSON_AddStringToObject(o, key, buf);
	}
	return o;
}

void gpuvm_report_config_hash(const struct gpuvm_config *cfg, char out[17])
{
	/* FNV-1a 64 over "key=value\n" of every key, in table order */
	uint64_t h = 14695981039346656037ull;
	char buf[1024];
	const char *key;
	for (size_t i = 0; (key = gpuvm_config_key_at(cfg, i)); i++) {
		if (gpuvm_config_get(cfg, key, buf, sizeof buf))
			continue;
		for (int part = 0; part < 2; part++)
			for (const char *p = part ? buf : key; ; p++) {
				h ^= (unsigned char)(*p ? *p : part ? '\n' : '=');
				h *= 1099511628211ull;
				if (!*p)
					break;
			}
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static struct gpuvm_counter_ctx run_ctx(const struct gpuvm_config *cfg, const struct gpuvm_stats *st)
{
	struct gpuvm_counter_ctx c = {.cfg = cfg, .st = st, .base = st, .hz = cfg->clock_mhz * 1e6};
	return c;
}

cJSON *gpuvm_report_kernel(const struct gpuvm_config *cfg, const struct gpuvm_stats *st,
			   const struct gpuvm_kernel_stats *k)
{
	cJSON *o = cJSON_CreateObject();
	struct gpuvm_counter_ctx c = run_ctx(cfg, st);
	c.base = k;
	gpuvm_counters_emit(o, &gpuvm_kernel_section, &c);
	return o;
}

void gpuvm_report_uvm(cJSON *run, const struct gpuvm_config *cfg, const struct gpuvm_stats *st)
{
	struct gpuvm_counter_ctx c = run_ctx(cfg, st);
	if (!st->uvm.active)
		return;
	c.base = &st->uvm;
	cJSON *o = cJSON_AddObjectToObject(run, "uvm");
	gpuvm_counters_emit(o, &gpuvm_uvm_section, &c);
}

cJSON *gpuvm_report_run(const struct gpuvm_config *cfg, const char *preset, const char *workload,
			uint64_t seed, const struct gpuvm_stats *st)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "gpu", cfg->name);
	if (preset)
		cJSON_AddStringToObject(o, "preset", preset);
	cJSON_AddStringToObject(o, "workload", workload);
	cJSON_AddNumberToObject(o, "seed", (double)seed);
	cJSON_AddStringToObject(o, "result", st->result);
	char hash[17];
	gpuvm_report_config_hash(cfg, hash);
	cJSON_AddStringToObject(o, "config_hash", hash);
	cJSON_AddItemToObject(o, "config", gpuvm_report_config(cfg));
	/* every counter, from the registered rows (gpuvm/counters.h) */
	struct gpuvm_counter_ctx c = run_ctx(cfg, st);
	gpuvm_counters_emit(o, &gpuvm_run_section, &c);
	return o;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A line per launch, or the first and last 10 past 20. */
static void print_kernels(FILE *out, const cJSON *kl)
{
	int n = cJSON_GetArraySize(kl);
	if (n <= 1)
		return;
	int i = 0;
	const cJSON *k;
	cJSON_ArrayForEach(k, kl) {
		if (n > 20 && i == 10)
			fprintf(out, "  ... %d more launches (JSON \"kernels\" has every one)\n", n - 20);
		if (n <= 20 || i < 10 || i >= n - 10) {
			/* the name demangled and whole: a column of 28 keeps short
			 * names aligned, a longer one pushes the line out rather
			 * than being cut */
			const cJSON *nm = cJSON_GetObjectItemCaseSensitive(k, "name");
			const cJSON *dm = cJSON_GetObjectItemCaseSensitive(k, "name_demangled");
			char *name = cJSON_IsString(dm) ? NULL
							 : gpuvm_demangle(cJSON_IsString(nm) ? nm->valuestring : "");
			fprintf(out, "kernel %-4d %-28s  time %.4g s  warp ipc %.3g (thread %.4g)"
				     "  l1 sector hit/miss %.3g/%.3g  l2 sector hit/miss %.3g/%.3g",
				i, cJSON_IsString(dm) ? dm->valuestring : name ? name : "", num(k, "sim_seconds"),
				num(k, "warp_ipc"), num(k, "thread_ipc"), num(k, "l1_sector_hits"),
				num(k, "l1_sector_misses"), num(k, "l2_sector_hits"), num(k, "l2_sector_misses"));
			free(name);
			/* translation and paging of the launch (kernels[].tlb, .uvm) */
			const cJSON *lv;
			fputs("  tlb miss", out);
			cJSON_ArrayForEach(lv, cJSON_GetObjectItemCaseSensitive(k, "tlb"))
				fprintf(out, " L%.0f %.3g", num(lv, "level"), num(lv, "misses"));
			fprintf(out, "  walks %.3g (pwc hits %.3g)", num(k, "walks"), num(k, "pwc_hits"));
			const cJSON *u = cJSON_GetObjectItemCaseSensitive(k, "uvm");
			if (u)
				fprintf(out, "  far faults %.3g  pages in %.3g  evicted %.3g  thrashed %.3g"
					     "  remote accesses %.3g",
					num(u, "far_faults"), num(u, "pages_h2d"), num(u, "pages_evicted"),
					num(u, "thrashed_pages"), num(u, "remote_accesses"));
			fputc('\n', out);
		}
		i++;
	}
}

void gpuvm_report_print(FILE *out, const cJSON *run)
{
	const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(run, "gpu");
	const cJSON *wl = cJSON_GetObjectItemCaseSensitive(run, "workload");
	const cJSON *res = cJSON_GetObjectItemCaseSensitive(run, "result");
	fprintf(out, "gpu        %s\nworkload   %s\nresult     %s\n", gpu->valuestring,
		wl->valuestring, res->valuestring);
	fprintf(out, "simulated  %.6g s (%.4g cycles), %.4g kernels\n", num(run, "sim_seconds"),
		num(run, "sim_cycles"), num(run, "kernel_launches"));
	fprintf(out, "throughput %.4g thread accesses per simulated second\n",
		num(run, "accesses_per_sim_second"));
	fprintf(out, "work       %.4g warp instructions, %.4g memory, %.4g thread accesses\n",
		num(run, "warp_instructions"), num(run, "memory_instructions"),
		num(run, "thread_accesses"));
	fprintf(out, "coalesced  %.4g sectors, %.4g lines, %.4g translation units\n",
		num(run, "sectors"), num(run, "lines"), num(run, "translation_units"));
	const cJSON *tlb = cJSON_GetObjectItemCaseSensitive(run, "tlb");
	const cJSON *lv;
	cJSON_ArrayForEach(lv, tlb)
	{
		fprintf(out, "tlb L%-2.0f    %12.0f lookups  %6.2f%% hit  %12.0f misses  (%g instances)\n",
			num(lv, "level"), num(lv, "lookups"), 100 * num(lv, "hit_ratio"),
			num(lv, "misses"), num(lv, "instances"));
		const cJSON *peer = cJSON_GetObjectItemCaseSensitive(lv, "peer");
		if (cJSON_IsString(peer) && strcmp(peer->valuestring, "none") != 0)
			fprintf(out, "  %-8s  r_local %.4f  r_remote %.4f  r_l1 %.4f  avg translation %.2f cycles\n",
				peer->valuestring, num(lv, "r_local"), num(lv, "r_remote"), num(lv, "r_l1"),
				num(lv, "avg_translation_cycles"));
	}
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(run, "tlb_sharing");
	if (sh) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(sh, "fraction_of_held_lookups");
		fprintf(out, "sharing    held by 1: %.3f  2-4: %.3f  5-8: %.3f  9-12: %.3f  13-16: %.3f; "
			"neighbour correlation %.3f\n",
			num(f, "1"), num(f, "2-4"), num(f, "5-8"), num(f, "9-12"), num(f, "13-16"),
			num(sh, "neighbour_correlation_avg"));
	}
	fprintf(out, "walks      %.4g (page-walk cache hits %.4g)\n", num(run, "walks"),
		num(run, "pwc_hits"));
	fprintf(out, "l1         %.4g sector hits, %.4g misses; %.4g local, %.4g shared "
		"instructions (%.4g wavefronts), %.4g barriers\n",
		num(run, "l1_sector_hits"), num(run, "l1_sector_misses"), num(run, "local_instructions"),
		num(run, "shared_instructions"), num(run, "shared_wavefronts"), num(run, "barriers"));
	fprintf(out, "l2         %.4g sector hits, %.4g misses\n", num(run, "l2_sector_hits"),
		num(run, "l2_sector_misses"));
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(run, "stall_cycles");
	double total = 0;
	for (int i = 0; i < GPUVM_STALLS; i++)
		total += num(st, gpuvm_stall_names[i]);
	if (total > 0) {
		fprintf(out, "stalls    ");
		for (int i = 0; i < GPUVM_STALLS; i++)
			fprintf(out, " %s %.1f%%", gpuvm_stall_names[i],
				100 * num(st, gpuvm_stall_names[i]) / total);
		fprintf(out, " (of %.4g warp-cycles)\n", total);
	}
	print_kernels(out, cJSON_GetObjectItemCaseSensitive(run, "kernels"));
	/* the host link is PCIe, or NVLink-C2C on a coherent system
	 * (c2c.coherent): the JSON keeps its pcie_* names, the text says
	 * which link the bytes crossed */
	const cJSON *c2c = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(run, "config"), "c2c.coherent");
	const char *link = cJSON_IsString(c2c) && !strcmp(c2c->valuestring, "on") ? "NVLink-C2C"
										   : "PCIe";
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(run, "uvm");
	fprintf(out, "traffic    DRAM %.4g B, %s h2d %.4g B, d2h %.4g B (zero-copy %.4g B",
		num(run, "dram_bytes"), link, num(run, "pcie_h2d_bytes"), num(run, "pcie_d2h_bytes"),
		num(run, "zero_copy_bytes"));
	/* managed or system pages read (atomics: written) in place across
	 * the link, not migrated (uvm.remote_bytes) */
	if (u)
		fprintf(out, ", remote access %.4g B", num(u, "remote_bytes"));
	fputs(")\n", out);
	const cJSON *ks = cJSON_GetObjectItemCaseSensitive(run, "kernel_sampling");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ks, "enabled"))) {
		const cJSON *why = cJSON_GetObjectItemCaseSensitive(ks, "refused");
		fprintf(out, "sampling   %.4g launches simulated in detail, %.4g fast-forwarded "
			"(tolerance %g)%s\n",
			num(ks, "detailed_kernels"), num(ks, "fast_forwarded_kernels"),
			num(ks, "tolerance"),
			num(ks, "fast_forwarded_kernels") > 0 ? "; time and memory counters estimated"
							      : "");
		if (cJSON_IsString(why) && why->valuestring[0])
			fprintf(out, "sampling   refused: %s\n", why->valuestring);
	}
	if (u) {
		fprintf(out, "far faults %.4g in %.4g batches (%.4g nacks), %.4g thrashed pages\n",
			num(u, "far_faults"), num(u, "fault_batches"), num(u, "nacks"),
			num(u, "thrashed_pages"));
		fprintf(out, "migration  %.4g pages in (%.4g prefetched: %.4g used, %.4g unused), "
			"%.4g evicted, %.4g written back\n",
			num(u, "pages_h2d"), num(u, "prefetched_pages"), num(u, "prefetched_used"),
			num(u, "prefetched_unused"), num(u, "pages_evicted"), num(u, "pages_d2h"));
		fprintf(out, "%-10s mean utilization h2d %.1f%%, d2h %.1f%%; post-hoc faults %.4g s\n",
			strcmp(link, "PCIe") ? "c2c" : "pcie", 100 * num(u, "pcie_h2d_utilization_mean"), 100 * num(u, "pcie_d2h_utilization_mean"),
			num(u, "posthoc_fault_seconds"));
	}
	/* Rates per CPU second when the caller measured it (gpuvm sim adds
	 * "cpu_seconds", the process's CPU time over the run): a shared host's
	 * load stretches wall time, not CPU time. */
	double cpu = num(run, "cpu_seconds");
	if (cpu > 0)
		fprintf(out, "simulator  %.3f CPU s (%.3f s wall), %.3g warp insts/CPU s, "
			"%.3g thread accesses/CPU s\n",
			cpu, num(run, "wall_seconds"), num(run, "warp_instructions") / cpu,
			num(run, "thread_accesses") / cpu);
	else
		fprintf(out, "simulator  %.3f s wall, %.3g warp insts/s, %.3g thread accesses/s\n",
			num(run, "wall_seconds"), num(run, "warp_instructions_per_wall_second"),
			num(run, "thread_accesses_per_wall_second"));
}
