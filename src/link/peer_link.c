/* GPU-GPU links (peer_link.h holds the contract). */
#include "link/peer_link.h"

#include <stdlib.h>
#include <string.h>

static double seconds_per_byte(const struct gpuvm_sys_link *l)
{
	return 1.0 / (l->bandwidth_gb_s * 1e9 * l->count);
}

static double latency_seconds(const struct gpuvm_sys_link *l)
{
	return l->latency_ns > 0 ? l->latency_ns * 1e-9 : 0;
}

int peer_link_init(struct peer_link *pl, const struct gpuvm_sysdesc *desc)
{
	memset(pl, 0, sizeof *pl);
	uint32_t n = desc->n_gpus;
	pl->n_gpus = n;
	/* lanes: 2 per endpoint of each link (a direct link: one per
	 * direction, of which the other 2 stay unused; a switch: egress and
	 * ingress of each port) */
	uint32_t lanes = 0;
	for (uint32_t i = 0; i < desc->n_links; i++) {
		const struct gpuvm_sys_link *l = &desc->links[i];
		if (l->kind == GPUVM_LINK_NVLINK || l->kind == GPUVM_LINK_NVSWITCH)
			lanes += 2 * l->n_ends;
	}
	pl->routes = calloc((size_t)n * n, sizeof *pl->routes);
	pl->lanes = calloc(lanes ? lanes : 1, sizeof *pl->lanes);
	if (!pl->routes || !pl->lanes)
		return -1;
	for (uint32_t i = 0; i < desc->n_links; i++) {
		const struct gpuvm_sys_link *l = &desc->links[i];
		if (l->kind != GPUVM_LINK_NVLINK && l->kind != GPUVM_LINK_NVSWITCH)
			continue;
		struct link_lane *base = &pl->lanes[pl->n_lanes];
		uint32_t ends = l->n_ends;
		for (uint32_t k = 0; k < 2 * ends; k++)
			if (link_lane_init(&pl->lanes[pl->n_lanes++]))
				return -1;
		for (uint32_t a = 0; a < ends; a++)
			for (uint32_t b = 0; b < ends; b++) {
				if (a == b || l->ends[a].cpu || l->ends[b].cpu)
					continue;
				struct peer_route *r =
					&pl->routes[l->ends[a].index * n + l->ends[b].index];
				if (r->out) /* the first link joining them */
					continue;
				if (l->kind == GPUVM_LINK_NVLINK) {
					/* lane a of the pair: a to b */
					r->out = r->in = &base[a];
				} else {
					/* a's egress port, b's ingress port */
					r->out = &base[2 * a];
					r->in = &base[2 * b + 1];
				}
				r->seconds_per_byte = seconds_per_byte(l);
				r->latency_seconds = latency_seconds(l);
			}
	}
	return 0;
}

void peer_link_free(struct peer_link *pl)
{
	for (uint32_t i = 0; i < pl->n_lanes; i++)
		link_lane_free(&pl->lanes[i]);
	free(pl->lanes);
	free(pl->routes);
	memset(pl, 0, sizeof *pl);
}

double peer_link_copy(struct peer_link *pl, uint32_t s, uint32_t d, double t, uint64_t bytes,
		      double fixed_seconds)
{
	struct peer_route *r = &pl->routes[s * pl->n_gpus + d];
	double hold = (double)bytes * r->seconds_per_byte;
	double start = link_lane_bulk(r->out, t, &hold, &pl->oom);
	if (r->in != r->out) {
		double in_hold = (double)bytes * r->seconds_per_byte;
		double in_start = link_lane_bulk(r->in, start, &in_hold, &pl->oom);
		if (in_start > start)
			start = in_start;
	}
	return start + hold + r->latency_seconds + fixed_seconds;
}
