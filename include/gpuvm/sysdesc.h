/* System descriptions: the processors of one machine (GPUs, each a preset,
 * and CPU memory nodes) and the links between them, read from
 * systems/ *.ini files (embedded at build time, like presets), and the
 * published measurements of such machines (validation/systems.tsv).
 *
 * Contract:
 *  - Owns: the parsed description (struct gpuvm_sysdesc) and the parsed
 *    evidence rows; nothing of a run. A run (gpuvm sim --system) turns
 *    each GPU into a configuration with gpuvm_sysdesc_gpu_config
 *    (sysdesc_config.c, the one mapping of a description onto preset
 *    keys) and reads the GPU-GPU links for peer copies (src/link/
 *    peer_link.h); managed memory across processors is not modelled yet.
 *  - May call: declarations only; src/sysdesc/sysdesc.c opens with the
 *    contract of the code behind them.
 *  - Guarantees: a description that loads is valid: every key known,
 *    every kind known, every number in range, every GPU's preset exists,
 *    every link's endpoints exist, and every processor is reached from
 *    every other by links. A file that fails names file:line and, for a
 *    misspelt key, kind or endpoint, the likely intended one. */
#ifndef GPUVM_SYSDESC_H
#define GPUVM_SYSDESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuvm/error.h"

#define GPUVM_SYS_MAX_GPUS 64
#define GPUVM_SYS_MAX_CPUS 16
#define GPUVM_SYS_MAX_LINKS 128
#define GPUVM_SYS_MAX_ENDPOINTS 64
#define GPUVM_SYS_MAX_PAGE_SIZES 4

enum gpuvm_link_kind {
	GPUVM_LINK_PCIE = 0,    /* a GPU and its host CPU, PCI Express */
	GPUVM_LINK_NVLINK,      /* two GPUs joined directly by NVLink */
	GPUVM_LINK_NVLINK_C2C,  /* a Grace CPU and its GPU, coherent NVLink-C2C */
	GPUVM_LINK_NVSWITCH,    /* GPUs joined all-to-all through NVSwitch chips */
	GPUVM_LINK_KINDS
};

/* One processor: a GPU (index into gpus[]) or a CPU (into cpus[]). */
struct gpuvm_sys_endpoint {
	bool cpu;
	uint32_t index;
};

struct gpuvm_sys_gpu {
	char preset[256];       /* a shipped preset's name or a preset file */
	uint64_t memory_bytes;  /* 0: the preset's own; else this system's part */
	int line;               /* of its [gpu.N] header */
};

struct gpuvm_sys_cpu {
	char model[64];
	uint64_t memory_bytes;
	double bandwidth_gb_s;  /* its memory's bandwidth, GB/s (1e9 B/s) */
	uint64_t page_sizes[GPUVM_SYS_MAX_PAGE_SIZES]; /* system page sizes offered */
	uint32_t n_page_sizes;
	uint64_t page_bytes;    /* the one this system runs with */
	int line;
};

struct gpuvm_sys_link {
	enum gpuvm_link_kind kind;
	struct gpuvm_sys_endpoint ends[GPUVM_SYS_MAX_ENDPOINTS];
	uint32_t n_ends;        /* 2, or 2 or more for nvswitch */
	double bandwidth_gb_s;  /* per direction, per physical link */
	uint32_t count;         /* physical links ganged (NVLink: links per GPU pair
				 * or, for nvswitch, per GPU) */
	double latency_ns;      /* < 0: not given (no published figure) */
	/* a copy engine's measured rate over the link, host-to-device [0] and
	 * device-to-host [1], GB/s (copy_h2d_gb_s, copy_d2h_gb_s); 0: not
	 * given (copies run at bandwidth_gb_s x count) */
	double copy_gb_s[2];
	int line;
};

struct gpuvm_sysdesc {
	char name[64];
	char description[256];
	char sources[2048];     /* the [system] source lines, one per line */
	char origin[256];       /* file the description came from, for messages */
	bool implicit;          /* a preset read as a system of one */
	struct gpuvm_sys_gpu gpus[GPUVM_SYS_MAX_GPUS];
	uint32_t n_gpus;
	struct gpuvm_sys_cpu cpus[GPUVM_SYS_MAX_CPUS];
	uint32_t n_cpus;
	struct gpuvm_sys_link links[GPUVM_SYS_MAX_LINKS];
	uint32_t n_links;
};

/* Parses and checks a description's text; origin names it in messages.
 * Returns 0, or -1 with err "origin:line: problem". */
int gpuvm_sysdesc_parse(struct gpuvm_sysdesc *sys, const char *text, const char *origin,
			struct gpuvm_error *err);

/* A shipped system by name ("gh200"), a file (a name with '/' or ending
 * in ".ini"), or a shipped preset's name ("h100", or "single-h100"): the
 * system of one, that GPU and its host over the preset's PCIe link. */
int gpuvm_sysdesc_load(struct gpuvm_sysdesc *sys, const char *name_or_path,
		       struct gpuvm_error *err);

/* A system file by path, whatever its name. */
int gpuvm_sysdesc_load_file(struct gpuvm_sysdesc *sys, const char *path, struct gpuvm_error *err);

/* The value of a described number, by the key its evidence rows name:
 * "link.N.bandwidth_gb_s", "link.N.count", "link.N.latency_ns",
 * "cpu.N.memory_bytes", "cpu.N.bandwidth_gb_s", "cpu.N.page_bytes",
 * "gpu.N.memory_bytes". Returns 0, or -1 for a key it has no value of. */
/* A spec with modifiers, "NAME[:gpus=N][,nvlink=off]" (sysdesc_subset.c):
 * the first N GPUs of NAME and the links among them; nvlink=off drops the
 * GPU-GPU links. A spec without them is gpuvm_sysdesc_load's. */
int gpuvm_sysdesc_load_spec(struct gpuvm_sysdesc *sys, const char *spec,
			    struct gpuvm_error *err);

/* The configuration of GPU gpu (sysdesc_config.c): its preset, then the
 * description's numbers of it (memory_bytes -> gpu.memory, its host
 * link's rate -> pcie.bandwidth_gb_s, a PCIe latency -> pcie.latency_ns),
 * each with the system file's line as origin. Not finalized: the caller
 * applies --set overrides, then gpuvm_config_finalize. */
struct gpuvm_config;
int gpuvm_sysdesc_gpu_config(const struct gpuvm_sysdesc *sys, uint32_t gpu,
			     struct gpuvm_config *cfg, struct gpuvm_error *err);

/* GPU gpu's link to host memory: its nvlink-c2c link where it has one,
 * else its first pcie link; NULL when none. */
const struct gpuvm_sys_link *gpuvm_sysdesc_host_link(const struct gpuvm_sysdesc *sys,
						     uint32_t gpu);

int gpuvm_sysdesc_value(const struct gpuvm_sysdesc *sys, const char *key, double *out);

const char *gpuvm_link_kind_name(enum gpuvm_link_kind k);

/* Shipped systems, embedded at build time from systems/ *.ini, and the
 * evidence table validation/systems.tsv. */
struct gpuvm_system_text {
	const char *name;   /* "gh200" */
	const char *path;   /* "systems/gh200.ini" */
	const char *text;
};
extern const struct gpuvm_system_text gpuvm_shipped_systems[];
extern const size_t gpuvm_shipped_systems_count;
extern const char gpuvm_systems_evidence_tsv[];

/* One row of validation/systems.tsv. */
enum gpuvm_evidence_role { GPUVM_ROLE_CALIBRATION = 0, GPUVM_ROLE_VALIDATION };
struct gpuvm_sys_evidence {
	char system[64];
	char quantity[96];   /* a calibration row: the key it sets (gpuvm_sysdesc_value) */
	double value;
	char unit[32];
	char source[512];
	char convention[512];
	enum gpuvm_evidence_role role;
	int line;
};

/* Parses the table (header line, '#' comments, 7 tab-separated columns).
 * Checks each row: a shipped system, a finite value, a known role, and
 * for a calibration row that the system file's parameter it names holds
 * that value. rows is malloc'd (free it); returns 0 or -1 with err. */
int gpuvm_sys_evidence_parse(const char *text, const char *origin,
			     struct gpuvm_sys_evidence **rows, size_t *n_rows,
			     struct gpuvm_error *err);

#endif
