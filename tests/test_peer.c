/* Inter-TLB sharing schemes (src/xlat/peer_*.c) worked by hand on the
 * gem5gpu-neidty preset (seeds/002 Table III: 16 private L1 TLBs of 1
 * cycle, an L2 TLB of 10 cycles, 150-cycle walks), with small TLBs and
 * directories where an eviction must be forced. Times: a request at T
 * finds the L1 lookup done at T+1; a neighbour answers at T+2; an L2 miss
 * costs 10 + 150 more. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gpuvm/config.h"
#include "gpuvm/engine.h"
#include "xlat/peer.h"
#include "xlat/xlat.h"

#define PAGE 4096ull
#define LEFT 4u
#define LOCAL 2u
#define RIGHT 1u
/* Valkyrie probing on every miss, not only while the L2 TLB is slow
 * (test_valkyrie_probe_switch has the switch) */
#define ALWAYS "tlb.peer.valkyrie.probe_threshold_cycles=0"

struct rig {
	struct gpuvm_config cfg;
	struct gpuvm_stats st;
	struct xlat x;
};

/* gem5gpu-neidty with the --set overrides in sets (NULL-terminated). */
static struct rig *rig_new(const char *const *sets)
{
	struct rig *r = calloc(1, sizeof *r);
	struct gpuvm_error err;
	assert_non_null(r);
	assert_int_equal(gpuvm_config_load(&r->cfg, "gem5gpu-neidty", &err), 0);
	for (; sets && *sets; sets++)
		if (gpuvm_config_set(&r->cfg, *sets, "--set", &err))
			fail_msg("%s: %s", *sets, err.msg);
	if (gpuvm_config_finalize(&r->cfg, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(xlat_init(&r->x, &r->cfg, &r->st), 0);
	return r;
}

static void rig_free(struct rig *r)
{
	xlat_free(&r->x);
	gpuvm_stats_release(&r->st);
	free(r);
}

static unsigned rec(struct rig *r, uint32_t inst, uint64_t vpn)
{
	return xlat_neidty_record(r->x.level[0].peer, inst, vpn);
}

static bool holds(struct rig *r, uint32_t inst, uint64_t vpn)
{
	return tlb_find(&r->x.level[0].inst[inst].tlb, vpn) != TLB_NIL;
}

/* Whether the (one, shared) L2 TLB holds vpn. */
static bool holds_l2(struct rig *r, uint64_t vpn)
{
	return tlb_find(&r->x.level[1].inst[0].tlb, vpn) != TLB_NIL;
}

static double tr(struct rig *r, uint32_t sm, uint64_t vpn, double t)
{
	return xlat_translate(&r->x, sm, vpn * PAGE, t);
}

/* A fill of TLB 5 is recorded by directories 4 (right bit) and 6 (left
 * bit), and nowhere else: directory 5 makes no record of its own TLB's
 * page (seeds/002 III.B.2: records are made when "neighboring L1 TLBs add
 * one entry"); with local_records = 1 it does (local bit). When TLB 4
 * then adds the page, directory 5's new record has the left bit and the
 * local bit, TLB 5 holding the page (Fig. 5). */
static void test_neidty_fill(void **state)
{
	(void)state;
	for (int lr = 0; lr < 2; lr++) {
		const char *sets[] = {"tlb.l1.peer=neidty",
				      lr ? "tlb.peer.neidty.local_records=1" : "tlb.peer.neidty.local_records=0",
				      NULL};
		struct rig *r = rig_new(sets);
		tr(r, 5, 100, 0);
		assert_int_equal(rec(r, 5, 100), lr ? LOCAL : 0);
		assert_int_equal(rec(r, 4, 100), RIGHT);
		assert_int_equal(rec(r, 6, 100), LEFT);
		for (uint32_t i = 0; i < 16; i++)
			if (i < 4 || i > 6)
				assert_int_equal(rec(r, i, 100), 0);
		tr(r, 4, 100, 1000);
		assert_int_equal(rec(r, 5, 100), LEFT | LOCAL);
		rig_free(r);
	}
}

/* Why it matters (2-entry directories): directory 5 records TLB 4's page
 * 60 and TLB 6's page 61; TLB 5's own two fills then leave both records
 * (paper) or evict them (local_records = 1, FIFO), and TLB 5's miss on 60
 * is a neighbour hit (2 cycles) or goes to the L2 TLB (TLB 4 walked it). */
static void test_neidty_local_fills_keep_records(void **state)
{
	(void)state;
	for (int lr = 0; lr < 2; lr++) {
		const char *sets[] = {"tlb.l1.peer=neidty", "neidty.entries=2", "neidty.eviction=fifo",
				      lr ? "tlb.peer.neidty.local_records=1" : "tlb.peer.neidty.local_records=0",
				      NULL};
		struct rig *r = rig_new(sets);
		tr(r, 4, 60, 0);
		tr(r, 6, 61, 0);
		tr(r, 5, 62, 0);
		tr(r, 5, 63, 0);
		assert_int_equal(rec(r, 5, 60), lr ? 0 : LEFT);
		assert_int_equal(rec(r, 5, 61), lr ? 0 : RIGHT);
		assert_true(tr(r, 5, 60, 1000) == (lr ? 1000 + 1 + 10 : 1002)); /* L2 TLB hit, or TLB 4 */
		rig_free(r);
	}
}

/* The ring closes: TLB 0's left is 15, TLB 15's right is 0 (seeds/002
 * III.B.1: "The first TLB's left TLB is the last TLB"). */
static void test_neidty_ring_wrap(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.l1.peer=neidty", NULL};
	struct rig *r = rig_new(sets);
	tr(r, 0, 7, 0);
	assert_int_equal(rec(r, 15, 7), RIGHT);
	assert_int_equal(rec(r, 1, 7), LEFT);
	tr(r, 15, 9, 0);
	assert_int_equal(rec(r, 14, 9), RIGHT);
	assert_int_equal(rec(r, 0, 9), LEFT);
	/* and 0 fetches 9 from its left neighbour 15 in one extra cycle */
	double done = tr(r, 0, 9, 10000);
	assert_true(done == 10002);
	assert_int_equal(r->st.tlb[0].remote_hits, 1);
	rig_free(r);
}

/* When TLB 5 evicts a page its neighbours' directories drop their bits
 * (and its own the local bit): a 2-entry L1 evicts page 100 on the third
 * page. */
static void test_neidty_neighbour_eviction(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.l1.peer=neidty", "tlb.l1.entries=2", "tlb.l1.ways=0",
			      "tlb.l1.mshrs=2", NULL};
	struct rig *r = rig_new(sets);
	tr(r, 5, 100, 0);
	tr(r, 5, 101, 1000);
	assert_int_equal(rec(r, 6, 100), LEFT);
	tr(r, 5, 102, 2000);
	assert_false(holds(r, 5, 100));
	assert_int_equal(rec(r, 4, 100), 0);
	assert_int_equal(rec(r, 5, 100), 0);
	assert_int_equal(rec(r, 6, 100), 0);
	assert_int_equal(rec(r, 6, 102), LEFT);
	/* so TLB 6 now goes to the L2 TLB: 100 is still there */
	double done = tr(r, 6, 100, 5000);
	assert_true(done == 5000 + 1 + 10);
	assert_int_equal(r->st.tlb[0].remote_hits, 0);
	rig_free(r);
}

/* Pages 1 and 2^18 fold to the same 18-bit tag: TLB 6's directory says
 * its left holds "1", the left answers that it lacks 2^18, and the
 * request goes to the L2 TLB one neighbour round trip later. */
static void test_neidty_hash_false_hit(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.l1.peer=neidty", NULL};
	struct rig *r = rig_new(sets);
	uint64_t a = 1, b = 1ull << 18;
	tr(r, 5, a, 0);
	assert_int_equal(rec(r, 6, b), LEFT); /* same tag */
	double t = 10000;
	double done = tr(r, 6, b, t);
	assert_int_equal(r->st.tlb[0].directory_hits, 1);
	assert_int_equal(r->st.tlb[0].directory_false_hits, 1);
	assert_int_equal(r->st.tlb[0].remote_hits, 0);
	/* L1 at +1, neighbour's no at +2, L2 lookup +10, walk +150 */
	assert_true(done == t + 2 + 10 + 150);
	/* with full 52-bit tags there is no record, no false hit */
	const char *full[] = {"tlb.l1.peer=neidty", "neidty.tag_bits=52", NULL};
	struct rig *q = rig_new(full);
	tr(q, 5, a, 0);
	assert_int_equal(rec(q, 6, b), 0);
	done = tr(q, 6, b, t);
	assert_true(done == t + 1 + 10 + 150);
	assert_int_equal(q->st.tlb[0].directory_false_hits, 0);
	rig_free(q);
	rig_free(r);
}

/* Both neighbours hold the page: the left one is asked. TLB 5's copy is
 * ready long ago, TLB 7's only at T+11 (filled from the L2 TLB at T). */
static void test_neidty_left_first_and_port(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.l1.peer=neidty", NULL};
	struct rig *r = rig_new(sets);
	tr(r, 5, 300, 0);
	tr(r, 5, 301, 0);
	double t = 10000;
	assert_true(tr(r, 7, 300, t) == t + 11); /* 7: directory has no 300 (6 lacks it) */
	assert_int_equal(rec(r, 6, 300), LEFT | RIGHT);
	assert_true(tr(r, 6, 300, t + 1) == t + 3); /* left: ready; right would be t + 11 */
	/* two requests to the same neighbour port in one cycle: the second waits */
	assert_true(tr(r, 6, 301, t + 1) == t + 4);
	assert_int_equal(r->st.tlb[0].port_waits, 1);
	assert_true(r->st.tlb[0].port_wait_cycles == 1);
	rig_free(r);
}

/* Update policies (seeds/002 III.C, Fig. 7): after a neighbour hit,
 * default keeps a copy, exclusive never does, twice on the second
 * consecutive neighbour hit on the same page. */
static void test_update_policies(void **state)
{
	(void)state;
	static const char *const pol[] = {"neidty.update=default", "neidty.update=exclusive",
					  "neidty.update=twice"};
	for (int p = 0; p < 3; p++) {
		const char *sets[] = {"tlb.l1.peer=neidty", pol[p], NULL};
		struct rig *r = rig_new(sets);
		tr(r, 5, 40, 0);
		tr(r, 5, 41, 0);
		tr(r, 6, 40, 1000);
		assert_int_equal(r->st.tlb[0].remote_hits, 1);
		assert_int_equal(holds(r, 6, 40), p == 0);
		if (p == 0) {
			assert_int_equal(rec(r, 7, 40), LEFT); /* the copy is snooped */
			rig_free(r);
			continue;
		}
		tr(r, 6, 41, 1100); /* another page in between: the row breaks */
		tr(r, 6, 40, 1200);
		assert_false(holds(r, 6, 40));
		tr(r, 6, 40, 1300); /* second in a row */
		assert_int_equal(holds(r, 6, 40), p == 2);
		assert_int_equal(r->st.tlb[0].remote_hits, 4);
		assert_int_equal(r->st.tlb[0].remote_fills, p == 2 ? 1 : 0);
		rig_free(r);
	}
}

/* twice's "accessed twice in a row" (III.C, Fig. 7c) counts the local
 * TLB's neighbour hits only: a local hit and a directory miss (served by
 * the L2 TLB / a walk) in between keep the row, and the L2 TLB never sees
 * a neighbour hit (its lookups stay as they were). Times: 5 fills 40 by
 * 161; 6's first neighbour hit at 1000 is back at 1002 without a copy;
 * 6's miss on 99 at 1100 walks (ready 1261) and hits locally at 1400; the
 * second neighbour hit on 40 at 1500 keeps the copy. */
static void test_twice_row_counts_neighbour_hits_only(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.l1.peer=neidty", "neidty.update=twice", NULL};
	struct rig *r = rig_new(sets);
	const struct xlat_instance *l2 = &r->x.level[1].inst[0]; /* the one L2 TLB */
	tr(r, 5, 40, 0);
	uint64_t l2_lookups = l2->hits + l2->misses;
	assert_true(tr(r, 6, 40, 1000) == 1002);
	assert_false(holds(r, 6, 40));
	assert_int_equal(l2->hits + l2->misses, l2_lookups); /* no L2 TLB lookup */
	assert_true(tr(r, 6, 99, 1100) == 1100 + 1 + 10 + 150); /* directory miss: walk */
	assert_true(tr(r, 6, 99, 1400) == 1401);                /* local hit */
	assert_true(tr(r, 6, 40, 1500) == 1502);                /* second neighbour hit in a row */
	assert_true(holds(r, 6, 40));
	assert_int_equal(r->st.tlb[0].remote_hits, 2);
	assert_int_equal(r->st.tlb[0].remote_fills, 1);
	assert_int_equal(l2->hits + l2->misses, l2_lookups + 1); /* only 99's miss */
	rig_free(r);
}

/* Directory replacement with 2 entries: directory 5 records 60 (left bit,
 * oldest) then 61 (TLB 6's, right bit, and TLB 5 holds it: local bit); a
 * third record evicts 60 under fifo, 61 under local-first. */
static void test_directory_eviction(void **state)
{
	(void)state;
	for (int lf = 0; lf < 2; lf++) {
		const char *sets[] = {"tlb.l1.peer=neidty", "neidty.entries=2",
				      lf ? "neidty.eviction=local-first" : "neidty.eviction=fifo", NULL};
		struct rig *r = rig_new(sets);
		tr(r, 4, 60, 0);
		tr(r, 5, 61, 0);
		tr(r, 6, 61, 0);
		tr(r, 6, 62, 0);
		assert_int_equal(rec(r, 5, 62), RIGHT);
		assert_int_equal(rec(r, 5, 60), lf ? LEFT : 0);
		assert_int_equal(rec(r, 5, 61), lf ? 0 : RIGHT | LOCAL);
		rig_free(r);
	}
}

/* Valkyrie's ring (Baruah et al. PACT'20 3.2: 16 TLBs, TTL 15 clockwise /
 * 4 counter-clockwise; section 4: 1 cycle a hop): the nearest holder
 * answers, 2 hops per distance; the secondary's NACK (8 hops) sends the
 * request to the L2 TLB, so a holder only the primary reaches (more than
 * 4 away) races the L2 TLB, which looks the page up (and walks) anyway. */
static void test_valkyrie_probe_order(void **state)
{
	(void)state;
	/* the ring's timing alone: many probes at one t, no queueing */
	const char *sets[] = {"tlb.l1.peer=valkyrie", "valkyrie.ldt=off", ALWAYS,
			      "tlb.peer.valkyrie.probe_queue=0", NULL};
	struct rig *r = rig_new(sets);
	double t = 10000;
	/* page 1 in TLB 3 (clockwise 3) and 14 (counter-clockwise 2) */
	xlat_peer_install(&r->x, 0, 3, 1, 0);
	xlat_peer_install(&r->x, 0, 14, 1, 0);
	assert_true(tr(r, 0, 1, t) == t + 1 + 4);
	assert_int_equal(r->st.tlb[0].ring_hops, 4);
	assert_true(holds(r, 0, 1)); /* kept */
	/* page 2 only 10 clockwise (6 counter-clockwise is past TTL 4): the
	 * ring answers first (20 hops), but the NACK at 8 hops has sent the
	 * request to the L2 TLB, which walks and keeps the page */
	xlat_peer_install(&r->x, 0, 10, 2, 0);
	assert_false(holds_l2(r, 2));
	uint64_t walks = r->x.walks;
	assert_true(tr(r, 0, 2, t) == t + 1 + 20);
	assert_true(holds_l2(r, 2));
	assert_int_equal(r->x.walks - walks, 1);
	/* page 6 3 clockwise: home (6 hops) before the NACK, no L2 request */
	xlat_peer_install(&r->x, 0, 3, 6, 0);
	walks = r->x.walks;
	assert_true(tr(r, 0, 6, t) == t + 1 + 6);
	assert_false(holds_l2(r, 6));
	assert_int_equal(r->x.walks - walks, 0);
	/* the ring wraps: TLB 15's clockwise neighbour is 0 */
	xlat_peer_install(&r->x, 0, 1, 3, 0);
	assert_true(tr(r, 15, 3, t) == t + 1 + 4);
	/* equal distance: clockwise first (TLB 2's copy ready, 14's late) */
	xlat_peer_install(&r->x, 0, 2, 4, 0);
	xlat_peer_install(&r->x, 0, 14, 4, t + 500);
	assert_true(tr(r, 0, 4, t) == t + 1 + 4);
	/* nobody: the counter-clockwise NACK is home after 8 hops and sends
	 * the request to the L2 TLB; the clockwise probe dies after 15 */
	uint64_t hops = r->st.tlb[0].ring_hops;
	assert_true(tr(r, 0, 5, t) == t + 1 + 8 + 10 + 150);
	assert_int_equal(r->st.tlb[0].ring_hops - hops, 8 + 15);
	assert_int_equal(r->st.tlb[0].ring_misses, 1);
	assert_int_equal(r->st.tlb[0].remote_hits, 5);
	rig_free(r);
}

/* The probe queue (Baruah et al. PACT'20 3.2, "Request Arbitration"), 2
 * entries here: TLB 1 holds pages 100-102 and TLB 0 misses on all three
 * at one t. The first probe is looked up at TLB 1 on arrival (t+2, home
 * t+3); the second waits a cycle behind it (home t+4); the third finds
 * two waiting, is passed on unlooked and misses the whole ring, so the
 * NACK sends it to the L2 TLB and it walks. Without the queue all three
 * are home at t+3. */
static void test_valkyrie_probe_queue(void **state)
{
	(void)state;
	for (int q = 0; q < 2; q++) {
		const char *sets[] = {"tlb.l1.peer=valkyrie", "valkyrie.ldt=off", ALWAYS,
				      q ? "tlb.peer.valkyrie.probe_queue=2" : "tlb.peer.valkyrie.probe_queue=0",
				      NULL};
		struct rig *r = rig_new(sets);
		double t = 10000;
		for (uint64_t p = 100; p <= 102; p++)
			xlat_peer_install(&r->x, 0, 1, p, 0);
		uint64_t walks = r->x.walks;
		assert_true(tr(r, 0, 100, t) == t + 3);
		assert_true(tr(r, 0, 101, t) == (q ? t + 4 : t + 3));
		assert_true(tr(r, 0, 102, t) == (q ? t + 1 + 8 + 10 + 150 : t + 3));
		assert_int_equal(r->x.walks - walks, q ? 1 : 0);
		assert_int_equal(r->st.tlb[0].ring_misses, q ? 1 : 0);
		assert_int_equal(r->st.tlb[0].remote_hits, q ? 2 : 3);
		rig_free(r);
	}
}

/* The round-robin between the local CU and the ring (Baruah et al.
 * PACT'20 3.2, "Request Arbitration"): TLB 1's port serves one pick a
 * cycle, the two sides alternating while both wait. TLB 0's probe for page 100 reaches TLB 1 at t+2; when TLB 1's
 * own lookups took cycle t+2 it is looked up at t+3 (home t+4, not t+3).
 * The other way round: a probe that took cycle t+2 puts TLB 1's local hit
 * at t+2 off to t+3 (done t+4, not t+3). local_share = 0: neither waits. */
static void test_valkyrie_local_share(void **state)
{
	(void)state;
	for (int on = 0; on < 2; on++) {
		const char *sets[] = {"tlb.l1.peer=valkyrie", "valkyrie.ldt=off", ALWAYS,
				      on ? "tlb.peer.valkyrie.local_share=1" : "tlb.peer.valkyrie.local_share=0",
				      NULL};
		struct rig *r = rig_new(sets);
		double t = 10000;
		xlat_peer_install(&r->x, 0, 1, 100, 0);
		xlat_peer_install(&r->x, 0, 1, 101, 0);
		/* local first: TLB 1 hits at t+2, then TLB 0's probe arrives */
		assert_true(tr(r, 1, 100, t + 2) == t + 3);
		assert_true(tr(r, 0, 100, t) == (on ? t + 4 : t + 3));
		/* the probe first, in a later window: TLB 1's local hit waits */
		t = 20000;
		assert_true(tr(r, 0, 101, t) == t + 3);
		assert_true(tr(r, 1, 101, t + 2) == (on ? t + 4 : t + 3));
		/* two local lookups of one cycle share its pick */
		assert_true(tr(r, 1, 100, t + 10) == t + 11);
		assert_true(tr(r, 1, 101, t + 10) == t + 11);
		/* round-robin, not first come first served: four probes queue at
		 * TLB 1 for t+2..t+5, and its local hit at t+2 waits one cycle
		 * (the local side's turn), not behind all four */
		t = 30000;
		for (uint64_t p = 110; p <= 114; p++)
			xlat_peer_install(&r->x, 0, 1, p, 0);
		for (uint64_t p = 110; p <= 113; p++)
			assert_true(tr(r, 0, p, t) == t + 3 + (p - 110));
		assert_true(tr(r, 1, 110, t + 2) == (on ? t + 4 : t + 3));
		/* and a probe passes one local pick, not two in a row: TLB 1's
		 * own lookups took t+2 and t+3; the probe takes t+3 */
		t = 40000;
		assert_true(tr(r, 1, 110, t + 2) == t + 3);
		assert_true(tr(r, 1, 111, t + 3) == t + 4);
		assert_true(tr(r, 0, 114, t) == (on ? t + 4 : t + 3));
		assert_int_equal(r->st.tlb[0].remote_hits, 7);
		rig_free(r);
	}
}

/* The probing switch (Baruah et al. PACT'20 3.2, "Frequency of
 * Inter-L1-TLB Communication"): a TLB probes only while the running mean
 * latency of its requests to the L2 TLB is above 150 cycles. TLB 1 holds
 * pages 100-103. TLB 0 has no answer yet: its miss on 100 walks (10 +
 * 150 cycles, latency 160); so does its miss on 101 before that answer is
 * home; once it is, the miss on 102 is a ring hit. TLB 2's one answer is
 * an L2 TLB hit (10 cycles), below the threshold: its miss on 103 walks.
 * With the threshold at 0 every miss probes and finds TLB 1. */
static void test_valkyrie_probe_switch(void **state)
{
	(void)state;
	for (int sw = 0; sw < 2; sw++) {
		const char *sets[] = {"tlb.l1.peer=valkyrie", "valkyrie.ldt=off",
				      sw ? "tlb.peer.valkyrie.probe_threshold_cycles=150" : ALWAYS, NULL};
		struct rig *r = rig_new(sets);
		double t = 10000;
		for (uint64_t p = 100; p <= 103; p++)
			xlat_peer_install(&r->x, 0, 1, p, 0);
		assert_true(tr(r, 0, 100, t) == (sw ? t + 1 + 10 + 150 : t + 3));
		assert_true(tr(r, 0, 101, t + 100) == (sw ? t + 100 + 161 : t + 103));
		assert_true(tr(r, 0, 102, t + 200) == t + 203);
		/* page 100 is in the L2 TLB (switch on) or TLB 0 (off) */
		assert_true(tr(r, 2, 100, t + 300) == (sw ? t + 311 : t + 303));
		assert_true(tr(r, 2, 103, t + 400) == (sw ? t + 400 + 161 : t + 403));
		assert_int_equal(r->st.tlb[0].remote_hits, sw ? 1 : 5);
		rig_free(r);
	}
}

/* The LDT (probing off): TLBs 3 and 7 use page 1; when the 2-entry L2 TLB
 * evicts it, it is pushed back into 3, which had lost it, and not into 7,
 * which still has it. */
static void test_valkyrie_ldt(void **state)
{
	(void)state;
	for (int on = 0; on < 2; on++) {
		const char *sets[] = {"tlb.l1.peer=valkyrie", "valkyrie.probing=off",
				      on ? "valkyrie.ldt=on" : "valkyrie.ldt=off", "tlb.l1.entries=2",
				      "tlb.l1.ways=0", "tlb.l1.mshrs=2", "tlb.l2.entries=2",
				      "tlb.l2.ways=0", "tlb.l2.mshrs=2", NULL};
		struct rig *r = rig_new(sets);
		tr(r, 3, 1, 0);
		tr(r, 7, 1, 1000);
		tr(r, 3, 2, 2000);
		tr(r, 3, 3, 3000); /* L1 3 drops 1; the L2 TLB drops 1 */
		assert_int_equal(r->st.tlb[0].ldt_pushes, on ? 1 : 0);
		assert_int_equal(holds(r, 3, 1), on);
		assert_true(holds(r, 7, 1));
		rig_free(r);
	}
}

/* The analysis: holders per lookup (Fig. 3) and neighbour correlation
 * (Tables I-II) on a hand-made sequence. */
static void test_sharing_analysis(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.sharing_analysis=on", NULL};
	struct rig *r = rig_new(sets);
	tr(r, 0, 1, 0);    /* 0 holders; TLB 0 misses, no neighbour */
	tr(r, 1, 1, 1000); /* 1 holder; TLB 1 misses, left (0) holds */
	tr(r, 1, 1, 2000); /* 2 holders (0, 1): a local hit */
	tr(r, 8, 1, 3000); /* 2 holders; TLB 8 misses, neighbours lack it */
	tr(r, 15, 1, 4000); /* 3 holders; TLB 15 misses, right (0) holds */
	const struct gpuvm_tlb_sharing_stats *sh = &r->st.tlb_sharing;
	assert_true(sh->enabled);
	assert_int_equal(sh->holders[0], 1);
	assert_int_equal(sh->holders[1], 1);
	assert_int_equal(sh->holders[2], 3);
	assert_int_equal(sh->local_misses[1], 1);
	assert_int_equal(sh->neighbour_held[1], 1);
	assert_int_equal(sh->local_misses[8], 1);
	assert_int_equal(sh->neighbour_held[8], 0);
	assert_int_equal(sh->neighbour_held[15], 1);
	assert_int_equal(sh->neighbour_held[0], 0);
	rig_free(r);
}

/* tlb.l1_in_flight = miss (the preset: gem5-gpu's ShaderTLB): a lookup
 * of a page whose fill is still out is a miss, not a pending hit; it asks
 * the L2 TLB, which merges it into the walk in flight. With merge it is a
 * pending hit of the L1 TLB. */
static void test_in_flight_lookup(void **state)
{
	(void)state;
	const char *const modes[] = {"tlb.l1_in_flight=miss", "tlb.l1_in_flight=merge"};
	for (int m = 0; m < 2; m++) {
		const char *sets[] = {modes[m], NULL};
		struct rig *r = rig_new(sets);
		assert_true(tr(r, 3, 50, 0) == 1 + 10 + 150); /* L1, L2 TLB, walk */
		assert_true(tr(r, 3, 50, 10) == 161);          /* same page, fill out */
		assert_true(tr(r, 3, 50, 1000) == 1001);       /* filled: a hit */
		xlat_sync_stats(&r->x);
		const struct gpuvm_tlb_level_stats *l1 = &r->st.tlb[0], *l2 = &r->st.tlb[1];
		assert_int_equal(l1->misses, m == 0 ? 2 : 1);
		assert_int_equal(l1->pending_hits, m == 0 ? 0 : 1);
		assert_int_equal(l2->pending_hits, m == 0 ? 1 : 0);
		rig_free(r);
	}
}

/* With tlb.l1_in_flight = miss the directories hear of a fill when it is
 * done: TLB 1 looking up the page TLB 0 is still filling goes to the L2
 * TLB; once TLB 1 has it, TLB 2 gets it from its left neighbour. With
 * merge, TLB 1 waits for its neighbour's fill. */
static void test_neidty_hears_filled_entries(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.l1.peer=neidty", NULL};
	struct rig *r = rig_new(sets);
	tr(r, 0, 70, 0);
	assert_int_equal(rec(r, 1, 70), LEFT);
	assert_true(tr(r, 1, 70, 10) == 161); /* merged in the L2 TLB's walk */
	assert_int_equal(r->st.tlb[0].directory_hits, 0);
	assert_int_equal(r->st.tlb[0].remote_hits, 0);
	assert_true(tr(r, 2, 70, 2000) == 2002);
	assert_int_equal(r->st.tlb[0].remote_hits, 1);
	rig_free(r);
	const char *merge[] = {"tlb.l1.peer=neidty", "tlb.l1_in_flight=merge", NULL};
	r = rig_new(merge);
	tr(r, 0, 70, 0);
	assert_true(tr(r, 1, 70, 10) == 161); /* from the left, when filled */
	assert_int_equal(r->st.tlb[0].remote_hits, 1);
	rig_free(r);
}

/* Valkyrie's probe finds only filled copies under tlb.l1_in_flight =
 * miss: TLB 1's neighbour 0 is still filling page 80, so both probes
 * come home empty (the NACK after 8 hops) before the L2 TLB, which merges it into the
 * walk; with merge the counter-clockwise probe finds 0's copy. */
static void test_valkyrie_filled_copies(void **state)
{
	(void)state;
	const char *sets[] = {"tlb.l1.peer=valkyrie", "valkyrie.ldt=off", ALWAYS, NULL};
	struct rig *r = rig_new(sets);
	assert_true(tr(r, 0, 80, 0) == 1 + 8 + 10 + 150); /* a ring miss first */
	assert_true(tr(r, 1, 80, 10) == 169);
	assert_int_equal(r->st.tlb[0].ring_misses, 2); /* both lookups */
	assert_int_equal(r->st.tlb[0].remote_hits, 0);
	rig_free(r);
	const char *merge[] = {"tlb.l1.peer=valkyrie", "valkyrie.ldt=off", ALWAYS, "tlb.l1_in_flight=merge",
			       NULL};
	r = rig_new(merge);
	assert_true(tr(r, 0, 80, 0) == 1 + 8 + 10 + 150); /* a ring miss first */
	assert_true(tr(r, 1, 80, 10) == 169);
	assert_int_equal(r->st.tlb[0].ring_misses, 1); /* the first only */
	assert_int_equal(r->st.tlb[0].remote_hits, 1);
	rig_free(r);
}

/* peer = none keeps the fast path (unless tlb.l1_in_flight = miss, which
 * only the slow path models); an unknown scheme names the key. */
/* tlb.peer_read_lru: TLB 4 (4 entries) fills 70, 71, 72, 73; TLB 5 reads 70
 * from it (NeiDty: directory 5's left bit; Valkyrie: 1 hop
 * counter-clockwise) without keeping a copy (exclusive; Valkyrie keeps one
 * in TLB 5, not 4); then TLB 4 fills 74. keep: 70 is still TLB 4's LRU entry
 * and goes; touch: the read made it MRU, so 71 goes (gem5-gpu's
 * TLBMemory::lookup sets MRU). */
static void test_peer_read_lru(void **state)
{
	(void)state;
	static const char *const scheme[] = {"tlb.l1.peer=neidty", "tlb.l1.peer=valkyrie"};
	for (int sc = 0; sc < 2; sc++)
		for (int touch = 0; touch < 2; touch++) {
			const char *sets[] = {scheme[sc], "neidty.update=exclusive", "valkyrie.ldt=off", ALWAYS,
					      "tlb.l1.entries=4", "tlb.l1.ways=4",
					      touch ? "tlb.peer_read_lru=touch" : "tlb.peer_read_lru=keep", NULL};
			struct rig *r = rig_new(sets);
			for (uint64_t p = 70; p < 74; p++)
				tr(r, 4, p, 0);
			double t = tr(r, 5, 70, 5000);
			assert_true(t < 5000 + 10); /* a neighbour / ring hit, not the L2 TLB */
			assert_int_equal(r->st.tlb[0].remote_hits, 1);
			tr(r, 4, 74, 6000);
			assert_int_equal(holds(r, 4, 70), touch);
			assert_int_equal(holds(r, 4, 71), !touch);
			rig_free(r);
		}
}

/* gem5-gpu bounds TLB misses only by its walkers (shader_tlb.cc: no MSHRs;
 * shader_mmu.cc: unbounded queues), and so does the preset: 64 misses of
 * distinct pages at once from one SM wait for no MSHR, only for the 8
 * walkers, 8 rounds of 150 cycles: the last is back near 1 + 10 + 8 x 150
 * = 1211 (the walkers' pool is a capacity calendar, exact to a slot). */
static void test_misses_bounded_by_walkers_only(void **state)
{
	(void)state;
	struct rig *r = rig_new(NULL);
	double last = 0;
	for (uint64_t k = 0; k < 64; k++) {
		double t = tr(r, 0, 1000 + k, 0);
		last = t > last ? t : last;
	}
	assert_true(last >= 1211 - 150 && last <= 1211 + 150);
	xlat_sync_stats(&r->x);
	assert_true(r->st.tlb[0].mshr_wait_cycles == 0);
	assert_true(r->st.tlb[1].mshr_wait_cycles == 0);
	assert_true(r->st.walk_queue_cycles > 0); /* the wait is at the walkers */
	rig_free(r);
}

static void test_config_of_schemes(void **state)
{
	(void)state;
	const char *merge[] = {"tlb.l1_in_flight=merge", NULL};
	struct rig *r = rig_new(merge);
	assert_false(r->x.spec.slow);
	rig_free(r);
	r = rig_new(NULL);
	assert_true(r->x.spec.slow);
	rig_free(r);
	struct gpuvm_config cfg;
	struct gpuvm_error err;
	assert_int_equal(gpuvm_config_load(&cfg, "p100", &err), 0); /* sets no scheme key */
	assert_int_equal(gpuvm_config_set(&cfg, "tlb.l1.peer=neidy", "--set", &err), 0);
	assert_int_not_equal(gpuvm_config_finalize(&cfg, &err), 0);
	assert_non_null(strstr(err.msg, "tlb.l1.peer"));
	assert_non_null(strstr(err.msg, "neidty, valkyrie"));
	assert_int_not_equal(gpuvm_config_set(&cfg, "neidty.update=thrice", "--set", &err), 0);
}

/* A shared TLB level answers in the order requests reach it, not in the
 * order of their times. SM 0 misses page 100 at T = 1000 and the shared
 * L2 TLB records the fill for 1161 (1 + 10 + 150 later); SM 1's request
 * for the same page at T = 500, handled after it, then finds that entry
 * and waits for a fill its own request came before, 1161 instead of its
 * own walk's 661. Found on p100 (docs/scoping.md, "The compiled sampling
 * loop"): deeper per-warp queues make it common, and part of Fig. 1a's
 * p100 cliff is this wait. A known miss until the model orders a shared
 * level's requests by time: printed, and a failure with
 * GPUVM_FIDELITY_STRICT=1. */
/* Requests reach a shared level out of time order: SM 0's miss at 1000
 * is handled before SM 1's at 500. SM 1's lookup comes first in simulated
 * time, so it misses and walks; it does not wait for the fill SM 0 asked
 * for later. Both paths: the fast one (in-flight entries merge) and the
 * schemes' (gem5-gpu's in-flight miss). */
static void future_fill(const char *in_flight, const char *future)
{
	const char *sets[] = {"tlb.l1.peer=none", in_flight, future, NULL};
	bool peek = strcmp(future, "tlb.future_fill=peek") == 0;
	struct rig *r = rig_new(sets);
	assert_int_equal(r->x.spec.slow, strcmp(in_flight, "tlb.l1_in_flight=miss") == 0);
	double a = tr(r, 0, 100, 1000);
	double b = tr(r, 1, 100, 500);
	double own = 500 + 1 + 10 + 150; /* SM 1's own L1 and L2 miss and walk */
	print_message("future fill: SM 0 at 1000 done %.1f; SM 1 at 500 done %.1f (own walk: %.1f)\n",
		      a, b, own);
	assert_true(a >= 1000 + 1 + 10 + 150 - 0.5 && a <= 1000 + 1 + 10 + 150 + 0.5);
	/* neither before its own walk could end nor at the later fill */
	assert_true(b >= own - 0.5 && b <= own + 0.5);
	/* walk: SM 1 books a walk of its own, so the pair walks twice;
	 * peek: it reads the walkers' calendar and books none, one walk per
	 * page as in time order */
	assert_int_equal(r->x.walks, peek ? 1 : 2);
	/* the shared entry keeps the earlier fill: SM 2 at 600 merges into
	 * SM 1's (661), not SM 0's (1161) */
	double c = tr(r, 2, 100, 600);
	assert_true(c >= own - 0.5 && c <= own + 0.5);
	assert_int_equal(r->x.walks, peek ? 1 : 2);
	rig_free(r);
}

static void test_shared_level_future_fill(void **state)
{
	(void)state;
	future_fill("tlb.l1_in_flight=merge", "tlb.future_fill=walk");
	future_fill("tlb.l1_in_flight=miss", "tlb.future_fill=walk");
	future_fill("tlb.l1_in_flight=merge", "tlb.future_fill=peek");
	future_fill("tlb.l1_in_flight=miss", "tlb.future_fill=peek");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neidty_fill),
		cmocka_unit_test(test_neidty_local_fills_keep_records),
		cmocka_unit_test(test_neidty_ring_wrap),
		cmocka_unit_test(test_neidty_neighbour_eviction),
		cmocka_unit_test(test_neidty_hash_false_hit),
		cmocka_unit_test(test_neidty_left_first_and_port),
		cmocka_unit_test(test_update_policies),
		cmocka_unit_test(test_twice_row_counts_neighbour_hits_only),
		cmocka_unit_test(test_directory_eviction),
		cmocka_unit_test(test_valkyrie_probe_order),
		cmocka_unit_test(test_valkyrie_probe_queue),
		cmocka_unit_test(test_valkyrie_local_share),
		cmocka_unit_test(test_valkyrie_probe_switch),
		cmocka_unit_test(test_valkyrie_ldt),
		cmocka_unit_test(test_sharing_analysis),
		cmocka_unit_test(test_in_flight_lookup),
		cmocka_unit_test(test_neidty_hears_filled_entries),
		cmocka_unit_test(test_valkyrie_filled_copies),
		cmocka_unit_test(test_peer_read_lru),
		cmocka_unit_test(test_misses_bounded_by_walkers_only),
		cmocka_unit_test(test_config_of_schemes),
		cmocka_unit_test(test_shared_level_future_fill),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
