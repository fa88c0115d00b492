/* DRAM timing of HBM/GDDR as a warp-level GPU model needs it: channels
 * with their own data bus, banks with an open row each, 32 B sectors.
 *
 * Address map: the address is cut into interleave_bytes chunks (256 B by
 * default) spread over the channels; the channel of a chunk is its index
 * modulo channels, XORed (power-of-two channel counts) or added modulo
 * channels (others) with a multiplicative hash of the chunk's group (index
 * / channels), as GPU memory controllers hash so that power-of-two strides
 * do not all land on one channel. Within a channel, row_bytes of the
 * channel's own address space make one bank row; rows go to banks the
 * same hashed way, so a channel's consecutive rows spread over its banks.
 *
 * Timing (values in SM cycles; Accel-Sim's gpgpusim.config -gpgpu_dram_timing_opt gives the
 * DRAM command clock strings, dram_timing_from_accelsim converts them): a sector whose
 * row is open in its bank is a row hit and its data leaves the bank t_cas
 * after the column command; otherwise the bank precharges (t_rp, only if
 * a row is open), activates (t_rcd), then reads (t_cas). The channel's data
 * bus then carries the sector for cycles_per_sector_per_channel (the burst:
 * sector_bytes at the channel's share of the peak bandwidth), and the data
 * is back latency_cycles later (controller, crossbar: the rest of the pipe).
 *
 * Bank occupancy: a row miss holds its bank for t_rp + t_rcd + t_cas (a
 * stand-in for the row cycle tRC = tRAS + tRP, which the §6 strings put
 * close to it: P100 34 vs 30 command cycles); a row hit holds it for one
 * burst, since column commands to an open row pipeline (tCCD) and the CAS
 * latency overlaps them. So random sectors are bank bound, at about
 * banks / (t_rp + t_rcd + t_cas) sectors per cycle per channel, far below
 * the bus (§8: real DRAM efficiency is 68-91 % even for streams).
 *
 * Requests arrive somewhat out of time order (a sector's arrival depends on
 * its translation), so each channel's bus and each bank's busy time is a
 * capacity calendar, one server each: an early request handled late still
 * finds the capacity of its own time. A bank's slots are one row miss
 * long, a bus slot is 32 bursts, and each request's hold is charged whole
 * to the slot it starts in, so a slot never takes more than one row miss
 * (or that much time of row hits) or 32 bursts, in whatever order
 * requests come. A request whose own slot has room starts at its arrival;
 * otherwise it looks at the next three slots, then, like server_pool,
 * skips to the frontier (the first slot the last scan of full slots found
 * open: right for requests in order, not for one that came earlier than
 * requests handled before it, hence the three), and waits there behind the
 * time already taken in that slot. The open row is the last row served in
 * handling order; a hit's data waits for that row's activate, or, when it
 * came earlier than the request that opened the row (handled before it),
 * the hit is taken as the row's opener.
 *
 * The calendars are the rule server_pool implements (mem/server_pool.h:
 * the same slots, lookahead and frontier, so the same starts), stored for
 * the host's cache: a ring holds exactly the slots [newest - mask, newest]
 * (entries are cleared as newest advances, so they need no tags), a
 * slot's use is a 16-bit count (bus: bursts, exact; bank: 1/16384 row
 * cycles, a row hit's hold rounded by at most 1/32768 of a row cycle), and
 * a bank's open row, activate time, calendar head and ring share one
 * record, aligned to the cache line; the channels' calendar heads lie
 * together, their rings apart. A request older than the ring is taken as
 * arriving at its oldest slot, as in server_pool.
 *
 * Memory is O(channels x banks x ring): 32 + 2 x ring bytes per bank,
 * rounded up to 64 B, and 16 + 2 x ring per channel (32 x 16 banks with
 * 32-slot bank rings and 128-slot bus rings: 72 KiB, where the
 * server_pool rings took ~330 KiB in 544 separate blocks); an access is
 * O(1) apart from the scan of full slots from the frontier, which moves
 * the frontier on, so it is amortised over the requests queued. The
 * per-sector path (address decode, the calendars' common cases) is in
 * mem/dram_access.h, inline for the engine.
 *
 * Spec and state: struct dram_model_spec (the address map's shifts and
 * counts, timings, slot units, ring masks, the drain constants) is set by
 * dram_model_init and only read afterwards (dram_model_locate takes it
 * alone); requests write the calendars, the bank records, the drains, the
 * last chunk located and the statistics. Init seals the spec
 * (core/spec_seal.h); dram_model_free checks the seal in checking builds. */
#ifndef GPUVM_DRAM_MODEL_H
#define GPUVM_DRAM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dram_model_config {
	uint32_t channels;
	uint32_t banks;            /* per channel */
	uint32_t interleave_bytes; /* channel interleave, power of two; 0 = 256 */
	uint32_t row_bytes;        /* per bank row, power of two (HBM 1 KiB, GDDR 2 KiB) */
	uint32_t sector_bytes;     /* access size, power of two; 0 = 32 (checked
	                            * only: the burst below includes it) */
	double t_rcd_cycles, t_rp_cycles, t_cas_cycles; /* SM cycles */
	/* bus time of one sector on its channel, SM cycles: see
	 * dram_cycles_per_sector_per_channel */
	double cycles_per_sector_per_channel;
	double latency_cycles; /* fixed rest of the pipe */
	/* the fraction of time the banks serve requests (all-bank refresh
	 * takes the rest: 1 - tRFC / tREFI); 0 = 1. A bank's holds are its
	 * timings / service_fraction, so a bank-bound stream loses what a
	 * refreshing bank cannot serve; the caller divides the bus burst
	 * (cycles_per_sector_per_channel) by the same fraction. */
	double service_fraction;
	/* the bus's service fraction when it differs from the banks' (per-bank
	 * refresh: the banks lose 1 - tRFCsb / tREFI, the bus nothing; the
	 * caller then passes an unrefreshed burst); 0 = service_fraction */
	double bus_service_fraction;
	/* read/write turnaround (dram_model_write_run): the data bus idles
	 * turnaround_cycles (write-to-read tWTR + tCAS plus the read-to-write
	 * gap, SM cycles) once per write_batch_sectors writes of a channel
	 * that reads came between; 0 or 0 = free turnaround */
	double turnaround_cycles;
	uint32_t write_batch_sectors;
	/* write-drain mode (needs the turnaround above): once reads have
	 * come, writes queue without the bus, and when the batch is full they
	 * cross it in one piece, the bus turns around, and reads that want
	 * the bus from the batch's fill until both are done wait for them
	 * (dram_drain_writes). Writes with no read since the last drain take
	 * their bursts at once. false: each write takes its burst at its
	 * arrival, a drain costs only the turnaround's idle */
	bool drain_hold;
	/* channels a controller drains together (0 or 1: each on its own):
	 * consecutive channels [g x n, (g + 1) x n) count their writes as one
	 * queue, and when n x write_batch_sectors have come every channel of
	 * the group drains what it holds at once (dram_drain_writes); at most
	 * 1024, so a group's count stays within 32 bits */
	uint32_t drain_group_channels;
	/* column-to-column delay within a bank group (tCCD_L), SM cycles: a
	 * read chunk's sectors (one row of one bank, so one bank group) cross
	 * the bus at least this far apart where it exceeds the burst; 0 = a
	 * burst apart. Only the chunk's own latency grows: the bus keeps its
	 * rate (other bank groups' sectors fill the gaps), a row hit holds
	 * its bank one burst as before, and writes, drained in batches the
	 * controller may interleave over bank groups, stay a burst apart. */
	double t_ccd_l_cycles;
	/* calendar rings (powers of two, at most 32768; 0 = default): their
	 * length in time is how far out of order a request may arrive and
	 * still see the capacity of its own time (bus: 1024 slots of 32
	 * bursts, ~68000 cycles for P100-like parameters; bank: 256 slots of
	 * one row miss, ~16000 cycles). 16 bank slots would keep a bank in
	 * one cache line, but at the engine's queue depths they are too
	 * short: random 4 GB on p100 took 7 % more simulated time. */
	uint32_t bus_ring_slots, bank_ring_slots;
};

/* A calendar's head: its ring (uint16_t[mask + 1]) follows it. */
struct dram_cal {
	int64_t newest;   /* newest slot the ring holds; it holds [newest - mask, newest] */
	int64_t frontier; /* first slot the last scan of full slots found open */
	/* slots [full_from, frontier) are known full (the scans that moved
	 * the frontier there walked them; a slot's use only grows while the
	 * ring holds it), so a request among them skips its look at them */
	int64_t full_from;
};

/* One bank's record, its calendar's ring right after it (bank_stride
 * bytes in all). */
struct dram_bank {
	uint64_t open_row; /* row + 1, DRAM_ROW_PRECHARGED set when its activate
	                    * followed a precharge; 0 = no row open */
	double row_act_at; /* when its precharge/activate began */
	struct dram_cal cal;
};

/* A channel's write queue as its controller drains it: writes queue
 * until write_batch_sectors have come, then go out together, the bus
 * turned from reads to writes and back (when reads came in between). */
struct dram_drain {
	uint32_t writes;  /* queued since the last drain (a group's: in its
	                   * first channel's record) */
	uint32_t reads;   /* nonzero: reads came since the last drain */
	double carry;     /* turnaround bursts owed below one whole burst */
	/* drain_hold: writes that came after reads, waiting for the drain
	 * (their bursts not yet on the bus); the bus is the drains' from
	 * hold_from until hold_until (the last turned drain, or back-to-back
	 * ones), and a read whose data would cross in between crosses at
	 * hold_until */
	uint32_t deferred;
	double hold_from, hold_until;
};

/* row + 1 stays far below bit 63 (rows are addresses over >= 64 B) */
#define DRAM_ROW_PRECHARGED (1ull << 63)

/* The model's spec: derived from struct dram_model_config by
 * dram_model_init and never written by a request (sealed there,
 * core/spec_seal.h; checked by dram_model_free in checking builds). It
 * sits where these fields sat before they were a struct, first, with
 * the write-drain constants (drain_hold is read on every write) moved up
 * from the end to join them. */
struct dram_model_spec {
	uint32_t channels, banks;
	uint32_t channel_shift, bank_shift; /* log2 when a power of two, else 0 */
	uint32_t channel_pow2, bank_pow2;
	uint32_t interleave_shift, row_shift;
	uint32_t sector_bytes;
	double t_rcd_cycles, t_rp_cycles, t_cas_cycles;
	double burst_cycles, latency_cycles;
	/* how far apart a read chunk's sectors cross the bus: the burst, or
	 * t_ccd_l_cycles where that is longer */
	double column_cycles;
	double row_cycle_cycles;          /* t_rp + t_rcd + t_cas; a bank slot is
	                                   * that / service_fraction */
	double bus_inv_slot, bank_inv_slot; /* 1 / slot length, cycles */
	double bank_quantum;                /* cycles per unit of a bank slot's count */
	uint32_t bus_mask, bank_mask;       /* ring slots - 1 */
	uint32_t bank_cap, hit_hold, miss_hold_cold, miss_hold_pre; /* bank slot units */
	size_t bank_stride; /* bytes per bank record, a multiple of 64 */
	/* rows of at least an interleave chunk: the chunk alone fixes
	 * channel, bank and row (the last one located is kept) */
	bool chunk_locates;
	/* write drain (dram_model_write_run): the turnaround in bursts (its
	 * fraction carried from drain to drain so the mean is exact) */
	bool drain_hold;          /* dram_model_config.drain_hold (with drain only) */
	uint32_t drain_group;     /* channels drained together, >= 1 */
	uint32_t write_batch;
	double turn_bursts;
};

struct dram_model {
	struct dram_model_spec spec;
	/* the last interleave chunk located and where it lies (with
	 * spec.chunk_locates): a coalesced access brings a chunk's sectors
	 * one after another */
	uint32_t last_channel, last_bank;
	uint64_t last_chunk, last_row;
	/* the sector after the last one accessed (a chunk's first sector
	 * never waits on it), when that one arrived and when its data
	 * crossed the bus: a coalesced load's next sector waits for the
	 * burst before */
	uint64_t serial_next;
	double serial_t, serial_done;
	/* bus calendars: the heads together (32 channels: 512 B, all hot in
	 * the cache), each ring (bus_ring_slots counts) on its own lines */
	struct dram_cal *bus;
	uint16_t *bus_ring;  /* [channels * bus_ring_slots] */
	unsigned char *bank; /* [channels * banks] records of struct dram_bank + ring,
	                      * channel-major */
	/* write drain (dram_model_write_run): per channel, writes since the
	 * last drain and whether reads came since */
	struct dram_drain *drain; /* [channels], NULL without turnaround */
	/* statistics */
	uint64_t sectors_read, sectors_written, row_hits, row_misses;
	uint64_t turnarounds; /* write drains that turned the bus around */
	uint64_t reads_held;  /* reads (runs) that waited for a drain */
	double held_cycles;   /* their summed wait */
	uint64_t *channel_sectors; /* [channels], reads and writes */
	uint64_t spec_seal;        /* core/spec_seal.h, taken at init */
};

/* 0, or -1 for a bad configuration (zero counts, non-power-of-two sizes,
 * non-positive burst, negative timings) or no memory. */
int dram_model_init(struct dram_model *m, const struct dram_model_config *cfg);
void dram_model_free(struct dram_model *m);
/* Whether m's spec is what init set (tests; checking builds check it in
 * dram_model_free). */
bool dram_model_spec_intact(const struct dram_model *m);

/* Where addr lives: channel, bank within the channel, row within the bank. */
void dram_model_locate(const struct dram_model_spec *s, uint64_t addr, uint32_t *channel,
		       uint32_t *bank, uint64_t *row);

/* One sector read arriving at t (SM cycles): the time its data is back. */
double dram_model_read(struct dram_model *m, uint64_t addr, double t);

/* One sector written back at t: occupies bus and bank like a read.
 * Returns when its data has crossed the bus (the caller decides who, if
 * anyone, waits for that: memsys.h, l2.writeback_stall). */
double dram_model_write(struct dram_model *m, uint64_t addr, double t);

/* n >= 1 consecutive sectors from addr, all in one interleave chunk
 * (addr >> log2(interleave_bytes) the same for each), arriving together at
 * t, as a warp instruction's sectors of one chunk or an L2 victim's dirty
 * sectors come: the first as one sector, the rest as a run of row hits
 * with one bank and one bus reservation (host cost O(1) per chunk, not
 * per sector). Read: when the last sector's data is back. Counts as n
 * sectors in every statistic. */
double dram_model_read_run(struct dram_model *m, uint64_t addr, uint32_t n, double t);
double dram_model_write_run(struct dram_model *m, uint64_t addr, uint32_t n, double t);

/* sector_bytes * clock_hz / (peak_bandwidth_bytes_per_s / channels): one
 * sector's time on its channel's bus, in cycles of clock_hz. */
double dram_cycles_per_sector_per_channel(uint32_t sector_bytes, double clock_hz,
					  double peak_bandwidth_bytes_per_s, uint32_t channels);

/* DRAM command-clock cycles (Accel-Sim -gpgpu_dram_timing_opt values) to
 * SM cycles: dram_cycles * sm_clock_mhz / dram_clock_mhz. */
double dram_command_to_sm_cycles(double dram_cycles, double dram_clock_mhz,
				 double sm_clock_mhz);

/* t_rcd, t_rp and t_cas in SM cycles from an Accel-Sim timing string,
 * "nbk:CCD:RRD:RCD:RAS:RP:RC:CL:WL:CDLR:WR:nbkgrp:CCDL:RTPL" (RCD, RP and
 * CL are fields 4, 6 and 8), given its DRAM command clock. Accel-Sim
 * configs/tested-cfgs/SM6_P100/gpgpusim.config, e.g. P100 at 715 MHz:
 * "16:1:3:10:24:10:34:10:2:3:9:4:2:3" gives
 * 10 command cycles each, 20.7 SM cycles at 1480 MHz. 0, or -1 when the
 * string has fewer than 8 fields, a field is not a non-negative number, or
 * a clock is not positive. */
int dram_timing_from_accelsim(const char *opt, double dram_clock_mhz, double sm_clock_mhz,
			      double *t_rcd_cycles, double *t_rp_cycles, double *t_cas_cycles);

#endif
