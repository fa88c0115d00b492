#include "gpuvm/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuvm/units.h"

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

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

static cJSON *dim3(const uint32_t d[3])
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0; i < 3; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(d[i]));
	return a;
}

cJSON *gpuvm_report_kernel(const struct gpuvm_config *cfg, const struct gpuvm_kernel_stats *k)
{
	cJSON *o = cJSON_CreateObject();
	double hz = cfg->clock_mhz * 1e6;
	cJSON_AddStringToObject(o, "name", k->name);
	cJSON_AddItemToObject(o, "grid", dim3(k->grid));
	cJSON_AddItemToObject(o, "block", dim3(k->block));
	cJSON_AddNumberToObject(o, "start_cycle", k->start_cycle);
	cJSON_AddNumberToObject(o, "end_cycle", k->end_cycle);
	cJSON_AddNumberToObject(o, "sim_seconds", k->sim_seconds);
	cJSON_AddNumberToObject(o, "launch_seconds", k->launch_cycles / hz);
	cJSON_AddNumberToObject(o, "warp_instructions", (double)k->warp_insts);
	double cycles = k->end_cycle - k->start_cycle;
	cJSON_AddNumberToObject(o, "ipc", cycles > 0 ? (double)k->warp_insts / cycles : 0);
	cJSON_AddNumberToObject(o, "memory_instructions", (double)k->mem_insts);
	cJSON_AddNumberToObject(o, "thread_accesses", (double)k->thread_accesses);
	cJSON_AddNumberToObject(o, "l1_sector_hits", (double)k->l1_hits);
	cJSON_AddNumberToObject(o, "l1_sector_misses", (double)k->l1_misses);
	cJSON_AddNumberToObject(o, "l2_sector_hits", (double)k->l2_hits);
	cJSON_AddNumberToObject(o, "l2_sector_misses", (double)k->l2_misses);
	cJSON_AddNumberToObject(o, "tlb_l1_hits", (double)k->tlb_l1_hits);
	cJSON_AddNumberToObject(o, "tlb_l1_misses", (double)k->tlb_l1_misses);
	cJSON_AddNumberToObject(o, "dram_bytes", (double)k->dram_bytes);
	cJSON *stalls = cJSON_AddObjectToObject(o, "stall_cycles");
	for (int i = 0; i < GPUVM_STALLS; i++)
		cJSON_AddNumberToObject(stalls, gpuvm_stall_names[i], k->stall_cycles[i]);
	cJSON_AddBoolToObject(o, "fast_forwarded", k->fast_forwarded);
	cJSON_AddNumberToObject(o, "l1_bytes", (double)k->l1_bytes);
	cJSON_AddNumberToObject(o, "smem_bytes", (double)k->smem_bytes);
	return o;
}

/* Du et al.'s sharing analyses (seeds/002 Fig. 3, Tables I-II), defined
 * in docs/neidty.md: lookups by holders, and per instance the share of
 * its local misses that its left or right neighbour held. */
static void add_tlb_sharing(cJSON *o, const struct gpuvm_tlb_sharing_stats *sh)
{
	static const char *const names[GPUVM_SHARING_BUCKETS] = {"0", "1", "2-4", "5-8", "9-12", "13-16"};
	cJSON *t = cJSON_AddObjectToObject(o, "tlb_sharing");
	cJSON *h = cJSON_AddObjectToObject(t, "lookups_by_holders");
	uint64_t held = 0;
	for (int b = 0; b < GPUVM_SHARING_BUCKETS; b++) {
		cJSON_AddNumberToObject(h, names[b], (double)sh->holders[b]);
		held += b ? sh->holders[b] : 0;
	}
	cJSON *f = cJSON_AddObjectToObject(t, "fraction_of_held_lookups");
	for (int b = 1; b < GPUVM_SHARING_BUCKETS; b++)
		cJSON_AddNumberToObject(f, names[b], ratio(sh->holders[b], held));
	cJSON *c = cJSON_AddArrayToObject(t, "neighbour_correlation");
	uint64_t num = 0, den = 0;
	double mean = 0;
	for (uint32_t i = 0; i < sh->instances; i++) {
		double r = ratio(sh->neighbour_held[i], sh->local_misses[i]);
		cJSON_AddItemToArray(c, cJSON_CreateNumber(r));
		mean += r;
		num += sh->neighbour_held[i];
		den += sh->local_misses[i];
	}
	cJSON_AddNumberToObject(t, "neighbour_correlation_avg", sh->instances ? mean / sh->instances : 0);
	cJSON_AddNumberToObject(t, "neighbour_correlation_pooled", ratio(num, den));
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

	cJSON_AddNumberToObject(o, "sim_cycles", st->sim_cycles);
	cJSON_AddNumberToObject(o, "sim_seconds", st->sim_seconds);
	cJSON_AddNumberToObject(o, "kernel_seconds", st->kernel_cycles / (cfg->clock_mhz * 1e6));
	cJSON_AddNumberToObject(o, "copy_seconds", st->copy_cycles / (cfg->clock_mhz * 1e6));
	if (st->async_copies) { /* only runs that issue them: other JSON stays as it was */
		cJSON_AddNumberToObject(o, "async_copies", (double)st->async_copies);
		cJSON_AddNumberToObject(o, "async_copy_seconds", st->async_copy_cycles / (cfg->clock_mhz * 1e6));
		cJSON_AddNumberToObject(o, "async_wait_seconds", st->async_wait_cycles / (cfg->clock_mhz * 1e6));
	}
	cJSON_AddNumberToObject(o, "accesses_per_sim_second",
				st->sim_seconds > 0 ? (double)st->thread_accesses / st->sim_seconds : 0);
	cJSON_AddNumberToObject(o, "work_items", (double)st->work_items);
	cJSON_AddNumberToObject(o, "items_per_sim_second",
				st->sim_seconds > 0 ? (double)st->work_items / st->sim_seconds : 0);
	cJSON_AddNumberToObject(o, "kernel_launches", (double)st->kernels);
	cJSON_AddNumberToObject(o, "launch_seconds", st->launch_cycles / (cfg->clock_mhz * 1e6));
	cJSON_AddNumberToObject(o, "ctas", (double)st->ctas);
	cJSON_AddNumberToObject(o, "warps", (double)st->warps);
	cJSON_AddNumberToObject(o, "warp_instructions", (double)st->warp_insts);
	cJSON_AddNumberToObject(o, "memory_instructions", (double)st->mem_insts);
	cJSON_AddNumberToObject(o, "thread_accesses", (double)st->thread_accesses);
	cJSON_AddNumberToObject(o, "sectors", (double)st->sectors);
	cJSON_AddNumberToObject(o, "lines", (double)st->lines);
	cJSON_AddNumberToObject(o, "translation_units", (double)st->xlat_units);

	cJSON *tlb = cJSON_AddArrayToObject(o, "tlb");
	for (uint32_t l = 0; l < st->tlb_levels; l++) {
		const struct gpuvm_tlb_level_stats *ls = &st->tlb[l];
		cJSON *lv = cJSON_CreateObject();
		cJSON_AddNumberToObject(lv, "level", l + 1);
		cJSON_AddNumberToObject(lv, "lookups", (double)ls->lookups);
		cJSON_AddNumberToObject(lv, "hits", (double)ls->hits);
		cJSON_AddNumberToObject(lv, "pending_hits", (double)ls->pending_hits);
		cJSON_AddNumberToObject(lv, "misses", (double)ls->misses);
		cJSON_AddNumberToObject(lv, "hit_ratio", ratio(ls->hits + ls->pending_hits, ls->lookups));
		cJSON_AddNumberToObject(lv, "mshr_wait_cycles", ls->mshr_wait_cycles);
		cJSON_AddNumberToObject(lv, "instances", ls->instances);
		/* seeds/002 Eq. 1 and its performance measure (docs/neidty.md) */
		cJSON_AddStringToObject(lv, "peer", ls->peer ? ls->peer : "none");
		double r_local = ratio(ls->hits + ls->pending_hits, ls->lookups);
		double r_remote = ratio(ls->remote_hits, ls->lookups);
		cJSON_AddNumberToObject(lv, "r_local", r_local);
		cJSON_AddNumberToObject(lv, "r_remote", r_remote);
		cJSON_AddNumberToObject(lv, "r_l1", r_local + r_remote);
		/* counted only when the slow path ran (a scheme or --tlb-sharing) */
		if (ls->translation_counted)
			cJSON_AddNumberToObject(lv, "avg_translation_cycles",
						ls->lookups ? ls->translation_cycles / (double)ls->lookups : 0);
		else
			cJSON_AddNullToObject(lv, "avg_translation_cycles");
		cJSON_AddNumberToObject(lv, "remote_hits", (double)ls->remote_hits);
		cJSON_AddNumberToObject(lv, "remote_fills", (double)ls->remote_fills);
		cJSON_AddNumberToObject(lv, "directory_hits", (double)ls->directory_hits);
		cJSON_AddNumberToObject(lv, "directory_false_hits", (double)ls->directory_false_hits);
		cJSON_AddNumberToObject(lv, "neighbour_port_waits", (double)ls->port_waits);
		cJSON_AddNumberToObject(lv, "neighbour_port_wait_cycles", ls->port_wait_cycles);
		cJSON_AddNumberToObject(lv, "ring_probes", (double)ls->ring_probes);
		cJSON_AddNumberToObject(lv, "ring_hops", (double)ls->ring_hops);
		cJSON_AddNumberToObject(lv, "ring_misses", (double)ls->ring_misses);
		cJSON_AddNumberToObject(lv, "ldt_pushes", (double)ls->ldt_pushes);
		cJSON *ih = cJSON_AddArrayToObject(lv, "instance_hits");
		cJSON *im = cJSON_AddArrayToObject(lv, "instance_misses");
		for (uint32_t i = 0; i < ls->instances; i++) {
			cJSON_AddItemToArray(ih, cJSON_CreateNumber((double)ls->instance_hits[i]));
			cJSON_AddItemToArray(im, cJSON_CreateNumber((double)ls->instance_misses[i]));
		}
		cJSON_AddItemToArray(tlb, lv);
	}
	if (st->tlb_sharing.enabled)
		add_tlb_sharing(o, &st->tlb_sharing);
	cJSON_AddNumberToObject(o, "walks", (double)st->walks);
	cJSON_AddNumberToObject(o, "pwc_hits", (double)st->pwc_hits);
	cJSON_AddNumberToObject(o, "walk_queue_cycles", st->walk_queue_cycles);
	cJSON_AddNumberToObject(o, "walk_pte_l2_hits", (double)st->walk_pte_l2_hits);
	cJSON_AddNumberToObject(o, "walk_pte_l2_misses", (double)st->walk_pte_l2_misses);
	cJSON_AddNumberToObject(o, "local_instructions", (double)st->local_insts);
	cJSON_AddNumberToObject(o, "shared_instructions", (double)st->shared_insts);
	cJSON_AddNumberToObject(o, "barriers", (double)st->barriers);
	cJSON_AddNumberToObject(o, "shared_wavefronts", (double)st->smem_wavefronts);
	cJSON_AddNumberToObject(o, "l1_sector_hits", (double)st->l1_sector_hits);
	cJSON_AddNumberToObject(o, "l1_sector_misses", (double)st->l1_sector_misses);
	cJSON_AddNumberToObject(o, "l1_writeback_sectors", (double)st->l1_writeback_sectors);
	cJSON *stalls = cJSON_AddObjectToObject(o, "stall_cycles");
	for (int i = 0; i < GPUVM_STALLS; i++)
		cJSON_AddNumberToObject(stalls, gpuvm_stall_names[i], st->stall_cycles[i]);
	cJSON_AddNumberToObject(o, "l2_sector_hits", (double)st->l2_sector_hits);
	cJSON_AddNumberToObject(o, "l2_sector_misses", (double)st->l2_sector_misses);
	cJSON_AddNumberToObject(o, "dram_bytes", (double)st->dram_bytes);
	cJSON_AddNumberToObject(o, "pcie_h2d_bytes", (double)st->pcie_h2d_bytes);
	cJSON_AddNumberToObject(o, "pcie_d2h_bytes", (double)st->pcie_d2h_bytes);
	cJSON_AddNumberToObject(o, "zero_copy_bytes", (double)st->zero_copy_bytes);
	cJSON_AddNumberToObject(o, "zero_copy_tlps", (double)st->zero_copy_tlps);

	gpuvm_report_uvm(o, cfg, st);

	/* Always present, so sweeps get the same columns with sampling on or
	 * off; "estimated" (strings) stays out of sweep CSVs. */
	const struct gpuvm_kernel_sampling_stats *ks = &st->kernel_sampling;
	cJSON *kso = cJSON_AddObjectToObject(o, "kernel_sampling");
	cJSON_AddBoolToObject(kso, "enabled", ks->enabled);
	cJSON_AddNumberToObject(kso, "tolerance", ks->tolerance);
	cJSON_AddNumberToObject(kso, "min_detailed", ks->min_detailed);
	cJSON_AddNumberToObject(kso, "classes", (double)ks->classes);
	cJSON_AddNumberToObject(kso, "detailed_kernels", (double)ks->detailed_kernels);
	cJSON_AddNumberToObject(kso, "fast_forwarded_kernels", (double)ks->fast_forwarded_kernels);
	cJSON_AddStringToObject(kso, "refused", ks->refused);
	cJSON *est = cJSON_AddArrayToObject(kso, "estimated");
	for (size_t i = 0; ks->fast_forwarded_kernels && gpuvm_kernel_sampling_estimated[i]; i++)
		cJSON_AddItemToArray(est, cJSON_CreateString(gpuvm_kernel_sampling_estimated[i]));

	cJSON *kl = cJSON_AddArrayToObject(o, "kernels");
	for (size_t i = 0; i < st->n_kernel_list; i++)
		cJSON_AddItemToArray(kl, gpuvm_report_kernel(cfg, &st->kernel_list[i]));

	cJSON_AddNumberToObject(o, "wall_seconds", st->wall_seconds);
	double w = st->wall_seconds > 0 ? st->wall_seconds : 1e-9;
	cJSON_AddNumberToObject(o, "warp_instructions_per_wall_second", (double)st->warp_insts / w);
	cJSON_AddNumberToObject(o, "thread_accesses_per_wall_second", (double)st->thread_accesses / w);
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
			const cJSON *nm = cJSON_GetObjectItemCaseSensitive(k, "name");
			fprintf(out, "kernel %-4d %-28.28s %10.4g s  ipc %6.3g  l1 %.3g/%.3g  l2 %.3g/%.3g\n",
				i, cJSON_IsString(nm) ? nm->valuestring : "", num(k, "sim_seconds"), num(k, "ipc"),
				num(k, "l1_sector_hits"), num(k, "l1_sector_misses"), num(k, "l2_sector_hits"),
				num(k, "l2_sector_misses"));
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
	fprintf(out, "traffic    DRAM %.4g B, PCIe h2d %.4g B, d2h %.4g B (zero-copy %.4g B)\n",
		num(run, "dram_bytes"), num(run, "pcie_h2d_bytes"), num(run, "pcie_d2h_bytes"),
		num(run, "zero_copy_bytes"));
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
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(run, "uvm");
	if (u) {
		fprintf(out, "far faults %.4g in %.4g batches (%.4g nacks), %.4g thrashed pages\n",
			num(u, "far_faults"), num(u, "fault_batches"), num(u, "nacks"),
			num(u, "thrashed_pages"));
		fprintf(out, "migration  %.4g pages in (%.4g prefetched: %.4g used, %.4g unused), "
			"%.4g evicted, %.4g written back\n",
			num(u, "pages_h2d"), num(u, "prefetched_pages"), num(u, "prefetched_used"),
			num(u, "prefetched_unused"), num(u, "pages_evicted"), num(u, "pages_d2h"));
		fprintf(out, "pcie       mean utilization h2d %.1f%%, d2h %.1f%%; post-hoc faults %.4g s\n",
			100 * num(u, "pcie_h2d_utilization_mean"), 100 * num(u, "pcie_d2h_utilization_mean"),
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
