/* The SePo iteration driver (sepo_run.h). */
#include "bigdata/sepo_run.h"

#include <stdlib.h>
#include <string.h>

static int chunk_done(const unsigned int *done, uint64_t a, uint64_t b)
{
	for (uint64_t i = a; i < b; i++)
		if (!(done[i >> 5] >> (i & 31) & 1u))
			return 0;
	return 1;
}

static uint64_t first_pending(const unsigned int *done, uint64_t from, uint64_t n)
{
	for (uint64_t i = from; i < n; i++)
		if (!(done[i >> 5] >> (i & 31) & 1u))
			return i;
	return n;
}

/* Records per re-sent unit: a later iteration sends only the runs of
 * epochs that hold a postponed record (rezafmk/BRB_HashTable main.cu:
 * later passes skip epochs that fully succeeded; there an epoch is
 * EPOCHCHUNK = 30-70 records per thread). 1024 records of 64-128 bytes
 * are 64-128 KiB, a copy large enough to run near the link's full rate. */
#define SEPO_EPOCH_RECORDS 1024

/* Copies the chunk to the device: all of it in the first iteration, later
 * only the epochs with a postponed record, in runs of consecutive ones
 * (resend=epochs). */
static int upload_epochs(struct simt_host *h, const unsigned long long *chunk,
			 const unsigned int *done, uint64_t c0, uint64_t cn, uint32_t rec_words,
			 int later, unsigned event, struct sepo_run_stats *st)
{
	uint64_t rec_bytes = (uint64_t)rec_words * 8;
	for (uint64_t a = 0; a < cn;) {
		uint64_t b = a;
		while (b < cn) {
			uint64_t e = b + SEPO_EPOCH_RECORDS < cn ? b + SEPO_EPOCH_RECORDS : cn;
			if (later && chunk_done(done, c0 + b, c0 + e))
				break;
			b = e;
		}
		if (b > a) {
			if (event ? simt_upload_async(h, chunk + a * rec_words, (b - a) * rec_bytes, event)
				  : simt_upload(h, chunk + a * rec_words, (b - a) * rec_bytes))
				return -1;
			st->input_bytes += (b - a) * rec_bytes;
			a = b;
		} else {
			a = a + SEPO_EPOCH_RECORDS < cn ? a + SEPO_EPOCH_RECORDS : cn; /* all done */
		}
	}
	return 0;
}

/* BigKernel's stages 1-3 for the chunk's pending records (sepo_run.h):
 * their addresses to the host (a copy on the device-to-host stream: the
 * zero-copy stores of the address-generation threads), then the prefetch
 * buffer with the gathered records, one copy. The CPU's gather is not on
 * the engine's clock: at chapter 4's host copy rate (16 GB/s, docs/
 * bigkernel.md) a 64-byte record and half its address take 4.3 ns on
 * one thread, its DMA 4.9 ns at PCIe 3.0 x16's 13.0 GB/s, so the
 * assembly of chunk k runs ahead of the link as the transfer of chunk
 * k - 1 proceeds. The kernel reads the records in their slots of the
 * chunk buffer, not packed (a departure: docs/sepo.md). */
static int upload_records(struct simt_host *h, const unsigned long long *chunk,
			  const unsigned long long *addr, const unsigned int *done, uint64_t c0,
			  uint64_t cn, uint32_t rec_words, unsigned event, struct sepo_run_stats *st)
{
	uint64_t pending = 0;
	for (uint64_t i = c0; i < c0 + cn; i++)
		pending += !(done[i >> 5] >> (i & 31) & 1u);
	if (!pending)
		return 0;
	uint64_t bytes = pending * rec_words * 8;
	if (event ? simt_download_async(h, addr, pending * 8, 0) : simt_download(h, addr, pending * 8))
		return -1;
	if (event ? simt_upload_async(h, chunk, bytes, event) : simt_upload(h, chunk, bytes))
		return -1;
	st->address_bytes += pending * 8;
	st->input_bytes += bytes;
	return 0;
}

static int upload_pending(struct simt_host *h, const struct sepo_input *in,
			  const unsigned long long *chunk, const unsigned long long *addr,
			  const unsigned int *done, uint64_t c0, uint64_t cn, int later, unsigned event,
			  struct sepo_run_stats *st)
{
	if (in->resend_epochs)
		return upload_epochs(h, chunk, done, c0, cn, in->rec_words, later, event, st);
	return upload_records(h, chunk, addr, done, c0, cn, in->rec_words, event, st);
}

static int launch_map(struct simt_host *h, struct sepo_table *t, const struct sepo_input *in,
		      unsigned long long *chunk, unsigned int *done, unsigned int *progress,
		      uint64_t c0, uint64_t cn, uint32_t threads)
{
	struct sepo_map_args a;
	memset(&a, 0, sizeof a);
	a.t = t->d;
	a.recs = chunk;
	a.done = done;
	a.progress = progress;
	a.first = c0;
	a.n = cn;
	a.rec_words = in->rec_words;
	a.key_bytes = in->key_bytes;
	a.app = in->app;
	uint32_t th = threads;
	if (th > cn)
		th = (uint32_t)cn;
	uint32_t block = th < 256 ? th : 256;
	return simt_launch(h, in->kernel_name, in->kernel, simt_dim3((th + block - 1) / block, 1, 1),
			   simt_dim3(block, 1, 1), &a, sizeof a);
}

/* basic: has the 50 % rule stopped the iteration? (-1: error) */
static int halted_now(struct simt_host *h, struct sepo_table *t)
{
	if (!t->d.halt_groups)
		return 0;
	t->meta_bytes += 4;
	if (simt_download(h, t->d.ctr + SEPO_CTR_HALT, 4))
		return -1;
	return t->d.ctr[SEPO_CTR_HALT] != 0;
}

/* One iteration's chunks through `nbuf` rotating input buffers (§6.5,
 * §6.6.1: the thesis's applications take their input through BigKernel's
 * pipeline, whose buffer sets rotate three deep, §4.3.3): chunk k's copy
 * is issued on the copy stream as soon as its buffer is free -- after
 * chunk k - nbuf's kernel -- and its kernel waits for that copy's event,
 * so copies run beside the kernels of earlier chunks. */
static int iterate_pipelined(struct simt_host *h, struct sepo_table *t, const struct sepo_input *in,
			     unsigned long long **bufs, const unsigned long long *addr, unsigned int nbuf,
			     unsigned int *done,
			     unsigned int *progress, uint64_t first, uint64_t chunk_records, int later,
			     uint32_t threads, struct sepo_run_stats *st)
{
	uint64_t n = in->records;
	/* the chunks this iteration processes, in order */
	uint64_t m = 0, cap = (n - first + chunk_records - 1) / chunk_records + 1;
	uint64_t *list = malloc(cap * sizeof *list);
	if (!list)
		return simt_fail(h, "out of memory");
	for (uint64_t c0 = first - first % chunk_records; c0 < n; c0 += chunk_records) {
		uint64_t cn = n - c0 < chunk_records ? n - c0 : chunk_records;
		if (!later || !chunk_done(done, c0, c0 + cn))
			list[m++] = c0;
	}
	int rc = 0;
	for (uint64_t k = 0; k < m + nbuf && rc == 0; k++) {
		if (k >= nbuf) {
			/* chunk j = k - nbuf: its copy is in flight or in */
			uint64_t j = k - nbuf, c0 = list[j];
			uint64_t cn = n - c0 < chunk_records ? n - c0 : chunk_records;
			unsigned int slot = (unsigned int)(j % nbuf);
			if (simt_wait_event(h, slot + 1) ||
			    launch_map(h, t, in, bufs[slot], done, progress, c0, cn, threads)) {
				rc = -1;
				break;
			}
			if (st->n_chunk_log < SEPO_CHUNK_LOG) {
				st->copy_end_seconds[st->n_chunk_log] = simt_event_seconds(h, slot + 1);
				st->n_chunk_log++;
			}
			int halt = halted_now(h, t);
			if (halt)
				rc = halt < 0 ? -1 : 0;
			if (halt)
				break;
		}
		if (k < m) {
			/* buffer k % nbuf is free (its last chunk's kernel ran) */
			uint64_t c0 = list[k];
			uint64_t cn = n - c0 < chunk_records ? n - c0 : chunk_records;
			unsigned int slot = (unsigned int)(k % nbuf);
			in->fill(in->ctx, c0, cn, bufs[slot]);
			if (upload_pending(h, in, bufs[slot], addr, done, c0, cn, later, slot + 1, st))
				rc = -1;
		}
	}
	free(list);
	return rc;
}

int sepo_run(struct simt_host *h, struct sepo_table *t, const struct sepo_input *in,
	     uint64_t chunk_records, uint32_t threads, unsigned int buffers, struct sepo_run_stats *st)
{
	memset(st, 0, sizeof *st);
	uint64_t n = in->records, words = (n + 31) / 32;
	if (chunk_records > n)
		chunk_records = n;
	if (buffers < 1 || buffers >= GPUVM_RUN_EVENTS)
		return simt_fail(h, "%u input buffers (1..%d)", buffers, GPUVM_RUN_EVENTS - 1);
	unsigned int *done = simt_malloc(h, "sepo.done", words * 4, GPUVM_ALLOC_DEVICE);
	unsigned long long *chunk =
		simt_malloc(h, "input.chunk", chunk_records * in->rec_words * 8, GPUVM_ALLOC_DEVICE);
	unsigned long long *bufs[GPUVM_RUN_EVENTS] = {chunk};
	for (unsigned int b = 1; chunk && b < buffers; b++)
		if (!(bufs[b] = simt_malloc(h, "input.chunk", chunk_records * in->rec_words * 8,
					    GPUVM_ALLOC_DEVICE)))
			return -1;
	unsigned int *progress =
		in->needs_progress ? simt_malloc(h, "sepo.progress", n * 4, GPUVM_ALLOC_DEVICE) : NULL;
	/* BigKernel's address buffer (host-pinned in the thesis; here the
	 * device side of its copy to the host), allocated last */
	unsigned long long *addr =
		in->resend_epochs ? NULL : simt_malloc(h, "input.addresses", chunk_records * 8, GPUVM_ALLOC_DEVICE);
	if (!done || !chunk || (in->needs_progress && !progress) || (!in->resend_epochs && !addr))
		return -1;
	double t_start = simt_now_seconds(h);
	uint64_t start = 0, done_before = 0, pages_before = 0;
	for (unsigned int it = 0;; it++) {
		if (it >= SEPO_MAX_ITERS)
			return simt_fail(h, "the table needs more than %d iterations", SEPO_MAX_ITERS);
		double t0 = simt_now_seconds(h);
		uint64_t in0 = st->input_bytes;
		int halted = 0;
		if (buffers > 1 && iterate_pipelined(h, t, in, bufs, addr, buffers, done, progress, start,
						     chunk_records, it > 0, threads, st))
			return -1;
		for (uint64_t c0 = start - start % chunk_records; buffers == 1 && c0 < n && !halted;
		     c0 += chunk_records) {
			uint64_t cn = n - c0 < chunk_records ? n - c0 : chunk_records;
			if (it > 0 && chunk_done(done, c0, c0 + cn))
				continue; /* nothing postponed here: not sent again */
			in->fill(in->ctx, c0, cn, chunk);
			if (upload_pending(h, in, chunk, addr, done, c0, cn, it > 0, 0, st))
				return -1;
			if (launch_map(h, t, in, chunk, done, progress, c0, cn, threads))
				return -1;
			int halt = halted_now(h, t);
			if (halt < 0)
				return -1;
			halted = halt;
		}
		double te = simt_now_seconds(h);
		st->iter_input_bytes[it] = st->input_bytes - in0;
		t->meta_bytes += words * 4;
		if (simt_download(h, done, words * 4))
			return -1;
		start = first_pending(done, start, n);
		uint64_t done_now = 0;
		for (uint64_t w = 0; w < words; w++)
			done_now += (uint64_t)__builtin_popcount(done[w]);
		if (sepo_iteration_end(h, t, start < n))
			return -1;
		st->iter_seconds[it] = simt_now_seconds(h) - t0;
		st->iter_out_seconds[it] = simt_now_seconds(h) - te;
		st->iter_pending[it] = n - done_now;
		st->iter_kept_pages[it] = start < n ? t->kept_pages : 0;
		st->iterations = it + 1;
		if (start >= n)
			break;
		if (done_now == done_before && t->pages_taken == pages_before)
			return simt_fail(h, "iteration %u stored nothing: a record's pairs do not fit the heap",
					 it + 1);
		done_before = done_now;
		pages_before = t->pages_taken;
	}
	double t1 = simt_now_seconds(h);
	if (sepo_finish(h, t))
		return -1;
	st->iter_seconds[st->iterations - 1] += simt_now_seconds(h) - t1; /* the last copy-out */
	st->iter_out_seconds[st->iterations - 1] += simt_now_seconds(h) - t1;
	st->seconds = simt_now_seconds(h) - t_start;
	return 0;
}
