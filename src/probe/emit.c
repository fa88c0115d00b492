/* --emit-preset: a GPU preset made from a probe's result. The TLB levels
 * are the probed ones; every other key comes from the base configuration.
 * The probed keys go in as `--set` puts keys (gpuvm_config_set), so the
 * base's own checks see them as set after its lines: fewer levels than
 * the base has leave its higher levels out, more give every key of the
 * new ones. The text is read back as `gpuvm sim --gpu FILE` reads a
 * preset file (gpuvm_config_load_preset_text, then finalize) before it
 * is returned, so what is written always loads. */
#include "gpuvm/probe.h"

#include <stdlib.h>
#include <string.h>

/* Canonical form of a partition: each element's class numbered by first
 * occurrence, so two partitions are equal when the arrays are. */
static void canonical(const uint16_t *in, uint32_t n, uint16_t *out)
{
	uint16_t map[GPUVM_MAX_SMS];
	uint32_t next = 0;
	for (uint32_t i = 0; i < GPUVM_MAX_SMS; i++)
		map[i] = UINT16_MAX;
	for (uint32_t i = 0; i < n; i++) {
		uint16_t v = in[i] < GPUVM_MAX_SMS ? in[i] : 0;
		if (map[v] == UINT16_MAX)
			map[v] = (uint16_t)next++;
		out[i] = map[v];
	}
}

/* Names the probed sharing groups with a domain of the base's SM layout
 * when one matches (sm, tpc, gpc, gpu), else an explicit share_map. */
static void set_share(struct gpuvm_config *cfg, uint32_t l, const struct gpuvm_probe_level *lv)
{
	struct gpuvm_tlb_level_config *t = &cfg->tlb[l];
	uint16_t want[GPUVM_MAX_SMS], got[GPUVM_MAX_SMS];
	canonical(lv->group_of_sm, cfg->sms, want);
	static const enum gpuvm_share_domain named[] = {GPUVM_SHARE_SM, GPUVM_SHARE_TPC,
							GPUVM_SHARE_GPC, GPUVM_SHARE_GPU};
	for (size_t d = 0; d < sizeof named / sizeof named[0]; d++) {
		struct gpuvm_config *tmp = malloc(sizeof *tmp);
		if (!tmp)
			break;
		*tmp = *cfg;
		tmp->tlb[l].share = named[d];
		tmp->tlb[l].share_map_len = 0;
		struct gpuvm_error e;
		bool match = false;
		if (!gpuvm_config_finalize(tmp, &e)) {
			canonical(tmp->tlb[l].instance_of_sm, cfg->sms, got);
			match = !memcmp(want, got, cfg->sms * sizeof want[0]);
		}
		free(tmp);
		if (match) {
			t->share = named[d];
			t->share_map_len = 0;
			return;
		}
	}
	t->share = GPUVM_SHARE_MAP;
	t->share_map_len = cfg->sms;
	memcpy(t->share_map, want, cfg->sms * sizeof want[0]);
}

/* Sets key to its own current value through gpuvm_config_set, which
 * records the probe as where it was set (later than the base's lines). */
static int restate(struct gpuvm_config *cfg, const char *key, struct gpuvm_error *err)
{
	char val[4096], kv[4200];
	if (gpuvm_config_get(cfg, key, val, sizeof val))
		return gpuvm_fail(err, "--emit-preset", 0, key, "value too long");
	snprintf(kv, sizeof kv, "%s=%s", key, val);
	return gpuvm_config_set(cfg, kv, "gpuvm probe", err);
}

/* tlb.levels, then every key of the probed levels (the optional ones
 * where they hold a value), restated: the probe set them. */
static int restate_levels(struct gpuvm_config *cfg, struct gpuvm_error *err)
{
	if (restate(cfg, "tlb.levels", err))
		return -1;
	for (size_t i = 0;; i++) {
		const char *key = gpuvm_config_key_at(cfg, i);
		if (!key)
			return 0;
		char val[8];
		if (strncmp(key, "tlb.l", 5) || key[5] < '1' || key[5] > '9' ||
		    (!gpuvm_config_get(cfg, key, val, sizeof val) && !val[0]))
			continue; /* not a level's key, or an empty optional one */
		if (restate(cfg, key, err))
			return -1;
	}
}

int gpuvm_probe_emit_preset(const struct gpuvm_probe_result *res, const struct gpuvm_config *base,
			    char **text, struct gpuvm_error *err)
{
	*text = NULL;
	if (!res->levels)
		return gpuvm_fail(err, "--emit-preset", 0, NULL, "the probe found no TLB level to emit");
	if (res->levels > GPUVM_MAX_TLB_LEVELS)
		return gpuvm_fail(err, "--emit-preset", 0, NULL,
				  "the probe found %u levels; presets hold at most %d", res->levels,
				  GPUVM_MAX_TLB_LEVELS);
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	struct gpuvm_config *check = malloc(sizeof *check);
	char *out = NULL;
	size_t cap = 1 << 16, n = 0;
	int rc = -1;
	if (!cfg || !check || !(out = malloc(cap))) {
		gpuvm_fail(err, "--emit-preset", 0, NULL, "out of memory");
		goto done;
	}
	*cfg = *base;
	/* Host timings are in ns; presets count SM cycles at the preset's clock. */
	double to_cycles = strcmp(res->unit, "ns") ? 1.0 : cfg->clock_mhz * 1e-3;
	double baseline = res->baseline_latency * to_cycles;

	uint32_t base_levels = base->tlb_levels;
	cfg->tlb_levels = res->levels; /* restated with the levels' keys below */
	for (uint32_t l = 0; l < res->levels; l++) {
		const struct gpuvm_probe_level *lv = &res->level[l];
		struct gpuvm_tlb_level_config *t = &cfg->tlb[l];
		const struct gpuvm_tlb_level_config *bt = &base->tlb[l < base_levels ? l : base_levels - 1];
		uint32_t mshrs = bt->mshrs;
		enum gpuvm_share_domain share = l < base_levels ? bt->share : GPUVM_SHARE_SM;
		uint32_t map_len = l < base_levels && bt->share == GPUVM_SHARE_MAP ? bt->share_map_len : 0;
		memset(t, 0, sizeof *t);
		if (map_len)
			memcpy(t->share_map, bt->share_map, sizeof t->share_map);
		t->entries = lv->entries;
		t->ways = 0; /* the probe sees capacity, not associativity */
		t->entry_bytes = lv->entry_bytes;
		t->share = share;
		t->share_map_len = map_len;
		t->mshrs = mshrs;
		/* A miss at level l costs its penalty plus the next level's hit
		 * latency; hits are folded into the penalties (0 here). */
		t->miss_penalty_cycles = lv->miss_cost * to_cycles;
	}
	if (restate_levels(cfg, err))
		goto done;
	for (uint32_t l = 0; l < res->levels; l++)
		if (res->level[l].sharing_measured && res->level[l].groups)
			set_share(cfg, l, &res->level[l]);
	/* The last level's miss cost includes the walk: keep the base's walk
	 * latency when it fits, the rest is the level's penalty. */
	struct gpuvm_tlb_level_config *last = &cfg->tlb[res->levels - 1];
	/* Past the last level's reach a chase misses a page-walk cache as well
	 * (the probe sees a PWC that would hit as one more level). */
	double walk = cfg->walk_latency_cycles;
	if (walk <= last->miss_penalty_cycles) {
		last->miss_penalty_cycles -= walk;
	} else {
		cfg->walk_latency_cycles = last->miss_penalty_cycles;
		cfg->pwc_entries = 0;
		last->miss_penalty_cycles = 0;
	}
	/* The baseline (every level hitting) = load_base + l2 hit + L1 hit. */
	double extra = baseline - cfg->load_base_latency_cycles - cfg->l2_hit_latency_cycles;
	if (extra >= 0) {
		cfg->tlb[0].hit_latency_cycles = extra;
	} else {
		double lb = baseline - cfg->l2_hit_latency_cycles;
		cfg->load_base_latency_cycles = lb > 0 ? lb : 0;
	}
	snprintf(cfg->description, sizeof cfg->description, "TLB levels probed from %s by gpuvm probe",
		 res->target);
	if (gpuvm_config_finalize(cfg, err))
		goto done;

	n += (size_t)snprintf(out + n, cap - n,
			      "# Made by `gpuvm probe --target %s --emit-preset`.\n"
			      "# [tlb] and [tlb.lN]: measured by the probe (entries, entry_size, miss\n"
			      "# penalties, sharing; ways = 0 because the probe measures capacity, not\n"
			      "# associativity). The last level's miss cost is split into walker.latency_cycles\n"
			      "# and its miss_penalty_cycles. Every other key comes from the base (%s).\n",
			      res->target, base->name[0] ? base->name : "built-in defaults");
	char section[64] = "";
	for (size_t i = 0;; i++) {
		const char *key = gpuvm_config_key_at(cfg, i);
		if (!key)
			break;
		const char *dot = strrchr(key, '.');
		char val[4096];
		if (!dot || gpuvm_config_get(cfg, key, val, sizeof val))
			continue;
		char sec[64];
		snprintf(sec, sizeof sec, "%.*s", (int)(dot - key), key);
		if (strcmp(sec, section)) {
			n += (size_t)snprintf(out + n, cap - n, "\n[%s]\n", sec);
			snprintf(section, sizeof section, "%s", sec);
		}
		n += (size_t)snprintf(out + n, cap - n, "%s = %s\n", dot + 1, val);
		if (n + 8192 > cap) {
			gpuvm_fail(err, "--emit-preset", 0, NULL, "preset text too long");
			goto done;
		}
	}
	/* What is written must load, as `gpuvm sim --gpu FILE` loads it. */
	if (gpuvm_config_load_preset_text(check, out, "emitted-preset.ini", err) ||
	    gpuvm_config_finalize(check, err))
		goto done;
	*text = out;
	out = NULL;
	rc = 0;
done:
	free(out);
	free(cfg);
	free(check);
	return rc;
}
