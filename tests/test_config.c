/* Configuration layer: presets load and finalize, sharing groups come out
 * as Karnagel measured them, --set and get round-trip, and every bad input
 * names its file, line and key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config/config_internal.h"
#include "gpuvm/config.h"
#include "gpuvm/error.h"

/* ---- helpers ---- */

static struct gpuvm_config *new_cfg(void)
{
	struct gpuvm_config *cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	return cfg;
}

static void load_ok(struct gpuvm_config *cfg, const char *name)
{
	struct gpuvm_error err = {{0}};
	int rc = gpuvm_config_load(cfg, name, &err);
	if (rc)
		fail_msg("loading %s: %s", name, err.msg);
	rc = gpuvm_config_finalize(cfg, &err);
	if (rc)
		fail_msg("finalizing %s: %s", name, err.msg);
}

/* The members of each instance, as "{0,5},{1,6},..." ordered by instance id. */
static void groups_of(const struct gpuvm_config *cfg, int level, char *buf, size_t len)
{
	const struct gpuvm_tlb_level_config *t = &cfg->tlb[level];
	size_t used = 0;
	buf[0] = '\0';
	for (uint32_t inst = 0; inst < t->instances; inst++) {
		used += (size_t)snprintf(buf + used, len - used, "%s{", inst ? "," : "");
		int first = 1;
		for (uint32_t s = 0; s < cfg->sms; s++) {
			if (t->instance_of_sm[s] != inst)
				continue;
			used += (size_t)snprintf(buf + used, len - used, "%s%u", first ? "" : ",", s);
			first = 0;
		}
		used += (size_t)snprintf(buf + used, len - used, "}");
	}
}

/* Loads text as "test.ini", expects failure at finalize (or load), and checks
 * the message contains each of the given fragments. */
static void expect_error(const char *text, const char *const *frags)
{
	struct gpuvm_config *cfg = new_cfg();
	struct gpuvm_error err = {{0}};
	int rc = gpuvm_config_load_string(cfg, text, "test.ini", &err);
	if (rc == 0)
		rc = gpuvm_config_finalize(cfg, &err);
	if (rc == 0)
		fail_msg("expected an error for:\n%s", text);
	for (size_t i = 0; frags[i]; i++)
		if (!strstr(err.msg, frags[i]))
			fail_msg("message '%s' lacks '%s' (input:\n%s)", err.msg, frags[i], text);
	free(cfg);
}

#define EXPECT_ERROR(text, ...)                                   \
	do {                                                      \
		const char *const frags_[] = {__VA_ARGS__, NULL}; \
		expect_error(text, frags_);                       \
	} while (0)

/* ---- presets ---- */

static void test_every_preset_loads(void **state)
{
	(void)state;
	static const char *const expected[] = {"k80", "p100", "v100", "a100", "h100",
					       "gtx1080ti-uvmsmart", "gem5gpu-neidty"};
	for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
		int found = 0;
		for (size_t i = 0; i < gpuvm_shipped_presets_count; i++)
			found |= strcmp(gpuvm_shipped_presets[i].name, expected[e]) == 0;
		if (!found)
			fail_msg("preset %s is not shipped", expected[e]);
	}
	struct gpuvm_config *cfg = new_cfg();
	for (size_t i = 0; i < gpuvm_shipped_presets_count; i++) {
		const struct gpuvm_preset_text *p = &gpuvm_shipped_presets[i];
		load_ok(cfg, p->name);
		assert_string_equal(cfg->name, p->name);
		assert_string_equal(cfg->source, p->path);
		assert_true(cfg->description[0] != '\0');
		/* every active level has instances covering every SM */
		for (uint32_t lv = 0; lv < cfg->tlb_levels; lv++) {
			assert_true(cfg->tlb[lv].instances >= 1);
			for (uint32_t s = 0; s < cfg->sms; s++)
				assert_true(cfg->tlb[lv].instance_of_sm[s] < cfg->tlb[lv].instances);
		}
		/* every key of the table is set explicitly by the preset (a comment
		 * on every number only helps if the number is in the file) */
		for (size_t id = 0; id < cfg_key_count; id++) {
			const struct cfg_key *k = &cfg_keys[id];
			if (k->level >= 0 && (uint32_t)k->level >= cfg->tlb_levels)
				continue;
			if (id == (size_t)CFG_TLB_KEY(k->level, KT_SHARE_MAP))
				continue;
			/* sharing-scheme keys default to off; only the preset of
			 * the NeiDty paper must give them. The delayed-migration
			 * keys default to first-touch everywhere; DRAM refresh and
			 * read/write turnaround are set where the part's JEDEC
			 * standard and die are known. */
			if (cfg_key_optional(id) &&
			    (strcmp(p->name, "gem5gpu-neidty") != 0 || id >= K_UVM_MIGRATION ||
			     (id >= K_DRAM_TREFI && id <= K_DRAM_WRITE_BATCH)))
				continue;
			if (!cfg->set_at[id].seq)
				fail_msg("%s does not set %s", p->path, k->name);
		}
	}
	free(cfg);
}

static void test_preset_files_match_embedded(void **state)
{
	(void)state;
	const char *src = getenv("GPUVM_SOURCE_DIR");
	if (!src)
		skip();
	struct gpuvm_config *a = new_cfg(), *b = new_cfg();
	for (size_t i = 0; i < gpuvm_shipped_presets_count; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", src, gpuvm_shipped_presets[i].path);
		load_ok(a, gpuvm_shipped_presets[i].name);
		load_ok(b, path);
		assert_string_equal(b->name, gpuvm_shipped_presets[i].name);
		char va[1024], vb[1024];
		for (size_t k = 0; gpuvm_config_key_at(a, k); k++) {
			const char *key = gpuvm_config_key_at(a, k);
			assert_int_equal(gpuvm_config_get(a, key, va, sizeof va), 0);
			assert_int_equal(gpuvm_config_get(b, key, vb, sizeof vb), 0);
			assert_string_equal(va, vb);
		}
	}
	free(a);
	free(b);
}

static void test_k80_groups(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = new_cfg();
	char g[2048];
	load_ok(cfg, "k80");
	assert_int_equal(cfg->sms, 13);
	assert_int_equal(cfg->tlb_levels, 3);
	groups_of(cfg, 0, g, sizeof g);
	assert_string_equal(g, "{0},{1},{2},{3},{4},{5},{6},{7},{8},{9},{10},{11},{12}");
	groups_of(cfg, 1, g, sizeof g);
	assert_string_equal(g, "{0,5},{1,6},{2,7,10},{3,8,11},{4,9,12}");
	groups_of(cfg, 2, g, sizeof g);
	assert_string_equal(g, "{0,1,2,3,4,5,6,7,8,9,10,11,12}");
	assert_int_equal(cfg->tlb[0].entry_bytes, 128 * 1024);
	assert_int_equal(cfg->tlb[1].entries, 65);
	assert_int_equal(cfg->tlb[2].entries, 1032);
	/* Karnagel Table 2: ~177 cycles for an L3 miss = penalty + walk */
	assert_true(cfg->tlb[2].miss_penalty_cycles + cfg->walk_latency_cycles == 177);
	free(cfg);
}

static void test_p100_groups(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = new_cfg();
	char g[4096];
	load_ok(cfg, "p100");
	assert_int_equal(cfg->sms, 56);
	/* L1: TPC pairs {0,1},{2,3},... */
	assert_int_equal(cfg->tlb[0].instances, 28);
	for (uint32_t s = 0; s < 56; s++)
		assert_int_equal(cfg->tlb[0].instance_of_sm[s], s / 2);
	/* L2: per GPC, 10,10,10,10,8,8 */
	assert_int_equal(cfg->tlb[1].instances, 6);
	groups_of(cfg, 1, g, sizeof g);
	assert_non_null(strstr(g, "{0,1,12,13,24,25,36,37,44,45}"));
	uint32_t sizes[6] = {0};
	for (uint32_t s = 0; s < 56; s++)
		sizes[cfg->tlb[1].instance_of_sm[s]]++;
	static const uint32_t want[6] = {10, 10, 10, 10, 8, 8};
	for (int i = 0; i < 6; i++)
		assert_int_equal(sizes[i], want[i]);
	/* Karnagel Table 2: ~110 cycles past the L2, an L3 hit (4.1: the L3 of
	 * ~1032 x 32 MB, shared by all SMs, that a 16 GB board cannot reach) */
	assert_true(cfg->tlb[1].miss_penalty_cycles + cfg->tlb[2].hit_latency_cycles == 110);
	assert_int_equal(cfg->tlb_levels, 3);
	assert_int_equal(cfg->tlb[2].instances, 1);
	assert_int_equal(cfg->tlb[2].entries, 1032);
	free(cfg);
}

static void test_share_domains(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = new_cfg();
	struct gpuvm_error err = {{0}};
	char g[512];
	const char *text =
		"[gpu]\nsms = 6\ngpcs = 2\ntpcs_per_gpc = 2\nsms_per_tpc = 2\n"
		"disabled_sms = 3, 6\nsm_numbering = linear\n"
		"[tlb]\nlevels = 4\n"
		"[tlb.l1]\nshare = sm\n[tlb.l2]\nshare = tpc\n[tlb.l3]\nshare = gpc\n"
		"[tlb.l4]\nshare = map\nshare_map = 7 7 3\n  3 9 9\n";
	assert_int_equal(gpuvm_config_load_string(cfg, text, "t.ini", &err), 0);
	if (gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	/* linear: logical 0..5 = physical 0 1 2 4 5 7 */
	groups_of(cfg, 0, g, sizeof g);
	assert_string_equal(g, "{0},{1},{2},{3},{4},{5}");
	groups_of(cfg, 1, g, sizeof g);
	assert_string_equal(g, "{0,1},{2},{3,4},{5}");
	groups_of(cfg, 2, g, sizeof g);
	assert_string_equal(g, "{0,1,2},{3,4,5}");
	groups_of(cfg, 3, g, sizeof g);
	assert_string_equal(g, "{0,1},{2,3},{4,5}");
	assert_string_equal(cfg->name, "t");
	free(cfg);
}

static void test_set_and_get(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = new_cfg();
	struct gpuvm_error err = {{0}};
	char v[256];
	load_ok(cfg, "p100");
	assert_int_equal(gpuvm_config_get(cfg, "tlb.l2.entries", v, sizeof v), 0);
	assert_string_equal(v, "65");
	assert_int_equal(gpuvm_config_get(cfg, "tlb.l2.entry_size", v, sizeof v), 0);
	assert_string_equal(v, "32MiB");
	assert_int_equal(gpuvm_config_get(cfg, "gpu.disabled_sms", v, sizeof v), 0);
	assert_string_equal(v, "46 47 56 57");
	assert_int_equal(gpuvm_config_get(cfg, "tlb.l1.share", v, sizeof v), 0);
	assert_string_equal(v, "tpc");

	assert_int_equal(gpuvm_config_set(cfg, "tlb.l2.entries=72", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, " tlb.l1.entry_size = 1MiB ", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "gpu.clock_mhz=1189", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "tlb.l1.share=gpu", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "l2.size=3145728", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "walker.latency_cycles=0.1", "--set", &err), 0);
	/* integers are decimal or 0x hex, never octal */
	assert_int_equal(gpuvm_config_set(cfg, "tlb.l1.mshrs=010", "--set", &err), 0);
	assert_int_equal(cfg->tlb[0].mshrs, 10);
	assert_int_equal(gpuvm_config_set(cfg, "walker.walkers=0x20", "--set", &err), 0);
	assert_int_equal(cfg->walkers, 32);
	assert_int_not_equal(gpuvm_config_set(cfg, "walker.walkers=0x", "--set", &err), 0);
	if (gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(gpuvm_config_get(cfg, "tlb.l2.entries", v, sizeof v), 0);
	assert_string_equal(v, "72");
	assert_int_equal(gpuvm_config_get(cfg, "tlb.l1.entry_size", v, sizeof v), 0);
	assert_string_equal(v, "1MiB");
	assert_int_equal(gpuvm_config_get(cfg, "gpu.clock_mhz", v, sizeof v), 0);
	assert_string_equal(v, "1189");
	assert_int_equal(gpuvm_config_get(cfg, "l2.size", v, sizeof v), 0);
	assert_string_equal(v, "3MiB");
	assert_int_equal(gpuvm_config_get(cfg, "walker.latency_cycles", v, sizeof v), 0);
	assert_string_equal(v, "0.1");
	assert_int_equal(cfg->tlb[0].instances, 1);

	/* tlb.levels lowered by an override: upper-level keys of the file are unused */
	assert_int_equal(gpuvm_config_set(cfg, "tlb.levels=1", "--set", &err), 0);
	if (gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	assert_null(gpuvm_config_key_at(cfg, 1000));
	for (size_t i = 0; gpuvm_config_key_at(cfg, i); i++)
		assert_null(strstr(gpuvm_config_key_at(cfg, i), "tlb.l2."));
	/* raised again: the new level is not completed from the generic GPU;
	 * every key of it must be given, then it is fine */
	assert_int_equal(gpuvm_config_set(cfg, "tlb.levels=4", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "tlb.l4.entries=128", "--set", &err), 0);
	assert_int_equal(gpuvm_config_finalize(cfg, &err), -1);
	assert_non_null(strstr(err.msg, "tlb.l4.ways: missing: tlb.levels = 4 needs every key"));
	static const char *const l4[] = {"tlb.l4.ways=16", "tlb.l4.entry_size=2MiB",
					 "tlb.l4.share=gpu", "tlb.l4.hit_latency_cycles=0",
					 "tlb.l4.miss_penalty_cycles=50", "tlb.l4.mshrs=32"};
	for (size_t i = 0; i < sizeof l4 / sizeof l4[0]; i++)
		assert_int_equal(gpuvm_config_set(cfg, l4[i], "--set", &err), 0);
	if (gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(cfg->tlb[3].instances, 1);

	/* unknown key and bad values from --set */
	assert_int_equal(gpuvm_config_set(cfg, "tlb.l9.entries=3", "--set", &err), -1);
	assert_non_null(strstr(err.msg, "--set: tlb.l9.entries: unknown key"));
	assert_int_equal(gpuvm_config_set(cfg, "tlb.l1.entries=0", "--set", &err), -1);
	assert_non_null(strstr(err.msg, "--set: tlb.l1.entries: must be at least 1"));
	assert_int_equal(gpuvm_config_set(cfg, "noequals", "--set", &err), -1);
	assert_non_null(strstr(err.msg, "--set"));
	assert_int_equal(gpuvm_config_set(cfg, "tlb.l1.entries=16", "sweep", &err), 0);
	assert_int_equal(gpuvm_config_get(cfg, "no.such.key", v, sizeof v), -1);
	assert_int_equal(gpuvm_config_get(cfg, "gpu.description", v, 4), -1);

	/* a cross-field error after --set names --set */
	assert_int_equal(gpuvm_config_set(cfg, "gpu.sms=55", "--set", &err), 0);
	assert_int_equal(gpuvm_config_finalize(cfg, &err), -1);
	assert_non_null(strstr(err.msg, "--set: gpu.sms"));
	free(cfg);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct gpuvm_config *a = new_cfg(), *b = new_cfg();
	struct gpuvm_error err = {{0}};
	for (size_t i = 0; i < gpuvm_shipped_presets_count; i++) {
		load_ok(a, gpuvm_shipped_presets[i].name);
		gpuvm_config_defaults(b);
		char v[2048], w[2048], assign[2400];
		for (size_t k = 0; gpuvm_config_key_at(a, k); k++) {
			const char *key = gpuvm_config_key_at(a, k);
			assert_int_equal(gpuvm_config_get(a, key, v, sizeof v), 0);
			snprintf(assign, sizeof assign, "%s=%s", key, v);
			if (gpuvm_config_set(b, assign, "--set", &err))
				fail_msg("%s: %s", assign, err.msg);
		}
		if (gpuvm_config_finalize(b, &err))
			fail_msg("%s: %s", gpuvm_shipped_presets[i].name, err.msg);
		/* same keys, same values, same derived maps */
		size_t k = 0;
		for (; gpuvm_config_key_at(a, k); k++) {
			const char *key = gpuvm_config_key_at(a, k);
			assert_non_null(gpuvm_config_key_at(b, k));
			assert_string_equal(key, gpuvm_config_key_at(b, k));
			assert_int_equal(gpuvm_config_get(a, key, v, sizeof v), 0);
			assert_int_equal(gpuvm_config_get(b, key, w, sizeof w), 0);
			assert_string_equal(v, w);
		}
		assert_null(gpuvm_config_key_at(b, k));
		for (uint32_t lv = 0; lv < a->tlb_levels; lv++) {
			assert_int_equal(a->tlb[lv].instances, b->tlb[lv].instances);
			assert_memory_equal(a->tlb[lv].instance_of_sm, b->tlb[lv].instance_of_sm,
					    sizeof a->tlb[lv].instance_of_sm);
			assert_true(a->tlb[lv].hit_latency_cycles == b->tlb[lv].hit_latency_cycles);
			assert_true(a->tlb[lv].miss_penalty_cycles == b->tlb[lv].miss_penalty_cycles);
		}
		assert_true(a->clock_mhz == b->clock_mhz);
		assert_true(a->kernel_launch_us == b->kernel_launch_us);
	}
	free(a);
	free(b);
}

static void test_key_table(void **state)
{
	(void)state;
	assert_int_equal(cfg_key_count, K_COUNT);
	assert_string_equal(cfg_keys[K_SMS].name, "gpu.sms");
	assert_string_equal(cfg_keys[K_DISABLED_SMS].name, "gpu.disabled_sms");
	assert_string_equal(cfg_keys[K_TLB_LEVELS].name, "tlb.levels");
	assert_string_equal(cfg_keys[CFG_TLB_KEY(1, KT_ENTRY_SIZE)].name, "tlb.l2.entry_size");
	assert_string_equal(cfg_keys[CFG_TLB_KEY(3, KT_MSHRS)].name, "tlb.l4.mshrs");
	assert_string_equal(cfg_keys[K_WALKERS].name, "walker.walkers");
	assert_string_equal(cfg_keys[K_L2_SECTOR].name, "l2.sector_size");
	assert_string_equal(cfg_keys[K_PCIE_BANDWIDTH].name, "pcie.bandwidth_gb_s");
	for (size_t i = 0; i < cfg_key_count; i++) {
		/* a module parameter's old key is completed from the module's row */
		const struct cfg_key *k = cfg_key_get(i);
		assert_non_null(k->help);
		assert_ptr_equal(k->name, cfg_keys[i].name);
		if (k->type == CT_ENUM)
			assert_true(k->enum_names && k->enum_count > 0 &&
				    k->max == (double)(k->enum_count - 1));
		assert_ptr_equal(gpuvm_config_key_at(NULL, i), cfg_keys[i].name);
		assert_int_equal(cfg_key_find(cfg_keys[i].name), (int)i);
	}
	/* then the module parameters (gpuvm/module.h), then nothing */
	assert_non_null(gpuvm_config_key_at(NULL, cfg_key_count));
	assert_null(gpuvm_config_key_at(NULL, cfg_key_total()));
	assert_non_null(gpuvm_config_key_help("tlb.l3.ways"));
	assert_null(gpuvm_config_key_help("tlb.l5.ways"));
	assert_string_equal(gpuvm_share_domain_name(GPUVM_SHARE_GPC), "gpc");
	assert_string_equal(gpuvm_share_domain_name(GPUVM_SHARE_MAP), "map");

	/* defaults are a valid configuration */
	struct gpuvm_config *cfg = new_cfg();
	struct gpuvm_error err = {{0}};
	gpuvm_config_defaults(cfg);
	if (gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	free(cfg);
}

static void test_load_errors(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = new_cfg();
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_config_load(cfg, "/nonexistent/dir/my-gpu.ini", &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/dir/my-gpu.ini"));
	assert_non_null(strstr(err.msg, "No such file"));
	assert_int_equal(gpuvm_config_load(cfg, "missing.ini", &err), -1);
	assert_non_null(strstr(err.msg, "missing.ini"));
	assert_int_equal(gpuvm_config_load(cfg, "p100.ini", &err), -1);
	assert_non_null(strstr(err.msg, "shipped preset is named 'p100'"));
	assert_int_equal(gpuvm_config_load(cfg, "p200", &err), -1);
	assert_non_null(strstr(err.msg, "p200"));
	assert_non_null(strstr(err.msg, "k80"));
	assert_non_null(strstr(err.msg, "gem5gpu-neidty"));
	assert_int_equal(gpuvm_config_load(cfg, "", &err), -1);

	/* a real file with an error names path and line */
	char path[] = "/tmp/gpuvm_test_cfg_XXXXXX.ini";
	int fd = mkstemps(path, 4);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("[gpu]\n# comment\nsms = 13\n\n[tlb.l1]\nentries = 0\n", f);
	fclose(f);
	assert_int_equal(gpuvm_config_load(cfg, path, &err), -1);
	char want[300];
	snprintf(want, sizeof want, "%s:6: tlb.l1.entries: must be at least 1", path);
	assert_non_null(strstr(err.msg, want));
	/* a NUL byte (binary file) is refused with its line */
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite("[gpu]\nsms = 16\nx\0y = 1\n", 1, 23, f);
	fclose(f);
	assert_int_equal(gpuvm_config_load(cfg, path, &err), -1);
	snprintf(want, sizeof want, "%s:3: line contains a NUL byte", path);
	assert_non_null(strstr(err.msg, want));
	remove(path);
	free(cfg);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	/* unknown section and key */
	/* named where the section opens (an empty [tlbx] is refused too) */
	EXPECT_ERROR("[gpu]\nsms = 13\n[tlbx]\nentries = 3\n", "test.ini:3: ", "unknown section [tlbx]");
	EXPECT_ERROR("[gpu]\nsms = 13\nsmz = 4\n", "test.ini:3: gpu.smz: unknown key", "sms_per_tpc");
	EXPECT_ERROR("sms = 4\n", "test.ini:1: sms", "outside any [section]");
	/* syntax */
	EXPECT_ERROR("[gpu]\nsms = 13\njunk line\n", "test.ini:3:", "syntax error");
	EXPECT_ERROR("[gpu\nsms = 13\n", "test.ini:1:", "']'");
	/* malformed numbers */
	EXPECT_ERROR("[gpu]\n\nsms = 13x\n", "test.ini:3: gpu.sms", "unsigned integer", "13x");
	EXPECT_ERROR("[gpu]\nsms = -3\n", "test.ini:2: gpu.sms", "negative");
	EXPECT_ERROR("[tlb.l1]\nentries = 99999999999999999999999\n", "test.ini:2: tlb.l1.entries",
		     "out of range");
	EXPECT_ERROR("[tlb.l1]\nentries = 4294967296\n", "test.ini:2: tlb.l1.entries", "out of range");
	EXPECT_ERROR("[gpu]\nclock_mhz = fast\n", "test.ini:2: gpu.clock_mhz", "expected a number");
	EXPECT_ERROR("[gpu]\nclock_mhz = 1e999\n", "test.ini:2: gpu.clock_mhz");
	EXPECT_ERROR("[gpu]\nsms =\n", "test.ini:2: gpu.sms", "missing value");
	EXPECT_ERROR("[l2]\nsize = 4XB\n", "test.ini:2: l2.size", "expected a size");
	EXPECT_ERROR("[l2]\nsize = 99999999999999TiB\n", "test.ini:2: l2.size", "out of range");
	/* entries zero or negative */
	EXPECT_ERROR("[tlb]\nlevels = 2\n[tlb.l1]\nentries = 0\n", "test.ini:4: tlb.l1.entries",
		     "must be at least 1");
	EXPECT_ERROR("[tlb]\nlevels = 2\n[tlb.l2]\nentries = -16\n", "test.ini:4: tlb.l2.entries",
		     "negative");
	/* DRAM refresh: both keys or neither, tRFC a small part of tREFI */
	EXPECT_ERROR("[dram]\ntrfc_ns = 350\n", "test.ini:2: dram.trfc_ns", "set both or neither");
	EXPECT_ERROR("[dram]\ntrefi_ns = 3900\ntrfc_ns = 2000\n", "test.ini:3: dram.trfc_ns",
		     "below half of trefi");
	/* L2 slices: both keys or neither, a multiple of the partitions */
	EXPECT_ERROR("[l2]\nslices = 64\n", "test.ini:2: l2.slices", "set both or neither");
	EXPECT_ERROR("[mem]\npartitions = 2\n[l2]\nslices = 63\nslice_bytes_per_cycle = 32\n",
		     "test.ini:5: l2.slice_bytes_per_cycle", "a multiple of mem.partitions");
	/* an SM's L2 port: 0 or at least a byte a cycle */
	EXPECT_ERROR("[l2]\nsm_port_bytes_per_cycle = 0.5\n", "test.ini:2: l2.sm_port_bytes_per_cycle",
		     "at least 1 byte");
	/* entry size */
	EXPECT_ERROR("[tlb.l1]\nentry_size = 96KiB\n", "test.ini:2: tlb.l1.entry_size", "power of two");
	EXPECT_ERROR("[tlb.l1]\nentry_size = 2KiB\n", "test.ini:2: tlb.l1.entry_size", "at least 4KiB");
	/* ways not dividing entries (cross-field: finalize, still with the line) */
	EXPECT_ERROR("[tlb.l1]\nentries = 16\nways = 3\n", "test.ini:3: tlb.l1.ways", "divide");
	/* unknown enum values */
	EXPECT_ERROR("[tlb.l1]\nshare = cluster\n", "test.ini:2: tlb.l1.share", "cluster",
		     "sm, tpc, gpc, gpu, map");
	EXPECT_ERROR("[gpu]\nsm_numbering = zigzag\n", "test.ini:2: gpu.sm_numbering", "zigzag");
	/* a key for a TLB level above tlb.levels: before or after levels */
	EXPECT_ERROR("[tlb]\nlevels = 2\n[tlb.l3]\nentries = 5\n", "test.ini:4: tlb.l3.entries",
		     "above tlb.levels");
	EXPECT_ERROR("[tlb.l4]\nways = 0\n[tlb]\nlevels = 3\n", "test.ini:2: tlb.l4.ways",
		     "above tlb.levels");
	EXPECT_ERROR("[tlb.l3]\nentries = 5\n", "test.ini:2: tlb.l3.entries", "above tlb.levels");
	/* duplicated key */
	EXPECT_ERROR("[gpu]\nsms = 16\nclock_mhz = 1000\nsms = 16\n", "test.ini:4: gpu.sms",
		     "first at line 2");
	EXPECT_ERROR("[gpu]\nsms = 16\n[tlb]\nlevels=2\n[gpu]\nsms = 16\n", "test.ini:6: gpu.sms",
		     "first at line 2");
	/* continuation lines: only lists, and line numbers stay right */
	EXPECT_ERROR("[gpu]\nsms = 16\n  17\n", "test.ini:3: gpu.sms", "indented");
	EXPECT_ERROR("[gpu]\ndisabled_sms = 1\n  2 x\nsms = 14\n", "test.ini:3: gpu.disabled_sms",
		     "'x'");
	EXPECT_ERROR("[gpu]\ndisabled_sms = 1\n  2\n\n  # c\n  3\nsms = 1x\n", "test.ini:7: gpu.sms");
	/* share_map */
	EXPECT_ERROR("[gpu]\nsms = 16\n[tlb.l1]\nshare = map\nshare_map = 0 1 2\n",
		     "test.ini:5: tlb.l1.share_map", "3 entries", "16");
	EXPECT_ERROR("[gpu]\nsms = 16\n[tlb.l1]\nshare = gpc\nshare_map = 0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1\n",
		     "test.ini:5: tlb.l1.share_map", "only used with share = map");
	EXPECT_ERROR("[tlb.l1]\nshare = map\n", "test.ini:2: tlb.l1.share", "share_map");
	/* disabled_sms */
	EXPECT_ERROR("[gpu]\nsms = 15\ngpcs = 4\ntpcs_per_gpc = 4\nsms_per_tpc = 1\ndisabled_sms = 16\n",
		     "test.ini:6: gpu.disabled_sms", "out of range");
	EXPECT_ERROR("[gpu]\nsms = 14\ngpcs = 4\ntpcs_per_gpc = 4\nsms_per_tpc = 1\ndisabled_sms = 3 3\n",
		     "test.ini:6: gpu.disabled_sms", "listed twice");
	EXPECT_ERROR("[gpu]\nsms = 14\ngpcs = 4\ntpcs_per_gpc = 4\nsms_per_tpc = 1\ndisabled_sms = 3\n",
		     "test.ini:6: gpu.disabled_sms", "gpu.sms = 14", "15 active");
	EXPECT_ERROR("[gpu]\nsms = 12\n", "test.ini:2: gpu.sms", "16 active");
	EXPECT_ERROR("[gpu]\nsms = 257\n", "test.ini:2: gpu.sms", "at most 256");
	EXPECT_ERROR("[gpu]\ngpcs = 100\ntpcs_per_gpc = 100\n", "test.ini:3: gpu.tpcs_per_gpc",
		     "physical grid");
	/* L2 geometry */
	EXPECT_ERROR("[l2]\nsize = 1000000\n", "test.ini:2: l2.size", "sets");
	EXPECT_ERROR("[l2]\nline_size = 128\nsector_size = 256\n", "test.ini:3: l2.sector_size",
		     "does not divide");
	EXPECT_ERROR("[l2]\nsector_size = 48\n", "test.ini:2: l2.sector_size", "power of two");
	/* bandwidths and clock outside their physical ranges, latencies < 0 */
	EXPECT_ERROR("[dram]\nbandwidth_gb_s = 0\n", "test.ini:2: dram.bandwidth_gb_s",
		     "must be at least 0.001 (got 0; range [0.001, 100000])");
	EXPECT_ERROR("[pcie]\nbandwidth_gb_s = -1\n", "test.ini:2: pcie.bandwidth_gb_s", "at least 0.001");
	EXPECT_ERROR("[dram]\nbandwidth_gb_s = 1e-300\n", "test.ini:2: dram.bandwidth_gb_s",
		     "range [0.001, 100000]");
	EXPECT_ERROR("[gpu]\nclock_mhz = 0\n", "test.ini:2: gpu.clock_mhz", "at least 1");
	EXPECT_ERROR("[gpu]\nclock_mhz = 1e6\n", "test.ini:2: gpu.clock_mhz", "range [1, 10000]");
	EXPECT_ERROR("[walker]\nlatency_cycles = 1e12\n", "test.ini:2: walker.latency_cycles",
		     "must be at most 10000000 (got 1e12; range [0, 10000000])");
	EXPECT_ERROR("[walker]\nlatency_cycles = -5\n", "test.ini:2: walker.latency_cycles", "negative");
	EXPECT_ERROR("[tlb.l1]\nhit_latency_cycles = -1\n", "test.ini:2: tlb.l1.hit_latency_cycles",
		     "negative");
	EXPECT_ERROR("[dram]\nlatency_cycles = -0.5\n", "test.ini:2: dram.latency_cycles", "negative");
	EXPECT_ERROR("[tlb]\nlevels = 5\n", "test.ini:2: tlb.levels", "at most 4");
	EXPECT_ERROR("[tlb]\nlevels = 0\n", "test.ini:2: tlb.levels", "at least 1");
	EXPECT_ERROR("[tlb.l1]\nmshrs = 0\n", "test.ini:2: tlb.l1.mshrs", "at least 1");
	EXPECT_ERROR("[walker]\nwalkers = 0\n", "test.ini:2: walker.walkers", "at least 1");
	/* CRLF line endings and inline comments keep line numbers */
	EXPECT_ERROR("[gpu]\r\nsms = 16 ; ok\r\n; comment\r\nclock_mhz = x\r\n", "test.ini:4: gpu.clock_mhz");
	/* over-long line and NUL byte */
	{
		char text[600];
		snprintf(text, sizeof text, "[gpu]\ndescription = %0400d\n", 7);
		EXPECT_ERROR(text, "test.ini:2:", "too long");
	}
}

static void test_multiline_list_and_comments(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = new_cfg();
	struct gpuvm_error err = {{0}};
	const char *text =
		"\xEF\xBB\xBF# a preset with a BOM\n"
		"[gpu]\n"
		"description = my GPU; with a semicolon ; and a comment\n"
		"sms = 12 ; twelve\n"
		"gpcs = 4\n"
		"tpcs_per_gpc = 4\n"
		"disabled_sms = 0,\n"
		"   1, 2   ; continued\n"
		"\n"
		"   3\n"
		"[tlb.l1]\n"
		"  entries = 8\n";
	if (gpuvm_config_load_string(cfg, text, "dir/x.y/mine.ini", &err))
		fail_msg("%s", err.msg);
	if (gpuvm_config_finalize(cfg, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(cfg->description, "my GPU; with a semicolon");
	assert_int_equal(cfg->disabled_sms_len, 4);
	assert_int_equal(cfg->disabled_sms[3], 3);
	assert_int_equal(cfg->tlb[0].entries, 8);
	assert_string_equal(cfg->name, "mine");
	assert_string_equal(cfg->set_at[K_DISABLED_SMS].origin, "dir/x.y/mine.ini");
	assert_int_equal(cfg->set_at[K_DISABLED_SMS].line, 7);
	assert_int_equal(cfg->set_at[CFG_TLB_KEY(0, KT_ENTRIES)].line, 12);
	free(cfg);
}

/* A quiet key is listed (a report's config, config_hash) only where it
 * differs from its default, read at its own size: dram.interleave (four
 * bytes) where h100 sets dram.write_batch_sectors, the field after it,
 * which a read of eight bytes took for its value; v100 sets it; and the
 * ENUM keys gpu.warp_exit_waits_stores and l2.copy_fill, at their
 * defaults on h100, not listed. */
static bool lists_key(const struct gpuvm_config *cfg, const char *name)
{
	for (size_t i = 0; gpuvm_config_key_at(cfg, i); i++)
		if (!strcmp(gpuvm_config_key_at(cfg, i), name))
			return true;
	return false;
}

static void test_quiet_size_key(void **state)
{
	(void)state;
	static struct gpuvm_config c;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&c, "h100", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&c, &err), 0);
	assert_true(c.dram_write_batch_sectors != 0);
	assert_false(lists_key(&c, "dram.interleave"));
	assert_false(lists_key(&c, "gpu.warp_exit_waits_stores"));
	assert_false(lists_key(&c, "l2.copy_fill"));
	assert_int_equal(gpuvm_config_load(&c, "v100", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&c, &err), 0);
	assert_true(lists_key(&c, "dram.interleave"));
}

/* gem5gpu-neidty mirrors the simulator the NeiDty paper ran (seeds/002
 * Table III, else gem5-gpu's defaults; docs/neidty.md, "gem5-gpu's
 * defaults"): a value that drifts back to a guess fails here. */
static void test_gem5gpu_neidty_sources(void **state)
{
	(void)state;
	static struct gpuvm_config c;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&c, "gem5gpu-neidty", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&c, &err), 0);
	assert_int_equal(c.l1_bytes, 64 * 1024); /* Table III; GPUConfig.py --sc_l1_size 64kB */
	assert_int_equal(c.l1_ways, 4);          /* Table III; --sc_l1_assoc 4 */
	/* one RubyMemoryControl at 400 MHz, 128 B per 2 cycles */
	assert_true(c.dram_bandwidth_gb_s > 25.59 && c.dram_bandwidth_gb_s < 25.61);
	/* gpgpusim.fermi.config.template: int ADD 4, fp MAD 5, dp MAD 8 / 8 */
	assert_true(c.class_latency_cycles[GPUVM_CLASS_ALU] == 4);
	assert_true(c.class_latency_cycles[GPUVM_CLASS_FMA] == 5);
	assert_true(c.class_latency_cycles[GPUVM_CLASS_DP] == 8);
	assert_true(c.class_interval_cycles[GPUVM_CLASS_DP] == 8);
	/* template:126 -gpgpu_scheduler gto */
	assert_string_equal(c.warp_scheduler, "gto");
	/* the Ruby L2 stalls a Get to a line whose fill is out
	 * (VI_hammer-GPUL2cache.sm); the one-queue DRAM it needs */
	assert_int_equal(c.l2_in_flight_wait, 1);
	assert_int_equal(c.dram_banks, 0);
	/* wait keeps its fill times on banked DRAM and near/far partitions
	 * too (memsys_flush_part_run, memsys_access_near_far) */
	static struct gpuvm_config b;
	assert_int_equal(gpuvm_config_load(&b, "gem5gpu-neidty", &err), 0);
	assert_int_equal(gpuvm_config_set(&b, "dram.banks=16", "--set", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&b, &err), 0);
	assert_int_equal(gpuvm_config_load(&b, "h100", &err), 0);
	assert_int_equal(gpuvm_config_set(&b, "l2.in_flight=wait", "--set", &err), 0);
	assert_int_equal(gpuvm_config_finalize(&b, &err), 0);
	assert_int_equal(b.l2_in_flight_wait, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_every_preset_loads),
		cmocka_unit_test(test_preset_files_match_embedded),
		cmocka_unit_test(test_k80_groups),
		cmocka_unit_test(test_p100_groups),
		cmocka_unit_test(test_share_domains),
		cmocka_unit_test(test_set_and_get),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_multiline_list_and_comments),
		cmocka_unit_test(test_quiet_size_key),
		cmocka_unit_test(test_gem5gpu_neidty_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
