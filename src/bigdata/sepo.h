/* The SePo hash table, host side: allocation of the table's device
 * structures, the end-of-iteration rules of §6.3.3 (which pages go to host
 * memory, what is reset), the final copy-out, and reading the table on the
 * host through its references (the thesis's CPU pointers, §6.4.1).
 * Device code: sepo_dev.h. The iteration driver over an input: sepo_run.h. */
#ifndef GPUVM_SEPO_H
#define GPUVM_SEPO_H

#include <stdint.h>

#include "bigdata/sepo_dev.h"
#include "gpuvm/simt.h"

/* Where the heap lives (the three placements of one table). */
enum sepo_placement {
	SEPO_PLACE_SEPO = 0, /* device heap, postponement, copy-outs (§6.3.3) */
	SEPO_PLACE_PINNED,   /* heap in host-pinned memory, zero-copy (§6.6.4, Fig. 6.11) */
	SEPO_PLACE_MANAGED,  /* heap in managed memory, demand paging (§6.6.4, Table 6.3) */
};

struct sepo_config {
	unsigned int org;        /* SEPO_BASIC, SEPO_MULTI, SEPO_COMBINING */
	unsigned int combine_op; /* SEPO_COMB_* */
	enum sepo_placement placement;
	uint64_t nbuckets;
	uint64_t groups;         /* bucket groups (each allocates from its own page) */
	uint64_t page_bytes;     /* power of two, >= 1 KiB */
	uint64_t heap_bytes;     /* sepo: the device heap (the table's share of device memory) */
	uint64_t bound_bytes;    /* an upper bound on the table: pinned/managed heap size and
				  * the host-image slot table */
	unsigned int threshold_pct; /* basic: stop an iteration once this % of groups failed */
	/* multi-valued: which key pages stay on the device at an iteration's
	 * end. 0 (keep=pages): the pages holding a key whose value was
	 * postponed (seeds/001 §6.3.3); 1 (keep=groups): every key page of a
	 * group one of whose keys awaits values (rezafmk/BRB_HashTable's
	 * group->needed, the rule before issue 76's fourth round) */
	unsigned int keep_groups;
};

#define SEPO_MAX_ITERS 64

struct sepo_table {
	struct sepo_config c;
	struct sepo_dev d;       /* device pointers (simt buffers) */
	uint32_t heap_pages, page_words, max_entry_words;
	int *free_host;          /* the free list (a device buffer the host fills) */
	/* host image: slot -> the page's words in host memory once copied out
	 * (sepo) or in the heap itself (pinned: host memory; managed: read by
	 * the host after the run); NULL while the page is on the device */
	unsigned long long **slot_host;
	unsigned char *slot_owned; /* slot_host[s] was malloc'd here */
	/* statistics */
	unsigned int iterations;
	uint64_t bytes_out;      /* heap bytes copied device -> host */
	uint64_t meta_bytes;     /* bookkeeping copies (counters, page tables) */
	uint64_t postponed;      /* declined inserts, all iterations */
	uint64_t pages_taken;    /* pages handed out, all iterations (the table's size) */
	uint32_t kept_pages;     /* multi-valued: key pages the last iteration end kept on the GPU */
	int keys_split;          /* multi-valued: needed key pages were sent out (sepo.c), so a
				  * key may have one entry per iteration, merged on the host */
};

/* Allocates the table's buffers on the simulated GPU; `max_entry_words`
 * is the largest allocation one insert makes. Returns -1 (simt_fail set). */
int sepo_create(struct simt_host *h, struct sepo_table *t, const struct sepo_config *c,
		uint32_t max_entry_words);
/* End of an iteration (§6.3.3): reads the counters; for sepo copies the
 * pages the organisation's rule sends to the host, frees them and resets
 * the groups, counters and free list. `more` = records remain. */
int sepo_iteration_end(struct simt_host *h, struct sepo_table *t, int more);
/* After the last iteration: copies what is still on the device to the host
 * (sepo) and downloads the bucket heads, so the table can be read on the
 * host with the functions below. */
int sepo_finish(struct simt_host *h, struct sepo_table *t);
void sepo_release(struct sepo_table *t);

/* Host reading (after sepo_finish): the words of the entry at ref. */
const unsigned long long *sepo_host_at(const struct sepo_table *t, unsigned long long ref);

/* Calls fn once per stored pair (per value for multi-valued); fn returns
 * nonzero to stop. Returns -1 if a reference does not resolve. */
typedef int (*sepo_pair_fn)(void *user, const unsigned char *key, unsigned int kbytes,
			    const unsigned long long *val, unsigned int vbytes, int first_of_key);
int sepo_host_walk(const struct sepo_table *t, sepo_pair_fn fn, void *user);

const char *sepo_org_name(unsigned int org);
const char *sepo_placement_name(enum sepo_placement p);

#endif
