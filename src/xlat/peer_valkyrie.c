/* Valkyrie (Baruah et al., "Valkyrie: Leveraging Inter-TLB Locality to
 * Enhance GPU Performance", PACT'20), the comparison scheme of seeds/002
 * (IV.A: "uses an intra-SE ring network for inter-L1-TLB communication").
 * Two mechanisms, each switchable (valkyrie.probing, valkyrie.ldt):
 *
 * Ring probing (Baruah et al. PACT'20, 3.2 and Fig. 7; the paper's text:
 * sarchlab/sarchlab.github.io static/valkyrie_pact_2020.pdf). The
 * instances are cut into rings of valkyrie.ring_size in id order (one
 * bidirectional ring joins the 16 L1 TLBs of a shader engine). On a local
 * miss the TLB sends two requests at once, the primary clockwise (i+1,
 * i+2, ...) living valkyrie.ttl_cw hops and the secondary
 * counter-clockwise (i-1, ...) living valkyrie.ttl_ccw hops (15 and 4,
 * 3.2). A probe takes valkyrie.hop_cycles per hop (1, section 4); the
 * nearest holder answers back along the probe's path, so a hit at h hops
 * is home after 2 h hops (ties go to the clockwise probe). The secondary
 * that finds nothing returns a NACK (home after 2 x its TTL hops), and
 * the NACK sends the request to the next level; the primary that finds
 * nothing is squashed. A holder only the primary reaches (h > the
 * secondary's TTL) answers after that NACK: the L2 TLB has the request as
 * well (it looks up, and walks on a miss), and the first answer home is
 * used. A ring hit is kept locally.
 *
 * Contention (3.2, "Request Arbitration"): probes arriving at a TLB wait in
 * its probe queue (tlb.peer.valkyrie.probe_queue entries, 16 in the
 * paper), served one per cycle; "if the queue is full, and a request
 * arrives, it is simply ignored and passed on to the next L1-TLB in the
 * ring" - the probe moves on without looking that TLB up. The TLB
 * "use[s] a round-robin arbitration scheme ... to choose between serving
 * requests from the local CU and requests from neighboring L1-TLBs": one
 * pick a cycle, so a cycle in which the TLB serves its own CU's lookups
 * serves no probe, and a cycle taken by a probe delays the local lookups
 * to the next (local_share = on; local_port below). A pick of the local
 * side serves every local lookup of that cycle (gem5-gpu's LSQ issues a
 * warp instruction's translations together, and gpuvm's L1 TLB serves
 * them together). The two sides alternate while both wait: a local
 * lookup waits at most the one cycle a probe took, and a probe passes at
 * most one local pick in a row (port_pick). The calls come in the
 * simulator's order, not in time order, so a pick once booked keeps its
 * cycle: when the local side's turn falls on a cycle a probe already
 * took, both are served in it (in the ring's favour).
 * probe_queue = 0: no contention (every probe looks up at arrival), the
 * model before; local_share = off: the ring has every cycle (the model
 * before this arbitration).
 *
 * The probing switch (3.2, "Frequency of Inter-L1-TLB Communication"):
 * each L1 TLB controller keeps "a running average of the latency of
 * translation requests that have been sent to the L2-TLB" and uses the
 * ring only while that average is above "a threshold value of 150 cycles"
 * (valkyrie probe_threshold_cycles); below it, or before any answer has
 * come back, a miss goes to the L2 TLB at once. The paper does not say
 * how the average runs; gpuvm takes the mean of every answer the TLB has
 * had back (a request's latency counts from when its answer is home, not
 * from when the simulator computes it). probe_threshold_cycles = 0:
 * always probe, the model before.
 *
 * Locality Detection Table (LDT). Each entry holds a page and a bitmap of
 * the instances that looked it up (hit or miss); valkyrie.ldt_entries
 * entries, direct-mapped by a hash of the page (our choice; the paper's,
 * 3.1, is 100 entries, fully associative, FIFO, and it prefetches on each
 * L2 TLB request rather than on an eviction). When the next level (the L2 TLB) evicts
 * a page the LDT holds, the entry is pushed into the L1 TLBs in its
 * bitmap that lack it (ready at once) and the LDT record is dropped;
 * pushes are made after the translation that caused the eviction. */
#include <stdlib.h>
#include <string.h>

#include "xlat/peer.h"
#include "gpuvm/module.h"
#include "xlat/xlat.h"

/* Each TLB's port, one pick per cycle (a probe, or the local lookups of
 * that cycle), as a calendar of the next CAL cycles (a probe is served at most 15 hops x (queue + 1) cycles
 * after its miss, far inside it): calls come roughly but not exactly in
 * time order, and a probe's later hops book cycles ahead of an earlier
 * probe that arrives after it, so a "next free cycle" per TLB would make
 * the earlier one wait behind the later. */
enum { CAL = 4096 };

/* One TLB's answers from the L2 TLB: their running mean, and those the
 * simulator has computed but whose answer is not home yet (a min-heap on
 * the answer's time). */
struct l2_latency {
	double sum_cycles;
	uint64_t n;
	double (*pending)[2]; /* {answered, latency cycles} */
	uint32_t npending, cap;
};

struct valkyrie {
	struct xlat *x;
	uint32_t l;
	struct xlat_level *xl;
	uint32_t n, ring, ttl_cw, ttl_ccw;
	double hop;
	uint32_t queue;         /* probe queue entries per TLB; 0: no contention */
	/* [n][CAL]: 2 (c + 1) when TLB i serves a probe in cycle c, 2 (c + 1)
	 * + 1 when it serves its local lookups then */
	uint64_t *booked;
	bool probing, ldt;
	bool local_share;       /* local lookups take the port's cycles (round-robin) */
	double threshold_cycles; /* probe while the mean L2 TLB latency is above it; 0: always */
	struct l2_latency *lat;  /* [n], with threshold_cycles > 0 */
	bool filled_only;       /* tlb.l1_in_flight = miss: see holds() */
	bool touch;             /* tlb.peer_read_lru = touch: a ring hit is the holder's MRU */
	uint32_t ldt_n, words;  /* LDT slots; 64-bit words of one bitmap */
	uint64_t *ldt_key;      /* [ldt_n] */
	uint64_t *ldt_users;    /* [ldt_n][words] */
	uint64_t *push_tag;     /* pending pushes */
	uint64_t *push_users;   /* [cap][words] */
	uint32_t npush, push_cap;
};

static uint32_t ldt_slot(const struct valkyrie *v, uint64_t tag)
{
	return (uint32_t)(((tag + 1) * 0x9E3779B97F4A7C15ull) >> 32) % v->ldt_n;
}

/* The scheme's parameters; their config keys are the valkyrie.* keys
 * they had before the registry (gpuvm/module.h compat_key). */
enum {
	P_PROBING,
	P_LDT,
	P_HOP,
	P_RING,
	P_TTL_CW,
	P_TTL_CCW,
	P_LDT_ENTRIES,
	P_QUEUE,
	P_LOCAL_SHARE,
	P_THRESHOLD,
	N_PARAMS
};
static const char *const off_on[] = {"off", "on"};
static const struct gpuvm_module_param params[N_PARAMS] = {
	[P_PROBING] = {"probing", 1, 0, 1, true, "choice",
		       "probe the other L1 TLBs of the shader engine's ring on a miss (Baruah et "
		       "al. PACT'20: on)",
		       off_on, 2, "valkyrie.probing"},
	[P_LDT] = {"ldt", 1, 0, 1, true, "choice",
		   "Locality Detection Table: push an entry the next level evicts into the TLBs "
		   "that used it (Baruah et al. PACT'20: on)",
		   off_on, 2, "valkyrie.ldt"},
	/* Baruah et al. PACT'20 section 4: "Each hop from one TLB to another
	 * takes 1 cycle" */
	[P_HOP] = {"hop_cycles", 1, 0, 1e7, false, "cycles",
		   "one ring hop between adjacent L1 TLBs (Baruah et al. PACT'20, section 4: "
		   "1 cycle)",
		   .compat_key = "valkyrie.hop_cycles"},
	/* Baruah et al. PACT'20 3.2: the ring joins the 16 L1 TLBs of a
	 * shader engine */
	[P_RING] = {"ring_size", 16, 1, GPUVM_MAX_SMS, true, "TLBs",
		    "L1 TLBs on one ring (one shader engine; Baruah et al. PACT'20 3.2: 16); "
		    "instances are cut into rings in id order",
		    .compat_key = "valkyrie.ring_size"},
	[P_TTL_CW] = {"ttl_cw", 15, 0, GPUVM_MAX_SMS, true, "hops",
		      "hops the clockwise (primary) probe travels at most (Baruah et al. "
		      "PACT'20 3.2, Fig. 7: 15)",
		      .compat_key = "valkyrie.ttl_cw"},
	[P_TTL_CCW] = {"ttl_ccw", 4, 0, GPUVM_MAX_SMS, true, "hops",
		       "hops the counter-clockwise (secondary) probe travels at most; its NACK "
		       "sends the request on (Baruah et al. PACT'20 3.2, Fig. 7: 4)",
		       .compat_key = "valkyrie.ttl_ccw"},
	/* assumption: as many as the gem5gpu-neidty L2 TLB (seeds/002 Table
	 * III, 32 x 16), so it can track every page that TLB can evict. The
	 * paper's LDT (3.1) is another structure: 100 entries, fully
	 * associative, FIFO, read on each L2 TLB request to prefetch into up
	 * to NPT L1 TLBs' 24-entry prefetch buffers; this push on L2 eviction
	 * is not it (docs/neidty.md) */
	[P_LDT_ENTRIES] = {"ldt_entries", 512, 1, 1 << 24, true, "entries",
			   "Locality Detection Table entries, direct-mapped by hashed tag "
			   "(assumed: the gem5gpu-neidty L2 TLB's 512)",
			   .compat_key = "valkyrie.ldt_entries"},
	/* Baruah et al. PACT'20 3.2, "Request Arbitration": "Requests from
	 * neighboring L1-TLBs queue up in a buffer that can hold a maximum of
	 * 16 entries in our implementation. If the queue is full, and a
	 * request arrives, it is simply ignored and passed on to the next
	 * L1-TLB in the ring." */
	[P_QUEUE] = {"probe_queue", 16, 0, 1 << 20, true, "entries",
		     "probes a TLB queues, served one per cycle; a probe finding it full passes "
		     "on unlooked (Baruah et al. PACT'20 3.2: 16; 0: no contention)",
		     .values = NULL},
	/* Baruah et al. PACT'20 3.2, "Request Arbitration": "We use a
	 * round-robin arbitration scheme in the L1-TLB to choose between
	 * serving requests from the local CU and requests from neighboring
	 * L1-TLBs" */
	[P_LOCAL_SHARE] = {"local_share", 1, 0, 1, true, "flag",
			   "1: the TLB's port serves one pick a cycle, its local lookups or a "
			   "queued probe (Baruah et al. PACT'20 3.2, round-robin); 0: probes have "
			   "every cycle; only with probe_queue > 0",
			   .values = NULL},
	/* Baruah et al. PACT'20 3.2, "Frequency of Inter-L1-TLB
	 * Communication": "we experimentally chose to use a threshold value
	 * of 150 cycles, since an L2-TLB hit will be serviced in less than
	 * 150 cycles" */
	[P_THRESHOLD] = {"probe_threshold_cycles", 150, 0, 1e9, false, "cycles",
			 "probe the ring only while the TLB's running mean L2 TLB latency is "
			 "above this (Baruah et al. PACT'20 3.2: 150; 0: always probe)",
			 .values = NULL},
};

extern const struct gpuvm_module gpuvm_module_peer_valkyrie;

static void valkyrie_destroy(void *st)
{
	struct valkyrie *v = st;
	for (uint32_t i = 0; v->lat && i < v->n; i++)
		free(v->lat[i].pending);
	free(v->lat);
	free(v->booked);
	free(v->ldt_key);
	free(v->ldt_users);
	free(v->push_tag);
	free(v->push_users);
	free(v);
}

static void *valkyrie_create(struct xlat *x, uint32_t l, const struct gpuvm_config *cfg, char *why,
			     size_t wlen)
{
	(void)why, (void)wlen;
	struct valkyrie *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->x = x;
	v->l = l;
	v->xl = &x->level[l];
	v->n = v->xl->spec.instances;
	double p[N_PARAMS];
	gpuvm_module_params(cfg, &gpuvm_module_peer_valkyrie, p);
	v->ring = (uint32_t)p[P_RING];
	v->ttl_cw = (uint32_t)p[P_TTL_CW];
	v->ttl_ccw = (uint32_t)p[P_TTL_CCW];
	v->hop = p[P_HOP];
	v->probing = p[P_PROBING] != 0;
	v->queue = (uint32_t)p[P_QUEUE];
	v->local_share = p[P_LOCAL_SHARE] != 0;
	v->threshold_cycles = p[P_THRESHOLD];
	if (v->threshold_cycles > 0 && !(v->lat = calloc(v->n, sizeof *v->lat)))
		goto fail;
	v->filled_only = l == 0 && cfg->tlb_l1_in_flight_miss;
	v->touch = cfg->tlb_peer_read_touch;
	v->ldt = p[P_LDT] != 0 && l + 1 < x->spec.levels;
	v->ldt_n = (uint32_t)p[P_LDT_ENTRIES];
	v->words = (v->n + 63) / 64;
	if (v->ldt) {
		v->ldt_key = calloc(v->ldt_n, sizeof *v->ldt_key);
		v->ldt_users = calloc((size_t)v->ldt_n * v->words, sizeof *v->ldt_users);
		v->push_cap = 16;
		v->push_tag = malloc(v->push_cap * sizeof *v->push_tag);
		v->push_users = malloc((size_t)v->push_cap * v->words * sizeof *v->push_users);
		if (!v->ldt_key || !v->ldt_users || !v->push_tag || !v->push_users)
			goto fail;
	}
	if (v->queue) {
		v->booked = calloc((size_t)v->n * CAL, sizeof *v->booked);
		if (!v->booked)
			goto fail;
	}
	return v;
fail:
	valkyrie_destroy(v);
	return NULL;
}

/* Ring of instance i: its first member and size. */
static void ring_of(const struct valkyrie *v, uint32_t i, uint32_t *base, uint32_t *size)
{
	*base = i / v->ring * v->ring;
	*size = v->n - *base < v->ring ? v->n - *base : v->ring;
}

/* Whether inst holds tag when the probe reaches it at time at; with
 * tlb.l1_in_flight = miss an entry still being filled is not there yet
 * (the TLB inserts at walk end, as gem5-gpu's ShaderTLB). */
static bool holds(const struct valkyrie *v, uint32_t inst, uint64_t tag, double at, uint32_t *id)
{
	const struct tlb *tlb = &v->xl->inst[inst].tlb;
	*id = tlb_find(tlb, tag);
	return *id != TLB_NIL && (!v->filled_only || tlb->ready[*id] <= at);
}

/* Hops a probe in one direction travels before its nack is home. */
static uint32_t nack_hops(uint32_t ttl, uint32_t size)
{
	return ttl >= size - 1 ? size : 2 * ttl;
}

/* The cycle from c at which a probe arriving at c is served, in *at:
 * the first free one, after the probes booked before it (they wait in the
 * queue) and the local picks; round-robin gives the ring the cycle after
 * a local pick, so a probe passes at most one local pick in a row and
 * takes the next cycle even if the local side booked it. False when
 * probe_queue probes wait before it (the queue is full). */
static bool port_pick(const struct valkyrie *v, const uint64_t *cal, uint64_t c, uint64_t *at)
{
	uint32_t waiting = 0;
	bool after_local = false;
	for (; cal[c % CAL] >> 1 == c + 1; c++) {
		if (cal[c % CAL] & 1) { /* a local pick */
			if (after_local)
				break; /* the ring's turn */
			after_local = true;
			continue;
		}
		if (++waiting == v->queue)
			return false;
		after_local = false;
	}
	*at = c;
	return true;
}

/* One probe's trip through the queues (Baruah et al. PACT'20 3.2,
 * "Request Arbitration"): clockwise when cw, ttl hops from pos, leaving at
 * looked. At each TLB it is looked up in the first free service cycle from
 * its arrival; when the probe_queue cycles from its arrival are all taken
 * (that many probes wait there), it is passed on without a lookup. Returns
 * the hop of the first holder it looked up (0: none), with *at the
 * lookup's time and *id the holder's entry; *end is when its last hop's
 * TLB was left behind (the NACK turns there). */
static uint32_t probe_trip(struct valkyrie *v, uint32_t base, uint32_t size, uint32_t pos, bool cw,
			   uint32_t ttl, uint64_t tag, double looked, double *at, uint32_t *id, double *end)
{
	double now = looked;
	for (uint32_t h = 1; h <= ttl; h++) {
		now += v->hop;
		uint32_t j = base + (cw ? pos + h : pos + size - h) % size;
		uint64_t *cal = &v->booked[(size_t)j * CAL];
		uint64_t c;
		if (!port_pick(v, cal, (uint64_t)now, &c))
			continue; /* queue full: ignored, passed on */
		cal[c % CAL] = 2 * (c + 1);
		if ((double)c > now)
			now = (double)c;
		if (holds(v, j, tag, now, id)) {
			*at = now;
			*end = now;
			return h;
		}
	}
	*end = now;
	return 0;
}

/* A holder's answer: who (entry id) is h hops away and its answer is home
 * at back; after the secondary's NACK (home at nack_at, sec_hops hops) the
 * L2 TLB has the request too (an answer home with the NACK wins the tie).
 * Books the hops and, with touch, the holder's LRU order. */
static bool holder_answers(struct valkyrie *v, uint32_t who, uint32_t id, uint64_t tag, uint32_t h,
			   double back, double nack_at, uint32_t sec_hops, double *done, bool *fill,
			   double *next, bool *also_below)
{
	struct gpuvm_tlb_level_stats *s = v->xl->stats;
	double ready = v->xl->inst[who].tlb.ready[id];
	*done = ready > back ? ready : back;
	if (back > nack_at) {
		*also_below = true;
		*next = nack_at;
		s->ring_hops += sec_hops;
	}
	s->ring_hops += 2 * h;
	if (v->touch) {
		bool hit; /* a hit: only the holder's LRU order changes */
		tlb_access(&v->xl->inst[who].tlb, tag, &hit);
	}
	*fill = true;
	return true;
}

/* valkyrie_probe with contention: both probes travel (each until its
 * first holder or its TTL), the answer home first is used (clockwise on a
 * tie, as without contention, where home first is nearest), and the
 * secondary's NACK comes home from where its trip ended. */
static bool probe_queued(struct valkyrie *v, uint32_t base, uint32_t size, uint32_t pos, uint32_t cw,
			 uint32_t ccw, uint32_t sec, uint32_t sec_hops, uint64_t tag, double looked,
			 double *done, bool *fill, double *next, bool *also_below)
{
	struct gpuvm_tlb_level_stats *s = v->xl->stats;
	/* the secondary is the shorter-lived probe; counter-clockwise at equal TTLs */
	bool sec_cw = cw && ccw ? cw < ccw : ccw == 0;
	double at_cw = 0, at_ccw = 0, end_cw = looked, end_ccw = looked;
	uint32_t id_cw = TLB_NIL, id_ccw = TLB_NIL;
	uint32_t h_cw = cw ? probe_trip(v, base, size, pos, true, cw, tag, looked, &at_cw, &id_cw, &end_cw) : 0;
	uint32_t h_ccw =
		ccw ? probe_trip(v, base, size, pos, false, ccw, tag, looked, &at_ccw, &id_ccw, &end_ccw) : 0;
	double nack_at = (sec_cw ? end_cw : end_ccw) + (sec_hops - sec) * v->hop;
	double home_cw = at_cw + h_cw * v->hop, home_ccw = at_ccw + h_ccw * v->hop;
	if (!h_cw && !h_ccw) {
		s->ring_hops += sec_hops + (cw + ccw - sec);
		s->ring_misses++;
		*next = nack_at;
		return false;
	}
	bool use_cw = h_cw && (!h_ccw || home_cw <= home_ccw);
	uint32_t h = use_cw ? h_cw : h_ccw, id = use_cw ? id_cw : id_ccw;
	uint32_t who = base + (use_cw ? pos + h : pos + size - h) % size;
	return holder_answers(v, who, id, tag, h, use_cw ? home_cw : home_ccw, nack_at, sec_hops, done,
			      fill, next, also_below);
}

/* An answer of the L2 TLB to inst's request sent at sent, home at
 * answered: it counts in the running mean once it is home (ring_on). */
static void valkyrie_on_below_answer(void *st, uint32_t inst, double sent, double answered)
{
	struct valkyrie *v = st;
	if (!v->lat)
		return;
	struct l2_latency *a = &v->lat[inst];
	if (a->npending == a->cap) {
		uint32_t cap = a->cap ? 2 * a->cap : 64;
		double(*p)[2] = realloc(a->pending, cap * sizeof *p);
		if (!p)
			return; /* out of memory: this answer is not counted */
		a->pending = p;
		a->cap = cap;
	}
	uint32_t i = a->npending++;
	for (; i && a->pending[(i - 1) / 2][0] > answered; i = (i - 1) / 2)
		memcpy(a->pending[i], a->pending[(i - 1) / 2], sizeof a->pending[i]);
	a->pending[i][0] = answered;
	a->pending[i][1] = answered - sent;
}

/* Whether inst probes the ring for a miss looked up at now (Baruah et al.
 * PACT'20 3.2): its running mean L2 TLB latency, over the answers home by
 * now, is above the threshold. */
static bool ring_on(struct valkyrie *v, uint32_t inst, double now)
{
	if (!v->lat)
		return true;
	struct l2_latency *a = &v->lat[inst];
	while (a->npending && a->pending[0][0] <= now) {
		a->sum_cycles += a->pending[0][1];
		a->n++;
		double last[2];
		memcpy(last, a->pending[--a->npending], sizeof last);
		uint32_t i = 0;
		for (;;) { /* sift last down from the root */
			uint32_t c = 2 * i + 1;
			if (c >= a->npending)
				break;
			if (c + 1 < a->npending && a->pending[c + 1][0] < a->pending[c][0])
				c++;
			if (a->pending[c][0] >= last[0])
				break;
			memcpy(a->pending[i], a->pending[c], sizeof last);
			i = c;
		}
		memcpy(a->pending[i], last, sizeof last);
	}
	return a->n && a->sum_cycles > v->threshold_cycles * (double)a->n;
}

/* Baruah et al. PACT'20 3.2: the secondary request (the shorter TTL, 4)
 * returns a NACK from the end of its reach and that NACK forwards the
 * translation request to the L2 TLB; the primary (TTL 15), finding
 * nothing, is squashed. A holder the primary finds beyond the
 * secondary's reach answers after the request has gone to the L2 TLB: the
 * first answer is used, the later one discarded (also_below). */
static bool valkyrie_probe(void *st, uint32_t inst, uint64_t tag, double t, double looked,
			   double *done, bool *fill, double *next, bool *also_below)
{
	(void)t;
	struct valkyrie *v = st;
	*next = looked;
	if (!v->probing || !ring_on(v, inst, looked))
		return false;
	uint32_t base, size;
	ring_of(v, inst, &base, &size);
	if (size < 2)
		return false;
	struct gpuvm_tlb_level_stats *s = v->xl->stats;
	uint32_t pos = inst - base;
	uint32_t cw = v->ttl_cw < size - 1 ? v->ttl_cw : size - 1;
	uint32_t ccw = v->ttl_ccw < size - 1 ? v->ttl_ccw : size - 1;
	s->ring_probes += (cw > 0) + (ccw > 0);
	/* the secondary: the shorter-lived probe of the two (one alone when
	 * the other has TTL 0) */
	uint32_t sec = cw && ccw ? (cw < ccw ? cw : ccw) : cw + ccw;
	uint32_t sec_hops = nack_hops(sec, size);
	if (v->queue)
		return probe_queued(v, base, size, pos, cw, ccw, sec, sec_hops, tag, looked, done, fill,
				    next, also_below);
	double nack_at = looked + sec_hops * v->hop;
	uint32_t reach = cw > ccw ? cw : ccw;
	for (uint32_t h = 1; h <= reach; h++) {
		uint32_t id;
		/* clockwise first at equal distance */
		uint32_t c = base + (pos + h) % size, a = base + (pos + size - h) % size;
		uint32_t who = UINT32_MAX;
		double reach_at = looked + h * v->hop;
		if (h <= cw && holds(v, c, tag, reach_at, &id))
			who = c;
		else if (h <= ccw && holds(v, a, tag, reach_at, &id))
			who = a;
		if (who == UINT32_MAX)
			continue;
		return holder_answers(v, who, id, tag, h, looked + 2.0 * h * v->hop, nack_at, sec_hops,
				      done, fill, next, also_below);
	}
	/* nobody within reach: the secondary's NACK sends the request on;
	 * the other probe travels its TTL and is squashed */
	uint32_t other = cw + ccw - sec;
	s->ring_hops += sec_hops + other;
	s->ring_misses++;
	*next = nack_at;
	return false;
}

/* The local side's pick (Baruah et al. PACT'20 3.2, "Request
 * Arbitration"): the local lookups arriving at t are served at t, with any
 * others of that cycle, unless a probe took it; then in the next cycle,
 * the local side's turn of the round-robin however many probes queue
 * (a probe booked there keeps its cycle: the calls come in the
 * simulator's order, and that probe's answer is already computed). */
static double valkyrie_local_port(void *st, uint32_t inst, double t)
{
	struct valkyrie *v = st;
	if (!v->booked || !v->local_share)
		return t;
	uint64_t *cal = &v->booked[(size_t)inst * CAL];
	uint64_t c = (uint64_t)t;
	if (cal[c % CAL] == 2 * (c + 1))
		c++;
	if (cal[c % CAL] >> 1 != c + 1)
		cal[c % CAL] = 2 * (c + 1) + 1;
	return (double)c > t ? (double)c : t;
}

static void valkyrie_on_lookup(void *st, uint32_t inst, uint64_t tag)
{
	struct valkyrie *v = st;
	if (!v->ldt)
		return;
	uint32_t k = ldt_slot(v, tag);
	uint64_t *users = &v->ldt_users[(size_t)k * v->words];
	if (v->ldt_key[k] != tag + 1) { /* a new page takes the slot */
		v->ldt_key[k] = tag + 1;
		memset(users, 0, v->words * sizeof *users);
	}
	users[inst / 64] |= 1ull << (inst % 64);
}

static void valkyrie_on_lower_evict(void *st, uint64_t lower_tag, unsigned lower_shift)
{
	struct valkyrie *v = st;
	if (!v->ldt)
		return;
	unsigned shift = v->xl->spec.shift;
	/* the lower entry's pages at this level's entry size (at most 64 of
	 * them looked up, when the lower level's entries are wider) */
	uint64_t first = lower_shift >= shift ? lower_tag << (lower_shift - shift) : lower_tag >> (shift - lower_shift);
	uint64_t count = lower_shift > shift ? 1ull << (lower_shift - shift) : 1;
	if (count > 64)
		count = 64;
	for (uint64_t tag = first; tag < first + count; tag++) {
		uint32_t k = ldt_slot(v, tag);
		if (v->ldt_key[k] != tag + 1)
			continue;
		if (v->npush == v->push_cap) {
			uint32_t cap = v->push_cap * 2;
			uint64_t *pt = realloc(v->push_tag, cap * sizeof *pt);
			if (!pt)
				return;
			v->push_tag = pt;
			uint64_t *pu = realloc(v->push_users, (size_t)cap * v->words * sizeof *pu);
			if (!pu)
				return;
			v->push_users = pu;
			v->push_cap = cap;
		}
		v->push_tag[v->npush] = tag;
		memcpy(&v->push_users[(size_t)v->npush * v->words], &v->ldt_users[(size_t)k * v->words],
		       v->words * sizeof *v->push_users);
		v->npush++;
		v->ldt_key[k] = 0;
	}
}

static void valkyrie_after_translate(void *st, double t)
{
	struct valkyrie *v = st;
	for (uint32_t p = 0; p < v->npush; p++) {
		const uint64_t *users = &v->push_users[(size_t)p * v->words];
		for (uint32_t i = 0; i < v->n; i++) {
			if (!(users[i / 64] >> (i % 64) & 1))
				continue;
			if (tlb_find(&v->xl->inst[i].tlb, v->push_tag[p]) != TLB_NIL)
				continue;
			xlat_peer_install(v->x, v->l, i, v->push_tag[p], t);
			v->xl->stats->ldt_pushes++;
		}
	}
	v->npush = 0;
}

static const struct xlat_peer_ops ops = {
	.create = valkyrie_create,
	.destroy = valkyrie_destroy,
	.on_lookup = valkyrie_on_lookup,
	.local_port = valkyrie_local_port,
	.on_below_answer = valkyrie_on_below_answer,
	.probe_remote = valkyrie_probe,
	.on_lower_evict = valkyrie_on_lower_evict,
	.after_translate = valkyrie_after_translate,
};

const struct gpuvm_module gpuvm_module_peer_valkyrie = {
	.kind = GPUVM_MODULE_PEER,
	.name = "valkyrie",
	.help = "Valkyrie (Baruah et al.): ring probing within a shader engine + LDT push on L2 eviction",
	.params = params,
	.n_params = N_PARAMS,
	.ops = &ops,
};
