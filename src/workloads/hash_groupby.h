/* Karnagel et al. §2.2 hash group-by: SELECT value, count(*) GROUP BY
 * value over a 32-bit column streamed zero-copy from pinned host memory in
 * 128 MB chunks into a linear-probing table at fill factor 0.5. */
#ifndef GPUVM_HASH_GROUPBY_H
#define GPUVM_HASH_GROUPBY_H

#include <stdint.h>

#include "workloads/murmur3.h"
#include "workloads/workload_util.h"

/* One bucket, as on the GPU: (value, count), 8 bytes. The key stored is
 * value + 1 so an all-zero (calloc'd) table is empty. */
struct groupby_bucket {
	uint32_t key;
	uint32_t count;
};

/* The input column: value i of the column, uniform in [0, groups). */
static inline uint32_t groupby_input(uint64_t seed, uint64_t i, uint64_t groups)
{
	return (uint32_t)((((unsigned __int128)splitmix64(seed ^ (i * 0xA24BAED4963EE407ull))) *
			   groups) >> 64);
}

static inline uint64_t groupby_home(uint32_t value, uint64_t buckets)
{
	uint32_t h = murmur3_32(value, 0);
	/* a 32-bit division where the table allows: several times cheaper on
	 * the host, and this runs once per input row */
	return buckets <= UINT32_MAX ? h % (uint32_t)buckets : h % buckets;
}

/* Order-independent digest of a table: sum over groups of
 * mix(value) * count. Tests compare it between scoped and unscoped runs
 * and against the reference. t: a bucket a word on the host, its key in
 * the low half and its count in the high half. */
uint64_t groupby_digest(const uint64_t *t, uint64_t buckets, uint64_t *groups_found,
			uint64_t *total);

struct gpuvm_config;
struct gpuvm_params;
struct gpuvm_error;
struct scope_profile;

/* Describes a hash-groupby spec to the scope model. */
int groupby_scope_profile(const struct gpuvm_config *cfg, const struct gpuvm_params *p,
			  struct scope_profile *prof, struct gpuvm_error *err);

/* CPU reference: per-group counts digest of the same input. */
uint64_t groupby_reference(uint64_t seed, uint64_t input, uint64_t groups,
			   uint64_t *groups_found, uint64_t *total);

#endif
