/* The module registry (gpuvm/module.h): every policy described, its
 * parameter rows sane, names unique, every module creatable with its
 * defaults, and a module parameter settable from a preset or --set with
 * range checks whose messages name the key. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/module.h"
#include "mem/l1_cache.h"
#include "sm/warp_sched.h"
#include "uvm/evict.h"
#include "uvm/migrate.h"
#include "uvm/prefetch.h"
#include "uvm/thrashing.h"
#include "xlat/peer.h"

static void test_every_module_described(void **state)
{
	(void)state;
	size_t n = gpuvm_module_count(), params = 0;
	assert_true(n >= 26);
	for (size_t i = 0; i < n; i++) {
		const struct gpuvm_module *m = gpuvm_module_at(i);
		assert_non_null(m);
		assert_true((unsigned)m->kind < GPUVM_MODULE_KINDS);
		assert_non_null(m->name);
		assert_true(m->name[0]);
		assert_non_null(m->help);
		assert_true(strlen(m->help) > 10);
		/* names unique within their kind, and found by name */
		for (size_t j = i + 1; j < n; j++) {
			const struct gpuvm_module *o = gpuvm_module_at(j);
			assert_false(o->kind == m->kind && strcmp(o->name, m->name) == 0);
		}
		assert_ptr_equal(gpuvm_module_find(m->kind, m->name), m);
		/* the kind's name list holds it */
		assert_non_null(strstr(gpuvm_module_names(m->kind), m->name));
		assert_true(m->n_params <= GPUVM_MODULE_PARAMS_EACH);
		for (uint32_t p = 0; p < m->n_params; p++) {
			const struct gpuvm_module_param *r = &m->params[p];
			assert_non_null(r->key);
			assert_non_null(r->help);
			assert_non_null(r->unit);
			assert_true(r->min <= r->def && r->def <= r->max);
			if (r->integer)
				assert_true(r->def == floor(r->def) && r->min == floor(r->min));
			for (uint32_t q = p + 1; q < m->n_params; q++)
				assert_string_not_equal(r->key, m->params[q].key);
			assert_int_equal(gpuvm_module_param_slot(m, p), params);
			params++;
		}
	}
	assert_true(params <= GPUVM_MODULE_PARAMS_MAX);
	assert_null(gpuvm_module_find(GPUVM_MODULE_PREFETCH, "bogus"));
	/* kinds of the same name space do not leak into each other */
	assert_null(gpuvm_module_find(GPUVM_MODULE_EVICT, "none"));
}

/* Every module works from its defaults: stateful ones create and destroy,
 * stateless ones run. */
static void test_create_with_defaults(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	assert_non_null(cfg);
	gpuvm_config_defaults(cfg);
	for (size_t i = 0; i < gpuvm_module_count(); i++) {
		const struct gpuvm_module *m = gpuvm_module_at(i);
		double v[GPUVM_MODULE_PARAMS_EACH], d[GPUVM_MODULE_PARAMS_EACH];
		gpuvm_module_params(cfg, m, v);
		gpuvm_module_params(NULL, m, d);
		for (uint32_t p = 0; p < m->n_params; p++)
			assert_true(v[p] == d[p] && v[p] == m->params[p].def);
		switch (m->kind) {
		case GPUVM_MODULE_PREFETCH: {
			const struct uvm_prefetch_ops *ops = m->ops;
			uvm_mask res = {0}, flt = {0}, out = {0};
			uint64_t rng = 1;
			mask_set(flt, 100);
			struct uvm_prefetch_ctx c = {.resident = res, .faulted = flt, .first_page = 0,
						     .end_page = UVM_BLOCK_PAGES, .rng = &rng, .params = v};
			ops->compute(&c, out);
			break;
		}
		case GPUVM_MODULE_EVICT: {
			const struct uvm_evict_ops *ops = m->ops;
			void *st = NULL;
			assert_non_null(ops->pick);
			if (ops->create) {
				assert_int_equal(ops->create(&st), 0);
				ops->destroy(st);
			}
			break;
		}
		case GPUVM_MODULE_MIGRATE: {
			const struct uvm_migrate_ops *ops = m->ops;
			struct uvm_migrate_ctx c = {.ts = 8, .penalty = 2};
			assert_true(ops->threshold(&c) >= 1);
			break;
		}
		case GPUVM_MODULE_THRASHING: {
			struct uvm_thrash t;
			struct gpuvm_uvm_stats st = {0};
			assert_int_equal(uvm_thrash_init(&t, 1e9, &st, v), 0);
			assert_int_equal(t.threshold, 3);
			assert_true(t.lapse == 500000.0);
			uvm_thrash_free(&t);
			break;
		}
		case GPUVM_MODULE_PEER:
			assert_ptr_equal(xlat_peer_find(m->name), m->ops);
			break;
		case GPUVM_MODULE_L1_REPLACEMENT: {
			struct l1_cache c;
			assert_int_equal(l1_cache_init(&c, 1, 4 * 128, 4, 128, 32), 0);
			assert_int_equal(l1_cache_set_replacement(&c, m->name), 0);
			l1_cache_free(&c);
			break;
		}
		case GPUVM_MODULE_WARP_SCHEDULER: {
			/* no hooks (the run loop's order), or all three */
			const struct warp_sched_ops *ops = m->ops;
			bool any = ops->claim || ops->queued || ops->popped;
			assert_true(!any || (ops->claim && ops->queued && ops->popped));
			break;
		}
		default:
			fail_msg("module %s of a reserved kind", m->name);
		}
	}
	free(cfg);
}

/* A module parameter is a config key: settable from --set and a preset
 * section, range checked with the key named, reported only off default. */
static void test_parameter_keys(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	assert_non_null(cfg);
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_config_load(cfg, "p100", &err), 0);
	const struct gpuvm_module *td = gpuvm_module_find(GPUVM_MODULE_PREFETCH, "tree-driver");
	assert_non_null(td);
	double v[GPUVM_MODULE_PARAMS_EACH];
	gpuvm_module_params(cfg, td, v);
	assert_true(v[0] == 51); /* nvidia-uvm uvm_perf_prefetch_threshold default */
	/* not in the report while at its default */
	const char *key;
	for (size_t i = 0; (key = gpuvm_config_key_at(cfg, i)); i++) {
		assert_null(strstr(key, "tree-driver"));
		assert_string_not_equal(key, "l1.replacement");
	}
	assert_int_equal(gpuvm_config_set(cfg, "uvm.prefetcher.tree-driver.threshold=60", "--set", &err), 0);
	gpuvm_module_params(cfg, td, v);
	assert_true(v[0] == 60);
	char buf[64];
	assert_int_equal(gpuvm_config_get(cfg, "uvm.prefetcher.tree-driver.threshold", buf, sizeof buf), 0);
	assert_string_equal(buf, "60");
	bool listed = false;
	for (size_t i = 0; (key = gpuvm_config_key_at(cfg, i)); i++)
		listed |= strcmp(key, "uvm.prefetcher.tree-driver.threshold") == 0;
	assert_true(listed);
	/* out of range, not whole, unknown key: refused, the key named */
	assert_int_not_equal(gpuvm_config_set(cfg, "uvm.prefetcher.tree-driver.threshold=101", "--set", &err), 0);
	assert_non_null(strstr(err.msg, "uvm.prefetcher.tree-driver.threshold"));
	assert_non_null(strstr(err.msg, "range [1, 100]"));
	assert_int_not_equal(gpuvm_config_set(cfg, "uvm.prefetcher.tree-driver.threshold=0", "--set", &err), 0);
	assert_non_null(strstr(err.msg, "uvm.prefetcher.tree-driver.threshold"));
	assert_int_not_equal(gpuvm_config_set(cfg, "uvm.prefetcher.tree-driver.threshold=50.5", "--set", &err), 0);
	assert_non_null(strstr(err.msg, "whole number"));
	assert_int_not_equal(gpuvm_config_set(cfg, "uvm.thrashing.driver.lapse_us=0", "--set", &err), 0);
	assert_non_null(strstr(err.msg, "uvm.thrashing.driver.lapse_us"));
	assert_int_not_equal(gpuvm_config_set(cfg, "uvm.prefetcher.tree-driver.treshold=5", "--set", &err), 0);
	/* a preset section sets it too */
	const char *ini = "base = p100\n[uvm.prefetcher.next-n]\ndegree = 3\n[l1]\nreplacement = srrip\n";
	if (gpuvm_config_load_string(cfg, ini, "mine.ini", &err))
		fail_msg("%s", err.msg);
	assert_int_equal(gpuvm_config_finalize(cfg, &err), 0);
	gpuvm_module_params(cfg, gpuvm_module_find(GPUVM_MODULE_PREFETCH, "next-n"), v);
	assert_true(v[0] == 3);
	assert_string_equal(cfg->l1_replacement, "srrip");
	/* an unknown module name lists the registry's names */
	assert_int_equal(gpuvm_config_set(cfg, "l1.replacement=plru", "--set", &err), 0);
	assert_int_not_equal(gpuvm_config_finalize(cfg, &err), 0);
	assert_non_null(strstr(err.msg, "known: lru, fifo, srrip"));
	/* the selecting key's help is derived from the registry */
	assert_non_null(strstr(gpuvm_config_key_help("uvm.prefetcher"), "next-n"));
	assert_non_null(strstr(gpuvm_config_key_help("uvm.eviction"), "lfu-ac"));
	free(cfg);
}

/* a parameter's value reaches the module: tree-driver's threshold
 * (a fault's 64 KB leaf counts as full, so 51 % grows the fault to 64 KB
 * at least; at 100 % no node can be "more than" full) */
static void test_parameter_reaches_module(void **state)
{
	(void)state;
	const struct gpuvm_module *td = gpuvm_module_find(GPUVM_MODULE_PREFETCH, "tree-driver");
	const struct uvm_prefetch_ops *ops = td->ops;
	uvm_mask res = {0}, flt = {0}, out = {0};
	uint64_t rng = 1;
	mask_set(flt, 0);
	double v[1];
	gpuvm_module_params(NULL, td, v);
	struct uvm_prefetch_ctx c = {.resident = res, .faulted = flt, .first_page = 0,
				     .end_page = UVM_BLOCK_PAGES, .rng = &rng, .params = v};
	ops->compute(&c, out);
	assert_true(mask_count(out) >= UVM_CHUNK_PAGES);
	v[0] = 100;
	memset(out, 0, sizeof out);
	ops->compute(&c, out);
	assert_int_equal(mask_count(out), 1); /* the faulted page alone */
}

/* A peer scheme's parameters keep their old keys (compat_key): the key,
 * its place in reports and its range come from the module's row, and the
 * value set under the old key is the one the module reads. */
static void test_compat_keys(void **state)
{
	(void)state;
	struct gpuvm_config *cfg = malloc(sizeof *cfg);
	assert_non_null(cfg);
	struct gpuvm_error err = {{0}};
	assert_int_equal(gpuvm_config_load(cfg, "gem5gpu-neidty", &err), 0);
	const struct gpuvm_module *nd = gpuvm_module_find(GPUVM_MODULE_PEER, "neidty");
	const struct gpuvm_module *vk = gpuvm_module_find(GPUVM_MODULE_PEER, "valkyrie");
	assert_true(nd && nd->n_params == 7 && vk && vk->n_params == 10);
	double v[GPUVM_MODULE_PARAMS_EACH];
	gpuvm_module_params(cfg, nd, v);
	assert_true(v[1] == 18 && v[3] == 0); /* tag_bits, update = default */
	char key[96];
	gpuvm_module_param_key(nd, 3, key, sizeof key);
	assert_string_equal(key, "neidty.update");
	/* a parameter newer than the registry has the registry's key */
	gpuvm_module_param_key(vk, 7, key, sizeof key);
	assert_string_equal(key, "tlb.peer.valkyrie.probe_queue");
	/* a choice by name, read back as its index */
	assert_int_equal(gpuvm_config_set(cfg, "neidty.update=twice", "--set", &err), 0);
	assert_int_equal(gpuvm_config_set(cfg, "valkyrie.ring_size=8", "--set", &err), 0);
	gpuvm_module_params(cfg, nd, v);
	assert_true(v[3] == 2);
	gpuvm_module_params(cfg, vk, v);
	assert_true(v[3] == 8);
	char buf[64];
	assert_int_equal(gpuvm_config_get(cfg, "neidty.update", buf, sizeof buf), 0);
	assert_string_equal(buf, "twice");
	/* the row's range and choices refuse, naming the key */
	assert_int_not_equal(gpuvm_config_set(cfg, "neidty.update=thrice", "--set", &err), 0);
	assert_non_null(strstr(err.msg, "neidty.update"));
	assert_non_null(strstr(err.msg, "exclusive"));
	assert_int_not_equal(gpuvm_config_set(cfg, "neidty.tag_bits=53", "--set", &err), 0);
	assert_non_null(strstr(err.msg, "neidty.tag_bits"));
	/* listed in every report, as before the registry; no module key made */
	const char *k;
	bool listed = false;
	for (size_t i = 0; (k = gpuvm_config_key_at(cfg, i)); i++) {
		listed |= strcmp(k, "valkyrie.ldt_entries") == 0;
		assert_null(strstr(k, "tlb.peer."));
	}
	assert_true(listed);
	free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_module_described),
		cmocka_unit_test(test_create_with_defaults),
		cmocka_unit_test(test_parameter_keys),
		cmocka_unit_test(test_parameter_reaches_module),
		cmocka_unit_test(test_compat_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
