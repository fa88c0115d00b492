#include "mem/dram_model.h"
#include "gpuvm/number.h"
#include "mem/dram_access.h"
#include "core/spec_seal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_INTERLEAVE_BYTES 256u
#define DEFAULT_SECTOR_BYTES 32u
#define DEFAULT_BUS_RING 1024u
#define DEFAULT_BANK_RING 256u

static int is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

static uint32_t log2_u32(uint32_t x)
{
	uint32_t s = 0;
	while ((1u << s) < x)
		s++;
	return s;
}

void dram_model_locate(const struct dram_model_spec *s, uint64_t addr, uint32_t *channel,
		       uint32_t *bank, uint64_t *row)
{
	dram_locate(s, addr, channel, bank, row);
}

/* Bank slot counts in 1/BANK_QUANTA of a row cycle: a power of two, so a
 * quantum is an exact fraction of the slot, as large as a 16-bit count
 * allows with room for a full slot plus one more hold (a slot takes
 * requests while below capacity, so it may end up to one hold over):
 * 2 x 16384 < 65536. Rounding a row hit's hold (P100: 2.07 of 62.1 cycles,
 * 546 quanta) to whole quanta moves it by at most half a quantum, 0.1 %. */
#define BANK_QUANTA 16384u
#define CACHE_LINE 64u
#define MAX_RING 32768u /* ring indices and clears stay within uint32 / a count */

static size_t record_bytes(size_t head, uint32_t ring)
{
	size_t n = head + (size_t)ring * sizeof(uint16_t);
	return (n + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
}

static uint32_t quanta(double fraction_of_slot)
{
	double q = fraction_of_slot * BANK_QUANTA + 0.5;
	if (q < 1)
		return 1; /* every access takes some bank time */
	return q > BANK_QUANTA ? BANK_QUANTA : (uint32_t)q;
}

int dram_model_init(struct dram_model *m, const struct dram_model_config *cfg)
{
	uint32_t interleave = cfg->interleave_bytes ? cfg->interleave_bytes : DEFAULT_INTERLEAVE_BYTES;
	uint32_t sector = cfg->sector_bytes ? cfg->sector_bytes : DEFAULT_SECTOR_BYTES;
	uint32_t bus_ring = cfg->bus_ring_slots ? cfg->bus_ring_slots : DEFAULT_BUS_RING;
	uint32_t bank_ring = cfg->bank_ring_slots ? cfg->bank_ring_slots : DEFAULT_BANK_RING;
	m->spec_seal = 0; /* not built (yet): free checks nothing */
	m->bus = NULL;
	m->drain = NULL;
	m->bus_ring = NULL;
	m->bank = NULL;
	m->channel_sectors = NULL;
	if (!cfg->channels || !cfg->banks || !is_pow2(interleave) || !is_pow2(cfg->row_bytes) ||
	    !is_pow2(sector) || !is_pow2(bus_ring) || !is_pow2(bank_ring) || bus_ring > MAX_RING ||
	    bank_ring > MAX_RING || !(cfg->cycles_per_sector_per_channel > 0) ||
	    !(cfg->t_rcd_cycles >= 0) || !(cfg->t_rp_cycles >= 0) || !(cfg->t_cas_cycles >= 0) ||
	    !(cfg->latency_cycles >= 0) || !(cfg->service_fraction >= 0) ||
	    cfg->service_fraction > 1 || !(cfg->bus_service_fraction >= 0) ||
	    cfg->bus_service_fraction > 1 || !(cfg->turnaround_cycles >= 0) ||
	    !(cfg->t_ccd_l_cycles >= 0))
		return -1;
	memset(&m->spec, 0, sizeof m->spec); /* padding too: core/spec_seal.h */
	m->spec.channels = cfg->channels;
	m->spec.banks = cfg->banks;
	m->spec.channel_pow2 = (uint32_t)is_pow2(cfg->channels);
	m->spec.bank_pow2 = (uint32_t)is_pow2(cfg->banks);
	m->spec.channel_shift = m->spec.channel_pow2 ? log2_u32(cfg->channels) : 0;
	m->spec.bank_shift = m->spec.bank_pow2 ? log2_u32(cfg->banks) : 0;
	m->spec.interleave_shift = log2_u32(interleave);
	m->spec.row_shift = log2_u32(cfg->row_bytes);
	m->spec.chunk_locates = m->spec.row_shift >= m->spec.interleave_shift;
	m->last_chunk = UINT64_MAX; /* none yet (and never taken without chunk_locates) */
	m->serial_next = UINT64_MAX; /* no access yet */
	m->serial_t = m->serial_done = 0;
	m->spec.t_rcd_cycles = cfg->t_rcd_cycles;
	m->spec.t_rp_cycles = cfg->t_rp_cycles;
	m->spec.t_cas_cycles = cfg->t_cas_cycles;
	m->spec.burst_cycles = cfg->cycles_per_sector_per_channel;
	m->spec.column_cycles = cfg->t_ccd_l_cycles > m->spec.burst_cycles ? cfg->t_ccd_l_cycles : m->spec.burst_cycles;
	m->spec.sector_bytes = sector;
	m->spec.latency_cycles = cfg->latency_cycles;
	m->sectors_read = m->sectors_written = m->row_hits = m->row_misses = 0;
	m->turnarounds = m->reads_held = 0;
	m->held_cycles = 0;
	/* the turnaround in bursts of the bus (whose burst may include the
	 * all-bank refresh's share: the idle is real time, so it is divided
	 * by the same service fraction as the burst) */
	m->spec.write_batch = cfg->turnaround_cycles > 0 ? cfg->write_batch_sectors : 0;
	m->spec.drain_hold = m->spec.write_batch && cfg->drain_hold;
	m->spec.drain_group = cfg->drain_group_channels > 1 ? cfg->drain_group_channels : 1;
	m->spec.turn_bursts = m->spec.write_batch ? cfg->turnaround_cycles /
						  (cfg->cycles_per_sector_per_channel *
						   (cfg->bus_service_fraction > 0
							    ? cfg->bus_service_fraction
							    : cfg->service_fraction > 0 ? cfg->service_fraction : 1))
					: 0;

	/* one row cycle (an open-row miss: t_rp + t_rcd + t_cas), so a slot
	 * takes one row miss or that much time of row hits; never below one
	 * burst (a row hit's hold) */
	m->spec.row_cycle_cycles = m->spec.t_rp_cycles + m->spec.t_rcd_cycles + m->spec.t_cas_cycles;
	if (m->spec.row_cycle_cycles < m->spec.burst_cycles)
		m->spec.row_cycle_cycles = m->spec.burst_cycles;
	/* refresh: a bank serves only service_fraction f of the time, so a
	 * slot (one row miss of service) lasts row_cycle / f: each hold keeps
	 * its share of a slot and takes 1 / f of its timing out of the time,
	 * while an isolated access still starts at its arrival and keeps its
	 * latency. The burst came in divided by f (the bus refreshes too), so
	 * a row hit's share of the slot is its unrefreshed burst's. */
	double serve = cfg->service_fraction > 0 ? cfg->service_fraction : 1;
	double slot_cycles = m->spec.row_cycle_cycles / serve;
	m->spec.bank_inv_slot = 1 / slot_cycles;
	m->spec.bank_quantum = slot_cycles / BANK_QUANTA;
	m->spec.bank_cap = BANK_QUANTA;
	/* per-bank refresh: the burst came unrefreshed (the bus serves all
	 * the time), so a row hit's share is its burst over the row cycle */
	m->spec.hit_hold = cfg->bus_service_fraction > 0
			      ? quanta(m->spec.burst_cycles * cfg->bus_service_fraction / m->spec.row_cycle_cycles)
			      : quanta(m->spec.burst_cycles * m->spec.bank_inv_slot);
	double row_share = 1 / m->spec.row_cycle_cycles;
	m->spec.miss_hold_cold = quanta((m->spec.t_rcd_cycles + m->spec.t_cas_cycles) * row_share);
	m->spec.miss_hold_pre = quanta((m->spec.t_rp_cycles + m->spec.t_rcd_cycles + m->spec.t_cas_cycles) * row_share);
	/* (1 / burst) / 32: scaling by a power of two is exact, so the slot of
	 * a time is the one the burst count puts it in */
	m->spec.bus_inv_slot = (1 / m->spec.burst_cycles) / DRAM_BUS_SLOT_BURSTS;
	m->spec.bus_mask = bus_ring - 1;
	m->spec.bank_mask = bank_ring - 1;
	m->spec.bank_stride = record_bytes(sizeof(struct dram_bank), bank_ring);
	m->spec_seal = spec_seal(&m->spec, sizeof m->spec);

	size_t nbanks = (size_t)cfg->channels * cfg->banks;
	/* zeroed records: no row open, newest = frontier = slot 0, rings empty */
	size_t bus_ring_bytes = record_bytes(0, cfg->channels * bus_ring);
	m->bus = calloc(cfg->channels, sizeof *m->bus);
	m->bus_ring = aligned_alloc(CACHE_LINE, bus_ring_bytes);
	m->bank = aligned_alloc(CACHE_LINE, nbanks * m->spec.bank_stride);
	m->channel_sectors = calloc(cfg->channels, sizeof *m->channel_sectors);
	if (m->spec.write_batch)
		m->drain = calloc(cfg->channels, sizeof *m->drain);
	if (!m->bus || !m->bus_ring || !m->bank || !m->channel_sectors ||
	    (m->spec.write_batch && !m->drain)) {
		dram_model_free(m);
		return -1;
	}
	memset(m->bus_ring, 0, bus_ring_bytes);
	memset(m->bank, 0, nbanks * m->spec.bank_stride);
	return 0;
}

bool dram_model_spec_intact(const struct dram_model *m)
{
	return m->spec_seal == spec_seal(&m->spec, sizeof m->spec);
}

void dram_model_free(struct dram_model *m)
{
	spec_seal_verify(m->spec_seal, spec_seal(&m->spec, sizeof m->spec), "dram_model");
	free(m->bus);
	free(m->bus_ring);
	free(m->bank);
	free(m->channel_sectors);
	free(m->drain);
	m->drain = NULL;
	m->bus = NULL;
	m->bus_ring = NULL;
	m->bank = NULL;
	m->channel_sectors = NULL;
}

#define LOOKAHEAD_SLOTS DRAM_LOOKAHEAD_SLOTS /* mem/dram_access.h */

/* A reservation of hold units (at most cap, a whole slot) on calendar c
 * with ring used[mask + 1], for a request arriving at t: charged whole to
 * the slot it starts in, so a slot takes exactly as much server time as it
 * has, whatever order requests come in. A request whose own slot has room
 * starts at its arrival; one queued into a later slot starts after the
 * time already taken in that slot, so a queue through full slots is
 * served one hold after another. The start, in cycles (quantum: cycles
 * per unit). The same starts as server_pool_reserve after a look at the
 * next slots, with holds kept inside their slot (what the module did
 * before its calendars were packed), up to the units' rounding. */
static inline __attribute__((always_inline)) double
cal_reserve_at(struct dram_cal *c, uint16_t *used, uint32_t mask, double t, double inv_slot,
	       double quantum, uint32_t cap, uint32_t hold, int64_t *q_out)
{
	int64_t newest = c->newest;
	int64_t oldest = newest - (int64_t)mask;
	int64_t s = (int64_t)(t * inv_slot);
	int64_t q;
	if (s >= oldest) {
		/* slots past newest are empty */
		if (s > newest || used[(uint32_t)s & mask] < cap) {
			q = s;
			goto take_own;
		}
		/* the lookahead inside the known-full run: straight to the
		 * frontier (where the look would end) */
		if (s >= c->full_from && s + LOOKAHEAD_SLOTS - 1 < c->frontier)
			goto to_frontier;
		for (q = s + 1; q < s + LOOKAHEAD_SLOTS; q++)
			if (q > newest || used[(uint32_t)q & mask] < cap)
				goto take_queued;
	} else {
		/* older than the ring: as if arriving at its oldest slot */
		s = oldest;
		if (used[(uint32_t)s & mask] < cap) {
			q = s;
			goto take_queued;
		}
	}
to_frontier:
	/* a full queue: it runs at least to the frontier */
	if (s > c->frontier)
		c->full_from = s; /* the walk below starts a new known-full run */
	q = s < c->frontier ? c->frontier : s;
	while (q <= newest && used[(uint32_t)q & mask] >= cap)
		q++;
	c->frontier = q;

take_queued:;
	uint32_t behind = q > newest ? 0 : used[(uint32_t)q & mask];
	double start = ((double)q * cap + behind) * quantum;
	if (q > newest)
		goto advance;
	used[(uint32_t)q & mask] = (uint16_t)(behind + hold);
	*q_out = q;
	return start;

take_own:
	start = t;
	if (q <= newest) {
		used[(uint32_t)q & mask] = (uint16_t)(used[(uint32_t)q & mask] + hold);
		*q_out = q;
		return start;
	}
advance:
	/* the ring moves on to q: the slots it gives up to newest + 1 .. q
	 * start empty */
	if ((uint64_t)(q - newest) > mask) {
		memset(used, 0, ((size_t)mask + 1) * sizeof *used);
	} else if (q - newest > 8) {
		/* a long gap: the ring's slots newest + 1 .. q - 1, in at
		 * most two runs (q's own slot is set below) */
		uint32_t from = (uint32_t)(newest + 1) & mask, n = (uint32_t)(q - newest - 1);
		uint32_t first = n < mask + 1 - from ? n : mask + 1 - from;
		memset(used + from, 0, first * sizeof *used);
		memset(used, 0, (n - first) * sizeof *used);
	} else {
		for (int64_t j = newest + 1; j < q; j++)
			used[(uint32_t)j & mask] = 0;
	}
	used[(uint32_t)q & mask] = (uint16_t)hold;
	c->newest = q;
	*q_out = q;
	return start;
}

double dram_cal_reserve_slow(struct dram_cal *c, uint16_t *used, uint32_t mask, double t,
			     double inv_slot, double quantum, uint32_t cap, uint32_t hold)
{
	int64_t q;
	return cal_reserve_at(c, used, mask, t, inv_slot, quantum, cap, hold, &q);
}

/* A run of hold units (unit each, as many separate requests arriving at
 * t) reserved at once: when its last unit starts. Taken in its own slot
 * with room, every unit starts at t, as separate requests would; queued,
 * the units follow one another from the run's start. What a run puts in
 * a slot past its capacity spills into the next slots (a second
 * reservation at the next slot's start), so a run never gives a slot more
 * time than it has, as separate requests would not (but for the last
 * one's part). */
static inline __attribute__((always_inline)) double
cal_reserve_run(struct dram_cal *c, uint16_t *used, uint32_t mask, double t, double inv_slot,
		double quantum, uint32_t cap, uint32_t hold, uint32_t unit)
{
	int64_t q;
	double start = cal_reserve_at(c, used, mask, t, inv_slot, quantum, cap, hold, &q);
	uint32_t u = used[(uint32_t)q & mask];
	if (u <= cap)
		return start == t ? t : start + (double)(hold - unit) * quantum;
	/* the overflow goes to the next slot(s) */
	uint32_t over = u - cap;
	used[(uint32_t)q & mask] = (uint16_t)cap;
	double next = (double)(q + 1) * cap * quantum;
	double start2 = cal_reserve_at(c, used, mask, next, inv_slot, quantum, cap,
				       over, &q);
	return start2 + (double)(over > unit ? over - unit : 0) * quantum;
}

/* n sectors of one interleave chunk arriving together at t: the first as
 * access_sector, the other k = n - 1 as one run of row hits behind it in
 * the same bank (the first left its row open) and k bursts on the same
 * bus: one bank and one bus reservation for the run, charged whole to the
 * slot it starts in. Where a slot had room, that is what k separate
 * sectors got (each started at its arrival); queued, the run's last
 * column read and burst come k - 1 holds after the run's start, as the
 * last of k separate sectors queued one behind another did. When the
 * last sector's data has crossed the bus. */
static inline __attribute__((always_inline)) double access_run(struct dram_model *m,
								uint64_t addr, uint32_t n,
								double t, uint32_t *ch_out,
								double spacing, bool write)
{
	uint32_t ch;
	struct dram_bank *bank;
	double done = dram_access_sector(m, addr, t, &ch, &bank, spacing, write);
	*ch_out = ch;
	if (n <= 1)
		return done;
	if (!m->spec.chunk_locates) {
		/* rows shorter than a chunk: the sectors may lie in two rows */
		for (uint32_t i = 1; i < n; i++) {
			double d = dram_access_sector(m, addr + (uint64_t)i * m->spec.sector_bytes, t, &ch,
						      &bank, spacing, write);
			if (d > done)
				done = d;
		}
		return done;
	}
	uint32_t k = n - 1;
	m->row_hits += k;
	m->channel_sectors[ch] += k;
	uint32_t hold = k * m->spec.hit_hold;
	if (hold > m->spec.bank_cap)
		hold = m->spec.bank_cap; /* a slot's worth at most */
	double last = cal_reserve_run(&bank->cal, (uint16_t *)(bank + 1), m->spec.bank_mask, t,
				      m->spec.bank_inv_slot, m->spec.bank_quantum, m->spec.bank_cap, hold,
				      m->spec.hit_hold);
	double open = (bank->open_row & DRAM_ROW_PRECHARGED ? m->spec.t_rp_cycles : 0) + m->spec.t_rcd_cycles;
	double open_at = bank->row_act_at + open;
	double ready = (last > open_at ? last : open_at) + m->spec.t_cas_cycles;
	uint32_t bursts = k < DRAM_BUS_SLOT_BURSTS ? k : DRAM_BUS_SLOT_BURSTS;
	double run_done;
	if (dram_drain_before_bus(m, ch, write, k, &ready))
		run_done = ready + m->spec.burst_cycles; /* the bus is its drain's */
	else
		run_done = cal_reserve_run(&m->bus[ch],
					   m->bus_ring + (size_t)ch * (m->spec.bus_mask + 1), m->spec.bus_mask,
					   ready, m->spec.bus_inv_slot, m->spec.burst_cycles,
					   DRAM_BUS_SLOT_BURSTS, bursts, 1) +
			   m->spec.burst_cycles;
	/* the bus carries one burst at a time: however much room the
	 * calendar's slot had, the run's last sector crosses k bursts after
	 * the first (the slot's fluid accounting keeps the rate, this the
	 * order; dram_access_sector does the same for sectors one by one),
	 * or k column-to-column delays (tCCD_L) where those are longer */
	double serial = done + (double)k * spacing;
	if (run_done < serial)
		run_done = serial;
	m->serial_next = addr + (uint64_t)n * m->spec.sector_bytes;
	m->serial_done = run_done;
	return run_done;
}

double dram_model_read(struct dram_model *m, uint64_t addr, double t)
{
	return dram_read_sector(m, addr, t);
}

double dram_model_write(struct dram_model *m, uint64_t addr, double t)
{
	return dram_write_sector(m, addr, t);
}

double dram_model_read_run(struct dram_model *m, uint64_t addr, uint32_t n, double t)
{
	uint32_t ch;
	m->sectors_read += n;
	double done = access_run(m, addr, n, t, &ch, m->spec.column_cycles, false);
	if (m->drain)
		m->drain[ch].reads = 1;
	return done + m->spec.latency_cycles;
}

double dram_model_write_run(struct dram_model *m, uint64_t addr, uint32_t n, double t)
{
	uint32_t ch;
	m->sectors_written += n;
	double done = access_run(m, addr, n, t, &ch, m->spec.burst_cycles, true);
	if (m->drain)
		dram_drain_writes(m, ch, n, done);
	return done;
}

/* n bursts on channel ch's bus from t, reserved in pieces of at most a
 * slot from t (what does not fit a slot spills into the next, as a run's
 * bursts do: the time is never lost in a full slot): when the last one
 * has crossed. The bus carries one burst at a time, so that is n bursts
 * after t at the earliest, however much room the calendar's slots had
 * (their fluid accounting keeps the rate, this the order, as
 * access_run's serial bound). */
static double bus_take(struct dram_model *m, uint32_t ch, double t, uint32_t n)
{
	uint16_t *ring = m->bus_ring + (size_t)ch * (m->spec.bus_mask + 1);
	double end = t + (double)n * m->spec.burst_cycles;
	while (n) {
		uint32_t h = n < DRAM_BUS_SLOT_BURSTS ? n : DRAM_BUS_SLOT_BURSTS;
		double last = cal_reserve_run(&m->bus[ch], ring, m->spec.bus_mask, t, m->spec.bus_inv_slot,
					      m->spec.burst_cycles, DRAM_BUS_SLOT_BURSTS, h, 1) +
			      m->spec.burst_cycles;
		if (last > end)
			end = last;
		n -= h;
	}
	return end;
}

/* One channel's part of a drain at done: nothing unless reads came since
 * its last one (its writes went at once); else the turnaround, and in
 * write-drain mode its deferred writes before it, with the hold. */
static void drain_channel(struct dram_model *m, uint32_t ch, double done)
{
	struct dram_drain *d = &m->drain[ch];
	if (!d->reads)
		return;
	d->reads = 0;
	m->turnarounds++;
	double owed = m->spec.turn_bursts + d->carry;
	uint32_t whole = (uint32_t)owed;
	d->carry = owed - whole;
	double at = done;
	if (m->spec.drain_hold) {
		/* after a drain still under way */
		if (dram_drain_covers(d, at))
			at = d->hold_until;
		at = bus_take(m, ch, at, d->deferred);
		d->deferred = 0;
	}
	double end = bus_take(m, ch, at, whole);
	if (m->spec.drain_hold) {
		if (!(done >= d->hold_from && done <= d->hold_until))
			d->hold_from = done;
		d->hold_until = end;
	}
}

/* Read/write turnaround as a memory controller pays it: writes wait in a
 * write queue (the L2's write-backs need no answer) and go out in
 * batches, so the bus turns from reads to writes and back once per batch,
 * not once per write (DRAMsim3 src/controller.cc and Ramulator 2's
 * generic controller drain their write buffers between watermarks the
 * same way). Each batch after which reads had come costs the bus
 * turn_bursts of idle (write-to-read: tWTR_S, then the read's tCAS before
 * its data; read-to-write: the data bus's gap), reserved on the channel's
 * bus calendar after the batch's last write, in whole bursts with the
 * fraction carried to the next drain. A write-only or read-only stream
 * never turns.
 *
 * Without drain_hold the writes keep the bus times they took at their
 * arrivals: the calendar counts the bus's time, not its order, and no
 * read waits for a drain. With it, the controller's write-drain mode: a
 * controller serves reads first and sends writes while no read waits,
 * but once reads keep coming the write queue fills and is drained in one
 * piece, no read served until it is done (DRAMsim3's and Ramulator 2's
 * controllers switch to writes at a high watermark and back at a low
 * one). Writes that came after reads took no bus time at arrival
 * (d->deferred); the turned batch's drain takes their bursts here in one
 * piece from done (the batch's fill), then the turnaround's idle, and a
 * read whose data would cross from done until both are over crosses after
 * them (dram_drain_before_bus). Back-to-back drains hold as one; a drain
 * with no read since the last one holds nothing (its writes went at
 * once).
 *
 * A controller that serves several channels (drain_group) keeps one write
 * queue for them: their writes count together, and when the group's
 * batches are full every channel of the group drains at the same time, so
 * a warp's loads spread over the group's channels meet one drain, not one
 * each. */
void dram_drain_writes(struct dram_model *m, uint32_t ch, uint32_t n, double done)
{
	/* the controller's queue: the channel's own, or its group's, counted
	 * in the group's first record */
	uint32_t first = ch, count = 1;
	if (m->spec.drain_group > 1) {
		first = ch / m->spec.drain_group * m->spec.drain_group;
		count = m->spec.channels - first < m->spec.drain_group ? m->spec.channels - first : m->spec.drain_group;
	}
	struct dram_drain *q = &m->drain[first];
	uint64_t batch = (uint64_t)m->spec.write_batch * count;
	q->writes += n;
	while (q->writes >= batch) {
		q->writes -= (uint32_t)batch;
		for (uint32_t c = first; c < first + count; c++)
			drain_channel(m, c, done);
	}
}

double dram_cycles_per_sector_per_channel(uint32_t sector_bytes, double clock_hz,
					  double peak_bandwidth_bytes_per_s, uint32_t channels)
{
	return (double)sector_bytes * clock_hz / (peak_bandwidth_bytes_per_s / channels);
}

double dram_command_to_sm_cycles(double dram_cycles, double dram_clock_mhz, double sm_clock_mhz)
{
	return dram_cycles * sm_clock_mhz / dram_clock_mhz;
}

int dram_timing_from_accelsim(const char *opt, double dram_clock_mhz, double sm_clock_mhz,
			      double *t_rcd_cycles, double *t_rp_cycles, double *t_cas_cycles)
{
	/* nbk:CCD:RRD:RCD:RAS:RP:RC:CL: RCD, RP and CL are fields 3, 5, 7 from 0 */
	double field[8];
	const char *p = opt;
	if (!opt || !(dram_clock_mhz > 0) || !(sm_clock_mhz > 0))
		return -1;
	for (int i = 0; i < 8; i++) {
		const char *end;
		double v;
		if (gpuvm_scan_double(p, &end, 0, HUGE_VAL, &v))
			return -1;
		field[i] = v;
		if (i < 7) {
			if (*end != ':')
				return -1;
			p = end + 1;
		} else if (*end != ':' && *end != '\0') {
			return -1;
		}
	}
	*t_rcd_cycles = dram_command_to_sm_cycles(field[3], dram_clock_mhz, sm_clock_mhz);
	*t_rp_cycles = dram_command_to_sm_cycles(field[5], dram_clock_mhz, sm_clock_mhz);
	*t_cas_cycles = dram_command_to_sm_cycles(field[7], dram_clock_mhz, sm_clock_mhz);
	return 0;
}
