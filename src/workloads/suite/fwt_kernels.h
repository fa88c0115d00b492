/* The CUDA samples' fastWalshTransform (5_Domain_Specific/
 * fastWalshTransform, fastWalshTransform_kernel.cuh): a dyadic convolution
 * of data and kernel through three Walsh-Hadamard transforms and a
 * modulation. A transform of 2^log2N elements is radix-4 passes in global
 * memory (fwtBatch2Kernel, 256 threads a block, each thread four elements
 * a stride apart) while log2N > 11, then one block per 2^log2N segment
 * transforms it in shared memory (fwtBatch1Kernel: N / 4 threads, radix-4
 * stages with a barrier before each, one radix-2 stage when log2N is odd).
 * Instruction counts from nvcc 13.0's PTX for sm_90 (`nvcc -O3
 * -arch=sm_90 -ptx`, run here; parameter loads and address-space
 * conversions are not instructions of their own): fwtBatch2's four loads
 * are independent (LD_INDEP) after 23 instructions of indices and
 * addresses, 12 follow before its four stores; the shared radix-2 stage
 * reads and writes its pair as one 8-byte access (ld/st.shared.v2);
 * modulateKernel's loop is unrolled by 4 but each element's loads wait for
 * the store before them (the arrays may alias), 4 instructions each. */
#include <stdint.h>
#include <string.h>

#include "gpuvm/simt.h"

#define FWT_ELEMENTARY_LOG2SIZE 11
#define FWT_THREADS 256

struct fwt_args {
	float *out;
	const float *in;
	int log2n;  /* fwt_batch1_kernel: the segment's log2 size */
	int stride; /* fwt_batch2_kernel: the pass's stride */
};

/* the radix-2 stage's pair, read and written as one 8-byte word */
SIMT_DEVFN uint64_t fwt_pack(float a, float b)
{
	uint32_t x, y;
	memcpy(&x, &a, 4);
	memcpy(&y, &b, 4);
	return (uint64_t)y << 32 | x;
}

SIMT_DEVFN float fwt_half(uint64_t w, int hi)
{
	uint32_t x = (uint32_t)(hi ? w >> 32 : w);
	float f;
	memcpy(&f, &x, 4);
	return f;
}

SIMT_KERNEL_ANY_ORDER(fwt_batch1_kernel, struct fwt_args, p)
{
	const int n = 1 << p.log2n;
	const long long base = (long long)blockIdx.x << p.log2n;
#ifdef __CUDACC__
	extern __shared__ float s_data[];
#else
	SHARED(float, s_data, n);
#endif
	COMPUTE(8); /* the base, N, the first bound test */
	for (int pos = threadIdx.x; pos < n; pos += blockDim.x) {
		COMPUTE(5); /* the global and shared addresses */
		SST(s_data, pos, LD(p.in, base + pos));
		COMPUTE(3); /* pos += blockDim.x, compare-and-branch */
	}
	const int pos = threadIdx.x;
	for (int stride = n >> 2; stride > 0; stride >>= 2) {
		int lo = pos & (stride - 1);
		int i0 = ((pos - lo) << 2) + lo;
		int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
		COMPUTE(6); /* lo, i0 */
		SYNCTHREADS();
		COMPUTE(6); /* the four shared addresses */
		float d2 = SLD(s_data, i2), d0 = SLD(s_data, i0);
		float d3 = SLD(s_data, i3), d1 = SLD(s_data, i1);
		COMPUTE(8); /* 8 FADD/FSUB */
		float e0 = d0 + d2, e2 = d0 - d2, e1 = d1 + d3, e3 = d1 - d3;
		SST(s_data, i0, e0 + e1);
		SST(s_data, i1, e0 - e1);
		SST(s_data, i2, e2 + e3);
		SST(s_data, i3, e2 - e3);
		COMPUTE(3); /* stride >>= 2, compare-and-branch */
	}
	if (p.log2n & 1) {
		COMPUTE(2);
		SYNCTHREADS();
		COMPUTE(5);
		uint64_t *pair = (uint64_t *)s_data;
		for (int q = threadIdx.x; q < n / 2; q += blockDim.x) {
			COMPUTE(3); /* the pair's address */
			uint64_t w = SLD(pair, q);
			COMPUTE(2); /* FADD, FSUB */
			float a = fwt_half(w, 0), b = fwt_half(w, 1);
			SST(pair, q, fwt_pack(a + b, a - b));
			COMPUTE(3);
		}
	}
	SYNCTHREADS();
	for (int q = threadIdx.x; q < n; q += blockDim.x) {
		COMPUTE(2); /* the shared address */
		float v = SLD(s_data, q);
		COMPUTE(4); /* the global address */
		ST(p.out, base + q, v);
		COMPUTE(3);
	}
}

SIMT_KERNEL_ANY_ORDER(fwt_batch2_kernel, struct fwt_args, p)
{
	const int pos = blockIdx.x * blockDim.x + threadIdx.x;
	const long long n = (long long)blockDim.x * gridDim.x * 4;
	const long long seg = blockIdx.y * n;
	int lo = pos & (p.stride - 1);
	long long i0 = seg + ((pos - lo) << 2) + lo;
	long long i1 = i0 + p.stride, i2 = i1 + p.stride, i3 = i2 + p.stride;
	COMPUTE(23); /* the indices, the segment, four addresses */
	float d0 = LD_INDEP(p.in, i0), d1 = LD_INDEP(p.in, i1);
	float d2 = LD_INDEP(p.in, i2), d3 = LD_INDEP(p.in, i3);
	COMPUTE(12); /* 8 FADD/FSUB, four store addresses */
	float e0 = d0 + d2, e2 = d0 - d2, e1 = d1 + d3, e3 = d1 - d3;
	ST(p.out, i0, e0 + e1);
	ST(p.out, i1, e0 - e1);
	ST(p.out, i2, e2 + e3);
	ST(p.out, i3, e2 - e3);
}

struct fwt_modulate_args {
	float *a;
	const float *b;
	int n;
};

SIMT_KERNEL_ANY_ORDER(fwt_modulate_kernel, struct fwt_modulate_args, p)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	int threads = blockDim.x * gridDim.x;
	float rcp = 1.0f / (float)p.n;
	COMPUTE(18); /* indices, the reciprocal, the trip count's division and its peel */
	for (int pos = tid; pos < p.n; pos += threads) {
		float b = LD_INDEP(p.b, pos);
		float a = LD_INDEP(p.a, pos);
		COMPUTE(4); /* FMUL x2, an address, a quarter of the loop's count */
		ST(p.a, pos, a * (b * rcp));
	}
}
