/* Inter-TLB sharing schemes: modules that let the instances of one TLB
 * level (the private L1 TLBs) serve each other's misses. A scheme is an
 * ops table in src/xlat/peer_NAME.c with a module descriptor (gpuvm/module.h)
 * listed in src/core/module_registry.c, chosen
 * per level by tlb.lN.peer; its tunables are its own config keys
 * (neidty.*, valkyrie.*), read in create().
 *
 * Contract (what xlat.c guarantees and expects):
 *  - With every level's peer = none and the sharing analysis off, xlat.c
 *    never calls a scheme and translates on the fast variant of its one
 *    walk path (xlat.c level_step, slow = false).
 *  - Otherwise every translation takes the slow variant (slow = true),
 *    which for a level with a scheme calls, in this order, for one lookup
 *    of instance inst:
 *      on_lookup (every lookup, hit or miss, before the local result is
 *      known to the scheme);
 *      probe_remote (only on a local miss) - the scheme may serve it from
 *      another instance of the level or send it on to the next level;
 *      on_evict / on_fill for every entry the level replaces or installs,
 *      whoever caused it (local miss, remote fill, a scheme's push, a
 *      shootdown: on_evict only);
 *      on_lower_evict when the next level down (e.g. the L2 TLB) replaces
 *      an entry (tag in that level's entry size);
 *      after_translate once the whole translation is done: the only
 *      moment a scheme may install entries itself (xlat_peer_install),
 *      so no entry the miss path still holds an id of moves under it.
 *  - Tags are the level's tags (address >> log2(entry size)).
 *  - A scheme counts its own events in the level's gpuvm_tlb_level_stats
 *    (directory hits, port waits, probes); xlat.c counts remote hits and
 *    translation cycles.
 *  - May call: xlat.c's installer (xlat_peer_install) and the module
 *    registry (gpuvm/module.h: gpuvm_module_params, gpuvm_module_find,
 *    in src/core/module_registry.c) for its descriptor and parameters. */
#ifndef GPUVM_XLAT_PEER_H
#define GPUVM_XLAT_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/config.h"

struct xlat;
struct xlat_level;

struct xlat_peer_ops {
	/* name and help live in the module descriptor (gpuvm/module.h) */
	/* State for level l of x (its instances and TLBs are set up); reads
	 * the scheme's keys from cfg. NULL with why written on failure. */
	void *(*create)(struct xlat *x, uint32_t l, const struct gpuvm_config *cfg, char *why,
			size_t wlen);
	void (*destroy)(void *st);
	void (*on_lookup)(void *st, uint32_t inst, uint64_t tag); /* optional */
	/* When instance inst's lookup port serves a local lookup that arrives
	 * at t (>= t): a scheme whose instances also serve other instances'
	 * requests through the port (Valkyrie's probes) delays the local side
	 * by the cycles those took. Called before on_lookup, on every lookup.
	 * NULL: at t (optional). */
	double (*local_port)(void *st, uint32_t inst, double t);
	/* A local miss of inst on tag: t is the lookup's start, looked its
	 * end (t + hit latency). Returns true when another instance serves it:
	 * *done is when the translation arrives, *fill whether inst keeps a
	 * copy. Returns false when the request goes to the next level at
	 * *next (>= looked: a probe that found nothing may have taken time).
	 * *also_below (false on entry): with a true return, the request went
	 * to the next level at *next as well, before the remote answer came
	 * (Valkyrie's secondary probe's NACK); the translation then arrives at
	 * the earlier of the two, and the next level does its work either way.
	 * NULL: never serves (peer = none). */
	bool (*probe_remote)(void *st, uint32_t inst, uint64_t tag, double t, double looked,
			     double *done, bool *fill, double *next, bool *also_below);
	/* A local miss of inst went to the next level at sent (after its
	 * MSHR) and the next level answered at answered (a remote answer that
	 * came first does not change it). Optional. */
	void (*on_below_answer)(void *st, uint32_t inst, double sent, double answered);
	void (*on_fill)(void *st, uint32_t inst, uint64_t tag);  /* optional */
	void (*on_evict)(void *st, uint32_t inst, uint64_t tag); /* optional */
	void (*on_lower_evict)(void *st, uint64_t lower_tag, unsigned lower_shift); /* optional */
	void (*after_translate)(void *st, double t);            /* optional */
};

/* The scheme named name, or NULL. */
const struct xlat_peer_ops *xlat_peer_find(const char *name);
/* The scheme's registered name ("none" for ""), for statistics. */
const char *xlat_peer_canonical(const char *name);
/* "none, neidty, valkyrie" for messages and help (from the registry). */
const char *xlat_peer_names(void);

/* Installs tag in instance inst of level l with fill time ready, telling
 * the level's scheme (and the level above's) what was replaced; a no-op
 * when the entry is present. For schemes' after_translate. */
void xlat_peer_install(struct xlat *x, uint32_t l, uint32_t inst, uint64_t tag, double ready);

/* NeiDty's record of vpn in instance inst's directory: its bitmap (4
 * left, 2 local, 1 right; seeds/002 Fig. 5), 0 when there is none. For
 * tests and debugging; st is the level's scheme state (xlat_level.peer). */
unsigned xlat_neidty_record(const void *st, uint32_t inst, uint64_t vpn);

#endif
