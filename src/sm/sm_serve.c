/* The barrier's second stage (core.window with --threads; sm_window.c
 * runs it on its own thread): a planned instruction's translated sectors
 * served as memory_instruction serves them once translated, in the same
 * order, through the same code (sm_sector.h), and its result. */
#include "sm/sm.h"
#include "sm/sm_sector.h"

/* One part of a plan served: its sectors as memory_instruction serves
 * them once translated, in the same order, through the same paths. */
static double serve_part(struct sm_layer *sl, uint32_t sm, const struct gpuvm_warp_item *it,
			 const struct sm_plan *plan, const struct sm_plan_part *part)
{
	sl->serve_instr = part->instr;
	sl->store_left = 0;
	const struct sm_plan_sector *sec = plan->sec + part->first, *end = sec + part->n;
	/* their L2 sets, loading while the first is served (changes no result) */
	for (const struct sm_plan_sector *p = sec; p < end; p++)
		memsys_l2_prefetch(sl->port.mem, p->addr);
	double done = part->start + 1;
	if (part->runs) {
		bool runs_open = false;
		for (; sec < end; sec++)
			done = load_run_sector(sl, sm, it, sec->addr, sec->tx, done, &runs_open);
		done = load_runs_end(sl, done, runs_open);
	} else {
		enum l1_mode l1mode = (enum l1_mode)part->l1mode;
		for (; sec < end; sec++)
			done = later(serve_sector(sl, sm, it, sec->addr, l1mode, sec->tx), done);
	}
	return instruction_done(sl, it->op, part->start, part->stage, done);
}

double sm_serve_plan(struct sm_layer *sl, uint32_t sm, const struct gpuvm_warp_item *it,
		     double start, const struct sm_plan *plan, size_t first, size_t end)
{
	sl->store_ack = 0;
	/* local_instruction: the latest of its words; a global instruction
	 * has one part (none without active lanes, as memory_instruction) */
	double done = start + 1;
	for (size_t i = first; i < end; i++) {
		double d = serve_part(sl, sm, it, plan, &plan->part[i]);
		done = it->space == GPUVM_SPACE_LOCAL ? later(d, done) : d;
	}
	return done;
}
