/* The TLB sharing schemes, by name: a view of the module registry
 * (gpuvm/module.h, src/core/module_registry.c). Adding one: write
 * src/xlat/peer_NAME.c with its ops table (src/xlat/peer.h) and its
 * module descriptor, and list the descriptor in module_registry.c; the
 * engine and the TLB do not change. */
#include "gpuvm/module.h"
#include "xlat/peer.h"

/* "" is none: configs built field by field (the probe's emitted presets)
 * leave the name empty. */
const struct xlat_peer_ops *xlat_peer_find(const char *name)
{
	const struct gpuvm_module *m = gpuvm_module_find(GPUVM_MODULE_PEER, name[0] ? name : "none");
	return m ? m->ops : NULL;
}

const char *xlat_peer_canonical(const char *name)
{
	const struct gpuvm_module *m = gpuvm_module_find(GPUVM_MODULE_PEER, name[0] ? name : "none");
	return m ? m->name : "?";
}

const char *xlat_peer_names(void) { return gpuvm_module_names(GPUVM_MODULE_PEER); }
