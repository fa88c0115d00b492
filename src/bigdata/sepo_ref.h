/* CPU reference for the SePo table's functional result: a plain
 * open-addressing map from key bytes to what the table must hold for the
 * key, built from the input records, and the same summary built from the
 * table as read on the host; sepo_ref_compare says whether they agree. */
#ifndef GPUVM_SEPO_REF_H
#define GPUVM_SEPO_REF_H

#include <stddef.h>
#include <stdint.h>

#include "bigdata/sepo.h"

struct sepo_ref_entry {
	uint64_t hash;
	uint64_t key_off;         /* into the arena */
	uint32_t kbytes, entries; /* entries: table side, entries holding the key */
	uint64_t count;           /* pairs (basic, multi) or records (combining) */
	uint64_t digest;          /* order-independent sum of the values' hashes */
	unsigned long long val[SEPO_MAX_VALUE_WORDS]; /* combining: the merged value */
};

struct sepo_ref {
	unsigned int org, op;
	struct sepo_ref_entry *e;
	uint64_t cap, n;
	unsigned char *arena;
	uint64_t arena_n, arena_cap;
	uint64_t pairs;
	/* records yield several pairs (word count): a record postponed after
	 * some of its pairs went in may bring a key back after its entry left
	 * the GPU, so a key may sit in one entry per iteration; the host
	 * merges them with the same callback (the final reduce). Otherwise a
	 * key in two entries is an error. */
	int split_ok;
	uint64_t split_keys; /* compare: keys found in more than one entry */
};

int sepo_ref_init(struct sepo_ref *r, unsigned int org, unsigned int op);
void sepo_ref_free(struct sepo_ref *r);
/* One pair as the input yields it. Returns -1 out of memory. */
int sepo_ref_add(struct sepo_ref *r, const void *key, unsigned int kbytes,
		 const unsigned long long *val, unsigned int vbytes);
/* The summary of the table's contents (after sepo_finish). */
int sepo_ref_from_table(struct sepo_ref *r, const struct sepo_table *t);
/* 0 when the table summary `got` equals the reference `want`; else writes
 * the first difference to why. */
int sepo_ref_compare(const struct sepo_ref *want, struct sepo_ref *got, char *why, size_t len);

#endif
