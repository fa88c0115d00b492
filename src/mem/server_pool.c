#include "mem/server_pool.h"

#include <stdlib.h>

int server_pool_init(struct server_pool *p, uint32_t servers)
{
	p->servers = servers ? servers : 1;
	p->free_at = calloc(p->servers, sizeof *p->free_at);
	return p->free_at ? 0 : -1;
}

void server_pool_free(struct server_pool *p)
{
	free(p->free_at);
	p->free_at = NULL;
}

void server_pool_reset(struct server_pool *p)
{
	for (uint32_t i = 0; i < p->servers; i++)
		p->free_at[i] = 0;
}

void server_pool_occupy(struct server_pool *p, double busy_until)
{
	double *h = p->free_at;
	uint32_t n = p->servers, i = 0;
	/* Replace the root and sift down: move the smaller child up while it
	 * is earlier than the new value. */
	for (;;) {
		uint32_t child = 2 * i + 1;
		if (child >= n)
			break;
		if (child + 1 < n && h[child + 1] < h[child])
			child++;
		if (h[child] >= busy_until)
			break;
		h[i] = h[child];
		i = child;
	}
	h[i] = busy_until;
}
