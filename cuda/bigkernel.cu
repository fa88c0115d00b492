// BigKernel (Mokhtari's thesis, seeds/001, chapter 4) as CUDA: the
// address-generation kernel (src/bigkernel/bk_addrgen.h), the Table 4.1
// application kernels (src/bigkernel/bk_kernels.h), the same bodies the
// SIMT executor runs, and a host runtime of the four-stage pipeline with
// double buffering as the baseline, shown on K-means (the other
// applications differ only in their kernel arguments, bk_apps.c).
//
// BigKernel here: per chunk, stage 1 writes addresses or patterns to
// mapped pinned memory, the host thread waits for it, gathers the data
// (bk_pattern.h) into a pinned prefetch buffer in the interleaved order,
// and queues the transfer and the computation on the buffer set's
// stream; `buffers` sets rotate, so one chunk's assembly overlaps other
// chunks' transfers and kernels. Build check only (there is no GPU
// here): scripts/check-cuda.sh.
//
// BigKernel + S-L1 (Fig. 5.14, thesis 5.3.3): with sl1_cln > 0 the
// computation kernel reads through S-L1 (include/gpuvm/sl1.h) with
// sl1_cln 16-byte lines per thread of dynamic shared memory (the host's
// CLN, src/workloads/sl1/sl1_cln.h); each buffer set keeps its threads'
// S-L1 state between its chunks (bk_sl1_restore: kernels of different
// streams may run at once, so the sets do not share one).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#include "../src/bigkernel/bk_addrgen.h"
#include "../src/bigkernel/bk_kernels.h"
#include "../src/bigkernel/bk_pattern.h"

#define BK_CHECK(x)                                                                          \
	do {                                                                                 \
		cudaError_t e_ = (x);                                                        \
		if (e_ != cudaSuccess) {                                                     \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
			return -1;                                                           \
		}                                                                            \
	} while (0)

#define BK_MAX_BUFFERS 8

struct bk_set {
	cudaStream_t s;
	unsigned long long *addr_h, *pat_h, *addr_d, *pat_d; // mapped pinned (stage 1)
	unsigned char *prefetch_h;                             // pinned (stage 2)
	unsigned char *data_d;                                 // stage 3 target
	unsigned long long *cid_d, *cid_h;                     // mapped output
	unsigned long long *sl1_keep_d;                        // S-L1 state between chunks
};

// Stage 2: thread t's k-th element goes to bk_piece_slot(k, t).
static int bk_assemble(const unsigned char *in, uint64_t in_bytes, const bk_set &b,
		       uint64_t threads, unsigned es)
{
	for (uint64_t t = 0; t < threads; t++) {
		bk_addr_iter it;
		bk_iter_init(&it, b.pat_h, b.addr_h, threads, t);
		uint64_t a, k = 0;
		while (bk_iter_next(&it, &a)) {
			if (a + es > in_bytes)
				return -1;
			memcpy(b.prefetch_h + bk_piece_slot(k, t, threads, es) * es, in + a, es);
			k++;
		}
	}
	return 0;
}

// K-means' assignment step over n particles (BK_KM_REC bytes each) in
// host memory with BigKernel; cid[i] receives particle i's cluster.
// sl1_cln > 0: the computation reads through S-L1 with that many lines.
extern "C" int bk_kmeans_bigkernel(const unsigned char *particles, uint64_t n,
				   const double *cent, unsigned long long *cid,
				   uint64_t chunk_recs, uint64_t threads, unsigned block,
				   unsigned buffers, int sl1_cln)
{
	if (buffers < 2 || buffers > BK_MAX_BUFFERS || !threads || !block || sl1_cln < 0)
		return -1;
	size_t sl1_smem = (size_t)sl1_cln * SL1_LINE * block;
	uint64_t per = (chunk_recs + threads - 1) / threads;
	uint64_t kmax = per * BK_KM_DIMS;
	uint64_t pieces = (kmax * 8 + BK_PIECE - 1) / BK_PIECE;
	size_t data_bytes = pieces * threads * BK_PIECE;
	bk_set set[BK_MAX_BUFFERS];
	memset(set, 0, sizeof set);
	for (unsigned i = 0; i < buffers; i++) {
		bk_set &b = set[i];
		BK_CHECK(cudaStreamCreate(&b.s));
		BK_CHECK(cudaHostAlloc(&b.addr_h, kmax * threads * 8, cudaHostAllocMapped));
		BK_CHECK(cudaHostAlloc(&b.pat_h, threads * BK_PAT_WORDS * 8, cudaHostAllocMapped));
		BK_CHECK(cudaHostGetDevicePointer(&b.addr_d, b.addr_h, 0));
		BK_CHECK(cudaHostGetDevicePointer(&b.pat_d, b.pat_h, 0));
		BK_CHECK(cudaHostAlloc(&b.prefetch_h, data_bytes, cudaHostAllocDefault));
		BK_CHECK(cudaMalloc(&b.data_d, data_bytes));
		BK_CHECK(cudaMalloc(&b.cid_d, chunk_recs * 8));
		BK_CHECK(cudaHostAlloc(&b.cid_h, chunk_recs * 8, cudaHostAllocDefault));
		if (sl1_cln) {
			size_t keep = BK_SL1_KEEP_WORDS * threads * 8;
			BK_CHECK(cudaMalloc(&b.sl1_keep_d, keep));
			BK_CHECK(cudaMemset(b.sl1_keep_d, 0, keep)); // no state yet
		}
	}
	uint64_t chunks = (n + chunk_recs - 1) / chunk_recs;
	unsigned grid = (unsigned)((threads + block - 1) / block);
	for (uint64_t c = 0; c < chunks + buffers; c++) {
		// retire chunk c - buffers: its cluster ids to the particles' owner
		if (c >= buffers) {
			uint64_t r = c - buffers, first = r * chunk_recs;
			uint64_t m = n - first < chunk_recs ? n - first : chunk_recs;
			bk_set &b = set[r % buffers];
			BK_CHECK(cudaStreamSynchronize(b.s));
			memcpy(cid + first, b.cid_h, m * 8);
		}
		if (c >= chunks)
			continue;
		bk_set &b = set[c % buffers];
		uint64_t first = c * chunk_recs, m = n - first < chunk_recs ? n - first : chunk_recs;
		bk_range g = {m, (m + threads - 1) / threads};
		// stage 1
		bk_ag_args a;
		memset(&a, 0, sizeof a);
		a.tp.rec_bytes = BK_KM_REC;
		a.tp.elem = 8;
		a.tp.nruns = 1;
		a.tp.run_n[0] = BK_KM_DIMS;
		a.g = g;
		a.threads = threads;
		a.chunk_base = first * BK_KM_REC;
		a.addr = b.addr_d;
		a.pat = b.pat_d;
		a.detect = 1;
		bk_addrgen<<<grid, block, 0, b.s>>>(a);
		BK_CHECK(cudaStreamSynchronize(b.s));
		// stage 2
		if (bk_assemble(particles, n * BK_KM_REC, b, threads, 8))
			return -1;
		// stages 3 and 4, and the mapped output back
		BK_CHECK(cudaMemcpyAsync(b.data_d, b.prefetch_h, data_bytes, cudaMemcpyHostToDevice, b.s));
		bk_kmeans_args k;
		k.m.data = b.data_d;
		k.m.threads = threads;
		k.m.layout = BK_INTERLEAVED;
		k.m.kmax = 0;
		k.m.sl1.enabled = sl1_cln > 0;
		k.m.sl1.cln = sl1_cln;
		k.m.sl1.stats = NULL;
		k.m.sl1_keep = b.sl1_keep_d;
		k.g = g;
		memcpy(k.cent, cent, sizeof k.cent);
		k.cid = b.cid_d;
		bk_kmeans<<<grid, block, sl1_smem, b.s>>>(k);
		BK_CHECK(cudaGetLastError());
		BK_CHECK(cudaMemcpyAsync(b.cid_h, b.cid_d, m * 8, cudaMemcpyDeviceToHost, b.s));
	}
	for (unsigned i = 0; i < buffers; i++) {
		bk_set &b = set[i];
		cudaStreamDestroy(b.s);
		cudaFreeHost(b.addr_h);
		cudaFreeHost(b.pat_h);
		cudaFreeHost(b.prefetch_h);
		cudaFree(b.data_d);
		cudaFree(b.cid_d);
		cudaFreeHost(b.cid_h);
		cudaFree(b.sl1_keep_d);
	}
	return 0;
}

// The double-buffering baseline on the same kernel: whole chunks in their
// original layout, copied into a pinned staging buffer and sent
// asynchronously on two streams.
extern "C" int bk_kmeans_double(const unsigned char *particles, uint64_t n, const double *cent,
				unsigned long long *cid, uint64_t chunk_recs, uint64_t threads,
				unsigned block)
{
	cudaStream_t s[2];
	unsigned char *stage_h[2], *chunk_d[2];
	unsigned long long *cid_d[2], *cid_h[2];
	for (int i = 0; i < 2; i++) {
		BK_CHECK(cudaStreamCreate(&s[i]));
		BK_CHECK(cudaHostAlloc(&stage_h[i], chunk_recs * BK_KM_REC, cudaHostAllocDefault));
		BK_CHECK(cudaMalloc(&chunk_d[i], chunk_recs * BK_KM_REC));
		BK_CHECK(cudaMalloc(&cid_d[i], chunk_recs * 8));
		BK_CHECK(cudaHostAlloc(&cid_h[i], chunk_recs * 8, cudaHostAllocDefault));
	}
	uint64_t chunks = (n + chunk_recs - 1) / chunk_recs;
	unsigned grid = (unsigned)((threads + block - 1) / block);
	for (uint64_t c = 0; c < chunks + 2; c++) {
		if (c >= 2) {
			uint64_t r = c - 2, first = r * chunk_recs;
			uint64_t m = n - first < chunk_recs ? n - first : chunk_recs;
			BK_CHECK(cudaStreamSynchronize(s[r % 2]));
			memcpy(cid + first, cid_h[r % 2], m * 8);
		}
		if (c >= chunks)
			continue;
		int i = (int)(c % 2);
		uint64_t first = c * chunk_recs, m = n - first < chunk_recs ? n - first : chunk_recs;
		memcpy(stage_h[i], particles + first * BK_KM_REC, m * BK_KM_REC);
		BK_CHECK(cudaMemcpyAsync(chunk_d[i], stage_h[i], m * BK_KM_REC, cudaMemcpyHostToDevice, s[i]));
		bk_kmeans_args k;
		k.m.data = chunk_d[i];
		k.m.threads = threads;
		k.m.layout = BK_ORIGINAL;
		k.m.kmax = 0;
		k.m.sl1.enabled = 0; // the plain kernel
		k.m.sl1.cln = 0;
		k.m.sl1.stats = NULL;
		k.m.sl1_keep = NULL;
		k.g.nrec = m;
		k.g.per = (m + threads - 1) / threads;
		memcpy(k.cent, cent, sizeof k.cent);
		k.cid = cid_d[i];
		bk_kmeans<<<grid, block, 0, s[i]>>>(k);
		BK_CHECK(cudaGetLastError());
		BK_CHECK(cudaMemcpyAsync(cid_h[i], cid_d[i], m * 8, cudaMemcpyDeviceToHost, s[i]));
	}
	for (int i = 0; i < 2; i++) {
		cudaStreamDestroy(s[i]);
		cudaFreeHost(stage_h[i]);
		cudaFree(chunk_d[i]);
		cudaFree(cid_d[i]);
		cudaFreeHost(cid_h[i]);
	}
	return 0;
}
