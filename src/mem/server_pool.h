/* A pool of k identical servers (MSHRs, page walkers, fault handlers):
 * a request arriving at time t starts on the earliest-free server, so
 * contention shows up as waiting. Kept as a binary min-heap of the times
 * each server becomes free. */
#ifndef GPUVM_SERVER_POOL_H
#define GPUVM_SERVER_POOL_H

#include <stdint.h>

struct server_pool {
	uint32_t servers;
	double *free_at; /* min-heap, free_at[0] is the earliest */
};

int server_pool_init(struct server_pool *p, uint32_t servers);
void server_pool_free(struct server_pool *p);
void server_pool_reset(struct server_pool *p);

/* Earliest time a request arriving at t can start. */
static inline double server_pool_start(const struct server_pool *p, double t)
{
	return p->free_at[0] > t ? p->free_at[0] : t;
}

/* Occupies the earliest-free server until busy_until (>= its start). */
void server_pool_occupy(struct server_pool *p, double busy_until);

#endif
