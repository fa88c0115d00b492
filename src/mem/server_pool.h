/* A pool of k identical servers (MSHRs, page walkers): a request arriving
 * at time t waits for its server, so contention shows up as waiting.
 *
 * Servers are handed out in rotation, each request taking the one the
 * request k places earlier used. For requests of equal hold time handled
 * in time order this is exactly a k-server FCFS queue; with unequal hold
 * times it can wait on a busy server while another is free, an
 * over-estimate bounded by one hold time. It costs O(1) per request, where
 * the exact earliest-free choice (a heap) cost a fifth of the simulator's
 * time in profiles. */
#ifndef GPUVM_SERVER_POOL_H
#define GPUVM_SERVER_POOL_H

#include <stdint.h>

struct server_pool {
	uint32_t servers, next;
	double *free_at; /* per server, when it becomes free */
};

int server_pool_init(struct server_pool *p, uint32_t servers);
void server_pool_free(struct server_pool *p);

/* Earliest time a request arriving at t can start. */
static inline double server_pool_start(const struct server_pool *p, double t)
{
	double f = p->free_at[p->next];
	return f > t ? f : t;
}

/* Occupies the server server_pool_start() chose until busy_until. */
static inline void server_pool_occupy(struct server_pool *p, double busy_until)
{
	p->free_at[p->next] = busy_until;
	if (++p->next == p->servers)
		p->next = 0;
}

#endif
