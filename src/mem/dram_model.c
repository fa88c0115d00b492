#include "mem/dram_model.h"

#include <errno.h>
#include <stdlib.h>

#define DEFAULT_INTERLEAVE_BYTES 256u
#define DEFAULT_SECTOR_BYTES 32u
#define DEFAULT_BUS_RING 1024u
#define DEFAULT_BANK_RING 256u
/* Calendars count time in units of their natural hold, so slot lengths
 * are powers of two and a slot's start maps back to its own slot exactly
 * (server_pool computes slots as time * (1 / slot_cycles)): the bus in
 * bursts, 32 to a slot; a bank in row cycles, one to a slot. */
#define BUS_SLOT_BURSTS 32.0

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

/* x's index below n (x mod n, permuted by a hash of x / n) and *hi = x / n.
 * Within each group of n consecutive x the result is a permutation, so an
 * interleave stays balanced, and the hash moves groups apart so that
 * power-of-two strides spread. */
static inline uint32_t spread(uint64_t x, uint32_t n, uint32_t pow2, uint32_t shift,
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

void dram_model_locate(const struct dram_model *m, uint64_t addr, uint32_t *channel,
		       uint32_t *bank, uint64_t *row)
{
	uint64_t group, row_hi;
	uint64_t chunk = addr >> m->interleave_shift;
	*channel = spread(chunk, m->channels, m->channel_pow2, m->channel_shift, &group);
	/* the channel's own address space: its chunks back to back */
	uint64_t local = (group << m->interleave_shift) |
			 (addr & (((uint64_t)1 << m->interleave_shift) - 1));
	*bank = spread(local >> m->row_shift, m->banks, m->bank_pow2, m->bank_shift, &row_hi);
	*row = row_hi;
}

int dram_model_init(struct dram_model *m, const struct dram_model_config *cfg)
{
	uint32_t interleave = cfg->interleave_bytes ? cfg->interleave_bytes : DEFAULT_INTERLEAVE_BYTES;
	uint32_t sector = cfg->sector_bytes ? cfg->sector_bytes : DEFAULT_SECTOR_BYTES;
	uint32_t bus_ring = cfg->bus_ring_slots ? cfg->bus_ring_slots : DEFAULT_BUS_RING;
	uint32_t bank_ring = cfg->bank_ring_slots ? cfg->bank_ring_slots : DEFAULT_BANK_RING;
	m->bus = NULL;
	m->bank = NULL;
	m->channel_sectors = NULL;
	if (!cfg->channels || !cfg->banks || !is_pow2(interleave) || !is_pow2(cfg->row_bytes) ||
	    !is_pow2(sector) || !is_pow2(bus_ring) || !is_pow2(bank_ring) ||
	    !(cfg->cycles_per_sector_per_channel > 0) || !(cfg->t_rcd_cycles >= 0) ||
	    !(cfg->t_rp_cycles >= 0) || !(cfg->t_cas_cycles >= 0) || !(cfg->latency_cycles >= 0))
		return -1;
	m->channels = cfg->channels;
	m->banks = cfg->banks;
	m->channel_pow2 = (uint32_t)is_pow2(cfg->channels);
	m->bank_pow2 = (uint32_t)is_pow2(cfg->banks);
	m->channel_shift = m->channel_pow2 ? log2_u32(cfg->channels) : 0;
	m->bank_shift = m->bank_pow2 ? log2_u32(cfg->banks) : 0;
	m->interleave_shift = log2_u32(interleave);
	m->row_shift = log2_u32(cfg->row_bytes);
	m->t_rcd_cycles = cfg->t_rcd_cycles;
	m->t_rp_cycles = cfg->t_rp_cycles;
	m->t_cas_cycles = cfg->t_cas_cycles;
	m->burst_cycles = cfg->cycles_per_sector_per_channel;
	m->latency_cycles = cfg->latency_cycles;
	m->sectors_read = m->sectors_written = m->row_hits = m->row_misses = 0;

	size_t nbanks = (size_t)cfg->channels * cfg->banks;
	m->bus = calloc(cfg->channels, sizeof *m->bus);
	m->bank = calloc(nbanks, sizeof *m->bank);
	m->channel_sectors = calloc(cfg->channels, sizeof *m->channel_sectors);
	if (!m->bus || !m->bank || !m->channel_sectors) {
		dram_model_free(m);
		return -1;
	}
	m->inv_burst = 1 / m->burst_cycles;
	/* one row cycle (an open-row miss: t_rp + t_rcd + t_cas), so a slot
	 * takes one row miss or that much time of row hits; never below one
	 * burst (a row hit's hold) */
	m->row_cycle_cycles = m->t_rp_cycles + m->t_rcd_cycles + m->t_cas_cycles;
	if (m->row_cycle_cycles < m->burst_cycles)
		m->row_cycle_cycles = m->burst_cycles;
	m->inv_row_cycle = 1 / m->row_cycle_cycles;
	m->hit_hold = m->burst_cycles * m->inv_row_cycle;
	for (uint32_t c = 0; c < cfg->channels; c++)
		if (server_pool_init(&m->bus[c], 1, BUS_SLOT_BURSTS, bus_ring)) {
			dram_model_free(m);
			return -1;
		}
	for (size_t b = 0; b < nbanks; b++)
		if (server_pool_init(&m->bank[b].busy, 1, 1, bank_ring)) {
			dram_model_free(m);
			return -1;
		}
	return 0;
}

void dram_model_free(struct dram_model *m)
{
	if (m->bus)
		for (uint32_t c = 0; c < m->channels; c++)
			server_pool_free(&m->bus[c]); /* free(NULL) for those never set up */
	if (m->bank)
		for (size_t b = 0; b < (size_t)m->channels * m->banks; b++)
			server_pool_free(&m->bank[b].busy);
	free(m->bus);
	free(m->bank);
	free(m->channel_sectors);
	m->bus = NULL;
	m->bank = NULL;
	m->channel_sectors = NULL;
}

/* The first of t's slot and the next LOOKAHEAD_SLOTS - 1 with room, as a
 * time to ask the pool for, or t when none has (or t is older than the
 * ring): then the pool sends the request to the end of the queue. The pool
 * alone would skip from a full slot straight to the last slot a scan found
 * open, right when requests come in order (the slots between are full),
 * but when a later request was handled first it may skip open slots. */
#define LOOKAHEAD_SLOTS 4

static inline double first_open(const struct server_pool *p, double tu)
{
	int64_t s = (int64_t)(tu * p->inv_slot);
	if (s < p->newest - (int64_t)p->mask)
		return tu;
	for (int64_t j = s; j < s + LOOKAHEAD_SLOTS; j++) {
		const struct pool_slot *e = &p->slot[(uint32_t)j & p->mask];
		if (e->tag != j || e->used < p->capacity)
			return j == s ? tu : (double)j * p->slot_cycles;
	}
	return tu;
}

/* A reservation on a calendar counting in units of unit cycles, charged
 * whole to the slot it starts in (hold_units at most a slot): a slot then
 * takes exactly as much server time as it has, whatever order requests
 * come in, where server_pool_reserve splits a hold over the slots its
 * time covers and a request handled late can start in a slot whose later
 * part an earlier-handled one already took. A request whose own slot has
 * room starts at its arrival; one queued into a later slot starts after
 * the time already taken in that slot, so a queue through full slots is
 * served one hold after another. The start, in cycles. */
static inline double reserve_in_slot(struct server_pool *p, double t, double unit,
				     double inv_unit, double hold_units)
{
	int64_t slot;
	double tu = t * inv_unit;
	double start = server_pool_start_at(p, first_open(p, tu), &slot);
	double slot_start = (double)slot * p->slot_cycles;
	if (start == tu) {
		server_pool_consume_at(p, slot, slot_start, hold_units);
		return t;
	}
	/* queued into a later slot: behind the time already taken in it */
	double behind = slot_start + p->slot[(uint32_t)slot & p->mask].used;
	server_pool_consume_at(p, slot, slot_start, hold_units);
	return (behind > start ? behind : start) * unit;
}

/* One sector through its bank and its channel's bus: when its data has
 * crossed the bus (latency_cycles not included). */
static inline double access_sector(struct dram_model *m, uint64_t addr, double t)
{
	uint32_t ch, b;
	uint64_t row;
	dram_model_locate(m, addr, &ch, &b, &row);
	struct dram_bank *bank = &m->bank[(size_t)ch * m->banks + b];
	m->channel_sectors[ch]++;
	double ready;
	if (bank->open_row == row + 1) {
		m->row_hits++;
		/* column commands pipeline (tCCD ~ one burst); the data cannot
		 * leave before the row it reads is open */
		double start = reserve_in_slot(&bank->busy, t, m->row_cycle_cycles,
					       m->inv_row_cycle, m->hit_hold);
		if (start < bank->row_act_at) {
			/* the row was opened for a later request handled
			 * first: this earlier one is the row's real opener */
			double open = bank->row_open_at - bank->row_act_at;
			bank->row_act_at = start;
			bank->row_open_at = start + open;
		}
		ready = (start > bank->row_open_at ? start : bank->row_open_at) + m->t_cas_cycles;
	} else {
		m->row_misses++;
		double open = (bank->open_row ? m->t_rp_cycles : 0) + m->t_rcd_cycles;
		/* at most the whole slot: one row cycle */
		double hold = (open + m->t_cas_cycles) * m->inv_row_cycle;
		double start = reserve_in_slot(&bank->busy, t, m->row_cycle_cycles,
					       m->inv_row_cycle, hold < 1 ? hold : 1);
		bank->open_row = row + 1;
		bank->row_act_at = start;
		bank->row_open_at = start + open;
		ready = bank->row_open_at + m->t_cas_cycles;
	}
	return reserve_in_slot(&m->bus[ch], ready, m->burst_cycles, m->inv_burst, 1) +
	       m->burst_cycles;
}

double dram_model_read(struct dram_model *m, uint64_t addr, double t)
{
	m->sectors_read++;
	return access_sector(m, addr, t) + m->latency_cycles;
}

void dram_model_write(struct dram_model *m, uint64_t addr, double t)
{
	m->sectors_written++;
	(void)access_sector(m, addr, t);
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
		char *end;
		errno = 0;
		double v = strtod(p, &end);
		if (end == p || errno || !(v >= 0))
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
