#include "core/demangle.h"

#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

char *gpuvm_demangle(const char *name)
{
	/* Only "_Z..." names: the v3 demangler would also read a bare "i" or
	 * "v" as a type ("int", "void") when asked for types, and a C
	 * kernel's name is already what the source says. */
	if (name && strncmp(name, "_Z", 2) == 0) {
		char *d = cplus_demangle_v3(name, DMGL_PARAMS | DMGL_ANSI);
		if (d)
			return d;
	}
	return strdup(name ? name : "");
}
