#include "simt/va_layout.h"

#include <string.h>

void va_layout_init(struct va_layout *v)
{
	v->next_device = VA_DEVICE_BASE;
	v->next_host = VA_HOST_BASE;
	v->next_system = VA_SYSTEM_BASE;
}

uint64_t va_layout_alloc(struct va_layout *v, struct gpuvm_alloc *a, const char *name,
			 uint64_t bytes, enum gpuvm_alloc_kind kind)
{
	uint64_t *next = kind == GPUVM_ALLOC_HOST_PINNED ? &v->next_host
			 : kind == GPUVM_ALLOC_SYSTEM    ? &v->next_system
							 : &v->next_device;
	memset(a, 0, sizeof *a);
	strncpy(a->name, name, sizeof a->name - 1);
	a->base = *next;
	a->bytes = bytes;
	a->kind = kind;
	*next += (bytes + VA_ALIGN - 1) & ~(VA_ALIGN - 1);
	return a->base;
}
