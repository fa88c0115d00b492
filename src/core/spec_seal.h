/* A component's spec sealed at init: the spec (what the component derives
 * from the finished configuration when it is built, docs/architecture.md
 * "Spec and state") is never written by a request, and the seal lets a
 * test or a checking build see that it was not. spec_seal() is FNV-1a
 * (Fowler, Noll and Vo; IETF draft-eastlake-fnv) over the spec's bytes,
 * padding included: an init clears the spec before it fills it, and the
 * seal is taken of the bytes as init left them. It is taken at init and
 * compared at teardown (GPUVM_CHECK_INVARIANTS builds) and by the
 * components' *_spec_intact() in tests; it costs nothing on a request's
 * path. Never 0, so a component zeroed but never built (seal 0) is told
 * apart. */
#ifndef GPUVM_CORE_SPEC_SEAL_H
#define GPUVM_CORE_SPEC_SEAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SPEC_SEAL_BASIS 1469598103934665603ull /* FNV-1a offset basis */

/* h taken on over the bytes of spec (a component whose spec is in more
 * than one piece, as the translation layer's levels, chains them; its
 * last step is | 1, as in spec_seal). */
static inline uint64_t spec_seal_add(uint64_t h, const void *spec, size_t bytes)
{
	const unsigned char *b = spec;
	for (size_t i = 0; i < bytes; i++)
		h = (h ^ b[i]) * 1099511628211ull; /* FNV-1a prime */
	return h;
}

static inline uint64_t spec_seal(const void *spec, size_t bytes)
{
	return spec_seal_add(SPEC_SEAL_BASIS, spec, bytes) | 1;
}

/* At teardown in a checking build, with the seal taken at init and the
 * one of the spec now: a spec written after init is a bug in whichever
 * request wrote it, and the run's results are suspect. */
static inline void spec_seal_verify(uint64_t seal, uint64_t now, const char *component)
{
#ifdef GPUVM_CHECK_INVARIANTS
	if (seal && seal != now) {
		fprintf(stderr, "gpuvm: internal error: %s spec written after init\n", component);
		abort();
	}
#else
	(void)seal;
	(void)now;
	(void)component;
#endif
}

#endif
