/* The per-sector access path of the DRAM model (mem/dram_model.h), inline
 * so that the engine's load path takes it without a call: the address
 * decode, the calendars' common cases, one sector through its bank and
 * its channel's bus. The calendar rule is cal_reserve_at in dram_model.c;
 * dram_cal_reserve below is the same rule with only long ring advances
 * passed to dram_cal_reserve_slow, with the same start and the same
 * calendar after it, bit for bit (tests/test_dram_model.c checks both
 * against a plain reference). */
#ifndef GPUVM_DRAM_ACCESS_H
#define GPUVM_DRAM_ACCESS_H

#include "mem/dram_model.h"

/* Bus slots are 32 bursts, each request one burst, so the count is exact. */
#define DRAM_BUS_SLOT_BURSTS 32u

/* Longest advance the fast path clears itself (slot by slot); longer ones
 * go to the slow path, which clears them with memset. */
#define DRAM_FAST_ADVANCE_SLOTS 8

/* How many of a slot's next slots a request whose own slot is full looks
 * at before it skips to the frontier, its own slot included (the frontier
 * is right for requests in order; an early one handled late may find
 * room sooner). */
#define DRAM_LOOKAHEAD_SLOTS 4

/* The calendar rule in full (cal_reserve_at, dram_model.c), out of line:
 * what dram_cal_reserve leaves, and the reference the tests compare it
 * with. The start, in cycles. */
double dram_cal_reserve_slow(struct dram_cal *c, uint16_t *used, uint32_t mask, double t,
			     double inv_slot, double quantum, uint32_t cap, uint32_t hold);

/* x's index below n (x mod n, permuted by a hash of x / n) and *hi = x / n.
 * Within each group of n consecutive x the result is a permutation, so an
 * interleave stays balanced, and the hash moves groups apart so that
 * power-of-two strides spread. */
static inline uint32_t dram_spread(uint64_t x, uint32_t n, uint32_t pow2, uint32_t shift,
				   uint64_t *hi)
{
	uint64_t h;
	uint32_t low;
	if (pow2) {
		h = x >> shift;
		low = (uint32_t)(x & (n - 1));
	} else {
		h = x / n;
		low = (uint32_t)(x - h * n);
	}
	*hi = h;
	/* Fibonacci hashing: the top 32 bits of h * 2^64/phi, scaled to [0, n) */
	uint32_t mix = (uint32_t)((h * 0x9E3779B97F4A7C15ull) >> 32);
	uint32_t add = (uint32_t)(((uint64_t)mix * n) >> 32);
	if (pow2)
		return low ^ add;
	low += add;
	return low >= n ? low - n : low;
}

/* dram_model_locate, forced inline (gcc otherwise calls it out of line,
 * ~20 more instructions a sector) */
static inline __attribute__((always_inline)) void dram_locate(const struct dram_model_spec *s,
							      uint64_t addr, uint32_t *channel,
							      uint32_t *bank, uint64_t *row)
{
	uint64_t group, row_hi;
	uint64_t chunk = addr >> s->interleave_shift;
	*channel = dram_spread(chunk, s->channels, s->channel_pow2, s->channel_shift, &group);
	/* the channel's own address space: its chunks back to back */
	uint64_t local = (group << s->interleave_shift) |
			 (addr & (((uint64_t)1 << s->interleave_shift) - 1));
	*bank = dram_spread(local >> s->row_shift, s->banks, s->bank_pow2, s->bank_shift, &row_hi);
	*row = row_hi;
}

static inline struct dram_bank *dram_bank_at(const struct dram_model *m, size_t i)
{
	return (struct dram_bank *)(m->bank + i * m->spec.bank_stride);
}

/* One request of hold units on calendar c (ring used[mask + 1], slots of
 * 1 / inv_slot cycles and cap units, quantum cycles per unit) arriving at
 * t: its start. cal_reserve_at's rule, step for step, but for an advance
 * of the ring by more than DRAM_FAST_ADVANCE_SLOTS (it clears them with
 * memset), which goes to dram_cal_reserve_slow:
 *  - the own slot is in the ring and has room: start at t;
 *  - it lies a few slots past newest: the ring advances to it (the slots
 *    passed start empty), start at t;
 *  - it is full: the next slots are looked at (unless they lie in the
 *    known-full run), else the request queues at the frontier after the
 *    scan of full slots;
 *  - it is older than the ring (a saturated bank's queue reaches further
 *    back than the ring): taken as arriving at the oldest slot.
 * A queued request that finds no room up to newest takes newest + 1 (the
 * frontier is never past newest + 1, and the lookahead stops at the
 * first slot past newest), so the ring then advances by exactly one. */
static inline __attribute__((always_inline)) double
dram_cal_reserve(struct dram_cal *c, uint16_t *used, uint32_t mask, double t, double inv_slot,
		 double quantum, uint32_t cap, uint32_t hold)
{
	int64_t s = (int64_t)(t * inv_slot);
	int64_t newest = c->newest;
	int64_t q;
	uint16_t *u;
	/* one unsigned compare for newest - mask <= s <= newest */
	if ((uint64_t)(newest - s) <= mask) {
		u = used + ((uint32_t)s & mask);
		if (*u < cap) {
			*u = (uint16_t)(*u + hold);
			return t;
		}
		/* the lookahead inside the known-full run: straight to the
		 * frontier (where the look would end) */
		if (s >= c->full_from && s + DRAM_LOOKAHEAD_SLOTS - 1 < c->frontier)
			goto to_frontier;
		for (q = s + 1; q < s + DRAM_LOOKAHEAD_SLOTS; q++) {
			if (q > newest)
				goto advance_one;
			u = used + ((uint32_t)q & mask);
			if (*u < cap)
				goto queued;
		}
	} else if (s > newest) {
		if (s - newest > DRAM_FAST_ADVANCE_SLOTS)
			return dram_cal_reserve_slow(c, used, mask, t, inv_slot, quantum, cap, hold);
		for (int64_t j = newest + 1; j < s; j++)
			used[(uint32_t)j & mask] = 0;
		used[(uint32_t)s & mask] = (uint16_t)hold;
		c->newest = s;
		return t;
	} else {
		/* older than the ring: as if arriving at its oldest slot */
		s = newest - (int64_t)mask;
		q = s;
		u = used + ((uint32_t)s & mask);
		if (*u < cap)
			goto queued;
	}
to_frontier:;
	/* a full queue: it runs at least to the frontier */
	int64_t f = c->frontier;
	if (s > f)
		c->full_from = s; /* the scan starts a new known-full run */
	q = s < f ? f : s;
	while (q <= newest && used[(uint32_t)q & mask] >= cap)
		q++;
	c->frontier = q;
	if (q > newest)
		goto advance_one;
	u = used + ((uint32_t)q & mask);
queued:;
	uint32_t behind = *u;
	*u = (uint16_t)(behind + hold);
	return ((double)q * cap + behind) * quantum;
advance_one:
	/* q = newest + 1: the ring advances by one slot, which starts empty */
	used[(uint32_t)q & mask] = (uint16_t)hold;
	c->newest = q;
	return ((double)q * cap + 0u) * quantum;
}

/* Whether channel d's bus is a drain's at t (write-drain mode). */
static inline bool dram_drain_covers(const struct dram_drain *d, double t)
{
	return t >= d->hold_from && t < d->hold_until;
}

/* Write-drain mode before the bus, for n sectors of channel ch whose data
 * is ready for it at *ready: a write that comes after reads leaves the
 * bus to its batch's drain (true: counted in deferred, the caller takes
 * no burst); a read whose data would cross during a drain crosses after
 * it (*ready moved, counted in reads_held and held_cycles). false and
 * nothing changed without the mode. */
static inline __attribute__((always_inline)) bool
dram_drain_before_bus(struct dram_model *m, uint32_t ch, bool write, uint32_t n, double *ready)
{
	if (__builtin_expect(!m->spec.drain_hold, 1))
		return false;
	struct dram_drain *d = &m->drain[ch];
	if (write) {
		if (!d->reads)
			return false;
		d->deferred += n;
		return true;
	}
	if (dram_drain_covers(d, *ready)) {
		m->reads_held++;
		m->held_cycles += d->hold_until - *ready;
		*ready = d->hold_until;
	}
	return false;
}

/* One sector through its bank and its channel's bus: when its data has
 * crossed the bus (latency_cycles not included). Sets *ch_out and
 * *bank_out to where it went. spacing: how far apart a chunk's sectors
 * cross (m->spec.column_cycles for a read, whose warp waits for the last;
 * m->spec.burst_cycles for a write, which the controller drains in batches,
 * free to interleave bank groups, and no one waits for). write: in
 * write-drain mode (m->spec.drain_hold) a write that comes after reads leaves
 * the bus to its batch's drain (dram_drain_writes; one with no read since
 * the last drain takes its burst at once, as a controller with no read
 * to serve sends writes) and a read waits out a drain it meets. */
static inline __attribute__((always_inline)) double
dram_access_sector(struct dram_model *m, uint64_t addr, double t, uint32_t *ch_out,
		   struct dram_bank **bank_out, double spacing, bool write)
{
	uint32_t ch, b;
	uint64_t row;
	uint64_t chunk = addr >> m->spec.interleave_shift;
	if (chunk == m->last_chunk && m->spec.chunk_locates) {
		ch = m->last_channel;
		b = m->last_bank;
		row = m->last_row;
	} else {
		dram_locate(&m->spec, addr, &ch, &b, &row);
		if (m->spec.chunk_locates) {
			m->last_chunk = chunk;
			m->last_channel = ch;
			m->last_bank = b;
			m->last_row = row;
		}
	}
	struct dram_bank *bank = dram_bank_at(m, (size_t)ch * m->spec.banks + b);
	uint16_t *bank_used = (uint16_t *)(bank + 1);
	*ch_out = ch;
	*bank_out = bank;
	m->channel_sectors[ch]++;
	double ready;
	if ((bank->open_row & ~DRAM_ROW_PRECHARGED) == row + 1) {
		m->row_hits++;
		/* column commands pipeline (tCCD ~ one burst); the data cannot
		 * leave before the row it reads is open */
		double start = dram_cal_reserve(&bank->cal, bank_used, m->spec.bank_mask, t,
						m->spec.bank_inv_slot, m->spec.bank_quantum, m->spec.bank_cap,
						m->spec.hit_hold);
		/* the row was opened for a later request handled first: this
		 * earlier one is the row's real opener */
		if (start < bank->row_act_at)
			bank->row_act_at = start;
		double open = (bank->open_row & DRAM_ROW_PRECHARGED ? m->spec.t_rp_cycles : 0) +
			      m->spec.t_rcd_cycles;
		double open_at = bank->row_act_at + open;
		ready = (start > open_at ? start : open_at) + m->spec.t_cas_cycles;
	} else {
		m->row_misses++;
		/* a slot's worth at most: one row cycle */
		int pre = bank->open_row != 0;
		double open = (pre ? m->spec.t_rp_cycles : 0) + m->spec.t_rcd_cycles;
		double start = dram_cal_reserve(&bank->cal, bank_used, m->spec.bank_mask, t,
						m->spec.bank_inv_slot, m->spec.bank_quantum, m->spec.bank_cap,
						pre ? m->spec.miss_hold_pre : m->spec.miss_hold_cold);
		bank->open_row = (row + 1) | (pre ? DRAM_ROW_PRECHARGED : 0);
		bank->row_act_at = start;
		ready = start + open + m->spec.t_cas_cycles;
	}
	double done;
	if (dram_drain_before_bus(m, ch, write, 1, &ready))
		done = ready + m->spec.burst_cycles; /* the bus is its drain's */
	else
		done = dram_cal_reserve(&m->bus[ch], m->bus_ring + (size_t)ch * (m->spec.bus_mask + 1),
					m->spec.bus_mask, ready, m->spec.bus_inv_slot, m->spec.burst_cycles,
					DRAM_BUS_SLOT_BURSTS, 1) +
		       m->spec.burst_cycles;
	/* the next sector of the chunk the last access read (the sector
	 * after it, not a chunk's first), arriving with it or after (one
	 * coalesced load's sectors, each on its own path): the bus carries
	 * one burst at a time, so its burst follows that one's, whatever
	 * room the calendar's slot had; a read's column commands, to one
	 * bank group, no closer than tCCD_L (spacing) */
	if (addr == m->serial_next && (addr & ((1ull << m->spec.interleave_shift) - 1)) &&
	    t >= m->serial_t && done < m->serial_done + spacing)
		done = m->serial_done + spacing;
	m->serial_next = addr + m->spec.sector_bytes;
	m->serial_t = t;
	m->serial_done = done;
	return done;
}

/* n writes of channel ch whose data crossed the bus by done (in
 * write-drain mode: was ready to by done), into the channel's write queue
 * (dram_drain): each full batch drained after reads turns the bus around,
 * its idle reserved on the bus from done; in write-drain mode the batch's
 * bursts too, and reads wait for both (dram_model.c; only with
 * turnaround: m->drain set). */
void dram_drain_writes(struct dram_model *m, uint32_t ch, uint32_t n, double done);

/* dram_model_read, inline */
static inline __attribute__((always_inline)) double dram_read_sector(struct dram_model *m,
								   uint64_t addr, double t)
{
	uint32_t ch;
	struct dram_bank *bank;
	m->sectors_read++;
	double done = dram_access_sector(m, addr, t, &ch, &bank, m->spec.column_cycles, false);
	if (__builtin_expect(m->drain != NULL, 0))
		m->drain[ch].reads = 1;
	return done + m->spec.latency_cycles;
}

/* dram_model_write (= dram_model_write_run of one sector), inline: when
 * its data has crossed the bus */
static inline __attribute__((always_inline)) double dram_write_sector(struct dram_model *m,
								    uint64_t addr, double t)
{
	uint32_t ch;
	struct dram_bank *bank;
	m->sectors_written++;
	double done = dram_access_sector(m, addr, t, &ch, &bank, m->spec.burst_cycles, true);
	if (__builtin_expect(m->drain != NULL, 0))
		dram_drain_writes(m, ch, 1, done);
	return done;
}

#endif
