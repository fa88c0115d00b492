/* The modules' parameter values in a configuration (gpuvm/config.h:
 * gpuvm_module_params): the registry (src/core/module_registry.c) holds
 * each row's default and range, the config holds the values set. */
#include "gpuvm/config.h"
#include "gpuvm/module.h"

void gpuvm_module_params(const struct gpuvm_config *cfg, const struct gpuvm_module *m, double *out)
{
	uint32_t slot = cfg ? gpuvm_module_param_slot(m, 0) : 0;
	for (uint32_t i = 0; i < m->n_params; i++) {
		out[i] = cfg ? cfg->module_params[slot + i] : m->params[i].def;
		/* an old key keeps its own config field (its slot stays unused) */
		if (cfg && m->params[i].compat_key &&
		    gpuvm_config_number(cfg, m->params[i].compat_key, &out[i]))
			out[i] = m->params[i].def; /* not reached: tests/test_modules.c */
	}
}
