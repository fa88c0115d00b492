/* The configuration key table, shared by config.c (defaults, --set),
 * config_load.c (INI loading), config_finalize.c and config_keys.c (the table itself and per-type parsing,
 * formatting and checking). Not a public header. */
#ifndef GPUVM_CONFIG_INTERNAL_H
#define GPUVM_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "gpuvm/config.h"

enum cfg_type {
	CT_U32,      /* uint32_t */
	CT_SIZE32,   /* uint32_t byte count, accepts KiB/MiB suffixes */
	CT_SIZE64,   /* uint64_t byte count, accepts KiB/MiB/GiB suffixes */
	CT_DOUBLE,   /* double */
	CT_ENUM,     /* an enum stored as int, values named by enum_names */
	CT_U16_LIST, /* uint16_t[cap] plus a uint32_t length at len_off */
	CT_STRING,   /* char[cap] */
};

struct cfg_key {
	const char *name;       /* dotted: "tlb.l2.entries" */
	enum cfg_type type;
	size_t off;             /* offset of the value in struct gpuvm_config */
	size_t len_off;         /* lists: offset of the uint32_t length */
	size_t cap;             /* lists: elements; strings: buffer bytes */
	double min, max;        /* bounds of numbers (sizes in bytes) */
	bool min_exclusive;     /* value must be > min rather than >= min */
	bool pow2;              /* sizes: must be a power of two */
	const char *const *enum_names;
	size_t enum_count;
	int level;              /* TLB level index 0..3, or -1 */
	bool optional;          /* a preset may leave it out (model options that default to off) */
	bool integer;           /* doubles: whole numbers only (module parameters) */
	/* left out of gpuvm_config_key_at() (reports, the config hash) while
	 * at its default (def, or def_str for strings): keys added after the
	 * reports they would change (module parameters, l1.replacement) */
	bool quiet_default;
	double def;
	const char *def_str;
	int selects;            /* names a module of kind selects - 1 (gpuvm/module.h); 0: no */
	const char *help;
	/* the key of a module parameter older than the registry (its
	 * compat_key): range, default, choices and help come from the
	 * module's row when the table is built (cfg_key_get), not from here */
	bool from_module;
};

extern const struct cfg_key cfg_keys[];
extern const size_t cfg_key_count;

/* All keys: cfg_keys[0 .. cfg_key_count) (its from_module rows completed
 * from the registry), then one row per module parameter (gpuvm/module.h)
 * without a compat_key, built on first use. */
size_t cfg_key_total(void);
const struct cfg_key *cfg_key_get(size_t id);

/* Key ids of keys that cross-field checks refer to. */
enum cfg_key_id {
	K_DESCRIPTION = 0,
	K_SMS,
	K_GPCS,
	K_TPCS_PER_GPC,
	K_SMS_PER_TPC,
	K_DISABLED_SMS,
	K_SM_NUMBERING,
	K_CLOCK_MHZ,
	K_MAX_WARPS,
	K_MAX_CTAS,
	K_ISSUE,
	K_IMUL32,
	K_COMPUTE_CAPABILITY,
	K_LOAD_BASE,
	K_KERNEL_LAUNCH,
	K_TLB_LEVELS,
	K_TLB_FIRST, /* first key of [tlb.l1] */
};

/* Per-level key offsets from K_TLB_FIRST + level * K_TLB_PER_LEVEL. */
enum cfg_tlb_key {
	KT_ENTRIES = 0,
	KT_WAYS,
	KT_ENTRY_SIZE,
	KT_SHARE,
	KT_SHARE_MAP,
	KT_HIT_LATENCY,
	KT_MISS_PENALTY,
	KT_MSHRS,
	KT_PEER,
	K_TLB_PER_LEVEL,
};

#define CFG_TLB_KEY(level, which) (K_TLB_FIRST + (level) * K_TLB_PER_LEVEL + (which))
#define K_AFTER_TLB CFG_TLB_KEY(GPUVM_MAX_TLB_LEVELS, 0)

enum cfg_key_id_tail {
	K_WALKERS = K_AFTER_TLB,
	K_WALK_LATENCY,
	K_PWC_ENTRIES,
	K_PWC_ENTRY_SIZE,
	K_PWC_HIT_LATENCY,
	K_PTE_READS,
	K_L2_SIZE,
	K_L2_WAYS,
	K_L2_LINE,
	K_L2_SECTOR,
	K_L2_HIT_LATENCY,
	K_DRAM_LATENCY,
	K_DRAM_BANDWIDTH,
	K_PCIE_LATENCY,
	K_PCIE_BANDWIDTH,
	K_UVM_FAULT_LATENCY,
	K_UVM_FAULT_MODEL,
	K_UVM_MSHRS,
	K_UVM_BATCH,
	K_UVM_GMMU,
	K_UVM_ACCOUNTING,
	K_UVM_PCIE_MODEL,
	K_UVM_PREFETCHER,
	K_UVM_PREFETCHER_OVERSUB,
	K_UVM_EVICTION,
	K_UVM_FREE_BUFFER,
	K_UVM_WRITEBACK,
	K_UVM_DEVICE_MEMORY,
	K_UVM_OVERSUB,
	K_UVM_PREFERRED,
	K_L1_SIZE,
	K_L1_WAYS,
	K_L1_LINE,
	K_L1_HIT_LATENCY,
	K_L1_GLOBAL,
	K_L1_BANDWIDTH,
	K_L1_UNIFIED,
	K_SMEM_SIZE,
	K_SMEM_LATENCY,
	K_SMEM_BANKS,
	K_SMEM_CARVEOUTS,
	K_CORE_SCHEDULERS,
	K_CORE_LATENCY_FIRST, /* 8 latencies, then 8 intervals, in enum gpuvm_op_class order */
	K_DRAM_CHANNELS = K_CORE_LATENCY_FIRST + 16,
	K_DRAM_BANKS,
	K_DRAM_ROW,
	K_DRAM_TRCD,
	K_DRAM_TRP,
	K_DRAM_TCAS,
	K_DRAM_TREFI,
	K_DRAM_TRFC,
	K_DRAM_TRFCSB,
	K_DRAM_TWTR,
	K_DRAM_TRTW,
	K_DRAM_WRITE_BATCH,
	K_NEIDTY_ENTRIES,
	K_NEIDTY_TAG_BITS,
	K_NEIDTY_EVICTION,
	K_NEIDTY_UPDATE,
	K_NEIDTY_DIR_LATENCY,
	K_NEIDTY_NBR_LATENCY,
	K_VALKYRIE_PROBING,
	K_VALKYRIE_LDT,
	K_VALKYRIE_HOP,
	K_VALKYRIE_RING,
	K_VALKYRIE_TTL_CW,
	K_VALKYRIE_TTL_CCW,
	K_VALKYRIE_LDT_ENTRIES,
	K_TLB_SHARING,
	K_UVM_MIGRATION,
	K_UVM_AC_THRESHOLD,
	K_UVM_MIGRATION_PENALTY,
	K_UVM_REMOTE_LATENCY,
	K_UVM_THRASHING,
	K_UVM_ACCESSED_BY,
	K_UVM_ADVISE_ALLOCATIONS,
	K_L1_FILL,
	K_CTA_ISSUE,
	K_TLB_L1_IN_FLIGHT,
	K_UVM_DEVICE_SYNC,
	K_TLB_PEER_READ_LRU,
	K_TLB_TRANSLATE_PER,
	K_MEM_PARTITIONS,
	K_MEM_PARTITION_INTERLEAVE,
	K_CTA_PLACEMENT,
	K_L1_REPLACEMENT,
	K_KERNEL_FRONTEND,
	K_KERNEL_TAIL,
	K_CTA_DISPATCH,
	K_CTA_LAUNCH,
	K_CTA_RETIRE,
	K_CTA_RELEASE_PER_WARP,
	K_PCIE_COPY_LATENCY,
	K_MEM_FAR_LATENCY,
	K_DISPATCH_UNITS,
	K_L2_ATOMIC_LATENCY,
	K_MEM_FAR_HOME_DRAM,
	K_L2_SLICES,
	K_L2_SLICE_BYTES,
	K_L2_SM_PORT_BYTES,
	K_L2_SLICE_WRITE_BYTES,
	K_L2_SM_PORT_WRITE_BYTES,
	K_L2_COPY_FILL,
	K_L2_WRITEBACK_STALL,
	K_WARP_EXIT_WAITS_STORES,
	K_TLB_FUTURE_FILL,
	K_CORE_BUSY_UNIT,
	K_L1_TAGS_PER_CYCLE,
	K_CORE_WINDOW,
	K_SMEM_WAVEFRONT,
	K_MEM_PARTITION_HASH,
	K_MEM_FAR_HOME_DRAM_CYCLES,
	K_KERNEL_LAUNCH_PERIOD,
	K_UVM_MIGRATION_RATE,
	K_DRAM_TCCDL,
	K_DRAM_INTERLEAVE,
	K_DRAM_DRAIN_HOLD,
	K_DRAM_DRAIN_GROUP,
	K_UVM_COUNTER_MIGRATION,
	K_UVM_REMOTE_TLB_HITS,
	K_UVM_REMOTE_TLB_FILL,
	K_GPU_MEMORY,
	K_C2C_COHERENT,
	K_C2C_BANDWIDTH,
	K_C2C_COPY_H2D,
	K_C2C_COPY_D2H,
	K_C2C_LATENCY,
	K_C2C_CPU_MEMORY,
	K_C2C_SYSTEM_PAGE,
	K_C2C_LINE,
	K_C2C_FIRST_TOUCH,
	K_UVM_REMOTE_READ_HOLD,
	K_CORE_WARP_SCHEDULER,
	K_L2_ATOMIC_ADDRESS,
	K_L2_IN_FLIGHT,
	K_UVM_EVICT_WHOLE,
	K_COUNT,
};

/* True for keys a preset may leave out: sharing schemes and analyses,
 * which default to off, and delayed migration, which defaults to
 * first-touch (config.c). */
bool cfg_key_optional(size_t id);

/* Index of the key named name (case-insensitive), or -1. */
int cfg_key_find(const char *name);

/* True if some key lives in section sec ("tlb.l1"). */
bool cfg_section_known(const char *sec);

/* Writes "entries, ways, ..." (the keys of section sec) into buf. */
void cfg_section_keys(const char *sec, char *buf, size_t len);

/* Parses value (already trimmed) into cfg's field for key k. append adds
 * to a list instead of replacing it (INI continuation lines). On failure
 * leaves cfg unchanged, writes the problem into problem and returns -1. */
int cfg_key_parse(const struct cfg_key *k, struct gpuvm_config *cfg,
		  const char *value, bool append, char *problem, size_t plen);

/* Checks the single-field rules (bounds, power of two) of the current
 * value; 0, or -1 with the problem written. */
int cfg_key_check(const struct cfg_key *k, const struct gpuvm_config *cfg,
		  char *problem, size_t plen);

/* Formats the current value so that cfg_key_parse() reads it back;
 * returns 0, or -1 when buf is too small. */
int cfg_key_format(const struct cfg_key *k, const struct gpuvm_config *cfg,
		   char *buf, size_t len);

/* The value of a number or enum key (an enum's index); 0 for lists and
 * strings. */
double cfg_key_number(const struct cfg_key *k, const struct gpuvm_config *cfg);
/* Stores v into k's field (numbers and enums; nothing for the rest). */
void cfg_key_store_number(const struct cfg_key *k, struct gpuvm_config *cfg, double v);

/* Sets every key that a module parameter keeps from before the registry
 * (gpuvm_module_param.compat_key) to that parameter's default. */
void cfg_compat_defaults(struct gpuvm_config *cfg);

#endif
