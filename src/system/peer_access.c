/* Peer access on a system of several GPUs (peer_access.h holds the contract). */
#include "system/peer_access.h"

#include <stdlib.h>
#include <string.h>

/* One sector request of GPU pg->gpu to GPU h's device memory at addr (h:
 * the peer entry's owner, which the SM layer names, link/peer_port.h),
 * leaving the SM side at t (cycles): when it is done (cycles). */
static double peer_request(struct peer_port *port, uint32_t h, uint64_t addr, bool write,
			   double t, uint32_t bytes)
{
	struct peer_gpu *pg = (struct peer_gpu *)port;
	struct peer_access *pa = pg->pa;
	(void)addr; /* the route is the pair's: where in h's memory does not matter */
	uint32_t g = pg->gpu;
	/* the data's direction: a load's comes from h, a store's goes to h */
	uint32_t s = write ? g : h, d = write ? h : g;
	double end = peer_link_copy(pa->pl, s, d, t / pg->hz, bytes, 0);
	if (!(pa->pl->routes[s * pa->pl->n_gpus + d].latency_seconds > 0))
		end += pg->fallback_s;
	if (!write) /* read at the peer before it crosses (peer_access.h) */
		end += pa->gpus[h].memory_s;
	pg->st->requests++;
	if (write)
		pg->st->write_bytes += bytes;
	else
		pg->st->read_bytes += bytes;
	double e = end * pg->hz;
	return e > t ? e : t;
}

int peer_access_init(struct peer_access *pa, struct peer_link *pl, uint32_t n)
{
	memset(pa, 0, sizeof *pa);
	pa->pl = pl;
	pa->n = n;
	pa->gpus = calloc(n ? n : 1, sizeof *pa->gpus);
	if (!pa->gpus)
		return -1;
	for (uint32_t d = 0; d < n; d++) {
		pa->gpus[d].port.access = peer_request;
		pa->gpus[d].pa = pa;
		pa->gpus[d].gpu = d;
	}
	return 0;
}

void peer_access_free(struct peer_access *pa)
{
	free(pa->gpus);
	memset(pa, 0, sizeof *pa);
}

/* a's entry in g's table: the same range, of kind peer, owned by h */
static int add_entry(struct peer_access *pa, uint32_t g, uint32_t h, const struct gpuvm_alloc *a,
		     struct gpuvm_error *err)
{
	struct gpuvm_alloc e = *a;
	e.kind = GPUVM_ALLOC_PEER;
	e.peer_device = h;
	return alloc_table_add(pa->gpus[g].allocs, &e, err);
}

int peer_access_enable(struct peer_access *pa, uint32_t g, uint32_t h,
		       const struct alloc_table *h_allocs, struct peer_port **port,
		       struct gpuvm_error *err)
{
	if (g >= pa->n || h >= pa->n || g == h)
		return gpuvm_fail(err, "engine", 0, NULL,
				  "cudaDeviceEnablePeerAccess(%u) on GPU %u: the system has GPUs "
				  "0-%u", h, g, pa->n - 1);
	if (!peer_link_joined(pa->pl, h, g) || !peer_link_joined(pa->pl, g, h))
		return gpuvm_fail(err, "engine", 0, NULL,
				  "cudaDeviceEnablePeerAccess(%u) on GPU %u: no NVLink or NVSwitch "
				  "joins GPUs %u and %u in this system (peer access over PCIe "
				  "peer-to-peer is not modelled)", h, g, g, h);
	if (pa->on[g] >> h & 1)
		return 0;
	pa->on[g] |= 1ull << h;
	for (size_t i = 0; i < h_allocs->n; i++)
		if (h_allocs->a[i].kind == GPUVM_ALLOC_DEVICE &&
		    add_entry(pa, g, h, &h_allocs->a[i], err))
			return -1;
	*port = &pa->gpus[g].port;
	return 0;
}

int peer_access_alloc(struct peer_access *pa, uint32_t h, const struct gpuvm_alloc *a,
		      struct gpuvm_error *err)
{
	for (uint32_t g = 0; g < pa->n; g++)
		if ((pa->on[g] >> h & 1) && add_entry(pa, g, h, a, err))
			return -1;
	return 0;
}

void peer_access_free_alloc(struct peer_access *pa, uint32_t h, uint64_t base)
{
	for (uint32_t g = 0; g < pa->n; g++)
		if (pa->on[g] >> h & 1)
			alloc_table_remove(pa->gpus[g].allocs, base);
}
