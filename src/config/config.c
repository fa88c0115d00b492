/* A GPU configuration's defaults, where each setting came from, --set
 * overrides, and reading keys back (gpuvm_config_get, gpuvm_config_key_at).
 * Loading presets is config_load.c, the cross-field checks and derived
 * values config_finalize.c, the key table config_keys.c.
 *
 * Owns: struct gpuvm_config's default values and its origin records
 * (cfg->set_at[key id], cfg->set_seq). May call: the key table
 * (config_internal.h), the module registry (module parameters' defaults:
 * gpuvm_module_at and friends, src/core/module_registry.c; the TLB
 * sharing schemes' parameters are module rows there too).
 * Guarantees: every setting records where it came from (cfg->set_at[key
 * id]), so the cross-field checks of gpuvm_config_finalize() still point
 * at a file and line; gpuvm_config_key_at lists a key only when it is
 * active, so reports and config_hash of an unchanged model stay the same. */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "config/config_origin.h"
#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/suggest.h"

/* ---- defaults ---- */

/* The translation path and the SM: TLB levels, walkers, L2, L1 and shared
 * memory, the issue pipeline (gpuvm_config_defaults, in its order). */
static void defaults_core(struct gpuvm_config *cfg)
{
	cfg->tlb_levels = 2;
	static const struct {
		uint32_t entries, ways;
		uint64_t entry_bytes;
		enum gpuvm_share_domain share;
		double miss_penalty;
		uint32_t mshrs;
	} lv[GPUVM_MAX_TLB_LEVELS] = {
		{16, 0, 2u << 20, GPUVM_SHARE_SM, 10, 16},
		{512, 16, 2u << 20, GPUVM_SHARE_GPU, 50, 32},
		{1024, 16, 2u << 20, GPUVM_SHARE_GPU, 50, 32},
		{2048, 16, 2u << 20, GPUVM_SHARE_GPU, 50, 32},
	};
	for (int i = 0; i < GPUVM_MAX_TLB_LEVELS; i++) {
		struct gpuvm_tlb_level_config *t = &cfg->tlb[i];
		t->entries = lv[i].entries;
		t->ways = lv[i].ways;
		t->entry_bytes = lv[i].entry_bytes;
		t->share = lv[i].share;
		t->hit_latency_cycles = 0;
		t->miss_penalty_cycles = lv[i].miss_penalty;
		t->mshrs = lv[i].mshrs;
	}

	cfg->walkers = 32;
	cfg->walk_latency_cycles = 150;
	cfg->pwc_entries = 0;
	cfg->pwc_entry_bytes = 2u << 20;
	cfg->pwc_hit_walk_latency_cycles = 50;

	cfg->l2_bytes = 4u << 20;
	cfg->l2_ways = 16;
	cfg->l2_line_bytes = 128;
	cfg->l2_sector_bytes = 32;
	cfg->l2_hit_latency_cycles = 100;

	/* a Volta-class SM (Jia et al. arXiv:1804.06826; presets/v100.ini cites each value) */
	cfg->l1_bytes = 64u << 10;
	cfg->l1_ways = 4;
	cfg->l1_line_bytes = 128;
	cfg->l1_hit_latency_cycles = 33;
	cfg->l1_cache_global = 1;
	cfg->l1_bytes_per_cycle = 128;
	cfg->smem_bytes = 96u << 10;
	cfg->smem_latency_cycles = 27;
	cfg->smem_banks = 32;
	cfg->schedulers_per_sm = 4;
	cfg->dispatch_units = 1; /* single issue: the model before core.dispatch_units */
	cfg->l2_writeback_stall = 1; /* optional key, on unless a preset says off */
	cfg->l2_in_flight_wait = 0; /* optional key: hit, the model before it */
	/* tlb.future_fill = peek, unless a preset says walk: an out-of-order
	 * pair on a shared level books one walk per page, as time order would
	 * (src/xlat/xlat.c walk); walk books a second walk for the earlier
	 * request, which doubled SRAD's walk queue on gem5gpu-neidty (6.47e6 ->
	 * 12.1e6 cycles) with walks a time-ordered run never makes */
	cfg->tlb_future_fill_peek = 1;
	/* core.busy_unit = yield, unless a preset says hold: a warp waiting
	 * for its busy unit leaves its scheduler to other warps' ready
	 * instructions (src/system/kernel_run.c yield_to_unit); hold booked
	 * the scheduler from when the unit freed, which slowed the k80's
	 * scoped sampling passes with the compiled loop by 33 %
	 * (tests/test_issue_rates.c test_busy_unit_yield) */
	cfg->busy_unit_yield = 1;
	static const double lat[8] = {4, 4, 4, 21, 8, 24, 4, 4};
	static const double ii[8] = {1, 1, 2, 4, 2, 2, 1, 1};
	memcpy(cfg->class_latency_cycles, lat, sizeof lat);
	memcpy(cfg->class_interval_cycles, ii, sizeof ii);
}

/* DRAM, the memory partitions and the host link. */
static void defaults_memory(struct gpuvm_config *cfg)
{
	cfg->dram_latency_cycles = 250;
	/* HBM2, 16 banks, 1 KiB rows, ~14 ns (Accel-Sim SM6_P100 -gpgpu_dram_timing_opt) */
	cfg->dram_channels = 32;
	cfg->dram_banks = 16;
	cfg->dram_row_bytes = 1024;
	/* one partition: the whole L2 and every channel behind one address
	 * map, the model of gpuvm 1b4e3ad (memsys.h) */
	cfg->mem_partitions = 1;
	cfg->mem_partition_interleave_bytes = 4096;
	cfg->dram_trcd_ns = cfg->dram_trp_ns = cfg->dram_tcas_ns = 14;
	cfg->dram_bandwidth_gb_s = 500;
	cfg->pcie_latency_ns = 1000;
	cfg->pcie_bandwidth_gb_s = 16;    /* raw rate of PCIe 3.0 x16 (seeds/003 Table 1) */
}

/* Paging (the UVM driver), the TLB sharing schemes, [c2c] and the
 * modules' parameters. */
static void defaults_paging(struct gpuvm_config *cfg)
{
	/* Paging defaults: the NVIDIA driver's policies (nvidia-uvm uvm_perf_prefetch.c,
	 * uvm_pmm_gpu.c) with Zheng et al.'s GMMU (seeds/003 Table 1, 3.2). */
	cfg->uvm_fault_latency_us = 20;   /* seeds/003 Table 1: 20 us far-fault service */
	cfg->uvm_fault_model = GPUVM_UVM_REPLAYABLE;
	cfg->uvm_far_fault_mshrs = 16;    /* seeds/003 3.2: "little reason to go beyond 16" */
	cfg->uvm_fault_batch = 256;       /* uvm_gpu_replayable_faults.c: batches of 256 */
	cfg->uvm_gmmu = GPUVM_UVM_GMMU_DRIVER; /* uvm_gpu_replayable_faults.c service loop */
	cfg->uvm_fault_accounting = GPUVM_UVM_IN_TIMING;
	cfg->uvm_pcie_model = GPUVM_UVM_LINK_CURVE;
	snprintf(cfg->uvm_prefetcher, sizeof cfg->uvm_prefetcher, "tree-driver");
	snprintf(cfg->uvm_eviction, sizeof cfg->uvm_eviction, "lru-2mb-alloc");
	cfg->uvm_writeback = GPUVM_UVM_WB_ALL; /* uvm_pmm_gpu.c evict_root_chunk: no dirty check */

	/* TLB sharing schemes: off unless a level names one */
	for (int i = 0; i < GPUVM_MAX_TLB_LEVELS; i++)
		snprintf(cfg->tlb[i].peer, sizeof cfg->tlb[i].peer, "none");
	/* their tunables: the scheme modules' rows (src/xlat/peer_*.c) */
	cfg_compat_defaults(cfg);
	cfg->tlb_sharing_analysis = 0;
	/* delayed migration: off (first touch, the paper's Baseline/Disabled,
	 * seeds/004 VI); t_s = 8 and p = 2 are Table I's bold defaults */
	snprintf(cfg->uvm_migration, sizeof cfg->uvm_migration, "first-touch");
	cfg->uvm_access_counter_threshold = 8;
	cfg->uvm_migration_penalty = 2;
	cfg->uvm_remote_latency_cycles = 200; /* seeds/004 Table I: remote zero-copy access latency */
	cfg->uvm_remote_read_hold_cycles = 0; /* a remote read holds the lane for its bytes, as before the key */
	cfg->uvm_thrashing = 0;
	cfg->l1_fill_line = 0;
	cfg->cta_issue_after_last = 0; /* every launch from SM 0, as before the key */
	cfg->cta_placement = 0;        /* round-robin (src/sm/cta_place.c) */
	cfg->tlb_l1_in_flight_miss = 0; /* merge: an MSHR hit, as before the key */
	cfg->uvm_device_sync_writeback = 0; /* keep: NVIDIA's driver leaves pages at a sync */
	cfg->uvm_counter_migration_fault = 0; /* async: nvidia-uvm services notifications apart from faults */
	cfg->uvm_remote_tlb_hits_local = 0;   /* link: a remote mapping is read over the link */
	cfg->uvm_remote_tlb_fill_return = 0;  /* read: a remote entry serves from the read on */
	cfg->uvm_evict_whole = 0;             /* any: the model before the key */
	cfg->tlb_peer_read_touch = 0;   /* keep: as before the key */
	/* [c2c]: off; the values are the GH200's, read only when it is on
	 * (docs/systems.md "Grace Hopper memory" cites each) */
	cfg->c2c_coherent = 0;
	cfg->c2c_bandwidth_gb_s = 450;
	cfg->c2c_copy_h2d_gb_s = 0;
	cfg->c2c_copy_d2h_gb_s = 0;
	cfg->c2c_latency_ns = 0;
	cfg->c2c_cpu_memory_gb_s = 546;
	cfg->c2c_system_page_bytes = 65536;
	cfg->c2c_line_bytes = 64;
	cfg->c2c_first_touch_gpu = 0;
	cfg->tlb_translate_per_access = 0; /* page: as before the key */
	snprintf(cfg->l1_replacement, sizeof cfg->l1_replacement, "lru"); /* as before the key */
	/* the run loop's event order, the model before the key */
	snprintf(cfg->warp_scheduler, sizeof cfg->warp_scheduler, "first-ready");
	/* every module parameter at its row's default (gpuvm/module.h) */
	for (size_t i = 0; i < gpuvm_module_count(); i++) {
		const struct gpuvm_module *m = gpuvm_module_at(i);
		for (uint32_t p = 0; p < m->n_params; p++)
			cfg->module_params[gpuvm_module_param_slot(m, p)] = m->params[p].def;
	}
}

void gpuvm_config_defaults(struct gpuvm_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	snprintf(cfg->name, sizeof cfg->name, "default");
	snprintf(cfg->description, sizeof cfg->description,
		 "built-in defaults: a generic 16-SM GPU, not a real part");

	cfg->sms = 16;
	cfg->gpcs = 4;
	cfg->tpcs_per_gpc = 4;
	cfg->sms_per_tpc = 1;
	cfg->sm_numbering = GPUVM_SM_LINEAR;
	cfg->clock_mhz = 1000;
	cfg->max_warps_per_sm = 64;
	cfg->max_ctas_per_sm = 32;
	cfg->issue_warp_insts_per_cycle = 4;
	cfg->imul32_issue_slots = 1;
	cfg->compute_capability = 0; /* not a real part: no listing */
	cfg->load_base_latency_cycles = 200;
	cfg->kernel_launch_us = 5;
	defaults_core(cfg);
	defaults_memory(cfg);
	defaults_paging(cfg);
}

/* ---- origins ---- */

void cfg_copy_str(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

/* Name of a config: the stem of the file ("presets/p100.ini" -> "p100"). */
void cfg_set_name_from(struct gpuvm_config *cfg, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n >= sizeof cfg->name)
		n = sizeof cfg->name - 1;
	memcpy(cfg->name, base, n);
	cfg->name[n] = '\0';
}

void cfg_record_origin(struct gpuvm_config *cfg, int k, const char *origin, int line)
{
	struct gpuvm_config_origin *o = &cfg->set_at[k];
	cfg_copy_str(o->origin, sizeof o->origin, origin);
	o->line = line;
	o->seq = ++cfg->set_seq;
}

const struct gpuvm_config_origin *gpuvm_config_key_origin(const struct gpuvm_config *cfg,
							  const char *key)
{
	int id = cfg_key_find(key);
	return id < 0 ? NULL : &cfg->set_at[id];
}

/* ---- --set ---- */

static const char *key_name_at(size_t i, const void *ctx)
{
	(void)ctx;
	return i < cfg_key_total() ? cfg_key_get(i)->name : NULL;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int gpuvm_config_set(struct gpuvm_config *cfg, const char *assignment,
		     const char *origin, struct gpuvm_error *err)
{
	if (!origin)
		origin = "--set";
	if (!assignment)
		return gpuvm_fail(err, origin, 0, NULL, "expected key=value");
	size_t n = strlen(assignment);
	char *copy = malloc(n + 1);
	if (!copy)
		return gpuvm_fail(err, origin, 0, NULL, "out of memory");
	memcpy(copy, assignment, n + 1);

	int rc = 0;
	char problem[600];
	char *eq = strchr(copy, '=');
	if (!eq) {
		rc = gpuvm_fail(err, origin, 0, NULL, "expected key=value, got '%s'", assignment);
		goto out;
	}
	*eq = '\0';
	char *key = trim(copy), *value = trim(eq + 1);
	int id = cfg_key_find(key);
	if (id < 0) {
		const char *near = gpuvm_suggest(key, key_name_at, NULL);
		rc = gpuvm_fail(err, origin, 0, key[0] ? key : "(empty)", "unknown key%s%s%s",
				near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
		goto out;
	}
	if (cfg_key_parse(cfg_key_get(id), cfg, value, false, problem, sizeof problem)) {
		rc = gpuvm_fail(err, origin, 0, cfg_key_get(id)->name, "%s", problem);
		goto out;
	}
	cfg_record_origin(cfg, id, origin, 0);
out:
	free(copy);
	return rc;
}

/* ---- get / iterate ---- */

int gpuvm_config_number(const struct gpuvm_config *cfg, const char *key, double *out)
{
	int id = key ? cfg_key_find(key) : -1;
	if (id < 0)
		return -1;
	const struct cfg_key *k = cfg_key_get((size_t)id);
	if (k->type == CT_STRING || k->type == CT_U16_LIST)
		return -1;
	*out = cfg_key_number(k, cfg);
	return 0;
}

int gpuvm_config_get(const struct gpuvm_config *cfg, const char *key,
		     char *buf, size_t buflen)
{
	int id = key ? cfg_key_find(key) : -1;
	if (id < 0 || !buf)
		return -1;
	return cfg_key_format(cfg_key_get(id), cfg, buf, buflen);
}

static bool key_active(const struct gpuvm_config *cfg, size_t id)
{
	const struct cfg_key *k = cfg_key_get(id);
	/* the memory-partition and CTA-placement keys are listed (a report's
	 * config, config_hash) only where they change the model from the one
	 * before them (one partition, round robin), so runs of an unchanged
	 * model keep their reports bit for bit */
	if (cfg && (id == K_MEM_PARTITIONS || id == K_MEM_PARTITION_INTERLEAVE))
		return cfg->mem_partitions != 1;
	if (cfg && id == K_CTA_PLACEMENT)
		return cfg->cta_placement != 0;
	if (cfg && id == K_DISPATCH_UNITS)
		return cfg->dispatch_units != 1;
	if (cfg && k->quiet_default) {
		/* listed once it differs from its default (cfg_key.quiet_default) */
		char buf[64];
		if (cfg_key_format(k, cfg, buf, sizeof buf))
			return true;
		if (k->type == CT_STRING)
			return strcmp(buf, k->def_str) != 0;
		const char *at = (const char *)cfg + k->off;
		if (k->type == CT_SIZE32 || k->type == CT_U32) {
			/* the key's own four bytes (eight were read before
			 * 2026-11-27, the next field's too, which listed
			 * gpu.warp_exit_waits_stores and l2.copy_fill at their
			 * defaults on every preset) */
			uint32_t u;
			memcpy(&u, at, sizeof u);
			return u != k->def;
		}
		if (k->type == CT_ENUM) {
			int e;
			memcpy(&e, at, sizeof e);
			return e != k->def;
		}
		double v;
		memcpy(&v, at, sizeof v);
		return v != k->def;
	}
	if (!cfg || k->level < 0)
		return true;
	if ((uint32_t)k->level >= cfg->tlb_levels)
		return false;
	if (id == (size_t)CFG_TLB_KEY(k->level, KT_SHARE_MAP))
		return cfg->tlb[k->level].share == GPUVM_SHARE_MAP;
	return true;
}

const char *gpuvm_config_key_at(const struct gpuvm_config *cfg, size_t i)
{
	for (size_t id = 0, n_keys = cfg_key_total(); id < n_keys; id++) {
		if (!key_active(cfg, id))
			continue;
		if (i-- == 0)
			return cfg_key_get(id)->name;
	}
	return NULL;
}
