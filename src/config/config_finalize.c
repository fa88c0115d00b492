/* Finalizing a GPU configuration: the cross-field checks (SM grid, TLB
 * levels and their sharing, policy and scheme names, keys every preset
 * must set) and the derived values (SM layout, per-level geometry).
 *
 * Owns: nothing between calls. May call: the key table and origin records
 * (config_internal.h) and the module registry (gpuvm_module_find,
 * src/core/module_registry.c: policy and TLB sharing scheme names, an
 * empty scheme name read as none, as the translation layer reads it).
 * Guarantees: a message about a rule that several
 * keys break points at the key set last (the override that caused it),
 * with its file and line; a config that passes is one the engine can
 * build. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"
#include "gpuvm/config.h"
#include "gpuvm/error.h"
#include "gpuvm/units.h"

#define MAX_PHYS_SMS (2 * GPUVM_MAX_SMS)

/* A UVM policy's name is known when the registry has a module of that
 * kind with an ops table (what uvm_prefetch_find and friends hand the
 * driver; gpuvm_uvm_prefetcher_known asks the same). */
static bool policy_known(enum gpuvm_module_kind kind, const char *name)
{
	const struct gpuvm_module *m = gpuvm_module_find(kind, name);
	return m && m->ops;
}

/* ---- messages ---- */

/* Where to point a message about key k: where it was set, else the file
 * the config came from, else "defaults". */
static int fail_at(struct gpuvm_error *err, const struct gpuvm_config *cfg, int k,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail_at(struct gpuvm_error *err, const struct gpuvm_config *cfg, int k,
		   const char *fmt, ...)
{
	char problem[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);
	const struct gpuvm_config_origin *o = &cfg->set_at[k];
	const char *origin = o->seq ? o->origin : cfg->source[0] ? cfg->source : "defaults";
	int line = o->seq ? o->line : 0;
	return gpuvm_fail(err, origin, line, cfg_key_get(k)->name, "%s", problem);
}

/* Of several keys that together broke a rule, the one set last (the
 * override that caused it), or the first listed when none was set. */
static int latest_of(const struct gpuvm_config *cfg, const int *keys, size_t n)
{
	int best = keys[0];
	for (size_t i = 1; i < n; i++)
		if (cfg->set_at[keys[i]].seq > cfg->set_at[best].seq)
			best = keys[i];
	return best;
}

/* A key that only makes sense under another (a TLB level key under
 * tlb.levels, share_map under share = map) conflicts with it when it was
 * set after it, or both in the same file: setting the controlling key later
 * (an override) just makes the dependent one unused. */
static bool set_against(const struct gpuvm_config *cfg, int dependent, int controlling)
{
	const struct gpuvm_config_origin *d = &cfg->set_at[dependent];
	const struct gpuvm_config_origin *c = &cfg->set_at[controlling];
	if (!d->seq)
		return false;
	if (d->seq > c->seq)
		return true;
	return c->line > 0 && d->line > 0 && strcmp(c->origin, d->origin) == 0;
}

/* ---- finalize ---- */

static int check_grid(struct gpuvm_config *cfg, struct gpuvm_error *err, uint32_t *phys_out)
{
	uint64_t phys = (uint64_t)cfg->gpcs * cfg->tpcs_per_gpc * cfg->sms_per_tpc;
	if (phys > MAX_PHYS_SMS) {
		const int ks[] = {K_GPCS, K_TPCS_PER_GPC, K_SMS_PER_TPC};
		return fail_at(err, cfg, latest_of(cfg, ks, 3),
			       "the physical grid gpcs %u x tpcs_per_gpc %u x sms_per_tpc %u = %llu "
			       "SMs exceeds %d", cfg->gpcs, cfg->tpcs_per_gpc, cfg->sms_per_tpc,
			       (unsigned long long)phys, MAX_PHYS_SMS);
	}
	bool seen[MAX_PHYS_SMS] = {false};
	for (uint32_t i = 0; i < cfg->disabled_sms_len; i++) {
		uint32_t p = cfg->disabled_sms[i];
		/* blame the key set last: a preset based on p100 that shrinks
		 * the grid broke p100's disabled_sms, not the other way round */
		const int gk[] = {K_DISABLED_SMS, K_GPCS, K_TPCS_PER_GPC, K_SMS_PER_TPC};
		if (p >= phys)
			return fail_at(err, cfg, latest_of(cfg, gk, 4),
				       "physical SM id %u in gpu.disabled_sms is out of range (the grid has %llu SMs, "
				       "ids 0..%llu)", p, (unsigned long long)phys,
				       (unsigned long long)phys - 1);
		if (seen[p])
			return fail_at(err, cfg, K_DISABLED_SMS, "physical SM id %u is listed twice", p);
		seen[p] = true;
	}
	if (phys - cfg->disabled_sms_len != cfg->sms) {
		const int ks[] = {K_SMS, K_GPCS, K_TPCS_PER_GPC, K_SMS_PER_TPC, K_DISABLED_SMS};
		return fail_at(err, cfg, latest_of(cfg, ks, 5),
			       "gpu.sms = %u, but gpcs %u x tpcs_per_gpc %u x sms_per_tpc %u - %u "
			       "disabled_sms = %llu active SMs", cfg->sms, cfg->gpcs, cfg->tpcs_per_gpc,
			       cfg->sms_per_tpc, cfg->disabled_sms_len,
			       (unsigned long long)(phys - cfg->disabled_sms_len));
	}
	*phys_out = (uint32_t)phys;
	return 0;
}

/* Physical id of each logical SM, in %smid order. */
static void lay_out_sms(const struct gpuvm_config *cfg, uint32_t phys, uint16_t *phys_of)
{
	bool off[MAX_PHYS_SMS] = {false};
	for (uint32_t i = 0; i < cfg->disabled_sms_len; i++)
		off[cfg->disabled_sms[i]] = true;
	uint32_t n = 0;
	if (cfg->sm_numbering == GPUVM_SM_INTERLEAVED) {
		for (uint32_t r = 0; r < cfg->tpcs_per_gpc; r++)
			for (uint32_t g = 0; g < cfg->gpcs; g++)
				for (uint32_t k = 0; k < cfg->sms_per_tpc; k++) {
					uint32_t p = (g * cfg->tpcs_per_gpc + r) * cfg->sms_per_tpc + k;
					if (!off[p])
						phys_of[n++] = (uint16_t)p;
				}
	} else {
		for (uint32_t p = 0; p < phys; p++)
			if (!off[p])
				phys_of[n++] = (uint16_t)p;
	}
}

static int finalize_level(struct gpuvm_config *cfg, int lv, const uint16_t *phys_of,
			  struct gpuvm_error *err)
{
	struct gpuvm_tlb_level_config *t = &cfg->tlb[lv];
	if (t->ways && t->entries % t->ways) {
		const int ks[] = {CFG_TLB_KEY(lv, KT_WAYS), CFG_TLB_KEY(lv, KT_ENTRIES)};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "%u ways do not divide %u entries (use ways = 0 for fully associative)",
			       t->ways, t->entries);
	}
	int map_key = CFG_TLB_KEY(lv, KT_SHARE_MAP), share_key = CFG_TLB_KEY(lv, KT_SHARE);
	if (t->share == GPUVM_SHARE_MAP) {
		if (t->share_map_len != cfg->sms) {
			const int ks[] = {map_key, K_SMS};
			int at = cfg->set_at[map_key].seq ? latest_of(cfg, ks, 2) : share_key;
			return fail_at(err, cfg, at,
				       "share = map needs one instance id per active SM: share_map "
				       "has %u entries, gpu.sms is %u", t->share_map_len, cfg->sms);
		}
	} else if (t->share_map_len && set_against(cfg, map_key, share_key)) {
		return fail_at(err, cfg, map_key, "share_map is only used with share = map (share is %s)",
			       gpuvm_share_domain_name(t->share));
	}

	/* Group key of each logical SM, then dense ids by first appearance. */
	uint32_t group[GPUVM_MAX_SMS], distinct[GPUVM_MAX_SMS];
	uint32_t ndistinct = 0;
	uint32_t per_gpc = cfg->tpcs_per_gpc * cfg->sms_per_tpc;
	for (uint32_t s = 0; s < cfg->sms; s++) {
		uint32_t p = phys_of[s];
		switch (t->share) {
		case GPUVM_SHARE_SM: group[s] = s; break;
		case GPUVM_SHARE_TPC: group[s] = p / cfg->sms_per_tpc; break;
		case GPUVM_SHARE_GPC: group[s] = p / per_gpc; break;
		case GPUVM_SHARE_GPU: group[s] = 0; break;
		case GPUVM_SHARE_MAP: group[s] = t->share_map[s]; break;
		}
	}
	for (uint32_t s = 0; s < cfg->sms; s++) {
		uint32_t id = 0;
		while (id < ndistinct && distinct[id] != group[s])
			id++;
		if (id == ndistinct)
			distinct[ndistinct++] = group[s];
		t->instance_of_sm[s] = (uint16_t)id;
	}
	t->instances = ndistinct;
	return 0;
}

/* A preset defines every key in use, or names a base: nothing is taken
 * from the built-in generic GPU without the user saying so. */
static int check_every_key_set(const struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	for (size_t id = 0, n_keys = cfg_key_total(); id < n_keys; id++) {
		const struct cfg_key *k = cfg_key_get(id);
		if (cfg->set_at[id].seq || cfg_key_optional(id))
			continue;
		if (k->level >= 0 && (uint32_t)k->level >= cfg->tlb_levels)
			continue;
		/* a sharing map only exists with share = map (checked below) */
		if (k->type == CT_U16_LIST && k->level >= 0)
			continue;
		const struct gpuvm_config_origin *lv = &cfg->set_at[K_TLB_LEVELS];
		if (k->level >= 0 && lv->seq && lv->line == 0)
			return gpuvm_fail(err, lv->origin, 0, k->name,
					  "missing: tlb.levels = %u needs every key of [tlb.l%d] "
					  "(give them with --set too)", cfg->tlb_levels, k->level + 1);
		return gpuvm_fail(err, cfg->source, 0, k->name,
				  "missing: a preset sets every key, or starts with 'base = NAME' "
				  "(a shipped preset or a file) and overrides what differs");
	}
	return 0;
}

/* Single-field rules of every key in use, the keys a preset must set
 * and the oversubscription range. */
static int check_keys(const struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	char problem[600];

	/* Single-field rules of every key in use (also catches fields set by
	 * code rather than through a key). */
	if (cfg_key_check(cfg_key_get(K_TLB_LEVELS), cfg, problem, sizeof problem))
		return fail_at(err, cfg, K_TLB_LEVELS, "%s", problem);
	for (size_t id = 0, n_keys = cfg_key_total(); id < n_keys; id++) {
		const struct cfg_key *k = cfg_key_get(id);
		if (k->level >= 0 && (uint32_t)k->level >= cfg->tlb_levels) {
			if (set_against(cfg, (int)id, K_TLB_LEVELS))
				return fail_at(err, cfg, (int)id,
					       "level %d is above tlb.levels = %u (raise tlb.levels "
					       "or remove [tlb.l%d])", k->level + 1, cfg->tlb_levels,
					       k->level + 1);
			continue;
		}
		if (cfg_key_check(k, cfg, problem, sizeof problem))
			return fail_at(err, cfg, (int)id, "%s", problem);
	}

	if (cfg->require_every_key && check_every_key_set(cfg, err))
		return -1;

	/* 0 is off; below 1 % asks for more than 100x the working set as
	 * device memory (1e-300 overflows the page count) */
	if (cfg->uvm_oversub_percent > 0 && cfg->uvm_oversub_percent < 1)
		return fail_at(err, cfg, K_UVM_OVERSUB, "%g: must be 0 (off) or from 1 to 1000",
			       cfg->uvm_oversub_percent);
	return 0;
}

/* The L2's sets and the memory partitions that split it and DRAM. */
static int check_l2_partitions(const struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	/* L2 geometry. */
	if (cfg->l2_line_bytes % cfg->l2_sector_bytes) {
		const int ks[] = {K_L2_SECTOR, K_L2_LINE};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "sector_size %u does not divide line_size %u", cfg->l2_sector_bytes,
			       cfg->l2_line_bytes);
	}
	uint64_t way_line = (uint64_t)cfg->l2_ways * cfg->l2_line_bytes;
	if (cfg->l2_bytes % way_line) {
		const int ks[] = {K_L2_SIZE, K_L2_WAYS, K_L2_LINE};
		char sz[32];
		gpuvm_format_size(cfg->l2_bytes, sz, sizeof sz);
		return fail_at(err, cfg, latest_of(cfg, ks, 3),
			       "size %s is not a whole number of sets of ways %u x line_size %u "
			       "= %llu bytes", sz, cfg->l2_ways, cfg->l2_line_bytes,
			       (unsigned long long)way_line);
	}

	/* Memory partitions: each a whole number of L2 sets and channels. */
	if (cfg->l2_bytes % ((uint64_t)cfg->mem_partitions * way_line)) {
		const int ks[] = {K_MEM_PARTITIONS, K_L2_SIZE, K_L2_WAYS, K_L2_LINE};
		return fail_at(err, cfg, latest_of(cfg, ks, 4),
			       "mem.partitions %u does not divide the L2 into whole sets of %llu bytes",
			       cfg->mem_partitions, (unsigned long long)way_line);
	}
	if (cfg->dram_channels % cfg->mem_partitions) {
		const int ks[] = {K_MEM_PARTITIONS, K_DRAM_CHANNELS};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "mem.partitions %u does not divide dram.channels %u",
			       cfg->mem_partitions, cfg->dram_channels);
	}
	if (cfg->mem_partition_interleave_bytes < cfg->l2_line_bytes) {
		const int ks[] = {K_MEM_PARTITION_INTERLEAVE, K_L2_LINE};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "mem.partition_interleave %u is smaller than l2.line_size %u",
			       cfg->mem_partition_interleave_bytes, cfg->l2_line_bytes);
	}
	if (cfg->dram_interleave_bytes && (!gpuvm_is_pow2(cfg->dram_interleave_bytes) ||
					   cfg->dram_interleave_bytes < cfg->l2_sector_bytes)) {
		const int ks[] = {K_DRAM_INTERLEAVE, K_L2_SECTOR};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "dram.interleave %u is not a power of two of at least l2.sector_size %u",
			       cfg->dram_interleave_bytes, cfg->l2_sector_bytes);
	}
	if (cfg->mem_far_latency_cycles > 0 && cfg->mem_partition_hash == 2) {
		/* a near/far pair looks a line up in both halves under its
		 * global address (memsys_access_near_far) */
		const int ks[] = {K_MEM_FAR_LATENCY, K_MEM_PARTITION_HASH};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "mem.partition_hash = xor places lines at their partition's own "
			       "addresses, which a near/far pair (mem.far_latency_cycles) cannot");
	}
	if (cfg->mem_far_latency_cycles > 0 && cfg->mem_partitions != 2) {
		const int ks[] = {K_MEM_FAR_LATENCY, K_MEM_PARTITIONS};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "mem.far_latency_cycles needs mem.partitions = 2 (a near and a far "
			       "half), not %u", cfg->mem_partitions);
	}
	return 0;
}

/* The L1's sets, and the unified L1/shared-memory array. */
static int check_l1(const struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	/* L1 geometry (when there is an L1). */
	if (cfg->l1_bytes) {
		if (cfg->l1_line_bytes % cfg->l2_sector_bytes) {
			const int ks[] = {K_L2_SECTOR, K_L1_LINE};
			return fail_at(err, cfg, latest_of(cfg, ks, 2),
				       "l2.sector_size %u does not divide l1.line_size %u",
				       cfg->l2_sector_bytes, cfg->l1_line_bytes);
		}
		if (cfg->l1_line_bytes / cfg->l2_sector_bytes > 8) {
			const int ks[] = {K_L2_SECTOR, K_L1_LINE};
			return fail_at(err, cfg, latest_of(cfg, ks, 2),
				       "l1.line_size %u holds more than 8 sectors of %u bytes",
				       cfg->l1_line_bytes, cfg->l2_sector_bytes);
		}
		uint64_t l1_way_line = (uint64_t)cfg->l1_ways * cfg->l1_line_bytes;
		if (cfg->l1_bytes % l1_way_line) {
			const int ks[] = {K_L1_SIZE, K_L1_WAYS, K_L1_LINE};
			return fail_at(err, cfg, latest_of(cfg, ks, 3),
				       "l1.size %llu is not a whole number of sets of ways %u x line_size %u",
				       (unsigned long long)cfg->l1_bytes, cfg->l1_ways, cfg->l1_line_bytes);
		}
	}
	/* Unified L1/shared array: carve-outs ascending, the largest the
	 * shared memory an SM offers, all inside the array. */
	if (cfg->l1_unified_bytes) {
		const int ks[] = {K_L1_UNIFIED, K_SMEM_CARVEOUTS, K_SMEM_SIZE};
		if (!cfg->l1_bytes || !cfg->smem_carveouts_len)
			return fail_at(err, cfg, latest_of(cfg, ks, 2),
				       "l1.unified_size needs an L1 (l1.size > 0) and smem.carveouts");
		for (uint32_t i = 1; i < cfg->smem_carveouts_len; i++)
			if (cfg->smem_carveouts_kib[i] <= cfg->smem_carveouts_kib[i - 1])
				return fail_at(err, cfg, K_SMEM_CARVEOUTS,
					       "smem.carveouts must ascend (%u after %u)",
					       cfg->smem_carveouts_kib[i], cfg->smem_carveouts_kib[i - 1]);
		uint64_t top = (uint64_t)cfg->smem_carveouts_kib[cfg->smem_carveouts_len - 1] << 10;
		if (top != cfg->smem_bytes)
			return fail_at(err, cfg, latest_of(cfg, ks + 1, 2),
				       "the largest carve-out (%llu KiB) is not smem.size (%llu bytes)",
				       (unsigned long long)(top >> 10), (unsigned long long)cfg->smem_bytes);
		if (top + (uint64_t)cfg->l1_ways * cfg->l1_line_bytes > cfg->l1_unified_bytes)
			return fail_at(err, cfg, latest_of(cfg, ks, 3),
				       "l1.unified_size %llu leaves no L1 set beside the largest carve-out",
				       (unsigned long long)cfg->l1_unified_bytes);
	}
	return 0;
}

/* DRAM timings and the L2's slice and SM-port rates. */
static int check_dram_ports(const struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	if (cfg->dram_banks) {
		double closed = (cfg->dram_trp_ns + cfg->dram_trcd_ns + cfg->dram_tcas_ns) * cfg->clock_mhz * 1e-3;
		if (closed > cfg->dram_latency_cycles) {
			const int ks[] = {K_DRAM_LATENCY, K_DRAM_TRCD, K_DRAM_TRP, K_DRAM_TCAS};
			return fail_at(err, cfg, latest_of(cfg, ks, 4),
				       "dram.latency_cycles %g is less than a row miss's trp + trcd + "
				       "tcas = %g cycles (it is the whole DRAM part of a load)",
				       cfg->dram_latency_cycles, closed);
		}
	}
	if ((cfg->dram_trefi_ns > 0) != (cfg->dram_trfc_ns > 0) ||
	    (cfg->dram_trefi_ns > 0 && cfg->dram_trfc_ns >= cfg->dram_trefi_ns / 2)) {
		const int ks[] = {K_DRAM_TREFI, K_DRAM_TRFC};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "dram.trfc_ns %g and dram.trefi_ns %g: set both or neither, with "
			       "trfc below half of trefi (JEDEC parts: 160-450 ns of 1900-3900 ns)",
			       cfg->dram_trfc_ns, cfg->dram_trefi_ns);
	}
	if (cfg->dram_trfcsb_ns > 0 &&
	    (!(cfg->dram_trefi_ns > 0) || cfg->dram_trfcsb_ns >= cfg->dram_trefi_ns / 2)) {
		const int ks[] = {K_DRAM_TREFI, K_DRAM_TRFCSB};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "dram.trfcsb_ns %g needs dram.trefi_ns (%g) above twice it",
			       cfg->dram_trfcsb_ns, cfg->dram_trefi_ns);
	}
	if ((cfg->dram_twtr_ns > 0 || cfg->dram_trtw_ns > 0) && !cfg->dram_write_batch_sectors) {
		const int ks[] = {K_DRAM_TWTR, K_DRAM_TRTW, K_DRAM_WRITE_BATCH};
		return fail_at(err, cfg, latest_of(cfg, ks, 3),
			       "dram.twtr_ns %g / dram.trtw_ns %g need dram.write_batch_sectors (the "
			       "controller drains writes in batches; a turnaround per write is not "
			       "what controllers do)",
			       cfg->dram_twtr_ns, cfg->dram_trtw_ns);
	}
	if (cfg->dram_drain_hold && !((cfg->dram_twtr_ns > 0 || cfg->dram_trtw_ns > 0) &&
				      cfg->dram_write_batch_sectors)) {
		const int ks[] = {K_DRAM_DRAIN_HOLD, K_DRAM_WRITE_BATCH, K_DRAM_TWTR};
		return fail_at(err, cfg, latest_of(cfg, ks, 3),
			       "dram.drain_hold = on needs the write drain it holds reads behind: "
			       "dram.write_batch_sectors and a turnaround (dram.twtr_ns or dram.trtw_ns)");
	}
	if ((cfg->l2_slices > 0) != (cfg->l2_slice_bytes_per_cycle > 0) ||
	    (cfg->l2_slices && cfg->l2_slices % (cfg->mem_partitions ? cfg->mem_partitions : 1))) {
		const int ks[] = {K_L2_SLICES, K_L2_SLICE_BYTES};
		return fail_at(err, cfg, latest_of(cfg, ks, 2),
			       "l2.slices %u and l2.slice_bytes_per_cycle %g: set both or neither, "
			       "with the slices a multiple of mem.partitions (%u)",
			       cfg->l2_slices, cfg->l2_slice_bytes_per_cycle,
			       cfg->mem_partitions ? cfg->mem_partitions : 1);
	}
	/* a port narrower than a byte a cycle would hold one sector for more
	 * than an L2 round trip's worth of cycles: a typo, not a part */
	if (cfg->l2_sm_port_bytes_per_cycle > 0 && cfg->l2_sm_port_bytes_per_cycle < 1)
		return fail_at(err, cfg, K_L2_SM_PORT_BYTES,
			       "l2.sm_port_bytes_per_cycle %g: 0 (no limit) or at least 1 byte a cycle",
			       cfg->l2_sm_port_bytes_per_cycle);
	if (cfg->l2_slice_write_bytes_per_cycle > 0 && !cfg->l2_slices)
		return fail_at(err, cfg, K_L2_SLICE_WRITE_BYTES,
			       "l2.slice_write_bytes_per_cycle %g needs l2.slices (the slices it is a rate of)",
			       cfg->l2_slice_write_bytes_per_cycle);
	if (cfg->l2_sm_port_write_bytes_per_cycle > 0 && cfg->l2_sm_port_write_bytes_per_cycle < 1)
		return fail_at(err, cfg, K_L2_SM_PORT_WRITE_BYTES,
			       "l2.sm_port_write_bytes_per_cycle %g: 0 (no limit) or at least 1 byte a cycle",
			       cfg->l2_sm_port_write_bytes_per_cycle);
	return 0;
}

/* Schedulers, device memory, and the policy and scheme names. */
static int check_policies(const struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	if (cfg->schedulers_per_sm > cfg->max_warps_per_sm)
		return fail_at(err, cfg, K_CORE_SCHEDULERS, "%u schedulers for %u warps per SM",
			       cfg->schedulers_per_sm, cfg->max_warps_per_sm);

	/* 0 means unlimited; anything else must hold at least one 4 KiB page,
	 * or every access would evict the page it just faulted in */
	if (cfg->uvm_device_memory_bytes && cfg->uvm_device_memory_bytes < 4096)
		return fail_at(err, cfg, K_UVM_DEVICE_MEMORY,
			       "%llu bytes is less than one 4KiB page (0 = unlimited; range 4KiB .. 64TiB)",
			       (unsigned long long)cfg->uvm_device_memory_bytes);
	/* module names: the "known" lists come from the registry (gpuvm/module.h) */
	if (!policy_known(GPUVM_MODULE_PREFETCH, cfg->uvm_prefetcher))
		return fail_at(err, cfg, K_UVM_PREFETCHER, "unknown prefetcher '%s' (known: %s)",
			       cfg->uvm_prefetcher, gpuvm_module_names(GPUVM_MODULE_PREFETCH));
	if (cfg->uvm_prefetcher_oversub[0] &&
	    !policy_known(GPUVM_MODULE_PREFETCH, cfg->uvm_prefetcher_oversub))
		return fail_at(err, cfg, K_UVM_PREFETCHER_OVERSUB, "unknown prefetcher '%s' (known: %s; empty = keep)",
			       cfg->uvm_prefetcher_oversub, gpuvm_module_names(GPUVM_MODULE_PREFETCH));
	if (!policy_known(GPUVM_MODULE_EVICT, cfg->uvm_eviction))
		return fail_at(err, cfg, K_UVM_EVICTION, "unknown eviction policy '%s' (known: %s)",
			       cfg->uvm_eviction, gpuvm_module_names(GPUVM_MODULE_EVICT));
	if (!policy_known(GPUVM_MODULE_MIGRATE, cfg->uvm_migration))
		return fail_at(err, cfg, K_UVM_MIGRATION, "unknown migration policy '%s' (known: %s)",
			       cfg->uvm_migration, gpuvm_module_names(GPUVM_MODULE_MIGRATE));
	if (!gpuvm_module_find(GPUVM_MODULE_L1_REPLACEMENT, cfg->l1_replacement))
		return fail_at(err, cfg, K_L1_REPLACEMENT, "unknown L1 replacement policy '%s' (known: %s)",
			       cfg->l1_replacement, gpuvm_module_names(GPUVM_MODULE_L1_REPLACEMENT));
	const struct gpuvm_module *ws = gpuvm_module_find(GPUVM_MODULE_WARP_SCHEDULER, cfg->warp_scheduler);
	if (!ws)
		return fail_at(err, cfg, K_CORE_WARP_SCHEDULER, "unknown warp scheduler '%s' (known: %s)",
			       cfg->warp_scheduler, gpuvm_module_names(GPUVM_MODULE_WARP_SCHEDULER));
	/* src/sm/warp_sched.h: a policy with hooks needs the event-order
	 * engine, where a warp's readiness is known when it claims */
	if (cfg->core_window && strcmp(ws->name, "first-ready") != 0)
		return fail_at(err, cfg, K_CORE_WARP_SCHEDULER,
			       "warp scheduler '%s' needs core.window = off (the windowed engine keeps "
			       "the run loop's order)", cfg->warp_scheduler);

	for (uint32_t lv = 0; lv < cfg->tlb_levels; lv++)
		if (!gpuvm_module_find(GPUVM_MODULE_PEER,
				       cfg->tlb[lv].peer[0] ? cfg->tlb[lv].peer : "none"))
			return fail_at(err, cfg, CFG_TLB_KEY(lv, KT_PEER),
				       "unknown TLB sharing scheme '%s' (known: %s)", cfg->tlb[lv].peer,
				       gpuvm_module_names(GPUVM_MODULE_PEER));
	return 0;
}

int gpuvm_config_finalize(struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	if (check_keys(cfg, err))
		return -1;
	uint32_t phys = 0;
	if (check_grid(cfg, err, &phys))
		return -1;
	if (check_l2_partitions(cfg, err) || check_l1(cfg, err) || check_dram_ports(cfg, err) ||
	    check_policies(cfg, err))
		return -1;

	uint16_t phys_of[GPUVM_MAX_SMS];
	lay_out_sms(cfg, phys, phys_of);
	for (int lv = 0; lv < GPUVM_MAX_TLB_LEVELS; lv++) {
		struct gpuvm_tlb_level_config *t = &cfg->tlb[lv];
		if ((uint32_t)lv >= cfg->tlb_levels) {
			memset(t->instance_of_sm, 0, sizeof t->instance_of_sm);
			t->instances = 0;
			continue;
		}
		if (finalize_level(cfg, lv, phys_of, err))
			return -1;
		memset(t->instance_of_sm + cfg->sms, 0,
		       (GPUVM_MAX_SMS - cfg->sms) * sizeof t->instance_of_sm[0]);
	}
	return 0;
}
