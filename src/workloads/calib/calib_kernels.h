/* Calibration microbenchmark kernels (C and CUDA), written like the
 * published microbenchmarks whose values validation/microbench.tsv holds:
 *   calib_chase   one thread chases dependent indices (te42kyfo/gpu-benches
 *                 gpu-latency; Karnagel et al. DaMoN'17 tlb-bench)
 *   calib_ops     per thread, `insts` arithmetic instructions of one class
 *                 split into `ilp` independent dependent chains (ilp = 1: a
 *                 latency chain as Jia et al. 2018; many warps and ilp > 1:
 *                 issue throughput as the Accel-Sim tuner's MaxFlops)
 *   calib_copy / calib_triad / calib_stream_{init,read,read2,scale}
 *                 STREAM over doubles, grid-stride (one element per thread
 *                 as gpu-benches gpu-stream launches them, or one wave of
 *                 CTAs striding)
 *   calib_empty   a kernel that does nothing (launch + CTA dispatch cost)
 *   calib_atomic  atomicAdd: one thread's dependent chain (Accel-Sim tuner
 *                 atomic_add_lat) or every thread on its own word / one word
 *   calib_read    every thread reads a buffer grid-stride (zero-copy link
 *                 bandwidth when the buffer is pinned host memory)
 *   calib_l2read  every thread reads an L2-resident buffer grid-stride,
 *                 pass after pass, through the L2 only (__ldcg): L2
 *                 bandwidth (Accel-Sim tuner l2_bw, gpu-benches gpu-l2-cache);
 *                 calib_l2read16 the same with 16-byte loads;
 *                 calib_l2write16 16-byte stores instead (an SM's store
 *                 path to the L2)
 * Each does real work on real data; the timing is the engine's. */
#include "gpuvm/simt.h"

struct calib_chase_args {
	const unsigned int *next; /* next[j]: the index visited after j */
	unsigned int *out;
	unsigned int steps;       /* dependent loads per pass */
	unsigned int passes;
	int cache;                /* 0 LD, 1 LDCG (__ldcg), 2 LDCA (__ldca) */
};

/* Each load's index is the value of the load before: no two loads are
 * ever in flight together, so time per step is the load latency. */
SIMT_KERNEL_ANY_ORDER(calib_chase, struct calib_chase_args, p)
{
	if (threadIdx.x != 0)
		return;
	unsigned int j = 0;
	for (unsigned int pass = 0; pass < p.passes; pass++)
		for (unsigned int s = 0; s < p.steps; s++) {
			if (p.cache == 1)
				j = LDCG(p.next, j);
			else if (p.cache == 2)
				j = LDCA(p.next, j);
			else
				j = LD(p.next, j);
		}
	ST(p.out, 0, j);
}

struct calib_par_chase_args {
	const unsigned int *next;
	const unsigned int *starts; /* starts[w]: the index warp w starts from */
	unsigned int *out;          /* out[w]: where warp w's chase ended */
	unsigned int steps;         /* dependent loads per chaser */
	unsigned int lanes;         /* chasers per warp: 1 (lane 0) or 32 (every lane) */
};

/* Lane 0 of every warp (lanes = 1) or every lane (32) chases its own part
 * of a chain through the L2 (__ldcg): a chaser's loads depend on each
 * other, different chasers' do not, so K warps keep up to K (or 32 K, one
 * page per lane of a warp instruction, as random sampling's loads) misses
 * in flight. With every node on its own page past a TLB level's reach,
 * hops per cycle grow with K until the level's MSHRs (or the walkers) are
 * full: the knee is their count (Little's law with the miss time). */
SIMT_KERNEL_ANY_ORDER(calib_par_chase, struct calib_par_chase_args, p)
{
	unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (p.lanes == 1 && threadIdx.x % 32 != 0)
		return;
	unsigned int w = p.lanes == 1 ? t / 32 : t;
	unsigned int j = LD(p.starts, w);
	for (unsigned int s = 0; s < p.steps; s++)
		j = LDCG(p.next, j);
	ST(p.out, w, j);
}

/* op classes of calib_ops, in enum gpuvm_op_class order where they exist */
enum calib_op { CALIB_OP_ALU, CALIB_OP_FMA, CALIB_OP_IMAD, CALIB_OP_SFU, CALIB_OP_DP };

struct calib_ops_args {
	unsigned int *out;
	unsigned int insts; /* per thread */
	unsigned int ilp;   /* independent chains the insts are split into */
	int op;             /* enum calib_op */
	int cls;            /* its enum gpuvm_op_class (C build) */
};

/* The arithmetic is done for real (the digest checks it); the cost hint
 * says what the CUDA build's SASS would be: insts instructions of the
 * class whose longest dependent chain is insts / ilp. */
SIMT_KERNEL_ANY_ORDER(calib_ops, struct calib_ops_args, p)
{
	unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int u = tid | 1u;
	float f = (float)(tid & 255) * 0.001f + 1.0f;
	double d = (double)f;
	for (unsigned int k = 0; k < p.insts; k++) {
		switch (p.op) {
		case CALIB_OP_ALU: u = u + 0x9e3779b9u; break;
		case CALIB_OP_FMA: f = f * 0.999f + 0.001f; break;
		case CALIB_OP_IMAD: u = u * 1664525u + 1013904223u; break;
		case CALIB_OP_SFU: f = 1.0f / (f + 1.0f) + 1.0f; break;
		default: d = d * 0.999 + 0.001; break;
		}
	}
	COMPUTE_CHAIN(p.insts / p.ilp, p.cls);
	COMPUTE(p.insts - p.insts / p.ilp);
	ST(p.out, tid, u ^ (unsigned int)(f * 1000.0f) ^ (unsigned int)(d * 1000.0));
}

struct calib_stream_args {
	double *a;
	const double *b, *c;
	double q;
	unsigned long long n;
};

/* STREAM copy a = b, grid-stride */
SIMT_KERNEL_ANY_ORDER(calib_copy, struct calib_stream_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(4); /* index math and loop test */
		ST(p.a, i, LD(p.b, i));
	}
}

/* STREAM triad a = b + q c, grid-stride; the two loads are independent
 * (the compiler issues both before the first is used) */
SIMT_KERNEL_ANY_ORDER(calib_triad, struct calib_stream_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(6); /* index math, DFMA, loop test */
		double b = LD_INDEP(p.b, i);
		double c = LD_INDEP(p.c, i);
		ST(p.a, i, b + p.q * c);
	}
}

/* gpu-stream's scale kernel, a = 1.2 b: one load, a store after it */
SIMT_KERNEL_ANY_ORDER(calib_stream_scale, struct calib_stream_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(5); /* index math, DMUL, loop test */
		ST(p.a, i, 1.2 * LD(p.b, i));
	}
}

/* gpu-stream's init kernel, a = 0.23: stores only, so at low occupancy its
 * rate is the CTA slots' turnover (dispatch, launch, retire) */
SIMT_KERNEL_ANY_ORDER(calib_stream_init, struct calib_stream_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(4); /* index math and loop test */
		ST(p.a, i, 0.23);
	}
}

/* gpu-stream's read kernel: loads b and compares it with a value b never
 * holds (b is 0..1023 here; gpu-stream compares its 0.23 with 123), so
 * the store never happens and a CTA ends when its loads are back:
 * turnover plus the load latency */
SIMT_KERNEL_ANY_ORDER(calib_stream_read, struct calib_stream_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(4); /* index math and loop test */
		double b = LD(p.b, i);
		COMPUTE(1); /* the compare */
		if (b == -1.0)
			ST(p.a, i, b);
	}
}

/* read's two-array form: loads b and c (independent, as the triad's) and
 * compares their sum with a value it never takes, so no store: a CTA ends
 * when both loads are back. Beside read, scale and the triad it separates
 * what a second load costs a CTA from what a store after a load does. */
SIMT_KERNEL_ANY_ORDER(calib_stream_read2, struct calib_stream_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     i < p.n; i += stride) {
		COMPUTE(5); /* index math, the add and loop test */
		double b = LD_INDEP(p.b, i);
		double c = LD_INDEP(p.c, i);
		COMPUTE(1); /* the compare */
		if (b + c == -1.0)
			ST(p.a, i, b);
	}
}

struct calib_empty_args {
	int unused;
};

SIMT_KERNEL_NO_YIELD(calib_empty, struct calib_empty_args, p)
{
	(void)p;
	(void)threadIdx; /* the C build's thread context, unused here */
}

struct calib_atomic_args {
	unsigned int *words;
	unsigned int *out;
	unsigned int steps;
	int mode; /* 0 chain (thread 0 only), 1 own word per thread, 2 one shared word */
};

/* mode 0: one thread, one word: each atomic's returned value is used
 * (acc), so on hardware each waits for the last (the engine's implicit
 * chain gives the same); modes 1, 2: every thread, own or one word. */
SIMT_KERNEL(calib_atomic, struct calib_atomic_args, p)
{
	unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int j = p.mode == 0 ? 0 : p.mode == 1 ? tid : 0;
	if (p.mode == 0 && tid != 0)
		return;
	unsigned int acc = 0;
	for (unsigned int s = 0; s < p.steps; s++) {
		unsigned int old = ATOMIC_ADD(p.words, j, 1u);
		acc += old;
	}
	ST(p.out, tid, acc);
}

struct calib_read_args {
	const unsigned int *src;
	unsigned int *out;
	unsigned long long n;
};

/* Every thread sums its grid-stride share of src. */
SIMT_KERNEL_ANY_ORDER(calib_read, struct calib_read_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int acc = 0;
	for (unsigned long long i = tid; i < p.n; i += stride) {
		COMPUTE(3);
		acc += LD(p.src, i);
	}
	ST(p.out, tid, acc);
}

struct calib_l2read_args {
	const unsigned int *src;
	unsigned int *out;
	unsigned long long n;
	unsigned int passes;
};

/* Every thread sums its grid-stride share of src, passes times, loading
 * through the L2 only: after the first pass the buffer is L2-resident, so
 * each further pass times the L2's read bandwidth (the loads of a warp are
 * independent of each other; only the sum waits for them). */
SIMT_KERNEL_ANY_ORDER(calib_l2read, struct calib_l2read_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int acc = 0;
	for (unsigned int pass = 0; pass < p.passes; pass++)
		for (unsigned long long i = tid; i < p.n; i += stride) {
			COMPUTE(3);
			acc += LDCG(p.src, i);
		}
	ST(p.out, tid, acc);
}

/* A 16-byte word: CUDA's uint4 where __ldcg has an overload for it. */
#ifdef __CUDACC__
typedef uint4 calib_u4;
#else
typedef struct calib_u4 {
	unsigned int x, y, z, w;
} calib_u4;
#endif

struct calib_l2read16_args {
	const calib_u4 *src;
	unsigned int *out;
	unsigned long long n; /* 16-byte words */
	unsigned int passes;
};

/* calib_l2read with a 16-byte load per thread (a warp reads 512 B, 16
 * sectors, per load): the in-order warp still waits for each load, but
 * four times the bytes are in flight, so one SM's 1024 threads ask more
 * of the L2 than its port passes (seeds/001 5.1.3 measures that port). */
SIMT_KERNEL_ANY_ORDER(calib_l2read16, struct calib_l2read16_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned int acc = 0;
	for (unsigned int pass = 0; pass < p.passes; pass++)
		for (unsigned long long i = tid; i < p.n; i += stride) {
			COMPUTE(3);
			calib_u4 v = LDCG(p.src, i);
			acc += v.x ^ v.y ^ v.z ^ v.w;
		}
	ST(p.out, tid, acc);
}

struct calib_l2write16_args {
	calib_u4 *dst;
	unsigned long long n; /* 16-byte words */
	unsigned int passes;
};

/* calib_l2read16's shape with a 16-byte store per thread instead of the
 * load (a warp writes 512 B, 16 sectors, per store; the buffer stays in
 * the L2, whose write-back holds the dirty lines): what one SM's stores
 * pass to the L2 where loads pass l2_read_gb_s_1cta_per_sm. A store does
 * not wait for its line, so only the path's throughput limits the warp. */
SIMT_KERNEL_ANY_ORDER(calib_l2write16, struct calib_l2write16_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	unsigned long long tid = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	for (unsigned int pass = 0; pass < p.passes; pass++)
		for (unsigned long long i = tid; i < p.n; i += stride) {
			COMPUTE(3);
			calib_u4 v = {pass, (unsigned int)i, (unsigned int)tid, 7u};
			ST(p.dst, i, v);
		}
}
