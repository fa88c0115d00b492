/* Migration policies and the access counters they read (Ganguly et al.,
 * ISCA'19, seeds/004 section IV). Each policy is a module (migrate_*.c)
 * with an ops table and a descriptor listed in module_registry.c: given the state of a
 * 64 KB basic block and of device memory, the access-counter threshold
 * a read of a non-resident page must reach to migrate it. Below it the
 * read is served remotely over PCIe and the page stays in host memory;
 * writes always migrate (seeds/004 II-C).
 *
 * Access counters: one 32-bit register per 64 KB basic block, the low 27
 * bits counting every managed access (local and remote), the high 5 bits
 * the round trips (times the block was evicted); when either field of one
 * block saturates, that field of every block is halved (seeds/004 IV,
 * "Access Counter Maintenance"). */
#ifndef GPUVM_UVM_MIGRATE_H
#define GPUVM_UVM_MIGRATE_H

#include <stdbool.h>
#include <stdint.h>

#include "uvm/evict.h"
#include "uvm/uvm_page.h"

/* seeds/004 IV: "lower 27bits are used for access counters and most
 * significant 5bits ... round trip" */
#define UVM_AC_COUNT_BITS 27u
#define UVM_AC_COUNT_MAX ((1u << UVM_AC_COUNT_BITS) - 1)
#define UVM_AC_RT_MAX 31u /* 5 bits */
/* a coalesced access covers at most one 128 B line (GPGPU-Sim's memory
 * access granularity, which UVMSmart counts) */
#define UVM_AC_LINE_SHIFT 7u

static inline uint32_t uvm_ac_count(uint32_t reg) { return reg & UVM_AC_COUNT_MAX; }
static inline uint32_t uvm_ac_round_trips(uint32_t reg) { return reg >> UVM_AC_COUNT_BITS; }

/* One access to chunk ch of b (b->ac must exist). Returns true when the
 * count saturated and every block's count was halved. */
bool uvm_ac_access(const struct uvm_space *sp, struct uvm_block *b, uint32_t ch);
/* Chunk ch of b was evicted: one more round trip. Returns true when the
 * round-trip field saturated and every block's was halved. */
bool uvm_ac_round_trip(const struct uvm_space *sp, struct uvm_block *b, uint32_t ch);
/* Sum of the 27-bit counts of b's chunks (the 2 MB tree root's count). */
uint64_t uvm_ac_block_count(const struct uvm_block *b);

/* What a policy sees when a read of a non-resident page asks to migrate. */
struct uvm_migrate_ctx {
	uint32_t ts;            /* t_s, uvm.access_counter_threshold */
	uint32_t penalty;       /* p, uvm.migration_penalty */
	uint32_t round_trips;   /* r of the page's 64 KB block */
	uint64_t resident_pages;/* allocated device frames */
	uint64_t capacity_pages;/* device frames; 0 = unlimited */
	double buffer_frac;     /* uvm.free_buffer_percent / 100 */
	bool oversubscribed;    /* eviction has started */
};

struct uvm_migrate_ops {
	/* name and help live in the module descriptor (gpuvm/module.h) */
	bool delays; /* false: every fault migrates (first touch), no counters needed */
	/* t_d: a read migrates when its block's count (this access included)
	 * is >= the result; below it the read is remote. */
	uint32_t (*threshold)(const struct uvm_migrate_ctx *c);
};

const struct uvm_migrate_ops *uvm_migrate_find(const char *name);

#endif
