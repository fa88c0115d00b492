/* Pieces several eviction policies share. */
#include "uvm/evict.h"

#include <stdlib.h>

int uvm_evict_lru_create(void **st)
{
	*st = calloc(1, sizeof(struct uvm_lru));
	return *st ? 0 : -1;
}

void uvm_evict_lru_destroy(void *st)
{
	if (st)
		uvm_lru_free(st);
	free(st);
}
