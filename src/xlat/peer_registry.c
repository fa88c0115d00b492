/* The TLB sharing schemes, by name. Adding one: write
 * src/xlat/peer_NAME.c with its ops table (src/xlat/peer.h) and list it
 * here; the engine and the TLB do not change. */
#include <string.h>

#include "xlat/peer.h"

extern const struct xlat_peer_ops xlat_peer_none, xlat_peer_neidty, xlat_peer_valkyrie;

static const struct xlat_peer_ops *const schemes[] = {
	&xlat_peer_none,
	&xlat_peer_neidty,
	&xlat_peer_valkyrie,
};

/* "" is none: configs built field by field (the probe's emitted presets)
 * leave the name empty. */
const struct xlat_peer_ops *xlat_peer_find(const char *name)
{
	if (!name[0])
		return &xlat_peer_none;
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
		if (strcmp(schemes[i]->name, name) == 0)
			return schemes[i];
	return NULL;
}

const char *xlat_peer_names(void) { return "none, neidty, valkyrie"; }
