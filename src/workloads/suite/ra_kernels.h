/* HPCC RandomAccess (GUPS): each thread walks its own stretch of the
 * HPCC LFSR sequence, XOR-ing into the table (atomically, so the result is
 * exact and independent of order). */
#include "gpuvm/simt.h"

#define RA_POLY 0x0000000000000007ull

struct ra_args {
	unsigned long long *table;
	const unsigned long long *starts;
	unsigned long long mask;
	unsigned long long per_thread;
	unsigned int threads;
};

SIMT_KERNEL(ra_kernel, struct ra_args, p)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= p.threads)
		return;
	unsigned long long ran = LD(p.starts, t);
	for (unsigned long long u = 0; u < p.per_thread; u++) {
		ran = (ran << 1) ^ ((long long)ran < 0 ? RA_POLY : 0ull);
		COMPUTE(5);
		ATOMIC_XOR(p.table, ran & p.mask, ran);
	}
}
