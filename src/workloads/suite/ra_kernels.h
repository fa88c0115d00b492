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

/* UVMSmart's "ra" (benchmarks/Managed/ra/main.cu of GPGPU-Sim UVMSmart,
 * the benchmark Ganguly et al. ISCA'19 run; facts only): one thread in 100
 * reads its input value, turns its fraction into a table index and writes
 * table[index] x value to output[index]: sparse random reads and writes,
 * no reuse. */
struct ra_lookup_args {
	const float *input, *table;
	float *output;
	unsigned int n;
	unsigned int stride; /* 100: the threads that work */
};

/* Any order: inputs that map to one idx race to store its output, so the
 * store is ST_ORDERED (the highest thread's value is left, whatever ran
 * last; output is not read here). */
SIMT_KERNEL_ANY_ORDER(ra_lookup_kernel, struct ra_lookup_args, p)
{
	unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
	if (x >= p.n || x % p.stride != 0)
		return;
	float in = LD(p.input, x);
	COMPUTE(6); /* floor, fraction, scale, convert */
	unsigned int idx = (unsigned int)((in - (float)(int)in) * (float)p.n);
	if (idx >= p.n)
		idx = p.n - 1;
	float t = LD(p.table, idx);
	ST_ORDERED(p.output, idx, t * in);
}

SIMT_KERNEL_ANY_ORDER(ra_kernel, struct ra_args, p)
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
