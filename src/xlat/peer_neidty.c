/* NeiDty: neighbouring directory tables (Du et al., "Enhancing GPU
 * Performance via Neighboring Directory Table Based Inter-TLB Sharing",
 * seeds/002 section III).
 *
 * Each instance i of the level (an L1 TLB) has a directory: fully
 * associative (III.B.1), neidty.entries entries (III.B.1: 32, "the same as
 * L1 TLB"), each a valid bit, a hashed VPN tag of neidty.tag_bits bits
 * (III.B.1: the 52-bit VPN hashed to 18 bits) and a 3-bit bitmap
 * left/local/right (Fig. 5). The instances form a ring in id order: i's
 * left neighbour is i-1, its right i+1, and the first one's left is the
 * last (III.B.1).
 *
 * Snooping (III.B.2): "The directories sniff each update from neighboring
 * L1 TLBs. When neighboring L1 TLBs add one entry, ... If the
 * corresponding tag of VPN has been in the directory, then update it.
 * Otherwise, the directory will try to find a spare space to store the
 * sharing information." So when instance j installs a page, the
 * directories of j-1 (its right bit) and j+1 (its left bit) record it,
 * taking a free entry, else evicting by neidty.eviction: fifo (the oldest
 * record) or local-first (the oldest record whose local bit is set, the
 * local TLB holding that page anyway; FIFO when none is). Directory j sets
 * its local bit in a record it has (Fig. 5: "'1' indicates that the
 * corresponding address translation is stored"; III.B.1: "The local TLB
 * bit is mainly used for eviction strategy"), and makes no record for its
 * own TLB's page: the text makes records on neighbours' adds, and a record
 * of the local TLB alone tells a local miss nothing (local_records = 0;
 * 1: a local install makes a record too, the model before). A record made
 * on a neighbour's add has its local bit set when the local TLB holds the
 * page, by the same definition (with local_records = 1 it is left clear,
 * as before: the local install made the record). When j evicts a
 * page, the same three clear their bit if they hold the record; a record
 * whose bitmap empties is freed (our choice: it says nothing any more).
 *
 * Lookup (III.B.2, III.B.4, Fig. 6): the directory is read in parallel with
 * the TLB (neidty.directory_latency_cycles, IV.A: 1 cycle). On a local
 * miss with a record naming a neighbour, the request goes to the left
 * neighbour if its bit is set, else the right, over that neighbour's port
 * (one request per port per cycle - the issue's contention rule; the
 * paper gives each TLB a 2-entry buffer per port, III.A), and the answer is
 * back neidty.neighbour_latency_cycles later (IV.A: 1 cycle). The
 * neighbour compares the full VPN: if it does not hold the page (the 18-bit
 * tag matched another page, or the record is stale) it is a false hit and
 * the request goes to the next level when the answer is back (III.B.1).
 * Otherwise the update policy decides whether the local TLB keeps a copy
 * (III.C, Fig. 7): default always, exclusive never, twice when this is the
 * second neighbour hit in a row of the local TLB on the same page.
 *
 * A neighbour read leaves the neighbour's replacement order as it is with
 * tlb.peer_read_lru = keep (the port reads the entry; the owner's LRU is its
 * own), and makes the entry the neighbour's most recently used with touch
 * (gem5-gpu's TLBMemory::lookup, the one lookup the seed's gem5-gpu TLBs
 * have, sets MRU by default). */
#include <stdlib.h>
#include <string.h>

#include "core/later.h"
#include "xlat/peer.h"
#include "gpuvm/module.h"
#include "xlat/xlat.h"

/* Fig. 5's bitmap */
#define BIT_LEFT 4u
#define BIT_LOCAL 2u
#define BIT_RIGHT 1u

enum { EVICT_FIFO = 0, EVICT_LOCAL_FIRST = 1 };
enum { UPDATE_DEFAULT = 0, UPDATE_EXCLUSIVE = 1, UPDATE_TWICE = 2 };

struct dir_entry {
	uint32_t tag;  /* hashed VPN */
	uint8_t bits;  /* 0: free */
	uint64_t seq;  /* when the record was made (FIFO order) */
};

struct neidty {
	struct xlat_level *xl;
	uint32_t n;            /* instances */
	uint32_t entries;      /* per directory */
	uint32_t tag_mask;
	uint32_t eviction, update;
	bool filled_only;      /* tlb.l1_in_flight = miss: see heard() */
	bool touch;            /* tlb.peer_read_lru = touch */
	bool local_records;    /* a local install makes a record (the model before) */
	double dir_cycles, nbr_cycles;
	struct dir_entry *dir; /* [n][entries] */
	uint64_t seq;
	/* port_free[2 * j + s]: when instance j's port facing side s (0: its
	 * left neighbour, 1: its right) takes its next request */
	double *port_free;
	uint64_t *last_remote; /* [n] twice: page + 1 of the last neighbour hit, 0 = none */
};

/* XOR-fold of the VPN into tag_bits bits (seeds/002 III.B.1 hashes the
 * 52-bit VPN to 18 bits without naming the hash; folding keeps pages
 * within 2^18 of each other apart, so false hits need far-apart pages). */
static uint32_t hash_tag(const struct neidty *d, uint64_t vpn)
{
	unsigned bits = (unsigned)__builtin_popcount(d->tag_mask);
	uint64_t h = 0;
	for (; vpn; vpn >>= bits)
		h ^= vpn;
	return (uint32_t)h & d->tag_mask;
}

static struct dir_entry *dir_of(struct neidty *d, uint32_t i) { return &d->dir[(size_t)i * d->entries]; }

static struct dir_entry *dir_find(struct neidty *d, uint32_t i, uint32_t tag)
{
	struct dir_entry *e = dir_of(d, i);
	for (uint32_t k = 0; k < d->entries; k++)
		if (e[k].bits && e[k].tag == tag)
			return &e[k];
	return NULL;
}

/* Sets bit of the record of tag in directory i, making the record if
 * there is none and make is set; local: the bit the new record has for
 * the local TLB (it holds the page). */
static void dir_set(struct neidty *d, uint32_t i, uint32_t tag, uint8_t bit, bool make, uint8_t local)
{
	struct dir_entry *r = dir_find(d, i, tag);
	if (r) {
		r->bits |= bit;
		return;
	}
	if (!make)
		return;
	struct dir_entry *e = dir_of(d, i), *victim = NULL, *oldest_local = NULL;
	for (uint32_t k = 0; k < d->entries; k++) {
		if (!e[k].bits) {
			victim = &e[k];
			break;
		}
		if (!victim || e[k].seq < victim->seq)
			victim = &e[k];
		if ((e[k].bits & BIT_LOCAL) && (!oldest_local || e[k].seq < oldest_local->seq))
			oldest_local = &e[k];
	}
	if (victim->bits && d->eviction == EVICT_LOCAL_FIRST && oldest_local)
		victim = oldest_local;
	victim->tag = tag;
	victim->bits = bit | local;
	victim->seq = ++d->seq;
}

static void dir_clear(struct neidty *d, uint32_t i, uint32_t tag, uint8_t bit)
{
	struct dir_entry *r = dir_find(d, i, tag);
	if (r)
		r->bits &= (uint8_t)~bit;
}

static uint32_t left_of(const struct neidty *d, uint32_t i) { return (i + d->n - 1) % d->n; }
static uint32_t right_of(const struct neidty *d, uint32_t i) { return (i + 1) % d->n; }

/* The scheme's parameters; their config keys are the neidty.* keys they
 * had before the registry (gpuvm/module.h compat_key). */
enum {
	P_ENTRIES,
	P_TAG_BITS,
	P_EVICTION,
	P_UPDATE,
	P_DIRECTORY,
	P_NEIGHBOUR,
	P_LOCAL_RECORDS,
	N_PARAMS
};
static const char *const eviction_names[] = {"fifo", "local-first"};
static const char *const update_names[] = {"default", "exclusive", "twice"};
static const struct gpuvm_module_param params[N_PARAMS] = {
	[P_ENTRIES] = {"entries", 0, 0, 1 << 16, true, "entries",
		       "entries of one neighbouring directory; 0 = as many as the level's TLB "
		       "(seeds/002 III.B: as many as the L1 TLB, 32)",
		       .compat_key = "neidty.entries"},
	[P_TAG_BITS] = {"tag_bits", 18, 1, 52, true, "bits",
			"width of the directory's hashed VPN tag (seeds/002 III.B: 52-bit VPN "
			"hashed to 18 bits); fewer bits, more false hits",
			.compat_key = "neidty.tag_bits"},
	[P_EVICTION] = {"eviction", 0, 0, 1, true, "choice",
			"directory replacement when full: fifo (seeds/002 III.B.2), or local-first "
			"(entries the local TLB holds go first)",
			eviction_names, 2, "neidty.eviction"},
	[P_UPDATE] = {"update", 0, 0, 2, true, "choice",
		      "after a neighbour hit: default (fill locally, seeds/002 III.C NeiDty-default), "
		      "exclusive (never), twice (after two consecutive neighbour hits on the page)",
		      update_names, 3, "neidty.update"},
	[P_DIRECTORY] = {"directory_latency_cycles", 1, 0, 1e7, false, "cycles",
			 "directory lookup, in parallel with the TLB's (seeds/002 IV.A: 1 cycle)",
			 .compat_key = "neidty.directory_latency_cycles"},
	[P_NEIGHBOUR] = {"neighbour_latency_cycles", 1, 0, 1e7, false, "cycles",
			 "a request to a neighbouring TLB and its answer (seeds/002 IV.A: 1 cycle)",
			 .compat_key = "neidty.neighbour_latency_cycles"},
	/* seeds/002 III.B.2: records are made when "neighboring L1 TLBs add
	 * one entry"; the local bit (Fig. 5) marks what the local TLB stores */
	[P_LOCAL_RECORDS] = {"local_records", 0, 0, 1, true, "flag",
			     "1: the local TLB's install makes a directory record as a neighbour's "
			     "does; 0: only sets the local bit of a record there is (seeds/002 "
			     "III.B.2: records are made on neighbours' adds)",
			     .values = NULL},
};

extern const struct gpuvm_module gpuvm_module_peer_neidty;

static void *neidty_create(struct xlat *x, uint32_t l, const struct gpuvm_config *cfg, char *why,
			   size_t wlen)
{
	(void)why, (void)wlen;
	struct neidty *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->xl = &x->level[l];
	d->n = d->xl->spec.instances;
	double p[N_PARAMS];
	gpuvm_module_params(cfg, &gpuvm_module_peer_neidty, p);
	uint32_t tag_bits = (uint32_t)p[P_TAG_BITS];
	d->entries = p[P_ENTRIES] > 0 ? (uint32_t)p[P_ENTRIES] : cfg->tlb[l].entries;
	d->tag_mask = tag_bits >= 32 ? UINT32_MAX : (1u << tag_bits) - 1;
	d->eviction = (uint32_t)p[P_EVICTION];
	d->update = (uint32_t)p[P_UPDATE];
	d->filled_only = l == 0 && cfg->tlb_l1_in_flight_miss;
	d->touch = cfg->tlb_peer_read_touch;
	d->local_records = p[P_LOCAL_RECORDS] != 0;
	d->dir_cycles = p[P_DIRECTORY];
	d->nbr_cycles = p[P_NEIGHBOUR];
	d->dir = calloc((size_t)d->n * d->entries, sizeof *d->dir);
	d->port_free = calloc(2 * (size_t)d->n, sizeof *d->port_free);
	d->last_remote = calloc(d->n, sizeof *d->last_remote);
	if (!d->dir || !d->port_free || !d->last_remote) {
		free(d->dir);
		free(d->port_free);
		free(d->last_remote);
		free(d);
		return NULL;
	}
	return d;
}

static void neidty_destroy(void *st)
{
	struct neidty *d = st;
	free(d->dir);
	free(d->port_free);
	free(d->last_remote);
	free(d);
}

/* The local bit a new record of vpn in directory i has: set when i's TLB
 * holds the page (Fig. 5's bitmap). */
static uint8_t local_bit(const struct neidty *d, uint32_t i, uint64_t vpn)
{
	return tlb_find(&d->xl->inst[i].tlb, vpn) != TLB_NIL ? BIT_LOCAL : 0;
}

static void neidty_on_fill(void *st, uint32_t inst, uint64_t vpn)
{
	struct neidty *d = st;
	uint32_t tag = hash_tag(d, vpn);
	dir_set(d, inst, tag, BIT_LOCAL, d->local_records, 0);
	if (d->n < 2)
		return;
	uint32_t l = left_of(d, inst), r = right_of(d, inst);
	/* inst is its left's right neighbour */
	dir_set(d, l, tag, BIT_RIGHT, true, d->local_records ? 0 : local_bit(d, l, vpn));
	dir_set(d, r, tag, BIT_LEFT, true, d->local_records ? 0 : local_bit(d, r, vpn));
}

static void neidty_on_evict(void *st, uint32_t inst, uint64_t vpn)
{
	struct neidty *d = st;
	uint32_t tag = hash_tag(d, vpn);
	dir_clear(d, inst, tag, BIT_LOCAL);
	if (d->n < 2)
		return;
	dir_clear(d, left_of(d, inst), tag, BIT_RIGHT);
	dir_clear(d, right_of(d, inst), tag, BIT_LEFT);
}

/* Whether the directories had heard of nb's copy of vpn by time `at`.
 * gpuvm installs an entry when the miss starts, with its fill time; the
 * seed's directories snoop the TLB's update (III.B.2: "when neighboring L1
 * TLBs add one entry"). With tlb.l1_in_flight = miss the TLB has the entry
 * only once filled (gem5-gpu's ShaderTLB inserts at walk end), so a fill
 * still in flight is not yet in the directory and the request goes to the
 * next level as it would without NeiDty; with merge, an in-flight entry is
 * there and the neighbour answers when it is filled. A bit for a page nb
 * lacks (hash alias, stale) stays visible: that is the false hit. */
static bool heard(const struct neidty *d, uint32_t nb, uint64_t vpn, double at)
{
	if (!d->filled_only)
		return true;
	const struct tlb *ntlb = &d->xl->inst[nb].tlb;
	uint32_t id = tlb_find(ntlb, vpn);
	return id == TLB_NIL || ntlb->ready[id] <= at;
}

static bool neidty_probe(void *st, uint32_t inst, uint64_t vpn, double t, double looked,
			 double *done, bool *fill, double *next, bool *also_below)
{
	(void)also_below; /* a neighbour hit never races the next level */
	struct neidty *d = st;
	*next = looked;
	if (d->n < 2)
		return false;
	struct dir_entry *r = dir_find(d, inst, hash_tag(d, vpn));
	double issue = later(looked, t + d->dir_cycles);
	bool left = r && (r->bits & BIT_LEFT) && heard(d, left_of(d, inst), vpn, issue);
	bool right = r && (r->bits & BIT_RIGHT) && heard(d, right_of(d, inst), vpn, issue);
	if (!left && !right)
		return false; /* directory miss: to the next level as without NeiDty */
	struct gpuvm_tlb_level_stats *st_ = d->xl->stats;
	st_->directory_hits++;
	uint32_t nb = left ? left_of(d, inst) : right_of(d, inst);
	/* the neighbour's port facing inst: inst is its right neighbour when
	 * it is inst's left */
	double *port = &d->port_free[2 * nb + (left ? 1 : 0)];
	double start = later(issue, *port);
	if (start > issue) {
		st_->port_waits++;
		st_->port_wait_cycles += start - issue;
	}
	*port = start + 1; /* one request per port per cycle */
	double back = start + d->nbr_cycles;
	const struct tlb *ntlb = &d->xl->inst[nb].tlb;
	uint32_t id = tlb_find(ntlb, vpn);
	if (id == TLB_NIL) {
		st_->directory_false_hits++;
		*next = back;
		return false;
	}
	*done = later(back, ntlb->ready[id]);
	if (d->touch) {
		bool hit; /* a hit: only the owner's LRU order changes */
		tlb_access(&d->xl->inst[nb].tlb, vpn, &hit);
	}
	switch (d->update) {
	case UPDATE_EXCLUSIVE:
		*fill = false;
		break;
	case UPDATE_TWICE:
		*fill = d->last_remote[inst] == vpn + 1;
		d->last_remote[inst] = *fill ? 0 : vpn + 1;
		break;
	default:
		*fill = true;
	}
	return true;
}

unsigned xlat_neidty_record(const void *st, uint32_t inst, uint64_t vpn)
{
	struct neidty *d = (struct neidty *)st;
	const struct dir_entry *r = dir_find(d, inst, hash_tag(d, vpn));
	return r ? r->bits : 0;
}

static const struct xlat_peer_ops ops = {
	.create = neidty_create,
	.destroy = neidty_destroy,
	.probe_remote = neidty_probe,
	.on_fill = neidty_on_fill,
	.on_evict = neidty_on_evict,
};

const struct gpuvm_module gpuvm_module_peer_neidty = {
	.kind = GPUVM_MODULE_PEER,
	.name = "neidty",
	.help = "neighbouring directory tables (Du et al.): fetch from the left/right L1 TLB",
	.params = params,
	.n_params = N_PARAMS,
	.ops = &ops,
};
