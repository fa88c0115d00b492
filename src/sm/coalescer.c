#include "sm/coalescer.h"

#include <string.h>

#include "gpuvm/units.h"

int coalescer_init(struct coalescer *c, uint64_t unit_bytes, uint32_t sector_bytes,
		   uint32_t line_bytes)
{
	memset(c, 0, sizeof *c);
	if (!unit_bytes || !sector_bytes || line_bytes < sector_bytes)
		return -1;
	c->unit_shift = gpuvm_log2_ceil(unit_bytes);
	c->sector_shift = gpuvm_log2_ceil(sector_bytes);
	c->line_shift = gpuvm_log2_ceil(line_bytes);
	c->lazy_ok = c->unit_shift >= c->line_shift;
	c->gen = 0;
	return 0;
}
