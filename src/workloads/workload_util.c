#include "workloads/workload_util.h"

#include "core/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int workload_check_launch(uint64_t threads, uint64_t block, struct gpuvm_error *err)
{
	/* the range tables hold threads= and block= to these limits; a
	 * launch whose threads are derived (n rounded up to whole blocks,
	 * SMs x threads per SM) can still pass them */
	if (!threads || threads > (1ull << 32))
		return gpuvm_params_constraint(err, "threads",
					       "the launch has %llu threads; a grid of at most 2^32",
					       (unsigned long long)threads);
	if (!block || block > 1024 || block % GPUVM_WARP_LANES)
		return gpuvm_params_constraint(err, "block", "%llu: whole warps, 32 to 1024",
					       (unsigned long long)block);
	return 0;
}

void workload_kernel_1d(struct gpuvm_kernel *k, const char *name,
			const struct gpuvm_kernel_ops *ops, void *impl, uint64_t threads,
			uint64_t block)
{
	snprintf(k->name, sizeof k->name, "%s", name);
	k->grid[0] = (uint32_t)((threads + block - 1) / block);
	k->grid[1] = k->grid[2] = 1;
	k->block[0] = (uint32_t)block;
	k->block[1] = k->block[2] = 1;
	k->ops = ops;
	k->impl = impl;
}

static struct gpuvm_run_op *op_list_push(struct op_list *l)
{
	if (VEC_RESERVE(l->ops, l->cap, l->n + 1))
		return NULL;
	struct gpuvm_run_op *op = &l->ops[l->n++];
	memset(op, 0, sizeof *op);
	return op;
}

int op_list_alloc(struct op_list *l, const struct gpuvm_alloc *a)
{
	struct gpuvm_run_op *op = op_list_push(l);
	if (!op)
		return -1;
	op->kind = GPUVM_RUN_ALLOC;
	op->alloc = *a;
	return 0;
}

int op_list_kernel(struct op_list *l, struct gpuvm_kernel *k)
{
	struct gpuvm_run_op *op = op_list_push(l);
	if (!op)
		return -1;
	op->kind = GPUVM_RUN_KERNEL;
	op->kernel = k;
	return 0;
}

int op_list_copy(struct op_list *l, enum gpuvm_run_op_kind kind, uint64_t addr, uint64_t bytes)
{
	struct gpuvm_run_op *op = op_list_push(l);
	if (!op)
		return -1;
	op->kind = kind;
	op->copy_addr = addr;
	op->copy_bytes = bytes;
	return 0;
}

static int ol_next(struct gpuvm_source *s, struct gpuvm_run_op *op, struct gpuvm_error *err)
{
	(void)err;
	struct op_list *l = s->impl;
	if (l->next == l->n) {
		memset(op, 0, sizeof *op);
		op->kind = GPUVM_RUN_END;
		return 0;
	}
	*op = l->ops[l->next++];
	return 0;
}

static void ol_result(struct gpuvm_source *s, char *buf, size_t len)
{
	struct op_list *l = s->impl;
	if (l->result)
		l->result(l->impl, buf, len);
	else if (len)
		buf[0] = 0;
}

static uint64_t ol_work_items(struct gpuvm_source *s)
{
	struct op_list *l = s->impl;
	return l->work_items ? l->work_items(l->impl) : 0;
}

static void ol_destroy(struct gpuvm_source *s)
{
	struct op_list *l = s->impl;
	if (!l)
		return;
	if (l->destroy_impl)
		l->destroy_impl(l->impl);
	free(l->ops);
	free(l);
	s->impl = NULL;
}

static const struct gpuvm_source_ops op_list_ops = {
	.kind = "workload",
	.next_op = ol_next,
	.result = ol_result,
	.work_items = ol_work_items,
	.destroy = ol_destroy,
};

int op_list_source(struct op_list *l, struct gpuvm_source *out, struct gpuvm_error *err)
{
	struct op_list *h = malloc(sizeof *h);
	if (!h) {
		if (l->destroy_impl)
			l->destroy_impl(l->impl);
		free(l->ops);
		return gpuvm_fail(err, "workload", 0, NULL, "out of memory");
	}
	*h = *l;
	out->ops = &op_list_ops;
	out->impl = h;
	return 0;
}

int workload_mem_param(const struct gpuvm_params *p, enum workload_mem *out,
		       struct gpuvm_error *err)
{
	unsigned i = WL_MEM_DEVICE;
	if (gpuvm_params_choice(p, "mem", WORKLOAD_MEM_CHOICES, &i, err) < 0)
		return -1;
	*out = (enum workload_mem)i;
	return 0;
}

int workload_mem_alloc(struct op_list *l, enum workload_mem m, const struct gpuvm_alloc *a)
{
	if (op_list_alloc(l, a))
		return -1;
	return m == WL_MEM_COPY ? op_list_copy(l, GPUVM_RUN_COPY_H2D, a->base, a->bytes) : 0;
}
