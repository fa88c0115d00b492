#include "mem/server_pool.h"

#include <stdlib.h>

int server_pool_init(struct server_pool *p, uint32_t servers)
{
	p->servers = servers ? servers : 1;
	p->next = 0;
	p->free_at = calloc(p->servers, sizeof *p->free_at);
	return p->free_at ? 0 : -1;
}

void server_pool_free(struct server_pool *p)
{
	free(p->free_at);
	p->free_at = NULL;
}
