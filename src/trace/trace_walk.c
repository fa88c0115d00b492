/* Sequential passes over a source: the walk itself, `trace record` (the
 * native writer behind a visitor) and `trace info` (a summary). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "gpuvm/output_file.h"
#include "gpuvm/trace.h"
#include "trace/native.h"
#include "trace/readers.h"

int gpuvm_trace_walk(struct gpuvm_source *src, const struct gpuvm_trace_visitor *v,
		     struct gpuvm_error *err)
{
	struct gpuvm_run_op op;
	void *state = NULL;
	size_t state_cap = 0;
	int rc = -1;
	for (;;) {
		src->now_seconds = 0; /* no timing model here */
		if (src->ops->next_op(src, &op, err))
			goto out;
		if (op.kind == GPUVM_RUN_END)
			break;
		if (v->op && v->op(v->ctx, &op, err))
			goto out;
		if (op.kind != GPUVM_RUN_KERNEL)
			continue;
		struct gpuvm_kernel *k = op.kernel;
		size_t need = k->ops->warp_state_bytes ? k->ops->warp_state_bytes : 1;
		if (need > state_cap) {
			free(state);
			state = aligned_alloc(16, (need + 15) & ~(size_t)15);
			state_cap = need;
			if (!state) {
				gpuvm_fail(err, k->name, 0, NULL, "out of memory");
				goto out;
			}
		}
		uint64_t ctas = gpuvm_kernel_ctas(k);
		uint32_t wpc = gpuvm_kernel_warps_per_cta(k);
		struct gpuvm_warp_item it;
		for (uint64_t c = 0; c < ctas; c++)
			for (uint32_t w = 0; w < wpc; w++) {
				k->ops->warp_begin(k, state, (uint32_t)c, w);
				if (v->warp_begin && v->warp_begin(v->ctx, k, (uint32_t)c, w, err))
					goto out;
				for (;;) {
					gpuvm_item_reset_timing(&it);
					if (k->ops->warp_next(k, state, &it, err))
						goto out;
					if (it.kind == GPUVM_ITEM_END)
						break;
					if (v->item && v->item(v->ctx, &it, err))
						goto out;
				}
				if (k->ops->warp_end)
					k->ops->warp_end(k, state);
				if (v->warp_end && v->warp_end(v->ctx, err))
					goto out;
			}
		if (v->kernel_end && v->kernel_end(v->ctx, k, err))
			goto out;
	}
	rc = 0;
out:
	free(state);
	return rc;
}

/* ---- record ---------------------------------------------------------------- */

struct rec {
	struct native_writer w;
	struct gpuvm_trace_counts *c;
};

static int rec_op(void *ctx, const struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct rec *r = ctx;
	r->c->ops++;
	if (op->kind == GPUVM_RUN_KERNEL) {
		r->c->kernels++;
		r->c->ctas += gpuvm_kernel_ctas(op->kernel);
		return native_write_kernel(&r->w, op->kernel, err);
	}
	return native_write_op(&r->w, op, err);
}

static int rec_warp_begin(void *ctx, const struct gpuvm_kernel *k, uint32_t cta, uint32_t warp,
			  struct gpuvm_error *err)
{
	(void)k, (void)cta, (void)warp, (void)err;
	struct rec *r = ctx;
	r->c->warps++;
	native_write_warp_begin(&r->w);
	return 0;
}

static int rec_item(void *ctx, const struct gpuvm_warp_item *it, struct gpuvm_error *err)
{
	struct rec *r = ctx;
	r->c->items++;
	if (it->kind == GPUVM_ITEM_COMPUTE) {
		r->c->warp_insts += it->compute_insts;
	} else if (it->kind != GPUVM_ITEM_MEM || it->space != GPUVM_SPACE_GLOBAL) {
		r->c->warp_insts++; /* barriers, local and shared accesses */
	} else {
		r->c->warp_insts++;
		r->c->mem_insts++;
		r->c->thread_accesses += (uint64_t)__builtin_popcount(it->active_mask);
	}
	return native_write_item(&r->w, it, err);
}

static int rec_warp_end(void *ctx, struct gpuvm_error *err)
{
	return native_write_warp_end(&((struct rec *)ctx)->w, err);
}

int gpuvm_trace_record(struct gpuvm_source *src, const char *path,
		       struct gpuvm_trace_counts *counts, struct gpuvm_error *err)
{
	return gpuvm_trace_record_frames(src, path, NATIVE_CHUNK_BYTES, counts, err);
}

int gpuvm_trace_record_frames(struct gpuvm_source *src, const char *path, size_t frame_bytes,
			      struct gpuvm_trace_counts *counts, struct gpuvm_error *err)
{
	struct gpuvm_trace_counts local;
	if (!counts)
		counts = &local;
	memset(counts, 0, sizeof *counts);
	/* a regular file appears only when complete; a device or FIFO is
	 * written in place (gpuvm/output_file.h) */
	struct gpuvm_output out;
	if (gpuvm_output_open(&out, path, err))
		return -1;
	FILE *f = out.f;
	struct rec r = {.c = counts};
	int rc = native_writer_init(&r.w, f, path, true, frame_bytes, err);
	if (!rc) {
		struct gpuvm_trace_visitor v = {.ctx = &r, .op = rec_op, .warp_begin = rec_warp_begin,
						.item = rec_item, .warp_end = rec_warp_end};
		rc = gpuvm_trace_walk(src, &v, err);
		if (!rc)
			rc = native_write_end(&r.w, err);
		counts->stream_bytes = r.w.stream_bytes;
		counts->file_bytes = r.w.offset;
		native_writer_free(&r.w);
	}
	bool write_failed = r.w.write_failed;
	if (rc)
		gpuvm_output_cancel(&out);
	else if ((rc = gpuvm_output_close(&out, err)))
		write_failed = true;
	/* -2: the input was fine, the output could not be written */
	return rc && write_failed ? -2 : rc;
}

/* ---- info ------------------------------------------------------------------ */

#define INFO_PAGE_SHIFT 12 /* footprint in 4 KiB pages */

struct info {
	cJSON *root, *kernels, *allocs, *copies, *managed_ops, *cur;
	bool footprint;
	struct u64map pages; /* touched 4 KiB pages (values unused) */
	uint64_t last_page;
	uint64_t k_warps, k_insts, k_mem, k_acc;
	uint64_t kernels_n, ctas, warps, insts, mem, acc, loads, stores, atomics, h2d, d2h;
};

static cJSON *hex(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof b, "0x%" PRIx64, v);
	return cJSON_CreateString(b);
}

static int info_op(void *ctx, const struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	struct info *in = ctx;
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return gpuvm_fail(err, "trace info", 0, NULL, "out of memory");
	static const char *const kinds[] = {"device", "managed", "host_pinned"};
	switch (op->kind) {
	case GPUVM_RUN_ALLOC:
		cJSON_AddStringToObject(o, "name", op->alloc.name);
		cJSON_AddItemToObject(o, "base", hex(op->alloc.base));
		cJSON_AddNumberToObject(o, "bytes", (double)op->alloc.bytes);
		cJSON_AddStringToObject(o, "kind", kinds[op->alloc.kind % 3]);
		cJSON_AddItemToArray(in->allocs, o);
		return 0;
	case GPUVM_RUN_FREE:
		cJSON_AddStringToObject(o, "direction", "free");
		cJSON_AddItemToObject(o, "addr", hex(op->alloc.base));
		cJSON_AddNumberToObject(o, "bytes", 0);
		cJSON_AddItemToArray(in->copies, o);
		return 0;
	case GPUVM_RUN_COPY_H2D:
	case GPUVM_RUN_COPY_D2H: {
		bool h2d = op->kind == GPUVM_RUN_COPY_H2D;
		*(h2d ? &in->h2d : &in->d2h) += op->copy_bytes;
		cJSON_AddStringToObject(o, "direction", h2d ? "h2d" : "d2h");
		cJSON_AddItemToObject(o, "addr", hex(op->copy_addr));
		cJSON_AddNumberToObject(o, "bytes", (double)op->copy_bytes);
		cJSON_AddItemToArray(in->copies, o);
		return 0;
	}
	case GPUVM_RUN_KERNEL: {
		const struct gpuvm_kernel *k = op->kernel;
		in->kernels_n++;
		in->ctas += gpuvm_kernel_ctas(k);
		cJSON_AddStringToObject(o, "name", k->name);
		cJSON_AddItemToObject(o, "grid", cJSON_CreateIntArray((const int[]){(int)k->grid[0], (int)k->grid[1], (int)k->grid[2]}, 3));
		cJSON_AddItemToObject(o, "block", cJSON_CreateIntArray((const int[]){(int)k->block[0], (int)k->block[1], (int)k->block[2]}, 3));
		cJSON_AddNumberToObject(o, "ctas", (double)gpuvm_kernel_ctas(k));
		cJSON_AddNumberToObject(o, "warps_per_cta", gpuvm_kernel_warps_per_cta(k));
		cJSON_AddItemToArray(in->kernels, o);
		in->cur = o;
		in->k_warps = in->k_insts = in->k_mem = in->k_acc = 0;
		return 0;
	}
	case GPUVM_RUN_PREFETCH:
	case GPUVM_RUN_ADVISE:
	case GPUVM_RUN_HOST_ACCESS: {
		/* a program's managed-memory operations between kernels (native
		 * version 7): what it asked for, with the target or advice */
		static const char *const advice[] = {"", "read_mostly", "accessed_by",
						     "preferred_location"};
		cJSON_AddStringToObject(o, "op", op->kind == GPUVM_RUN_PREFETCH ? "prefetch"
						 : op->kind == GPUVM_RUN_ADVISE	 ? "advise"
										 : "cpu_access");
		cJSON_AddItemToObject(o, "addr", hex(op->copy_addr));
		cJSON_AddNumberToObject(o, "bytes", (double)op->copy_bytes);
		if (op->kind == GPUVM_RUN_HOST_ACCESS)
			cJSON_AddStringToObject(o, "detail", op->host_write ? "write" : "read");
		else if (op->kind == GPUVM_RUN_ADVISE)
			cJSON_AddStringToObject(o, "detail", advice[op->advice & 3]);
		else
			cJSON_AddStringToObject(o, "detail", op->prefetch_to_cpu ? "to_cpu" : "to_gpu");
		cJSON_AddItemToArray(in->managed_ops, o);
		return 0;
	}
	default:
		cJSON_Delete(o);
		return 0;
	}
}

static int info_warp(void *ctx, const struct gpuvm_kernel *k, uint32_t cta, uint32_t warp,
		     struct gpuvm_error *err)
{
	(void)k, (void)cta, (void)warp, (void)err;
	((struct info *)ctx)->k_warps++;
	return 0;
}

static int info_item(void *ctx, const struct gpuvm_warp_item *it, struct gpuvm_error *err)
{
	struct info *in = ctx;
	if (it->kind == GPUVM_ITEM_COMPUTE) {
		in->k_insts += it->compute_insts;
		return 0;
	}
	in->k_insts++;
	if (it->kind != GPUVM_ITEM_MEM || it->space != GPUVM_SPACE_GLOBAL)
		return 0; /* barriers, local and shared accesses */
	in->k_mem++;
	*(it->op == GPUVM_OP_LOAD ? &in->loads : it->op == GPUVM_OP_STORE ? &in->stores : &in->atomics) += 1;
	if (!in->footprint) {
		in->k_acc += (uint64_t)__builtin_popcount(it->active_mask);
		return 0;
	}
	for (uint32_t m = it->active_mask; m; m &= m - 1) {
		in->k_acc++;
		uint64_t a = it->addr[__builtin_ctz(m)];
		uint64_t last = a + (it->bytes_per_lane ? it->bytes_per_lane - 1 : 0);
		for (uint64_t p = a >> INFO_PAGE_SHIFT; p <= last >> INFO_PAGE_SHIFT && p + 1; p++) {
			if (p + 1 == in->last_page)
				continue;
			in->last_page = p + 1;
			if (u64map_add(&in->pages, p, 0) < 0)
				return gpuvm_fail(err, "trace info", 0, NULL, "out of memory");
		}
	}
	return 0;
}

static int info_kernel_end(void *ctx, const struct gpuvm_kernel *k, struct gpuvm_error *err)
{
	(void)k, (void)err;
	struct info *in = ctx;
	cJSON_AddNumberToObject(in->cur, "warps", (double)in->k_warps);
	cJSON_AddNumberToObject(in->cur, "warp_instructions", (double)in->k_insts);
	cJSON_AddNumberToObject(in->cur, "memory_instructions", (double)in->k_mem);
	cJSON_AddNumberToObject(in->cur, "thread_accesses", (double)in->k_acc);
	in->warps += in->k_warps;
	in->insts += in->k_insts;
	in->mem += in->k_mem;
	in->acc += in->k_acc;
	return 0;
}

int gpuvm_trace_info(struct gpuvm_source *src, int footprint, struct cJSON **out,
		     struct gpuvm_error *err)
{
	struct info in;
	memset(&in, 0, sizeof in);
	in.footprint = footprint != 0;
	*out = NULL;
	in.root = cJSON_CreateObject();
	in.kernels = cJSON_AddArrayToObject(in.root, "kernels");
	in.allocs = cJSON_AddArrayToObject(in.root, "allocations");
	in.copies = cJSON_AddArrayToObject(in.root, "copies");
	in.managed_ops = cJSON_AddArrayToObject(in.root, "managed_operations");
	if (!in.kernels || !in.allocs || !in.copies || !in.managed_ops) {
		cJSON_Delete(in.root);
		return gpuvm_fail(err, "trace info", 0, NULL, "out of memory");
	}
	struct gpuvm_trace_visitor v = {.ctx = &in, .op = info_op, .warp_begin = info_warp,
					.item = info_item, .kernel_end = info_kernel_end};
	if (gpuvm_trace_walk(src, &v, err)) {
		u64map_free(&in.pages);
		cJSON_Delete(in.root);
		return -1;
	}
	cJSON *t = cJSON_AddObjectToObject(in.root, "totals");
	cJSON_AddNumberToObject(t, "kernels", (double)in.kernels_n);
	cJSON_AddNumberToObject(t, "ctas", (double)in.ctas);
	cJSON_AddNumberToObject(t, "warps", (double)in.warps);
	cJSON_AddNumberToObject(t, "warp_instructions", (double)in.insts);
	cJSON_AddNumberToObject(t, "memory_instructions", (double)in.mem);
	cJSON_AddNumberToObject(t, "loads", (double)in.loads);
	cJSON_AddNumberToObject(t, "stores", (double)in.stores);
	cJSON_AddNumberToObject(t, "atomics", (double)in.atomics);
	cJSON_AddNumberToObject(t, "thread_accesses", (double)in.acc);
	if (in.footprint)
		cJSON_AddNumberToObject(t, "footprint_bytes", (double)((uint64_t)in.pages.n << INFO_PAGE_SHIFT));
	cJSON_AddNumberToObject(t, "h2d_copy_bytes", (double)in.h2d);
	cJSON_AddNumberToObject(t, "d2h_copy_bytes", (double)in.d2h);
	u64map_free(&in.pages);
	*out = in.root;
	return 0;
}
