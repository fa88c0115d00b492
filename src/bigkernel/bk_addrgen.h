/* Stage 1 of BigKernel (Fig. 4.7): the address-generation kernel, the
 * slice of an application kernel that keeps only the loops over the
 * thread's records and the address arithmetic of its mapped reads
 * (bk_template), recording each address in host-pinned memory instead of
 * loading it, or, with pattern recognition (4.3.1), only the pattern the
 * addresses follow. If the addresses follow none, the thread starts over
 * and sends them all. */
#ifndef GPUVM_BK_ADDRGEN_H
#define GPUVM_BK_ADDRGEN_H

#include "bk_device.h"

/* One pass over the thread's mapped reads: with p, feeds the detector
 * (registers only); without, stores every address to the host buffer. */
SIMT_DEVFN unsigned long long bk_ag_pass(SIMT_CTX_ const struct bk_ag_args *a, unsigned long long t,
					 struct bk_pat *p)
{
	unsigned long long r0 = t * a->g.per, r1 = r0 + a->g.per, k = 0;
	if (r1 > a->g.nrec)
		r1 = a->g.nrec;
	for (unsigned long long r = r0; r < r1; r++) {
		unsigned long long base;
		if (a->index) {
			base = LD(a->index, r);
		} else {
			base = a->chunk_base + r * a->tp.rec_bytes;
			COMPUTE(2); /* record base multiply-add, loop compare-branch */
		}
		for (unsigned int s = 0; s < a->tp.nruns; s++) {
			/* one address per element, or the run's first alone
			 * (addr_per_run: the CPU copies the run, bk_template) */
			unsigned int n = a->tp.addr_per_run ? 1 : a->tp.run_n[s];
			for (unsigned int j = 0; j < n; j++) {
				unsigned long long ad = base + a->tp.run_off[s] + (unsigned long long)j * a->tp.elem;
				COMPUTE(3); /* address multiply-add, j++, compare-branch */
				if (p) {
					bk_pat_push(p, ad);
					COMPUTE(4); /* delta, compare, count or close, branch */
				} else {
					ST(a->addr, k * a->threads + t, ad);
				}
				k++;
			}
		}
	}
	return k;
}

SIMT_KERNEL(bk_addrgen, struct bk_ag_args, a)
{
	unsigned long long t = bk_tid(SIMT_PASS_ 0);
	if (t >= a.threads)
		return;
	if (a.detect) {
		struct bk_pat p;
		p.n = p.cur_count = 0;
		p.nclosed = p.period = p.failed = 0;
		p.base = p.last = 0;
		p.cur_stride = 0;
		unsigned long long n = bk_ag_pass(SIMT_PASS_ & a, t, &p);
		COMPUTE(6); /* the finish checks */
		if (bk_pat_finish(&p)) {
			ST(a.pat, BK_PAT_AT(0, a.threads, t), n | BK_PAT_FLAG);
			ST(a.pat, BK_PAT_AT(1, a.threads, t), p.base);
			ST(a.pat, BK_PAT_AT(2, a.threads, t), (unsigned long long)p.period);
			for (int s = 0; s < p.period; s++) {
				ST(a.pat, BK_PAT_AT(3 + 2 * s, a.threads, t), (unsigned long long)p.stride[s]);
				ST(a.pat, BK_PAT_AT(4 + 2 * s, a.threads, t), p.count[s]);
			}
			return;
		}
	}
	/* no pattern: start over, sending every address (4.3.1) */
	unsigned long long n = bk_ag_pass(SIMT_PASS_ & a, t, 0);
	ST(a.pat, BK_PAT_AT(0, a.threads, t), n);
}

#endif
