/* The BigKernel runtime and its baselines (bk_runtime.h). */
#include "bigkernel/bk_addrgen.h"
#include "bigkernel/bk_pattern.h"
#include "bigkernel/bk_runtime.h"
#include "workloads/sl1/sl1_cln.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Device-side buffers and the launch shape shared by the variants. */
struct bk_bufs {
	uint64_t threads, grid, per_max, kmax, elems_per_rec;
	unsigned char *chunk_dev;        /* original layout: one chunk */
	unsigned long long *index_dev;   /* indexed: the chunk's index slice */
	unsigned char *data_dev;         /* BigKernel's data buffer */
	unsigned long long *addr_pin;    /* stage 1 output: addresses */
	unsigned long long *pat_pin;     /* stage 1 output: patterns / counts */
	unsigned char *prefetch;         /* stage 2 output (pinned prefetch buffer) */
	unsigned char *prefetch_np;      /* the same, assembled from addresses */
	unsigned long long *sl1_keep;    /* S-L1 state between chunks (bk_sl1_restore) */
};

uint64_t bk_thread_addresses(const unsigned long long *pat, const unsigned long long *addr,
			     uint64_t threads, uint64_t t, uint64_t *out, uint64_t cap)
{
	struct bk_addr_iter it;
	bk_iter_init(&it, pat, addr, threads, t);
	uint64_t n = 0, a;
	while (n < cap && bk_iter_next(&it, &a))
		out[n++] = a;
	return n;
}

/* ---- stages ------------------------------------------------------------ */

static double copy_seconds(const struct bk_opts *o, double bytes, unsigned threads)
{
	return bytes / (o->host_copy_gb_s * 1e9 * threads);
}

/* Stage 2: gathers every thread's elements into their slots of out
 * (bk_piece_slot; with kmax, thread t's at t x kmax: BK_COMPACT), reading
 * the data thread by thread (the locality of 4.3.2). Returns -1 if
 * an address falls outside the input (a broken stage 1). */
static int assemble(struct bk_run *r, const struct bk_bufs *b, unsigned char *out, uint64_t kmax,
		    uint64_t *gathered, uint64_t *addr_bytes)
{
	const struct bk_template *tp = &r->app->tp;
	unsigned es = tp->elem;
	uint64_t room = kmax ? kmax : b->kmax; /* elements a thread's slots hold */
	for (uint64_t t = 0; t < b->threads; t++) {
		struct bk_addr_iter it;
		bk_iter_init(&it, b->pat_pin, b->addr_pin, b->threads, t);
		if (it.n > b->kmax)
			return simt_fail(r->h, "stage 1: thread %llu sent %llu addresses, room for %llu",
					 (unsigned long long)t, (unsigned long long)it.n,
					 (unsigned long long)b->kmax);
		*addr_bytes += it.pattern ? (3 + 2 * (uint64_t)it.period) * 8 : it.n * 8;
		uint64_t a, i = 0, k = 0;
		while (bk_iter_next(&it, &a)) {
			/* an address names one element, or a run's elements
			 * (addr_per_run: the runs of a record in turn) */
			uint64_t n = tp->addr_per_run ? tp->run_n[i % tp->nruns] : 1;
			if (a > r->input_bytes || (r->input_bytes - a) / es < n)
				return simt_fail(r->h, "stage 1: address %llu outside the %llu-byte input",
						 (unsigned long long)a, (unsigned long long)r->input_bytes);
			if (k + n > room)
				return simt_fail(r->h, "stage 1: thread %llu's addresses name more than %llu "
						 "elements", (unsigned long long)t, (unsigned long long)room);
			for (uint64_t j = 0; j < n; j++, k++) {
				uint64_t slot = kmax ? t * kmax + k : bk_piece_slot(k, t, b->threads, es);
				memcpy(out + slot * es, r->input + a + j * es, es);
			}
			i++;
		}
		if (i != it.n)
			return simt_fail(r->h, "stage 1: thread %llu's pattern is malformed",
					 (unsigned long long)t);
		*gathered += k * es;
	}
	return 0;
}

/* The data buffer's bytes for k elements per thread (whole pieces). */
static uint64_t data_bytes(const struct bk_bufs *b, uint64_t k, unsigned es)
{
	uint64_t per = BK_PIECE / es;
	return (k + per - 1) / per * b->threads * BK_PIECE;
}

static struct bk_range chunk_range(const struct bk_bufs *b, const struct bk_chunk *c)
{
	struct bk_range g = {c->nrec, (c->nrec + b->threads - 1) / b->threads};
	return g;
}

/* Launches the application's kernel on chunk c reading map m. */
static int compute(struct bk_run *r, const struct bk_bufs *b, int pass, const struct bk_chunk *c,
		   const struct bk_map *m, double *secs)
{
	_Alignas(16) unsigned char args[512];
	struct bk_range g = chunk_range(b, c);
	size_t n = r->app->args(r, pass, m, &g, c->first_rec, c->base, args);
	double t0 = simt_now_seconds(r->h);
	int rc;
	if (m->sl1.enabled) /* the S-L1 segment: CLN lines of 16 B per thread */
		rc = simt_launch_shared(r->h, r->app->kernel_name, r->app->kernel,
					simt_dim3((uint32_t)b->grid, 1, 1), simt_dim3(r->o->block, 1, 1),
					(uint32_t)((uint64_t)m->sl1.cln * SL1_LINE * r->o->block), args, n);
	else
		rc = simt_launch(r->h, r->app->kernel_name, r->app->kernel, simt_dim3((uint32_t)b->grid, 1, 1),
				 simt_dim3(r->o->block, 1, 1), args, n);
	if (rc)
		return -1;
	*secs = simt_now_seconds(r->h) - t0;
	return 0;
}

static int upload(struct bk_run *r, const void *p, uint64_t bytes, double *secs)
{
	double t0 = simt_now_seconds(r->h);
	if (simt_upload(r->h, p, bytes))
		return -1;
	*secs += simt_now_seconds(r->h) - t0;
	return 0;
}

static int chunk_out(struct bk_run *r, const struct bk_chunk *c, double *secs)
{
	if (!r->app->chunk_out)
		return 0;
	double t0 = simt_now_seconds(r->h);
	if (r->app->chunk_out(r, c->first_rec, c->nrec))
		return -1;
	*secs = simt_now_seconds(r->h) - t0;
	return 0;
}

/* The index slice of chunk c on the GPU (indexed applications). */
static int send_index(struct bk_run *r, const struct bk_bufs *b, const struct bk_chunk *c,
		      double *secs)
{
	if (!r->index)
		return 0;
	memcpy(b->index_dev, r->index + c->first_rec, c->nrec * 8);
	return upload(r, b->index_dev, c->nrec * 8, secs);
}

static int check(struct bk_run *r, struct bk_variant *v)
{
	v->ok = r->app->check(r, r->extra, sizeof r->extra);
	return v->ok ? 0 : simt_fail(r->h, "%s: the result differs from the CPU reference", r->app->name);
}

/* Overlaps the stage times of every pass (a pass waits for the one before:
 * MasterCard Affinity's second pass reads the first's customers). */
static int timeline(struct bk_run *r, const double *dur, unsigned buffers, struct bk_variant *v)
{
	size_t per_pass = r->nchunks * BK_STAGES;
	v->seconds = v->serial_s = 0;
	for (int p = 0; p < r->app->passes; p++) {
		double ser = bk_schedule(dur + (size_t)p * per_pass, r->nchunks, buffers, r->tasks);
		double m = bk_schedule_ag(dur + (size_t)p * per_pass, r->nchunks, buffers,
					  r->o->ag_overlap, r->tasks);
		if (m < 0 || ser < 0)
			return simt_fail(r->h, "out of memory");
		v->seconds += m;
		v->serial_s += ser;
	}
	memset(v->stage_s, 0, sizeof v->stage_s);
	for (size_t i = 0; i < (size_t)r->app->passes * per_pass; i++)
		v->stage_s[i % BK_STAGES] += dur[i];
	return 0;
}

/* ---- the variants ------------------------------------------------------ */

/* Single buffering is the thesis's Fig. 4.5 (seeds/001 4.2.1): one
 * cudaMemcpy per chunk straight from the host array (pageable memory),
 * then the kernel. The driver stages a pageable copy through its own
 * pinned memory (the thesis, 4.2.1: "data for the GPU is first copied to
 * a pinned buffer"), and the DMA runs as the staging goes: NVIDIA's CUDA
 * Runtime/Driver API reference, "API synchronization behavior": for a
 * pageable host-to-device cudaMemcpy "the function will return once the
 * pageable buffer has been copied to the staging memory for DMA transfer
 * to device memory, but the DMA to final destination may not have
 * completed". So a chunk's copy takes the longer of its staging and its
 * DMA, not their sum. The driver's staging piece is not documented, so
 * the pipeline's fill (one piece's staging) is not charged: an
 * optimistic bound by one piece per chunk. Double buffering keeps the
 * application's own staging copy into its pinned buffers (cudaMemcpyAsync
 * needs pinned memory to overlap), as before. */
static void pageable_copy(double *dur, size_t n)
{
	for (size_t i = 0; i < n; i += BK_STAGES) {
		double st = dur[i + BK_ST_ASSEMBLE], dma = dur[i + BK_ST_H2D];
		dur[i + BK_ST_ASSEMBLE] = 0;
		dur[i + BK_ST_H2D] = st > dma ? st : dma;
	}
}

/* Single and double buffering (and BigKernel's overlap-only variant of
 * Fig. 4.12): whole chunks in their original layout. */
static int run_original(struct bk_run *r, struct bk_bufs *b, double *dur)
{
	struct bk_variant *v = &r->v[BK_V_SINGLE];
	for (int p = 0; p < r->app->passes; p++)
		for (size_t i = 0; i < r->nchunks; i++) {
			const struct bk_chunk *c = &r->chunks[i];
			double *d = dur + ((size_t)p * r->nchunks + i) * BK_STAGES;
			/* the copy into the pinned staging buffer, then its DMA */
			memcpy(b->chunk_dev, r->input + c->base, c->bytes);
			d[BK_ST_ASSEMBLE] = copy_seconds(r->o, (double)c->bytes, 1);
			if (send_index(r, b, c, &d[BK_ST_INDEX]) ||
			    upload(r, b->chunk_dev, c->bytes, &d[BK_ST_H2D]))
				return -1;
			v->h2d_bytes += c->bytes + (r->index ? c->nrec * 8 : 0);
			struct bk_map m = {b->chunk_dev, b->threads, BK_ORIGINAL, 0, {0, 0, NULL}, NULL};
			if (compute(r, b, p, c, &m, &d[BK_ST_COMPUTE]) || chunk_out(r, c, &d[BK_ST_D2H]))
				return -1;
		}
	if (check(r, v))
		return -1;
	r->v[BK_V_DOUBLE] = r->v[BK_V_OVERLAP] = *v;
	size_t n = (size_t)r->app->passes * r->nchunks * BK_STAGES;
	double *sd = malloc(n * sizeof *sd);
	if (!sd)
		return simt_fail(r->h, "out of memory");
	memcpy(sd, dur, n * sizeof *sd);
	pageable_copy(sd, n);
	int bad = timeline(r, sd, 1, &r->v[BK_V_SINGLE]) || timeline(r, dur, 2, &r->v[BK_V_DOUBLE]);
	free(sd);
	if (bad)
		return -1;
	/* overlap only: BigKernel's buffers and assembly threads, the data
	 * as it is (no volume reduction, no interleaving) */
	for (size_t i = BK_ST_ASSEMBLE; i < n; i += BK_STAGES)
		dur[i] /= r->o->cpu_threads;
	if (timeline(r, dur, r->o->buffers, &r->v[BK_V_OVERLAP]))
		return -1;
	r->ran[BK_V_SINGLE] = r->ran[BK_V_DOUBLE] = r->ran[BK_V_OVERLAP] = 1;
	return 0;
}

static int addrgen(struct bk_run *r, const struct bk_bufs *b, const struct bk_chunk *c, int detect,
		   double *secs)
{
	struct bk_ag_args a;
	memset(&a, 0, sizeof a);
	a.tp = r->app->tp;
	a.g = chunk_range(b, c);
	a.threads = b->threads;
	a.chunk_base = c->base;
	a.index = r->index ? b->index_dev : NULL;
	a.addr = b->addr_pin;
	a.pat = b->pat_pin;
	a.detect = detect;
	double t0 = simt_now_seconds(r->h);
	if (SIMT_LAUNCH(r->h, bk_addrgen, simt_dim3((uint32_t)b->grid, 1, 1), simt_dim3(r->o->block, 1, 1), a))
		return -1;
	*secs = simt_now_seconds(r->h) - t0;
	return 0;
}

/* BigKernel, with pattern recognition; with o->nopat also stage 1 and 2
 * without it (Table 4.2), whose prefetch buffer must come out the same.
 * With sl1 (and no nopat), BigKernel + S-L1: the same stages, the
 * computation kernel reading through S-L1 (Fig. 5.14), its state kept
 * from chunk to chunk as the thesis's persistent kernel keeps it. */
static int run_bigkernel(struct bk_run *r, struct bk_bufs *b, double *dur, double *dur_np, int sl1)
{
	struct bk_variant *v = &r->v[sl1 ? BK_V_BK_SL1 : BK_V_BIGKERNEL], *vn = &r->v[BK_V_BK_NOPAT];
	unsigned es = r->app->tp.elem;
	int nopat = r->o->nopat && !sl1;
	struct sl1_cfg scfg = {0, 0, NULL};
	if (sl1) {
		scfg.enabled = 1;
		scfg.cln = r->sl1_cln = sl1_cln_of(r->o->smem_per_sm, r->o->sms, r->o->max_warps,
						   r->o->max_ctas, b->grid, r->o->block, 0, r->app->sl1_nds);
		scfg.stats = &r->sl1_stats;
	}
	for (int p = 0; p < r->app->passes; p++) {
		/* a new kernel: no S-L1 state yet */
		if (sl1)
			memset(b->sl1_keep, 0, BK_SL1_KEEP_WORDS * b->threads * 8);
		for (size_t i = 0; i < r->nchunks; i++) {
			const struct bk_chunk *c = &r->chunks[i];
			size_t at = ((size_t)p * r->nchunks + i) * BK_STAGES;
			double *d = dur + at, *dn = dur_np + at;
			uint64_t bytes = data_bytes(b, chunk_range(b, c).per * b->elems_per_rec, es);
			uint64_t gathered = 0, ab = 0;
			if (send_index(r, b, c, &d[BK_ST_INDEX]) || addrgen(r, b, c, 1, &d[BK_ST_ADDRGEN]))
				return -1;
			memset(b->prefetch, 0, bytes);
			if (assemble(r, b, b->prefetch, 0, &gathered, &ab))
				return -1;
			d[BK_ST_ASSEMBLE] = copy_seconds(r->o, (double)gathered + 0.5 * (double)ab, r->o->cpu_threads);
			v->addr_bytes += ab;
			if (nopat) {
				uint64_t g2 = 0, ab2 = 0;
				if (addrgen(r, b, c, 0, &dn[BK_ST_ADDRGEN]))
					return -1;
				memset(b->prefetch_np, 0, bytes);
				if (assemble(r, b, b->prefetch_np, 0, &g2, &ab2))
					return -1;
				if (memcmp(b->prefetch, b->prefetch_np, bytes))
					return simt_fail(r->h, "%s: the data assembled from patterns differs "
							 "from the data assembled from addresses", r->app->name);
				dn[BK_ST_ASSEMBLE] = copy_seconds(r->o, (double)g2 + 0.5 * (double)ab2,
								  r->o->cpu_threads);
				vn->addr_bytes += ab2;
			}
			/* stage 3: the pinned buffer's DMA into the data buffer */
			memcpy(b->data_dev, b->prefetch, bytes);
			if (upload(r, b->data_dev, bytes, &d[BK_ST_H2D]))
				return -1;
			v->h2d_bytes += bytes + (r->index ? c->nrec * 8 : 0);
			struct bk_map m = {b->data_dev, b->threads, BK_INTERLEAVED, 0, scfg,
					   sl1 ? b->sl1_keep : NULL};
			if (compute(r, b, p, c, &m, &d[BK_ST_COMPUTE]) || chunk_out(r, c, &d[BK_ST_D2H]))
				return -1;
			/* the same transfer and computation without patterns */
			dn[BK_ST_INDEX] = d[BK_ST_INDEX];
			dn[BK_ST_H2D] = d[BK_ST_H2D];
			dn[BK_ST_COMPUTE] = d[BK_ST_COMPUTE];
			dn[BK_ST_D2H] = d[BK_ST_D2H];
		}
	}
	if (check(r, v) || timeline(r, dur, r->o->buffers, v))
		return -1;
	r->ran[sl1 ? BK_V_BK_SL1 : BK_V_BIGKERNEL] = 1;
	if (nopat) {
		vn->h2d_bytes = v->h2d_bytes;
		vn->ok = v->ok;
		if (timeline(r, dur_np, r->o->buffers, vn))
			return -1;
		r->ran[BK_V_BK_NOPAT] = 1;
	}
	return 0;
}

/* Fig. 4.12's volume reduction alone: BigKernel's stages, but each
 * thread's elements together (no interleaving, so no coalescing). */
static int run_volume(struct bk_run *r, struct bk_bufs *b, double *dur)
{
	struct bk_variant *v = &r->v[BK_V_VOLUME];
	unsigned es = r->app->tp.elem;
	for (int p = 0; p < r->app->passes; p++)
		for (size_t i = 0; i < r->nchunks; i++) {
			const struct bk_chunk *c = &r->chunks[i];
			double *d = dur + ((size_t)p * r->nchunks + i) * BK_STAGES;
			uint64_t kmax = chunk_range(b, c).per * b->elems_per_rec, bytes = kmax * b->threads * es;
			uint64_t gathered = 0, ab = 0;
			if (send_index(r, b, c, &d[BK_ST_INDEX]) || addrgen(r, b, c, 1, &d[BK_ST_ADDRGEN]))
				return -1;
			memset(b->data_dev, 0, bytes);
			if (assemble(r, b, b->data_dev, kmax, &gathered, &ab))
				return -1;
			d[BK_ST_ASSEMBLE] = copy_seconds(r->o, (double)gathered + 0.5 * (double)ab, r->o->cpu_threads);
			if (upload(r, b->data_dev, bytes, &d[BK_ST_H2D]))
				return -1;
			v->h2d_bytes += bytes + (r->index ? c->nrec * 8 : 0);
			struct bk_map m = {b->data_dev, b->threads, BK_COMPACT, kmax, {0, 0, NULL}, NULL};
			if (compute(r, b, p, c, &m, &d[BK_ST_COMPUTE]) || chunk_out(r, c, &d[BK_ST_D2H]))
				return -1;
		}
	if (check(r, v) || timeline(r, dur, r->o->buffers, v))
		return -1;
	r->ran[BK_V_VOLUME] = 1;
	return 0;
}

/* Unified memory: the input in a managed allocation, the kernel on each
 * chunk in place, one after the other. */
static int run_um(struct bk_run *r, struct bk_bufs *b)
{
	struct bk_variant *v = &r->v[BK_V_UM];
	unsigned char *um = simt_malloc(r->h, "input.managed", r->input_bytes, GPUVM_ALLOC_MANAGED);
	unsigned long long *idx = NULL;
	if (!um)
		return -1;
	memcpy(um, r->input, r->input_bytes);
	double t0 = simt_now_seconds(r->h);
	if (r->index) {
		idx = simt_malloc(r->h, "index.all", r->nrec * 8, GPUVM_ALLOC_DEVICE);
		if (!idx)
			return -1;
		memcpy(idx, r->index, r->nrec * 8);
		t0 = simt_now_seconds(r->h);
		if (upload(r, idx, r->nrec * 8, &v->stage_s[BK_ST_INDEX]))
			return -1;
	}
	for (int p = 0; p < r->app->passes; p++)
		for (size_t i = 0; i < r->nchunks; i++) {
			const struct bk_chunk *c = &r->chunks[i];
			struct bk_map m = {um + c->base, b->threads, BK_ORIGINAL, 0, {0, 0, NULL}, NULL};
			double dc = 0, dd = 0;
			r->cur_index = idx ? idx + c->first_rec : NULL;
			if (compute(r, b, p, c, &m, &dc) || chunk_out(r, c, &dd))
				return -1;
			v->stage_s[BK_ST_COMPUTE] += dc;
			v->stage_s[BK_ST_D2H] += dd;
		}
	v->seconds = simt_now_seconds(r->h) - t0;
	r->cur_index = b->index_dev;
	if (check(r, v) || simt_free(r->h, um) || (idx && simt_free(r->h, idx)))
		return -1;
	r->ran[BK_V_UM] = 1;
	return 0;
}

/* ---- setup ----------------------------------------------------------- */

static int make_chunks(struct bk_run *r)
{
	const struct bk_template *tp = &r->app->tp;
	uint64_t cb = r->o->chunk_bytes;
	if (tp->rec_bytes) {
		uint64_t per = cb / tp->rec_bytes ? cb / tp->rec_bytes : 1;
		r->nchunks = (size_t)((r->nrec + per - 1) / per);
	} else {
		/* indexed records: chunks of whole generator blocks, which no
		 * record spans (bk_kernels.h, MasterCard Affinity) */
		cb = cb / BK_MCA_BLOCK * BK_MCA_BLOCK;
		if (!cb)
			cb = BK_MCA_BLOCK;
		r->nchunks = (size_t)((r->input_bytes + cb - 1) / cb);
	}
	r->chunks = calloc(r->nchunks ? r->nchunks : 1, sizeof *r->chunks);
	if (!r->chunks)
		return simt_fail(r->h, "out of memory");
	uint64_t rec = 0;
	for (size_t i = 0; i < r->nchunks; i++) {
		struct bk_chunk *c = &r->chunks[i];
		c->first_rec = rec;
		if (tp->rec_bytes) {
			uint64_t per = cb / tp->rec_bytes ? cb / tp->rec_bytes : 1;
			c->nrec = r->nrec - rec < per ? r->nrec - rec : per;
			c->base = rec * tp->rec_bytes;
			c->bytes = c->nrec * tp->rec_bytes;
		} else {
			uint64_t end = (i + 1) * cb < r->input_bytes ? (i + 1) * cb : r->input_bytes;
			c->base = i * cb;
			c->bytes = end - c->base;
			while (rec < r->nrec && r->index[rec] < end)
				rec++;
			c->nrec = rec - c->first_rec;
			continue;
		}
		rec += c->nrec;
	}
	return 0;
}

static int make_bufs(struct bk_run *r, struct bk_bufs *b)
{
	const struct bk_template *tp = &r->app->tp;
	uint64_t maxrec = 0, maxbytes = 0;
	for (size_t i = 0; i < r->nchunks; i++) {
		if (r->chunks[i].nrec > maxrec)
			maxrec = r->chunks[i].nrec;
		if (r->chunks[i].bytes > maxbytes)
			maxbytes = r->chunks[i].bytes;
	}
	if (!maxrec)
		return simt_fail(r->h, "the input holds no record");
	/* records per thread, then only as many threads as that needs, so
	 * that the interleaved buffer has no holes but the last block's */
	uint64_t T = r->o->threads < maxrec ? r->o->threads : maxrec;
	b->per_max = (maxrec + T - 1) / T;
	T = (maxrec + b->per_max - 1) / b->per_max;
	b->grid = (T + r->o->block - 1) / r->o->block;
	b->threads = b->grid * r->o->block;
	b->elems_per_rec = 0;
	for (unsigned s = 0; s < tp->nruns; s++)
		b->elems_per_rec += tp->run_n[s];
	b->kmax = b->per_max * b->elems_per_rec;
	uint64_t data = data_bytes(b, b->kmax, tp->elem);
	b->chunk_dev = simt_malloc(r->h, "chunk", maxbytes, GPUVM_ALLOC_DEVICE);
	b->data_dev = simt_malloc(r->h, "bk.data", data, GPUVM_ALLOC_DEVICE);
	b->pat_pin = simt_malloc(r->h, "bk.patterns", b->threads * BK_PAT_WORDS * 8, GPUVM_ALLOC_HOST_PINNED);
	b->addr_pin = simt_malloc(r->h, "bk.addresses", b->kmax * b->threads * 8, GPUVM_ALLOC_HOST_PINNED);
	if (!b->chunk_dev || !b->data_dev || !b->pat_pin || !b->addr_pin)
		return -1;
	if (r->o->sl1 &&
	    !(b->sl1_keep = simt_malloc(r->h, "bk.sl1_state", BK_SL1_KEEP_WORDS * b->threads * 8,
					GPUVM_ALLOC_DEVICE)))
		return -1;
	if (r->index && !(b->index_dev = simt_malloc(r->h, "index", maxrec * 8, GPUVM_ALLOC_DEVICE)))
		return -1;
	r->cur_index = b->index_dev;
	b->prefetch = malloc(data);
	b->prefetch_np = malloc(data);
	if (!b->prefetch || !b->prefetch_np)
		return simt_fail(r->h, "out of memory for the %llu-byte prefetch buffers",
				 (unsigned long long)data);
	return 0;
}

/* Thread CPU time, not wall time: the build host is shared, and a
 * preempted thread's wait is not the reference's work. */
double bk_cpu_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bk_run_all(struct bk_run *r)
{
	struct bk_bufs b;
	memset(&b, 0, sizeof b);
	int rc = -1;
	double *dur = NULL, *dur_np = NULL;
	if (r->o->sl1 && !r->app->sl1_nds) {
		simt_fail(r->h, "%s: not an S-L1 application (Table 5.1); sl1=1 needs kmeans, wc, of, "
			  "dna or mca", r->app->name);
		goto out;
	}
	if (r->app->setup(r) || make_chunks(r) || make_bufs(r, &b))
		goto out;
	size_t n = (size_t)r->app->passes * r->nchunks * BK_STAGES;
	dur = calloc(n, sizeof *dur);
	dur_np = calloc(n, sizeof *dur_np);
	free(r->dur);
	free(r->tasks);
	r->dur = calloc(n, sizeof *r->dur);
	r->tasks = calloc(r->nchunks * BK_STAGES, sizeof *r->tasks);
	if (!dur || !dur_np || !r->dur || !r->tasks) {
		simt_fail(r->h, "out of memory");
		goto out;
	}
	if (run_bigkernel(r, &b, dur, dur_np, 0))
		goto out;
	memcpy(r->dur, dur, n * sizeof *dur);
	memset(dur, 0, n * sizeof *dur);
	if (r->o->volume) {
		memset(dur, 0, n * sizeof *dur);
		if (run_volume(r, &b, dur))
			goto out;
		memset(dur, 0, n * sizeof *dur);
	}
	if (run_original(r, &b, dur) || (r->o->um && run_um(r, &b)))
		goto out;
	/* last, so that the other variants are those of a run without it */
	if (r->o->sl1) {
		memset(dur, 0, n * sizeof *dur);
		if (run_bigkernel(r, &b, dur, dur_np, 1))
			goto out;
	}
	/* the tasks of BigKernel's last pass, for the caller to inspect */
	if (bk_schedule_ag(r->dur + (size_t)(r->app->passes - 1) * r->nchunks * BK_STAGES, r->nchunks,
			   r->o->buffers, r->o->ag_overlap, r->tasks) < 0)
		goto out;
	rc = 0;
out:
	free(dur);
	free(dur_np);
	free(b.prefetch);
	free(b.prefetch_np);
	return rc;
}

void bk_run_free(struct bk_run *r)
{
	for (int i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	r->nowned = 0;
	free(r->app_state);
	r->app_state = NULL;
	free(r->input);
	free(r->index);
	free(r->chunks);
	free(r->dur);
	free(r->tasks);
	r->input = NULL;
	r->index = NULL;
	r->chunks = NULL;
	r->dur = NULL;
	r->tasks = NULL;
}
